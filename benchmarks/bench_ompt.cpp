// benchmarks/bench_ompt.cpp — what OMPT tracing adds to an OpenMP program: a loop of short
// parallel regions (a 64-iteration worksharing loop each, with a reduction), per region, on 1
// thread (the runtime's and encore's own cost: about ten callbacks per region) and 2 (plus
// waking a worker, which a loaded machine makes noisy).
//
//   benchmarks/run_ompt_benchmarks.sh [BUILD_DIR]   (runs the cases side by side, one run)
//
// Cases (the runtime picks its tool once per process, so the script runs this binary twice):
//   bare           OMP_TOOL=disabled: no tool in the process
//   no_context     libencore-ompt is the runtime's tool (every callback registered), nothing
//                  subscribed: each callback is one relaxed load
//   noop_callback  one context tracing every OMPT operation with a callback that does nothing
// The program is its own encore tool (rocprofiler_force_configure); built with clang and libomp.
#include <benchmark/benchmark.h>
#include <omp.h>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

namespace {

rocprofiler_context_id_t g_ctx{};
bool g_have_context = false;

void noop(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {}

int tool_init(rocprofiler_client_finalize_t, void*) {
    g_have_context = rocprofiler_create_context(&g_ctx) == ROCPROFILER_STATUS_SUCCESS &&
                     rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_OMPT, nullptr,
                                                                    0, &noop, nullptr) == ROCPROFILER_STATUS_SUCCESS;
    return 0;
}

rocprofiler_tool_configure_result_t* configure(uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "bench_ompt";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}

long regions(int n, int threads) {
    long total = 0;
    for (int r = 0; r < n; ++r) {
#pragma omp parallel num_threads(threads) reduction(+ : total)
        {
#pragma omp for
            for (int i = 0; i < 64; ++i) total += i;
        }
    }
    return total;
}

void run(benchmark::State& state) {
    const int threads = static_cast<int>(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(regions(1, threads));
    state.SetItemsProcessed(state.iterations());
}

void BM_bare(benchmark::State& state) { run(state); }

void BM_no_context(benchmark::State& state) {
    int initialized = 0;
    rocprofiler_ompt_is_initialized(&initialized);
    if (initialized == 0) return state.SkipWithError("libencore-ompt is not the runtime's tool");
    run(state);
}

void BM_noop_callback(benchmark::State& state) {
    int initialized = 0;
    rocprofiler_ompt_is_initialized(&initialized);
    if (initialized == 0 || !g_have_context) return state.SkipWithError("no OMPT context");
    rocprofiler_start_context(g_ctx);
    run(state);
    rocprofiler_stop_context(g_ctx);
}

BENCHMARK(BM_bare)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_no_context)->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(BM_noop_callback)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
    rocprofiler_force_configure(&configure);
    regions(1, 2);  // the runtime starts (and starts its tool) before any case is timed
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
