// test/hsa/test_dispatch_contexts.cpp — dispatch records and contexts, on the software runtime.
//
// Context A traces the HSA core API and kernel dispatches; context B only kernel dispatches and
// is stopped half-way. Checks: each dispatch carries the correlation id of the HSA call that
// submitted it (the doorbell store, traced by A); B gets ENQUEUE for exactly the dispatches
// submitted while it was active, and a COMPLETE for each of those even when it completes after
// B stopped (contexts are captured at ENQUEUE); A gets every dispatch.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace {

using test_support::expect;

std::mutex g_mutex;
rocprofiler_context_id_t g_a{}, g_b{};
thread_local std::uint64_t t_api_call = 0;                // internal id of the HSA call in progress on this thread
std::map<std::uint64_t, std::uint64_t> g_enqueue_corr;    // dispatch id -> correlation id at ENQUEUE (A)
std::map<std::uint64_t, std::uint64_t> g_api_at_enqueue;  // dispatch id -> API call in progress
std::set<std::uint64_t> g_a_complete, g_b_enqueue, g_b_complete;

void on_api(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    t_api_call = r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER ? r.correlation_id.internal : 0;
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    const auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    const auto id = p->dispatch_info.dispatch_id;
    std::lock_guard lk(g_mutex);
    const bool is_a = r.context_id.handle == g_a.handle;
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        if (is_a) {
            g_enqueue_corr[id] = r.correlation_id.internal;
            g_api_at_enqueue[id] = t_api_call;
        } else {
            g_b_enqueue.insert(id);
        }
    } else if (r.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) {
        (is_a ? g_a_complete : g_b_complete).insert(id);
    }
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    int bad = 0;
    bad += rocprofiler_create_context(&g_a) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_create_context(&g_b) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_configure_callback_tracing_service(g_a, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0,
                                                          &on_api, nullptr) != ROCPROFILER_STATUS_SUCCESS;
    for (auto c : {g_a, g_b})
        bad += rocprofiler_configure_callback_tracing_service(c, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr,
                                                              0, &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_start_context(g_a) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_start_context(g_b) != ROCPROFILER_STATUS_SUCCESS;
    return bad;
}

}  // namespace

ENCORE_TEST_TOOL("test-dispatch-contexts", &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    constexpr int total = 40;
    constexpr uint32_t n = 1u << 16;
    HSA_CHECK(hsa_init());
    int b_active_submissions = 0;
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        example::CodeObject co(argv[1], gpu);
        const uint64_t kernel = co.kernel("vector_add", gpu);
        auto* args = example::alloc_vector_add_args(cpu, gpu, n);
        hsa_queue_t* q = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q));
        for (int i = 0; i < total; ++i) {
            if (i < total / 2) ++b_active_submissions;
            hsa_signal_t done{};
            HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
            example::dispatch_1d(q, kernel, args, n, 256, done);
            // B stops right after its last dispatch is submitted, while it may still be running:
            // that dispatch's COMPLETE must still reach B.
            if (i == total / 2 - 1)
                expect(rocprofiler_stop_context(g_b) == ROCPROFILER_STATUS_SUCCESS, "stop B with a dispatch in flight");
            example::wait_done(done);
            HSA_CHECK(hsa_signal_destroy(done));
        }
        HSA_CHECK(hsa_queue_destroy(q));
    }
    HSA_CHECK(hsa_shut_down());  // OnUnload delivers every COMPLETE still pending

    std::lock_guard lk(g_mutex);
    expect(g_enqueue_corr.size() == total, "A saw every dispatch");
    expect(g_a_complete.size() == total, "A got every COMPLETE");
    int same_as_api = 0;
    for (auto& [id, corr] : g_enqueue_corr) same_as_api += corr != 0 && corr == g_api_at_enqueue[id];
    expect(same_as_api == total, "each dispatch carries the correlation id of the HSA call that submitted it");
    expect(static_cast<int>(g_b_enqueue.size()) == b_active_submissions,
           "B saw exactly the dispatches submitted while active");
    expect(g_b_complete == g_b_enqueue, "B got a COMPLETE for each, also after it stopped");
    return test_support::finish();
}
