// test/hsa/test_dispatch_toggle.cpp — a context started and stopped while dispatches are
// submitted (issue 17, item 10), on the software runtime.
//
// Context T traces KERNEL_DISPATCH (both operations); a second thread starts and stops it as
// fast as it can while the main thread submits small dispatches. Whatever the timing, a dispatch's
// records come as a pair: ENQUEUE and COMPLETE, or neither. The ENQUEUE and COMPLETE subscriber
// masks used to be loaded separately, so a start or stop between the two loads gave a
// COMPLETE without its ENQUEUE (user_data 0) or an ENQUEUE without a COMPLETE: before the fix,
// 2 of 6 runs of 6000 dispatches had one.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

namespace {

using test_support::expect;

std::mutex g_mutex;
rocprofiler_context_id_t g_t{};
struct seen {
    int enqueue_enter = 0, enqueue_exit = 0, complete = 0;
    bool complete_user_data_ok = true;
};
std::map<std::uint64_t, seen> g_seen;  // dispatch id -> what T got

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    const auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    const auto id = p->dispatch_info.dispatch_id;
    std::lock_guard lk(g_mutex);
    seen& s = g_seen[id];
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE) {
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
            ++s.enqueue_enter;
            ud->value = id + 1;
        } else {
            ++s.enqueue_exit;
        }
    } else if (r.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) {
        ++s.complete;
        s.complete_user_data_ok = s.complete_user_data_ok && ud->value == id + 1;
    }
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    int bad = rocprofiler_create_context(&g_t) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_configure_callback_tracing_service(g_t, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                          &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS;
    return bad;
}

}  // namespace

ENCORE_TEST_TOOL("test-dispatch-toggle", &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const int total = argc > 2 ? std::atoi(argv[2]) : 8000;
    constexpr uint32_t n = 64;
    HSA_CHECK(hsa_init());
    std::atomic<bool> stop{false};
    std::atomic<long> toggles{0};
    std::atomic<bool> start_failed{false};
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        example::CodeObject co(argv[1], gpu);
        const uint64_t kernel = co.kernel("vector_add", gpu);
        auto* args = example::alloc_vector_add_args(cpu, gpu, n);
        hsa_queue_t* q = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q));
        std::thread toggler([&] {
            while (!stop.load(std::memory_order_relaxed)) {
                if (rocprofiler_start_context(g_t) != ROCPROFILER_STATUS_SUCCESS) start_failed.store(true);
                (void)rocprofiler_stop_context(g_t);
                toggles.fetch_add(1, std::memory_order_relaxed);
            }
        });
        hsa_signal_t done{};
        HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
        for (int i = 0; i < total; ++i) {
            hsa_signal_store_relaxed(done, 1);
            example::dispatch_1d(q, kernel, args, n, 64, done);
            example::wait_done(done);
        }
        stop.store(true);
        toggler.join();
        HSA_CHECK(hsa_signal_destroy(done));
        HSA_CHECK(hsa_queue_destroy(q));
    }
    HSA_CHECK(hsa_shut_down());  // every COMPLETE still pending is delivered

    std::lock_guard lk(g_mutex);
    int unpaired = 0, bad_user_data = 0, traced = 0;
    for (const auto& [id, s] : g_seen) {
        const bool pair = s.enqueue_enter == 1 && s.enqueue_exit == 1 && s.complete == 1;
        if (!pair) {
            if (++unpaired <= 5)
                std::fprintf(stderr, "dispatch %llu: ENQUEUE enter %d exit %d, COMPLETE %d\n",
                             static_cast<unsigned long long>(id), s.enqueue_enter, s.enqueue_exit, s.complete);
        }
        bad_user_data += s.complete > 0 && !s.complete_user_data_ok;
        traced += pair;
    }
    std::fprintf(stderr, "%d dispatches, %zu with records, %d traced as pairs, %ld toggles\n", total, g_seen.size(),
                 traced, toggles.load());
    expect(!start_failed.load(), "the context starts");
    expect(unpaired == 0, "every traced dispatch has its ENQUEUE (ENTER, EXIT) and its COMPLETE");
    expect(bad_user_data == 0, "each COMPLETE carries the user_data its ENQUEUE left");
    expect(traced > 0 && traced < total, "the context was active for some dispatches and not for others");
    return test_support::finish();
}
