// src/core/counting.hpp — the dispatch counting service, backend-neutral part (counting.cpp).
//
// libencore owns the counter catalogue, the configs, the contexts' counting services and the
// arithmetic that turns one measured dispatch into counter values. A backend that can measure
// dispatches on an agent registers the agent as a counter source when it loads, then, per kernel
// dispatch (or replay pass) on such an agent:
//
//   core::counting::session s;
//   if (core::counting::begin(s, info, contexts))         // dispatch callbacks: configs
//       ...submit, wait for completion...
//   core::counting::complete(s, info, {start, end, ...});  // values, record callbacks
//
// begin runs on the submitting thread (the tool's dispatch callback may keep thread state, as the
// reference's kernel-replay samples do); complete on whichever thread sees the completion.
#pragma once

#include <encore/tracing/detail/core.hpp>
#include <rocprofiler-sdk/dispatch_counting_service.h>

#include <cstdint>

namespace encore::core::counting {

/// An agent whose dispatches a backend measures. `ticks_per_second`: the frequency of the clock
/// the backend's start/end ticks are in.
struct source {
    std::uint64_t agent = 0;
    std::uint32_t wave_size = 0;
    std::uint64_t ticks_per_second = 0;
};
/// Registered when the backend loads, before tools are initialized; later duplicates are ignored.
ENCORE_API void register_source(const source& s) noexcept;

/// Whether some context configured the callback dispatch counting service (fixed once
/// configuration is locked): the backend intercepts dispatches for it.
ENCORE_API bool configured() noexcept;
/// Whether a context with the service is active now (one relaxed load: the ordinary path's test).
ENCORE_API bool active() noexcept;

/// One dispatch's counting between begin and complete: which contexts count it, with which
/// counters (copied from their config: destroying it meanwhile changes nothing), the user_data
/// their dispatch callback left and the correlation. Lives in the backend's dispatch record.
struct session {
    std::uint64_t mask = 0;
    std::uint64_t internal = 0;
    std::uint32_t counters[tracing::max_contexts];
    std::uint64_t external[tracing::max_contexts];
    rocprofiler_user_data_t user_data[tracing::max_contexts];
};

/// Asks the dispatch callback of every active counting context in `contexts` for a config for
/// this dispatch. false (`s.mask` 0) when none counts it, or the agent is no counter source.
ENCORE_API bool begin(session& s, const rocprofiler_kernel_dispatch_info_t& info, std::uint64_t contexts) noexcept;

/// What the backend measured of the dispatch: its start and end in the source's clock, and in
/// encore's (rocprofiler_get_timestamp) nanoseconds. `timed` false: the runtime gave no times
/// (the time counters are then 0).
struct measurement {
    bool timed = false;
    std::uint64_t start_ticks = 0, end_ticks = 0;
    rocprofiler_timestamp_t start_ns = 0, end_ns = 0;
};

/// The dispatch completed: every counting context of `s` gets its records.
ENCORE_API void complete(const session& s, const rocprofiler_kernel_dispatch_info_t& info, const measurement& m) noexcept;

/// Test suites only.
ENCORE_API void reset_for_testing() noexcept;

}  // namespace encore::core::counting
