// src/cuda/exec_hooks.hpp — the driver's exports that change a CUDA graph exec after
// instantiation without a typed wrapper in this build (exec_hooks.cpp): hooked so that the exec's
// graph plan is declined first, as the typed graph_update ops do in their role layer.
#pragma once

namespace encore::cuda::exec_hooks {

/// Points those exports' jumps (real.hpp's slots) at the hooks; at load, after
/// bind_forwarded_exports.
void bind() noexcept;
/// The hook standing for the driver's function `real` when it is one of those (cuGetProcAddress
/// hands it out in its place), else null.
void* hook_of(void* real) noexcept;

}  // namespace encore::cuda::exec_hooks
