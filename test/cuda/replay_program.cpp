// test/cuda/replay_program.cpp — the program encore-replay's CUDA front end is tested on
// (check_replay_frontend.py), on the fake driver: stateful kernels, so that a pass that did not
// start from the launch's inputs would change the result. saxpy (a mangled C++ name) does
// y += a*x three times on a stream the program created, count (extern "C") adds one to a counter
// twice on the legacy stream. It prints its results and "replay_program: ok" when they are what
// one run of each launch gives: replayed or not, the output must be the same.
#include "fake_driver.h"

#include "check_call.hpp"

#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <vector>

constexpr const char* check_program = "replay_program";  // for CHECK (check_call.hpp)

namespace {

// y[i] += a * x[i]; params: float* y, float a, const float* x, int n.
void saxpy(const unsigned[3], const unsigned[3], void** p) {
    auto* y = *static_cast<float**>(p[0]);
    const float a = *static_cast<float*>(p[1]);
    const auto* x = *static_cast<const float**>(p[2]);
    const int n = *static_cast<int*>(p[3]);
    for (int i = 0; i < n; ++i) y[i] += a * x[i];
}
// c[0] += 1; params: unsigned* c.
void count(const unsigned[3], const unsigned[3], void** p) { ++**static_cast<unsigned**>(p[0]); }

// saxpy(float*, float, float const*, int) as a compiler mangles it; count as extern "C".
const fake_cuda_module g_module = {2, {{"_Z5saxpyPffPKfi", &saxpy}, {"count", &count}}};

}  // namespace

int main() {
    CUdevice dev;
    CUcontext ctx;
    CHECK(open_device0(dev, ctx));
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, &g_module));
    CUfunction fsaxpy, fcount;
    CHECK(cuModuleGetFunction(&fsaxpy, mod, "_Z5saxpyPffPKfi"));
    CHECK(cuModuleGetFunction(&fcount, mod, "count"));
    CUstream stream;
    CHECK(cuStreamCreate(&stream, 0));
    int n = 4096;
    const std::size_t bytes = n * sizeof(float);
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 97) * 0.25f, y[i] = static_cast<float>(i % 13);
    CUdeviceptr dx, dy, dc;
    CHECK(cuMemAlloc(&dx, bytes));
    CHECK(cuMemAlloc(&dy, bytes));
    CHECK(cuMemAlloc(&dc, 256));
    CHECK(cuMemcpyHtoD(dx, x.data(), bytes));
    CHECK(cuMemcpyHtoD(dy, y.data(), bytes));
    const unsigned zero = 0;
    CHECK(cuMemcpyHtoD(dc, &zero, sizeof(zero)));
    float a = 1.5f;
    for (int k = 0; k < 3; ++k) {
        void* params[] = {&dy, &a, &dx, &n};
        CHECK(cuLaunchKernel(fsaxpy, 16, 1, 1, 256, 1, 1, 0, stream, params, nullptr));
    }
    CHECK(cuStreamSynchronize(stream));
    for (int k = 0; k < 2; ++k) {
        void* params[] = {&dc};
        CHECK(cuLaunchKernel(fcount, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr));
    }
    std::vector<float> out(n);
    unsigned counter = 0;
    CHECK(cuMemcpyDtoH(out.data(), dy, bytes));
    CHECK(cuMemcpyDtoH(&counter, dc, sizeof(counter)));
    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dy));
    CHECK(cuMemFree(dc));
    CHECK(cuStreamDestroy(stream));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    // The same arithmetic on the host, in the same order: bit-identical when each launch ran once.
    bool ok = counter == 2;
    for (int i = 0; i < n; ++i) {
        float want = y[i];
        for (int k = 0; k < 3; ++k) want += a * x[i];
        ok = ok && std::memcmp(&want, &out[i], sizeof(want)) == 0;
    }
    double sum = 0;
    for (const float v : out) sum += v;
    std::printf("replay_program: sum=%.6f counter=%u\n", sum, counter);
    std::printf("replay_program: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
