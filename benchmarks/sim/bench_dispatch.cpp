// encore-sim dispatch benchmarks: empty-kernel dispatch throughput and submit-to-completion
// latency on one and two queues (two queues are fed by two host threads).
#include <benchmark/benchmark.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#pragma GCC diagnostic pop

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#ifndef ENCORE_SIM_BENCH_CO
#    define ENCORE_SIM_BENCH_CO "bench_sim_kernels.so"
#endif

namespace {

struct Env {
    hsa_agent_t gpu{};
    hsa_executable_t exe{};
    hsa_code_object_reader_t reader{};
    int fd = -1;
    uint64_t kernel = 0;
    std::vector<hsa_queue_t*> queues;
    bool ok = false;

    Env() {
        if (hsa_init() != HSA_STATUS_SUCCESS) return;
        hsa_iterate_agents(
            [](hsa_agent_t a, void* d) {
                hsa_device_type_t t;
                hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t);
                if (t == HSA_DEVICE_TYPE_GPU) {
                    *static_cast<hsa_agent_t*>(d) = a;
                    return HSA_STATUS_INFO_BREAK;
                }
                return HSA_STATUS_SUCCESS;
            },
            &gpu);
        const char* path = getenv("ENCORE_SIM_BENCH_CO");
        fd = open(path ? path : ENCORE_SIM_BENCH_CO, O_RDONLY);
        if (fd < 0) return;
        if (hsa_code_object_reader_create_from_file(fd, &reader) != HSA_STATUS_SUCCESS) return;
        hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe);
        if (hsa_executable_load_agent_code_object(exe, gpu, reader, nullptr, nullptr) != HSA_STATUS_SUCCESS) return;
        hsa_executable_freeze(exe, nullptr);
        hsa_executable_symbol_t sym{};
        if (hsa_executable_get_symbol_by_name(exe, "empty.kd", &gpu, &sym) != HSA_STATUS_SUCCESS) return;
        hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel);
        for (int i = 0; i < 2; ++i) {
            hsa_queue_t* q = nullptr;
            if (hsa_queue_create(gpu, 1024, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &q) != HSA_STATUS_SUCCESS)
                return;
            queues.push_back(q);
        }
        ok = true;
    }
    ~Env() {
        for (auto* q : queues) hsa_queue_destroy(q);
        if (exe.handle) hsa_executable_destroy(exe);
        if (reader.handle) hsa_code_object_reader_destroy(reader);
        if (fd >= 0) close(fd);
        hsa_shut_down();
    }
};

Env& env() {
    static Env e;
    return e;
}

void submit_empty(hsa_queue_t* q, uint64_t kernel, hsa_signal_t completion) {
    const uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
    while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size) std::this_thread::yield();
    auto* p = static_cast<hsa_kernel_dispatch_packet_t*>(q->base_address) + (idx & (q->size - 1));
    p->workgroup_size_x = 64;
    p->workgroup_size_y = 1;
    p->workgroup_size_z = 1;
    p->grid_size_x = 64;
    p->grid_size_y = 1;
    p->grid_size_z = 1;
    p->private_segment_size = 0;
    p->group_segment_size = 0;
    p->kernel_object = kernel;
    p->kernarg_address = nullptr;
    p->completion_signal = completion;
    const uint32_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    const uint32_t setup = 1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    __atomic_store_n(reinterpret_cast<uint32_t*>(p), header | (setup << 16), __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, static_cast<hsa_signal_value_t>(idx));
}

void wait_zero(hsa_signal_t s) {
    while (hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0) {
    }
}

// Throughput: each thread (one per queue) submits `batch` empty dispatches, then waits.
void BM_EmptyDispatchThroughput(benchmark::State& state) {
    Env& e = env();
    if (!e.ok) {
        state.SkipWithError("encore-sim environment failed to initialize");
        return;
    }
    const int nqueues = static_cast<int>(state.range(0));
    const int batch = 256;
    hsa_signal_t done{};
    hsa_signal_create(0, 0, nullptr, &done);
    for (auto _ : state) {
        hsa_signal_store_relaxed(done, batch * nqueues);
        std::vector<std::thread> threads;
        for (int q = 1; q < nqueues; ++q)
            threads.emplace_back([&, q] {
                for (int i = 0; i < batch; ++i) submit_empty(e.queues[q], e.kernel, done);
            });
        for (int i = 0; i < batch; ++i) submit_empty(e.queues[0], e.kernel, done);
        for (auto& t : threads) t.join();
        wait_zero(done);
    }
    state.SetItemsProcessed(state.iterations() * batch * nqueues);
    state.counters["dispatches/s"] = benchmark::Counter(static_cast<double>(state.iterations() * batch * nqueues),
                                                        benchmark::Counter::kIsRate);
    hsa_signal_destroy(done);
}
BENCHMARK(BM_EmptyDispatchThroughput)->Arg(1)->Arg(2)->UseRealTime();

// Latency: submit one empty dispatch per queue and wait for its completion signal.
void BM_SubmitToCompletionLatency(benchmark::State& state) {
    Env& e = env();
    if (!e.ok) {
        state.SkipWithError("encore-sim environment failed to initialize");
        return;
    }
    const int nqueues = static_cast<int>(state.range(0));
    std::vector<hsa_signal_t> done(static_cast<size_t>(nqueues));
    for (auto& s : done) hsa_signal_create(1, 0, nullptr, &s);
    for (auto _ : state) {
        for (int q = 0; q < nqueues; ++q) {
            hsa_signal_store_relaxed(done[q], 1);
            submit_empty(e.queues[q], e.kernel, done[q]);
        }
        for (int q = 0; q < nqueues; ++q) wait_zero(done[q]);
    }
    state.SetItemsProcessed(state.iterations() * nqueues);
    for (auto& s : done) hsa_signal_destroy(s);
}
BENCHMARK(BM_SubmitToCompletionLatency)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
