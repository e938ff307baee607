// src/cuda/replay.hpp — KERNEL_REPLAY on CUDA: one replayed launch under core::replay's flow
// (snapshot of the context's tracked memory, passes, restore; replay.cpp).
#pragma once

#include "calls.hpp"

namespace encore::cuda::replay {

/// Whether a KERNEL_REPLAY or RANGE_REPLAY service is configured (fixed once tools are initialized).
bool enabled() noexcept;
/// A launch: recorded by the thread's open range (range_replay.hpp), else replayed when the
/// replay service asks for it.
CUresult launch(const launch_call& c) noexcept;
/// The context is gone: the snapshot memory kept for it is forgotten.
void forget(CUcontext c) noexcept;

}  // namespace encore::cuda::replay
