// src/cuda/profiler_hooks.hpp — CUDA's profiler API (cuProfilerStart / cuProfilerStop, which
// cudaProfilerStart/Stop and torch.cuda.profiler call) as roctx's profiler control, on request
// (ENCORE_CUDA_PROFILER_CONTROL=roctx: profiler_hooks.cpp).
#pragma once

namespace encore::cuda::profiler_hooks {

/// Points the two exports' jumps (real.hpp's slots) at the hooks when asked for and libencore-roctx
/// is in the process; at load, after bind_forwarded_exports.
void bind() noexcept;
/// The hook standing for the driver's function `real` when it is one of the two and bound (what
/// cuGetProcAddress hands out in its place), else null.
void* hook_of(void* real) noexcept;

}  // namespace encore::cuda::profiler_hooks
