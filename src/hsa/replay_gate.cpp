// src/hsa/replay_gate.cpp — the per-agent replay gates (replay_gate.hpp): a reader/writer lock and
// an in-flight count per GPU agent, found without locks on every dispatch and completion.
#include "replay_gate.hpp"

#include "backend/drain.hpp"
#include "core/buffer.hpp"

#include <atomic>
#include <cstddef>
#include <mutex>
#include <shared_mutex>
#include <utility>

namespace encore::hsa::replay_gate {
namespace {

struct agent_gate {
    std::shared_mutex lock;
    std::atomic<std::int64_t> in_flight{0};
};
std::atomic<bool> g_replay_enabled{false};
// Agent -> gate, looked up on every dispatch and completion while replay is on: an append-only
// table read without locks (agents are few and never go away; a gate is never freed, it is
// reached from runtime threads until the process ends).
constexpr std::size_t max_gates = 256;
struct gate_entry {
    std::atomic<std::uint64_t> agent{0};
    agent_gate* gate = nullptr;
};
gate_entry g_gates[max_gates];
std::atomic<std::size_t> g_gate_count{0};
std::mutex g_gates_mutex;                          // serializes appends
agent_gate g_overflow_gate;                        // shared by agents past max_gates (never expected)
thread_local std::uint64_t t_exclusive_agent = 0;  // the agent this thread replays on
thread_local int t_completion_depth = 0;           // inside a completion handler's callbacks (completion_scope)

agent_gate& replay_gate_of(std::uint64_t agent) {
    std::size_t n = g_gate_count.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i)
        if (g_gates[i].agent.load(std::memory_order_relaxed) == agent) return *g_gates[i].gate;
    std::lock_guard lk(g_gates_mutex);
    n = g_gate_count.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < n; ++i)
        if (g_gates[i].agent.load(std::memory_order_relaxed) == agent) return *g_gates[i].gate;
    if (n == max_gates) return g_overflow_gate;
    g_gates[n].gate = new agent_gate;
    g_gates[n].agent.store(agent, std::memory_order_relaxed);
    g_gate_count.store(n + 1, std::memory_order_release);  // publishes the entry
    return *g_gates[n].gate;
}

// A replay's waits for a lock or a drain sleep less than an unload's (backend::wait_until's
// default): they hold up the program's dispatch.
constexpr std::chrono::microseconds replay_nap{50};

// From a completion handler (completion_scope): the agent's lock shared if no replay holds it;
// else, while that replay still drains (its count above 0: the handler's own dispatch or copy,
// or work whose completion queues behind this handler on the runtime's one completion thread),
// the work joins the count instead, so the drain waits for it rather than it for the drain
// (which would wait for it: the deadlock the wait bound used to end). Once the count is 0 the
// replay no longer waits for this thread, and the work waits for the lock like any other.
bool join_drain(agent_gate& g) noexcept {
    for (;;) {
        if (g.lock.try_lock_shared()) return false;
        std::int64_t c = g.in_flight.load(std::memory_order_acquire);
        while (c > 0)
            if (g.in_flight.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel)) return true;
        if (backend::wait_until([&] { return g.lock.try_lock_shared(); }, std::chrono::milliseconds(1), replay_nap))
            return false;
    }
}

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
        if (x == 0 || x == t_exclusive_agent) continue;
        auto& g = replay_gate_of(x);
        if (t_completion_depth > 0) {
            joined_[i] = join_drain(g);
        } else if (!g.lock.try_lock_shared()) {
            // Held by a replay. Its thread may be writing its passes' records into a LOSSLESS
            // buffer whose callback is this one (a buffer callback's copy, fill, free, dispatch):
            // a buffer callback thread says what it blocks on, and the replaying thread drops
            // such records (counted) instead of waiting for it (core/buffer.hpp, issue 40
            // item 2). This wait then lasts as long as the replay, itself bounded.
            const std::uint64_t before = core::set_blocked_on(x);
            g.lock.lock_shared();
            core::set_blocked_on(before);
        }
        held_[i++] = x;
    }
}

shared_hold::~shared_hold() {
    for (int i = 0; i < 2; ++i) {
        if (held_[i] == 0) continue;
        auto& g = replay_gate_of(held_[i]);
        if (joined_[i])
            g.in_flight.fetch_sub(1, std::memory_order_acq_rel);
        else
            g.lock.unlock_shared();
    }
}

completion_scope::completion_scope() noexcept { ++t_completion_depth; }
completion_scope::~completion_scope() { --t_completion_depth; }

void started(std::uint64_t agent) noexcept {
    if (enabled() && agent != 0) replay_gate_of(agent).in_flight.fetch_add(1, std::memory_order_acq_rel);
}
void finished(std::uint64_t agent) noexcept {
    if (enabled() && agent != 0) replay_gate_of(agent).in_flight.fetch_sub(1, std::memory_order_acq_rel);
}

exclusive take_exclusive(std::uint64_t agent, std::chrono::nanoseconds limit) noexcept {
    auto& g = replay_gate_of(agent);
    // Polled try_lock rather than try_lock_for: the timed form maps to
    // pthread_rwlock_clockwrlock, which ThreadSanitizer does not see (its reports would be
    // false), and readers hold the lock only while they submit.
    if (!backend::wait_until([&] { return g.lock.try_lock(); }, limit, replay_nap)) return exclusive::lock_timed_out;
    t_exclusive_agent = agent;
    // The buffer paths never make this thread wait for a callback thread blocked on the gate.
    core::set_held_resource(agent);
    // Drain: every dispatch and async copy submitted on the agent before (the replayed queue and
    // its siblings) has completed and its completion handler has run.
    if (!backend::wait_until([&] { return g.in_flight.load(std::memory_order_acquire) <= 0; }, limit, replay_nap)) {
        release_exclusive(agent);
        return exclusive::drain_timed_out;
    }
    return exclusive::held;
}

void release_exclusive(std::uint64_t agent) noexcept {
    if (t_exclusive_agent == agent) {
        t_exclusive_agent = 0;
        core::set_held_resource(0);
        replay_gate_of(agent).lock.unlock();
    }
}

}  // namespace encore::hsa::replay_gate
