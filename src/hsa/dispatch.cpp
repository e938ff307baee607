// src/hsa/dispatch.cpp — KERNEL_DISPATCH records through HSA intercept queues.
//
// A queue the application creates is made an intercept queue (hsa_amd_queue_intercept_create)
// with profiling enabled, and encore's handler sees every packet batch the application submits,
// on the submitting thread. For each kernel dispatch packet:
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
#include "queues.hpp"

#include "code_object.hpp"
#include "replay_gate.hpp"
#include "replay_memory.hpp"
#include "runtime.hpp"

#include "backend/events.hpp"

#include "backend/drain.hpp"
#include "backend/slot_hook.hpp"
#include "core/registry.hpp"
#include "core/warn.hpp"

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

using backend::event;
using backend::subscribed;
namespace {

struct queue_state;

// One dispatch between ENQUEUE and COMPLETE, or a gate. Records are pooled with their signals: in
// the steady state nothing is allocated and no signal is created per dispatch (creating a signal
// per dispatch is what made the reference spend ~45 us per dispatch).
struct dispatch_record {
    dispatch_record* next = nullptr;  // in its queue's in-flight list, or in a free list
    hsa_signal_t signal{};            // completion signal of the packet encore writes; 1 while free
    // signal's value, read and reset without a runtime call (hsa_amd_signal_value_pointer; null:
    // through the API). A call costs a handle lookup on the software runtime.
    volatile hsa_signal_value_t* value = nullptr;
    hsa_signal_t gate{};              // a gate's dependency, created on first use; 1 while free
    hsa_signal_t app_signal{};        // the program's completion signal, fired at retirement
    queue_state* queue = nullptr;
    std::uint64_t enqueue_mask = 0, complete_mask = 0;
    std::uint64_t runtime_epoch = 0;  // g_runtime_epoch when its signals were created
    bool counted = false;    // in its agent's replay-gate count
    bool traced = false;     // ev holds the contexts and correlation captured at ENQUEUE
    bool is_gate = false;
    bool gate_open = false;  // guarded by the queue's mu
    event ev;
    rocprofiler_callback_tracing_kernel_dispatch_data_t payload;
};

// Reached from the intercept handler as its user data, alive while the runtime's queue exists
// (queue_destroy drops its reference only after the runtime destroyed the queue).
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
    std::mutex mu;
    dispatch_record* head = nullptr;  // in-flight list, oldest first (guarded by mu)
    dispatch_record* tail = nullptr;  // (guarded by mu)
    dispatch_record* free = nullptr;  // this queue's pool (guarded by mu)
    bool armed = false;               // an async handler watches head->signal (guarded by mu)
    std::shared_ptr<queue_state> self;  // keeps this alive while armed: the handler's argument

    ~queue_state();
};

std::mutex g_queues_mutex;
std::unordered_map<const hsa_queue_t*, std::shared_ptr<queue_state>> g_queues;  // guarded by g_queues_mutex
std::atomic<std::uint64_t> g_dispatch_id{0};
// Records not retired yet, all queues: OnUnload waits for them, so a program that shuts HSA down
// right after its last dispatch still gets every COMPLETE.
std::atomic<std::int64_t> g_in_flight{0};

// Pooled records of destroyed queues, for any queue; and records a stuck replay pass left with
// the runtime. Plain pointers, never freed: the records stay reachable, their signals are the
// runtime's until it shuts down.
std::mutex g_spare_mutex;
dispatch_record* g_spare = nullptr;     // guarded by g_spare_mutex
// Bumped when the runtime unloads encore (its signals die with it): pooled records of an earlier
// epoch are dropped, not reused, should this library stay loaded across hsa_shut_down/hsa_init.
std::atomic<std::uint64_t> g_runtime_epoch{1};
dispatch_record* g_stranded = nullptr;  // guarded by g_spare_mutex

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

hsa_status_t profiling_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal,
                                         hsa_amd_profiling_dispatch_time_t* time) {
    if (time != nullptr) {
        std::lock_guard lk(g_program_times_mutex);
        if (const auto it = g_program_times->find(signal.handle); it != g_program_times->end()) {
            *time = it->second;
            return HSA_STATUS_SUCCESS;
        }
    }
    return runtime().amd.hsa_amd_profiling_get_dispatch_time_fn(agent, signal, time);
}

void deliver_complete(dispatch_record& d) noexcept {
    if (!d.traced && d.app_signal.handle == 0) return;
    hsa_amd_profiling_dispatch_time_t t{};
    const bool timed =
        runtime().amd.hsa_amd_profiling_get_dispatch_time_fn(d.queue->agent, d.signal, &t) == HSA_STATUS_SUCCESS;
    if (timed && d.app_signal.handle != 0) remember_program_times(d.app_signal, t);
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
    d.ev.deliver_to(d.complete_mask, ROCPROFILER_KERNEL_DISPATCH_COMPLETE, ROCPROFILER_CALLBACK_PHASE_NONE,
                    &d.payload, copies);
}

// A completed record's end: its COMPLETE, then the program's signal, then its own signals back
// to 1 for reuse.
void retire(queue_state& q, dispatch_record& d) noexcept {
    const auto& rt = runtime();
    deliver_complete(d);
    if (d.app_signal.handle != 0) {
        // What the packet processor does with a packet's completion signal.
        rt.core.hsa_signal_subtract_screlease_fn(d.app_signal, 1);
        q.unfired.fetch_sub(1, std::memory_order_release);  // pairs with the acquire in gate_if_needed and intercept
    }
    // Silent stores: nothing waits on a retired record's signals (no wake-ups to pay for).
    if (d.value != nullptr)
        __atomic_store_n(d.value, 1, __ATOMIC_RELAXED);
    else
        rt.core.hsa_signal_silent_store_relaxed_fn(d.signal, 1);
    if (d.is_gate) rt.core.hsa_signal_silent_store_relaxed_fn(d.gate, 1);
    if (d.counted) replay_gate::finished(q.agent.handle);
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
            if (runtime().amd.hsa_amd_signal_async_handler_fn(d->signal, HSA_SIGNAL_CONDITION_LT, 1, &on_completion, q) !=
                HSA_STATUS_SUCCESS) {
                std::fprintf(stderr, "[encore] cannot watch a dispatch's completion; COMPLETE records wait for the next dispatch\n");
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

bool is_kernel_dispatch(const void* pkt) {
    std::uint16_t header;
    std::memcpy(&header, pkt, sizeof(header));
    return ((header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1)) ==
           HSA_PACKET_TYPE_KERNEL_DISPATCH;
}

bool has_barrier_bit(const void* pkt) {
    std::uint16_t header;
    std::memcpy(&header, pkt, sizeof(header));
    return ((header >> HSA_PACKET_HEADER_BARRIER) & 1u) != 0;
}

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

hsa_barrier_and_packet_t barrier_with(hsa_signal_t completion, bool barrier_bit = true) noexcept {
    hsa_barrier_and_packet_t barrier{};
    barrier.header = static_cast<std::uint16_t>((HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) |
                                                ((barrier_bit ? 1u : 0u) << HSA_PACKET_HEADER_BARRIER) |
                                                (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                                                (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
    barrier.completion_signal = completion;
    return barrier;
}

// Before a packet with the barrier bit on a queue whose records still have program signals to
// fire: a barrier-AND waiting on a gate the handler opens once they fired, so the packet starts
// after them as it would have without encore. (The gate's own barrier bit is not needed: the
// packet behind it has one.)
void gate_if_needed(queue_state& qs, const void* pkt,
                    hsa_amd_queue_intercept_packet_writer writer) noexcept {
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
    d->counted = d->traced = false;
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

// The ordinary path of one kernel dispatch packet: traced (ENQUEUE/COMPLETE) for the contexts in
// the masks, counted in its agent's replay gate when replay is on; the program's completion
// signal, if any, fires when the record retires.
void submit_ordinary(queue_state& qs, const hsa_kernel_dispatch_packet_t& in,
                     hsa_amd_queue_intercept_packet_writer writer, std::uint64_t enqueue_mask,
                     std::uint64_t complete_mask, std::uint64_t dispatch_id = 0) noexcept {
    const bool count = replay_gate::enabled();
    if ((enqueue_mask | complete_mask) == 0 && !count) {
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
    d->queue = &qs;
    d->enqueue_mask = enqueue_mask;
    d->complete_mask = complete_mask;
    d->counted = count;
    d->is_gate = false;
    d->traced = (enqueue_mask | complete_mask) != 0 &&
                event::capture_into(d->ev, kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, complete_mask);
    if (d->traced) {
        fill_info(d->payload, qs, in,
                  dispatch_id != 0 ? dispatch_id : g_dispatch_id.fetch_add(1, std::memory_order_relaxed) + 1);
        d->ev.deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_ENTER, &d->payload);
    }
    if (!d->traced && !count) {
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

// ---- replay -----------------------------------------------------------------------------------

std::uint64_t ticks_per_ms() noexcept {
    static const std::uint64_t v = [] {
        std::uint64_t f = 0;
        if (runtime().core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &f) != HSA_STATUS_SUCCESS || f == 0)
            f = 1'000'000'000;
        return f / 1000 > 0 ? f / 1000 : 1;
    }();
    return v;
}

// Waits until `s` drops below 1, at most timeout_ns. false on timeout.
bool wait_signal(hsa_signal_t s, std::uint64_t timeout_ns) noexcept {
    using namespace std::chrono;
    const auto deadline = steady_clock::now() + nanoseconds(timeout_ns);
    while (runtime().core.hsa_signal_wait_scacquire_fn(s, HSA_SIGNAL_CONDITION_LT, 1, 100 * ticks_per_ms(),
                                                       HSA_WAIT_STATE_BLOCKED) >= 1) {
        if (steady_clock::now() >= deadline) return false;
    }
    return true;
}

// queue_destroy's wait sleeps as briefly as a replay's (replay_gate.cpp): it holds up the
// program's call.
constexpr std::chrono::microseconds destroy_nap{50};

// One single-packet dispatch going through the replay service (core::replay drives it).
class hsa_replay final : public core::replay::dispatch_backend {
public:
    hsa_replay(std::shared_ptr<queue_state> qs, const hsa_kernel_dispatch_packet_t& pkt,
               hsa_amd_queue_intercept_packet_writer writer, std::uint64_t dispatch_id) noexcept
        : qs_(std::move(qs)), pkt_(pkt), writer_(writer), dispatch_id_(dispatch_id) {}

    static encore_replay_snapshot_policy_t default_policy() noexcept {
        // Measured (benchmarks/RESULTS.md): with write tracking, restoring only changed chunks
        // wins at every written fraction up to ~all of the footprint; comparing (ROCr) costs a
        // full read-back, so there the full copy is the default.
        return replay_memory::write_tracking_available() ? ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS
                                                         : ENCORE_REPLAY_SNAPSHOT_FULL_COPY;
    }

    void run_once() noexcept override {
        submit_ordinary(*qs_, pkt_, writer_, subscribed(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE),
                        subscribed(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_COMPLETE), dispatch_id_);
    }

    const char* acquire() noexcept override {
        // Read here, not per dispatch: most dispatches are never replayed.
        opt_ = core::replay::current_options(default_policy());
        switch (replay_gate::take_exclusive(agent(), std::chrono::nanoseconds(opt_.wait_timeout_ns))) {
            case replay_gate::exclusive::held:
                return nullptr;
            case replay_gate::exclusive::lock_timed_out:
                return "timed out waiting for exclusive use of the agent: the dispatch runs once";
            case replay_gate::exclusive::drain_timed_out:
                return "timed out draining the agent's queues and copies: the dispatch runs once";
        }
        return nullptr;
    }

    const char* snapshot(core::replay::memory_stats& out) noexcept override {
        const char* why = snap_.take(agent(), opt_, out);
        if (why != nullptr) release();
        return why;
    }

    const char* run_pass(std::uint64_t, std::uint64_t contexts) noexcept override {
        if (stuck_) return "a pass did not complete";
        const std::uint64_t enqueue_mask = subscribed(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE) & contexts;
        const std::uint64_t complete_mask = subscribed(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_COMPLETE) & contexts;
        dispatch_record* d = take_record(*qs_);
        if (d == nullptr) {
            warn_signal_once();
            return "cannot create a completion signal for a pass";
        }
        d->queue = qs_.get();
        d->enqueue_mask = enqueue_mask;
        d->complete_mask = complete_mask;
        d->counted = d->is_gate = false;
        d->app_signal = {};
        d->traced = (enqueue_mask | complete_mask) != 0 &&
                    event::capture_into(d->ev, kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, complete_mask);
        if (d->traced) {
            fill_info(d->payload, *qs_, pkt_, dispatch_id_);  // every pass: the same dispatch id
            d->ev.deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_ENTER,
                             &d->payload);
        }
        hsa_kernel_dispatch_packet_t pkt = pkt_;
        pkt.completion_signal = d->signal;  // the program's signal fires once, after the last pass
        if (d->traced)
            d->ev.deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_EXIT, &d->payload);
        writer_(&pkt, 1);
        // Per-pass drain: the pass has completed and its COMPLETE is delivered (here, on this
        // thread) before PASS EXIT, so passes never overlap and the restore is safe.
        if (!wait_signal(d->signal, opt_.wait_timeout_ns)) {
            stuck_ = true;  // the record stays with the runtime, which may still complete it
            std::lock_guard lk(g_spare_mutex);
            d->next = g_stranded;
            g_stranded = d;
            return "a pass did not complete within the wait bound (ENCORE_REPLAY_TIMEOUT_MS): no further passes";
        }
        deliver_complete(*d);
        // The program's signal answers profiling queries with the last pass's times.
        if (pkt_.completion_signal.handle != 0) {
            hsa_amd_profiling_dispatch_time_t t{};
            if (runtime().amd.hsa_amd_profiling_get_dispatch_time_fn(qs_->agent, d->signal, &t) == HSA_STATUS_SUCCESS)
                remember_program_times(pkt_.completion_signal, t);
        }
        if (d->value != nullptr)
            __atomic_store_n(d->value, 1, __ATOMIC_RELAXED);
        else
            runtime().core.hsa_signal_silent_store_relaxed_fn(d->signal, 1);
        put_back(*qs_, d);
        return nullptr;
    }

    bool restore(core::replay::memory_stats& out) noexcept override { return snap_.restore(out); }

    void finish() noexcept override {
        const hsa_signal_t app = pkt_.completion_signal;
        if (app.handle != 0) {
            if (stuck_) {
                // After the pass still running, in queue order.
                const auto b = barrier_with(app);
                writer_(&b, 1);
            } else {
                runtime().core.hsa_signal_subtract_screlease_fn(app, 1);
            }
        }
        snap_.release();
        release();
    }

    bool checksum(std::uint64_t& out) noexcept override { return snap_.checksum(out); }

private:
    std::uint64_t agent() const noexcept { return qs_->agent.handle; }
    void release() noexcept { replay_gate::release_exclusive(agent()); }

    std::shared_ptr<queue_state> qs_;
    hsa_kernel_dispatch_packet_t pkt_;
    hsa_amd_queue_intercept_packet_writer writer_;
    std::uint64_t dispatch_id_;
    core::replay::options opt_{};
    replay_memory::snapshot snap_;
    bool stuck_ = false;
};

void intercept(const void* pkts, std::uint64_t count, std::uint64_t, void* data,
               hsa_amd_queue_intercept_packet_writer writer) {
    auto* q = static_cast<queue_state*>(data);
    const std::uint64_t enqueue_mask = subscribed(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE);
    const std::uint64_t complete_mask = subscribed(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
    const bool replay_on = replay_gate::enabled();
    // Program signals still to fire on this queue (tracing stopped since) still gate barrier-bit packets.
    if ((enqueue_mask | complete_mask) == 0 && !replay_on && q->unfired.load(std::memory_order_acquire) == 0) {
        writer(pkts, count);
        return;
    }
    queue_state& qs = *q;
    const auto* in = static_cast<const hsa_kernel_dispatch_packet_t*>(pkts);
    if (replay_on && core::replay::service_active()) {
        if (count == 1 && is_kernel_dispatch(in)) {
            if (core::replay::in_replay()) {
                core::replay::warn_once("a dispatch submitted from a replay callback runs once (nested replays are declined)");
            } else {
                // The whole sequence (CONFIG, every pass's ENQUEUE/COMPLETE) shares one
                // correlation id: the submitting call's, or one made for it.
                auto* t = tracing::detail::this_thread();
                const bool own_id = t->current == 0;
                if (own_id) t->current = tracing::detail::next_id(t);
                gate_if_needed(qs, &in[0], writer);
                hsa_kernel_dispatch_packet_t pkt = in[0];
                rocprofiler_callback_tracing_kernel_dispatch_data_t p{};
                const std::uint64_t id = g_dispatch_id.fetch_add(1, std::memory_order_relaxed) + 1;
                fill_info(p, qs, pkt, id);
                hsa_replay backend(qs.shared_from_this(), pkt, writer, id);
                core::replay::replay_dispatch(p.dispatch_info, backend);
                if (own_id) t->current = 0;
                return;
            }
        } else {
            for (std::uint64_t i = 0; i < count; ++i)
                if (is_kernel_dispatch(&in[i])) {
                    core::replay::warn_once("a submission of several packets runs once (only single-packet dispatches are replayed)");
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
        std::fprintf(stderr, "[encore] cannot intercept queue %p; its dispatches are not traced\n", static_cast<void*>(*queue));
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
    // The runtime calls OnUnload before it stops its signal handler thread: let the dispatches
    // still in flight deliver their COMPLETE (bounded: a kernel that never ends must not hang
    // the program's exit).
    backend::drain(g_in_flight, std::chrono::seconds(10),
                   "dispatches did not complete before the HSA runtime unloaded; their COMPLETE records are lost");
    g_runtime_epoch.fetch_add(1, std::memory_order_relaxed);
    const auto& rt = runtime();
    using backend::unhook;
    unhook<&CoreApiTable::hsa_queue_create_fn>(table.core_, &queue_create, rt.core.hsa_queue_create_fn);
    unhook<&CoreApiTable::hsa_queue_destroy_fn>(table.core_, &queue_destroy, rt.core.hsa_queue_destroy_fn);
    unhook<&AmdExtTable::hsa_amd_profiling_get_dispatch_time_fn>(table.amd_ext_, &profiling_get_dispatch_time,
                                                                  rt.amd.hsa_amd_profiling_get_dispatch_time_fn);
}

bool install_dispatch_tracing(::HsaApiTable& table) noexcept {
    if (!configured_operations(kind::kernel_dispatch).any() && !core::replay::service_configured()) return false;
    using backend::has_slot;
    // All three or none: intercepted queues need their destroy, and timing its profiling fix-up.
    if (!has_slot<&CoreApiTable::hsa_queue_create_fn>(table.core_) || !has_slot<&CoreApiTable::hsa_queue_destroy_fn>(table.core_) ||
        !has_slot<&AmdExtTable::hsa_amd_profiling_get_dispatch_time_fn>(table.amd_ext_))
        return false;
    backend::hook<&CoreApiTable::hsa_queue_create_fn>(table.core_, &queue_create);
    backend::hook<&CoreApiTable::hsa_queue_destroy_fn>(table.core_, &queue_destroy);
    backend::hook<&AmdExtTable::hsa_amd_profiling_get_dispatch_time_fn>(table.amd_ext_, &profiling_get_dispatch_time);
    return true;
}

}  // namespace encore::hsa
