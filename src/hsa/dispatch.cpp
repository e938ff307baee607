// src/hsa/dispatch.cpp — KERNEL_DISPATCH records through HSA intercept queues.
//
// A queue the application creates is made an intercept queue (hsa_amd_queue_intercept_create)
// with profiling enabled, and encore's handler sees every packet batch the application submits,
// on the submitting thread. For each kernel dispatch packet:
//   - dispatch id from one process-wide counter; correlation id of the enclosing traced call on
//     this thread (e.g. the doorbell store), or a new one;
//   - ENQUEUE ENTER callbacks (each context gets its own user_data), then the packet is written
//     with encore's completion signal, then ENQUEUE EXIT;
//   - an application completion signal is kept: a barrier-AND packet with the barrier bit set
//     follows the kernel and carries it, so it fires after encore's;
//   - when encore's signal completes, an async handler reads the dispatch's start/end times and
//     runs COMPLETE callbacks (phase NONE) with the user_data each context had at ENQUEUE.
// Contexts are captured at ENQUEUE: stopping one later still delivers the COMPLETE.
#include "events.hpp"
#include "runtime.hpp"

#include "../core/registry.hpp"

#include <encore/tracing/tool.hpp>
#include <rocprofiler-sdk/callback_tracing.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace encore::hsa {
namespace {

struct queue_state {
    hsa_agent_t agent;
    hsa_queue_t* queue;
};

std::mutex g_queues_mutex;
std::unordered_map<const hsa_queue_t*, std::shared_ptr<queue_state>> g_queues;  // guarded by g_queues_mutex
std::atomic<std::uint64_t> g_dispatch_id{0};
// Dispatches whose COMPLETE has not been delivered yet: OnUnload waits for them, so a program
// that shuts HSA down right after its last dispatch still gets every COMPLETE.
std::atomic<std::int64_t> g_in_flight{0};

// Completion signals are reused: creating one per dispatch is what made the reference spend
// ~45 us per dispatch. A signal returns here reset to 1 after its COMPLETE was delivered.
std::mutex g_pool_mutex;
std::vector<hsa_signal_t> g_signal_pool;  // guarded by g_pool_mutex
constexpr std::size_t max_pooled_signals = 4096;

bool take_signal(hsa_signal_t& out) {
    {
        std::lock_guard lk(g_pool_mutex);
        if (!g_signal_pool.empty()) {
            out = g_signal_pool.back();
            g_signal_pool.pop_back();
            return true;
        }
    }
    return runtime().core.hsa_signal_create_fn(1, 0, nullptr, &out) == HSA_STATUS_SUCCESS;
}

void give_back_signal(hsa_signal_t s) {
    runtime().core.hsa_signal_store_screlease_fn(s, 1);
    {
        std::lock_guard lk(g_pool_mutex);
        if (g_signal_pool.size() < max_pooled_signals) {
            g_signal_pool.push_back(s);
            return;
        }
    }
    runtime().core.hsa_signal_destroy_fn(s);
}

// One dispatch between ENQUEUE and COMPLETE (heap: completes on the runtime's handler thread).
struct dispatch_record {
    std::shared_ptr<queue_state> queue;
    hsa_signal_t signal;
    std::uint64_t enqueue_mask, complete_mask;
    std::unique_ptr<event> ev;  // contexts and correlation captured at ENQUEUE
    rocprofiler_callback_tracing_kernel_dispatch_data_t payload;
};

bool on_complete(hsa_signal_value_t, void* arg) {
    std::unique_ptr<dispatch_record> d(static_cast<dispatch_record*>(arg));
    hsa_amd_profiling_dispatch_time_t t{};
    if (runtime().amd.hsa_amd_profiling_get_dispatch_time_fn(d->queue->agent, d->signal, &t) == HSA_STATUS_SUCCESS) {
        d->payload.start_timestamp = to_encore_ns(t.start);
        d->payload.end_timestamp = to_encore_ns(t.end);
    }
    // Each context gets a copy of the user_data its ENQUEUE left.
    rocprofiler_user_data_t copies[tracing::max_contexts];
    for (std::uint64_t m = d->complete_mask; m != 0; m &= m - 1) {
        const auto c = static_cast<unsigned>(__builtin_ctzll(m));
        copies[c] = d->ev->user_data[c];
    }
    d->ev->deliver_to(d->complete_mask, ROCPROFILER_KERNEL_DISPATCH_COMPLETE, ROCPROFILER_CALLBACK_PHASE_NONE,
                      &d->payload, copies);
    give_back_signal(d->signal);
    g_in_flight.fetch_sub(1, std::memory_order_release);
    return false;  // one-shot
}

bool is_kernel_dispatch(const void* pkt) {
    std::uint16_t header;
    std::memcpy(&header, pkt, sizeof(header));
    return ((header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1)) ==
           HSA_PACKET_TYPE_KERNEL_DISPATCH;
}

void intercept(const void* pkts, std::uint64_t count, std::uint64_t, void* data,
               hsa_amd_queue_intercept_packet_writer writer) {
    auto* q = static_cast<queue_state*>(data);
    const std::uint64_t enqueue_mask = subscribed(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE);
    const std::uint64_t complete_mask = subscribed(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
    if ((enqueue_mask | complete_mask) == 0) {
        writer(pkts, count);
        return;
    }
    std::shared_ptr<queue_state> qs;
    {
        std::lock_guard lk(g_queues_mutex);
        if (auto it = g_queues.find(q->queue); it != g_queues.end()) qs = it->second;
    }
    const auto* in = static_cast<const hsa_kernel_dispatch_packet_t*>(pkts);
    for (std::uint64_t i = 0; i < count; ++i) {
        if (!qs || !is_kernel_dispatch(&in[i])) {
            writer(&in[i], 1);
            continue;
        }
        hsa_kernel_dispatch_packet_t pkt = in[i];
        auto d = std::make_unique<dispatch_record>();
        d->queue = qs;
        d->enqueue_mask = enqueue_mask;
        d->complete_mask = complete_mask;
        d->ev = event::capture_heap(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, complete_mask);
        if (!d->ev) {
            writer(&in[i], 1);
            continue;
        }
        auto& info = d->payload.dispatch_info;
        d->payload.size = sizeof(d->payload);
        info.size = sizeof(info);
        info.agent_id.handle = qs->agent.handle;
        info.queue_id.handle = qs->queue->id;
        info.kernel_id = [&] { const auto id = kernel_id_of(pkt.kernel_object); return id != 0 ? id : pkt.kernel_object; }();
        info.dispatch_id = g_dispatch_id.fetch_add(1, std::memory_order_relaxed) + 1;
        info.private_segment_size = pkt.private_segment_size;
        info.group_segment_size = pkt.group_segment_size;
        info.workgroup_size = {pkt.workgroup_size_x, pkt.workgroup_size_y, pkt.workgroup_size_z};
        info.grid_size = {pkt.grid_size_x, pkt.grid_size_y, pkt.grid_size_z};
        d->ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_ENTER, &d->payload);

        const hsa_signal_t app_signal = pkt.completion_signal;
        if (!take_signal(d->signal)) {
            static std::atomic<bool> warned{false};
            if (!warned.exchange(true))
                std::fprintf(stderr, "[encore] cannot create a completion signal; dispatches are not timed\n");
            writer(&in[i], 1);
            continue;
        }
        pkt.completion_signal = d->signal;
        hsa_barrier_and_packet_t barrier{};
        barrier.header = static_cast<std::uint16_t>((HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) |
                                                    (1u << HSA_PACKET_HEADER_BARRIER) |
                                                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                                                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
        barrier.completion_signal = app_signal;
        // The application's signal, if any, fires from the barrier after encore's.
        const std::uint64_t n = app_signal.handle != 0 ? 2 : 1;
        struct {
            hsa_kernel_dispatch_packet_t k;
            hsa_barrier_and_packet_t b;
        } out{pkt, barrier};
        static_assert(sizeof(out) == 2 * 64);
        d->ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_EXIT, &d->payload);
        auto* raw = d.release();
        g_in_flight.fetch_add(1, std::memory_order_relaxed);
        if (runtime().amd.hsa_amd_signal_async_handler_fn(raw->signal, HSA_SIGNAL_CONDITION_LT, 1, &on_complete, raw) !=
            HSA_STATUS_SUCCESS) {
            g_in_flight.fetch_sub(1, std::memory_order_relaxed);
            std::fprintf(stderr, "[encore] cannot watch a dispatch's completion; its COMPLETE record is lost\n");
            delete raw;  // the signal stays with the runtime; nothing reads it again
        }
        writer(&out, n);
    }
}

hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                          void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                          uint32_t private_segment_size, uint32_t group_segment_size, hsa_queue_t** queue) {
    const auto& rt = runtime();
    const hsa_status_t s = rt.amd.hsa_amd_queue_intercept_create_fn(agent, size, type, callback, data,
                                                                      private_segment_size, group_segment_size, queue);
    if (s != HSA_STATUS_SUCCESS || queue == nullptr || *queue == nullptr) return s;
    auto state = std::make_shared<queue_state>(queue_state{agent, *queue});
    {
        std::lock_guard lk(g_queues_mutex);
        g_queues[*queue] = state;
    }
    (void)rt.amd.hsa_amd_profiling_set_profiler_enabled_fn(*queue, 1);
    if (rt.amd.hsa_amd_queue_intercept_register_fn(*queue, &intercept, state.get()) != HSA_STATUS_SUCCESS)
        std::fprintf(stderr, "[encore] cannot intercept queue %p; its dispatches are not traced\n", static_cast<void*>(*queue));
    return s;
}

hsa_status_t queue_destroy(hsa_queue_t* queue) {
    {
        std::lock_guard lk(g_queues_mutex);
        g_queues.erase(queue);  // dispatches in flight keep their queue_state alive
    }
    return runtime().core.hsa_queue_destroy_fn(queue);
}

}  // namespace

void uninstall_dispatch_tracing(::HsaApiTable& table) noexcept {
    // The runtime calls OnUnload before it stops its signal handler thread: let the dispatches
    // still in flight deliver their COMPLETE (bounded: a kernel that never ends must not hang
    // the program's exit).
    using namespace std::chrono;
    const auto deadline = steady_clock::now() + seconds(10);
    while (g_in_flight.load(std::memory_order_acquire) > 0 && steady_clock::now() < deadline)
        std::this_thread::sleep_for(microseconds(100));
    if (const auto left = g_in_flight.load(std::memory_order_acquire); left > 0)
        std::fprintf(stderr, "[encore] %lld dispatches did not complete before the HSA runtime unloaded; their COMPLETE records are lost\n",
                     static_cast<long long>(left));
    if (table.core_ == nullptr) return;
    // Only slots that still hold encore's functions: another tool may have wrapped them since.
    if (table.core_->hsa_queue_create_fn == &queue_create) table.core_->hsa_queue_create_fn = runtime().core.hsa_queue_create_fn;
    if (table.core_->hsa_queue_destroy_fn == &queue_destroy)
        table.core_->hsa_queue_destroy_fn = runtime().core.hsa_queue_destroy_fn;
}

bool install_dispatch_tracing(::HsaApiTable& table) noexcept {
    if (!configured_operations(kind::kernel_dispatch).any()) return false;
    if (table.core_ == nullptr || table.amd_ext_ == nullptr) return false;
    table.core_->hsa_queue_create_fn = &queue_create;
    table.core_->hsa_queue_destroy_fn = &queue_destroy;
    return true;
}

}  // namespace encore::hsa
