// src/hsa/queues.cpp — intercept queues (queues.hpp): every queue the program creates is made an
// intercept queue, and each packet batch it submits goes through encore on the submitting thread,
// to the ordinary path (dispatch_records.cpp) or to kernel replay (replay.cpp).
//
// The queues are created with hsa_amd_queue_intercept_create, profiling enabled. A kernel dispatch
// gets a dispatch record (ENQUEUE, COMPLETE, the program's signal fired at retirement); a
// single-packet one while a replay service is active is replayed; any other packet is written as
// it is. Each goes behind a gate when AQL ordering needs one.
#include "queues.hpp"

#include "dispatch_records.hpp"
#include "packets.hpp"
#include "range_replay.hpp"
#include "replay.hpp"
#include "replay_gate.hpp"
#include "runtime.hpp"

#include "backend/drain.hpp"
#include "backend/events.hpp"
#include "backend/slot_hook.hpp"
#include "core/counting.hpp"
#include "core/range_replay.hpp"
#include "core/replay.hpp"
#include "core/warn.hpp"

#include <encore/tracing/tool.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace encore::hsa {

namespace {

std::mutex g_queues_mutex;
std::unordered_map<const hsa_queue_t*, std::shared_ptr<queue_state>> g_queues;  // guarded by g_queues_mutex

// queue_destroy's wait sleeps as briefly as a replay's (replay_gate.cpp): it holds up the
// program's call.
constexpr std::chrono::microseconds destroy_nap{50};

void intercept(const void* pkts, std::uint64_t count, std::uint64_t, void* data,
               hsa_amd_queue_intercept_packet_writer writer) {
    auto* q = static_cast<queue_state*>(data);
    // Both as of one moment: a context started or stopped between two loads would get a
    // COMPLETE without its ENQUEUE, or the reverse.
    const auto [enqueue_mask, complete_mask] = backend::subscribed_pair(kind::kernel_dispatch,
                                                                        ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                                                        ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
    const bool replay_on = replay_gate::enabled();
    // Program signals still to fire on this queue (tracing stopped since) still gate barrier-bit packets.
    if ((enqueue_mask | complete_mask) == 0 && !replay_on && q->unfired.load(std::memory_order_acquire) == 0 &&
        !core::counting::active()) {
        writer(pkts, count);
        return;
    }
    queue_state& qs = *q;
    const auto* in = static_cast<const hsa_kernel_dispatch_packet_t*>(pkts);
    // A thread with an open range records what it submits (pass 0: not kernel-replayed).
    if (replay_on && core::range_replay::any_open() && range_submit(qs, pkts, count, writer, enqueue_mask, complete_mask))
        return;
    if (replay_on && core::replay::service_active()) {
        if (count == 1 && is_kernel_dispatch(in)) {
            if (core::replay::in_replay() || core::range_replay::closing_here()) {
                core::replay::warn_once(
                    "a dispatch submitted from a replay callback runs once (nested replays are declined)");
            } else {
                replay_dispatch(qs, in[0], writer);
                return;
            }
        } else {
            for (std::uint64_t i = 0; i < count; ++i)
                if (is_kernel_dispatch(&in[i])) {
                    core::replay::warn_once(
                        "a submission of several packets runs once (only single-packet dispatches are replayed)");
                    break;
                }
        }
    }
    for (std::uint64_t i = 0; i < count; ++i) {
        gate_if_needed(qs, &in[i], writer);
        if (!is_kernel_dispatch(&in[i])) {
            writer(&in[i], 1);
            continue;
        }
        submit_ordinary(qs, in[i], writer, enqueue_mask, complete_mask);
    }
}

hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                          void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                          uint32_t private_segment_size, uint32_t group_segment_size, hsa_queue_t** queue) {
    const auto& rt = runtime();
    const hsa_status_t s = rt.amd.hsa_amd_queue_intercept_create_fn(agent, size, type, callback, data,
                                                                    private_segment_size, group_segment_size, queue);
    if (s != HSA_STATUS_SUCCESS || queue == nullptr || *queue == nullptr) return s;
    auto state = std::make_shared<queue_state>();
    state->agent = agent;
    state->queue = *queue;
    {
        std::lock_guard lk(g_queues_mutex);
        g_queues[*queue] = state;
    }
    (void)rt.amd.hsa_amd_profiling_set_profiler_enabled_fn(*queue, 1);
    if (rt.amd.hsa_amd_queue_intercept_register_fn(*queue, &intercept, state.get()) != HSA_STATUS_SUCCESS)
        core::warn("cannot intercept queue %p; its dispatches are not traced", static_cast<void*>(*queue));
    return s;
}

hsa_status_t queue_destroy(hsa_queue_t* queue) {
    std::shared_ptr<queue_state> qs;
    {
        std::lock_guard lk(g_queues_mutex);
        if (auto it = g_queues.find(queue); it != g_queues.end()) {
            qs = it->second;
            g_queues.erase(it);  // dispatches in flight keep their queue_state alive
        }
    }
    // A program may destroy a queue with dispatches still running: wait (bounded) until they
    // completed and their COMPLETE records went out, so the runtime does not drop them with the
    // queue. A kernel that never ends must not hang the program: after 10 s it is left to the
    // runtime, with a message.
    if (qs && !backend::wait_until([&] { return qs->in_flight.load(std::memory_order_acquire) <= 0; },
                                   std::chrono::seconds(10), destroy_nap))
        core::warn("queue %p destroyed with %lld dispatches still running; their COMPLETE records may be lost",
                   static_cast<void*>(queue), static_cast<long long>(qs->in_flight.load(std::memory_order_acquire)));
    return runtime().core.hsa_queue_destroy_fn(queue);
}

}  // namespace

void uninstall_dispatch_tracing(::HsaApiTable& table) noexcept {
    drain_records_for_unload();
    const auto& rt = runtime();
    using backend::unhook;
    unhook<&CoreApiTable::hsa_queue_create_fn>(table.core_, &queue_create, rt.core.hsa_queue_create_fn);
    unhook<&CoreApiTable::hsa_queue_destroy_fn>(table.core_, &queue_destroy, rt.core.hsa_queue_destroy_fn);
    unhook<&AmdExtTable::hsa_amd_profiling_get_dispatch_time_fn>(table.amd_ext_, &profiling_get_dispatch_time,
                                                                 rt.amd.hsa_amd_profiling_get_dispatch_time_fn);
}

bool install_dispatch_tracing(::HsaApiTable& table) noexcept {
    if (!configured_operations(kind::kernel_dispatch).any() && !core::replay::service_configured() &&
        !core::range_replay::service_configured() && !core::counting::configured())
        return false;
    using backend::has_slot;
    // All three or none: intercepted queues need their destroy, and timing its profiling fix-up.
    if (!has_slot<&CoreApiTable::hsa_queue_create_fn>(table.core_) ||
        !has_slot<&CoreApiTable::hsa_queue_destroy_fn>(table.core_) ||
        !has_slot<&AmdExtTable::hsa_amd_profiling_get_dispatch_time_fn>(table.amd_ext_))
        return false;
    backend::hook<&CoreApiTable::hsa_queue_create_fn>(table.core_, &queue_create);
    backend::hook<&CoreApiTable::hsa_queue_destroy_fn>(table.core_, &queue_destroy);
    backend::hook<&AmdExtTable::hsa_amd_profiling_get_dispatch_time_fn>(table.amd_ext_, &profiling_get_dispatch_time);
    return true;
}

}  // namespace encore::hsa
