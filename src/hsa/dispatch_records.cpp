// src/hsa/dispatch_records.cpp — KERNEL_DISPATCH records (dispatch_records.hpp): the pooled record
// each traced or counted dispatch carries, its ENQUEUE and COMPLETE, and the program's signal.
//
// For each kernel dispatch packet of an intercepted queue (queues.cpp):
//   - dispatch id from one process-wide counter; correlation id of the enclosing traced call on
//     this thread (e.g. the doorbell store), or a new one;
//   - ENQUEUE ENTER callbacks (each context gets its own user_data), then the packet is written
//     with the completion signal of a pooled dispatch record, then ENQUEUE EXIT;
//   - the record joins its queue's in-flight list (submission order). One async handler per
//     queue watches the oldest record's signal. When it fires, the handler retires every
//     completed record in order: reads its start/end times, runs COMPLETE callbacks (phase NONE)
//     with the user_data each context had at ENQUEUE, then fires the program's completion
//     signal, if any, as the packet processor would have (decrement by 1); then it watches the
//     first record still running;
//   - a later packet with the barrier bit set must not start before those program signals fired
//     (AQL: it waits for every preceding packet, completion signal included). While any is still
//     to fire on its queue, a barrier-AND packet waiting on a gate signal goes first; the handler
//     opens the gate when it has retired everything before it.
// Contexts are captured at ENQUEUE: stopping one later still delivers the COMPLETE.
//
// Why not a barrier packet carrying the program's signal behind each kernel, and an async handler
// per dispatch (the first design): two packets per dispatch and one handler registration (a wake-up
// of the runtime's event thread, which then waits on every registered signal) per dispatch cost
// +3.5 us per dispatch on the software runtime (benchmarks/RESULTS.md).
#include "dispatch_records.hpp"

#include "code_object.hpp"
#include "packets.hpp"
#include "replay_gate.hpp"
#include "runtime.hpp"

#include "backend/drain.hpp"
#include "backend/events.hpp"
#include "core/counting.hpp"
#include "core/warn.hpp"

#include <chrono>
#include <new>
#include <unordered_map>

namespace encore::hsa {

using backend::event;
using backend::subscribed;

// One dispatch between ENQUEUE and COMPLETE, or a gate. Records are pooled with their signals: in
// the steady state nothing is allocated and no signal is created per dispatch (creating a signal
// per dispatch is what made the reference spend ~45 us per dispatch).
struct dispatch_record {
    dispatch_record* next = nullptr;  // in its queue's in-flight list, or in a free list
    hsa_signal_t signal{};            // completion signal of the packet encore writes; 1 while free
    // signal's value, read and reset without a runtime call (hsa_amd_signal_value_pointer; null:
    // through the API). A call costs a handle lookup on the software runtime.
    volatile hsa_signal_value_t* value = nullptr;
    hsa_signal_t gate{};        // a gate's dependency, created on first use; 1 while free
    hsa_signal_t app_signal{};  // the program's completion signal, fired at retirement
    queue_state* queue = nullptr;
    std::uint64_t enqueue_mask = 0, complete_mask = 0;
    std::uint64_t runtime_epoch = 0;  // g_runtime_epoch when its signals were created
    bool counted = false;             // in its agent's replay-gate count
    bool traced = false;              // ev holds the contexts and correlation captured at ENQUEUE
    bool counting = false;            // count holds the counting contexts' configs (payload: the info)
    bool is_gate = false;
    bool gate_open = false;  // guarded by the queue's mu
    event ev;
    rocprofiler_callback_tracing_kernel_dispatch_data_t payload;
    core::counting::session count;
};

namespace {

std::atomic<std::uint64_t> g_dispatch_id{0};
// Records not retired yet, all queues: OnUnload waits for them, so a program that shuts HSA down
// right after its last dispatch still gets every COMPLETE.
std::atomic<std::int64_t> g_in_flight{0};

// Pooled records of destroyed queues, for any queue; and records a stuck replay pass left with
// the runtime. Plain pointers, never freed: the records stay reachable, their signals are the
// runtime's until it shuts down.
std::mutex g_spare_mutex;
dispatch_record* g_spare = nullptr;  // guarded by g_spare_mutex
// Bumped when the runtime unloads encore (its signals die with it): pooled records of an earlier
// epoch are dropped, not reused, should this library stay loaded across hsa_shut_down/hsa_init.
std::atomic<std::uint64_t> g_runtime_epoch{1};
dispatch_record* g_stranded = nullptr;  // guarded by g_spare_mutex

}  // namespace

queue_state::~queue_state() {
    // Records still in the in-flight list (only after a refused handler registration) may still
    // be written by the runtime: they are left alone.
    if (free == nullptr) return;
    dispatch_record* last = free;
    while (last->next != nullptr) last = last->next;
    std::lock_guard lk(g_spare_mutex);
    last->next = g_spare;
    g_spare = free;
}

namespace {

void warn_signal_once() noexcept {
    static core::warn_once no_signal;
    no_signal("cannot create a completion signal; dispatches are not timed");
}

// A record from the queue's pool, else another queue's spares, else a new one; null when no
// signal can be created. Its signal is 1.
dispatch_record* take_record(queue_state& q) noexcept {
    const std::uint64_t epoch = g_runtime_epoch.load(std::memory_order_relaxed);
    for (;;) {
        dispatch_record* d = nullptr;
        {
            std::lock_guard lk(q.mu);
            if ((d = q.free) != nullptr) q.free = d->next;
        }
        if (d == nullptr) {
            std::lock_guard lk(g_spare_mutex);
            if ((d = g_spare) != nullptr) g_spare = d->next;
        }
        if (d == nullptr) break;
        if (d->runtime_epoch == epoch) return d;
        delete d;  // its signals belonged to a runtime instance that has shut down
    }
    auto* d = new (std::nothrow) dispatch_record;
    if (d == nullptr) return nullptr;
    d->runtime_epoch = epoch;
    if (runtime().core.hsa_signal_create_fn(1, 0, nullptr, &d->signal) != HSA_STATUS_SUCCESS) {
        delete d;
        return nullptr;
    }
    if (runtime().amd.hsa_amd_signal_value_pointer_fn == nullptr ||
        runtime().amd.hsa_amd_signal_value_pointer_fn(d->signal, &d->value) != HSA_STATUS_SUCCESS)
        d->value = nullptr;
    return d;
}

// Back to the queue's pool; its signals must be 1 again.
void put_back(queue_state& q, dispatch_record* d) noexcept {
    std::lock_guard lk(q.mu);
    d->next = q.free;
    q.free = d;
}

// The kernel times of the dispatches whose program signal encore fired (the packet ran with
// encore's signal): hsa_amd_profiling_get_dispatch_time on the program's signal answers from here,
// as it would have from the runtime without encore (HIP times its kernels this way). Keyed by
// signal handle; an entry is overwritten by the signal's next traced dispatch and the table is
// emptied when it grows past a bound (a program creating a signal per dispatch).
// An object, not a leaked pointer: the runtime unloads this library at hsa_shut_down (after
// OnUnload waited for the dispatches in flight), which destroys it.
std::mutex g_program_times_mutex;
std::unordered_map<std::uint64_t, hsa_amd_profiling_dispatch_time_t> g_program_times_map;
auto* const g_program_times = &g_program_times_map;

void remember_program_times(hsa_signal_t app, const hsa_amd_profiling_dispatch_time_t& t) noexcept {
    std::lock_guard lk(g_program_times_mutex);
    try {
        if (g_program_times->size() >= 65536) g_program_times->clear();
        (*g_program_times)[app.handle] = t;
    } catch (...) {
    }
}

void deliver_complete(dispatch_record& d) noexcept {
    if (!d.traced && !d.counting && d.app_signal.handle == 0) return;
    hsa_amd_profiling_dispatch_time_t t{};
    const bool timed = runtime().amd.hsa_amd_profiling_get_dispatch_time_fn(d.queue->agent, d.signal, &t) ==
                       HSA_STATUS_SUCCESS;
    if (timed && d.app_signal.handle != 0) remember_program_times(d.app_signal, t);
    if (d.counting) {
        // The packet processor's start and end of this dispatch (or pass): the counters' window.
        core::counting::measurement m;
        if (timed) m = {true, t.start, t.end, to_encore_ns(t.start), to_encore_ns(t.end)};
        core::counting::complete(d.count, d.payload.dispatch_info, m);
    }
    if (!d.traced) return;
    if (timed) {
        d.payload.start_timestamp = to_encore_ns(t.start);
        d.payload.end_timestamp = to_encore_ns(t.end);
    }
    // Each context gets a copy of the user_data its ENQUEUE left.
    rocprofiler_user_data_t copies[tracing::max_contexts];
    for (std::uint64_t m = d.complete_mask; m != 0; m &= m - 1) {
        const auto c = static_cast<unsigned>(__builtin_ctzll(m));
        copies[c] = d.ev.user_data[c];
    }
    d.ev.deliver_to(d.complete_mask, ROCPROFILER_KERNEL_DISPATCH_COMPLETE, ROCPROFILER_CALLBACK_PHASE_NONE, &d.payload,
                    copies);
}

// A completed record's end: its COMPLETE, the replay gate's count, then the program's signal,
// then its own signals back to 1 for reuse.
void retire(queue_state& q, dispatch_record& d) noexcept {
    const auto& rt = runtime();
    {
        const replay_gate::completion_scope in_handler;  // a drain waits for these callbacks
        deliver_complete(d);
    }
    // Before the program's signal: a program that waits for it and at once submits a replayed
    // dispatch on this agent finds the drain done, rather than waiting on this thread's next
    // step (a completion thread preempted here timed out that drain under a short
    // ENCORE_REPLAY_TIMEOUT_MS). The dispatch's work is complete: the signal's value said so.
    if (d.counted) replay_gate::finished(q.agent.handle);
    if (d.app_signal.handle != 0) {
        // What the packet processor does with a packet's completion signal.
        rt.core.hsa_signal_subtract_screlease_fn(d.app_signal, 1);
        q.unfired.fetch_sub(1, std::memory_order_release);  // pairs with the acquire in gate_if_needed and intercept (queues.cpp)
    }
    // Silent stores: nothing waits on a retired record's signals (no wake-ups to pay for).
    if (d.value != nullptr)
        __atomic_store_n(d.value, 1, __ATOMIC_RELAXED);
    else
        rt.core.hsa_signal_silent_store_relaxed_fn(d.signal, 1);
    if (d.is_gate) rt.core.hsa_signal_silent_store_relaxed_fn(d.gate, 1);
    // Last: queue_destroy and OnUnload wait for these, and the runtime may go away after.
    q.in_flight.fetch_sub(1, std::memory_order_release);
    g_in_flight.fetch_sub(1, std::memory_order_release);
}

bool completed(const dispatch_record& d) noexcept {
    if (d.value != nullptr) return __atomic_load_n(d.value, __ATOMIC_ACQUIRE) < 1;
    return runtime().core.hsa_signal_load_scacquire_fn(d.signal) < 1;
}

bool on_completion(hsa_signal_value_t, void* arg);

// Opens a gate that reached the head of its queue's list: everything before it has retired,
// so the program signals before it fired.
void open_gate(dispatch_record& d) noexcept { runtime().core.hsa_signal_store_screlease_fn(d.gate, 0); }

// The queue's async handler (one registration at a time per queue, not one per dispatch):
// retires completed records in submission order, then watches the first one still running, or
// nothing when none is left. Only this handler removes records, so the one it holds stays the head.
bool on_completion(hsa_signal_value_t, void* arg) {
    auto* q = static_cast<queue_state*>(arg);
    std::shared_ptr<queue_state> keep;  // released last, after the lock: may be the last reference
    // The head, and whether it is a gate to open now; false when none is left (disarmed).
    auto next_head = [&](dispatch_record*& d, bool& open) {  // called with q->mu held
        d = q->head;
        if (d == nullptr) {
            q->armed = false;
            keep = std::move(q->self);
            return false;
        }
        open = d->is_gate && !d->gate_open;
        d->gate_open = d->gate_open || open;
        return true;
    };
    dispatch_record* d = nullptr;
    bool open = false;
    {
        std::lock_guard lk(q->mu);
        if (!next_head(d, open)) return false;
    }
    for (;;) {
        if (open) open_gate(*d);
        if (!completed(*d)) {
            if (runtime().amd.hsa_amd_signal_async_handler_fn(d->signal, HSA_SIGNAL_CONDITION_LT, 1, &on_completion,
                                                              q) != HSA_STATUS_SUCCESS) {
                core::warn("cannot watch a dispatch's completion; COMPLETE records wait for the next dispatch");
                std::lock_guard lk(q->mu);
                q->armed = false;
                keep = std::move(q->self);
            }
            break;
        }
        retire(*q, *d);
        std::lock_guard lk(q->mu);  // one lock per record: pop it, pool it, take the next head
        q->head = d->next;
        if (q->head == nullptr) q->tail = nullptr;
        d->next = q->free;
        q->free = d;
        if (!next_head(d, open)) break;
    }
    return false;  // re-registered above when records are left
}

// Appends a prepared record to its queue's in-flight list and arms the queue's handler when none
// watches it. false (the record not added) when the runtime refuses to watch a signal.
bool push(queue_state& q, dispatch_record* d) noexcept {
    std::lock_guard lk(q.mu);
    d->next = nullptr;
    d->gate_open = false;
    if (q.tail != nullptr)
        q.tail->next = d;
    else
        q.head = d;
    q.tail = d;
    if (!q.armed) {
        // Under the lock, so "none left, disarm" in the handler and this never interleave.
        if (q.head->is_gate && !q.head->gate_open) {
            q.head->gate_open = true;
            open_gate(*q.head);
        }
        if (runtime().amd.hsa_amd_signal_async_handler_fn(q.head->signal, HSA_SIGNAL_CONDITION_LT, 1, &on_completion,
                                                          &q) != HSA_STATUS_SUCCESS) {
            if (q.head == d) {
                q.head = q.tail = nullptr;
                return false;
            }
            // Records stranded by an earlier refusal: this one waits with them for the next arm.
        } else {
            q.armed = true;
            q.self = q.shared_from_this();
        }
    }
    if (d->app_signal.handle != 0) q.unfired.fetch_add(1, std::memory_order_relaxed);
    q.in_flight.fetch_add(1, std::memory_order_relaxed);
    g_in_flight.fetch_add(1, std::memory_order_relaxed);
    return true;
}

// A dispatch's record (or a replay pass's) taken from the pool, set up for `pkt` up to its
// ENQUEUE EXIT: its masks, not a gate, no program signal yet, the contexts and correlation of its
// ENQUEUE captured (traced), its payload when traced or `counting` (`dispatch_id` 0: the next
// one), ENQUEUE ENTER delivered, then the counting contexts in `counting_contexts` asked for their
// configs. Inlined: submit_ordinary is on every traced dispatch's path.
[[gnu::always_inline]] inline void open_record(dispatch_record& d, queue_state& qs,
                                               const hsa_kernel_dispatch_packet_t& pkt, std::uint64_t enqueue_mask,
                                               std::uint64_t complete_mask, bool counted, std::uint64_t dispatch_id,
                                               bool counting, std::uint64_t counting_contexts) noexcept {
    d.queue = &qs;
    d.enqueue_mask = enqueue_mask;
    d.complete_mask = complete_mask;
    d.counted = counted;
    d.is_gate = false;
    d.app_signal = {};
    d.traced = event::capture_into_for(d.ev, kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                       enqueue_mask | complete_mask);
    if (d.traced || counting) fill_info(d.payload, qs, pkt, dispatch_id != 0 ? dispatch_id : next_dispatch_id());
    if (d.traced)
        d.ev.deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_ENTER, &d.payload);
    d.counting = counting && core::counting::begin(d.count, d.payload.dispatch_info, counting_contexts);
}

}  // namespace

std::uint64_t next_dispatch_id() noexcept { return g_dispatch_id.fetch_add(1, std::memory_order_relaxed) + 1; }

void fill_info(rocprofiler_callback_tracing_kernel_dispatch_data_t& p, const queue_state& qs,
               const hsa_kernel_dispatch_packet_t& pkt, std::uint64_t dispatch_id) noexcept {
    p = {};
    auto& info = p.dispatch_info;
    p.size = sizeof(p);
    info.size = sizeof(info);
    info.agent_id.handle = qs.agent.handle;
    info.queue_id.handle = qs.queue->id;
    const auto id = kernel_id_of(pkt.kernel_object);
    info.kernel_id = id != 0 ? id : pkt.kernel_object;
    info.dispatch_id = dispatch_id;
    info.private_segment_size = pkt.private_segment_size;
    info.group_segment_size = pkt.group_segment_size;
    info.workgroup_size = {pkt.workgroup_size_x, pkt.workgroup_size_y, pkt.workgroup_size_z};
    info.grid_size = {pkt.grid_size_x, pkt.grid_size_y, pkt.grid_size_z};
}

// The gate is a barrier-AND waiting on a signal the handler opens once the program signals before
// it fired, so the packet starts after them as it would have without encore. (The gate's own
// barrier bit is not needed: the packet behind it has one.)
void gate_if_needed(queue_state& qs, const void* pkt, hsa_amd_queue_intercept_packet_writer writer) noexcept {
    if (!has_barrier_bit(pkt) || qs.unfired.load(std::memory_order_acquire) == 0) return;
    dispatch_record* d = take_record(qs);
    if (d != nullptr && d->gate.handle == 0 &&
        runtime().core.hsa_signal_create_fn(1, 0, nullptr, &d->gate) != HSA_STATUS_SUCCESS) {
        put_back(qs, d);
        d = nullptr;
    }
    if (d == nullptr) {
        warn_signal_once();
        return;
    }
    d->queue = &qs;
    d->app_signal = {};
    d->counted = d->traced = d->counting = false;
    d->is_gate = true;
    hsa_barrier_and_packet_t b = barrier_with(d->signal, false);
    b.dep_signal[0] = d->gate;
    if (!push(qs, d)) {
        runtime().core.hsa_signal_silent_store_relaxed_fn(d->gate, 1);
        put_back(qs, d);
        return;
    }
    writer(&b, 1);
}

void submit_ordinary(queue_state& qs, const hsa_kernel_dispatch_packet_t& in,
                     hsa_amd_queue_intercept_packet_writer writer, std::uint64_t enqueue_mask,
                     std::uint64_t complete_mask, std::uint64_t dispatch_id) noexcept {
    const bool count = replay_gate::enabled();
    const bool counting = core::counting::active();
    if ((enqueue_mask | complete_mask) == 0 && !count && !counting) {
        writer(&in, 1);
        return;
    }
    replay_gate::shared_hold hold(qs.agent.handle);
    dispatch_record* d = take_record(qs);
    if (d == nullptr) {
        warn_signal_once();
        writer(&in, 1);
        return;
    }
    // The counting contexts' dispatch callbacks run before the packet is written (their configs).
    open_record(*d, qs, in, enqueue_mask, complete_mask, count, dispatch_id, counting, ~std::uint64_t{0});
    if (!d->traced && !count && !d->counting) {
        put_back(qs, d);
        writer(&in, 1);
        return;
    }
    hsa_kernel_dispatch_packet_t pkt = in;
    d->app_signal = pkt.completion_signal;
    pkt.completion_signal = d->signal;
    if (d->traced)
        d->ev.deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_EXIT, &d->payload);
    if (count) replay_gate::started(qs.agent.handle);
    if (!push(qs, d)) {
        if (count) replay_gate::finished(qs.agent.handle);
        put_back(qs, d);
        static core::warn_once unwatched;
        unwatched("cannot watch a dispatch's completion; its COMPLETE record is lost");
        writer(&in, 1);  // the program's packet as it was
        return;
    }
    writer(&pkt, 1);
}

dispatch_record* begin_pass(queue_state& qs, const hsa_kernel_dispatch_packet_t& pkt, std::uint64_t dispatch_id,
                            std::uint64_t contexts, hsa_kernel_dispatch_packet_t& out) noexcept {
    const auto both = backend::subscribed_pair(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                               ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
    const std::uint64_t enqueue_mask = both.first & contexts;
    const std::uint64_t complete_mask = both.second & contexts;
    dispatch_record* d = take_record(qs);
    if (d == nullptr) {
        warn_signal_once();
        return nullptr;
    }
    // Every pass has the same dispatch id. Each pass is counted once by the counting contexts
    // taking part in it (`contexts`: those the tool did not stop for this pass), with the config
    // their dispatch callback gives now, on the replaying thread after PASS ENTER.
    open_record(*d, qs, pkt, enqueue_mask, complete_mask, false, dispatch_id, core::counting::configured(), contexts);
    out = pkt;
    out.completion_signal = d->signal;  // the program's signal fires once, after the last pass
    if (d->traced)
        d->ev.deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_EXIT, &d->payload);
    return d;
}

void end_pass(queue_state& qs, dispatch_record* d, hsa_signal_t app) noexcept {
    deliver_complete(*d);
    // The program's signal answers profiling queries with the last pass's times.
    if (app.handle != 0) {
        hsa_amd_profiling_dispatch_time_t t{};
        if (runtime().amd.hsa_amd_profiling_get_dispatch_time_fn(qs.agent, d->signal, &t) == HSA_STATUS_SUCCESS)
            remember_program_times(app, t);
    }
    if (d->value != nullptr)
        __atomic_store_n(d->value, 1, __ATOMIC_RELAXED);
    else
        runtime().core.hsa_signal_silent_store_relaxed_fn(d->signal, 1);
    put_back(qs, d);
}

void strand(dispatch_record* d) noexcept {
    std::lock_guard lk(g_spare_mutex);
    d->next = g_stranded;
    g_stranded = d;
}

hsa_status_t profiling_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal, hsa_amd_profiling_dispatch_time_t* time) {
    if (time != nullptr) {
        std::lock_guard lk(g_program_times_mutex);
        if (const auto it = g_program_times->find(signal.handle); it != g_program_times->end()) {
            *time = it->second;
            return HSA_STATUS_SUCCESS;
        }
    }
    return runtime().amd.hsa_amd_profiling_get_dispatch_time_fn(agent, signal, time);
}


void drain_records_for_unload() noexcept {
    // The runtime calls OnUnload before it stops its signal handler thread: let the dispatches
    // still in flight deliver their COMPLETE (bounded: a kernel that never ends must not hang
    // the program's exit).
    backend::drain(g_in_flight, std::chrono::seconds(10),
                   "dispatches did not complete before the HSA runtime unloaded; their COMPLETE records are lost");
    g_runtime_epoch.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace encore::hsa
