// Range replay's amortization on CUDA, on the fake driver (test/cuda/fake_driver.cpp; no GPU), in
// one run: K dependent launches of a read-modify-write kernel with 64 MiB of covered device memory
// beside them, 5 passes, for K = 1, 2, 4, 8:
//   kernel   each launch kernel-replayed: K snapshots, K x 4 restores
//   range    the K launches as one range: one start snapshot, one of pass 0's end, 4 restores
// Prints both wall times per iteration and their ratio (kernel / range). The program is its own
// tool. Run (the build tree's fake driver):
//   ENCORE_CUDA_DRIVER=build/test/cuda/libencore_test_fake_cuda.so build/benchmarks/bench_cuda_range_fake
// The fake's "device" copies are host memcpys: the ratio is the figure, not the milliseconds.
#include "fake_driver.h"

#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/experimental/range_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <cuda.h>

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace {

constexpr std::uint64_t passes = 5;
bool g_kernel = false, g_range = false;  // which replay the next launches / ranges get
int g_declined = 0;

std::uint64_t kernel_passes(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) {
    return g_kernel ? passes : 1;
}
std::uint64_t range_passes(std::uint64_t, rocprofiler_user_data_t) { return g_range ? passes : 1; }

void on_kernel(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
        static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload)->replay_pass_count = &kernel_passes;
}
void on_range(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_range_replay_data_t*>(r.payload);
    if (r.operation == ROCPROFILER_RANGE_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
        p->pass_count_cb = &range_passes;
    if (r.operation == ROCPROFILER_RANGE_REPLAY_CLOSE && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER && g_range &&
        p->status != ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED)
        ++g_declined;
}
int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t c{};
    if (rocprofiler_create_context(&c) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(c, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                       &on_kernel, nullptr) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(c, ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY, nullptr, 0,
                                                       &on_range, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(c) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

// x[i] = 2 x[i] + 1 over 4096 floats (params: x).
void step(const unsigned[3], const unsigned[3], void** p) {
    auto* x = *static_cast<float**>(p[0]);
    for (int i = 0; i < 4096; ++i) x[i] = x[i] * 2.0f + 1.0f;
}
constexpr unsigned step_params[] = {8, 0};
const fake_cuda_module g_module = {1, {{"step", &step, step_params}}};

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "bench-cuda-range-fake";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}

int main() {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    CUmodule mod = nullptr;
    CUfunction f = nullptr;
    CUstream s = nullptr;
    CUdeviceptr x = 0, ballast = 0;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS ||
        cuModuleLoadData(&mod, &g_module) != CUDA_SUCCESS || cuModuleGetFunction(&f, mod, "step") != CUDA_SUCCESS ||
        cuStreamCreate(&s, 0) != CUDA_SUCCESS || cuMemAlloc(&x, 4096 * 4) != CUDA_SUCCESS ||
        cuMemAlloc(&ballast, 64u << 20) != CUDA_SUCCESS) {
        std::fprintf(stderr, "bench_cuda_range_fake: the fake driver did not start (set ENCORE_CUDA_DRIVER)\n");
        return 1;
    }
    const auto launch = [&] {
        void* p[] = {&x};
        return cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, p, nullptr);
    };
    using clock = std::chrono::steady_clock;
    const auto ms_since = [](clock::time_point t0, int n) {
        return std::chrono::duration<double, std::milli>(clock::now() - t0).count() / n;
    };
    constexpr int iterations = 5;
    std::printf("%4s %14s %14s %8s\n", "K", "kernel_ms", "range_ms", "ratio");
    for (const int k : {1, 2, 4, 8}) {
        g_kernel = true, g_range = false;
        auto t0 = clock::now();
        for (int i = 0; i < iterations; ++i)
            for (int j = 0; j < k; ++j) (void)launch();
        (void)cuCtxSynchronize();
        const double kernel = ms_since(t0, iterations);
        g_kernel = false, g_range = true;
        t0 = clock::now();
        for (int i = 0; i < iterations; ++i) {
            (void)rocprofiler_range_replay_begin(static_cast<std::uint64_t>(i));
            for (int j = 0; j < k; ++j) (void)launch();
            (void)rocprofiler_range_replay_end();
        }
        const double range = ms_since(t0, iterations);
        std::printf("%4d %14.2f %14.2f %8.2f\n", k, kernel, range, kernel / range);
    }
    if (g_declined != 0) std::printf("bench_cuda_range_fake: %d range(s) declined (figures invalid)\n", g_declined);
    (void)cuMemFree(x);
    (void)cuMemFree(ballast);
    return g_declined == 0 ? 0 : 1;
}
