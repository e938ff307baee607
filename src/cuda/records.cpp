// src/cuda/records.cpp — KERNEL_DISPATCH, MEMORY_COPY and MEMORY_ALLOCATION records on CUDA.
//
// Launches and copies are timed with CUDA events recorded around them on their stream (two
// cuEventRecord calls; no extra work on the GPU's critical path, unlike timestamp kernels). One
// completion thread per process waits for the end events in submission order and delivers
// COMPLETE (dispatches) and EXIT (asynchronous copies) with the GPU's start and end times, on
// encore's clock (CLOCK_BOOTTIME ns): each context has a base event whose host time is measured
// when it is recorded on an idle private stream (the midpoint of the record call and the first
// completed query; the half-width of that window is the error bound, see docs/cuda.md), and an
// event's time is the base's plus cuEventElapsedTime(base, event). The base is renewed every
// second: elapsed times are floats in milliseconds, which keep sub-microsecond precision only
// over short spans.
//
// Kernel launches have a second, cheaper timing source: CUPTI's activity records (cupti.cpp),
// used when asked (ENCORE_CUDA_DISPATCH_TIMING=auto|cupti; events by default). Then a launch is
// not bracketed by events: its pending COMPLETE waits in a map under a key of encore's own, which
// is queued on the launch's stream for stream-order pairing (or pushed as CUPTI's external
// correlation id around the launch, ENCORE_CUPTI_PAIRING=external); CUPTI's delivery thread hands
// the key back with the kernel's times and delivers the COMPLETE. While CUPTI times launches,
// every launch encore sees queues an entry on its stream (a placeholder when it wants no times),
// so that the stream's kernel records stay in step. Replay passes and copies keep events (a
// pass's COMPLETE must be delivered before PASS EXIT, which events give without a flush).
//
// What is not timed: launches into a stream that is capturing a graph (they do not run then:
// no dispatch records at all), and launches the driver rejected (COMPLETE at once, zero times).
// Every driver call here goes to the real driver, never through encore's traced exports.
#include "records.hpp"

#include "cupti.hpp"
#include "real.hpp"
#include "tracker.hpp"

#include "core/clock.hpp"
#include "core/exit_safe_local.hpp"
#include "core/registry.hpp"
#include "core/warn.hpp"
#include "backend/drain.hpp"
#include "backend/events.hpp"

#include <encore/tracing/tool.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <unordered_map>
#include <vector>

namespace encore::cuda::records {
namespace {

using backend::event;
using backend::subscribed;

/// CUDA has no CPU agents: host memory's side of a copy is this agent id.
constexpr std::uint64_t host_agent = ~0ull;

// ---- per-context timing state -----------------------------------------------------------------
struct context_timing {
    CUcontext ctx = nullptr;
    CUdevice device = 0;
    std::mutex m;  // free events
    std::vector<CUevent> free_events;
    // Only the completion thread (or a replaying thread, under `calibration`) touches these.
    std::mutex calibration;
    CUstream private_stream = nullptr;
    CUevent base = nullptr;
    std::uint64_t base_ns = 0;
    std::uint64_t calibrated_at = 0;  // core::now_ns() then; 0: never
    std::uint64_t error_ns = 0;       // half-width of the base's window
    // Records queued and delivered: the launching threads count the first, the delivering threads
    // (CUPTI's, the completion thread) the second, each on a line of its own, so that a launch
    // writes no cache line those threads write. In flight: queued - delivered (in_flight()).
    alignas(64) std::atomic<std::uint64_t> queued{0};
    alignas(64) std::atomic<std::uint64_t> delivered{0};
    // CUPTI's stream keys (cupti::context_key / stream_key) of this context and of its legacy
    // default stream, found at the first launch that needs them (0: not yet, or CUPTI cannot say).
    std::atomic<std::uint64_t> cupti_context{0}, cupti_legacy{0};
};

/// Whether records of `t` are still to be delivered. `delivered` is read first: if it is at least
/// what `queued` is afterwards, everything queued by then was delivered.
bool in_flight(const context_timing& t) noexcept {
    const std::uint64_t d = t.delivered.load(std::memory_order_acquire);
    return t.queued.load(std::memory_order_acquire) > d;
}

// A context's timing state is never freed: a forgotten context's (forget()) moves to g_retired,
// where records still in flight find it. Why: with a reference count, every launch would write
// the count's line and CUPTI's thread would write it again when the record is freed (on the H200
// that one `lock addl` was 3 % of a launching thread's samples). What a program that destroys
// contexts pays: one context_timing (a few hundred bytes) per context it destroyed.
std::mutex g_contexts_mutex;
auto* g_contexts = new std::map<CUcontext, context_timing*>;  // never destroyed
auto* g_retired = new std::vector<context_timing*>;           // never destroyed

std::atomic<std::uint64_t> g_generation{1};  // bumped when a context is forgotten

/// The timing state of context c (made on first use); throws std::bad_alloc.
context_timing* timing_of(CUcontext c) {
    // The common case (the thread's context as last time) without the map's lock. An
    // exit_safe_local, so launches from the thread's thread_local destructors find it intact.
    struct last_used {
        CUcontext ctx = nullptr;
        std::uint64_t gen = 0;
        context_timing* timing = nullptr;
    };
    last_used* const last = core::exit_safe_local<last_used>::get();
    const std::uint64_t gen = g_generation.load(std::memory_order_acquire);
    if (last != nullptr && c == last->ctx && gen == last->gen && last->timing != nullptr) return last->timing;
    std::lock_guard lk(g_contexts_mutex);
    auto& t = (*g_contexts)[c];
    if (t == nullptr) {
        t = new context_timing;
        t->ctx = c;
        CUdevice d = 0;
        if (real().ctx_get_device != nullptr && real().ctx_get_device(&d) == CUDA_SUCCESS) t->device = d;
    }
    if (last != nullptr) *last = {c, gen, t};
    return t;
}

/// A pair of events of the current context (c), or false.
bool take_events(context_timing& t, CUevent& start, CUevent& end) noexcept {
    {
        std::lock_guard lk(t.m);
        if (t.free_events.size() >= 2) {
            start = t.free_events.back();
            t.free_events.pop_back();
            end = t.free_events.back();
            t.free_events.pop_back();
            return true;
        }
    }
    return real().event_create(&start, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
           real().event_create(&end, CU_EVENT_DEFAULT) == CUDA_SUCCESS;
}

void give_back(context_timing& t, CUevent a, CUevent b) noexcept {
    std::lock_guard lk(t.m);
    try {
        t.free_events.push_back(a);
        t.free_events.push_back(b);
    } catch (...) {
    }
}

/// (Re)measures the context's base event; the context is current on this thread.
void calibrate(context_timing& t) noexcept {
    if (t.private_stream == nullptr && real().stream_create(&t.private_stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
        t.private_stream = nullptr;
    if (t.base == nullptr && real().event_create(&t.base, CU_EVENT_DEFAULT) != CUDA_SUCCESS) t.base = nullptr;
    if (t.private_stream == nullptr || t.base == nullptr) return;
    // The tightest of a few tries: the base's GPU time lies between the record call and the first
    // query that sees it complete.
    std::uint64_t best_mid = 0, best_half = ~0ull;
    for (int i = 0; i < 5 && best_half > 2'000; ++i) {
        const std::uint64_t h0 = core::now_ns();
        if (real().event_record(t.base, t.private_stream) != CUDA_SUCCESS) return;
        CUresult q;
        while ((q = real().event_query(t.base)) == CUDA_ERROR_NOT_READY) {
        }
        const std::uint64_t h1 = core::now_ns();
        if (q != CUDA_SUCCESS) return;
        // Keep the last recording's window (the event holds only the last one).
        best_mid = h0 + (h1 - h0) / 2;
        best_half = (h1 - h0) / 2;
    }
    t.base_ns = best_mid;
    t.error_ns = best_half;
    t.calibrated_at = core::now_ns();
}

/// start/end of a completed event pair on encore's clock; false when the driver cannot say.
bool times_of(context_timing& t, CUevent start, CUevent end, std::uint64_t& s, std::uint64_t& e) noexcept {
    std::lock_guard lk(t.calibration);
    if (t.calibrated_at == 0 || core::now_ns() - t.calibrated_at > 1'000'000'000ull) calibrate(t);
    if (t.calibrated_at == 0) return false;
    float ms_s = 0, ms_e = 0;
    if (real().event_elapsed(&ms_s, t.base, start) != CUDA_SUCCESS ||
        real().event_elapsed(&ms_e, t.base, end) != CUDA_SUCCESS)
        return false;
    const auto at = [&](float ms) {
        return static_cast<std::uint64_t>(static_cast<double>(t.base_ns) + static_cast<double>(ms) * 1e6);
    };
    s = at(ms_s);
    e = at(ms_e);
    if (e < s) e = s;  // both rounded from floats
    return true;
}

// ---- the completion thread ----------------------------------------------------------------------
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

// ---- launch records without the allocator ----------------------------------------------------------
// Each launching thread keeps a pool of records. A record goes back to its home pool from the
// thread that delivered its last record (CUPTI's, the completion thread): onto the pool's
// `returned` stack, which its owner takes whole when its own list runs out. Why: allocating a
// record (1.4 KB with its event) per launch, freed by another thread, made glibc's allocator a
// third of a CUPTI-timed launch's cost on the fake driver (benchmarks/RESULTS.md). A pool whose
// thread ended goes to g_orphans, for the next thread that needs one (records in flight still
// find their home). Pools are never freed; each keeps at most `pool_keep` idle records: enough
// for the launches that wait for CUPTI's next buffer (a 10 ms flush period, a 4 MiB buffer of
// ~19,000 kernel records), or every launch past it allocated one and CUPTI's thread freed it
// (with 4,096 that was 15 % of a launch on the fake driver). At ~1.4 KB a record, a thread that
// had that many launches waiting at once keeps up to 45 MB of what others gave back (and as much
// of what it delivered itself).
struct record_pool {
    pending* local = nullptr;  // the owning thread's idle records
    std::size_t local_n = 0;
    record_pool* next_orphan = nullptr;
    alignas(64) std::atomic<pending*> returned{nullptr};  // given back by other threads
};
constexpr std::size_t pool_keep = std::size_t{1} << 15;

std::mutex g_orphans_mutex;
record_pool* g_orphans = nullptr;

/// A thread's pool, handed to g_orphans when the thread ends.
struct pool_owner {
    record_pool* pool = nullptr;
    pool_owner() = default;
    pool_owner(const pool_owner&) = delete;
    pool_owner& operator=(const pool_owner&) = delete;
    ~pool_owner() {
        if (pool == nullptr) return;
        std::lock_guard lk(g_orphans_mutex);
        pool->next_orphan = g_orphans;
        g_orphans = pool;
    }
};

/// This thread's pool (adopted or made when `make`), or null.
record_pool* my_pool(bool make) noexcept {
    pool_owner* const o = core::exit_safe_local<pool_owner>::get();
    if (o == nullptr) return nullptr;
    if (o->pool == nullptr && make) {
        {
            std::lock_guard lk(g_orphans_mutex);
            if (g_orphans != nullptr) {
                o->pool = g_orphans;
                g_orphans = g_orphans->next_orphan;
                o->pool->next_orphan = nullptr;
            }
        }
        if (o->pool == nullptr) o->pool = new (std::nothrow) record_pool;
    }
    return o->pool;
}

/// Asks for the lines of `p` a launch writes (take_record's reset, the ENQUEUE's capture, the
/// pairing) ahead of its use.
void prefetch_for_write(const pending& p) noexcept {
    // From its start to the first line of `captured` (the event's fixed part), and its end.
    const auto* const end = reinterpret_cast<const char*>(&p.captured) + 64;
    for (const auto* b = reinterpret_cast<const char*>(&p); b < end; b += 64) __builtin_prefetch(b, 1, 3);
    __builtin_prefetch(&p.home, 1, 3);
}

/// A record as new (`captured` aside), or null when there is no memory for one.
pending* take_record() noexcept {
    record_pool* const pool = my_pool(true);
    if (pool != nullptr) {
        if (pool->local == nullptr) {
            // What other threads gave back, taken whole (give_record counted it and kept it
            // within pool_keep).
            pending* const p = pool->returned.exchange(nullptr, std::memory_order_acquire);
            pool->local = p;
            pool->local_n = p != nullptr ? p->returned_n.load(std::memory_order_relaxed) : 0;
        }
        if (pending* p = pool->local) {
            pool->local = p->next_free;
            if (pool->local_n != 0) --pool->local_n;  // a bound (give_record)
            // The next launch's record was last written by the thread that gave it back (CUPTI's,
            // mostly): its lines move here while this launch runs, not when the next one writes
            // them (then its first locked instruction waited for those stores: 14 % of a launch
            // on the fake driver under perf; prefetched, 20 to 30 ns less per launch).
            if (pool->local != nullptr) prefetch_for_write(*pool->local);
            p->reset();
            return p;
        }
    }
    pending* const p = new (std::nothrow) pending;
    if (p != nullptr) p->home = pool;
    return p;
}

/// Gives record `p` back to its pool (any thread).
void give_record(pending* p) noexcept {
    record_pool* const home = p->home;
    if (home == nullptr) {
        delete p;
        return;
    }
    if (home == my_pool(false)) {
        if (home->local_n >= pool_keep) {
            delete p;
            return;
        }
        p->next_free = home->local;
        home->local = p;
        ++home->local_n;
        return;
    }
    pending* head = home->returned.load(std::memory_order_acquire);
    std::uint32_t n = 0;
    do {
        // `head` may have been taken and reused meanwhile: then the count is stale and the CAS
        // fails (or, where `head` came back on top, the count is off by what it missed: the cap
        // and local_n are only bounds).
        n = head != nullptr ? head->returned_n.load(std::memory_order_relaxed) : 0;
        if (n >= pool_keep) {
            delete p;  // on the giving thread: the launching thread never frees what others hand back
            return;
        }
        p->next_free = head;
        p->returned_n.store(n + 1, std::memory_order_relaxed);
    } while (!home->returned.compare_exchange_weak(head, p, std::memory_order_release, std::memory_order_acquire));
}

struct record_deleter {
    void operator()(pending* p) const noexcept { give_record(p); }
};
using record_ptr = std::unique_ptr<pending, record_deleter>;

std::mutex g_queue_mutex;
std::condition_variable g_queue_cv;
auto* g_queue = new std::deque<record_ptr>;  // never destroyed
bool g_worker_started = false;
bool g_stop = false;

void deliver(pending& p, bool timed) noexcept {
    if (p.k == kind::kernel_dispatch) {
        if (timed) (void)times_of(*p.t, p.start, p.end, p.dispatch.start_timestamp, p.dispatch.end_timestamp);
        // Each context gets a copy of the user_data its ENQUEUE left.
        rocprofiler_user_data_t copies[tracing::max_contexts];
        for (std::uint64_t m = p.mask; m != 0; m &= m - 1) {
            const auto c = static_cast<unsigned>(__builtin_ctzll(m));
            copies[c] = p.ev->user_data[c];
        }
        p.ev->deliver_to(p.mask, ROCPROFILER_KERNEL_DISPATCH_COMPLETE, ROCPROFILER_CALLBACK_PHASE_NONE, &p.dispatch,
                         copies);
    } else {
        if (timed) (void)times_of(*p.t, p.start, p.end, p.copy.start_timestamp, p.copy.end_timestamp);
        p.ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p.copy);
    }
}

/// Waits (polling, with a growing sleep) until `e` completed or failed; false on failure or when
/// `deadline_ns` (encore time, 0: none) passed.
bool wait_event(CUevent e, std::uint64_t deadline_ns = 0, bool spin = false) noexcept {
    using namespace std::chrono;
    // `spin`: a replay pass owns its GPU, or a synchronous copy has (nearly) completed: poll
    // closely. Otherwise no tight spinning: each query takes the driver's locks, which the
    // program's own launches need (delivery latency matters less than its submission rate).
    auto nap = microseconds(5);
    for (;;) {
        const CUresult q = real().event_query(e);
        if (q == CUDA_SUCCESS) return true;
        if (q != CUDA_ERROR_NOT_READY) return false;
        if (deadline_ns != 0 && core::now_ns() > deadline_ns) return false;
        if (spin) continue;
        std::this_thread::sleep_for(nap);
        if (nap < microseconds(1000)) nap *= 2;
    }
}

void complete(pending& p) noexcept {
    CUcontext cur = current_context();
    if (cur != p.t->ctx) (void)real().ctx_set_current(p.t->ctx);
    const bool ok = wait_event(p.end);
    deliver(p, ok);
    give_back(*p.t, p.start, p.end);
    p.t->delivered.fetch_add(1, std::memory_order_release);
}

void worker() noexcept {
    for (;;) {
        record_ptr p;
        {
            std::unique_lock lk(g_queue_mutex);
            g_queue_cv.wait(lk, [] { return g_stop || !g_queue->empty(); });
            if (g_queue->empty()) return;  // stopping, nothing left
            p = std::move(g_queue->front());
            g_queue->pop_front();
        }
        complete(*p);
    }
}

void drain_all() noexcept;

/// Registers drain_all once, after the tools' finalization (registered at initialization): it runs
/// before that, so the last records reach the tools.
void drain_at_exit() noexcept {
    static const bool registered = std::atexit(drain_all) == 0;
    (void)registered;
}

void enqueue(record_ptr p) noexcept {
    p->t->queued.fetch_add(1, std::memory_order_relaxed);
    std::unique_lock lk(g_queue_mutex);
    if (!g_worker_started) {
        try {
            std::thread(worker).detach();
            g_worker_started = true;
            drain_at_exit();
        } catch (...) {
            lk.unlock();
            core::warn("libencore-cuda: cannot start the completion thread; records are delivered late");
            complete(*p);  // delivered here, waiting for the GPU
            return;
        }
    }
    try {
        g_queue->push_back(std::move(p));
    } catch (...) {
        lk.unlock();
        complete(*p);
        return;
    }
    lk.unlock();
    g_queue_cv.notify_one();
}

/// Whether launches are timed through CUPTI (set once, at the first launch that wants COMPLETE).
std::atomic<bool> g_cupti_timing{false};

/// Delivers the CUPTI-timed launches of `t` (all: null) still waiting, without times (cupti
/// section below); how many.
std::size_t complete_cupti_untimed(const context_timing* t) noexcept;

/// Waits (bounded) until no record of `t` (or of any context: null) is pending.
void wait_delivered(const context_timing* t) noexcept {
    auto delivered = [&] {
        if (t != nullptr) return !in_flight(*t);
        std::lock_guard lk(g_contexts_mutex);
        for (const auto& [c, ct] : *g_contexts)
            if (ct != nullptr && in_flight(*ct)) return false;
        for (const context_timing* ct : *g_retired)
            if (in_flight(*ct)) return false;
        return true;
    };
    // CUPTI-timed COMPLETEs arrive when CUPTI hands over its buffers: asked for every millisecond
    // (a flush takes CUPTI's locks); after 2 s also the records CUPTI has not completed (zero times).
    const std::uint64_t t0 = core::now_ns();
    std::uint64_t flushed_at = 0;
    auto delivered_or_flush = [&] {
        if (delivered()) return true;
        if (!g_cupti_timing.load(std::memory_order_acquire)) return false;
        const std::uint64_t now = core::now_ns();
        if (now - flushed_at < 1'000'000) return false;
        flushed_at = now;
        cupti::flush(now - t0 > 2'000'000'000ull);
        return delivered();
    };
    if (backend::wait_until(delivered_or_flush, std::chrono::seconds(10), std::chrono::microseconds(50))) return;
    // CUPTI-timed launches whose times never came still get their COMPLETE, without times.
    const std::size_t untimed = complete_cupti_untimed(t);
    if (!delivered())
        core::warn("libencore-cuda: GPU work did not complete within 10 s; its records are lost");
    else
        core::warn("libencore-cuda: CUPTI gave no times for %zu launches within 10 s; their COMPLETE records have "
                   "none",
                   untimed);
}

void drain_all() noexcept {
    wait_delivered(nullptr);
    if (g_cupti_timing.load(std::memory_order_acquire)) cupti::report();
    std::lock_guard lk(g_queue_mutex);
    g_stop = true;
    g_queue_cv.notify_all();
}

std::atomic<std::uint64_t> g_dispatch_id{0};

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
cupti_slot g_slots[cupti_slots];  // zero-initialized (static storage): pages only where used

std::mutex g_cupti_mutex;                                                  // the overflow's
auto* g_cupti_overflow = new std::unordered_map<std::uint64_t, pending*>;  // never destroyed
std::atomic<std::size_t> g_overflow_n{0};
std::atomic<std::uint64_t> g_cupti_key{0};
// Launches put and taken: waiting = put - taken (check_cupti_pairing). Each on its own line, as
// context_timing's counts.
alignas(64) std::atomic<std::uint64_t> g_cupti_put{0};
alignas(64) std::atomic<std::uint64_t> g_cupti_taken{0};

/// Puts launch `p` under `key` (key < busy). false: no room (no memory for the overflow).
bool put_pending(std::uint64_t key, pending* p) noexcept {
    cupti_slot& s = g_slots[key & (cupti_slots - 1)];
    std::uint64_t expected = 0;
    if (s.key.compare_exchange_strong(expected, key | busy, std::memory_order_acquire, std::memory_order_relaxed)) {
        s.p = p;
        s.key.store(key, std::memory_order_release);
    } else {
        try {
            std::lock_guard lk(g_cupti_mutex);
            g_cupti_overflow->emplace(key, p);
            g_overflow_n.fetch_add(1, std::memory_order_release);
        } catch (...) {
            return false;
        }
    }
    g_cupti_put.fetch_add(1, std::memory_order_relaxed);
    return true;
}

/// Takes the launch waiting under `key` off the table, or null when none waits (any more).
pending* take_pending(std::uint64_t key) noexcept {
    cupti_slot& s = g_slots[key & (cupti_slots - 1)];
    std::uint64_t expected = key;
    pending* p = nullptr;
    if (s.key.compare_exchange_strong(expected, key | busy, std::memory_order_acquire, std::memory_order_relaxed)) {
        p = s.p;
        s.key.store(0, std::memory_order_release);
    } else if (g_overflow_n.load(std::memory_order_acquire) != 0) {
        std::lock_guard lk(g_cupti_mutex);
        if (auto it = g_cupti_overflow->find(key); it != g_cupti_overflow->end()) {
            p = it->second;
            g_cupti_overflow->erase(it);
            g_overflow_n.fetch_sub(1, std::memory_order_relaxed);
        }
    }
    if (p != nullptr) g_cupti_taken.fetch_add(1, std::memory_order_relaxed);
    return p;
}

/// The keys of the launches waiting for context `t` (any: null).
std::vector<std::uint64_t> pending_keys(const context_timing* t) {
    std::vector<std::uint64_t> keys;
    for (cupti_slot& s : g_slots) {
        std::uint64_t k = s.key.load(std::memory_order_relaxed);
        if (k == 0 || (k & busy) != 0) continue;
        // Held while `p` is read, so the launch cannot be taken (and its record reused) meanwhile.
        if (!s.key.compare_exchange_strong(k, k | busy, std::memory_order_acquire, std::memory_order_relaxed)) continue;
        const bool ours = t == nullptr || s.p->t == t;
        s.key.store(k, std::memory_order_release);
        if (ours) keys.push_back(k);
    }
    std::lock_guard lk(g_cupti_mutex);
    for (const auto& [k, p] : *g_cupti_overflow)
        if (t == nullptr || p->t == t) keys.push_back(k);
    return keys;
}

/// The second of the launching thread and CUPTI's delivery: COMPLETE with the times CUPTI gave,
/// then the record goes back to its pool.
void finish_cupti(pending* p) noexcept {
    p->dispatch.start_timestamp = p->cupti_start;
    p->dispatch.end_timestamp = p->cupti_end;
    deliver(*p, false);
    p->t->delivered.fetch_add(1, std::memory_order_release);
    give_record(p);
}

/// CUPTI's times (`timed` false: none) reached launch `p`, taken off the table: the second of the
/// launching thread and CUPTI's delivery finishes it.
void times_arrived(pending* p, std::uint64_t start, std::uint64_t end, bool timed) noexcept {
    if (timed) {
        p->cupti_start = start;
        p->cupti_end = end < start ? start : end;
    }
    // acq_rel: the launching thread's ENQUEUE EXIT happened before, or it sees these times.
    if (p->arrivals.fetch_add(1, std::memory_order_acq_rel) == 0) return;  // the launching thread finishes
    finish_cupti(p);
}

bool on_cupti_times(std::uint64_t key, std::uint64_t start, std::uint64_t end, bool timed) noexcept {
    pending* const p = take_pending(key);
    if (p == nullptr) return false;  // not a launch waiting for times (any more)
    times_arrived(p, start, end, timed);
    return true;
}

/// A CUPTI buffer's completions in stream order.
void on_cupti_batch(const cupti::completion* c, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) (void)on_cupti_times(c[i].key, c[i].start_ns, c[i].end_ns, c[i].timed);
}

/// Set when CUPTI turned out not to pair launches with kernel records: later launches use events.
std::atomic<bool> g_cupti_off{false};
constexpr std::uint64_t pairing_check = 1024;  // launches between checks; also the evidence needed

/// The safety net of cupti::pairing_health: gives up on CUPTI (said once), delivering the
/// launches still waiting without times.
void check_cupti_pairing() noexcept {
    const std::uint64_t taken = g_cupti_taken.load(std::memory_order_relaxed);
    const std::uint64_t put = g_cupti_put.load(std::memory_order_relaxed);
    const std::size_t waiting = put > taken ? static_cast<std::size_t>(put - taken) : 0;
    const cupti::health h = cupti::pairing_health(waiting, pairing_check);
    if (h == cupti::health::ok || g_cupti_off.exchange(true)) return;
    cupti::stop();
    if (h == cupti::health::never_paired)
        core::warn("libencore-cuda: CUPTI paired none of %zu launches with its kernel records; dispatch times come "
                   "from CUDA events from now on (ENCORE_CUDA_DISPATCH_TIMING=events avoids CUPTI)",
                   waiting);
    else
        core::warn("libencore-cuda: CUPTI's kernel records fell out of step with encore's launches %llu times "
                   "(records lost or kernels encore did not launch); dispatch times come from CUDA events from now "
                   "on (ENCORE_CUDA_DISPATCH_TIMING=events avoids CUPTI)",
                   static_cast<unsigned long long>(cupti::drift_events()));
    (void)complete_cupti_untimed(nullptr);
}

std::size_t complete_cupti_untimed(const context_timing* t) noexcept {
    std::vector<std::uint64_t> keys;
    try {
        keys = pending_keys(t);
    } catch (...) {
    }
    std::size_t n = 0;
    for (std::uint64_t k : keys) n += on_cupti_times(k, 0, 0, false);
    return n;
}

/// A CUPTI stream key kept by a thread: valid for context timing state `t` of generation `gen`,
/// stream handle `stream` while the driver's id of that stream is `id`. Trivially destructible,
/// so launches from thread_local destructors can use one.
struct kept_stream_key {
    const context_timing* t = nullptr;
    std::uint64_t gen = 0;
    CUstream stream = nullptr;
    unsigned long long id = 0;
    std::uint64_t key = 0;
};

/// `k`'s key if it is still that of (t, s, id), else CUPTI's, kept in `k` (`ctx_key`: the
/// context's key; `per_thread`: `s` is null and names the calling thread's default stream).
std::uint64_t kept_or_asked(kept_stream_key& k, context_timing& t, std::uint64_t ctx_key, CUstream s,
                            unsigned long long id, bool per_thread) noexcept {
    const std::uint64_t gen = g_generation.load(std::memory_order_acquire);
    if (k.t != &t || k.gen != gen || k.stream != s || k.id != id || k.key == 0)
        k = {&t, gen, s, id, cupti::stream_key(ctx_key, t.ctx, s, per_thread)};
    return k.key;
}

/// CUPTI's key of created stream `s` of context `t` (`ctx_key`: the context's), kept per thread
/// for the streams it launched on last. Asking CUPTI (cuptiGetStreamIdEx) costs 0.12 to 0.22 us
/// per call on an H200 host, the driver's own stream id (cuStreamGetId, CUDA 12.0+) 0 to 0.08 us
/// (benchmarks/cuda/launch_calls.cu): a kept key is used while the handle's driver id is the one
/// it was kept with. A handle can be reused for a new stream after cuStreamDestroy (which encore
/// does not intercept), and that stream has a new id, so a stale key (which would queue the
/// launch where its record never comes) is never used. Without cuStreamGetId, CUPTI is asked
/// every time.
std::uint64_t created_stream_key(context_timing& t, std::uint64_t ctx_key, CUstream s) noexcept {
    unsigned long long id = 0;
    if (real().stream_get_id == nullptr || real().stream_get_id(s, &id) != CUDA_SUCCESS || id == 0)
        return cupti::stream_key(ctx_key, t.ctx, s, false);
    static thread_local kept_stream_key kept[8];  // direct-mapped by handle
    return kept_or_asked(kept[(reinterpret_cast<std::uintptr_t>(s) >> 4) & 7], t, ctx_key, s, id, false);
}

/// CUPTI's stream key of launch `c`'s stream (`t`: the current context's timing state); 0 when
/// CUPTI cannot name it. The context's and its legacy default stream's keys are kept in `t`, the
/// per-thread default stream's per thread, a created stream's as created_stream_key says.
std::uint64_t cupti_stream_of(context_timing& t, const launch_call& c) noexcept {
    std::uint64_t ctx_key = t.cupti_context.load(std::memory_order_relaxed);
    if (ctx_key == 0) {
        ctx_key = cupti::context_key(t.ctx);
        if (ctx_key == 0) return 0;
        t.cupti_context.store(ctx_key, std::memory_order_relaxed);
    }
    CUstream s = c.stream;
    bool per_thread = c.per_thread;
    if (s == CU_STREAM_LEGACY) s = nullptr, per_thread = false;
    if (s == CU_STREAM_PER_THREAD) s = nullptr, per_thread = true;
    if (s != nullptr) return created_stream_key(t, ctx_key, s);
    if (!per_thread) {
        std::uint64_t k = t.cupti_legacy.load(std::memory_order_relaxed);
        if (k == 0) {
            k = cupti::stream_key(ctx_key, t.ctx, nullptr, false);
            t.cupti_legacy.store(k, std::memory_order_relaxed);
        }
        return k;
    }
    // The calling thread's default stream: its key for the context last asked about.
    static thread_local kept_stream_key last;
    return kept_or_asked(last, t, ctx_key, nullptr, 0, true);
}

/// Whether launches queue entries for CUPTI's stream-order pairing now.
bool cupti_queueing() noexcept;

/// Submits launch `c` with a placeholder queued on its stream (CUPTI times launches in stream
/// order and this one's kernel record is not wanted: it must still be consumed in order).
CUresult submit_placeholder(const launch_call& c) noexcept {
    const CUcontext ctx = current_context();
    if (ctx == nullptr) return c.submit();
    context_timing* t = nullptr;
    try {
        t = timing_of(ctx);
    } catch (...) {
        return c.submit();
    }
    cupti::queued_launch q(cupti_stream_of(*t, c), 0, c.grid, c.block);
    const CUresult r = c.submit();
    if (r != CUDA_SUCCESS) q.rejected();
    return r;
}

/// Launch `c` with its COMPLETE timed by CUPTI; false (nothing done, `owned` kept) when it cannot
/// be set up. `owned->t` is the launch's context's timing state.
bool launch_cupti(record_ptr& owned, const launch_call& c, std::uint64_t enqueue_mask, CUresult& r) noexcept {
    pending* p = owned.get();
    const bool external = cupti::method() == cupti::pairing::external;
    // A stream CUPTI cannot name is timed with events (its kernel record is ignored as not ours).
    const std::uint64_t ids = external ? 0 : cupti_stream_of(*p->t, c);
    if (!external && ids == 0) return false;
    const std::uint64_t key = g_cupti_key.fetch_add(1, std::memory_order_relaxed) + 1;
    if (!put_pending(key, p)) return false;  // no memory for the overflow: timed with events
    (void)owned.release();                   // the table's now, until taken
    p->t->queued.fetch_add(1, std::memory_order_relaxed);
    drain_at_exit();
    if ((key & (pairing_check - 1)) == 0) check_cupti_pairing();
    bool pushed = false;
    if (external) {
        pushed = cupti::push(key);
        r = c.submit();
        if (pushed) cupti::pop();
    } else {
        cupti::queued_launch q(ids, key, c.grid, c.block);
        r = c.submit();
        pushed = q.queued();
        if (r != CUDA_SUCCESS) q.rejected();
    }
    p->ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_EXIT, &p->dispatch);
    if (r != CUDA_SUCCESS || !pushed) {
        // No kernel record will come: COMPLETE now, without GPU times (unless CUPTI took it).
        if (pending* const mine = take_pending(key)) {
            finish_cupti(mine);
            return true;
        }
    }
    if (p->arrivals.fetch_add(1, std::memory_order_acq_rel) == 1) finish_cupti(p);
    return true;
}

bool capturing(CUstream s) noexcept {
    if (real().stream_is_capturing == nullptr) return false;
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    return real().stream_is_capturing(s, &st) == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE;
}

void fill_dispatch(rocprofiler_callback_tracing_kernel_dispatch_data_t& p, const launch_call& c, std::uint64_t device,
                   std::uint64_t id) noexcept {
    p.size = sizeof(p);
    p.dispatch_info = dispatch_info(c, device, id);
}

/// Submits `submit` on stream `s` between two pooled events of context `ctx` (null: untimed).
/// Whether both events were recorded around a successful submission; `r`: the submission's result.
bool submit_timed(pending& p, CUcontext ctx, CUstream s, const thunk& submit, CUresult& r) noexcept {
    bool started = false;
    if (ctx != nullptr) {
        p.t = timing_of(ctx);
        started = take_events(*p.t, p.start, p.end) && real().event_record(p.start, s) == CUDA_SUCCESS;
    }
    r = submit();
    return started && r == CUDA_SUCCESS && real().event_record(p.end, s) == CUDA_SUCCESS;
}

bool is_device_memory(CUdeviceptr p) noexcept {
    unsigned type = 0;
    if (real().pointer_attribute == nullptr ||
        real().pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS)
        return false;  // pageable host memory is unknown to the driver
    return type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED;
}

/// Whether launches are timed by CUPTI: decided at the first launch that wants a COMPLETE, so a
/// process whose tools want none never loads CUPTI.
bool cupti_timing() noexcept {
    static const bool on = [] {
        const bool a = real().timing() && cupti::active(&on_cupti_times, &on_cupti_batch);
        g_cupti_timing.store(a, std::memory_order_release);
        // Registered (again, if copies registered it before) after whatever CUPTI registered
        // while initializing: the exit drain, which flushes CUPTI, runs before CUPTI's own
        // teardown. A second drain_all finds nothing pending.
        if (a) (void)std::atexit(drain_all);
        return a;
    }();
    return on && !g_cupti_off.load(std::memory_order_relaxed);
}

bool cupti_queueing() noexcept {
    return g_cupti_timing.load(std::memory_order_acquire) && !g_cupti_off.load(std::memory_order_relaxed) &&
           cupti::method() == cupti::pairing::stream;
}

}  // namespace

bool dispatches_configured() noexcept { return core::kind_configured(kind::kernel_dispatch); }
bool copies_configured() noexcept { return core::kind_configured(kind::memory_copy); }
bool allocations_configured() noexcept { return core::kind_configured(kind::memory_allocation); }

std::uint64_t next_dispatch_id() noexcept { return g_dispatch_id.fetch_add(1, std::memory_order_relaxed) + 1; }

rocprofiler_kernel_dispatch_info_t dispatch_info(const launch_call& c, std::uint64_t device, std::uint64_t id) noexcept {
    rocprofiler_kernel_dispatch_info_t info{};
    info.size = sizeof(info);
    info.agent_id.handle = device;
    info.queue_id.handle = reinterpret_cast<std::uint64_t>(c.work_stream());
    info.kernel_id = reinterpret_cast<std::uint64_t>(c.f);
    info.dispatch_id = id;
    info.private_segment_size = 0;
    info.group_segment_size = c.shared;
    info.workgroup_size = {c.block[0], c.block[1], c.block[2]};
    info.grid_size = {c.grid[0] * c.block[0], c.grid[1] * c.block[1], c.grid[2] * c.block[2]};
    return info;
}

CUresult launch(const launch_call& c, std::uint64_t dispatch_id) noexcept {
    // Both as of one moment (backend::subscribed_pair): every COMPLETE has its ENQUEUE.
    const auto [enqueue_mask, complete_mask] = backend::subscribed_pair(kind::kernel_dispatch,
                                                                        ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                                                        ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
    const CUstream s = c.work_stream();
    if ((enqueue_mask | complete_mask) == 0) {
        if (cupti_queueing() && !capturing(s)) return submit_placeholder(c);
        return c.submit();
    }
    if (capturing(s)) return c.submit();  // recorded into a graph, not run now
    record_ptr p(take_record());
    if (p && event::capture_into_for(p->captured, kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                     enqueue_mask | complete_mask))
        p->ev = &p->captured;
    if (!p || p->ev == nullptr) return cupti_queueing() ? submit_placeholder(c) : c.submit();
    p->mask = complete_mask & p->ev->mask;
    // The context once, its device from the timing state (one driver call per launch fewer: with
    // CUPTI's API records on, each of encore's own driver calls costs a record too).
    const CUcontext ctx = current_context();
    std::uint64_t device = 0;
    if (ctx != nullptr) {
        try {
            p->t = timing_of(ctx);
            device = static_cast<std::uint64_t>(p->t->device);
        } catch (...) {
            device = current_device();
        }
    }
    fill_dispatch(p->dispatch, c, device, dispatch_id != 0 ? dispatch_id : next_dispatch_id());
    p->ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_ENTER, &p->dispatch);
    CUresult r;
    if (p->mask != 0 && p->t && cupti_timing() && launch_cupti(p, c, enqueue_mask, r)) return r;
    bool timed = false;
    if (p->mask == 0 && cupti_queueing()) {
        r = submit_placeholder(c);  // no COMPLETE wanted: no events either
    } else {
        timed = submit_timed(*p, p->mask != 0 && real().timing() ? ctx : nullptr, s, c.submit, r);
    }
    p->ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_EXIT, &p->dispatch);
    if (p->mask == 0) {
        if (p->t && p->start != nullptr) give_back(*p->t, p->start, p->end);
        return r;
    }
    if (!timed) {
        // Rejected by the driver (or no timing): COMPLETE now, without GPU times.
        if (p->t && p->start != nullptr) give_back(*p->t, p->start, p->end);
        p->t = nullptr;
        deliver(*p, false);
        return r;
    }
    enqueue(std::move(p));
    return r;
}

CUresult launch_pass(const launch_call& c, std::uint64_t dispatch_id, std::uint64_t contexts, bool& completed,
                     std::uint64_t timeout_ns) noexcept {
    completed = false;
    const auto both = backend::subscribed_pair(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                               ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
    const std::uint64_t enqueue_mask = both.first & contexts;
    const std::uint64_t complete_mask = both.second & contexts;
    const CUstream s = c.work_stream();
    const CUcontext ctx = current_context();
    if (ctx == nullptr || !real().timing()) return CUDA_ERROR_INVALID_CONTEXT;
    pending p;
    try {
        p.t = timing_of(ctx);
    } catch (...) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if ((enqueue_mask | complete_mask) != 0) {
        if (event::capture_into_for(p.captured, kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                    enqueue_mask | complete_mask))
            p.ev = &p.captured;
        if (p.ev) {
            p.mask = complete_mask & p.ev->mask;
            fill_dispatch(p.dispatch, c, static_cast<std::uint64_t>(p.t->device), dispatch_id);
            p.ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_ENTER,
                             &p.dispatch);
        }
    }
    // The pass is waited for through its end event, bounded: a kernel that never ends must not
    // hang the replay.
    if (!take_events(*p.t, p.start, p.end)) return CUDA_ERROR_OUT_OF_MEMORY;
    const bool started = real().event_record(p.start, s) == CUDA_SUCCESS;
    // Timed with events; with CUPTI pairing in stream order, its kernel record is consumed in order.
    const CUresult r = cupti_queueing() ? submit_placeholder(c) : c.submit();
    const bool ended = r == CUDA_SUCCESS && real().event_record(p.end, s) == CUDA_SUCCESS;
    if (p.ev)
        p.ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_EXIT, &p.dispatch);
    completed = ended && wait_event(p.end, core::now_ns() + timeout_ns, true);
    if (p.ev && p.mask != 0) deliver(p, completed && started);
    // An event still pending on a stuck kernel is not reused (its stream may yet complete it).
    if (completed) give_back(*p.t, p.start, p.end);
    return r;
}

CUresult copy(const copy_call& c) noexcept {
    op_id dir = c.direction;
    std::uint64_t mask = 0;
    for (op_id op = ROCPROFILER_MEMORY_COPY_HOST_TO_HOST; op < ROCPROFILER_MEMORY_COPY_LAST; ++op)
        mask |= subscribed(kind::memory_copy, op);
    if (mask == 0) return c.submit();
    bool src_dev = dir == ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST || dir == ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE;
    bool dst_dev = dir == ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE || dir == ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE;
    if (dir == 0) {
        const auto on_device = [](copy_side side, CUdeviceptr at) {
            return side == copy_side::by_address ? is_device_memory(at) : side == copy_side::device;
        };
        src_dev = on_device(c.src_side, c.src);
        dst_dev = on_device(c.dst_side, c.dst);
        dir = ROCPROFILER_MEMORY_COPY_HOST_TO_HOST + (src_dev ? 2 : 0) + (dst_dev ? 1 : 0);
    }
    const CUstream s = c.work_stream();
    if (capturing(s)) return c.submit();
    record_ptr p(take_record());
    if (p && event::capture_into_for(p->captured, kind::memory_copy, dir, subscribed(kind::memory_copy, dir)))
        p->ev = &p->captured;
    if (!p || p->ev == nullptr) return c.submit();
    p->k = kind::memory_copy;
    const std::uint64_t device = current_device();
    p->copy.size = sizeof(p->copy);
    p->copy.dst_agent_id.handle = dst_dev ? device : host_agent;
    p->copy.src_agent_id.handle = src_dev ? device : host_agent;
    p->copy.bytes = c.bytes;
    p->copy.dst_address.value = c.dst;
    p->copy.src_address.value = c.src;
    p->ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p->copy);
    CUresult r;
    const bool timed = submit_timed(*p, real().timing() ? current_context() : nullptr, s, c.submit, r);
    if (!timed || !c.async) {
        // A synchronous copy's EXIT comes on this thread, like HSA's hsa_memory_copy: the copy
        // has completed then (some return before the DMA ends: its end event is waited for).
        const bool ok = timed && wait_event(p->end, 0, true);
        if (p->t && p->start != nullptr) {
            if (ok) (void)times_of(*p->t, p->start, p->end, p->copy.start_timestamp, p->copy.end_timestamp);
            give_back(*p->t, p->start, p->end);
        }
        p->ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p->copy);
        return r;
    }
    enqueue(std::move(p));
    return r;
}

namespace {
/// An allocation record's agent: pinned host memory gets MEMORY_COPY's host agent.
std::uint64_t agent_of(memory_of of) noexcept { return of == memory_of::host ? host_agent : current_device(); }
}  // namespace

CUresult allocate(op_id op, CUdeviceptr* out, std::size_t size, thunk call, const std::size_t* size_at_exit,
                  memory_of of) noexcept {
    auto ev = event::capture(kind::memory_allocation, op);
    rocprofiler_callback_tracing_memory_allocation_data_t p{};
    p.size = sizeof(p);
    if (ev) {
        p.agent_id.handle = agent_of(of);
        p.allocation_size = size;
        p.start_timestamp = core::now_ns();
        ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
    }
    const CUresult r = call();
    if (ev) {
        p.end_timestamp = core::now_ns();
        if (r == CUDA_SUCCESS && out != nullptr) p.address.value = *out;
        p.allocation_size = size_at_exit != nullptr ? *size_at_exit : size;
        ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
    }
    return r;
}

CUresult deallocate(op_id op, CUdeviceptr ptr, thunk call, memory_of of) noexcept {
    // A null pointer frees nothing (cudaFree(0) is the CUDA runtime's idiom for making the
    // context): no record, so every FREE a tool sees matches an allocation. The driver call
    // itself is still traced as an API call.
    if (ptr == 0) return call();
    auto ev = event::capture(kind::memory_allocation, op);
    rocprofiler_callback_tracing_memory_allocation_data_t p{};
    p.size = sizeof(p);
    if (ev) {
        p.agent_id.handle = agent_of(of);
        p.address.value = ptr;
        switch (of) {
            case memory_of::device:
                // Memory allocated before encore's layers were in place (or through an op
                // without one): the driver still knows its size until the free.
                p.allocation_size = tracker::size_of(ptr);
                if (p.allocation_size == 0) p.allocation_size = tracker::driver_size_of(ptr);
                break;
            case memory_of::vmm: p.allocation_size = tracker::vmm_size_of(ptr); break;
            case memory_of::host: p.allocation_size = tracker::host_size_of(reinterpret_cast<const void*>(ptr)); break;
        }
        p.start_timestamp = core::now_ns();
        ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
    }
    const CUresult r = call();
    if (ev) {
        p.end_timestamp = core::now_ns();
        ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
    }
    return r;
}

void drain(CUcontext c) noexcept {
    context_timing* t = nullptr;
    {
        std::lock_guard lk(g_contexts_mutex);
        if (auto it = g_contexts->find(c); it != g_contexts->end()) t = it->second;
    }
    if (t != nullptr) wait_delivered(t);
}

void forget(CUcontext c) noexcept {
    std::lock_guard lk(g_contexts_mutex);
    if (auto it = g_contexts->find(c); it != g_contexts->end()) {
        // Its events and stream went with the context; the state stays for records in flight.
        // (Without memory to list it, it is left unlisted: never freed all the same, so the
        // records in flight stay valid, but an exit drain does not wait for them.)
        if (it->second != nullptr) {
            try {
                g_retired->push_back(it->second);
            } catch (...) {
            }
        }
        g_contexts->erase(it);
    }
    g_generation.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace encore::cuda::records
