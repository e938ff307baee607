// benchmarks/bench_hip.cpp — what libencore-hip and libencore-roctx add to a call, side by side
// in one process (see RESULTS.md):
//   bare         the real libamdhip64 function (its address from dlsym), no encore
//   interposed   libencore-hip's export of the same function, no active context
//   noop_cb      one context with a no-op ENTER/EXIT callback on the op (record by value)
//   noop_cb_ptr  the same with encore's by-address callback form
//   arg_strings  one context whose EXIT callback formats the arguments into strings
// over two cheap HIP calls (hipGetErrorString, hipGetDeviceCount: no GPU needed), and a
// roctxRangePushA/roctxRangePop pair with no active context and with a no-op callback.
#include <encore/domains/hip.hpp>
#include <encore/domains/marker.hpp>
#include <encore/encore.hpp>
#include <roctracer/roctx.h>

#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstring>
#include <string>

namespace {

using encore::domains::hip_runtime;
using encore::domains::marker_core;

encore::context g_noop, g_noop_ptr, g_args, g_marker;
std::size_t g_arg_bytes = 0;

void noop_cb(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {}
void noop_ptr_cb(const rocprofiler_callback_tracing_record_t*, rocprofiler_user_data_t*, void*) {}
void args_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    rocprofiler_iterate_callback_tracing_kind_operation_args(
        r,
        [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const, int32_t,
           const char*, const char*, const char* value, int32_t, void*) {
            g_arg_bytes += std::strlen(value);
            return 0;
        },
        1, nullptr);
}

int init(void*) {
    constexpr auto ops = encore::ops<hip_runtime, "hipGetErrorString", "hipGetDeviceCount">();
    if (encore::context::create(g_noop) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (encore::context::create(g_args) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (encore::context::create(g_marker) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (encore::context::create(g_noop_ptr) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (g_noop_ptr.trace<hip_runtime>(&noop_ptr_cb, nullptr, ops) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (g_noop.trace<hip_runtime>(&noop_cb, nullptr, ops) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (g_args.trace<hip_runtime>(&args_cb, nullptr, ops) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (g_marker.trace<marker_core>(&noop_cb, nullptr) != ROCPROFILER_STATUS_SUCCESS) return 1;
    return 0;
}
encore::tool_registration g_reg{"bench-hip", &init};

template <class F>
F lookup(void* handle, const char* name) {
    void* p = ::dlsym(handle, name);
    F f = nullptr;
    std::memcpy(&f, &p, sizeof(f));
    return f;
}

struct fns {
    const char* (*error_string)(hipError_t);
    hipError_t (*device_count)(int*);
};
fns g_bare{}, g_interposed{};

struct setup {
    setup() {
        // The program is linked against libencore-hip (first): &::hipGetDeviceCount is encore's
        // export; the runtime's own functions come from dlsym on libamdhip64.
        void* real = ::dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
        g_bare = {lookup<const char* (*)(hipError_t)>(real, "hipGetErrorString"),
                  lookup<hipError_t (*)(int*)>(real, "hipGetDeviceCount")};
        g_interposed = {&::hipGetErrorString, &::hipGetDeviceCount};
        int n = 0;
        // First calls: encore's initialization (this benchmark's tool) and the lazy lookups.
        benchmark::DoNotOptimize(g_interposed.device_count(&n));
        benchmark::DoNotOptimize(g_interposed.error_string(hipErrorNoDevice));
        roctxRangePushA("warm-up");
        roctxRangePop();
    }
} g_setup;

void stop_all() {
    g_noop.stop();
    g_noop_ptr.stop();
    g_args.stop();
    g_marker.stop();
}

void error_string(benchmark::State& state, const fns& f) {
    hipError_t e = hipErrorNoDevice;
    for (auto _ : state) {
        benchmark::DoNotOptimize(e);
        benchmark::DoNotOptimize(f.error_string(e));
    }
}
void device_count(benchmark::State& state, const fns& f) {
    int n = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(f.device_count(&n));
        benchmark::DoNotOptimize(n);
    }
}

void hipGetErrorString_bare(benchmark::State& s) {
    stop_all();
    error_string(s, g_bare);
}
void hipGetErrorString_interposed(benchmark::State& s) {
    stop_all();
    error_string(s, g_interposed);
}
void hipGetErrorString_noop_cb(benchmark::State& s) {
    stop_all();
    g_noop.start();
    error_string(s, g_interposed);
    g_noop.stop();
}
void hipGetErrorString_noop_cb_ptr(benchmark::State& s) {
    stop_all();
    g_noop_ptr.start();
    error_string(s, g_interposed);
    g_noop_ptr.stop();
}
void hipGetErrorString_arg_strings(benchmark::State& s) {
    stop_all();
    g_args.start();
    error_string(s, g_interposed);
    g_args.stop();
}
void hipGetDeviceCount_bare(benchmark::State& s) {
    stop_all();
    device_count(s, g_bare);
}
void hipGetDeviceCount_interposed(benchmark::State& s) {
    stop_all();
    device_count(s, g_interposed);
}
void hipGetDeviceCount_noop_cb(benchmark::State& s) {
    stop_all();
    g_noop.start();
    device_count(s, g_interposed);
    g_noop.stop();
}
void hipGetDeviceCount_arg_strings(benchmark::State& s) {
    stop_all();
    g_args.start();
    device_count(s, g_interposed);
    g_args.stop();
}

void push_pop(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(roctxRangePushA("range"));
        benchmark::DoNotOptimize(roctxRangePop());
    }
}
void roctx_push_pop_no_context(benchmark::State& s) {
    stop_all();
    push_pop(s);
}
void roctx_push_pop_noop_cb(benchmark::State& s) {
    stop_all();
    g_marker.start();
    push_pop(s);
    g_marker.stop();
}

BENCHMARK(hipGetErrorString_bare);
BENCHMARK(hipGetErrorString_interposed);
BENCHMARK(hipGetErrorString_noop_cb);
BENCHMARK(hipGetErrorString_noop_cb_ptr);
BENCHMARK(hipGetErrorString_arg_strings);
BENCHMARK(hipGetDeviceCount_bare);
BENCHMARK(hipGetDeviceCount_interposed);
BENCHMARK(hipGetDeviceCount_noop_cb);
BENCHMARK(hipGetDeviceCount_arg_strings);
BENCHMARK(roctx_push_pop_no_context);
BENCHMARK(roctx_push_pop_noop_cb);

}  // namespace

BENCHMARK_MAIN();
