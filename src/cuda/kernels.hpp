// src/cuda/kernels.hpp — kernel names on CUDA: each function a program launches is reported once
// as a CODE_OBJECT DEVICE_KERNEL_SYMBOL_REGISTER record (phase LOAD), before its first dispatch
// record, with kernel_id = the launched handle (as in KERNEL_DISPATCH) and the driver's name for it.
// A tool names dispatches the way it does on HSA (api_trace.cpp's on_code_object).
#pragma once

#include <cuda.h>

#include <cstdint>

namespace encore::cuda::kernels {

/// Whether a context asked for kernel symbol records (the launch layer is needed for them).
[[nodiscard]] bool configured() noexcept;
/// Reports `f` if it was not reported yet (since the last unload). Cheap when nobody subscribed
/// (one load) and for a function this thread launched recently (a per-thread cache).
void announce(CUfunction f) noexcept;
/// A module or library was unloaded: its handles may come back as other functions, so every
/// function is reported again at its next launch.
void on_unload() noexcept;
/// `f`'s attribute `a` (cuFuncGetAttribute); 0 when the driver cannot say or it is negative.
std::uint32_t attribute(CUfunction f, CUfunction_attribute a) noexcept;

}  // namespace encore::cuda::kernels
