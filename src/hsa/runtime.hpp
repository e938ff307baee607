// src/hsa/runtime.hpp — what libencore-hsa keeps of the HSA runtime it was loaded into.
#pragma once

#include <encore/domains/detail/hsa_table.hpp>

#include <cstdint>

namespace encore::hsa {

/// The runtime's own functions, copied in OnLoad before anything is replaced: encore's internal
/// HSA calls go through these, so they are never traced and never re-enter encore.
struct originals {
    ::CoreApiTable core{};
    ::AmdExtTable amd{};
};
const originals& runtime() noexcept;

/// HSA timestamp ticks -> encore time (CLOCK_BOOTTIME ns), calibrated at OnLoad.
std::uint64_t to_encore_ns(std::uint64_t ticks) noexcept;

/// Kernel dispatch tracing through the runtime's intercept queues. Replaces the table's queue
/// create/destroy slots when some context configured KERNEL_DISPATCH; returns whether it did.
bool install_dispatch_tracing(::HsaApiTable& table) noexcept;
void uninstall_dispatch_tracing(::HsaApiTable& table) noexcept;

}  // namespace encore::hsa
