// src/core/ompt.hpp — what libencore-ompt (src/ompt/) tells libencore, for the functions of
// rocprofiler-sdk/ompt.h that libencore exports (a tool links libencore, not the OMPT library).
#pragma once

#include "registry.hpp"

#include <rocprofiler-sdk/ompt/omp-tools.h>

namespace encore::core {

/// libencore-ompt's start: its registration for the runtime, or null when its tool was started
/// already. `chain`: also start the next OMPT tool in the process (not when a tool's own
/// ompt_start_tool defers to encore: that tool is the one the runtime found).
using ompt_start_fn = ompt_start_tool_result_t* (*)(unsigned int omp_version, const char* runtime_version, bool chain);

ENCORE_API void set_ompt_start(ompt_start_fn start) noexcept;
ENCORE_API void set_ompt_initialized() noexcept;
ENCORE_API void set_ompt_finalized() noexcept;

}  // namespace encore::core
