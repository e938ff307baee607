// src/hsa/replay.hpp — per-agent isolation for kernel replay on HSA (dispatch.cpp).
//
// Each GPU agent has a reader/writer lock and a count of work in flight (kernel dispatches and
// async copies submitted through encore and not yet complete). While a replay service exists,
// every ordinary dispatch and async copy holds its agents' locks shared while it is submitted
// and is counted until it completes; a replayed dispatch holds its agent's lock exclusively from
// the drain (count reaches 0) to the restore of its last pass. Other agents are never blocked.
#pragma once

#include <cstdint>

namespace encore::hsa::replay_gate {

/// Replay service configured (OnLoad): from then on work is counted and locks are taken.
void enable() noexcept;
[[nodiscard]] bool enabled() noexcept;

/// Holds the locks of up to two agents shared for a submission (nothing when replay is off, for
/// agent 0, or for an agent this thread holds exclusively: a callback of its replay submitting).
class shared_hold {
public:
    explicit shared_hold(std::uint64_t a, std::uint64_t b = 0) noexcept;
    ~shared_hold();
    shared_hold(const shared_hold&) = delete;
    shared_hold& operator=(const shared_hold&) = delete;

private:
    std::uint64_t held_[2] = {0, 0};
};

/// Work on `agent` submitted / completed (no-op when replay is off or agent is 0).
void started(std::uint64_t agent) noexcept;
void finished(std::uint64_t agent) noexcept;

}  // namespace encore::hsa::replay_gate
