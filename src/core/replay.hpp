// src/core/replay.hpp — the KERNEL_REPLAY service, backend-neutral part.
//
// The seed's flow for one dispatch (CONFIG, pass count, passes, continue, restore, CONFIG EXIT),
// its user_data rules and localized context control live here; what touches a GPU runtime
// (locking the agent, draining, snapshot/restore, submitting a pass, firing the program's
// completion signal) is a `dispatch_backend` the HSA backend (and later others) implements.
#pragma once

#include <encore/tracing/detail/core.hpp>
#include <rocprofiler-sdk/experimental/kernel_replay.h>

#include <cstddef>
#include <cstdint>

namespace encore::core::replay {

/// Options in effect (tool's encore_configure_kernel_replay_options, then environment).
struct options {
    encore_replay_snapshot_policy_t policy;  // never DEFAULT: resolved by the backend's default
    std::uint64_t chunk_size;
    std::uint64_t memory_budget;
    std::uint64_t wait_timeout_ns;
    /// Whether the tool or ENCORE_REPLAY_MEMORY_BUDGET chose memory_budget. The default (half the
    /// host's RAM) guards host memory: a backend keeping its snapshot in device memory, where the
    /// device has room, need not apply it; a chosen budget bounds every snapshot.
    bool memory_budget_chosen = false;
};
/// `backend_default` is what the backend measured best (used when nobody chose). Resolved by the
/// flows (kernel replay before acquire, range replay at a recording's start) and handed to the
/// backend's steps.
ENCORE_API options current_options(encore_replay_snapshot_policy_t backend_default) noexcept;

/// Whether some context configured KERNEL_REPLAY (fixed once configuration is locked).
ENCORE_API bool service_configured() noexcept;
/// Whether a context with the service is active now (cheap: one load).
ENCORE_API bool service_active() noexcept;
/// Whether this thread is inside a replay loop (nested replays are declined).
ENCORE_API bool in_replay() noexcept;

struct memory_stats {
    std::uint64_t bytes = 0;
    std::uint64_t regions = 0;
    /// Bytes the step copied, where a backend's snapshot is incremental (less than `bytes`);
    /// `not_counted`: the same as `bytes`.
    static constexpr std::uint64_t not_counted = ~std::uint64_t{0};
    std::uint64_t copied = not_counted;
};

/// What a backend does for one dispatch: the steps of the flow (replay_dispatch, whose pass loop
/// range replay shares: replay_flow.hpp), and nothing of the flow itself. All calls on the
/// submitting thread, in this order: run_once (not replayed), or acquire -> snapshot ->
/// (run_pass -> restore?)* -> finish.
class dispatch_backend {
public:
    /// Submits the dispatch the ordinary way (once, with the program's completion signal).
    virtual void run_once() noexcept = 0;
    /// The snapshot policy this backend measured best (the options' policy when nobody chose).
    [[nodiscard]] virtual encore_replay_snapshot_policy_t default_policy() const noexcept = 0;
    /// Exclusive use of the agent and every earlier dispatch on it complete, under `opt` (the
    /// options in effect, resolved by the flow; they hold until finish). A static reason on
    /// failure (nothing held then).
    virtual const char* acquire(const options& opt) noexcept = 0;
    /// Captures the memory the dispatch may change. A static reason on failure (the backend has
    /// released everything; the dispatch is then run once by run_once).
    virtual const char* snapshot(memory_stats& out) noexcept = 0;
    /// Submits pass `pass` (without the program's completion signal), waits for it, and delivers
    /// its dispatch-tracing records to the contexts in `contexts` only. A static reason when the
    /// pass did not finish in time (the loop ends there).
    virtual const char* run_pass(std::uint64_t pass, std::uint64_t contexts) noexcept = 0;
    /// Resets memory to the snapshot before pass `pass` of `passes` (0: a count the tool's continue
    /// callback decides). A backend that knows what the first pass wrote may restore only that
    /// before the middle passes; the restore before the last pass must make memory equal the
    /// snapshot whatever was written. false = partially restored (the process is aborted).
    virtual bool restore(memory_stats& out, std::uint64_t pass, std::uint64_t passes) noexcept = 0;
    /// After CONFIG EXIT: the program's completion signal fires, the agent is released, the
    /// snapshot freed.
    virtual void finish() noexcept = 0;
    /// Checksum of the covered memory now (PASS ENTER only).
    virtual bool checksum(std::uint64_t& out) noexcept = 0;

protected:
    ~dispatch_backend() = default;
};

/// Runs the replay flow for one single-packet dispatch whose info is `info`. Returns when the
/// dispatch (all its passes) has been submitted and, if replayed, completed.
ENCORE_API void replay_dispatch(const rocprofiler_kernel_dispatch_info_t& info, dispatch_backend& backend) noexcept;

/// The 64-bit checksum of covered memory that encore_kernel_replay_checksum reports (every
/// backend feeds it the same way, so figures compare): fast and non-cryptographic, 8 bytes a step.
struct checksum64 {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    void add(const void* data, std::size_t n) noexcept {
        const auto* p = static_cast<const unsigned char*>(data);
        std::size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            std::uint64_t w;
            __builtin_memcpy(&w, p + i, 8);
            h = (h ^ w) * 0xff51afd7ed558ccdull;
            h ^= h >> 29;
        }
        for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    }
};

/// A tool's pass-count or continue callback (kernel or range replay, `kind`), with the tool
/// boundary: if it throws, the tool is disabled (callback_threw) and `fallback` stands for its
/// answer.
template <class R, class F>
R tool_answer(unsigned ctx, std::uint32_t kind, R fallback, F&& f) noexcept {
    try {
        return f();
    } catch (...) {
        tracing::detail::callback_threw(ctx, kind);
        return fallback;
    }
}

/// The most passes one replay runs (ENCORE_REPLAY_MAX_PASSES, default 10000; range replay uses it too).
ENCORE_API std::uint64_t pass_cap() noexcept;

/// Prints "[encore] kernel replay: <what>" once per distinct `what` (a static string).
ENCORE_API void warn_once(const char* what) noexcept;

/// Test suites only.
ENCORE_API void reset_for_testing() noexcept;

}  // namespace encore::core::replay
