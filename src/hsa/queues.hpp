// src/hsa/queues.hpp — kernel dispatch tracing through the runtime's intercept queues (queues.cpp).
#pragma once

#include <encore/domains/detail/hsa_table.hpp>

namespace encore::hsa {

/// Replaces the table's queue create/destroy slots (every queue the program creates then is an
/// intercept queue) and hsa_amd_profiling_get_dispatch_time when some context configured
/// KERNEL_DISPATCH or the replay service exists; returns whether it did (all three or none).
bool install_dispatch_tracing(::HsaApiTable& table) noexcept;
/// The runtime unloads encore: waits (bounded) for the dispatches in flight, puts the slots back.
void uninstall_dispatch_tracing(::HsaApiTable& table) noexcept;

}  // namespace encore::hsa
