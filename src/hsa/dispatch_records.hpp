// src/hsa/dispatch_records.hpp — KERNEL_DISPATCH records of intercepted queues
// (dispatch_records.cpp): the pooled records whose completion signals the dispatches carry,
// ENQUEUE and COMPLETE delivery, retirement in submission order, and the profiling-time fix-up.
//
//   auto qs = std::make_shared<queue_state>();       // per intercepted queue (queues.cpp)
//   gate_if_needed(*qs, pkt, writer);                // before each packet, in queue order
//   submit_ordinary(*qs, dispatch_pkt, writer, enqueue_mask, complete_mask);
#pragma once

#include <encore/domains/detail/hsa_table.hpp>  // hsa_amd_queue_intercept_packet_writer
#include <rocprofiler-sdk/callback_tracing.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace encore::hsa {

struct dispatch_record;  // dispatch_records.cpp's

// One intercepted queue: the dispatch records it has in flight and its pool. Reached from the
// intercept handler as its user data, alive while the runtime's queue exists (queue_destroy
// drops its reference only after the runtime destroyed the queue).
struct queue_state : std::enable_shared_from_this<queue_state> {
    hsa_agent_t agent;
    hsa_queue_t* queue;
    // Records (gates included) not retired yet: hsa_queue_destroy waits for them (bounded), so
    // their COMPLETE records and program signals are not lost with the queue.
    std::atomic<std::int64_t> in_flight{0};
    // Program signals of records in flight, still to fire. Incremented under mu at submission,
    // decremented (release) after the signal fired; a barrier-bit packet reads it (acquire) to
    // know whether it needs a gate.
    std::atomic<std::int64_t> unfired{0};
    // The rest is dispatch_records.cpp's.
    std::mutex mu;
    dispatch_record* head = nullptr;    // in-flight list, oldest first (guarded by mu)
    dispatch_record* tail = nullptr;    // (guarded by mu)
    dispatch_record* free = nullptr;    // this queue's pool (guarded by mu)
    bool armed = false;                 // an async handler watches head->signal (guarded by mu)
    std::shared_ptr<queue_state> self;  // keeps this alive while armed: the handler's argument

    ~queue_state();  // its pool goes to the spares of every queue
};

/// The next process-wide dispatch id (from 1).
[[nodiscard]] std::uint64_t next_dispatch_id() noexcept;

/// The KERNEL_DISPATCH payload of `pkt` on `qs` (kernel id from its code object, when known).
void fill_info(rocprofiler_callback_tracing_kernel_dispatch_data_t& p, const queue_state& qs,
               const hsa_kernel_dispatch_packet_t& pkt, std::uint64_t dispatch_id) noexcept;

/// Before any packet `pkt` is written: if it has the barrier bit and program signals are still
/// to fire on the queue, writes a barrier-AND that waits until they fired.
void gate_if_needed(queue_state& qs, const void* pkt, hsa_amd_queue_intercept_packet_writer writer) noexcept;

/// The ordinary path of one kernel dispatch packet: traced (ENQUEUE/COMPLETE) for the contexts in
/// the masks, counted in its agent's replay gate when replay is on; the program's completion
/// signal, if any, fires when the record retires. `dispatch_id` 0: the next one.
void submit_ordinary(queue_state& qs, const hsa_kernel_dispatch_packet_t& in,
                     hsa_amd_queue_intercept_packet_writer writer, std::uint64_t enqueue_mask,
                     std::uint64_t complete_mask, std::uint64_t dispatch_id = 0) noexcept;

/// One replay pass's record, delivered on the replaying thread. begin_pass: ENQUEUE ENTER/EXIT
/// for `contexts` (those subscribed), and in `out` the packet to write: `pkt` with the record's
/// completion signal. Null (warned once) when no signal can be had.
[[nodiscard]] dispatch_record* begin_pass(queue_state& qs, const hsa_kernel_dispatch_packet_t& pkt,
                                          std::uint64_t dispatch_id, std::uint64_t contexts,
                                          hsa_kernel_dispatch_packet_t& out) noexcept;
/// After the pass completed: its COMPLETE, the program signal `app` (if any) answering profiling
/// queries with this pass's times, the record back to the queue's pool.
void end_pass(queue_state& qs, dispatch_record* d, hsa_signal_t app) noexcept;
/// A pass that did not complete in time: its record stays with the runtime (never reused).
void strand(dispatch_record* d) noexcept;

/// hsa_amd_profiling_get_dispatch_time's replacement: for a program signal encore fired, the
/// times of its kernel (after a replay: the last pass's); any other goes to the runtime.
hsa_status_t profiling_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal, hsa_amd_profiling_dispatch_time_t* time);

/// The runtime unloads encore: waits (bounded) for the records still in flight to deliver their
/// COMPLETE, and keeps pooled records of this runtime instance from being reused by a later one.
void drain_records_for_unload() noexcept;

}  // namespace encore::hsa
