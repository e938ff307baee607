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

/// MEMORY_ALLOCATION (pool/region allocate and free slots) and MEMORY_COPY (hsa_memory_copy,
/// hsa_amd_memory_async_copy slots) records (memory.cpp). Replaces the slots of each kind some
/// context configured; returns whether it replaced any.
bool install_memory_tracing(::HsaApiTable& table) noexcept;
void uninstall_memory_tracing(::HsaApiTable& table) noexcept;

/// CODE_OBJECT records and kernel ids (code_object.cpp): replaces hsa_executable_freeze /
/// hsa_executable_destroy when some context configured CODE_OBJECT or KERNEL_DISPATCH.
bool install_code_object_tracing(::HsaApiTable& table) noexcept;
void uninstall_code_object_tracing(::HsaApiTable& table) noexcept;
/// The kernel id registered for a kernel object of a frozen, live executable; 0 when unknown.
std::uint64_t kernel_id_of(std::uint64_t kernel_object) noexcept;


}  // namespace encore::hsa
