// test/cuda/test_cuda_api.cpp — CUDA_DRIVER_API tracing and kernel replay through libencore-cuda
// (linked as libcuda.so.1) on the fake driver (fake_driver.cpp, ENCORE_CUDA_DRIVER), no GPU.
//
// The program is its own tool (C API). Scenarios (argv[1]):
//   api       context A traces every operation, B only cuMemAlloc_v2 and cuLaunchKernel: every
//             call is traced exactly once with ENTER/EXIT paired, argument names and values,
//             the return value at EXIT (errors passed through unchanged); calls fetched through
//             cuGetProcAddress (4- and 5-argument) are traced like exported ones; the driver's
//             other exports (cuCtxCreate_v2) are forwarded untraced; an op this build's cuda.h
//             lacks (cuCtxGetDevice_v2 against CUDA 11.8's) is forwarded untraced, else traced;
//             an op the driver lacks fails with CUDA_ERROR_SHARED_OBJECT_INIT_FAILED (traced)
//   notool    the tool configures nothing: results right, no callback ever runs
//   nodriver  ENCORE_CUDA_DRIVER names no file and no driver is installed: every call fails
//             with an error status, no crash (exit 77 where a real driver is installed)
//   replay    KERNEL_REPLAY, 3 passes per launch of two stateful host kernels (y += a*x and a
//             counter): every pass sees identical inputs, final memory equals an unreplayed run
//             (the same launches with the replay context stopped) and the host's arithmetic
//   budget    as replay with ENCORE_REPLAY_MEMORY_BUDGET below the footprint: every launch is
//             declined with the budget reason and runs once
//   records   MEMORY_COPY, KERNEL_DISPATCH, MEMORY_ALLOCATION and CODE_OBJECT (encore's
//             by-address callback form): 1-D, 2-D and 3-D copies each way, synchronous and
//             asynchronous, each one ENTER + EXIT with its direction, bytes, first addresses and
//             times; a null 2-D descriptor's error passed through without a record; a launch's
//             ENQUEUE and COMPLETE; allocations and frees with sizes; a launched function's name
//             once before its first dispatch, again after an unload; the copies' results unchanged
// (The wrapper script test/cuda/check_stderr.py checks the one-time messages on stderr.)
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"
#include "ctx_create.hpp"
#include "fake_driver.h"

#include <encore/tracing/payload.hpp>
#include <rocprofiler-sdk/cuda/driver_api_id.h>
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <cuda.h>
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#undef cuGetProcAddress

namespace {

using test_support::expect;

std::string g_mode;

// ---- tracing ------------------------------------------------------------------------------------
struct call {
    int op;
    std::string args;  // "name=value, ..." at EXIT
    int retval;        // CUresult at EXIT
};
struct trace {
    std::map<int, int> enter, exit;  // by op id
    std::vector<call> calls;         // at EXIT, in order
    int unpaired = 0;
};
std::mutex g_mutex;
trace g_a, g_b;
std::atomic<int> g_callbacks{0};
rocprofiler_context_id_t g_trace_a{}, g_trace_b{}, g_replay{};

int on_arg(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const, int32_t,
           const char*, const char* name, const char* value, int32_t, void* data) {
    auto* s = static_cast<std::string*>(data);
    *s += (n == 0 ? "" : ", ") + std::string(name) + "=" + value;
    return 0;
}

void on_api(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void* data) {
    ++g_callbacks;
    auto& t = *static_cast<trace*>(data);
    if (r.kind != ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API) return;
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud->value = r.correlation_id.internal;
        std::lock_guard lk(g_mutex);
        ++t.enter[r.operation];
        return;
    }
    std::string args;
    rocprofiler_iterate_callback_tracing_kind_operation_args(r, on_arg, 1, &args);
    CUresult ret{};
    std::memcpy(&ret, static_cast<const encore::tracing::generic_api_data*>(r.payload)->retval, sizeof(ret));
    std::lock_guard lk(g_mutex);
    ++t.exit[r.operation];
    if (ud->value != r.correlation_id.internal) ++t.unpaired;
    t.calls.push_back(call{r.operation, args, static_cast<int>(ret)});
}

// ---- replay -------------------------------------------------------------------------------------
struct replay_stats {
    int config_enter = 0, declined = 0, passes = 0, snapshots = 0, differ = 0;
    std::string reason;
    std::vector<std::uint64_t> sums;  // this dispatch's checksums at PASS ENTER
    std::uint64_t snapshot_bytes = 0;
} g_r;

std::uint64_t three_passes(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return 3; }

void on_replay(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    ++g_callbacks;
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    const bool enter = r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
    std::lock_guard lk(g_mutex);
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && enter) {
        ++g_r.config_enter;
        g_r.sums.clear();
        p->replay_pass_count = &three_passes;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG) {
        if (p->decline_reason != nullptr) {
            ++g_r.declined;
            g_r.reason = p->decline_reason;
        }
        for (auto s : g_r.sums) g_r.differ += s != g_r.sums.front() ? 1 : 0;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS && enter) {
        ++g_r.passes;
        std::uint64_t sum = 0;
        expect(encore_kernel_replay_checksum(&sum) == ROCPROFILER_STATUS_SUCCESS, "checksum at PASS ENTER");
        g_r.sums.push_back(sum);
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_SNAPSHOT && !enter) {
        ++g_r.snapshots;
        g_r.snapshot_bytes = p->bytes;
        expect(p->bytes_copied <= p->bytes, "a snapshot copies at most what it holds");
    }
}

// ---- records ------------------------------------------------------------------------------------
struct seen_record {
    rocprofiler_callback_tracing_kind_t kind;
    int op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t corr;
    rocprofiler_callback_tracing_memory_copy_data_t copy;
    rocprofiler_callback_tracing_kernel_dispatch_data_t dispatch;
    rocprofiler_callback_tracing_memory_allocation_data_t alloc;
    std::uint64_t kernel_id;  // CODE_OBJECT kernel symbols: the handle and its name
    std::string kernel_name;
};
std::vector<seen_record> g_records;
rocprofiler_context_id_t g_records_ctx{};

void on_record(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t*, void*) {
    seen_record s{};
    s.kind = r->kind, s.op = r->operation, s.phase = r->phase, s.corr = r->correlation_id.internal;
    if (r->kind == ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY)
        s.copy = *static_cast<const rocprofiler_callback_tracing_memory_copy_data_t*>(r->payload);
    else if (r->kind == ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH)
        s.dispatch = *static_cast<const rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r->payload);
    else if (r->kind == ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT) {
        const auto* k = static_cast<const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(
            r->payload);
        s.kernel_id = k->kernel_id;
        s.kernel_name = k->kernel_name != nullptr ? k->kernel_name : "(null)";
    } else
        s.alloc = *static_cast<const rocprofiler_callback_tracing_memory_allocation_data_t*>(r->payload);
    std::lock_guard lk(g_mutex);
    g_records.push_back(s);
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (g_mode == "notool") return 0;  // configures nothing
    if (g_mode == "records") {
        const rocprofiler_callback_tracing_kind_t kinds[] = {
            ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
            ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT};
        if (rocprofiler_create_context(&g_records_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
        for (auto k : kinds)
            if (encore_configure_callback_tracing_service_ptr(g_records_ctx, k, nullptr, 0, &on_record, nullptr) !=
                ROCPROFILER_STATUS_SUCCESS)
                return 1;
        return rocprofiler_start_context(g_records_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    }
    if (g_mode == "replay" || g_mode == "budget") {
        if (rocprofiler_create_context(&g_replay) != ROCPROFILER_STATUS_SUCCESS ||
            rocprofiler_configure_callback_tracing_service(g_replay, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr,
                                                           0, &on_replay, nullptr) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        return rocprofiler_start_context(g_replay) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    }
    rocprofiler_tracing_operation_t only_b[] = {ROCPROFILER_CUDA_DRIVER_API_ID_cuMemAlloc_v2,
                                                ROCPROFILER_CUDA_DRIVER_API_ID_cuLaunchKernel};
    if (rocprofiler_create_context(&g_trace_a) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_create_context(&g_trace_b) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(g_trace_a, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, nullptr,
                                                       0, &on_api, &g_a) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(g_trace_b, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, only_b,
                                                       2, &on_api, &g_b) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_trace_a) == ROCPROFILER_STATUS_SUCCESS &&
                   rocprofiler_start_context(g_trace_b) == ROCPROFILER_STATUS_SUCCESS
               ? 0
               : 1;
}

// ---- host "kernels" (fake_driver.h) -------------------------------------------------------------
// saxpy: y[i] += a * x[i] for i < n (params: a, x, y, n)
void saxpy(const unsigned grid[3], const unsigned block[3], void** params) {
    const float a = *static_cast<float*>(params[0]);
    const auto* x = reinterpret_cast<const float*>(*static_cast<CUdeviceptr*>(params[1]));
    auto* y = reinterpret_cast<float*>(*static_cast<CUdeviceptr*>(params[2]));
    const unsigned n = *static_cast<unsigned*>(params[3]);
    for (unsigned i = 0; i < grid[0] * block[0] && i < n; ++i) y[i] += a * x[i];
}
// counter: c[0] += 1; records the value it saw (what a pass's input was)
std::vector<unsigned> g_counter_seen;
void counter(const unsigned[3], const unsigned[3], void** params) {
    auto* c = reinterpret_cast<unsigned*>(*static_cast<CUdeviceptr*>(params[0]));
    g_counter_seen.push_back(c[0]);
    c[0] += 1;
}
const fake_cuda_module g_module = {2, {{"saxpy", &saxpy}, {"counter", &counter}}};

#define CHECK(x) expect((x) == CUDA_SUCCESS, #x)

int count(const trace& t, int op) {
    auto it = t.exit.find(op);
    const int e = t.enter.count(op) != 0 ? t.enter.at(op) : 0;
    const int x = it != t.exit.end() ? it->second : 0;
    return e == x ? x : -1;
}
const call* last_call(const trace& t, int op) {
    for (auto it = t.calls.rbegin(); it != t.calls.rend(); ++it)
        if (it->op == op) return &*it;
    return nullptr;
}
std::string op_name(int op) {
    const char* n = nullptr;
    std::uint64_t len = 0;
    rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, op, &n, &len);
    return n != nullptr ? n : "?";
}

// ---- scenarios ----------------------------------------------------------------------------------
int run_api() {
    const bool traced = g_mode == "api";
    CHECK(cuInit(0));
    int version = 0, devices = 0;
    CHECK(cuDriverGetVersion(&version));
    expect(version == CUDA_VERSION, "the fake driver's version");
    CHECK(cuDeviceGetCount(&devices));
    expect(devices == 1, "one device");
    CUdevice dev = -1;
    CHECK(cuDeviceGet(&dev, 0));
    char name[64] = {};
    CHECK(cuDeviceGetName(name, sizeof(name), dev));
    expect(std::string(name) == "encore fake CUDA device", "device name");
    CUcontext ctx = nullptr;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));

    constexpr unsigned n = 1024;
    std::vector<float> x(n), y(n, 1.0f), out(n);
    for (unsigned i = 0; i < n; ++i) x[i] = float(i);
    CUdeviceptr dx = 0, dy = 0;
    CHECK(cuMemAlloc(&dx, n * sizeof(float)));
    CHECK(cuMemAlloc(&dy, n * sizeof(float)));
    CHECK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
    CHECK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
    CUmodule mod = nullptr;
    CUfunction f = nullptr;
    CHECK(cuModuleLoadData(&mod, &g_module));
    CHECK(cuModuleGetFunction(&f, mod, "saxpy"));
    float a = 2.0f;
    unsigned count_n = n;
    void* params[] = {&a, &dx, &dy, &count_n};
    CHECK(cuLaunchKernel(f, n / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
    bool right = true;
    for (unsigned i = 0; i < n; ++i) right = right && out[i] == 1.0f + 2.0f * float(i);
    expect(right, "saxpy result");
    // An error passes through unchanged: a copy past the allocation.
    expect(cuMemcpyDtoH(out.data(), dy, 2 * n * sizeof(float)) == CUDA_ERROR_INVALID_VALUE, "copy past the end fails");
    const char* text = nullptr;
    CHECK(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text));
    expect(text != nullptr && std::string(text) == "invalid argument", "error string");

    // Through cuGetProcAddress (what the CUDA runtime does): same wrappers, traced once per call.
    using getproc_v1 = CUresult (*)(const char*, void**, int, cuuint64_t);
    auto* v1 = reinterpret_cast<getproc_v1>(::dlsym(RTLD_DEFAULT, "cuGetProcAddress"));
    expect(v1 != nullptr, "cuGetProcAddress is exported");
    void* p = nullptr;
    expect(v1("cuMemAlloc", &p, CUDA_VERSION, 0) == CUDA_SUCCESS && p != nullptr, "cuGetProcAddress(cuMemAlloc)");
    CUdeviceptr dz = 0;
    if (p != nullptr) CHECK(reinterpret_cast<CUresult (*)(CUdeviceptr*, size_t)>(p)(&dz, 64));
    void* q = &q;
    expect(v1("cuNoSuchFunction", &q, CUDA_VERSION, 0) == CUDA_ERROR_NOT_FOUND && q == nullptr, "an unknown symbol");
#if CUDA_VERSION >= 12000
    CUdriverProcAddressQueryResult st{};
    void* p2 = nullptr;
    expect(cuGetProcAddress_v2("cuMemFree", &p2, CUDA_VERSION, 0, &st) == CUDA_SUCCESS && p2 != nullptr &&
               st == CU_GET_PROC_ADDRESS_SUCCESS,
           "cuGetProcAddress_v2(cuMemFree)");
    if (p2 != nullptr) CHECK(reinterpret_cast<CUresult (*)(CUdeviceptr)>(p2)(dz));
#else
    CHECK(cuMemFree(dz));
#endif

    // A driver export that is not an op (cuda.h 13 declares cuCtxCreate as cuCtxCreate_v4):
    // forwarded, untraced.
    CUcontext own = nullptr;
    expect(ctx_create_v2(&own, 0, dev) == CUDA_SUCCESS && own != nullptr, "cuCtxCreate_v2 forwarded");
    CHECK(cuCtxDestroy(own));
    CHECK(cuCtxSetCurrent(ctx));
    // An op declared only by CUDA >= 13's cuda.h: traced there, forwarded untraced against 11.8's.
    using get_device_v2 = CUresult (*)(CUdevice*, CUcontext);
    auto* gd = reinterpret_cast<get_device_v2>(::dlsym(RTLD_DEFAULT, "cuCtxGetDevice_v2"));
    CUdevice got = -1;
    expect(gd != nullptr && gd(&got, ctx) == CUDA_SUCCESS && got == dev, "cuCtxGetDevice_v2 works");
    // An op the driver lacks: an error, each call.
    size_t bytes = 0;
    expect(cuDeviceTotalMem(&bytes, dev) == CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "a function the driver lacks fails");
    expect(cuDeviceTotalMem(&bytes, dev) == CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "... every time");

    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dy));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));

    if (!traced) {
        expect(g_callbacks.load() == 0, "a tool that configures nothing gets no callback");
        return test_support::finish();
    }
    std::lock_guard lk(g_mutex);
    using namespace std::string_literals;
    // Every call traced exactly once (ENTER and EXIT), by op.
    const std::map<int, int> expected = {
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuInit, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuDriverGetVersion, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuDeviceGetCount, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuDeviceGet, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuDeviceGetName, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuDevicePrimaryCtxRetain, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuCtxSetCurrent, 2},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuMemAlloc_v2, 3},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuMemcpyHtoD_v2, 2},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuModuleLoadData, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuModuleGetFunction, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuLaunchKernel, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuCtxSynchronize, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuMemcpyDtoH_v2, 2},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuGetErrorString, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuCtxDestroy_v2, 1},
#if CUDA_VERSION >= 13000
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuCtxGetDevice_v2, 1},
#endif
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuDeviceTotalMem_v2, 2},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuMemFree_v2, 3},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuModuleUnload, 1},
        {ROCPROFILER_CUDA_DRIVER_API_ID_cuDevicePrimaryCtxRelease_v2, 1},
    };
    for (const auto& [op, n] : expected)
        expect(count(g_a, op) == n, op_name(op) + " traced " + std::to_string(n) + "x with ENTER and EXIT (got " +
                                        std::to_string(count(g_a, op)) + ")");
    for (const auto& [op, n] : g_a.exit)
        expect(expected.count(op) != 0, "only the program's calls are traced: " + op_name(op));
    expect(g_a.unpaired == 0, "EXIT carries ENTER's user data");
    // Filters: B sees only its two operations.
    expect(count(g_b, ROCPROFILER_CUDA_DRIVER_API_ID_cuMemAlloc_v2) == 3 &&
               count(g_b, ROCPROFILER_CUDA_DRIVER_API_ID_cuLaunchKernel) == 1 && g_b.exit.size() == 2,
           "context B's operation filter");
    // Arguments and return values.
    const call* alloc = last_call(g_a, ROCPROFILER_CUDA_DRIVER_API_ID_cuMemAlloc_v2);
    expect(alloc != nullptr && alloc->args.rfind("dptr=", 0) == 0 &&
               alloc->args.find(", bytesize=64") != std::string::npos && alloc->retval == CUDA_SUCCESS,
           "cuMemAlloc_v2(dptr=..., bytesize=64) -> 0: " + (alloc != nullptr ? alloc->args : "none"s));
    const call* launch = last_call(g_a, ROCPROFILER_CUDA_DRIVER_API_ID_cuLaunchKernel);
    expect(launch != nullptr &&
               launch->args.find("gridDimX=4, gridDimY=1, gridDimZ=1, blockDimX=256") != std::string::npos,
           "cuLaunchKernel's arguments: " + (launch != nullptr ? launch->args : "none"s));
    const call* bad = last_call(g_a, ROCPROFILER_CUDA_DRIVER_API_ID_cuMemcpyDtoH_v2);
    expect(bad != nullptr && bad->retval == CUDA_ERROR_INVALID_VALUE &&
               bad->args.find("ByteCount=8192") != std::string::npos,
           "the failed copy's EXIT has its error and arguments: " + (bad != nullptr ? bad->args : "none"s));
    const call* missing = last_call(g_a, ROCPROFILER_CUDA_DRIVER_API_ID_cuDeviceTotalMem_v2);
    expect(missing != nullptr && missing->retval == CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "the missing function's EXIT");
    std::printf("test_cuda_api: %zu calls traced\n", g_a.calls.size());
    return test_support::finish();
}

int run_nodriver() {
    for (const char* p :
         {"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1",
          "/usr/lib/wsl/lib/libcuda.so.1", "/usr/lib/libcuda.so.1"})
        if (::access(p, F_OK) == 0) {
            std::printf("a CUDA driver is installed (%s): skipped\n", p);
            return 77;
        }
    expect(cuInit(0) != CUDA_SUCCESS, "cuInit fails without a driver");
    CUdeviceptr d = 0;
    expect(cuMemAlloc(&d, 64) != CUDA_SUCCESS, "cuMemAlloc fails");
    expect(cuMemAlloc(&d, 64) != CUDA_SUCCESS, "... again");
    int devices = -1;
    expect(cuDeviceGetCount(&devices) != CUDA_SUCCESS, "cuDeviceGetCount fails");
    void* p = nullptr;
    using getproc_v1 = CUresult (*)(const char*, void**, int, cuuint64_t);
    auto* v1 = reinterpret_cast<getproc_v1>(::dlsym(RTLD_DEFAULT, "cuGetProcAddress"));
    expect(v1 != nullptr && v1("cuInit", &p, CUDA_VERSION, 0) != CUDA_SUCCESS, "cuGetProcAddress fails");
    using ctx_create_v2 = CUresult (*)(CUcontext*, unsigned int, CUdevice);
    auto* create = reinterpret_cast<ctx_create_v2>(::dlsym(RTLD_DEFAULT, "cuCtxCreate_v2"));
    CUcontext c = nullptr;
    expect(create != nullptr && create(&c, 0, 0) != CUDA_SUCCESS, "a forwarded export fails");
    using get_device_v2 = CUresult (*)(CUdevice*, CUcontext);
    auto* gd = reinterpret_cast<get_device_v2>(::dlsym(RTLD_DEFAULT, "cuCtxGetDevice_v2"));
    CUdevice dev = 0;
    expect(gd != nullptr && gd(&dev, nullptr) != CUDA_SUCCESS, "a CUDA 13 op fails");
    std::lock_guard lk(g_mutex);
    expect(count(g_a, ROCPROFILER_CUDA_DRIVER_API_ID_cuMemAlloc_v2) == 2, "failed calls are still traced");
    return test_support::finish();
}

// With the host shadow, one more tracked allocation, larger than a piece of pinned memory (32 MiB):
// the snapshot and restores split it where pieces end. Its contents after the launches (each
// replayed) must be what the program wrote.
bool g_pad_ok = true;

// One run of the launches: saxpy 4 times and counter 3 times, interleaved. Returns y and the counter.
std::pair<std::vector<float>, unsigned> launches(CUfunction saxpy_f, CUfunction counter_f, CUstream s) {
    const char* shadow = std::getenv("ENCORE_CUDA_REPLAY_SHADOW");
    CUdeviceptr pad = 0;
    std::vector<unsigned> pad_host;
    if (shadow != nullptr && std::string_view(shadow) == "host") {
        pad_host.resize((72u << 20) / sizeof(unsigned));
        for (std::size_t i = 0; i < pad_host.size(); ++i) pad_host[i] = unsigned(i * 2654435761u);
        CHECK(cuMemAlloc(&pad, pad_host.size() * sizeof(unsigned)));
        CHECK(cuMemcpyHtoD(pad, pad_host.data(), pad_host.size() * sizeof(unsigned)));
    }
    constexpr unsigned n = 4096;
    std::vector<float> x(n), y(n);
    for (unsigned i = 0; i < n; ++i) {
        x[i] = float(i % 97);
        y[i] = float(i % 13);
    }
    CUdeviceptr dx = 0, dy = 0, dc = 0;
    CHECK(cuMemAlloc(&dx, n * sizeof(float)));
    CHECK(cuMemAlloc(&dy, n * sizeof(float)));
    CHECK(cuMemAlloc(&dc, sizeof(unsigned)));
    CHECK(cuMemcpyHtoDAsync(dx, x.data(), n * sizeof(float), s));
    CHECK(cuMemcpyHtoDAsync(dy, y.data(), n * sizeof(float), s));
    const unsigned zero = 0;
    CHECK(cuMemcpyHtoD(dc, &zero, sizeof(zero)));
    float a = 0.5f;
    unsigned nn = n;
    void* sp[] = {&a, &dx, &dy, &nn};
    void* cp[] = {&dc};
    for (int i = 0; i < 4; ++i) {
        CHECK(cuLaunchKernel(saxpy_f, n / 128, 1, 1, 128, 1, 1, 0, s, sp, nullptr));
        if (i < 3) CHECK(cuLaunchKernel(counter_f, 1, 1, 1, 1, 1, 1, 0, s, cp, nullptr));
    }
    CHECK(cuStreamSynchronize(s));
    unsigned c = 0;
    CHECK(cuMemcpyDtoHAsync(y.data(), dy, n * sizeof(float), s));
    CHECK(cuMemcpyDtoH(&c, dc, sizeof(c)));
    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dy));
    CHECK(cuMemFree(dc));
    if (pad != 0) {
        std::vector<unsigned> back(pad_host.size());
        CHECK(cuMemcpyDtoH(back.data(), pad, back.size() * sizeof(unsigned)));
        g_pad_ok = g_pad_ok && back == pad_host;
        CHECK(cuMemFree(pad));
    }
    return {y, c};
}

/// cuInit, device 0's primary context made current, a stream on it.
CUstream primary_stream(CUdevice& dev) {
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx = nullptr;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUstream s = nullptr;
    CHECK(cuStreamCreate(&s, 0));
    return s;
}

int run_replay() {
    const bool budget = g_mode == "budget";
    CUdevice dev = 0;
    const CUstream s = primary_stream(dev);
    CUmodule mod = nullptr;
    CUfunction saxpy_f = nullptr, counter_f = nullptr;
    CHECK(cuModuleLoadData(&mod, &g_module));
    CHECK(cuModuleGetFunction(&saxpy_f, mod, "saxpy"));
    CHECK(cuModuleGetFunction(&counter_f, mod, "counter"));

    const auto replayed = launches(saxpy_f, counter_f, s);
    const std::vector<unsigned> seen = g_counter_seen;
    {
        std::lock_guard lk(g_mutex);
        expect(g_r.config_enter == 7, "every launch is offered for replay (" + std::to_string(g_r.config_enter) + ")");
        if (budget) {
            expect(g_r.declined == 7 && g_r.reason.find("memory budget") != std::string::npos,
                   "declined over the memory budget: " + g_r.reason);
            expect(g_r.passes == 0 && seen == std::vector<unsigned>({0, 1, 2}), "declined launches run once");
        } else {
            expect(g_r.declined == 0, "no launch declined: " + g_r.reason);
            expect(g_r.passes == 21, "3 passes per launch (" + std::to_string(g_r.passes) + ")");
            // (at least their sizes: the backend may cover an allocation's whole granule)
            expect(g_r.snapshots == 7 && g_r.snapshot_bytes >= 2 * 4096 * sizeof(float) + sizeof(unsigned),
                   "each snapshot covers the three allocations (" + std::to_string(g_r.snapshot_bytes) + " bytes)");
            expect(g_r.differ == 0, "every pass of a launch starts from the same memory (checksums)");
            expect(seen == std::vector<unsigned>({0, 0, 0, 1, 1, 1, 2, 2, 2}),
                   "every pass of the counter sees the same input");
        }
    }
    expect(g_pad_ok, "an allocation larger than a piece of the host shadow is restored intact");
    // The same launches with the replay context stopped.
    expect(rocprofiler_stop_context(g_replay) == ROCPROFILER_STATUS_SUCCESS, "stop the replay context");
    g_counter_seen.clear();
    const auto plain = launches(saxpy_f, counter_f, s);
    expect(g_counter_seen == std::vector<unsigned>({0, 1, 2}), "unreplayed: each launch runs once");
    expect(replayed == plain, "final memory equals an unreplayed run");
    bool right = plain.second == 3;
    for (unsigned i = 0; i < plain.first.size(); ++i)
        right = right && plain.first[i] == float(i % 13) + 4 * 0.5f * float(i % 97);
    expect(right, "and the host's arithmetic");
    CHECK(cuStreamDestroy(s));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    return test_support::finish();
}

}  // namespace

ENCORE_TEST_TOOL("test-cuda-api", &tool_init, nullptr)

// The records a copy made: its ENTER and EXIT (matched by correlation id), or failures noted.
struct copy_seen {
    const seen_record* enter = nullptr;
    const seen_record* exit = nullptr;
};
copy_seen find_copy(int op, std::uint64_t bytes, CUdeviceptr dst) {
    copy_seen c;
    for (const auto& r : g_records)
        if (r.kind == ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY && r.op == op && r.copy.bytes == bytes &&
            r.copy.dst_address.value == dst)
            (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER ? c.enter : c.exit) = &r;
    return c;
}

int run_records() {
    CUdevice dev = 0;
    const CUstream s = primary_stream(dev);
    constexpr std::size_t mib = 1u << 20;
    CUdeviceptr a = 0, b = 0;
    CHECK(cuMemAlloc(&a, mib));
    CHECK(cuMemAlloc(&b, mib));
    std::vector<unsigned char> h(8192), back(8192);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<unsigned char>(i * 7 + 1);

    CHECK(cuMemcpyHtoD(a, h.data(), 4096));             // H2D, 1-D
    CHECK(cuMemcpyDtoD(b, a, 4096));                    // D2D, 1-D
    CHECK(cuMemcpyDtoHAsync(back.data(), b, 4096, s));  // D2H, 1-D, asynchronous
    CUDA_MEMCPY2D h2d{};                                // H2D, 2-D: 10 rows of 200 bytes
    h2d.srcMemoryType = CU_MEMORYTYPE_HOST, h2d.srcHost = h.data(), h2d.srcPitch = 256;
    h2d.dstMemoryType = CU_MEMORYTYPE_DEVICE, h2d.dstDevice = a, h2d.dstPitch = 512, h2d.dstXInBytes = 8, h2d.dstY = 2;
    h2d.WidthInBytes = 200, h2d.Height = 10;
    CHECK(cuMemcpy2D(&h2d));
    CUDA_MEMCPY2D d2h{};  // D2H, 2-D, asynchronous: 4 rows of 100
    d2h.srcMemoryType = CU_MEMORYTYPE_DEVICE, d2h.srcDevice = a, d2h.srcPitch = 512;
    d2h.dstMemoryType = CU_MEMORYTYPE_HOST, d2h.dstHost = back.data() + 4096, d2h.dstPitch = 100;
    d2h.WidthInBytes = 100, d2h.Height = 4;
    CHECK(cuMemcpy2DAsync(&d2h, s));
    CUDA_MEMCPY3D d2d{};  // D2D, 3-D: 3 slices of 4 rows of 64
    d2d.srcMemoryType = CU_MEMORYTYPE_DEVICE, d2d.srcDevice = a, d2d.srcPitch = 128, d2d.srcHeight = 8;
    d2d.dstMemoryType = CU_MEMORYTYPE_DEVICE, d2d.dstDevice = b + 65536, d2d.dstPitch = 128, d2d.dstHeight = 8;
    d2d.dstZ = 1;
    d2d.WidthInBytes = 64, d2d.Height = 4, d2d.Depth = 3;
    CHECK(cuMemcpy3D(&d2d));
    expect(cuMemcpy2D(nullptr) == CUDA_ERROR_INVALID_VALUE, "a null 2-D descriptor: the driver's error");

    CUmodule mod = nullptr;
    CUfunction counter_f = nullptr;
    CHECK(cuModuleLoadData(&mod, &g_module));
    CHECK(cuModuleGetFunction(&counter_f, mod, "counter"));
    void* cp[] = {&b};
    CHECK(cuLaunchKernel(counter_f, 1, 1, 1, 1, 1, 1, 0, s, cp, nullptr));
    CHECK(cuStreamSynchronize(s));
    // A launch from a thread's thread_local destructor (built before the thread's first launch,
    // so destroyed after encore's per-thread cache would be as a plain thread_local): traced
    // like any other (ASan: no freed state read).
    {
        static CUfunction f = nullptr;
        static void** params = nullptr;
        static CUstream stream = nullptr;
        f = counter_f, params = cp, stream = s;
        struct at_exit {
            ~at_exit() { CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr)); }
        };
        CUcontext ctx = nullptr;
        CHECK(cuCtxGetCurrent(&ctx));
        std::thread([ctx] {
            static thread_local at_exit guard;
            (void)guard;
            CHECK(cuCtxSetCurrent(ctx));
            CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr));
        }).join();
        CHECK(cuStreamSynchronize(s));
    }

    // Results as without encore: the 2-D copy's rows landed at their pitch and offsets.
    std::vector<unsigned char> rows(512 * 12);
    CHECK(cuMemcpyDtoH(rows.data(), a, rows.size()));
    bool rows_ok = true;
    for (std::size_t y = 0; y < 10; ++y)
        rows_ok = rows_ok && std::memcmp(&rows[(2 + y) * 512 + 8], &h[y * 256], 200) == 0;
    expect(rows_ok, "the 2-D copy's rows are where the descriptor put them");
    expect(std::memcmp(back.data() + 4096, &rows[0], 100) == 0, "the asynchronous 2-D copy read row 0");
    CHECK(cuModuleUnload(mod));
    // Loaded again after the unload: the same function is named again before its next launch (a
    // handle may come back as another function); "saxpy" is never launched, so never named.
    CHECK(cuModuleLoadData(&mod, &g_module));
    CHECK(cuModuleGetFunction(&counter_f, mod, "counter"));
    CHECK(cuLaunchKernel(counter_f, 1, 1, 1, 1, 1, 1, 0, s, cp, nullptr));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuModuleUnload(mod));
    CHECK(cuMemFree(a));
    CHECK(cuMemFree(b));
    CHECK(cuStreamDestroy(s));
    CHECK(cuDevicePrimaryCtxRelease(dev));  // pending records are delivered before it returns

    std::lock_guard lk(g_mutex);
    const auto check_copy = [&](const char* what, int op, std::uint64_t bytes, CUdeviceptr dst, CUdeviceptr src) {
        const copy_seen c = find_copy(op, bytes, dst);
        expect(c.enter != nullptr && c.exit != nullptr, std::string(what) + ": ENTER and EXIT");
        if (c.enter == nullptr || c.exit == nullptr) return;
        expect(c.enter->corr == c.exit->corr, std::string(what) + ": one correlation id");
        expect(c.exit->copy.src_address.value == src, std::string(what) + ": source address");
        expect(c.exit->copy.start_timestamp != 0 && c.exit->copy.end_timestamp >= c.exit->copy.start_timestamp,
               std::string(what) + ": GPU times at EXIT");
    };
    const auto addr = [](const void* p) { return reinterpret_cast<CUdeviceptr>(p); };
    check_copy("1-D H2D", ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, 4096, a, addr(h.data()));
    check_copy("1-D D2D", ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, 4096, b, a);
    check_copy("1-D D2H async", ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST, 4096, addr(back.data()), b);
    check_copy("2-D H2D", ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, 2000, a + 2 * 512 + 8, addr(h.data()));
    check_copy("2-D D2H async", ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST, 400, addr(back.data() + 4096), a);
    check_copy("3-D D2D", ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, 768, b + 65536 + 8 * 128, a);
    std::map<std::pair<int, int>, int> n;  // (kind, op) -> records
    for (const auto& r : g_records) ++n[{r.kind, r.op}];
    // 7 copies in all (the 6 above and the read-back), 2 records each; none for the null descriptor.
    int copies = 0;
    for (const auto& [k, c] : n)
        if (k.first == ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY) copies += c;
    expect(copies == 14, "7 copies, ENTER and EXIT each (" + std::to_string(copies) + " records)");
    expect(n[{ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE}] == 8 &&
               n[{ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, ROCPROFILER_KERNEL_DISPATCH_COMPLETE}] == 4,
           "four launches (one from a thread_local destructor, one after a reload): ENQUEUE ENTER/EXIT and one "
           "COMPLETE each");
    // Kernel names: one symbol record per launched function before its first dispatch record on
    // three threads' launches, one more after the unload; none for a function never launched.
    std::vector<std::size_t> symbols, enqueues;
    for (std::size_t i = 0; i < g_records.size(); ++i) {
        const auto& r = g_records[i];
        if (r.kind == ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT) symbols.push_back(i);
        if (r.kind == ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH && r.op == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE &&
            r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
            enqueues.push_back(i);
    }
    expect(symbols.size() == 2, "two kernel symbol records (" + std::to_string(symbols.size()) + ")");
    for (std::size_t i : symbols) {
        const auto& r = g_records[i];
        expect(r.op == ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER &&
                   r.phase == ROCPROFILER_CALLBACK_PHASE_LOAD && r.kernel_name == "counter" &&
                   r.kernel_id == reinterpret_cast<std::uint64_t>(counter_f),
               "a symbol record: DEVICE_KERNEL_SYMBOL_REGISTER, LOAD, the launched handle, its name (" + r.kernel_name +
                   ")");
    }
    if (symbols.size() == 2 && enqueues.size() == 4) {
        expect(symbols[0] < enqueues[0], "the name comes before the function's first dispatch record");
        expect(enqueues[2] < symbols[1] && symbols[1] < enqueues[3], "named again after the unload, before its launch");
        expect(g_records[enqueues[0]].dispatch.dispatch_info.kernel_id == g_records[symbols[0]].kernel_id,
               "the dispatch's kernel_id is the symbol record's");
    }
    for (const auto& r : g_records)
        if (r.kind == ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH && r.op == ROCPROFILER_KERNEL_DISPATCH_COMPLETE)
            expect(r.dispatch.dispatch_info.dispatch_id != 0 &&
                       r.dispatch.end_timestamp >= r.dispatch.start_timestamp && r.dispatch.start_timestamp != 0,
                   "COMPLETE: a dispatch id and GPU times");
    int allocs = 0, frees = 0;
    for (const auto& r : g_records) {
        if (r.kind != ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION || r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT)
            continue;
        const bool is_ab = r.alloc.address.value == a || r.alloc.address.value == b;
        if (r.op == ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE) allocs += is_ab && r.alloc.allocation_size == mib;
        if (r.op == ROCPROFILER_MEMORY_ALLOCATION_FREE) frees += is_ab && r.alloc.allocation_size == mib;
    }
    expect(allocs == 2 && frees == 2, "two allocations and two frees with their addresses and sizes");
    return test_support::finish();
}

int main(int argc, char** argv) {
    g_mode = argc > 1 ? argv[1] : "api";
    if (g_mode == "api" || g_mode == "notool") return run_api();
    if (g_mode == "nodriver") return run_nodriver();
    if (g_mode == "replay" || g_mode == "budget") return run_replay();
    if (g_mode == "records") return run_records();
    std::fprintf(stderr, "usage: test_cuda_api api|notool|nodriver|replay|budget|records\n");
    return 2;
}
