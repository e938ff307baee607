// test/hsa/test_queue_destroy.cpp — a queue destroyed while its dispatches are still running,
// with KERNEL_DISPATCH tracing on (software HSA runtime): no crash, no hang, and every dispatch
// the program submitted has its ENQUEUE and its COMPLETE by the time hsa_queue_destroy returns.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <atomic>
#include <map>
#include <mutex>

namespace {

using test_support::expect;

std::mutex g_mutex;
std::map<std::uint64_t, int> g_enqueue, g_complete;  // by dispatch id

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
        ++g_enqueue[p->dispatch_info.dispatch_id];
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) ++g_complete[p->dispatch_info.dispatch_id];
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                       &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

}  // namespace

ENCORE_TEST_TOOL(nullptr, &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    constexpr int dispatches = 24;
    constexpr uint32_t n = 1u << 18;  // long enough that most are still queued at the destroy
    HSA_CHECK(hsa_init());
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        example::CodeObject co(argv[1], gpu);
        const uint64_t kernel = co.kernel("vector_add", gpu);
        auto* a = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
        auto* b = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
        auto* c = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
        auto* args = static_cast<example::VectorAddArgs*>(example::alloc_kernarg(cpu, gpu,
                                                                                 sizeof(example::VectorAddArgs)));
        *args = {a, b, c, n};
        hsa_queue_t* q = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q));
        for (int i = 0; i < dispatches; ++i) example::dispatch_1d(q, kernel, args, n, 64, hsa_signal_t{0});
        HSA_CHECK(hsa_queue_destroy(q));  // while most of them have not run yet
        {
            std::lock_guard lk(g_mutex);
            int complete = 0;
            for (auto& [id, k] : g_complete) complete += k;
            expect(static_cast<int>(g_enqueue.size()) == dispatches, "every dispatch enqueued once");
            expect(complete == dispatches, "every dispatch's COMPLETE delivered before hsa_queue_destroy returned");
        }
        for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(args)})
            HSA_CHECK(hsa_amd_memory_pool_free(p));
    }
    HSA_CHECK(hsa_shut_down());
    std::lock_guard lk(g_mutex);
    for (auto& [id, k] : g_complete) expect(k == 1, "no COMPLETE twice");
    return test_support::finish();
}
