// src/hsa/replay_gate.hpp — per-agent isolation for kernel replay on HSA (replay_gate.cpp), over
// the backend kit's per-device gate keyed by agent handle (backend/device_gate.hpp).
//
// Each GPU agent has a reader/writer lock and a count of work in flight (kernel dispatches and
// async copies submitted through encore and not yet complete). While a replay service exists,
// every ordinary dispatch and async copy holds its agents' locks shared while it is submitted
// and is counted until it completes; a replayed dispatch holds its agent's lock exclusively from
// the drain (count reaches 0) to the restore of its last pass. Other agents are never blocked.
//
//   replay_gate::shared_hold hold(agent);            // around a submission
//   replay_gate::started(agent); ... replay_gate::finished(agent);   // submission .. completion
//   if (replay_gate::take_exclusive(agent, limit) == replay_gate::exclusive::held) { ...; release_exclusive(agent); }
#pragma once

#include <chrono>
#include <cstdint>

namespace encore::hsa::replay_gate {

/// Replay service configured (OnLoad): from then on work is counted and locks are taken.
void enable() noexcept;
[[nodiscard]] bool enabled() noexcept;

/// Holds the locks of up to two agents shared for a submission (nothing when replay is off, for
/// agent 0, or for an agent this thread holds exclusively: a callback of its replay submitting).
/// Inside a completion_scope, an agent whose replay is still draining is not locked: the work
/// joins that agent's in-flight count instead, so the drain waits for it (replay_gate.cpp).
class shared_hold {
public:
    explicit shared_hold(std::uint64_t a, std::uint64_t b = 0) noexcept;
    ~shared_hold();
    shared_hold(const shared_hold&) = delete;
    shared_hold& operator=(const shared_hold&) = delete;

private:
    std::uint64_t held_[2] = {0, 0};
    bool joined_[2] = {false, false};  // counted in held_[i]'s drain instead of holding its lock
};

/// Marks the calling thread as running a completion handler's callbacks (a dispatch's COMPLETE,
/// an async copy's EXIT) for its lifetime: a drain waits for that handler, so work the callbacks
/// submit must not wait for the drain.
class completion_scope {
public:
    completion_scope() noexcept;
    ~completion_scope();
    completion_scope(const completion_scope&) = delete;
    completion_scope& operator=(const completion_scope&) = delete;
};

/// Work on `agent` submitted / completed (no-op when replay is off or agent is 0).
void started(std::uint64_t agent) noexcept;
void finished(std::uint64_t agent) noexcept;

/// What take_exclusive got.
enum class exclusive {
    held,             // the lock is this thread's and the agent's count reached 0
    lock_timed_out,   // nothing held
    drain_timed_out,  // nothing held (the lock was released again)
};
/// A replay's exclusive use of `agent` for the calling thread: its lock, then the wait until
/// every dispatch and async copy submitted on it before has completed, each wait bounded by
/// `limit`.
[[nodiscard]] exclusive take_exclusive(std::uint64_t agent, std::chrono::nanoseconds limit) noexcept;
/// Gives the lock back if this thread holds `agent` exclusively; otherwise nothing.
void release_exclusive(std::uint64_t agent) noexcept;

}  // namespace encore::hsa::replay_gate
