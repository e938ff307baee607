// src/hsa/scratch.hpp — SCRATCH_MEMORY records from the HSA runtime's scratch events.
#pragma once

#include <encore/domains/detail/hsa_table.hpp>

namespace encore::hsa {

/// Puts encore's handlers in the runtime's tools table (ROCr >= 6.2 and the software runtime:
/// `HsaApiTable::tools_`) when some context configured SCRATCH_MEMORY. False when nothing asked
/// for it or the runtime has no tools table (then nothing produces SCRATCH_MEMORY; said once).
bool install_scratch_tracing(::HsaApiTable& table) noexcept;
void uninstall_scratch_tracing(::HsaApiTable& table) noexcept;

}  // namespace encore::hsa
