// test/cuda/fake_driver.cpp — a fake CUDA driver for the GPU-free tests of libencore-cuda, which
// loads it through ENCORE_CUDA_DRIVER=<path> as it would load NVIDIA's libcuda.so.1.
//
// A small, honest subset on the host: cuInit, versions, one device (FAKE_CUDA_DEVICES for
// more), primary and created contexts (current per thread), streams (every operation completes
// before it returns, so synchronizing is a check of the handle), device memory in host memory
// (a CUdeviceptr is the address; FAKE_CUDA_MEMORY_MB, default 4096, is the device's size for
// cuMemGetInfo and out-of-memory), events (recorded at once: streams are always complete), pinned
// host memory, copies between them (ranges checked
// against the allocations; 2-D and 3-D too), stream-ordered allocations, VMM (reserved address
// ranges, cuMemCreate handles as memfds mapped into them: two mappings of one handle alias, and a
// mapping is inaccessible until cuMemSetAccess, as on a GPU), modules whose kernels are host functions (fake_driver.h), launches
// (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel) and the parameter sizes CUDA 12.4
// reports (cuFuncGetParamInfo), graphs captured from a stream's launches (instantiated, launched,
// their nodes listed, an exec's kernel node or whole exec changed), error strings, and cuGetProcAddress handing out these functions. Errors as the real driver
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
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#undef cuGetProcAddress    // CUDA >= 12: a macro for cuGetProcAddress_v2; the 4-argument one is defined here too
#undef cuEventElapsedTime  // CUDA >= 12.8: a macro for cuEventElapsedTime_v2; both are defined here

#define FAKE_API extern "C" __attribute__((visibility("default")))

// The v1 and v2 ABIs of two exec setters (defined with the graphs below): cuda.h 12+ maps the v1
// names to _v2, so each is declared under its symbol name.
FAKE_API CUresult fake_exec_kernel_node_set_params(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v1*) __asm__(
    "cuGraphExecKernelNodeSetParams");
FAKE_API CUresult fake_exec_kernel_node_set_params_v2(
    CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v1*) __asm__("cuGraphExecKernelNodeSetParams_v2");
FAKE_API CUresult fake_exec_update(CUgraphExec, CUgraph, CUgraphNode*,
                                   CUgraphExecUpdateResult*) __asm__("cuGraphExecUpdate");
FAKE_API CUresult fake_exec_update_v2(CUgraphExec, CUgraph, void*) __asm__("cuGraphExecUpdate_v2");

namespace {

struct fake_context {
    CUdevice device;
    bool primary;
};
struct fake_stream {
    fake_context* ctx;
    unsigned long long id = 0;  // cuStreamGetId's: unique in the process, as the real driver's
};
std::atomic<unsigned long long> g_next_stream_id{100};
// FAKE_CUDA_REUSE_STREAMS=1: a destroyed stream's handle is the next created stream's (the real
// driver may hand out a freed handle again); the id is new.
std::vector<fake_stream*>* g_free_streams = new std::vector<fake_stream*>;  // under g_mutex
struct fake_module {
    fake_cuda_module table;
};
struct fake_function {
    fake_cuda_kernel fn;
    const char* name;             // the module table's (the test program's static strings)
    const unsigned* param_sizes;  // the same (null: not known)
};
struct fake_event {
    double ms = -1;  // when it was recorded (every operation before it has completed), or -1
};
// Launch attributes by CUlaunchAttributeID, each value's 64 bytes (CUlaunchAttributeValue).
using fake_attrs = std::map<int, CUlaunchAttributeValue>;
// The running launch's attributes, for fake_cuda_launch_attribute (null: none).
thread_local const fake_attrs* t_launch_attrs = nullptr;

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

bool in_mapped(std::uintptr_t p, std::size_t n);  // VMM block below

// Whether [p, p + n) lies inside one device allocation, or in VMM mappings the device may read
// and write (g_mutex held).
bool in_device(std::uintptr_t p, std::size_t n) {
    if (in_mapped(p, n)) return true;
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
    // The legacy default stream, by 0 or by its handle, and the per-thread default stream.
    if (s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) return CUDA_SUCCESS;
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

// ---- the profiler API (cudaProfiler.h): a flag the program reads (fake_cuda_profiling) ----------
std::atomic<int> g_profiling{0};
FAKE_API CUresult cuProfilerStart() {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    g_profiling.store(1);
    return CUDA_SUCCESS;
}
FAKE_API CUresult cuProfilerStop() {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    g_profiling.store(0);
    return CUDA_SUCCESS;
}
FAKE_API int fake_cuda_profiling() { return g_profiling.load(); }

// ---- streams ------------------------------------------------------------------------------------
FAKE_API CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
    (void)Flags;
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (phStream == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    fake_stream* s = nullptr;
    if (!g_free_streams->empty()) {
        s = g_free_streams->back();
        g_free_streams->pop_back();
        *s = fake_stream{t_current};
    } else {
        s = new fake_stream{t_current};
    }
    s->id = g_next_stream_id.fetch_add(1);
    g_streams->insert(s);
    *phStream = reinterpret_cast<CUstream>(s);
    return CUDA_SUCCESS;
}

// FAKE_CUDA_NO_STREAM_ID=1: fails (as a driver without it, whose absence libencore-cuda handles
// alike). The default streams' ids are 1 (legacy) and 2 (per-thread) here.
FAKE_API CUresult cuStreamGetId(CUstream hStream, unsigned long long* streamId) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (std::getenv("FAKE_CUDA_NO_STREAM_ID") != nullptr) return CUDA_ERROR_NOT_SUPPORTED;
    if (streamId == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (hStream == nullptr || hStream == CU_STREAM_LEGACY) return *streamId = 1, CUDA_SUCCESS;
    if (hStream == CU_STREAM_PER_THREAD) return *streamId = 2, CUDA_SUCCESS;
    std::lock_guard lk(g_mutex);
    auto* s = reinterpret_cast<fake_stream*>(hStream);
    if (g_streams->count(s) == 0) return CUDA_ERROR_INVALID_HANDLE;
    *streamId = s->id;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamDestroy_v2(CUstream hStream) {
    auto* s = reinterpret_cast<fake_stream*>(hStream);
    {
        std::lock_guard lk(g_mutex);
        if (s == nullptr || g_streams->erase(s) == 0) return CUDA_ERROR_INVALID_HANDLE;
        if (std::getenv("FAKE_CUDA_REUSE_STREAMS") != nullptr) {
            g_free_streams->push_back(s);
            return CUDA_SUCCESS;
        }
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
    if (dptr == 0) return CUDA_SUCCESS;  // as NVIDIA's: nothing to free (cudaFree(0) makes a context)
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
// Loaded modules, held as the driver holds them until unloaded (encore's own chunk-kernel module
// is never unloaded: the driver frees it with its context). Under g_mutex; never destroyed.
std::set<fake_module*>* g_modules = new std::set<fake_module*>;
const fake_cuda_module* fake_chunk_module(const void* image);  // fake_chunks.cpp
FAKE_API CUresult cuModuleLoadData(CUmodule* module, const void* image) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const fake_cuda_module* chunks = fake_chunk_module(image);  // encore's PTX (fake_chunks.cpp)
    const auto* t = chunks != nullptr ? chunks : static_cast<const fake_cuda_module*>(image);
    if (t->count > sizeof(t->kernels) / sizeof(t->kernels[0])) return CUDA_ERROR_INVALID_VALUE;  // not a table
    auto* m = new fake_module{*t};
    {
        std::lock_guard lk(g_mutex);
        g_modules->insert(m);
    }
    *module = reinterpret_cast<CUmodule>(m);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuModuleUnload(CUmodule hmod) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (hmod == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    {
        std::lock_guard lk(g_mutex);
        if (g_modules->erase(reinterpret_cast<fake_module*>(hmod)) == 0) return CUDA_ERROR_INVALID_HANDLE;
    }
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
            if (f == nullptr) f = new fake_function{t.kernels[i].fn, t.kernels[i].name, t.kernels[i].param_sizes};
            *hfunc = reinterpret_cast<CUfunction>(f);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}

void observe_launch(int phase);  // the launch observer block at the end
void observe_launch_shape(CUstream s, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz);
// `extra`'s CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE as kernelParams pointers into the buffer, at the
// offsets cuFuncGetParamInfo reports (below); false for a kernel without param_sizes or a buffer
// too small.
bool params_of_extra(CUfunction f, void** extra, void* out[8]);
// The graph block at the end: a launch into a capturing stream becomes a node (true: `r` says how).
bool capture_launch(CUfunction f, const unsigned grid[3], const unsigned block[3], CUstream s, void** params,
                    const fake_attrs& attrs, CUresult& r);
// Runs a kernel with `attrs` visible to it (fake_cuda_launch_attribute).
void run_kernel(const fake_function* fn, const unsigned grid[3], const unsigned block[3], void** params,
                const fake_attrs& attrs) {
    t_launch_attrs = &attrs;
    fn->fn(grid, block, params);
    t_launch_attrs = nullptr;
}

namespace {
CUresult launch_with(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                     unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, CUstream hStream,
                     void** kernelParams, void** extra, const fake_attrs& attrs) {
    observe_launch_shape(hStream, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ);
    observe_launch(0);
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (f == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    void* from_extra[8];
    if (extra != nullptr) {
        if (kernelParams != nullptr) return CUDA_ERROR_INVALID_VALUE;  // one or the other, as the driver says
        if (!params_of_extra(f, extra, from_extra)) return CUDA_ERROR_NOT_SUPPORTED;
        kernelParams = from_extra;
    }
    if (gridDimX * gridDimY * gridDimZ == 0 || blockDimX * blockDimY * blockDimZ == 0) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    const unsigned grid[3] = {gridDimX, gridDimY, gridDimZ}, block[3] = {blockDimX, blockDimY, blockDimZ};
    if (CUresult r; capture_launch(f, grid, block, hStream, kernelParams, attrs, r)) return r;
    // Graphs-only (CUDA 12.4): on a stream that is not capturing, the driver refuses it.
    if (const auto it = attrs.find(13); it != attrs.end() && it->second.pad[0] != 0) return CUDA_ERROR_INVALID_VALUE;
    observe_launch(1);
    run_kernel(reinterpret_cast<fake_function*>(f), grid, block, kernelParams, attrs);
    observe_launch(2);
    return CUDA_SUCCESS;
}
}  // namespace

FAKE_API CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                 unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
    (void)sharedMemBytes;
    return launch_with(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, hStream, kernelParams, extra,
                       {});
}

// The running launch's attribute `id` (fake_driver.h).
FAKE_API int fake_cuda_launch_attribute(int id, void* value) {
    std::memset(value, 0, sizeof(CUlaunchAttributeValue));
    if (t_launch_attrs == nullptr) return 0;
    const auto it = t_launch_attrs->find(id);
    if (it == t_launch_attrs->end()) return 0;
    std::memcpy(value, &it->second, sizeof(CUlaunchAttributeValue));
    return 1;
}

// CUDA 12.3's cuFuncGetName (declared here: CI's cuda.h, 11.8, lacks it): the kernel's name as
// its module table gives it (a test program writes mangled names there to check demangling).
FAKE_API CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (name == nullptr || hfunc == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *name = reinterpret_cast<fake_function*>(hfunc)->name;
    return CUDA_SUCCESS;
}

// ---- VMM, stream-ordered and imported memory, address ranges ------------------------------------
// Reserved ranges are PROT_NONE anonymous mappings; a cuMemCreate handle is a memfd of its size;
// cuMemMap maps the memfd (MAP_SHARED | MAP_FIXED) into the reserved range with no access, and
// cuMemSetAccess mprotects it (read-write or read for any device granted it, none otherwise); a
// host "kernel" touching memory without access faults, as a GPU kernel would. cuMemUnmap puts the
// reservation back. All under g_mutex.
namespace {
constexpr std::size_t vmm_granularity = 64 * 1024;
struct fake_handle {
    int fd;
    std::size_t size;
    int maps = 0;
    bool released = false;
};
struct fake_mapping {
    std::size_t size;
    CUmemGenericAllocationHandle handle;
    int prot = PROT_NONE;
};
auto* g_reserved = new std::map<std::uintptr_t, std::size_t>;  // base -> size
auto* g_handles = new std::map<CUmemGenericAllocationHandle, fake_handle>;
auto* g_mappings = new std::map<std::uintptr_t, fake_mapping>;  // base -> mapping
CUmemGenericAllocationHandle g_next_handle = 0x100;

// The mapping containing p (g_mappings), or end.
std::map<std::uintptr_t, fake_mapping>::iterator mapping_at(std::uintptr_t p) {
    auto it = g_mappings->upper_bound(p);
    if (it == g_mappings->begin()) return g_mappings->end();
    --it;
    return p < it->first + it->second.size ? it : g_mappings->end();
}
bool in_reserved(std::uintptr_t p, std::size_t n) {
    auto it = g_reserved->upper_bound(p);
    if (it == g_reserved->begin()) return false;
    --it;
    return p >= it->first && p + n <= it->first + it->second && p + n >= p;
}
void drop_handle_if_unused(std::map<CUmemGenericAllocationHandle, fake_handle>::iterator it) {
    if (!it->second.released || it->second.maps != 0) return;
    ::close(it->second.fd);
    g_used -= it->second.size;
    g_handles->erase(it);
}

// [p, p + n) within contiguous mappings, each readable and writable (g_mutex held).
bool in_mapped(std::uintptr_t p, std::size_t n) {
    if (n == 0 || p + n < p) return false;
    for (std::uintptr_t at = p; at < p + n;) {
        auto it = mapping_at(at);
        if (it == g_mappings->end() || it->second.prot != (PROT_READ | PROT_WRITE)) return false;
        at = it->first + it->second.size;
    }
    return true;
}
}  // namespace

FAKE_API CUresult cuMemGetAllocationGranularity(size_t* granularity, const CUmemAllocationProp* prop,
                                                CUmemAllocationGranularity_flags option) {
    (void)option;
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (granularity == nullptr || prop == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *granularity = vmm_granularity;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                      unsigned long long flags) {
    (void)addr;  // a hint
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (ptr == nullptr || size == 0 || size % vmm_granularity != 0 || flags != 0 ||
        (alignment != 0 && alignment > vmm_granularity))
        return CUDA_ERROR_INVALID_VALUE;
    // Aligned to the granularity (mmap gives pages): a granule more, the ends trimmed.
    void* raw = ::mmap(nullptr, size + vmm_granularity, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    const auto r = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t a = (r + vmm_granularity - 1) / vmm_granularity * vmm_granularity;
    if (a > r) ::munmap(raw, a - r);
    if (a + size < r + size + vmm_granularity) ::munmap(reinterpret_cast<void*>(a + size), r + vmm_granularity - a);
    void* p = reinterpret_cast<void*>(a);
    std::lock_guard lk(g_mutex);
    (*g_reserved)[reinterpret_cast<std::uintptr_t>(p)] = size;
    *ptr = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    std::lock_guard lk(g_mutex);
    auto it = g_reserved->find(static_cast<std::uintptr_t>(ptr));
    if (it == g_reserved->end() || it->second != size) return CUDA_ERROR_INVALID_VALUE;
    auto m = g_mappings->lower_bound(it->first);
    if (m != g_mappings->end() && m->first < it->first + size) return CUDA_ERROR_INVALID_VALUE;  // still mapped
    ::munmap(reinterpret_cast<void*>(ptr), size);
    g_reserved->erase(it);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop,
                              unsigned long long flags) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    if (handle == nullptr || prop == nullptr || size == 0 || size % vmm_granularity != 0 || flags != 0 ||
        prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    if (prop->location.id < 0 || prop->location.id >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
    std::lock_guard lk(g_mutex);
    if (size > device_bytes() - g_used) return CUDA_ERROR_OUT_OF_MEMORY;
    const int fd = ::memfd_create("fake-cuda-vmm", MFD_CLOEXEC);
    if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
        ::close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *handle = g_next_handle++;
    (*g_handles)[*handle] = fake_handle{fd, size};
    g_used += size;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    std::lock_guard lk(g_mutex);
    auto it = g_handles->find(handle);
    if (it == g_handles->end() || it->second.released) return CUDA_ERROR_INVALID_VALUE;
    it->second.released = true;  // the memory lives on while mapped
    drop_handle_if_unused(it);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                           unsigned long long flags) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    const auto p = static_cast<std::uintptr_t>(ptr);
    if (size == 0 || flags != 0 || p % vmm_granularity != 0 || size % vmm_granularity != 0 ||
        offset % vmm_granularity != 0)
        return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    auto h = g_handles->find(handle);
    if (h == g_handles->end() || h->second.released) return CUDA_ERROR_INVALID_HANDLE;
    if (offset + size > h->second.size || !in_reserved(p, size)) return CUDA_ERROR_INVALID_VALUE;
    auto m = g_mappings->lower_bound(p);
    if ((m != g_mappings->end() && m->first < p + size) || mapping_at(p) != g_mappings->end())
        return CUDA_ERROR_INVALID_VALUE;  // over a mapped range
    if (::mmap(reinterpret_cast<void*>(p), size, PROT_NONE, MAP_SHARED | MAP_FIXED, h->second.fd,
               static_cast<off_t>(offset)) == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    (*g_mappings)[p] = fake_mapping{size, handle};
    ++h->second.maps;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    const auto p = static_cast<std::uintptr_t>(ptr);
    if (desc == nullptr || count == 0 || size == 0) return CUDA_ERROR_INVALID_VALUE;
    int prot = PROT_NONE;
    for (std::size_t i = 0; i < count; ++i) {
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
        if (desc[i].location.id < 0 || desc[i].location.id >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
        if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            prot = PROT_READ | PROT_WRITE;
        else if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ && prot == PROT_NONE)
            prot = PROT_READ;
    }
    std::lock_guard lk(g_mutex);
    // The whole range must be mapped, and whole mappings (the fake does not split them).
    for (std::uintptr_t at = p; at < p + size;) {
        auto it = g_mappings->find(at);
        if (it == g_mappings->end() || it->first + it->second.size > p + size) return CUDA_ERROR_INVALID_VALUE;
        at += it->second.size;
    }
    for (auto it = g_mappings->find(p); it != g_mappings->end() && it->first < p + size; ++it) {
        ::mprotect(reinterpret_cast<void*>(it->first), it->second.size, prot);
        it->second.prot = prot;
    }
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
    if (!g_initialized.load(std::memory_order_acquire)) return CUDA_ERROR_NOT_INITIALIZED;
    const auto p = static_cast<std::uintptr_t>(ptr);
    std::lock_guard lk(g_mutex);
    // Whole mappings only (the driver refuses a sub-range of one).
    for (std::uintptr_t at = p; at < p + size;) {
        auto it = g_mappings->find(at);
        if (it == g_mappings->end() || it->first + it->second.size > p + size) return CUDA_ERROR_INVALID_VALUE;
        at += it->second.size;
    }
    if (size == 0) return CUDA_ERROR_INVALID_VALUE;
    for (auto it = g_mappings->find(p); it != g_mappings->end() && it->first < p + size;) {
        ::mmap(reinterpret_cast<void*>(it->first), it->second.size, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);  // reserved again
        auto h = g_handles->find(it->second.handle);
        if (h != g_handles->end()) {
            --h->second.maps;
            drop_handle_if_unused(h);
        }
        it = g_mappings->erase(it);
    }
    return CUDA_SUCCESS;
}

// The allocation containing dptr: a cuMemAlloc one, or a mapping.
FAKE_API CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    const auto p = static_cast<std::uintptr_t>(dptr);
    std::lock_guard lk(g_mutex);
    std::uintptr_t base = 0;
    std::size_t size = 0;
    if (auto m = mapping_at(p); m != g_mappings->end()) {
        base = m->first, size = m->second.size;
    } else if (auto it = g_device->upper_bound(p);
               it != g_device->begin() && p < std::prev(it)->first + std::prev(it)->second) {
        base = std::prev(it)->first, size = std::prev(it)->second;
    } else {
        return CUDA_ERROR_NOT_FOUND;
    }
    if (pbase != nullptr) *pbase = base;
    if (psize != nullptr) *psize = size;
    return CUDA_SUCCESS;
}

// Stream-ordered allocations: streams are always complete, so in stream order is now.
FAKE_API CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    return cuMemAlloc_v2(dptr, bytesize);
}
FAKE_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    return cuMemFree_v2(dptr);
}

FAKE_API CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
    (void)Flags;
    return cuMemAllocHost_v2(pp, bytesize);
}

// The fake's export data holds the size to "import" in its first 8 bytes: a new allocation of
// that size stands for the other process's memory (pool: any non-null handle).
FAKE_API CUresult cuMemPoolImportPointer(CUdeviceptr* ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData* shareData) {
    if (pool == nullptr || shareData == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::size_t size = 0;
    std::memcpy(&size, shareData->reserved, sizeof(size));
    return cuMemAlloc_v2(ptr_out, size);
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
    FAKE_PROC("cuProfilerStart", cuProfilerStart),
    FAKE_PROC("cuProfilerStop", cuProfilerStop),
    FAKE_PROC("cuStreamCreate", cuStreamCreate),
    FAKE_PROC("cuStreamDestroy", cuStreamDestroy_v2),
    FAKE_PROC("cuStreamGetId", cuStreamGetId),
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

// Names whose ABI CUDA 12.0 changed: a program built before it asks with a version below 12000
// and gets the v1 function, as from the real driver.
struct versioned_proc {
    const char* name;
    void* v1;
    void* v2;
};
const versioned_proc g_versioned[] = {
    {"cuGraphExecKernelNodeSetParams", reinterpret_cast<void*>(&fake_exec_kernel_node_set_params),
     reinterpret_cast<void*>(&fake_exec_kernel_node_set_params_v2)},
    {"cuGraphExecUpdate", reinterpret_cast<void*>(&fake_exec_update), reinterpret_cast<void*>(&fake_exec_update_v2)},
};

void* find_proc(const char* symbol, int version) {
    if (symbol == nullptr) return nullptr;
    for (const auto& p : g_procs)
        if (std::strcmp(p.name, symbol) == 0) return p.fn;
    for (const auto& p : g_versioned)
        if (std::strcmp(p.name, symbol) == 0) return version < 12000 ? p.v1 : p.v2;
    return nullptr;
}
}  // namespace

FAKE_API CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
    (void)flags;
    if (pfn == nullptr || symbol == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *pfn = find_proc(symbol, cudaVersion);
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

// ---- the launch observer (the fake CUPTI, test/cuda/fake_cupti.cpp) -----------------------------
// The fake CUPTI watches launches as the real one watches the driver: it installs an observer
// here, which cuLaunchKernel calls on the launching thread with phase 0 when the call begins (the
// launch call's correlation), 1 just before the kernel runs and 2 just after (its GPU times).
namespace {
std::atomic<void (*)(int)> g_launch_observer{nullptr};
}
void observe_launch(int phase) {
    if (auto* o = g_launch_observer.load(std::memory_order_acquire)) o(phase);
}
FAKE_API void fake_cuda_set_launch_observer(void (*observer)(int phase)) {
    g_launch_observer.store(observer, std::memory_order_release);
}
// Before phase 0, the launch's stream and shape (what the fake CUPTI writes into kernel records).
using launch_shape_observer = void (*)(CUstream, const unsigned grid[3], const unsigned block[3]);
namespace {
std::atomic<launch_shape_observer> g_launch_shape_observer{nullptr};
}
void observe_launch_shape(CUstream s, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz) {
    const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    if (auto* o = g_launch_shape_observer.load(std::memory_order_acquire)) o(s, grid, block);
}
FAKE_API void fake_cuda_set_launch_shape_observer(launch_shape_observer observer) {
    g_launch_shape_observer.store(observer, std::memory_order_release);
}

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

// cuMemsetD8_v2: what changed_chunks' restore writes over a chunk kept as zeros (not counted).
FAKE_API CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    {
        std::lock_guard lk(g_mutex);
        if (!in_device(static_cast<std::uintptr_t>(dstDevice), N)) return CUDA_ERROR_INVALID_VALUE;
    }
    std::memset(reinterpret_cast<void*>(static_cast<std::uintptr_t>(dstDevice)), uc, N);
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

// ---- launches with a config, cooperative launches, parameter sizes ------------------------------
// cuLaunchKernelEx and cuLaunchCooperativeKernel run as cuLaunchKernel does; cuLaunchKernelEx's
// attributes have no effect on the host (no clusters or priorities) but the kernel can read them
// (fake_cuda_launch_attribute), and a captured launch leaves them on its node, as on a GPU.
// cuFuncGetParamInfo reports the module table's param_sizes (offsets as a compiler lays them out:
// each size's own alignment, at most 8).
FAKE_API CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
    if (config == nullptr || (config->numAttrs != 0 && config->attrs == nullptr)) return CUDA_ERROR_INVALID_VALUE;
    fake_attrs attrs;
    for (unsigned i = 0; i < config->numAttrs; ++i)
        attrs[static_cast<int>(config->attrs[i].id)] = config->attrs[i].value;
    return launch_with(f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX, config->blockDimY,
                       config->blockDimZ, config->hStream, kernelParams, extra, attrs);
}

FAKE_API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                            unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                            unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                            void** kernelParams) {
    (void)sharedMemBytes;
    fake_attrs attrs;  // what the driver gives the node of a captured cooperative launch
    attrs[CU_LAUNCH_ATTRIBUTE_COOPERATIVE].cooperative = 1;
    return launch_with(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, hStream, kernelParams, nullptr,
                       attrs);
}

FAKE_API CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (func == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    const unsigned* sizes = reinterpret_cast<fake_function*>(func)->param_sizes;
    if (sizes == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
    std::size_t off = 0;
    for (std::size_t i = 0; sizes[i] != 0; ++i) {
        const std::size_t align = sizes[i] >= 8 ? 8 : sizes[i];
        off = (off + align - 1) / align * align;
        if (i == paramIndex) {
            if (paramOffset != nullptr) *paramOffset = off;
            if (paramSize != nullptr) *paramSize = sizes[i];
            return CUDA_SUCCESS;
        }
        off += sizes[i];
    }
    return CUDA_ERROR_INVALID_VALUE;  // past the last parameter, as the driver says
}

bool params_of_extra(CUfunction f, void** extra, void* out[8]) {
    unsigned char* buffer = nullptr;
    std::size_t size = 0;
    for (void** x = extra; *x != CU_LAUNCH_PARAM_END; x += 2) {
        if (x[0] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buffer = static_cast<unsigned char*>(x[1]);
        else if (x[0] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = *static_cast<std::size_t*>(x[1]);
        else
            return false;
    }
    const unsigned* sizes = reinterpret_cast<fake_function*>(f)->param_sizes;
    if (buffer == nullptr || sizes == nullptr) return false;
    for (std::size_t i = 0; sizes[i] != 0 && i < 8; ++i) {
        std::size_t off = 0, n = 0;
        if (cuFuncGetParamInfo(f, i, &off, &n) != CUDA_SUCCESS || off + n > size) return false;
        out[i] = buffer + off;
    }
    return true;
}

// ---- graphs: stream capture of kernel launches, instantiation, launch ----------------------------
// A graph is a list of nodes run in order (a linear chain, as capture on one stream makes them:
// cuGraphGetEdges answers so), kernel nodes with copies of their parameters. cuStreamBeginCapture_v2
// / cuStreamEndCapture capture a stream's launches into a new graph (never the legacy stream:
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, as the driver says); cuGraphCreate makes an empty one and
// cuGraphAdd{Memset,Memcpy,ChildGraph,Host,Empty}Node append to a graph (dependencies taken as
// given by the order: the chain); cuGraphInstantiateWithFlags copies it into an exec; cuGraphLaunch
// runs the exec's enabled nodes in order (into a capturing stream: appends them to that capture);
// cuGraphGetNodes, cuGraphNodeGetType, cuGraph{Kernel,Memset,Memcpy}NodeGetParams,
// cuGraphChildGraphNodeGetGraph and cuGraphNodeSetEnabled (by the graph's node) answer as the driver
// does. Under g_mutex.
namespace {
struct fake_graph;
struct fake_node {
    fake_function* f = nullptr;
    unsigned grid[3]{}, block[3]{};
    std::vector<unsigned char> args;
    std::vector<std::size_t> offsets;
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_KERNEL;
    CUDA_MEMSET_NODE_PARAMS set{};
    CUDA_MEMCPY3D copy{};
    fake_graph* child = nullptr;  // a clone, kept for the process
    CUhostFn host_fn = nullptr;
    void* host_data = nullptr;
    bool enabled = true;
    std::size_t id = 0;         // the same in a graph and its execs (cuGraphNodeSetEnabled)
    std::vector<void*> params;  // cuGraphKernelNodeGetParams's kernelParams, into args
    fake_attrs attrs;           // a kernel node's (captured from cuLaunchKernelEx, or set)
};
struct fake_graph {
    std::map<std::size_t, fake_node> nodes;  // in order; a node's address is its handle
    void add(fake_node n) { nodes.emplace(nodes.size(), std::move(n)); }
};
std::map<fake_stream*, fake_graph*>* g_capturing = new std::map<fake_stream*, fake_graph*>;
std::set<fake_graph*>* g_graphs = new std::set<fake_graph*>;
std::set<fake_graph*>* g_execs = new std::set<fake_graph*>;
std::size_t g_next_node_id = 1;

void run_node(const fake_node& n) {
    if (!n.enabled) return;
    switch (n.type) {
        case CU_GRAPH_NODE_TYPE_KERNEL: {
            std::vector<void*> params;
            for (std::size_t off : n.offsets) params.push_back(const_cast<unsigned char*>(n.args.data()) + off);
            observe_launch(1);
            run_kernel(n.f, n.grid, n.block, params.data(), n.attrs);
            observe_launch(2);
            break;
        }
        case CU_GRAPH_NODE_TYPE_MEMSET:
            for (std::size_t row = 0; row < (n.set.height == 0 ? 1 : n.set.height); ++row) {
                auto* at = reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(n.set.dst)) + row * n.set.pitch;
                for (std::size_t i = 0; i < n.set.width; ++i)
                    std::memcpy(at + i * n.set.elementSize, &n.set.value, n.set.elementSize);  // little-endian
            }
            break;
        case CU_GRAPH_NODE_TYPE_MEMCPY: (void)cuMemcpy3D_v2(&n.copy); break;
        case CU_GRAPH_NODE_TYPE_HOST: n.host_fn(n.host_data); break;
        case CU_GRAPH_NODE_TYPE_GRAPH:
            for (const auto& [i, c] : n.child->nodes) run_node(c);
            break;
        default: break;
    }
}
// A kernel node launches `fn` (its parameter sizes known) with copies of `params`.
void set_kernel(fake_node& n, fake_function* fn, const unsigned grid[3], const unsigned block[3], void** params) {
    n.f = fn;
    std::memcpy(n.grid, grid, sizeof n.grid);
    std::memcpy(n.block, block, sizeof n.block);
    n.args.clear();
    n.offsets.clear();
    for (std::size_t i = 0; fn->param_sizes[i] != 0; ++i) {
        const std::size_t at = (n.args.size() + 15) / 16 * 16;
        n.args.resize(at + fn->param_sizes[i]);
        std::memcpy(n.args.data() + at, params[i], fn->param_sizes[i]);
        n.offsets.push_back(at);
    }
}
}  // namespace

bool capture_launch(CUfunction f, const unsigned grid[3], const unsigned block[3], CUstream s, void** params,
                    const fake_attrs& attrs, CUresult& r) {
    std::lock_guard lk(g_mutex);
    const auto it = g_capturing->find(reinterpret_cast<fake_stream*>(s));
    if (it == g_capturing->end()) return false;
    auto* fn = reinterpret_cast<fake_function*>(f);
    if (fn->param_sizes == nullptr) {
        r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        return true;
    }
    fake_node n;
    set_kernel(n, fn, grid, block, params);
    n.attrs = attrs;
    n.id = g_next_node_id++;
    it->second->add(std::move(n));
    r = CUDA_SUCCESS;
    return true;
}

FAKE_API CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) {
    (void)mode;
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (hStream == nullptr || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    std::lock_guard lk(g_mutex);
    auto& g = (*g_capturing)[reinterpret_cast<fake_stream*>(hStream)];
    if (g != nullptr) return CUDA_ERROR_ILLEGAL_STATE;
    g = new fake_graph;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamEndCapture(CUstream hStream, CUgraph* phGraph) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (phGraph == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    const auto it = g_capturing->find(reinterpret_cast<fake_stream*>(hStream));
    if (it == g_capturing->end()) return CUDA_ERROR_ILLEGAL_STATE;
    g_graphs->insert(it->second);
    *phGraph = reinterpret_cast<CUgraph>(it->second);
    g_capturing->erase(it);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (captureStatus == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    std::lock_guard lk(g_mutex);
    *captureStatus = g_capturing->count(reinterpret_cast<fake_stream*>(hStream)) != 0 ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                                                                                      : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long flags) {
    (void)flags;
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (phGraphExec == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    auto* g = reinterpret_cast<fake_graph*>(hGraph);
    if (g_graphs->count(g) == 0) return CUDA_ERROR_INVALID_VALUE;
    auto* exec = new fake_graph(*g);
    g_execs->insert(exec);
    *phGraphExec = reinterpret_cast<CUgraphExec>(exec);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (CUresult r = check_stream(hStream); r != CUDA_SUCCESS) return r;
    auto* exec = reinterpret_cast<fake_graph*>(hGraphExec);
    std::vector<fake_node> nodes;
    {
        std::lock_guard lk(g_mutex);
        if (g_execs->count(exec) == 0) return CUDA_ERROR_INVALID_VALUE;
        const auto cap = g_capturing->find(reinterpret_cast<fake_stream*>(hStream));
        if (cap != g_capturing->end()) {  // a child graph of the capture, flattened
            for (const auto& [i, n] : exec->nodes) cap->second->add(n);
            return CUDA_SUCCESS;
        }
        for (const auto& [i, n] : exec->nodes) nodes.push_back(n);  // run without the lock (they may call the driver)
    }
    for (const auto& n : nodes) run_node(n);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes) {
    if (numNodes == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    auto* g = reinterpret_cast<fake_graph*>(hGraph);
    if (g_graphs->count(g) == 0) return CUDA_ERROR_INVALID_VALUE;
    if (nodes != nullptr) {
        auto it = g->nodes.begin();
        for (std::size_t i = 0; i < *numNodes; ++i) {
            nodes[i] = it != g->nodes.end() ? reinterpret_cast<CUgraphNode>(&it->second) : nullptr;
            if (it != g->nodes.end()) ++it;
        }
    }
    *numNodes = g->nodes.size();
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType* type) {
    if (hNode == nullptr || type == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    *type = reinterpret_cast<const fake_node*>(hNode)->type;
    return CUDA_SUCCESS;
}

// The chain: node i before node i + 1. CUgraphEdgeData (CUDA 12.3; 8 bytes) zeroed where asked for.
#if CUDA_VERSION >= 12030
using fake_edge_data = CUgraphEdgeData;
#else
using fake_edge_data = void;
#endif
FAKE_API CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to, fake_edge_data* edgeData,
                                     size_t* numEdges) {
    if (numEdges == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    auto* g = reinterpret_cast<fake_graph*>(hGraph);
    if (g_graphs->count(g) == 0) return CUDA_ERROR_INVALID_VALUE;
    const std::size_t n = g->nodes.empty() ? 0 : g->nodes.size() - 1;
    if (from != nullptr && to != nullptr) {
        std::size_t i = 0;
        for (auto it = g->nodes.begin(); i < *numEdges && i < n; ++it, ++i) {
            from[i] = reinterpret_cast<CUgraphNode>(&it->second);
            to[i] = reinterpret_cast<CUgraphNode>(&std::next(it)->second);
            if (edgeData != nullptr)
                std::memset(static_cast<unsigned char*>(static_cast<void*>(edgeData)) + 8 * i, 0, 8);
        }
    }
    *numEdges = n;
    return CUDA_SUCCESS;
}

// CUDA_KERNEL_NODE_PARAMS_v2 (CUDA 12.0), declared here for an older cuda.h.
#if CUDA_VERSION >= 12000
using fake_kernel_node_params = CUDA_KERNEL_NODE_PARAMS_v2;
#else
struct fake_kernel_node_params {
    CUfunction func;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    void** kernelParams;
    void** extra;
    void* kern;
    CUcontext ctx;
};
#endif
FAKE_API CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, fake_kernel_node_params* p) {
    if (hNode == nullptr || p == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    auto* n = reinterpret_cast<fake_node*>(hNode);
    if (n->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_ERROR_INVALID_VALUE;
    *p = {};
    p->func = reinterpret_cast<CUfunction>(n->f);
    p->gridDimX = n->grid[0], p->gridDimY = n->grid[1], p->gridDimZ = n->grid[2];
    p->blockDimX = n->block[0], p->blockDimY = n->block[1], p->blockDimZ = n->block[2];
    n->params.clear();
    for (std::size_t off : n->offsets) n->params.push_back(n->args.data() + off);
    p->kernelParams = n->params.data();
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS* p) {
    if (hNode == nullptr || p == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    const auto* n = reinterpret_cast<const fake_node*>(hNode);
    if (n->type != CU_GRAPH_NODE_TYPE_MEMSET) return CUDA_ERROR_INVALID_VALUE;
    *p = n->set;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D* p) {
    if (hNode == nullptr || p == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    const auto* n = reinterpret_cast<const fake_node*>(hNode);
    if (n->type != CU_GRAPH_NODE_TYPE_MEMCPY) return CUDA_ERROR_INVALID_VALUE;
    *p = n->copy;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph* phGraph) {
    if (hNode == nullptr || phGraph == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    const auto* n = reinterpret_cast<const fake_node*>(hNode);
    if (n->type != CU_GRAPH_NODE_TYPE_GRAPH) return CUDA_ERROR_INVALID_VALUE;
    *phGraph = reinterpret_cast<CUgraph>(n->child);
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphCreate(CUgraph* phGraph, unsigned int flags) {
    if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
    if (phGraph == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    auto* g = new fake_graph;
    g_graphs->insert(g);
    *phGraph = reinterpret_cast<CUgraph>(g);
    return CUDA_SUCCESS;
}

namespace {
// Appends `n` to `hGraph` (its dependencies: the chain), its handle to `out`.
CUresult add_node(CUgraphNode* out, CUgraph hGraph, fake_node n) {
    if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
    auto* g = reinterpret_cast<fake_graph*>(hGraph);
    if (g_graphs->count(g) == 0) return CUDA_ERROR_INVALID_VALUE;
    n.id = g_next_node_id++;
    const std::size_t at = g->nodes.size();
    g->add(std::move(n));
    *out = reinterpret_cast<CUgraphNode>(&g->nodes.at(at));
    return CUDA_SUCCESS;
}
}  // namespace

FAKE_API CUresult cuGraphAddMemsetNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                       size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS* memsetParams,
                                       CUcontext ctx) {
    (void)dependencies, (void)numDependencies, (void)ctx;
    if (memsetParams == nullptr ||
        (memsetParams->elementSize != 1 && memsetParams->elementSize != 2 && memsetParams->elementSize != 4))
        return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    fake_node n;
    n.type = CU_GRAPH_NODE_TYPE_MEMSET;
    n.set = *memsetParams;
    return add_node(phGraphNode, hGraph, std::move(n));
}

FAKE_API CUresult cuGraphAddMemcpyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                       size_t numDependencies, const CUDA_MEMCPY3D* copyParams, CUcontext ctx) {
    (void)dependencies, (void)numDependencies, (void)ctx;
    if (copyParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    fake_node n;
    n.type = CU_GRAPH_NODE_TYPE_MEMCPY;
    n.copy = *copyParams;
    return add_node(phGraphNode, hGraph, std::move(n));
}

FAKE_API CUresult cuGraphAddChildGraphNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                           size_t numDependencies, CUgraph childGraph) {
    (void)dependencies, (void)numDependencies;
    std::lock_guard lk(g_mutex);
    auto* child = reinterpret_cast<fake_graph*>(childGraph);
    if (g_graphs->count(child) == 0) return CUDA_ERROR_INVALID_VALUE;
    fake_node n;
    n.type = CU_GRAPH_NODE_TYPE_GRAPH;
    n.child = new fake_graph(*child);  // a clone, as the driver makes
    g_graphs->insert(n.child);
    return add_node(phGraphNode, hGraph, std::move(n));
}

FAKE_API CUresult cuGraphAddHostNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                     size_t numDependencies, const CUDA_HOST_NODE_PARAMS* nodeParams) {
    (void)dependencies, (void)numDependencies;
    if (nodeParams == nullptr || nodeParams->fn == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    fake_node n;
    n.type = CU_GRAPH_NODE_TYPE_HOST;
    n.host_fn = nodeParams->fn;
    n.host_data = nodeParams->userData;
    return add_node(phGraphNode, hGraph, std::move(n));
}

FAKE_API CUresult cuGraphAddEmptyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                      size_t numDependencies) {
    (void)dependencies, (void)numDependencies;
    std::lock_guard lk(g_mutex);
    fake_node n;
    n.type = CU_GRAPH_NODE_TYPE_EMPTY;
    return add_node(phGraphNode, hGraph, std::move(n));
}

// A kernel node's attributes (an exec instantiated after a change has them; one before, not). An
// attribute never set reads as zeros, but for two that driver 580.159.04 reads otherwise on a node
// nothing set (benchmarks/cuda/graph_nodes_check.sh): the cluster scheduling preference (5) reads
// 1 (SPREAD), the memory synchronization domain map (9) {0, 1}.
FAKE_API CUresult cuGraphKernelNodeSetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                                const CUkernelNodeAttrValue* value) {
    if (hNode == nullptr || value == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    auto* n = reinterpret_cast<fake_node*>(hNode);
    if (n->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_ERROR_INVALID_VALUE;
    n->attrs[static_cast<int>(attr)] = *value;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphKernelNodeGetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                                CUkernelNodeAttrValue* value_out) {
    if (hNode == nullptr || value_out == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    const auto* n = reinterpret_cast<const fake_node*>(hNode);
    if (n->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_ERROR_INVALID_VALUE;
    const auto it = n->attrs.find(static_cast<int>(attr));
    if (it != n->attrs.end()) {
        *value_out = it->second;
        return CUDA_SUCCESS;
    }
    std::memset(static_cast<void*>(value_out), 0, sizeof *value_out);
    if (attr == CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)
        value_out->clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
    if (static_cast<int>(attr) == 9)  // CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP (12.0): {default_, remote}
        reinterpret_cast<unsigned char*>(value_out)[1] = 1;
    return CUDA_SUCCESS;
}

namespace {
// The node of exec `hGraphExec` instantiated from the graph's node `hNode` (the exec's setters take
// the graph's node), or null; under g_mutex.
fake_node* exec_node(CUgraphExec hGraphExec, CUgraphNode hNode) {
    auto* exec = reinterpret_cast<fake_graph*>(hGraphExec);
    if (hNode == nullptr || g_execs->count(exec) == 0) return nullptr;
    const std::size_t id = reinterpret_cast<const fake_node*>(hNode)->id;
    for (auto& [i, n] : exec->nodes)
        if (n.id == id) return &n;
    return nullptr;
}
}  // namespace

FAKE_API CUresult cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled) {
    std::lock_guard lk(g_mutex);
    fake_node* n = exec_node(hGraphExec, hNode);
    if (n == nullptr) return CUDA_ERROR_INVALID_VALUE;
    n->enabled = isEnabled != 0;
    return CUDA_SUCCESS;
}

// ---- changing an exec: cuGraphExecKernelNodeSetParams and cuGraphExecUpdate, both ABIs ----------
// The v1 exports keep the names cuda.h 12+ maps to _v2, so they are defined under their symbol
// names (declared at the top). A kernel node's parameters: the v1 layout, a prefix of v2's (func set; kern and ctx,
// v2's additions, not read). An update gives the exec the graph's nodes when both have the same
// node types in the same order (the real driver's rules are finer), else
// CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE.
namespace {
CUresult set_exec_kernel(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1* p) {
    if (hNode == nullptr || p == nullptr || p->func == nullptr || p->kernelParams == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(g_mutex);
    auto* fn = reinterpret_cast<fake_function*>(p->func);
    fake_node* n = exec_node(hGraphExec, hNode);
    if (n == nullptr || n->type != CU_GRAPH_NODE_TYPE_KERNEL || fn->param_sizes == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
    const unsigned block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
    set_kernel(*n, fn, grid, block, p->kernelParams);
    return CUDA_SUCCESS;
}
CUresult update_exec(CUgraphExec hGraphExec, CUgraph hGraph) {
    std::lock_guard lk(g_mutex);
    auto* exec = reinterpret_cast<fake_graph*>(hGraphExec);
    auto* g = reinterpret_cast<fake_graph*>(hGraph);
    if (g_execs->count(exec) == 0 || g_graphs->count(g) == 0) return CUDA_ERROR_INVALID_VALUE;
    if (g->nodes.size() != exec->nodes.size()) return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    for (auto a = g->nodes.begin(), b = exec->nodes.begin(); a != g->nodes.end(); ++a, ++b)
        if (a->second.type != b->second.type) return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    exec->nodes = g->nodes;
    return CUDA_SUCCESS;
}
}  // namespace

FAKE_API CUresult fake_exec_kernel_node_set_params(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                   const CUDA_KERNEL_NODE_PARAMS_v1* p) {
    return set_exec_kernel(hGraphExec, hNode, p);
}
FAKE_API CUresult fake_exec_kernel_node_set_params_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                      const CUDA_KERNEL_NODE_PARAMS_v1* p) {
    return set_exec_kernel(hGraphExec, hNode, p);
}
// v1: the node that failed and why (CUgraphExecUpdateResult: 0 success, 1 error).
FAKE_API CUresult fake_exec_update(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode* hErrorNode_out,
                                   CUgraphExecUpdateResult* updateResult_out) {
    if (hErrorNode_out == nullptr || updateResult_out == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const CUresult r = update_exec(hGraphExec, hGraph);
    *hErrorNode_out = nullptr;
    *updateResult_out = r == CUDA_SUCCESS ? CU_GRAPH_EXEC_UPDATE_SUCCESS : CU_GRAPH_EXEC_UPDATE_ERROR;
    return r;
}
// v2: CUgraphExecUpdateResultInfo (CUDA 12.0; its result first, then two nodes), left as is.
FAKE_API CUresult fake_exec_update_v2(CUgraphExec hGraphExec, CUgraph hGraph, void* resultInfo) {
    if (resultInfo == nullptr) return CUDA_ERROR_INVALID_VALUE;
    return update_exec(hGraphExec, hGraph);
}

FAKE_API CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
    auto* exec = reinterpret_cast<fake_graph*>(hGraphExec);
    {
        std::lock_guard lk(g_mutex);
        if (g_execs->erase(exec) == 0) return CUDA_ERROR_INVALID_VALUE;
    }
    delete exec;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphDestroy(CUgraph hGraph) {
    auto* g = reinterpret_cast<fake_graph*>(hGraph);
    {
        std::lock_guard lk(g_mutex);
        if (g_graphs->erase(g) == 0) return CUDA_ERROR_INVALID_VALUE;
    }
    delete g;
    return CUDA_SUCCESS;
}
