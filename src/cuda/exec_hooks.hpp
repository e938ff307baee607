// src/cuda/exec_hooks.hpp — the driver's exports that change a CUDA graph exec after
// instantiation without a typed wrapper in this build (exec_hooks.cpp): hooked so that the exec's
// graph plan is declined first, as the typed graph_update ops do in their role layer.
#pragma once

namespace encore::cuda::exec_hooks {

/// Points those exports' jumps (real.hpp's slots) at the hooks (real.hpp's hook_slot, which
/// cuGetProcAddress's answers follow too); at load, after bind_forwarded_exports.
void bind() noexcept;

}  // namespace encore::cuda::exec_hooks
