// src/hsa/code_object.hpp — CODE_OBJECT records and kernel ids (code_object.cpp).
#pragma once

#include <encore/domains/detail/hsa_table.hpp>

#include <cstdint>

namespace encore::hsa {

/// Replaces hsa_executable_freeze / hsa_executable_destroy when some context configured
/// CODE_OBJECT or KERNEL_DISPATCH (dispatch records carry kernel ids) or replay covers module
/// variables; returns whether it did.
bool install_code_object_tracing(::HsaApiTable& table) noexcept;
/// After install_code_object_tracing succeeded late (a tool forced its configuration after the
/// program loaded code): LOAD records, and kernel ids, for every executable frozen before.
void report_loaded_code_objects() noexcept;
/// The runtime unloads encore: UNLOAD records of executables still alive, slots put back.
void uninstall_code_object_tracing(::HsaApiTable& table) noexcept;

/// The kernel id registered for a kernel object of a frozen, live executable; 0 when unknown.
[[nodiscard]] std::uint64_t kernel_id_of(std::uint64_t kernel_object) noexcept;
/// The kernarg segment size of a kernel object of a frozen, live executable; false when unknown.
[[nodiscard]] bool kernarg_size_of(std::uint64_t kernel_object, std::uint64_t& size) noexcept;

}  // namespace encore::hsa
