// benchmarks/bench_tracing.cpp — what tracing adds to one call, measured side by side:
//   bare         the original through the runtime's function table
//   wrapped_off  encore's wrapper installed, no active context wants the op
//   noop_cb      one context with a no-op ENTER/EXIT callback (the seed's form: record by value)
//   noop_cb_ptr  the same with encore's by-address callback form (no record copy per callback)
//   arg_strings  one context whose EXIT callback iterates the arguments into strings
//   floor_cb, floor_cb_ptr  the same no-op callbacks through floor.cpp: the least any wrapper can
//                do to deliver those records (a hand-written lower bound, not a tracer)
// over a cheap HSA-signature call (hsa_signal_load_relaxed). See RESULTS.md.
#include "../test/support/fake_hsa.hpp"

#include <encore/tracing/hsa.hpp>

#include <benchmark/benchmark.h>

#include <string>

namespace {

using encore::domains::hsa_core;

// The traced function: like ROCr's hsa_signal_load_relaxed, one plain load. (The test fake
// counts calls with an atomic increment, whose lock prefix drains the store buffer and would
// bill the wrapper's stores to the call.)
std::int64_t g_signal_value = 42;
[[gnu::noinline]] hsa_signal_value_t plain_signal_load(hsa_signal_t s) {
    benchmark::DoNotOptimize(s);
    return g_signal_value;
}

struct bench_tables : fake_hsa::tables {
    bench_tables() { core.hsa_signal_load_relaxed_fn = &plain_signal_load; }
};
extern "C" {  // floor.cpp
extern std::atomic<bool> encore_floor_enabled;
extern rocprofiler_callback_tracing_cb_t encore_floor_by_value;
extern encore_callback_tracing_ptr_cb_t encore_floor_by_address;
extern hsa_signal_value_t (*encore_floor_next)(hsa_signal_t);
hsa_signal_value_t encore_floor_call_by_value(hsa_signal_t);
hsa_signal_value_t encore_floor_call_by_address(hsa_signal_t);
}

bench_tables g_tables;  // wrapped
bench_tables g_bare;    // never wrapped
encore::context g_noop, g_noop_ptr, g_args;
std::size_t g_arg_bytes = 0;

void noop_cb(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {}
void noop_ptr_cb(const rocprofiler_callback_tracing_record_t*, rocprofiler_user_data_t*, void*) {}
void args_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    encore::tracing::for_each_arg<hsa_core>(r.operation, r.payload, 1, [](const encore::tracing::arg_info& a) {
        g_arg_bytes += std::char_traits<char>::length(a.value);
    });
}

int init(void*) {
    constexpr auto ops = encore::ops<hsa_core, "hsa_signal_load_relaxed">();
    if (encore::context::create(g_noop) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (encore::context::create(g_args) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (encore::context::create(g_noop_ptr) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (g_noop_ptr.trace<hsa_core>(&noop_ptr_cb, nullptr, ops) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (g_noop.trace<hsa_core>(&noop_cb, nullptr, ops) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (g_args.trace<hsa_core>(&args_cb, nullptr, ops) != ROCPROFILER_STATUS_SUCCESS) return 1;
    return 0;
}
encore::tool_registration g_reg{"bench", &init};

struct setup {
    setup() {
        encore::initialize();
        encore::tracing::hsa_all::install(g_tables.root);
    }
} g_setup;

void run(benchmark::State& state, const ::CoreApiTable& t) {
    hsa_signal_t s{1};
    for (auto _ : state) {
        benchmark::DoNotOptimize(s);
        benchmark::DoNotOptimize(t.hsa_signal_load_relaxed_fn(s));
    }
}

void bare(benchmark::State& state) { run(state, g_bare.core); }
void wrapped_off(benchmark::State& state) {
    g_noop.stop();
    g_args.stop();
    run(state, g_tables.core);
}
void noop_cb_bench(benchmark::State& state) {
    g_args.stop();
    g_noop.start();
    run(state, g_tables.core);
    g_noop.stop();
}
void noop_cb_ptr(benchmark::State& state) {
    g_noop.stop();
    g_args.stop();
    g_noop_ptr.start();
    run(state, g_tables.core);
    g_noop_ptr.stop();
}
void arg_strings(benchmark::State& state) {
    g_noop.stop();
    g_args.start();
    run(state, g_tables.core);
    g_args.stop();
    benchmark::DoNotOptimize(g_arg_bytes);
}

void floor_run(benchmark::State& state, hsa_signal_value_t (*f)(hsa_signal_t)) {
    g_noop.stop();
    g_args.stop();
    bench_tables t;
    t.core.hsa_signal_load_relaxed_fn = f;
    encore_floor_next = &plain_signal_load;
    encore_floor_by_value = &noop_cb;
    encore_floor_by_address = &noop_ptr_cb;
    encore_floor_enabled.store(true);
    run(state, t.core);
    encore_floor_enabled.store(false);
}
void floor_cb(benchmark::State& state) { floor_run(state, &encore_floor_call_by_value); }
void floor_cb_ptr(benchmark::State& state) { floor_run(state, &encore_floor_call_by_address); }

BENCHMARK(bare);
BENCHMARK(wrapped_off);
BENCHMARK(noop_cb_bench)->Name("noop_cb");
BENCHMARK(noop_cb_ptr);
BENCHMARK(arg_strings);
BENCHMARK(floor_cb);
BENCHMARK(floor_cb_ptr);

}  // namespace

BENCHMARK_MAIN();
