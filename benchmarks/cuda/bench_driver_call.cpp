// benchmarks/cuda/bench_driver_call.cpp — cost of one cheap driver call (cuCtxGetDevice), as the
// program sees it: 7 runs of 2,000,000 calls, median ns per call. BENCH_CUPTI=1 subscribes a
// no-op CUPTI callback to the driver API domain first (what an NVIDIA user would use instead).
//
// BENCH_SWITCH=1 (run under encore with cuda_trace_tool's "switch" mode): every encore case in
// this one process, taking turns round by round so that the host's noise falls on all alike:
// the real driver's own cuCtxGetDevice (bare), encore's with no active context, with a no-op
// callback in the seed's by-value form, and in encore's by-address form. CUPTI stays in a process
// of its own (BENCH_CUPTI): once it has subscribed, every driver call of the process stays slower
// after cuptiUnsubscribe (measured: bare ~11 -> ~92 ns per call), so it cannot take turns.
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static void CUPTIAPI cupti_noop(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

using get_device_fn = CUresult (*)(CUdevice*);
constexpr int calls = 2'000'000;

static double ns_per_call(get_device_fn f) {
    CUdevice got;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f(&got);
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / calls;
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// The real driver's function: encore has already loaded it (dlopen RTLD_NOLOAD finds it).
static get_device_fn real_get_device() {
    const char* paths[] = {std::getenv("ENCORE_CUDA_DRIVER"), "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                           "/usr/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1", "/usr/lib/libcuda.so.1"};
    for (const char* p : paths) {
        if (p == nullptr) continue;
        void* h = ::dlopen(p, RTLD_NOW | RTLD_NOLOAD);
        if (h == nullptr) continue;
        void* f = ::dlsym(h, "cuCtxGetDevice");
        get_device_fn g = nullptr;
        std::memcpy(&g, &f, sizeof(g));
        if (g != nullptr && g != &cuCtxGetDevice) return g;
    }
    return nullptr;
}

static int side_by_side() {
    auto* sw = reinterpret_cast<int (*)(int)>(::dlsym(RTLD_DEFAULT, "encore_bench_switch"));
    const get_device_fn bare = real_get_device();
    if (sw == nullptr || bare == nullptr) {
        std::printf("switch: needs encore's libcuda.so.1 and cuda_trace_tool in mode switch\n");
        return 1;
    }
    const get_device_fn traced = &cuCtxGetDevice;  // encore's export
    std::vector<double> b, none, val, ptr;
    for (int i = 0; i < 100'000; ++i) {
        CUdevice d;
        traced(&d);
        bare(&d);
    }
    for (int round = 0; round < 7; ++round) {
        b.push_back(ns_per_call(bare));
        if (sw(0) != 0) return 1;
        none.push_back(ns_per_call(traced));
        if (sw(1) != 0) return 1;
        val.push_back(ns_per_call(traced));
        if (sw(2) != 0) return 1;
        ptr.push_back(ns_per_call(traced));
        if (sw(0) != 0) return 1;
    }
    std::printf("switch_ns bare=%.2f none=%.2f noop=%.2f noop_ptr=%.2f\n", median(b), median(none), median(val),
                median(ptr));
    return 0;
}

int main() {
    if (cuInit(0) != CUDA_SUCCESS) return 1;
    CUdevice dev;
    CUcontext ctx;
    if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        return 1;
    const char* s = std::getenv("BENCH_SWITCH");
    if (s != nullptr && *s == '1') return side_by_side();
    const char* cupti = std::getenv("BENCH_CUPTI");
    if (cupti != nullptr && *cupti == '1') {
        CUpti_SubscriberHandle sub;
        if (cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(&cupti_noop), nullptr) != CUPTI_SUCCESS ||
            cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
            std::printf("cupti: cannot subscribe\n");
            return 1;
        }
    }
    std::vector<double> ns;
    for (int i = 0; i < 100'000; ++i) {
        CUdevice got;
        cuCtxGetDevice(&got);  // warm-up
    }
    for (int run = 0; run < 7; ++run) ns.push_back(ns_per_call(&cuCtxGetDevice));
    std::sort(ns.begin(), ns.end());
    std::printf("cuCtxGetDevice_ns median=%.2f min=%.2f max=%.2f\n", ns[3], ns[0], ns[6]);
    return 0;
}
