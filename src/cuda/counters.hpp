// src/cuda/counters.hpp — hardware counters of NVIDIA GPUs for the dispatch counting service
// (core/counting.hpp): each device's metrics from CUPTI's profiler host API, listed as the
// agent's counters under NVIDIA's names, counted per launch with CUPTI's range profiler (one user
// range around the launch, user replay: encore's replay passes are the passes). counters.cpp;
// docs/counters.md, "NVIDIA GPUs".
//
//   if (CUresult r; counters::launch(c, dispatch_id, r)) return r;   // counted (synchronously)
//   ... the launch as usual ...
//
// CUPTI is loaded (cupti::open_library) at the first launch made while a counting service is
// configured; then every device becomes a counter source (agent id: its ordinal, as in
// KERNEL_DISPATCH records). Refused, with one warning, while CUPTI times dispatches
// (ENCORE_CUDA_DISPATCH_TIMING=cupti|auto), without libcupti, without profiling support or
// permission: the devices then have no counters.
#pragma once

#include "calls.hpp"

#include <cstdint>

namespace encore::cuda::counters {

/// A launch outside replay (or one a replay runs once): when a counting context wants it counted,
/// it is launched here, alone on its context (drained before and after), with its KERNEL_DISPATCH
/// records, and true is returned with its result in `r`. false: not counted; launch it as usual.
bool launch(const launch_call& c, std::uint64_t dispatch_id, CUresult& r) noexcept;
/// A replay pass (records::launch_pass, whose arguments these are), counted when a counting
/// context taking part in the pass (`contexts`) asks for it.
CUresult launch_pass(const launch_call& c, std::uint64_t dispatch_id, std::uint64_t contexts, bool& completed,
                     std::uint64_t timeout_ns) noexcept;
/// Makes every device a counter source now if a counting service is configured (CUPTI loaded
/// once; a no-op after the first call), so that a replay's CONFIG ENTER already sees the agent's
/// counters.
void prepare() noexcept;
/// The context is gone: its range profiler object is forgotten (a later context may get the same
/// handle and gets an object of its own).
void forget(CUcontext c) noexcept;
/// Whether launches go through launch() / launch_pass() for counting (a counting service is
/// configured; fixed once tools are initialized).
bool configured() noexcept;

}  // namespace encore::cuda::counters
