// src/core/registration.hpp — tool discovery, initialization and finalization.
#pragma once

#include <encore/tracing/detail/core.hpp>
#include <rocprofiler-sdk/registration.h>

namespace encore::core {

/// Finds every tool, calls its rocprofiler_configure, runs each initialize with configuration
/// open, then locks configuration. Runs once per process; later calls return at once. Called by
/// a runtime entry point (HSA OnLoad, the HIP interposer) or by encore::initialize().
ENCORE_API void initialize() noexcept;
/// Runs every tool's finalize (reverse order) and stops all contexts. Once.
ENCORE_API void finalize() noexcept;
/// A runtime backend's entry when the runtime loads it (HSA OnLoad). With a tool present (a
/// forced or C++-registered tool, ROCP_TOOL_LIBRARIES set, `rocprofiler_configure` exported by an
/// object of the process) or initialization done or under way: initializes (if not yet) and runs
/// `ready` before returning. With none, nothing is locked (rocprofiler_is_initialized stays 0, as
/// the reference's, which rocprofiler-register loads only when a tool is present) and `ready`
/// runs right after a later initialization (rocprofiler_force_configure), on its thread.
ENCORE_API void initialize_or_defer(void (*ready)()) noexcept;
/// The backend's runtime shut down before any tool came: its deferred `ready` is dropped.
ENCORE_API void cancel_deferred(void (*ready)()) noexcept;
[[nodiscard]] int init_state() noexcept;  // 0 not yet, -1 in progress, 1 done
[[nodiscard]] int fini_state() noexcept;
rocprofiler_status_t force_configure(rocprofiler_configure_func_t fn) noexcept;

/// Test suites only: forget tools and go back to "not initialized".
ENCORE_API void reset_registration_for_testing() noexcept;
/// Resets all tracing state (registry, buffers, buffer services, replay) to "no contexts, nothing
/// initialized". Test suites only: callers guarantee that no traced call is in flight.
ENCORE_API void reset_for_testing() noexcept;

}  // namespace encore::core
