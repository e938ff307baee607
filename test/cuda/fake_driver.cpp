// test/cuda/fake_driver.cpp — a fake CUDA driver for the GPU-free tests of libencore-cuda, which
// loads it through ENCORE_CUDA_DRIVER=<path> as it would load NVIDIA's libcuda.so.1.
//
// A small, honest subset on the host: cuInit, versions, one device (FAKE_CUDA_DEVICES for
// more), primary and created contexts (current per thread), streams (every operation completes
// before it returns, so synchronizing is a check of the handle), device memory in host memory
// (a CUdeviceptr is the address; FAKE_CUDA_MEMORY_MB, default 4096, is the device's size for
// cuMemGetInfo and out-of-memory), events (recorded at once: streams are always complete), pinned
// host memory, copies between them (ranges checked
// against the allocations; 2-D and 3-D too), modules whose kernels are host functions (fake_driver.h), launches,
// error strings, and cuGetProcAddress handing out these functions. Errors as the real driver
// returns them: NOT_INITIALIZED before cuInit, INVALID_CONTEXT without a current context,
// INVALID_VALUE for a copy outside an allocation, OUT_OF_MEMORY past the device's size. Every
// other driver function is absent (libencore-cuda reports it missing and its calls fail).
//
// Linked with -Bsymbolic: libencore-cuda dlopen()s this library while its own exports of the
// same names are global; this library's references to its own functions (cuGetProcAddress's
// table) must stay its own.
#include "fake_driver.h"

#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string_view>

#undef cuGetProcAddress    // CUDA >= 12: a macro for cuGetProcAddress_v2; the 4-argument one is defined here too
#undef cuEventElapsedTime  // CUDA >= 12.8: a macro for cuEventElapsedTime_v2; both are defined here

#define FAKE_API extern "C" __attribute__((visibility("default")))

namespace {

struct fake_context {
    CUdevice device;
    bool primary;
};
struct fake_stream {
    fake_context* ctx;
};
struct fake_module {
    fake_cuda_module table;
};
struct fake_function {
    fake_cuda_kernel fn;
    const char* name;  // the module table's (the test program's static strings)
};
struct fake_event {
    double ms = -1;  // when it was recorded (every operation before it has completed), or -1
};

std::atomic<bool> g_initialized{false};
thread_local fake_context* t_current = nullptr;

std::mutex g_mutex;                                                                           // guards everything below
std::map<std::uintptr_t, std::size_t>* g_device = new std::map<std::uintptr_t, std::size_t>;  // base -> size
std::set<void*>* g_host = new std::set<void*>;
std::set<fake_context*>* g_contexts = new std::set<fake_context*>;
std::set<fake_stream*>* g_streams = new std::set<fake_stream*>;
std::set<fake_event*>* g_events = new std::set<fake_event*>;
std::map<CUdevice, std::pair<fake_context*, int>>* g_primary = new std::map<CUdevice, std::pair<fake_context*, int>>;
std::size_t g_used = 0;

int device_count() {
    const char* v = std::getenv("FAKE_CUDA_DEVICES");
    const int n = v != nullptr ? std::atoi(v) : 1;
    return n > 0 ? n : 1;
}
std::size_t device_bytes() {
    const char* v = std::getenv("FAKE_CUDA_MEMORY_MB");
    const std::size_t mb = v != nullptr ? std::strtoull(v, nullptr, 10) : 4096;
    return mb << 20;
}

CUresult ready() {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (t_current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_SUCCESS;
}

// Whether [p, p + n) lies inside one device allocation (g_mutex held).
bool in_device(std::uintptr_t p, std::size_t n) {
    auto it = g_device->upper_bound(p);
    if (it == g_device->begin()) return false;
    --it;
    return p >= it->first && p + n <= it->first + it->second && p + n >= p;
}

CUresult copy(void* dst, const void* src, std::size_t n, bool dst_device, bool src_device) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    std::lock_guard lk(g_mutex);
    if ((dst_device && !in_device(reinterpret_cast<std::uintptr_t>(dst), n)) ||
        (src_device && !in_device(reinterpret_cast<std::uintptr_t>(src), n)) || dst == nullptr || src == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    std::memmove(dst, src, n);
    return CUDA_SUCCESS;
}

CUresult check_stream(CUstream s) {
    if (s == nullptr) return CUDA_SUCCESS;  // the legacy default stream
    std::lock_guard lk(g_mutex);
    return g_streams->count(reinterpret_cast<fake_stream*>(s)) != 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

struct error_text {
    CUresult code;
    const char* name;
    const char* text;
};
constexpr error_text g_errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "shared object initialization failed"},
};

}  // namespace

// ---- errors, initialization, devices ------------------------------------------------------------
FAKE_API CUresult cuGetErrorString(CUresult error, const char** pStr) {
    if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
    for (const auto& e : g_errors)
        if (e.code == error) {
            *pStr = e.text;
            return CUDA_SUCCESS;
        }
    *pStr = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}

FAKE_API CUresult cuGetErrorName(CUresult error, const char** pStr) {
    if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
    for (const auto& e : g_errors)
        if (e.code == error) {
            *pStr = e.name;
            return CUDA_SUCCESS;
        }
    *pStr = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}

FAKE_API CUresult cuInit(unsigned int Flags) {
    if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
    g_initialized.store(true, std::memory_order_release);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDriverGetVersion(int* driverVersion) {
    if (driverVersion == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = CUDA_VERSION;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceGetCount(int* count) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *count = device_count();
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceGet(CUdevice* device, int ordinal) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
    std::strncpy(name, "encore fake CUDA device", static_cast<std::size_t>(len) - 1);
    name[len - 1] = '\0';
    return CUDA_SUCCESS;
}

// ---- contexts -----------------------------------------------------------------------------------
FAKE_API CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
    (void)flags;
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
    auto* c = new fake_context{dev, false};
    {
        std::lock_guard lk(g_mutex);
        g_contexts->insert(c);
    }
    t_current = c;
    *pctx = reinterpret_cast<CUcontext>(c);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxDestroy_v2(CUcontext ctx) {
    auto* c = reinterpret_cast<fake_context*>(ctx);
    {
        std::lock_guard lk(g_mutex);
        if (c == nullptr || c->primary || g_contexts->erase(c) == 0) return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (t_current == c) t_current = nullptr;
    delete c;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
    std::lock_guard lk(g_mutex);
    auto& [c, refs] = (*g_primary)[dev];
    if (c == nullptr) {
        c = new fake_context{dev, true};
        g_contexts->insert(c);
    }
    ++refs;
    *pctx = reinterpret_cast<CUcontext>(c);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    std::lock_guard lk(g_mutex);
    auto it = g_primary->find(dev);
    if (it == g_primary->end() || it->second.second == 0) return CUDA_ERROR_INVALID_CONTEXT;
    --it->second.second;  // the context stays (the real driver resets it; nothing here to reset)
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned* flags, int* active) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
    std::lock_guard lk(g_mutex);
    auto it = g_primary->find(dev);
    *flags = 0;
    *active = it != g_primary->end() && it->second.second > 0 ? 1 : 0;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxGetCurrent(CUcontext* pctx) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *pctx = reinterpret_cast<CUcontext>(t_current);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxSetCurrent(CUcontext ctx) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    auto* c = reinterpret_cast<fake_context*>(ctx);
    if (c != nullptr) {
        std::lock_guard lk(g_mutex);
        if (g_contexts->count(c) == 0) return CUDA_ERROR_INVALID_CONTEXT;
    }
    t_current = c;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxGetDevice(CUdevice* device) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *device = t_current->device;
    return CUDA_SUCCESS;
}

// CUDA 13's form (an api::unavailable op in a build against CUDA 11.8's cuda.h): the device of
// `ctx`, or of the current context when ctx is null.
FAKE_API CUresult cuCtxGetDevice_v2(CUdevice* device, CUcontext ctx) {
    if (ctx == nullptr) return cuCtxGetDevice(device);
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    auto* c = reinterpret_cast<fake_context*>(ctx);
    if (g_contexts->count(c) == 0) return CUDA_ERROR_INVALID_CONTEXT;
    *device = c->device;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxSynchronize() { return ready(); }

// ---- streams ------------------------------------------------------------------------------------
FAKE_API CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
    (void)Flags;
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (phStream == nullptr) return CUDA_ERROR_INVALID_VALUE;
    auto* s = new fake_stream{t_current};
    std::lock_guard lk(g_mutex);
    g_streams->insert(s);
    *phStream = reinterpret_cast<CUstream>(s);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamDestroy_v2(CUstream hStream) {
    auto* s = reinterpret_cast<fake_stream*>(hStream);
    {
        std::lock_guard lk(g_mutex);
        if (s == nullptr || g_streams->erase(s) == 0) return CUDA_ERROR_INVALID_HANDLE;
    }
    delete s;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamSynchronize(CUstream hStream) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    return check_stream(hStream);
}

// ---- events (what libencore-cuda times launches with) -------------------------------------------
FAKE_API CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags) {
    (void)Flags;
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (phEvent == nullptr) return CUDA_ERROR_INVALID_VALUE;
    auto* e = new fake_event;
    std::lock_guard lk(g_mutex);
    g_events->insert(e);
    *phEvent = reinterpret_cast<CUevent>(e);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuEventDestroy_v2(CUevent hEvent) {
    auto* e = reinterpret_cast<fake_event*>(hEvent);
    {
        std::lock_guard lk(g_mutex);
        if (e == nullptr || g_events->erase(e) == 0) return CUDA_ERROR_INVALID_HANDLE;
    }
    delete e;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    std::lock_guard lk(g_mutex);
    auto* e = reinterpret_cast<fake_event*>(hEvent);
    if (g_events->count(e) == 0) return CUDA_ERROR_INVALID_HANDLE;
    e->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuEventQuery(CUevent hEvent) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    std::lock_guard lk(g_mutex);
    return g_events->count(reinterpret_cast<fake_event*>(hEvent)) != 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

FAKE_API CUresult cuEventSynchronize(CUevent hEvent) { return cuEventQuery(hEvent); }

FAKE_API CUresult cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (pMilliseconds == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    auto* a = reinterpret_cast<fake_event*>(hStart);
    auto* b = reinterpret_cast<fake_event*>(hEnd);
    if (g_events->count(a) == 0 || g_events->count(b) == 0) return CUDA_ERROR_INVALID_HANDLE;
    if (a->ms < 0 || b->ms < 0) return CUDA_ERROR_INVALID_HANDLE;  // the driver's answer for an unrecorded event
    *pMilliseconds = static_cast<float>(b->ms - a->ms);
    return CUDA_SUCCESS;
}
// The same under its pre-CUDA-12.8 export name.
FAKE_API CUresult cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

// ---- memory -------------------------------------------------------------------------------------
FAKE_API CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (free == nullptr || total == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    *total = device_bytes();
    *free = *total - g_used;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (dptr == nullptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    if (bytesize > device_bytes() - g_used) return CUDA_ERROR_OUT_OF_MEMORY;
    void* p = std::aligned_alloc(256, (bytesize + 255) / 256 * 256);
    if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
    (*g_device)[reinterpret_cast<std::uintptr_t>(p)] = bytesize;
    g_used += bytesize;
    *dptr = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemFree_v2(CUdeviceptr dptr) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    std::lock_guard lk(g_mutex);
    auto it = g_device->find(static_cast<std::uintptr_t>(dptr));
    if (it == g_device->end()) return CUDA_ERROR_INVALID_VALUE;
    g_used -= it->second;
    g_device->erase(it);
    std::free(reinterpret_cast<void*>(dptr));
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemAllocHost_v2(void** pp, size_t bytesize) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (pp == nullptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    void* p = std::malloc(bytesize);
    if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
    std::lock_guard lk(g_mutex);
    g_host->insert(p);
    *pp = p;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemFreeHost(void* p) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    std::lock_guard lk(g_mutex);
    if (g_host->erase(p) == 0) return CUDA_ERROR_INVALID_VALUE;
    std::free(p);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
    return copy(reinterpret_cast<void*>(dstDevice), srcHost, ByteCount, true, false);
}
FAKE_API CUresult cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
    return copy(dstHost, reinterpret_cast<const void*>(srcDevice), ByteCount, false, true);
}
FAKE_API CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
    return copy(reinterpret_cast<void*>(dstDevice), reinterpret_cast<const void*>(srcDevice), ByteCount, true, true);
}
FAKE_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream) {
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    return cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
}
FAKE_API CUresult cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
}
FAKE_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    return cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount);
}

// 2-D and 3-D copies, row by row, each row checked like a 1-D copy. Host, device and unified
// memory (the fake has no arrays: CUDA_ERROR_INVALID_VALUE).
namespace {
bool side_of(CUmemorytype type, const void* host, CUdeviceptr device, char*& base, bool& on_device) {
    switch (type) {
        case CU_MEMORYTYPE_HOST: base = static_cast<char*>(const_cast<void*>(host)), on_device = false; return true;
        case CU_MEMORYTYPE_DEVICE: base = reinterpret_cast<char*>(device), on_device = true; return true;
        case CU_MEMORYTYPE_UNIFIED: {
            base = reinterpret_cast<char*>(device);
            std::lock_guard lk(g_mutex);
            on_device = in_device(static_cast<std::uintptr_t>(device), 1);
            return true;
        }
        default: return false;
    }
}
CUresult copy_rows(const CUDA_MEMCPY3D& d) {
    char *src = nullptr, *dst = nullptr;
    bool src_dev = false, dst_dev = false;
    if (!side_of(d.srcMemoryType, d.srcHost, d.srcDevice, src, src_dev) ||
        !side_of(d.dstMemoryType, d.dstHost, d.dstDevice, dst, dst_dev))
        return CUDA_ERROR_INVALID_VALUE;
    const std::size_t src_height = d.Depth > 1 ? d.srcHeight : d.Height,
                      dst_height = d.Depth > 1 ? d.dstHeight : d.Height;
    for (std::size_t z = 0; z < d.Depth; ++z)
        for (std::size_t y = 0; y < d.Height; ++y) {
            const std::size_t so = ((d.srcZ + z) * src_height + d.srcY + y) * d.srcPitch + d.srcXInBytes;
            const std::size_t dof = ((d.dstZ + z) * dst_height + d.dstY + y) * d.dstPitch + d.dstXInBytes;
            if (CUresult r = copy(dst + dof, src + so, d.WidthInBytes, dst_dev, src_dev); r != CUDA_SUCCESS) return r;
        }
    return CUDA_SUCCESS;
}
CUDA_MEMCPY3D as_3d(const CUDA_MEMCPY2D& d) {
    CUDA_MEMCPY3D e{};
    e.srcXInBytes = d.srcXInBytes, e.srcY = d.srcY, e.srcMemoryType = d.srcMemoryType, e.srcHost = d.srcHost;
    e.srcDevice = d.srcDevice, e.srcArray = d.srcArray, e.srcPitch = d.srcPitch;
    e.dstXInBytes = d.dstXInBytes, e.dstY = d.dstY, e.dstMemoryType = d.dstMemoryType, e.dstHost = d.dstHost;
    e.dstDevice = d.dstDevice, e.dstArray = d.dstArray, e.dstPitch = d.dstPitch;
    e.WidthInBytes = d.WidthInBytes, e.Height = d.Height, e.Depth = 1;
    return e;
}
}  // namespace

FAKE_API CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D* pCopy) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (pCopy == nullptr) return CUDA_ERROR_INVALID_VALUE;
    return copy_rows(*pCopy);
}
FAKE_API CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* pCopy, CUstream hStream) {
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    return cuMemcpy3D_v2(pCopy);
}
FAKE_API CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* pCopy) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (pCopy == nullptr) return CUDA_ERROR_INVALID_VALUE;
    return copy_rows(as_3d(*pCopy));
}
FAKE_API CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* pCopy) { return cuMemcpy2D_v2(pCopy); }
FAKE_API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    return cuMemcpy2D_v2(pCopy);
}

// ---- modules and launches -----------------------------------------------------------------------
FAKE_API CUresult cuModuleLoadData(CUmodule* module, const void* image) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const auto* t = static_cast<const fake_cuda_module*>(image);
    if (t->count > sizeof(t->kernels) / sizeof(t->kernels[0])) return CUDA_ERROR_INVALID_VALUE;  // not a table
    *module = reinterpret_cast<CUmodule>(new fake_module{*t});
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuModuleUnload(CUmodule hmod) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (hmod == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    delete reinterpret_cast<fake_module*>(hmod);  // its functions stay valid: they are not freed
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (hfunc == nullptr || hmod == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const auto& t = reinterpret_cast<fake_module*>(hmod)->table;
    for (unsigned i = 0; i < t.count; ++i)
        if (std::strcmp(t.kernels[i].name, name) == 0) {
            static std::mutex m;
            static auto* functions = new std::map<fake_cuda_kernel, fake_function*>;  // one handle per kernel
            std::lock_guard lk(m);
            auto& f = (*functions)[t.kernels[i].fn];
            if (f == nullptr) f = new fake_function{t.kernels[i].fn, t.kernels[i].name};
            *hfunc = reinterpret_cast<CUfunction>(f);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}

FAKE_API CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                 unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
    (void)sharedMemBytes;
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (f == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    if (extra != nullptr) return CUDA_ERROR_NOT_SUPPORTED;
    if (gridDimX * gridDimY * gridDimZ == 0 || blockDimX * blockDimY * blockDimZ == 0) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    const unsigned grid[3] = {gridDimX, gridDimY, gridDimZ}, block[3] = {blockDimX, blockDimY, blockDimZ};
    reinterpret_cast<fake_function*>(f)->fn(grid, block, kernelParams);
    return CUDA_SUCCESS;
}

// CUDA 12.3's cuFuncGetName (declared here: CI's cuda.h, 11.8, lacks it): the kernel's name as
// its module table gives it (a test program writes mangled names there to check demangling).
FAKE_API CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (name == nullptr || hfunc == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *name = reinterpret_cast<fake_function*>(hfunc)->name;
    return CUDA_SUCCESS;
}

// ---- cuGetProcAddress ---------------------------------------------------------------------------
namespace {
struct proc {
    const char* name;  // what a program asks for (cuda.h's name before its _v2 macros)
    void* fn;
};
#define FAKE_PROC(name, fn) \
    proc { name, reinterpret_cast<void*>(&fn) }
const proc g_procs[] = {
    FAKE_PROC("cuGetErrorString", cuGetErrorString),
    FAKE_PROC("cuGetErrorName", cuGetErrorName),
    FAKE_PROC("cuInit", cuInit),
    FAKE_PROC("cuDriverGetVersion", cuDriverGetVersion),
    FAKE_PROC("cuDeviceGet", cuDeviceGet),
    FAKE_PROC("cuDeviceGetCount", cuDeviceGetCount),
    FAKE_PROC("cuDeviceGetName", cuDeviceGetName),
    FAKE_PROC("cuCtxCreate", cuCtxCreate_v2),
    FAKE_PROC("cuCtxDestroy", cuCtxDestroy_v2),
    FAKE_PROC("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain),
    FAKE_PROC("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2),
    FAKE_PROC("cuDevicePrimaryCtxGetState", cuDevicePrimaryCtxGetState),
    FAKE_PROC("cuCtxGetCurrent", cuCtxGetCurrent),
    FAKE_PROC("cuCtxSetCurrent", cuCtxSetCurrent),
    FAKE_PROC("cuCtxGetDevice", cuCtxGetDevice),
    FAKE_PROC("cuCtxSynchronize", cuCtxSynchronize),
    FAKE_PROC("cuStreamCreate", cuStreamCreate),
    FAKE_PROC("cuStreamDestroy", cuStreamDestroy_v2),
    FAKE_PROC("cuStreamSynchronize", cuStreamSynchronize),
    FAKE_PROC("cuEventCreate", cuEventCreate),
    FAKE_PROC("cuEventDestroy", cuEventDestroy_v2),
    FAKE_PROC("cuEventRecord", cuEventRecord),
    FAKE_PROC("cuEventQuery", cuEventQuery),
    FAKE_PROC("cuEventSynchronize", cuEventSynchronize),
    FAKE_PROC("cuEventElapsedTime", cuEventElapsedTime),
    FAKE_PROC("cuMemGetInfo", cuMemGetInfo_v2),
    FAKE_PROC("cuMemAlloc", cuMemAlloc_v2),
    FAKE_PROC("cuMemFree", cuMemFree_v2),
    FAKE_PROC("cuMemAllocHost", cuMemAllocHost_v2),
    FAKE_PROC("cuMemFreeHost", cuMemFreeHost),
    FAKE_PROC("cuMemcpyHtoD", cuMemcpyHtoD_v2),
    FAKE_PROC("cuMemcpyDtoH", cuMemcpyDtoH_v2),
    FAKE_PROC("cuMemcpyDtoD", cuMemcpyDtoD_v2),
    FAKE_PROC("cuMemcpyHtoDAsync", cuMemcpyHtoDAsync_v2),
    FAKE_PROC("cuMemcpyDtoHAsync", cuMemcpyDtoHAsync_v2),
    FAKE_PROC("cuMemcpyDtoDAsync", cuMemcpyDtoDAsync_v2),
    FAKE_PROC("cuMemcpy2D", cuMemcpy2D_v2),
    FAKE_PROC("cuMemcpy2DUnaligned", cuMemcpy2DUnaligned_v2),
    FAKE_PROC("cuMemcpy2DAsync", cuMemcpy2DAsync_v2),
    FAKE_PROC("cuMemcpy3D", cuMemcpy3D_v2),
    FAKE_PROC("cuMemcpy3DAsync", cuMemcpy3DAsync_v2),
    FAKE_PROC("cuModuleLoadData", cuModuleLoadData),
    FAKE_PROC("cuModuleUnload", cuModuleUnload),
    FAKE_PROC("cuModuleGetFunction", cuModuleGetFunction),
    FAKE_PROC("cuLaunchKernel", cuLaunchKernel),
    FAKE_PROC("cuFuncGetName", cuFuncGetName),
};
#undef FAKE_PROC

void* find_proc(const char* symbol) {
    if (symbol == nullptr) return nullptr;
    for (const auto& p : g_procs)
        if (std::strcmp(p.name, symbol) == 0) return p.fn;
    return nullptr;
}
}  // namespace

FAKE_API CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
    (void)cudaVersion;
    (void)flags;
    if (pfn == nullptr || symbol == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *pfn = find_proc(symbol);
    return *pfn != nullptr ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

#if CUDA_VERSION >= 12000
FAKE_API CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                      CUdriverProcAddressQueryResult* symbolStatus) {
    const CUresult r = cuGetProcAddress(symbol, pfn, cudaVersion, flags);
    if (symbolStatus != nullptr)
        *symbolStatus = r == CUDA_SUCCESS ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return r;
}
#endif

// ---- device attributes and memsets (replay's cache control) ---------------------------------------
// The L2's size (FAKE_CUDA_L2_BYTES, default 1 MiB; the only attribute the fake knows) and
// cuMemsetD32Async, counted: with FAKE_CUDA_REPORT=1 the fake prints at exit how many memsets it
// ran and how many covered at least twice the L2 (what replay's --cache-control all writes before
// each pass), so a test can see the flushes. Not in cuGetProcAddress's table: encore finds them
// by name.
namespace {
std::atomic<unsigned long long> g_memsets{0}, g_l2_flushes{0};
std::size_t l2_bytes() {
    const char* v = std::getenv("FAKE_CUDA_L2_BYTES");
    return v != nullptr ? std::strtoull(v, nullptr, 10) : (1u << 20);
}
__attribute__((destructor)) void report_memsets() {
    const char* v = std::getenv("FAKE_CUDA_REPORT");
    if (v != nullptr && std::string_view(v) == "1")
        std::fprintf(stderr, "fake-cuda: memsets=%llu l2_flushes=%llu\n", g_memsets.load(), g_l2_flushes.load());
}
}  // namespace

FAKE_API CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (pi == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
    if (attrib != CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) return CUDA_ERROR_INVALID_VALUE;  // not faked
    *pi = static_cast<int>(l2_bytes());
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    {
        std::lock_guard lk(g_mutex);
        if ((dstDevice & 3) != 0 || N > SIZE_MAX / 4 || !in_device(static_cast<std::uintptr_t>(dstDevice), N * 4))
            return CUDA_ERROR_INVALID_VALUE;
    }
    auto* p = reinterpret_cast<unsigned*>(static_cast<std::uintptr_t>(dstDevice));
    for (std::size_t i = 0; i < N; ++i) p[i] = ui;
    g_memsets.fetch_add(1, std::memory_order_relaxed);
    const std::size_t l2 = l2_bytes();
    if (l2 > 0 && N * 4 >= 2 * l2) g_l2_flushes.fetch_add(1, std::memory_order_relaxed);
    return CUDA_SUCCESS;
}
