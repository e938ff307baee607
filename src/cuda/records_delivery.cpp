// src/cuda/records_delivery.cpp — delivering CUDA's records (records_state.hpp): the completion
// thread that waits for the end events of launches and copies in submission order, the taking side
// of CUPTI's table of waiting launches (CUPTI's delivery thread hands their times over here), and
// the drains: at exit, for a context (records::drain) and when CUPTI stops pairing. Calls
// records_state.cpp only; records.cpp, which queues and puts the records, calls this.
#include "records_state.hpp"

#include "real.hpp"

#include "backend/drain.hpp"
#include "core/clock.hpp"
#include "core/warn.hpp"

#include <encore/tracing/tool.hpp>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <pthread.h>
#include <unistd.h>

namespace encore::cuda::records {
namespace detail {

std::mutex g_queue_mutex;
std::condition_variable g_queue_cv;
std::deque<record_ptr>* g_queue = new std::deque<record_ptr>;  // never destroyed
bool g_worker_started = false;
bool g_stop = false;

namespace {
// The completion thread, joinable: drain_all joins it, so that it has left the process before the
// exit goes on. A thread still on its way out when the exit's last handlers run is one whose
// thread-local state a handler may read half torn down (LeakSanitizer's leak check does, and
// crashed on it under load).
pthread_t g_worker;
pid_t g_worker_pid = 0;  // the process that started it: a fork child has no such thread to join

void* worker_main(void*) {
    worker();
    return nullptr;
}
}  // namespace

bool start_worker() noexcept {
    if (::pthread_create(&g_worker, nullptr, &worker_main, nullptr) != 0) return false;
    g_worker_pid = ::getpid();
    return true;
}

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
bool wait_event(CUevent e, std::uint64_t deadline_ns, bool spin) noexcept {
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

/// Registers drain_all once, after the tools' finalization (registered at initialization): it runs
/// before that, so the last records reach the tools.
void drain_at_exit() noexcept {
    static const bool registered = std::atexit(drain_all) == 0;
    (void)registered;
}

/// Whether launches are timed through CUPTI (set once, at the first launch that wants COMPLETE).
std::atomic<bool> g_cupti_timing{false};

namespace {

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

}  // namespace

void drain_all() noexcept {
    wait_delivered(nullptr);
    if (g_cupti_timing.load(std::memory_order_acquire)) cupti::report();
    {
        std::lock_guard lk(g_queue_mutex);
        g_stop = true;
        g_queue_cv.notify_all();
        if (g_worker_pid != ::getpid()) return;  // never started (0), or started by the parent
    }
    // The thread returns once the queue is empty; a record whose GPU work never completes keeps it
    // waiting, so the join is bounded (the thread is then left running, as before).
    timespec until{};
    ::clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    (void)::pthread_timedjoin_np(g_worker, nullptr, &until);
}

// CUPTI's table of waiting launches (records_state.hpp): put by launches (put_pending, records.cpp),
// taken here.
cupti_slot g_slots[cupti_slots];  // zero-initialized (static storage): pages only where used

std::mutex g_cupti_mutex;  // the overflow's
std::unordered_map<std::uint64_t, pending*>* g_cupti_overflow = new std::unordered_map<std::uint64_t, pending*>;  // never destroyed
std::atomic<std::size_t> g_overflow_n{0};
alignas(64) std::atomic<std::uint64_t> g_cupti_put{0};
alignas(64) std::atomic<std::uint64_t> g_cupti_taken{0};

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

namespace {

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

}  // namespace

/// The second of the launching thread and CUPTI's delivery: COMPLETE with the times CUPTI gave,
/// then the record goes back to its pool.
void finish_cupti(pending* p) noexcept {
    p->dispatch.start_timestamp = p->cupti_start;
    p->dispatch.end_timestamp = p->cupti_end;
    deliver(*p, false);
    p->t->delivered.fetch_add(1, std::memory_order_release);
    give_record(p);
}

namespace {

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

}  // namespace

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

std::atomic<bool> g_cupti_off{false};

namespace {

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

}  // namespace

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

}  // namespace detail

using namespace detail;

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
