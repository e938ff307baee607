// src/backend/device_gate.hpp — the per-device replay gate (device_gate.cpp): work submitted to a
// device holds its gate shared; a replay holds it exclusively while it snapshots, runs its passes
// and restores. libencore-hsa keys it by agent handle, libencore-cuda by context pointer.
//
//   auto& g = backend::device_gate::of(key);          // no lock once the key has a gate
//   if (!g.try_lock_shared()) g.lock_shared();        // around a submission (launch, copy, ...)
//   ...; g.unlock_shared();
//   g.started(); ... g.finished();                    // submission .. completion (HSA)
//   if (device_gate::take_exclusive(key, limit) == device_gate::exclusive::held) {
//       ...;  // replay: other threads' submissions on `key` wait; this thread's pass
//       device_gate::release_exclusive(key);
//   }
//
// Layers: hsa/replay_gate.cpp (completion scopes, the buffer deadlock checks) and cuda/gate.cpp
// (work_hold, exclusive_use) over this; this over std::shared_mutex and backend/drain.hpp.
//
// Each backend library compiles its own copy (device_gate_dep, src/backend/meson.build) with hidden
// symbols: libencore-hsa and libencore-cuda in one process keep separate tables, so an agent
// handle and a context pointer never share a gate.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <shared_mutex>

#pragma GCC visibility push(hidden)

namespace encore::backend {

/// One device's gate: a reader/writer lock, a count of work in flight, a generation. Gates are
/// found by key without a lock (of) and never freed.
class alignas(64) device_gate {
public:
    /// Keys with a gate of their own; later keys share one overflow gate (never expected: agents
    /// and contexts are few). Two keys that share it serialize each other's replays, and a thread
    /// replaying on one blocks its own submissions on the other.
    static constexpr std::size_t max_keys = 256;

    /// The gate of `key` (non-zero), made on first use; a scan of an append-only table after.
    [[nodiscard]] static device_gate& of(std::uint64_t key) noexcept;
    /// Keys with a gate of their own so far (at most max_keys).
    [[nodiscard]] static std::size_t key_count() noexcept;

    // ---- the submitting side ----

    /// The lock shared if no replay holds it; counts a generation when it is taken.
    [[nodiscard]] bool try_lock_shared() noexcept;
    /// The lock shared, waiting for a replay that holds it (as long as that replay: bounded by
    /// its own limits); counts a generation.
    void lock_shared() noexcept;
    void unlock_shared() noexcept;
    /// For work submitted from a completion handler whose work a drain waits for (HSA): the lock
    /// shared if no replay holds it (false); else, while that replay still drains, the work joins
    /// the in-flight count instead (true: end it with finished()), so the drain waits for it
    /// rather than it for the drain. Counts a generation either way.
    [[nodiscard]] bool join_drain() noexcept;
    /// Work submitted / completed: what drain() waits for.
    void started() noexcept;
    void finished() noexcept;

    /// Work submitted on this device since the process began (shared holds and joins; not the
    /// replaying thread's own submissions): a replay that sees it unchanged between two of its
    /// points knows nothing else was submitted. Read it while holding the gate exclusively: the
    /// lock orders every hold released before.
    [[nodiscard]] std::uint64_t generation() const noexcept;
    [[nodiscard]] static std::uint64_t generation(std::uint64_t key) noexcept;

    // ---- the replaying side (keyed: the calling thread remembers which key it holds) ----

    /// The key the calling thread holds exclusively (0: none). Its own submissions on that key (a
    /// tool callback of its replay) must not take the lock: callers skip it.
    [[nodiscard]] static std::uint64_t held_exclusively() noexcept;
    /// The lock of `key`'s gate for the calling thread, polled for at most `limit` (false: not
    /// held). Key 0 (no device, which no submission holds) succeeds holding nothing. Polled try_lock rather than try_lock_for: the timed form maps to
    /// pthread_rwlock_clockwrlock, which ThreadSanitizer does not see (its reports would be
    /// false), and readers hold the lock only while they submit.
    [[nodiscard]] static bool lock_exclusive(std::uint64_t key, std::chrono::nanoseconds limit) noexcept;
    /// With the lock held: waits at most `limit` until the in-flight count reaches 0 (every
    /// submission started before has finished); false when it did not.
    [[nodiscard]] static bool drain(std::uint64_t key, std::chrono::nanoseconds limit) noexcept;
    /// Gives the lock back if this thread holds `key` exclusively (true); otherwise nothing.
    static bool release_exclusive(std::uint64_t key) noexcept;

    /// What take_exclusive got.
    enum class exclusive {
        held,             // the lock is this thread's and the count reached 0
        lock_timed_out,   // nothing held
        drain_timed_out,  // nothing held (the lock was released again)
    };
    /// lock_exclusive, then drain, each bounded by `limit`.
    [[nodiscard]] static exclusive take_exclusive(std::uint64_t key, std::chrono::nanoseconds limit) noexcept;

    device_gate() = default;
    device_gate(const device_gate&) = delete;
    device_gate& operator=(const device_gate&) = delete;

private:
    std::shared_mutex lock_;
    // Incremented by each shared hold right after it took lock_ (the line lock_shared just wrote:
    // pthread_rwlock_t is 56 bytes on glibc); relaxed: readers read it under the exclusive lock,
    // whose acquire pairs with the release of every unlock_shared before it.
    std::atomic<std::uint64_t> generation_{0};
    // Submissions started and not finished: written on completion threads, on its own line.
    alignas(64) std::atomic<std::int64_t> in_flight_{0};
};

}  // namespace encore::backend

#pragma GCC visibility pop
