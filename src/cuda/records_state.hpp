// src/cuda/records_state.hpp — what the three files of CUDA's records share (private to them):
// each context's timing state and the pooled launch records (records_state.cpp), the completion
// queue and CUPTI's table of waiting launches (records_delivery.cpp), both used by the launches and
// copies (records.cpp). The files call downward only: records.cpp -> records_delivery.cpp ->
// records_state.cpp (tools/call_cycles.py checks it).
#pragma once

#include "cupti.hpp"
#include "records.hpp"

#include "backend/events.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace encore::cuda::records::detail {

using backend::event;

/// CUDA has no CPU agents: host memory's side of a copy is this agent id.
constexpr std::uint64_t host_agent = ~0ull;

// ---- per-context timing state (records_state.cpp) ----------------------------------------------
struct context_timing {
    // Read by every launch and written once (the CUPTI keys at the first launch that needs them):
    // a line of their own, apart from `delivered` (written at every COMPLETE by CUPTI's thread) and
    // the free events' mutex (taken by the completion thread), whose writes would take it from the
    // launching threads.
    CUcontext ctx = nullptr;
    CUdevice device = 0;
    // CUPTI's stream keys (cupti::context_key / stream_key) of this context and of its legacy
    // default stream, found at the first launch that needs them (0: not yet, or CUPTI cannot say).
    std::atomic<std::uint64_t> cupti_context{0}, cupti_legacy{0};
    alignas(64) std::mutex m;  // free events
    std::vector<CUevent> free_events;
    // Only the completion thread (or a replaying thread, under `calibration`) touches these.
    std::mutex calibration;
    CUstream private_stream = nullptr;
    CUevent base = nullptr;
    CUevent spare = nullptr;  // calibrate's next try; swapped with `base` when its window is tighter
    std::uint64_t base_ns = 0;
    std::uint64_t calibrated_at = 0;  // core::now_ns() then; 0: never
    std::uint64_t error_ns = 0;       // half-width of the base's window
    // Records queued and delivered: the launching threads count the first, the delivering threads
    // (CUPTI's, the completion thread) the second, each on a line of its own, so that a launch
    // writes no cache line those threads write. In flight: queued - delivered (in_flight()).
    alignas(64) std::atomic<std::uint64_t> queued{0};
    alignas(64) std::atomic<std::uint64_t> delivered{0};
};

/// Whether records of `t` are still to be delivered. `delivered` is read first: if it is at least
/// what `queued` is afterwards, everything queued by then was delivered.
inline bool in_flight(const context_timing& t) noexcept {
    const std::uint64_t d = t.delivered.load(std::memory_order_acquire);
    return t.queued.load(std::memory_order_acquire) > d;
}

// Every context's timing state, by context (never freed: records_state.cpp says why), and those of
// forgotten contexts; both guarded by g_contexts_mutex.
extern std::mutex g_contexts_mutex;
extern std::map<CUcontext, context_timing*>* g_contexts;
extern std::vector<context_timing*>* g_retired;
extern std::atomic<std::uint64_t> g_generation;  // bumped when a context is forgotten

/// The timing state of context c (made on first use); throws std::bad_alloc.
context_timing* timing_of(CUcontext c);
/// A pair of events of the current context (c), or false.
bool take_events(context_timing& t, CUevent& start, CUevent& end) noexcept;
void give_back(context_timing& t, CUevent a, CUevent b) noexcept;
/// start/end of a completed event pair on encore's clock; false when the driver cannot say.
bool times_of(context_timing& t, CUevent start, CUevent end, std::uint64_t& s, std::uint64_t& e) noexcept;

// ---- a launch's or copy's record (pooled: records_state.cpp) -------------------------------------
struct record_pool;

struct pending {
    context_timing* t = nullptr;
    CUevent start = nullptr, end = nullptr;
    event* ev = nullptr;  // &captured once captured (event::capture_into_for), else null
    std::uint64_t mask = 0;
    kind k = kind::kernel_dispatch;
    rocprofiler_callback_tracing_kernel_dispatch_data_t dispatch{};
    rocprofiler_callback_tracing_memory_copy_data_t copy{};
    // CUPTI-timed launches: the launching thread (after its ENQUEUE EXIT) and CUPTI's delivery
    // (with the times) each add one; whichever comes second delivers COMPLETE and frees this.
    std::atomic<int> arrivals{0};
    // CUPTI's times, kept apart from `dispatch` until COMPLETE: the launching thread's ENQUEUE
    // EXIT may still be reading that payload when they arrive.
    std::uint64_t cupti_start = 0, cupti_end = 0;
    event captured;  // not initialized: capture_into_for fills what the contexts read
    // Where the record goes back to (take_record / give_record); null: not pooled.
    record_pool* home = nullptr;
    pending* next_free = nullptr;
    // On a pool's `returned` stack: how many records it held with this one on top, so that the
    // owner takes the stack without walking it. Atomic: a giver reads the top's count while the
    // owner may be taking the stack (a count read from a record taken meanwhile fails the CAS).
    std::atomic<std::uint32_t> returned_n{0};

    /// As new, but for `captured`, which the next capture fills.
    void reset() noexcept {
        t = nullptr;
        start = end = nullptr;
        ev = nullptr;
        mask = 0;
        k = kind::kernel_dispatch;
        dispatch = {};
        copy = {};
        arrivals.store(0, std::memory_order_relaxed);
        cupti_start = cupti_end = 0;
        next_free = nullptr;
    }
};

/// A record as new (`captured` aside), or null when there is no memory for one.
pending* take_record() noexcept;
/// Gives record `p` back to its pool (any thread).
void give_record(pending* p) noexcept;

struct record_deleter {
    void operator()(pending* p) const noexcept { give_record(p); }
};
using record_ptr = std::unique_ptr<pending, record_deleter>;

// ---- delivery (records_delivery.cpp) --------------------------------------------------------------
// The completion thread's queue: launching threads push (enqueue, records.cpp), the completion
// thread pops (worker). Guarded by g_queue_mutex.
extern std::mutex g_queue_mutex;
extern std::condition_variable g_queue_cv;
extern std::deque<record_ptr>* g_queue;
extern bool g_worker_started;
extern bool g_stop;
/// Starts the completion thread (under g_queue_mutex, once); false when it cannot be started.
bool start_worker() noexcept;

/// COMPLETE (a launch) or EXIT (a copy) of `p`, with its events' times when `timed`.
void deliver(pending& p, bool timed) noexcept;
/// Waits (polling, with a growing sleep) until `e` completed or failed; false on failure or when
/// `deadline_ns` (encore time, 0: none) passed.
bool wait_event(CUevent e, std::uint64_t deadline_ns = 0, bool spin = false) noexcept;
/// Waits for `p`'s end event, delivers it and gives its events back (the completion thread's work).
void complete(pending& p) noexcept;
/// The completion thread.
void worker() noexcept;
/// Registers drain_all once, after the tools' finalization (registered at initialization): it runs
/// before that, so the last records reach the tools.
void drain_at_exit() noexcept;
/// At exit: waits (bounded) for every record still to be delivered, then stops the completion thread.
void drain_all() noexcept;

/// Whether launches are timed through CUPTI (set once, at the first launch that wants COMPLETE).
extern std::atomic<bool> g_cupti_timing;
/// Set when CUPTI turned out not to pair launches with kernel records: later launches use events.
extern std::atomic<bool> g_cupti_off;
constexpr std::uint64_t pairing_check = 1024;  // launches between checks; also the evidence needed

// ---- CUPTI-timed launches -------------------------------------------------------------------------
// Pending COMPLETEs by key (one process-wide counter: unique per launch, unlike dispatch ids, which
// replay passes share), in a table of slots indexed by the key's low bits: a launch claims its slot
// with one compare-and-swap and CUPTI's thread takes it back with another, neither locking nor
// allocating. A slot still held by a launch 65,536 keys older (a long queue, or a launch CUPTI
// never timed) sends the newer one to a map under a lock (the overflow), which the taker looks in
// only while it holds something.
struct cupti_slot {
    // 0: free; a launch's key: it waits there; key | busy: being filled or taken (the holder
    // writes or reads `p`, then stores the key or 0).
    std::atomic<std::uint64_t> key{0};
    pending* p = nullptr;
};
constexpr std::uint64_t busy = 1ull << 63;
constexpr std::size_t cupti_slots = std::size_t{1} << 16;
extern cupti_slot g_slots[cupti_slots];  // zero-initialized (static storage): pages only where used

extern std::mutex g_cupti_mutex;                                       // the overflow's
extern std::unordered_map<std::uint64_t, pending*>* g_cupti_overflow;  // never destroyed
extern std::atomic<std::size_t> g_overflow_n;
// Launches put (put_pending, records.cpp) and taken (take_pending): waiting = put - taken
// (check_cupti_pairing). Each on its own line, as context_timing's counts.
extern std::atomic<std::uint64_t> g_cupti_put;
extern std::atomic<std::uint64_t> g_cupti_taken;

/// Takes the launch waiting under `key` off the table, or null when none waits (any more).
pending* take_pending(std::uint64_t key) noexcept;
/// The second of the launching thread and CUPTI's delivery: COMPLETE with the times CUPTI gave,
/// then the record goes back to its pool.
void finish_cupti(pending* p) noexcept;
/// CUPTI's times for the launch under `key` (`timed` false: none); false when none waits there.
bool on_cupti_times(std::uint64_t key, std::uint64_t start, std::uint64_t end, bool timed) noexcept;
/// A CUPTI buffer's completions in stream order.
void on_cupti_batch(const cupti::completion* c, std::size_t n) noexcept;
/// The safety net of cupti::pairing_health: gives up on CUPTI (said once), delivering the
/// launches still waiting without times.
void check_cupti_pairing() noexcept;

}  // namespace encore::cuda::records::detail
