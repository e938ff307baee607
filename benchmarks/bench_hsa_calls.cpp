// benchmarks/bench_hsa_calls.cpp — cost of cheap HSA calls as a program makes them (exported
// hsa_* symbols of the software HSA runtime). Run by run_hsa_benchmarks.sh with and without
// encore loaded (HSA_TOOLS_LIB) and with bench_tool in its different modes.
#include <benchmark/benchmark.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <hsa/hsa.h>
#pragma GCC diagnostic pop

#include <cstdio>
#include <cstdlib>

namespace {

struct env {
    hsa_signal_t signal{};
    hsa_queue_t* queue = nullptr;
    bool ok = false;
    env() {
        if (hsa_init() != HSA_STATUS_SUCCESS) return;
        hsa_agent_t gpu{};
        hsa_iterate_agents(
            [](hsa_agent_t a, void* d) {
                hsa_device_type_t t;
                hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t);
                if (t != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
                *static_cast<hsa_agent_t*>(d) = a;
                return HSA_STATUS_INFO_BREAK;
            },
            &gpu);
        ok = hsa_signal_create(1, 0, nullptr, &signal) == HSA_STATUS_SUCCESS &&
             hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue) ==
                 HSA_STATUS_SUCCESS;
    }
    ~env() {
        if (queue != nullptr) hsa_queue_destroy(queue);
        if (signal.handle != 0) hsa_signal_destroy(signal);
        hsa_shut_down();
    }
};

env& the_env() {
    static env e;
    return e;
}

void signal_load_relaxed(benchmark::State& state) {
    auto& e = the_env();
    if (!e.ok) return state.SkipWithError("HSA setup failed");
    for (auto _ : state) benchmark::DoNotOptimize(hsa_signal_load_relaxed(e.signal));
}
void queue_load_write_index_relaxed(benchmark::State& state) {
    auto& e = the_env();
    if (!e.ok) return state.SkipWithError("HSA setup failed");
    for (auto _ : state) benchmark::DoNotOptimize(hsa_queue_load_write_index_relaxed(e.queue));
}
BENCHMARK(signal_load_relaxed);
BENCHMARK(queue_load_write_index_relaxed);

}  // namespace

BENCHMARK_MAIN();
