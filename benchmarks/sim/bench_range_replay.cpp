// Range replay's amortization on the software HSA runtime, in one run (the program is its own
// tool and loads libencore-hsa as HSA_TOOLS_LIB): K dependent dispatches (add_into,
// double_in_place alternating, on 4096 floats) with 64 MiB of covered device memory beside them,
// each iteration
//   plain/K    the K dispatches, no replay (the tool opts out)
//   kernel/K   each of the K dispatches kernel-replayed with N passes: K snapshots
//   range/K    the K dispatches as one range replayed with N passes: one start snapshot (pass 0's
//              end kept as the chunks that differ from it), N-1 re-executions of all K
//   range_copies/K  the same range with a host-to-device copy (hsa_memory_copy of x's 16 KiB) and
//              a fill (hsa_amd_memory_fill of y) before each dispatch: 3K entries re-issued per pass
// for K = 1, 2, 4, 8 and N = 5. benchmarks/RESULTS.md has the figures, the ratio kernel/range per
// K, and the command.
#include <benchmark/benchmark.h>

#include "../../examples/hsa/hsa_example.hpp"

#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/experimental/range_replay.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr std::uint64_t passes = 5;
constexpr std::uint32_t n = 4096;
constexpr std::size_t ballast_bytes = 64ull << 20;

// ---- the tool -----------------------------------------------------------------------------------
bool g_kernel = false, g_range = false;  // which replay the next dispatches / ranges get
std::uint64_t g_snapshots = 0, g_snapshot_bytes = 0, g_declined = 0;

std::uint64_t kernel_passes(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return passes; }
std::uint64_t range_passes(std::uint64_t, rocprofiler_user_data_t) { return passes; }

void on_kernel(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER && g_kernel)
        p->replay_pass_count = &kernel_passes;
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_SNAPSHOT && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        ++g_snapshots;
        g_snapshot_bytes += p->bytes;
    }
}

void on_range(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_range_replay_data_t*>(r.payload);
    if (r.operation == ROCPROFILER_RANGE_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER && g_range)
        p->pass_count_cb = &range_passes;
    if (r.operation == ROCPROFILER_RANGE_REPLAY_CLOSE && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        if (p->status != ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED) ++g_declined;
        ++g_snapshots;  // the range's start (pass 0's end is kept as a compare's differing chunks)
        g_snapshot_bytes += p->snapshot_bytes;
    }
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                       &on_kernel, nullptr) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY, nullptr, 0,
                                                       &on_range, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

// ---- the program --------------------------------------------------------------------------------
struct pair_args {
    float* x;
    float* y;
    std::uint32_t n;
};

// Set up with the examples' helpers (examples/hsa/hsa_example.hpp: agents, pools, code object,
// packets), which exit with a message when the runtime refuses a step.
struct Env {
    hsa_agent_t gpu{}, cpu{};
    example::CodeObject* co = nullptr;  // kept for the process (the benchmarks share it)
    std::uint64_t k_add = 0, k_double = 0;
    hsa_queue_t* queue = nullptr;
    hsa_signal_t done{};
    pair_args* args = nullptr;
    float *x = nullptr, *y = nullptr;
    std::vector<float> ones = std::vector<float>(n, 1.0f);  // range_copies: x's bytes, y's fill word
    std::uint32_t one_word = 0x3f800000u;                   // 1.0f
    bool ok = false;

    Env() {
        if (hsa_init() != HSA_STATUS_SUCCESS) return;
        gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        co = new example::CodeObject(ENCORE_RANGE_BENCH_CO, gpu);
        k_add = co->kernel("add_into", gpu);
        k_double = co->kernel("double_in_place", gpu);
        HSA_CHECK(hsa_queue_create(gpu, 256, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &queue));
        HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
        args = static_cast<pair_args*>(example::alloc_kernarg(cpu, gpu, sizeof(pair_args)));
        x = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
        y = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
        auto* ballast = static_cast<unsigned char*>(example::alloc_device(gpu, ballast_bytes));
        std::memset(ballast, 1, ballast_bytes);  // its pages exist (sim memory is host memory)
        for (std::uint32_t i = 0; i < n; ++i) x[i] = y[i] = 1.0f;
        ok = true;
    }

    void dispatch(std::uint64_t kernel) {
        *args = pair_args{x, y, n};
        hsa_signal_store_screlease(done, 1);
        example::dispatch_1d(queue, kernel, args, n, 64, done);
        example::wait_done(done);
    }

    void phase(std::int64_t k, bool copies = false) {
        for (std::int64_t i = 0; i < k; ++i) {
            if (copies) {
                HSA_CHECK(hsa_memory_copy(x, ones.data(), n * sizeof(float)));
                HSA_CHECK(hsa_amd_memory_fill(y, one_word, n));
            }
            dispatch(i % 2 == 0 ? k_add : k_double);
        }
    }
};

Env& env() {
    static Env e;
    return e;
}

void finish(benchmark::State& state) {
    const double it = static_cast<double>(state.iterations());
    state.counters["snapshots"] = static_cast<double>(g_snapshots) / it;
    state.counters["snapshot_MiB"] = static_cast<double>(g_snapshot_bytes) / it / (1 << 20);
    if (g_declined != 0) state.SkipWithError("a range was declined");
    g_kernel = g_range = false;
    g_snapshots = g_snapshot_bytes = g_declined = 0;
}

void BM_plain(benchmark::State& state) {
    auto& e = env();
    if (!e.ok) return state.SkipWithError("HSA setup failed");
    for (auto _ : state) e.phase(state.range(0));
    finish(state);
}

void BM_kernel(benchmark::State& state) {
    auto& e = env();
    if (!e.ok) return state.SkipWithError("HSA setup failed");
    g_kernel = true;
    for (auto _ : state) e.phase(state.range(0));
    finish(state);
}

void range_of(benchmark::State& state, bool copies) {
    auto& e = env();
    if (!e.ok) return state.SkipWithError("HSA setup failed");
    g_range = true;
    std::uint64_t id = 0;
    for (auto _ : state) {
        if (rocprofiler_range_replay_begin(++id) != ROCPROFILER_STATUS_SUCCESS) return state.SkipWithError("begin");
        e.phase(state.range(0), copies);
        if (rocprofiler_range_replay_end() != ROCPROFILER_STATUS_SUCCESS) return state.SkipWithError("end");
    }
    finish(state);
}
void BM_range(benchmark::State& state) { range_of(state, false); }
void BM_range_copies(benchmark::State& state) { range_of(state, true); }

// Side by side per K: plain, kernel, range.
void args(benchmark::internal::Benchmark* b) {
    b->ArgName("K")->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseRealTime()->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_plain)->Apply(args);
BENCHMARK(BM_kernel)->Apply(args);
BENCHMARK(BM_range)->Apply(args);
BENCHMARK(BM_range_copies)->Apply(args);

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t*) {
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}

int main(int argc, char** argv) {
    // The software runtime loads the tools library named here at hsa_init.
    setenv("HSA_TOOLS_LIB", ENCORE_HSA_TOOLS_LIB, 0);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
