// benchmarks/cuda/bench_driver_call.cpp — cost of one cheap driver call (cuCtxGetDevice), as the
// program sees it: 7 runs of 2,000,000 calls, median ns per call. BENCH_CUPTI=1 subscribes a
// no-op CUPTI callback to the driver API domain first (what an NVIDIA user would use instead).
#include <cuda.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void CUPTIAPI cupti_noop(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

int main() {
    if (cuInit(0) != CUDA_SUCCESS) return 1;
    CUdevice dev;
    CUcontext ctx;
    if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        return 1;
    const char* cupti = std::getenv("BENCH_CUPTI");
    if (cupti != nullptr && *cupti == '1') {
        CUpti_SubscriberHandle sub;
        if (cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(&cupti_noop), nullptr) != CUPTI_SUCCESS ||
            cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
            std::printf("cupti: cannot subscribe\n");
            return 1;
        }
    }
    constexpr int calls = 2'000'000;
    std::vector<double> ns;
    CUdevice got;
    for (int i = 0; i < 100'000; ++i) cuCtxGetDevice(&got);  // warm-up
    for (int run = 0; run < 7; ++run) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i) cuCtxGetDevice(&got);
        const auto t1 = std::chrono::steady_clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
    }
    std::sort(ns.begin(), ns.end());
    std::printf("cuCtxGetDevice_ns median=%.2f min=%.2f max=%.2f\n", ns[3], ns[0], ns[6]);
    return 0;
}
