// src/hsa/runtime.hpp — what libencore-hsa keeps of the HSA runtime it was loaded into: the
// runtime's own functions and its clock (runtime.cpp). Every other file of the library builds on
// this one; it calls none of them.
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

/// Copies the runtime's own functions out of the table OnLoad got (no more of each table than
/// the runtime reports; later slots stay null) and calibrates its clock. Once, in OnLoad, before
/// anything else of the library runs.
void adopt_runtime(const ::HsaApiTable& table) noexcept;

/// HSA timestamp ticks -> encore time (CLOCK_BOOTTIME ns), calibrated by adopt_runtime.
std::uint64_t to_encore_ns(std::uint64_t ticks) noexcept;

}  // namespace encore::hsa
