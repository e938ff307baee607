// src/backend/device_gate.cpp — the per-device gates (device_gate.hpp): all their state, found
// without a lock on every submission and completion.
#include "backend/device_gate.hpp"

#include "backend/drain.hpp"

#include <mutex>

namespace encore::backend {
namespace {

// Key -> gate, looked up on every submission and completion while replay is on: an append-only
// table read without locks (devices are few and never go away; a gate is never freed, it is
// reached from runtime threads until the process ends). Internal linkage: each backend library's
// copy of this file has its own table (device_gate.hpp).
struct entry {
    // Written once, before the entry is published; read after the acquire of g_count.
    std::atomic<std::uint64_t> key{0};
    device_gate* gate = nullptr;
};
entry g_entries[device_gate::max_keys];
// Entries published: the release store (append) pairs with the acquire load of every lookup,
// which then sees the entry's key and gate.
std::atomic<std::size_t> g_count{0};
std::mutex g_append_mutex;                   // serializes appends
device_gate g_overflow;                      // shared by keys past max_keys
thread_local std::uint64_t t_exclusive = 0;  // the key this thread replays on

// A replay's waits for a lock or a drain sleep less than an unload's (backend::wait_until's
// default): they hold up the program's submissions.
constexpr std::chrono::microseconds replay_nap{50};

device_gate* find(std::size_t n, std::uint64_t key) noexcept {
    for (std::size_t i = 0; i < n; ++i)
        if (g_entries[i].key.load(std::memory_order_relaxed) == key) return g_entries[i].gate;
    return nullptr;
}

}  // namespace

device_gate& device_gate::of(std::uint64_t key) noexcept {
    if (device_gate* g = find(g_count.load(std::memory_order_acquire), key)) return *g;
    std::lock_guard lk(g_append_mutex);
    const std::size_t n = g_count.load(std::memory_order_relaxed);  // appends are ours alone now
    if (device_gate* g = find(n, key)) return *g;
    if (n == max_keys) return g_overflow;
    g_entries[n].gate = new device_gate;
    g_entries[n].key.store(key, std::memory_order_relaxed);
    g_count.store(n + 1, std::memory_order_release);  // publishes the entry
    return *g_entries[n].gate;
}

std::size_t device_gate::key_count() noexcept { return g_count.load(std::memory_order_acquire); }

bool device_gate::try_lock_shared() noexcept {
    if (!lock_.try_lock_shared()) return false;
    generation_.fetch_add(1, std::memory_order_relaxed);  // ordered by lock_ (device_gate.hpp)
    return true;
}

void device_gate::lock_shared() noexcept {
    lock_.lock_shared();
    generation_.fetch_add(1, std::memory_order_relaxed);  // ordered by lock_
}

void device_gate::unlock_shared() noexcept { lock_.unlock_shared(); }

// A completion handler's work: a drain waits for that handler (its own dispatch or copy, or work
// whose completion queues behind it on the runtime's one completion thread), so waiting for the
// drain would wait for itself (the deadlock the wait bound used to end). While the count is above
// 0 the work joins it; once it is 0 the replay no longer waits for this thread, and the work
// waits for the lock like any other.
bool device_gate::join_drain() noexcept {
    for (;;) {
        if (try_lock_shared()) return false;
        // Acquire / acq_rel: pair with started() and finished() on other threads, so a count
        // read above 0 is one the drain has not yet seen reach 0.
        std::int64_t c = in_flight_.load(std::memory_order_acquire);
        while (c > 0)
            if (in_flight_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel)) {
                // Relaxed: the drain's acquire of in_flight_ reaching 0 follows this thread's
                // finished() (acq_rel), which follows this increment.
                generation_.fetch_add(1, std::memory_order_relaxed);
                return true;
            }
        if (wait_until([&] { return try_lock_shared(); }, std::chrono::milliseconds(1), replay_nap)) return false;
    }
}

// acq_rel: a finished() pairs with the drain's acquire load (the completion's effects are seen by
// the replay); a started() is ordered before its own finished().
void device_gate::started() noexcept { in_flight_.fetch_add(1, std::memory_order_acq_rel); }
void device_gate::finished() noexcept { in_flight_.fetch_sub(1, std::memory_order_acq_rel); }

std::uint64_t device_gate::generation() const noexcept { return generation_.load(std::memory_order_relaxed); }
std::uint64_t device_gate::generation(std::uint64_t key) noexcept { return of(key).generation(); }

std::uint64_t device_gate::held_exclusively() noexcept { return t_exclusive; }

bool device_gate::lock_exclusive(std::uint64_t key, std::chrono::nanoseconds limit) noexcept {
    if (key == 0) return true;  // no device: nothing to hold (no submission holds key 0 either)
    device_gate& g = of(key);
    if (!wait_until([&] { return g.lock_.try_lock(); }, limit, replay_nap)) return false;
    t_exclusive = key;
    return true;
}

bool device_gate::drain(std::uint64_t key, std::chrono::nanoseconds limit) noexcept {
    if (key == 0) return true;
    device_gate& g = of(key);
    // Acquire: pairs with finished()'s release, so what the completed work did is seen.
    return wait_until([&] { return g.in_flight_.load(std::memory_order_acquire) <= 0; }, limit, replay_nap);
}

bool device_gate::release_exclusive(std::uint64_t key) noexcept {
    if (key == 0 || t_exclusive != key) return false;
    t_exclusive = 0;
    of(key).lock_.unlock();
    return true;
}

device_gate::exclusive device_gate::take_exclusive(std::uint64_t key, std::chrono::nanoseconds limit) noexcept {
    if (!lock_exclusive(key, limit)) return exclusive::lock_timed_out;
    if (!drain(key, limit)) {
        release_exclusive(key);
        return exclusive::drain_timed_out;
    }
    return exclusive::held;
}

}  // namespace encore::backend
