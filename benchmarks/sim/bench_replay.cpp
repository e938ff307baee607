// Kernel replay costs on the software HSA runtime, in one run (the program is its own tool and
// loads libencore-hsa as HSA_TOOLS_LIB):
//   ordinary          an empty-kernel dispatch + wait with the replay service present (opt-out)
//   replay/2          the same dispatch replayed with 2 passes (4 KiB footprint):
//                     fixed cost per replayed dispatch = replay/2 - 2 x ordinary
//   memcpy            this machine's memcpy bandwidth, 1 GiB
//   restore/*         one dispatch of a kernel writing 1% of a 1 GiB device buffer, replayed
//                     with 2 passes; counters from the tool's records: restore time and bytes,
//                     the time of both passes (write tracking's page faults land there), and the
//                     snapshots: the first (the whole footprint) and the later ones' time and
//                     bytes copied (incremental under changed_chunks with userfaultfd)
// benchmarks/RESULTS.md has the figures and the command.
#include <benchmark/benchmark.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#pragma GCC diagnostic pop

#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::uint64_t now_ns() {
    timespec t{};
    clock_gettime(CLOCK_BOOTTIME, &t);
    return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(t.tv_nsec);
}

// ---- the tool -----------------------------------------------------------------------------------
std::uint64_t g_passes = 0;  // 0: opt out
struct totals {
    std::uint64_t restore_ns = 0, restore_bytes = 0, restores = 0, pass_ns = 0, pass_enter = 0;
    // snapshots: the first of a run, and the later ones (incremental where write tracking keeps them)
    std::uint64_t first_snapshot_ns = 0, snapshot_ns = 0, snapshot_copied = 0, snapshots = 0;
} g_t;

std::uint64_t pass_count(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return g_passes; }

void on_replay(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        if (g_passes != 0) p->replay_pass_count = &pass_count;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS) {
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
            g_t.pass_enter = now_ns();
        else
            g_t.pass_ns += now_ns() - g_t.pass_enter;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_SNAPSHOT && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        if (g_t.snapshots++ == 0) {
            g_t.first_snapshot_ns = p->end_timestamp - p->start_timestamp;
        } else {
            g_t.snapshot_ns += p->end_timestamp - p->start_timestamp;
            g_t.snapshot_copied += p->bytes_copied;
        }
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_RESTORE && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        g_t.restore_ns += p->end_timestamp - p->start_timestamp;
        g_t.restore_bytes += p->bytes;
        ++g_t.restores;
    }
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                       &on_replay, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

// ---- the program --------------------------------------------------------------------------------
struct touch_args {
    unsigned char* base;
    std::uint64_t stride, block, count;
    std::uint32_t value;
};

struct Env {
    hsa_agent_t gpu{}, cpu{};
    hsa_amd_memory_pool_t device_pool{}, kernarg_pool{};
    hsa_executable_t exe{};
    hsa_code_object_reader_t reader{};
    std::uint64_t k_empty = 0, k_touch = 0;
    hsa_queue_t* queue = nullptr;
    hsa_signal_t done{};
    touch_args* args = nullptr;
    bool ok = false;

    static hsa_status_t pick_pool(hsa_amd_memory_pool_t p, void* d) {
        auto* want = static_cast<std::pair<std::uint32_t, hsa_amd_memory_pool_t>*>(d);
        std::uint32_t flags = 0;
        hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
        if ((flags & want->first) != 0) {
            want->second = p;
            return HSA_STATUS_INFO_BREAK;
        }
        return HSA_STATUS_SUCCESS;
    }

    Env() {
        if (hsa_init() != HSA_STATUS_SUCCESS) return;
        hsa_iterate_agents(
            [](hsa_agent_t a, void* d) {
                auto* e = static_cast<Env*>(d);
                hsa_device_type_t t;
                hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t);
                if (t == HSA_DEVICE_TYPE_GPU && e->gpu.handle == 0) e->gpu = a;
                if (t == HSA_DEVICE_TYPE_CPU && e->cpu.handle == 0) e->cpu = a;
                return HSA_STATUS_SUCCESS;
            },
            this);
        std::pair<std::uint32_t, hsa_amd_memory_pool_t> want{HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, {}};
        hsa_amd_agent_iterate_memory_pools(gpu, &pick_pool, &want);
        device_pool = want.second;
        want = {HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT, {}};
        hsa_amd_agent_iterate_memory_pools(cpu, &pick_pool, &want);
        kernarg_pool = want.second;
        const int fd = open(ENCORE_SIM_BENCH_CO, O_RDONLY);
        if (fd < 0 || hsa_code_object_reader_create_from_file(fd, &reader) != HSA_STATUS_SUCCESS) return;
        hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe);
        if (hsa_executable_load_agent_code_object(exe, gpu, reader, nullptr, nullptr) != HSA_STATUS_SUCCESS) return;
        hsa_executable_freeze(exe, nullptr);
        for (auto [name, out] : {std::pair{"empty.kd", &k_empty}, std::pair{"touch.kd", &k_touch}}) {
            hsa_executable_symbol_t sym{};
            if (hsa_executable_get_symbol_by_name(exe, name, &gpu, &sym) != HSA_STATUS_SUCCESS) return;
            hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, out);
        }
        if (hsa_queue_create(gpu, 256, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &queue) != HSA_STATUS_SUCCESS)
            return;
        hsa_signal_create(1, 0, nullptr, &done);
        void* a = nullptr;
        if (hsa_amd_memory_pool_allocate(kernarg_pool, sizeof(touch_args), 0, &a) != HSA_STATUS_SUCCESS) return;
        args = static_cast<touch_args*>(a);
        hsa_amd_agents_allow_access(1, &gpu, nullptr, args);
        ok = true;
    }

    void dispatch(std::uint64_t kernel, std::uint32_t grid, void* kernarg) {
        hsa_signal_store_screlease(done, 1);
        const std::uint64_t idx = hsa_queue_add_write_index_screlease(queue, 1);
        auto* p = static_cast<hsa_kernel_dispatch_packet_t*>(queue->base_address) + (idx & (queue->size - 1));
        std::memset(reinterpret_cast<char*>(p) + 4, 0, sizeof(*p) - 4);
        p->workgroup_size_x = 64;
        p->workgroup_size_y = p->workgroup_size_z = 1;
        p->grid_size_x = grid;
        p->grid_size_y = p->grid_size_z = 1;
        p->kernel_object = kernel;
        p->kernarg_address = kernarg;
        p->completion_signal = done;
        const std::uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                                     (1 << HSA_PACKET_HEADER_BARRIER) |
                                     (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                                     (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
        const std::uint16_t setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
        __atomic_store_n(reinterpret_cast<std::uint32_t*>(p), header | (static_cast<std::uint32_t>(setup) << 16),
                         __ATOMIC_RELEASE);
        hsa_signal_store_screlease(queue->doorbell_signal, static_cast<hsa_signal_value_t>(idx));
        while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) >= 1) {
        }
    }

    void* alloc_device(std::size_t n) {
        void* p = nullptr;
        if (hsa_amd_memory_pool_allocate(device_pool, n, 0, &p) != HSA_STATUS_SUCCESS) return nullptr;
        return p;
    }
};

Env& env() {
    static Env e;
    return e;
}

void BM_ordinary(benchmark::State& state) {
    auto& e = env();
    if (!e.ok) return state.SkipWithError("HSA setup failed");
    void* small = e.alloc_device(4096);
    g_passes = 0;
    for (auto _ : state) e.dispatch(e.k_empty, 64, nullptr);
    hsa_amd_memory_pool_free(small);
}
BENCHMARK(BM_ordinary)->UseRealTime();

void BM_replay(benchmark::State& state) {
    auto& e = env();
    if (!e.ok) return state.SkipWithError("HSA setup failed");
    void* small = e.alloc_device(4096);
    g_passes = static_cast<std::uint64_t>(state.range(0));
    for (auto _ : state) e.dispatch(e.k_empty, 64, nullptr);
    g_passes = 0;
    hsa_amd_memory_pool_free(small);
}
BENCHMARK(BM_replay)->Arg(2)->Arg(4)->UseRealTime();

constexpr std::size_t footprint = 1ull << 30;

void BM_memcpy(benchmark::State& state) {
    std::vector<char> a(footprint, 1), b(footprint, 2);
    for (auto _ : state) {
        std::memcpy(b.data(), a.data(), footprint);
        benchmark::DoNotOptimize(b.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * footprint));
}
BENCHMARK(BM_memcpy)->Iterations(5)->UseRealTime();

// policy: 0 full_copy, 1 changed_chunks; pattern: 0 contiguous 1%, 1 scattered 1% (one page
// every 100 pages), 2 contiguous 25%; chunk size in KiB
void BM_restore(benchmark::State& state) {
    auto& e = env();
    if (!e.ok) return state.SkipWithError("HSA setup failed");
    setenv("ENCORE_REPLAY_POLICY", state.range(0) == 0 ? "full_copy" : "changed_chunks", 1);
    setenv("ENCORE_REPLAY_CHUNK_SIZE", std::to_string(state.range(2) * 1024).c_str(), 1);
    auto* buf = static_cast<unsigned char*>(e.alloc_device(footprint));
    if (buf == nullptr) return state.SkipWithError("cannot allocate 1 GiB");
    std::memset(buf, 0, footprint);  // pages exist before the first snapshot (sim memory is host memory)
    const std::uint64_t page = 4096, pages = footprint / page;
    const std::uint64_t count = state.range(1) == 2 ? pages / 4 : pages / 100;
    *e.args = touch_args{buf, state.range(1) == 1 ? 100 * page : page, page, count, 7};
    g_passes = 2;
    g_t = {};
    for (auto _ : state) e.dispatch(e.k_touch, static_cast<std::uint32_t>((count + 63) / 64 * 64), e.args);
    g_passes = 0;
    const double n = static_cast<double>(g_t.restores);
    state.counters["restore_ms"] = n > 0 ? static_cast<double>(g_t.restore_ns) / n / 1e6 : 0;
    state.counters["restored_MiB"] = n > 0 ? static_cast<double>(g_t.restore_bytes) / n / (1 << 20) : 0;
    state.counters["restore_GBps"] = g_t.restore_ns > 0
                                         ? static_cast<double>(g_t.restore_bytes) / static_cast<double>(g_t.restore_ns)
                                         : 0;
    state.counters["passes_ms"] = static_cast<double>(g_t.pass_ns) / static_cast<double>(state.iterations()) / 1e6;
    // The first snapshot copies the whole footprint; later ones (changed_chunks) only what was
    // written since the last (userfaultfd), or the whole again (full_copy, the SIGSEGV path).
    const double later = g_t.snapshots > 1 ? static_cast<double>(g_t.snapshots - 1) : 0;
    state.counters["snap_first_ms"] = static_cast<double>(g_t.first_snapshot_ns) / 1e6;
    state.counters["snap_ms"] = later > 0 ? static_cast<double>(g_t.snapshot_ns) / later / 1e6 : 0;
    state.counters["snap_MiB"] = later > 0 ? static_cast<double>(g_t.snapshot_copied) / later / (1 << 20) : 0;
    hsa_amd_memory_pool_free(buf);
    unsetenv("ENCORE_REPLAY_POLICY");
    unsetenv("ENCORE_REPLAY_CHUNK_SIZE");
}
BENCHMARK(BM_restore)
    ->ArgNames({"changed_chunks", "scattered", "chunk_kib"})
    ->Args({0, 0, 64})
    ->Args({1, 0, 4})
    ->Args({1, 0, 64})
    ->Args({1, 0, 256})
    ->Args({1, 1, 4})
    ->Args({1, 1, 64})
    ->Args({1, 1, 256})
    ->Args({0, 2, 64})
    ->Args({1, 2, 4})
    ->Args({1, 2, 64})
    ->Iterations(5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

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
