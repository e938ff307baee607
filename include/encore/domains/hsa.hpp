// encore/domains/hsa.hpp — the four HSA API domains, their enum names and printable structs.
//
//   #include <encore/domains/hsa.hpp>
//   using encore::domains::hsa_core;         // also hsa_amd_ext, hsa_image_ext, hsa_finalize_ext
//   ctx.trace<hsa_core>(f);                   // every op of the core table, or a selection:
//   ctx.trace<hsa_core>(encore::ops<hsa_core, "hsa_queue_create">(), f);
//   constexpr auto id = hsa_core::id_of<"hsa_queue_create">();   // op id = table position
//
// Domains a tool does not name generate no code and leave their table slots untouched.
// Needs <hsa/hsa_api_trace.h> (Debian libhsa-runtime-dev) and AMD_INTERNAL_BUILD (see
// encore/domains/detail/hsa_table.hpp); encore.pc and encore::encore pass it.
#pragma once

#include <encore/api/arg_fields.hpp>
#include <encore/domains/hsa_amd_ext.hpp>
#include <encore/domains/hsa_core.hpp>
#include <encore/domains/hsa_enums.hpp>
#include <encore/domains/hsa_finalize_ext.hpp>
#include <encore/domains/hsa_image_ext.hpp>

#include <tuple>

// Structs that print field by field (others print as handles or bytes).
template <>
struct encore::arg_fields<hsa_dim3_t> {
    static constexpr auto value = std::tuple{field{"x", &hsa_dim3_t::x}, field{"y", &hsa_dim3_t::y},
                                             field{"z", &hsa_dim3_t::z}};
};
template <>
struct encore::arg_fields<hsa_queue_t> {
    static constexpr auto value = std::tuple{field{"type", &hsa_queue_t::type},
                                             field{"features", &hsa_queue_t::features},
                                             field{"base_address", &hsa_queue_t::base_address},
                                             field{"doorbell_signal", &hsa_queue_t::doorbell_signal},
                                             field{"size", &hsa_queue_t::size},
                                             field{"id", &hsa_queue_t::id}};
};
template <>
struct encore::arg_fields<hsa_amd_pointer_info_t> {
    static constexpr auto value = std::tuple{field{"size", &hsa_amd_pointer_info_t::size},
                                             field{"type", &hsa_amd_pointer_info_t::type},
                                             field{"agentBaseAddress", &hsa_amd_pointer_info_t::agentBaseAddress},
                                             field{"hostBaseAddress", &hsa_amd_pointer_info_t::hostBaseAddress},
                                             field{"sizeInBytes", &hsa_amd_pointer_info_t::sizeInBytes},
                                             field{"agentOwner", &hsa_amd_pointer_info_t::agentOwner}};
};
