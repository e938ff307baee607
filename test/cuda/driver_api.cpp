// test/cuda/driver_api.cpp — a program on the CUDA driver API directly (linked against libcuda):
// context, allocation, copies both ways, a few cheap calls. Prints "driver_api: ok" when the
// copy round trip is right.
#include "check_call.hpp"

#include <cuda.h>

#include <cstdio>
#include <vector>

constexpr const char* check_program = "driver_api";  // for CHECK (check_call.hpp)

int main() {
    CUdevice dev;
    CUcontext ctx;
    CHECK(open_device0(dev, ctx));
    const size_t n = 1 << 16;
    std::vector<unsigned> in(n), out(n, 0);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned>(i * 2654435761u);
    CUdeviceptr d;
    CHECK(cuMemAlloc(&d, n * sizeof(unsigned)));
    CHECK(cuMemcpyHtoD(d, in.data(), n * sizeof(unsigned)));
    CHECK(cuMemcpyDtoH(out.data(), d, n * sizeof(unsigned)));
    for (int i = 0; i < 5; ++i) {
        CUdevice got;
        CHECK(cuCtxGetDevice(&got));
    }
    CHECK(cuMemFree(d));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    const bool ok = in == out;
    std::printf("driver_api: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
