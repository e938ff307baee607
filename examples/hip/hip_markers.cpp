// examples/hip/hip_markers.cpp — a small HIP program annotated with roctx ranges: what
// `encore-trace --hip-trace --marker-trace` shows. Without a GPU every HIP call fails with the
// runtime's error (hipErrorNoDevice, ...); the program prints them and exits 0.
#include <hip/hip_runtime_api.h>
#include <roctracer/roctx.h>

#include <cstdio>

int main() {
    roctxRangePushA("setup");
    int devices = 0;
    const hipError_t e = hipGetDeviceCount(&devices);
    std::printf("hipGetDeviceCount: %s, %d device(s)\n", hipGetErrorName(e), devices);
    roctxRangePushA("allocate");
    void* p = nullptr;
    const hipError_t m = hipMalloc(&p, 1 << 20);
    std::printf("hipMalloc: %s\n", hipGetErrorString(m));
    roctxRangePop();
    roctxRangePop();
    roctxMarkA("done");
    hipStream_t s = nullptr;
    std::printf("hipStreamCreate: %s\n", hipGetErrorName(hipStreamCreate(&s)));
    return 0;
}
