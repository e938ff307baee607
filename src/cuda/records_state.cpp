// src/cuda/records_state.cpp — the state CUDA's records stand on (records_state.hpp): each
// context's timing state (its pooled events and the base event that puts event times on encore's
// clock) and the per-thread pools of launch records. Calls nothing of records.cpp or
// records_delivery.cpp, which both use it.
#include "records_state.hpp"

#include "real.hpp"

#include "core/clock.hpp"
#include "core/exit_safe_local.hpp"

#include <new>
#include <utility>

namespace encore::cuda::records::detail {

// A context's timing state is never freed: a forgotten context's (forget()) moves to g_retired,
// where records still in flight find it. Why: with a reference count, every launch would write
// the count's line and CUPTI's thread would write it again when the record is freed (on the H200
// that one `lock addl` was 3 % of a launching thread's samples). What a program that destroys
// contexts pays: one context_timing (a few hundred bytes) per context it destroyed.
std::mutex g_contexts_mutex;
std::map<CUcontext, context_timing*>* g_contexts = new std::map<CUcontext, context_timing*>;  // never destroyed
std::vector<context_timing*>* g_retired = new std::vector<context_timing*>;                   // never destroyed

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

namespace {

/// (Re)measures the context's base event; the context is current on this thread.
void calibrate(context_timing& t) noexcept {
    if (t.private_stream == nullptr && real().stream_create(&t.private_stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
        t.private_stream = nullptr;
    if (t.base == nullptr && real().event_create(&t.base, CU_EVENT_DEFAULT) != CUDA_SUCCESS) t.base = nullptr;
    if (t.spare == nullptr && real().event_create(&t.spare, CU_EVENT_DEFAULT) != CUDA_SUCCESS) t.spare = nullptr;
    if (t.private_stream == nullptr || t.base == nullptr) return;
    // The tightest of a few tries: an event's GPU time lies between its record call and the first
    // query that sees it complete. An event holds only its last recording, so each try records
    // into the spare event, which becomes the base when its window is the tightest yet: a try
    // preempted between record and query (a loaded host) no longer replaces a good one. Without a
    // spare event, the last try's window is kept.
    std::uint64_t best_mid = 0, best_half = ~0ull;
    for (int i = 0; i < 5 && best_half > 2'000; ++i) {
        CUevent e = t.spare != nullptr ? t.spare : t.base;
        const std::uint64_t h0 = core::now_ns();
        if (real().event_record(e, t.private_stream) != CUDA_SUCCESS) break;
        CUresult q;
        while ((q = real().event_query(e)) == CUDA_ERROR_NOT_READY) {
        }
        const std::uint64_t h1 = core::now_ns();
        if (q != CUDA_SUCCESS) {
            if (e != t.base) break;
            t.calibrated_at = 0;  // the base recorded over, its window unmeasured: its time is lost
            return;
        }
        if (e == t.spare && (h1 - h0) / 2 >= best_half) continue;
        best_mid = h0 + (h1 - h0) / 2;
        best_half = (h1 - h0) / 2;
        if (e == t.spare) std::swap(t.base, t.spare);
    }
    if (best_half == ~0ull) return;  // nothing measured; the base and its time stand
    t.base_ns = best_mid;
    t.error_ns = best_half;
    t.calibrated_at = core::now_ns();
}

}  // namespace

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

namespace {

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
    // From its start to the first line of `captured` (the event's fixed part), its end, and the
    // first contexts' user data (the capture zeroes a subscribed context's; CUPTI's thread read it
    // at the last COMPLETE): taking a record and capturing into it was 0.19 to 0.26 us of a
    // launch on an H200 with only the first two prefetched (benchmarks/RESULTS.md). On an H100
    // host, launches without these prefetches (nor the pending table's and the stream queue's)
    // spent 0.2 us more writing the record. GCC makes them PREFETCHT0 for generic x86-64; a build
    // issuing PREFETCHW (fetched owned) measured the same there.
    const auto* const end = reinterpret_cast<const char*>(&p.captured) + 64;
    for (const auto* b = reinterpret_cast<const char*>(&p); b < end; b += 64) __builtin_prefetch(b, 1, 3);
    __builtin_prefetch(&p.captured.user_data[0], 1, 3);
    __builtin_prefetch(&p.home, 1, 3);
}

}  // namespace

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

}  // namespace encore::cuda::records::detail
