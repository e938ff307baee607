// src/hsa/memory.hpp — MEMORY_ALLOCATION and MEMORY_COPY records (memory.cpp).
#pragma once

#include <encore/domains/detail/hsa_table.hpp>

namespace encore::hsa {

/// Replaces the allocate/free slots (pool and region) when some context configured
/// MEMORY_ALLOCATION or replay tracks allocations, and the copy slots (hsa_memory_copy,
/// hsa_amd_memory_async_copy, hsa_amd_memory_async_copy_rect) when some context configured
/// MEMORY_COPY or replay gates copies, and hsa_amd_memory_fill when replay gates copies; returns
/// whether it replaced any.
bool install_memory_tracing(::HsaApiTable& table) noexcept;
/// The runtime unloads encore: waits (bounded) for async copies in flight, puts the slots back.
void uninstall_memory_tracing(::HsaApiTable& table) noexcept;

}  // namespace encore::hsa
