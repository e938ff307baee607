// src/cuda/profiler_hooks.hpp — CUDA's profiler API (cuProfilerStart / cuProfilerStop, which
// cudaProfilerStart/Stop and torch.cuda.profiler call) as roctx's profiler control, on request
// (ENCORE_CUDA_PROFILER_CONTROL=roctx: profiler_hooks.cpp).
#pragma once

namespace encore::cuda::profiler_hooks {

/// Points the two exports' jumps (real.hpp's slots) at the hooks (hook_slot, which
/// cuGetProcAddress's answers follow too) when asked for and libencore-roctx is in the process;
/// at load, after bind_forwarded_exports.
void bind() noexcept;

}  // namespace encore::cuda::profiler_hooks
