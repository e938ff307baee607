// test/hsa/test_scratch.cpp — SCRATCH_MEMORY on the software HSA runtime, by callback and by buffer.
//
// This program is its own tool (rocprofiler_configure) and runs with HSA_TOOLS_LIB=libencore-hsa.so
// and ENCORE_SIM_SCRATCH_LIMIT_MB=1. It dispatches vector_add with private segments of chosen sizes
// on two queues so that the runtime's scratch management does each thing once or twice
// (docs/sim.md, "Scratch memory"): grow a queue's scratch (ALLOC), take an idle queue's back for
// another (ASYNC_RECLAIM), give a dispatch that needs more than the limit its own (ALLOC and FREE,
// USE_ONCE), free a queue's at its destruction (FREE). Checks, for each operation in order: the
// callback's ENTER and EXIT pair (same correlation id, the user_data set at ENTER seen at EXIT,
// args_kind the START then END event), the dispatch id at both phases, the bytes and wave slots at
// EXIT, the agent and queue; a dispatch whose scratch already fits makes no record; the buffer's
// records match one for one (operation, size, flags, queue, start <= end).
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace {

using test_support::expect;

struct seen {
    rocprofiler_scratch_memory_operation_t op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t correlation;
    std::uint64_t user_data;  // at EXIT: what ENTER left
    rocprofiler_callback_tracing_scratch_memory_data_t p;
};
std::mutex g_mutex;
std::vector<seen> g_seen;
std::vector<rocprofiler_buffer_tracing_scratch_memory_record_t> g_buffered;
rocprofiler_context_id_t g_ctx{}, g_buf_ctx{};
rocprofiler_buffer_id_t g_buf{};

void on_scratch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    if (r.kind != ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY) return;
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) ud->value = 1000 + r.correlation_id.internal;
    std::lock_guard lk(g_mutex);
    g_seen.push_back({static_cast<rocprofiler_scratch_memory_operation_t>(r.operation), r.phase, r.correlation_id.internal,
                      ud->value, *static_cast<const rocprofiler_callback_tracing_scratch_memory_data_t*>(r.payload)});
}

void on_records(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t** h, size_t n, void*,
                uint64_t) {
    std::lock_guard lk(g_mutex);
    for (size_t i = 0; i < n; ++i)
        if (h[i]->category == ROCPROFILER_BUFFER_CATEGORY_TRACING &&
            h[i]->kind == ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY)
            g_buffered.push_back(*static_cast<rocprofiler_buffer_tracing_scratch_memory_record_t*>(h[i]->payload));
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (rocprofiler_create_context(&g_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY, nullptr, 0,
                                                       &on_scratch, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (rocprofiler_create_context(&g_buf_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_create_buffer(g_buf_ctx, 1 << 16, 1 << 15, ROCPROFILER_BUFFER_POLICY_LOSSLESS, &on_records, nullptr,
                                  &g_buf) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (rocprofiler_configure_buffer_tracing_service(g_buf_ctx, ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY, nullptr, 0,
                                                     g_buf) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (rocprofiler_start_context(g_buf_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    return rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

// example::dispatch_1d with a private segment of `private_bytes` per work-item; waits for it.
void dispatch_private(hsa_queue_t* q, uint64_t kernel, void* kernarg, uint32_t grid, uint16_t wg, uint32_t private_bytes) {
    hsa_signal_t done{};
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
    example::dispatch_1d(q, kernel, kernarg, grid, wg, done, private_bytes);
    while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0) {
    }
    HSA_CHECK(hsa_signal_destroy(done));
}

// One operation the runtime should have reported, in order.
struct expected_op {
    rocprofiler_scratch_memory_operation_t op;
    std::uint64_t queue_id;
    rocprofiler_scratch_alloc_flag_t flags;
    std::uint64_t bytes;  // ALLOC: what it ends with; else 0
    std::uint64_t slots;
};

}  // namespace

ENCORE_TEST_TOOL("test-scratch", &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    HSA_CHECK(hsa_init());
    std::vector<expected_op> want;
    std::uint64_t gpu_handle = 0;
    {
        const hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        const hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        gpu_handle = gpu.handle;
        example::CodeObject co(argv[1], gpu);
        const uint64_t kernel = co.kernel("vector_add", gpu);
        constexpr uint32_t n = 1024;
        auto* args = example::alloc_vector_add_args(cpu, gpu, n);
        hsa_queue_t *q1 = nullptr, *q2 = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q1));
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q2));
        // Bytes = per work-item x 64 (the wave) x waves (grid / 64 here).
        dispatch_private(q1, kernel, args, 256, 64, 16);  // 4 KiB: q1 grows from nothing
        want.push_back({ROCPROFILER_SCRATCH_MEMORY_ALLOC, q1->id, ROCPROFILER_SCRATCH_ALLOC_FLAG_NONE, 16 * 64 * 4, 4});
        dispatch_private(q1, kernel, args, 256, 64, 8);  // fits what q1 holds: no record
        dispatch_private(q1, kernel, args, n, 64, 64);   // 64 KiB: q1 grows
        want.push_back({ROCPROFILER_SCRATCH_MEMORY_ALLOC, q1->id, ROCPROFILER_SCRATCH_ALLOC_FLAG_NONE, 64 * 64 * 16, 16});
        dispatch_private(q2, kernel, args, n, 64, 1008);  // 1008 KiB: with q1's 64 KiB past the 1 MiB limit
        want.push_back({ROCPROFILER_SCRATCH_MEMORY_ASYNC_RECLAIM, q1->id, ROCPROFILER_SCRATCH_ALLOC_FLAG_NONE, 0, 0});
        want.push_back({ROCPROFILER_SCRATCH_MEMORY_ALLOC, q2->id, ROCPROFILER_SCRATCH_ALLOC_FLAG_NONE, 1008 * 64 * 16,
                        16});
        dispatch_private(q2, kernel, args, n, 64, 2048);  // 2 MiB: more than the limit, for this dispatch only
        want.push_back({ROCPROFILER_SCRATCH_MEMORY_ALLOC, q2->id, ROCPROFILER_SCRATCH_ALLOC_FLAG_USE_ONCE,
                        2048 * 64 * 16, 16});
        want.push_back({ROCPROFILER_SCRATCH_MEMORY_FREE, q2->id, ROCPROFILER_SCRATCH_ALLOC_FLAG_USE_ONCE, 0, 0});
        const std::uint64_t q2_id = q2->id;
        HSA_CHECK(hsa_queue_destroy(q2));  // frees its 1008 KiB
        want.push_back({ROCPROFILER_SCRATCH_MEMORY_FREE, q2_id, ROCPROFILER_SCRATCH_ALLOC_FLAG_NONE, 0, 0});
        HSA_CHECK(hsa_queue_destroy(q1));  // reclaimed already: nothing to free
        expect(rocprofiler_flush_buffer(g_buf) == ROCPROFILER_STATUS_SUCCESS, "flush");
    }
    std::lock_guard lk(g_mutex);
    expect(g_seen.size() == 2 * want.size(), "an ENTER and an EXIT per scratch operation, nothing else (got " +
                                                 std::to_string(g_seen.size()) + ", want " +
                                                 std::to_string(2 * want.size()) + ")");
    for (std::size_t i = 0; i < want.size() && 2 * i + 1 < g_seen.size(); ++i) {
        const seen& in = g_seen[2 * i];
        const seen& out = g_seen[2 * i + 1];
        const expected_op& w = want[i];
        const std::string at = "operation " + std::to_string(i) + ": ";
        expect(in.op == w.op && out.op == w.op, at + "the operation");
        expect(in.phase == ROCPROFILER_CALLBACK_PHASE_ENTER && out.phase == ROCPROFILER_CALLBACK_PHASE_EXIT,
               at + "ENTER then EXIT");
        expect(in.correlation != 0 && in.correlation == out.correlation, at + "one correlation id for both phases");
        expect(out.user_data == 1000 + in.correlation, at + "the user_data ENTER set reaches EXIT");
        expect(in.p.size == sizeof(in.p) && in.p.queue_id.handle == w.queue_id && out.p.queue_id.handle == w.queue_id,
               at + "the queue");
        expect(in.p.agent_id.handle == gpu_handle && out.p.agent_id.handle == gpu_handle, at + "the GPU agent");
        expect(in.p.flags == w.flags && out.p.flags == w.flags, at + "the flags");
        if (w.op == ROCPROFILER_SCRATCH_MEMORY_ALLOC) {
            expect(in.p.args_kind == HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_START &&
                       out.p.args_kind == HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END,
                   at + "args_kind ALLOC_START then ALLOC_END");
            expect(in.p.args.alloc_start.dispatch_id == out.p.args.alloc_end.dispatch_id,
                   at + "the same dispatch at both phases");
            expect(out.p.args.alloc_end.size == w.bytes && out.p.args.alloc_end.num_slots == w.slots,
                   at + "bytes and slots at EXIT (" + std::to_string(out.p.args.alloc_end.size) + ")");
        } else if (w.op == ROCPROFILER_SCRATCH_MEMORY_FREE) {
            expect(in.p.args_kind == HSA_AMD_TOOL_EVENT_SCRATCH_FREE_START &&
                       out.p.args_kind == HSA_AMD_TOOL_EVENT_SCRATCH_FREE_END,
                   at + "args_kind FREE_START then FREE_END");
        } else {
            expect(in.p.args_kind == HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_START &&
                       out.p.args_kind == HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_END,
                   at + "args_kind ASYNC_RECLAIM_START then _END");
        }
    }
    // Buffer records arrive ring by ring (one ring per producing thread: the queues' processor
    // threads, and the main thread for the queue's destruction): their start times give the order.
    std::sort(g_buffered.begin(), g_buffered.end(),
              [](const auto& a, const auto& b) { return a.start_timestamp < b.start_timestamp; });
    expect(g_buffered.size() == want.size(),
           "a buffer record per operation (got " + std::to_string(g_buffered.size()) + ")");
    for (std::size_t i = 0; i < want.size() && i < g_buffered.size(); ++i) {
        const auto& b = g_buffered[i];
        const expected_op& w = want[i];
        const std::string at = "buffer record " + std::to_string(i) + ": ";
        expect(b.size == sizeof(b) && b.kind == ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY && b.operation == w.op,
               at + "kind and operation");
        expect(b.queue_id.handle == w.queue_id && b.agent_id.handle == gpu_handle && b.flags == w.flags,
               at + "queue, agent, flags");
        expect(b.allocation_size == w.bytes, at + "allocation size");
        expect(b.start_timestamp != 0 && b.start_timestamp <= b.end_timestamp, at + "start <= end");
        expect(b.thread_id != 0 && b.correlation_id.internal != 0, at + "thread and correlation ids");
    }
    HSA_CHECK(hsa_shut_down());
    return test_support::finish();
}
