// src/hsa/replay_gate.cpp — the per-agent replay gates (replay_gate.hpp): the kit's device gates
// (backend/device_gate.cpp: the lock-free table, locks, in-flight counts, drains) keyed by agent
// handle, with what only HSA needs: completion scopes, and the buffer paths' deadlock checks.
//
// Those two stay here, not in the kit. completion_scope marks the HSA runtime's one completion
// thread running a handler's callbacks (libencore-cuda has no such thread that a drain waits
// for). core::set_held_resource / set_blocked_on take keys of one process-wide keyspace in
// libencore; only agent handles are given to it, so a CUDA context pointer never collides with
// one, and CUDA's gate keeps its behaviour (no such checks).
#include "replay_gate.hpp"

#include "backend/device_gate.hpp"
#include "core/buffer.hpp"

#include <atomic>
#include <utility>

namespace encore::hsa::replay_gate {
namespace {

using backend::device_gate;

// Set once at OnLoad (release); read relaxed on every submission: a submission that misses it
// is one from before replay was configured, which no replay waits for.
std::atomic<bool> g_replay_enabled{false};
thread_local int t_completion_depth = 0;  // inside a completion handler's callbacks (completion_scope)

}  // namespace

void enable() noexcept { g_replay_enabled.store(true, std::memory_order_release); }
bool enabled() noexcept { return g_replay_enabled.load(std::memory_order_relaxed); }

shared_hold::shared_hold(std::uint64_t a, std::uint64_t b) noexcept {
    if (!enabled()) return;
    if (a == b) b = 0;
    // Fixed order (by handle) so two holders of the same pair never deadlock.
    if (a > b) std::swap(a, b);
    int i = 0;
    for (std::uint64_t x : {a, b}) {
        if (x == 0 || x == device_gate::held_exclusively()) continue;
        auto& g = device_gate::of(x);
        if (t_completion_depth > 0) {
            // A drain waits for this handler: join its count rather than wait for it (device_gate.cpp).
            joined_[i] = g.join_drain();
        } else if (!g.try_lock_shared()) {
            // Held by a replay. Its thread may be writing its passes' records into a LOSSLESS
            // buffer whose callback is this one (a buffer callback's copy, fill, free, dispatch):
            // a buffer callback thread says what it blocks on, and the replaying thread drops
            // such records (counted) instead of waiting for it (core/buffer.hpp, issue 40
            // item 2). This wait then lasts as long as the replay, itself bounded.
            const std::uint64_t before = core::set_blocked_on(x);
            g.lock_shared();
            core::set_blocked_on(before);
        }
        held_[i++] = x;
    }
}

shared_hold::~shared_hold() {
    for (int i = 0; i < 2; ++i) {
        if (held_[i] == 0) continue;
        auto& g = device_gate::of(held_[i]);
        if (joined_[i])
            g.finished();
        else
            g.unlock_shared();
    }
}

completion_scope::completion_scope() noexcept { ++t_completion_depth; }
completion_scope::~completion_scope() { --t_completion_depth; }

void started(std::uint64_t agent) noexcept {
    if (enabled() && agent != 0) device_gate::of(agent).started();
}
void finished(std::uint64_t agent) noexcept {
    if (enabled() && agent != 0) device_gate::of(agent).finished();
}

exclusive take_exclusive(std::uint64_t agent, std::chrono::nanoseconds limit) noexcept {
    if (!device_gate::lock_exclusive(agent, limit)) return exclusive::lock_timed_out;
    // The buffer paths never make this thread wait for a callback thread blocked on the gate.
    core::set_held_resource(agent);
    // Drain: every dispatch and async copy submitted on the agent before (the replayed queue and
    // its siblings) has completed and its completion handler has run.
    if (!device_gate::drain(agent, limit)) {
        release_exclusive(agent);
        return exclusive::drain_timed_out;
    }
    return exclusive::held;
}

void release_exclusive(std::uint64_t agent) noexcept {
    if (agent == 0 || device_gate::held_exclusively() != agent) return;
    core::set_held_resource(0);
    device_gate::release_exclusive(agent);
}

}  // namespace encore::hsa::replay_gate
