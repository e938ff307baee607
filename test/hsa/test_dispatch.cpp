// test/hsa/test_dispatch.cpp — KERNEL_DISPATCH tracing end to end on the software HSA runtime.
//
// This program is its own tool (it exports rocprofiler_configure) and runs with
// HSA_TOOLS_LIB=libencore-hsa.so and two GPU agents. Four threads on two queues of two agents
// submit vector-add dispatches, each with its own completion signal. Checks: every dispatch is
// reported exactly once (ENQUEUE enter+exit on the submitting thread, then COMPLETE), dispatch
// ids are unique, timestamps are sane and inside the enqueue -> completion window, the ENQUEUE
// user_data reaches COMPLETE, an external correlation id pushed by the tool is on the records,
// the program's completion signals still fire, each after its dispatch's COMPLETE, and its
// results are unchanged; a barrier-bit packet behind a traced dispatch starts only after that
// dispatch's program signal fired (AQL ordering, kept although encore fires the signal itself);
// the program's signal answers hsa_amd_profiling_get_dispatch_time with its kernel's times.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

using test_support::expect;

using Args = example::VectorAddArgs;

struct dispatch_seen {
    int enqueue_enter = 0, enqueue_exit = 0, complete = 0;
    std::uint64_t enqueue_tid = 0, enqueue_ts = 0, start = 0, end = 0, queue = 0, agent = 0;
    std::uint64_t user_data_at_complete = 0, external = 0, internal_enter = 0, internal_complete = 0;
    std::uint32_t grid = 0, wg = 0;
};

std::mutex g_mutex;
std::map<std::uint64_t, dispatch_seen> g_seen;  // by dispatch id
std::atomic<int> g_completes{0};                // COMPLETE records so far, all dispatches
std::atomic<bool> g_slow_complete{false};       // COMPLETE callbacks take a while (ordering check)
rocprofiler_context_id_t g_ctx{};


void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    rocprofiler_timestamp_t now = 0;
    rocprofiler_get_timestamp(&now);
    std::lock_guard lk(g_mutex);
    auto& s = g_seen[p->dispatch_info.dispatch_id];
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ++s.enqueue_enter;
        s.enqueue_tid = r.thread_id;
        s.enqueue_ts = now;
        s.queue = p->dispatch_info.queue_id.handle;
        s.agent = p->dispatch_info.agent_id.handle;
        s.grid = p->dispatch_info.grid_size.x;
        s.wg = p->dispatch_info.workgroup_size.x;
        s.external = r.correlation_id.external.value;
        s.internal_enter = r.correlation_id.internal;
        ud->value = 1000 + p->dispatch_info.dispatch_id;
    } else if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        ++s.enqueue_exit;
    } else if (r.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) {
        ++s.complete;
        s.start = p->start_timestamp;
        s.end = p->end_timestamp;
        s.user_data_at_complete = ud->value;
        s.internal_complete = r.correlation_id.internal;
        expect(p->end_timestamp <= now, "COMPLETE arrives after the dispatch ended");
        g_completes.fetch_add(1);
        // A slow tool: whatever does not wait for COMPLETE runs ahead of it meanwhile.
        if (g_slow_complete.load()) std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (rocprofiler_create_context(&g_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                       &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

}  // namespace

ENCORE_TEST_TOOL("test-dispatch", &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    constexpr int threads_per_queue = 2, per_thread = 50, ordered_rounds = 50;
    constexpr uint32_t n = 4096;
    HSA_CHECK(hsa_init());
    int kind_configured = 0;
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        auto gpus = example::agents(HSA_DEVICE_TYPE_GPU);
        expect(gpus.size() == 2, "two GPU agents (ENCORE_SIM_GPU_AGENTS=2)");
        std::vector<std::thread> pool;
        std::atomic<int> wrong{0};
        // Each waited-for signal fired after its COMPLETE, so there are never fewer COMPLETE
        // records than signals seen fired.
        std::atomic<int> fired{0}, fired_early{0}, untimed{0};
        std::vector<std::unique_ptr<example::CodeObject>> cos;
        std::vector<hsa_queue_t*> queues;
        for (auto gpu : gpus) {
            cos.push_back(std::make_unique<example::CodeObject>(argv[1], gpu));
            hsa_queue_t* q = nullptr;
            HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q));
            HSA_CHECK(hsa_amd_profiling_set_profiler_enabled(q, 1));  // as HIP does to time its kernels
            queues.push_back(q);
        }
        for (std::size_t g = 0; g < gpus.size(); ++g)
            for (int t = 0; t < threads_per_queue; ++t)
                pool.emplace_back([&, g, t] {
                    const hsa_agent_t gpu = gpus[g];
                    const uint64_t kernel = cos[g]->kernel("vector_add", gpu);
                    rocprofiler_thread_id_t tid = 0;
                    rocprofiler_get_thread_id(&tid);
                    // The tool's external id for this thread shows on its dispatches.
                    rocprofiler_push_external_correlation_id(g_ctx, tid,
                                                             {.value = 500 + g * 10 + static_cast<unsigned>(t)});
                    auto* a = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
                    auto* b = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
                    auto* c = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
                    auto* args = static_cast<Args*>(example::alloc_kernarg(cpu, gpu, sizeof(Args)));
                    for (int i = 0; i < per_thread; ++i) {
                        for (uint32_t j = 0; j < n; ++j) {
                            a[j] = static_cast<float>(j + static_cast<uint32_t>(i));
                            b[j] = 1.0f;
                            c[j] = 0.0f;
                        }
                        *args = {a, b, c, n};
                        hsa_signal_t done{};
                        HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
                        example::dispatch_1d(queues[g], kernel, args, n, 64, done);
                        example::wait_done(done);  // the program's own signal still fires
                        if (fired.fetch_add(1) + 1 > g_completes.load()) ++fired_early;
                        // The kernel's times through the program's own signal (encore fired it).
                        hsa_amd_profiling_dispatch_time_t t{};
                        if (hsa_amd_profiling_get_dispatch_time(gpu, done, &t) != HSA_STATUS_SUCCESS || t.start == 0 ||
                            t.start > t.end)
                            ++untimed;
                        HSA_CHECK(hsa_signal_destroy(done));
                        for (uint32_t j = 0; j < n; ++j)
                            if (c[j] != static_cast<float>(j + static_cast<uint32_t>(i)) + 1.0f) ++wrong;
                    }
                    g_slow_complete = false;
                    rocprofiler_pop_external_correlation_id(g_ctx, tid, nullptr);
                    hsa_amd_memory_pool_free(a);
                    hsa_amd_memory_pool_free(b);
                    hsa_amd_memory_pool_free(c);
                    hsa_amd_memory_pool_free(args);
                });
        for (auto& th : pool) th.join();
        expect(wrong.load() == 0, "results are unchanged by tracing");
        expect(fired_early.load() == 0, "a program's signal fires after its dispatch's COMPLETE");
        expect(untimed.load() == 0,
               "hsa_amd_profiling_get_dispatch_time on the program's signal gives the kernel's times");
        // A dispatch with a signal, then the program's barrier-AND packet with the barrier bit and
        // its own signal: when the barrier's signal fires, the dispatch's signal has fired too.
        int ordering_broken = 0;
        {
            const hsa_agent_t gpu = gpus[0];
            const uint64_t kernel = cos[0]->kernel("vector_add", gpu);
            auto* a = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
            auto* c = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
            auto* args = static_cast<Args*>(example::alloc_kernarg(cpu, gpu, sizeof(Args)));
            *args = {a, a, c, n};
            rocprofiler_thread_id_t tid = 0;
            rocprofiler_get_thread_id(&tid);
            rocprofiler_push_external_correlation_id(g_ctx, tid, {.value = 500});
            hsa_signal_t s1{}, s2{};
            HSA_CHECK(hsa_signal_create(1, 0, nullptr, &s1));
            HSA_CHECK(hsa_signal_create(1, 0, nullptr, &s2));
            g_slow_complete = true;
            for (int i = 0; i < ordered_rounds; ++i) {
                hsa_signal_store_relaxed(s1, 1);
                hsa_signal_store_relaxed(s2, 1);
                example::dispatch_1d(queues[0], kernel, args, n, 64, s1);
                example::barrier_and(queues[0], s2);
                example::wait_done(s2);
                ordering_broken += hsa_signal_load_scacquire(s1) != 0;
                example::wait_done(s1);
            }
            g_slow_complete = false;
            rocprofiler_pop_external_correlation_id(g_ctx, tid, nullptr);
            HSA_CHECK(hsa_signal_destroy(s1));
            HSA_CHECK(hsa_signal_destroy(s2));
            hsa_amd_memory_pool_free(a);
            hsa_amd_memory_pool_free(c);
            hsa_amd_memory_pool_free(args);
        }
        expect(ordering_broken == 0, "a barrier-bit packet completes after the traced dispatch before it signalled");
        // COMPLETE runs on the runtime's handler thread: give the last ones a moment.
        for (int spin = 0; spin < 2000; ++spin) {
            std::size_t done = 0;
            {
                std::lock_guard lk(g_mutex);
                for (auto& [id, s] : g_seen) done += s.complete;
            }
            if (done >= gpus.size() * threads_per_queue * per_thread + ordered_rounds) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        for (auto* q : queues) HSA_CHECK(hsa_queue_destroy(q));
        kind_configured = 1;
    }
    HSA_CHECK(hsa_shut_down());

    std::lock_guard lk(g_mutex);
    const std::size_t expected = 2u * threads_per_queue * per_thread + ordered_rounds;
    expect(kind_configured == 1, "ran");
    expect(g_seen.size() == expected, "every dispatch reported, once (unique dispatch ids)");
    std::set<std::uint64_t> queues_seen, agents_seen, externals;
    int bad_counts = 0, bad_times = 0, bad_user_data = 0, bad_shape = 0, bad_corr = 0;
    for (auto& [id, s] : g_seen) {
        bad_counts += !(s.enqueue_enter == 1 && s.enqueue_exit == 1 && s.complete == 1);
        bad_times += !(s.start != 0 && s.start <= s.end && s.enqueue_ts <= s.start);
        bad_user_data += s.user_data_at_complete != 1000 + id;
        bad_shape += !(s.grid == n && s.wg == 64);
        bad_corr += !(s.internal_enter != 0 && s.internal_enter == s.internal_complete);
        queues_seen.insert(s.queue);
        agents_seen.insert(s.agent);
        externals.insert(s.external);
    }
    expect(bad_counts == 0, "ENQUEUE enter, ENQUEUE exit and COMPLETE exactly once per dispatch");
    expect(bad_times == 0, "0 < enqueue <= start <= end for every dispatch");
    expect(bad_user_data == 0, "the ENQUEUE user_data reaches COMPLETE");
    expect(bad_shape == 0, "grid and workgroup sizes in the dispatch info");
    expect(bad_corr == 0, "COMPLETE carries the ENQUEUE correlation id");
    expect(queues_seen.size() == 2 && agents_seen.size() == 2, "two queues on two agents");
    expect(externals == std::set<std::uint64_t>{500, 501, 510, 511}, "each thread's external id on its dispatches");
    return test_support::finish();
}
