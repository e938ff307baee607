// test/cuda/metrics_program.cpp — a driver-API program for encore-replay --metrics on the fake
// driver and the fake CUPTI profiler (check_metrics_frontend.py). `stream` reads a buffer of n
// floats into a sum and counts its own launches in device memory; it tells the fake profiler the
// bytes it read as n x 4 x (1 + the count before it ran): a pass that did not start from the
// restored memory reports more. `tiny` is another kernel, not selected by -k stream.
#include "fake_driver.h"

#include "check_call.hpp"

#include <cuda.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr const char* check_program = "metrics_program";  // for CHECK (check_call.hpp)

namespace {

/// The fake profiler's channel for what a kernel read, found at the first launch (libcupti is
/// loaded by then when counting); null: it counts 4 bytes a thread.
void (*reporter())(double) {
    static void (*report)(double) = [] {
        void (*f)(double) = nullptr;
        const char* lib = std::getenv("ENCORE_CUPTI_LIBRARY");
        void* h = lib != nullptr ? ::dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : nullptr;
        void* sym = h != nullptr ? ::dlsym(h, "fake_cupti_profiler_report_bytes") : nullptr;
        std::memcpy(&f, &sym, sizeof(f));
        return f;
    }();
    return report;
}

void stream(const unsigned[3], const unsigned[3], void** p) {
    const auto* x = *static_cast<const float**>(p[0]);
    const int n = *static_cast<int*>(p[1]);
    auto* count = *static_cast<unsigned**>(p[2]);
    auto* out = *static_cast<float**>(p[3]);
    float s = 0;
    for (int i = 0; i < n; ++i) s += x[i];
    *out += s;
    if (auto* report = reporter()) report(4.0 * n * (1.0 + *count));
    ++*count;
}
void tiny(const unsigned[3], const unsigned[3], void**) {}

const fake_cuda_module g_module = {2, {{"stream", &stream}, {"tiny", &tiny}}};

}  // namespace

int main() {
    CUdevice dev;
    CUcontext ctx;
    CHECK(open_device0(dev, ctx));
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, &g_module));
    CUfunction fstream, ftiny;
    CHECK(cuModuleGetFunction(&fstream, mod, "stream"));
    CHECK(cuModuleGetFunction(&ftiny, mod, "tiny"));
    int n = 8192;
    std::vector<float> x(n, 0.5f);
    CUdeviceptr dx, dc, dout;
    CHECK(cuMemAlloc(&dx, n * sizeof(float)));
    CHECK(cuMemAlloc(&dc, sizeof(unsigned)));
    CHECK(cuMemAlloc(&dout, sizeof(float)));
    CHECK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
    const unsigned zero = 0;
    const float fzero = 0;
    CHECK(cuMemcpyHtoD(dc, &zero, sizeof(zero)));
    CHECK(cuMemcpyHtoD(dout, &fzero, sizeof(fzero)));
    for (int k = 0; k < 3; ++k) {
        void* params[] = {&dx, &n, &dc, &dout};
        CHECK(cuLaunchKernel(fstream, 32, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
        CHECK(cuLaunchKernel(ftiny, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
    }
    unsigned count = 0;
    float out = 0;
    CHECK(cuMemcpyDtoH(&count, dc, sizeof(count)));
    CHECK(cuMemcpyDtoH(&out, dout, sizeof(out)));
    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dc));
    CHECK(cuMemFree(dout));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    // Each launch took effect once: 3 launches, 3 x n x 0.5.
    const bool ok = count == 3 && out == 1.5f * static_cast<float>(n);
    std::printf("metrics_program: count=%u sum=%.1f %s\n", count, static_cast<double>(out), ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
