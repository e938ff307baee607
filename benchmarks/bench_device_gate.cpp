// benchmarks/bench_device_gate.cpp — a submission's cost on the replay gate, side by side (issue 39
// item 2: a lookup on the launch path must not take a lock):
//   table_*        the kit's gate (src/backend/device_gate.cpp): device_gate::of(key), the lookup
//                  of an append-only table without a lock, then the gate's lock shared and
//                  released (a launch's work_hold / shared_hold)
//   map_mutex_*    the design libencore-cuda had before (src/cuda/gate.cpp until issue 39): a
//                  std::map from context to gate behind one std::mutex taken on every lookup, then
//                  the same shared lock and release; reproduced here as a baseline
//   *_one_device   every thread submits to the same device (one GPU)
//   *_own_device   each thread submits to a device of its own (one GPU per thread)
// Both tables hold 8 devices. Time is real time per submission of one thread (with N threads, each
// thread's view: on a machine with fewer cores than N the threads share cores); items_per_second
// is the aggregate. See RESULTS.md.
#include "backend/device_gate.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>

namespace {

using encore::backend::device_gate;

constexpr std::uint64_t devices = 8;
constexpr std::uint64_t first_key = 0x7f0000001000;  // pointer-like keys, as a context or agent handle is

// ---- the old design, as libencore-cuda had it --------------------------------------------------

struct map_gate {
    std::shared_mutex lock;
};
std::mutex g_map_mutex;
auto* g_map = new std::map<std::uint64_t, std::unique_ptr<map_gate>>;  // never destroyed (nor any gate)

map_gate& map_gate_of(std::uint64_t key) {
    std::lock_guard lk(g_map_mutex);
    auto& g = (*g_map)[key];
    if (!g) g = std::make_unique<map_gate>();
    return *g;
}

[[maybe_unused]] const bool registered = [] {
    for (std::uint64_t d = 0; d < devices; ++d) {
        (void)device_gate::of(first_key + d * 0x1000);
        (void)map_gate_of(first_key + d * 0x1000);
    }
    return true;
}();

std::uint64_t key_for(const benchmark::State& state, bool own) {
    // The last device registered when all share one: the table's longest scan.
    return first_key + (own ? static_cast<std::uint64_t>(state.thread_index()) % devices : devices - 1) * 0x1000;
}

// ---- one submission's hold ----------------------------------------------------------------------

void table(benchmark::State& state, bool own) {
    const std::uint64_t key = key_for(state, own);
    for (auto _ : state) {
        device_gate& g = device_gate::of(key);
        g.lock_shared();
        benchmark::ClobberMemory();  // the submission
        g.unlock_shared();
    }
    state.SetItemsProcessed(state.iterations());
}

void map_mutex(benchmark::State& state, bool own) {
    const std::uint64_t key = key_for(state, own);
    for (auto _ : state) {
        map_gate& g = map_gate_of(key);
        g.lock.lock_shared();
        benchmark::ClobberMemory();
        g.lock.unlock_shared();
    }
    state.SetItemsProcessed(state.iterations());
}

void table_one_device(benchmark::State& state) { table(state, false); }
void table_own_device(benchmark::State& state) { table(state, true); }
void map_mutex_one_device(benchmark::State& state) { map_mutex(state, false); }
void map_mutex_own_device(benchmark::State& state) { map_mutex(state, true); }

}  // namespace

BENCHMARK(table_one_device)->Threads(1)->Threads(4)->UseRealTime();
BENCHMARK(map_mutex_one_device)->Threads(1)->Threads(4)->UseRealTime();
BENCHMARK(table_own_device)->Threads(1)->Threads(4)->UseRealTime();
BENCHMARK(map_mutex_own_device)->Threads(1)->Threads(4)->UseRealTime();

BENCHMARK_MAIN();
