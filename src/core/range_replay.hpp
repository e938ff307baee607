// src/core/range_replay.hpp — the RANGE_REPLAY service, backend-neutral part.
//
// A range is thread-scoped: rocprofiler_range_replay_begin opens it on the calling thread (CONFIG),
// the backend records what that thread submits while it is open (pass 0, the application's own
// run), and rocprofiler_range_replay_end drives the passes through the backend's recording (PASS,
// CLOSE). What the backend sees that makes a range unreplayable (a second queue, an allocation,
// another thread on the agent, a copy) it reports with decline*(); the first reason wins.
//
//   backend, per submission on a thread with recording():  at the first dispatch make a
//   recording, start() it and attach() it, add to it, or decline(status, why); on any other
//   thread: decline_agent(agent, ...)
//
// The passes run in the pass loop kernel replay runs too (replay_flow.hpp); the recording
// implements the steps only.
#pragma once

#include "replay.hpp"

#include <encore/tracing/detail/core.hpp>
#include <rocprofiler-sdk/experimental/range_replay.h>

#include <cstdint>
#include <memory>

namespace encore::core::range_replay {

/// A reason to decline: the status the tool sees and a static sentence (warned once).
struct decline_reason {
    rocprofiler_range_replay_status_t status;
    const char* why;
};

/// What a backend recorded for one range; all calls on the range's thread. At the first dispatch:
/// start (through range_replay::start). At end: prepare -> (restore_start -> run_pass)* ->
/// restore_final -> finish; finish alone when declined.
class recording {
public:
    virtual ~recording() = default;
    /// The snapshot policy this backend measured best (the options' policy when nobody chose).
    [[nodiscard]] virtual encore_replay_snapshot_policy_t default_policy() const noexcept = 0;
    /// The start snapshot, before the range's first dispatch runs, under `opt` (the options in
    /// effect, resolved by start(recording&); they hold for the whole range). A reason on failure.
    virtual const decline_reason* start(const replay::options& opt) noexcept = 0;
    [[nodiscard]] virtual std::uint64_t agent() const noexcept = 0;
    [[nodiscard]] virtual std::uint64_t dispatch_count() const noexcept = 0;
    [[nodiscard]] virtual std::uint64_t snapshot_bytes() const noexcept = 0;
    /// Exclusive use of the agent, pass 0 complete, its end state captured. A reason on failure
    /// (then only finish follows).
    virtual const decline_reason* prepare() noexcept = 0;
    /// Memory back to the range's start / to what pass 0 left. false = partially restored.
    virtual bool restore_start() noexcept = 0;
    virtual bool restore_final() noexcept = 0;
    /// Re-executes every recorded dispatch in order, each waited for, its KERNEL_DISPATCH records
    /// to `contexts` only. A reason when a dispatch did not complete in time (the loop ends).
    virtual const decline_reason* run_pass(std::uint64_t pass, std::uint64_t contexts) noexcept = 0;
    /// Regions whose bytes now differ from the start snapshot / from pass 0's end.
    virtual std::uint64_t diverging_from_start() noexcept = 0;
    virtual std::uint64_t diverging_from_final() noexcept = 0;
    /// Releases the agent and everything held (after CLOSE's records are built).
    virtual void finish() noexcept = 0;
};

/// Whether some context configured RANGE_REPLAY.
ENCORE_API bool service_configured() noexcept;
/// A backend that records ranges loaded (HSA's OnLoad); without one begin is NOT_IMPLEMENTED.
ENCORE_API void backend_available() noexcept;
/// Whether any thread has a range open (cheap: one relaxed load; a hint for the hot path).
ENCORE_API bool any_open() noexcept;
/// Whether the calling thread is running a range's passes (a dispatch its callbacks submit is not
/// kernel-replayed: that would be a nested replay on the agent this thread holds).
ENCORE_API bool closing_here() noexcept;
/// Whether the calling thread has a range open (declined or not; not inside its callbacks).
ENCORE_API bool open_here() noexcept;
/// Whether the calling thread has a range open and recording (not closing, not declined).
ENCORE_API bool recording_here() noexcept;
/// The calling thread's recording (null before its first dispatch or without a range).
ENCORE_API recording* current() noexcept;
/// Takes `r`'s start snapshot (recording::start) under the options in effect, resolved here once
/// for the range. Where the backend calls it, before or after attach, decides when the range is
/// bound to its agent.
ENCORE_API const decline_reason* start(recording& r) noexcept;
/// Hands the backend's recording of the calling thread's range to the range (first dispatch).
ENCORE_API void attach(std::unique_ptr<recording> r) noexcept;
/// Declines the calling thread's open range (the first reason wins; warned once per reason).
ENCORE_API void decline(const decline_reason& r) noexcept;
/// For a backend that lets other threads' submissions join a range (CUDA, opt-in): runs
/// f(recording, data) for the one open, still replayable range bound to `agent` on another thread,
/// under the registry's lock (that range cannot end meanwhile), and declines it with what f
/// returns when that is not null. false (f not run) when there is no such range.
ENCORE_API bool with_range_on(std::uint64_t agent, const decline_reason* (*f)(recording&, void*), void* data) noexcept;
/// Declines every open range bound to `agent` whose thread is not the caller's.
ENCORE_API void decline_agent(std::uint64_t agent, const decline_reason& r) noexcept;
/// Declines every open range (allocations: the snapshot's coverage changed under all of them).
ENCORE_API void decline_all(const decline_reason& r) noexcept;
/// The backend that made the open ranges' recordings is going away (HSA's OnUnload, while the
/// runtime still works): every open range with a recording is declined with `r`, and its
/// recording finished and destroyed now, so that no range later calls into an unloaded library.
ENCORE_API void drop_recordings(const decline_reason& r) noexcept;

}  // namespace encore::core::range_replay
