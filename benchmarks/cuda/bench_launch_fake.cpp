// benchmarks/cuda/bench_launch_fake.cpp — the host cost of encore's KERNEL_DISPATCH bookkeeping
// per launch, on the fake driver (test/cuda/fake_driver.cpp) and, for the CUPTI timing source,
// the fake CUPTI (test/cuda/fake_cupti.cpp): no GPU, so what it measures is encore's own work on
// the launching thread (records, event pool or the CUPTI stream queue) plus the fakes' (a host
// "kernel" that returns at once; the fake CUPTI writes one record per launch), not the driver's or
// CUPTI's cost on a GPU (benchmarks/cuda/bench_launch.cu measures those on the H200).
//
// The program is its own tool: BENCH_RECORDS=0 configures nothing (the bare launch through
// encore's export); BENCH_RECORDS=counting configures the dispatch counting service with a
// dispatch callback that selects no launch (as encore-replay --metrics -k for the kernels it does
// not count: what counting costs a launch it does not count, with ENCORE_CUPTI_LIBRARY naming the
// fake CUPTI profiler so the device is a counter source); else a no-op KERNEL_DISPATCH callback.
// The timing source is the process's ENCORE_CUDA_DISPATCH_TIMING / ENCORE_CUPTI_PAIRING
// (benchmarks/meson.build runs each case).
#include "../../test/cuda/fake_driver.h"

#include <rocprofiler-sdk/dispatch_counting_service.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <benchmark/benchmark.h>
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

void nothing(const unsigned*, const unsigned*, void**) {}
const fake_cuda_module g_module = {1, {{"nothing", &nothing}}};

void on_dispatch(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {}

unsigned long g_asked = 0;  // dispatch callbacks seen (the benchmark checks that they ran)
void select_none(rocprofiler_dispatch_counting_service_data_t, rocprofiler_counter_config_id_t*,
                 rocprofiler_user_data_t*, void*) {
    ++g_asked;
}
void no_record(rocprofiler_dispatch_counting_service_data_t, rocprofiler_counter_record_t*, size_t,
               rocprofiler_user_data_t, void*) {}

int tool_init(rocprofiler_client_finalize_t, void*) {
    const char* r = std::getenv("BENCH_RECORDS");
    if (r != nullptr && std::strcmp(r, "0") == 0) return 0;
    rocprofiler_context_id_t ctx{};
    if (r != nullptr && std::strcmp(r, "counting") == 0) {
        if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS ||
            rocprofiler_configure_callback_dispatch_counting_service(ctx, &select_none, nullptr, &no_record, nullptr) !=
                ROCPROFILER_STATUS_SUCCESS)
            return 1;
        return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    }
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                       &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

CUfunction g_fn = nullptr;
CUstream g_stream = nullptr;

void launch(benchmark::State& state) {
    void* params[] = {nullptr};
    for (auto _ : state)
        if (cuLaunchKernel(g_fn, 1, 1, 1, 32, 1, 1, 0, g_stream, params, nullptr) != CUDA_SUCCESS) {
            state.SkipWithError("cuLaunchKernel failed");
            break;
        }
    // Records still pending are delivered here, outside the timed loop.
    (void)cuStreamSynchronize(g_stream);
    const char* r = std::getenv("BENCH_RECORDS");
    if (r != nullptr && std::strcmp(r, "counting") == 0 && g_asked == 0)
        state.SkipWithError("the dispatch counting callback never ran (is the device a counter source?)");
}
BENCHMARK(launch)->Repetitions(5)->ReportAggregatesOnly(true);

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "bench-launch-fake";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}

int main(int argc, char** argv) {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    CUmodule mod = nullptr;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS ||
        cuModuleLoadData(&mod, &g_module) != CUDA_SUCCESS ||
        cuModuleGetFunction(&g_fn, mod, "nothing") != CUDA_SUCCESS || cuStreamCreate(&g_stream, 0) != CUDA_SUCCESS) {
        std::fprintf(stderr, "bench_launch_fake: the fake driver (ENCORE_CUDA_DRIVER) did not start\n");
        return 1;
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    (void)cuStreamDestroy(g_stream);
    (void)cuDevicePrimaryCtxRelease(dev);  // every pending COMPLETE delivered
    return 0;
}
