// src/core/domains_hsa.cpp — the one translation unit that instantiates the HSA domains:
// their names, argument iteration, and the wrappers installed over ROCr's tables.
#include "kinds.hpp"

#include <encore/domains/hsa.hpp>
#include <encore/tracing/wrapper.hpp>

namespace encore::core {
constinit const kind_info hsa_core_info = api_kind_info<domains::hsa_core>();
constinit const kind_info hsa_amd_ext_info = api_kind_info<domains::hsa_amd_ext>();
constinit const kind_info hsa_image_ext_info = api_kind_info<domains::hsa_image_ext>();
constinit const kind_info hsa_finalize_ext_info = api_kind_info<domains::hsa_finalize_ext>();
}  // namespace encore::core

namespace encore::tracing {
template std::size_t install<domains::hsa_core, op_selection>(::CoreApiTable&, op_selection&&);
template std::size_t install<domains::hsa_amd_ext, op_selection>(::AmdExtTable&, op_selection&&);
template std::size_t install<domains::hsa_image_ext, op_selection>(::ImageExtTable&, op_selection&&);
template std::size_t install<domains::hsa_finalize_ext, op_selection>(::FinalizerExtTable&, op_selection&&);
template std::size_t uninstall<domains::hsa_core>(::CoreApiTable&);
template std::size_t uninstall<domains::hsa_amd_ext>(::AmdExtTable&);
template std::size_t uninstall<domains::hsa_image_ext>(::ImageExtTable&);
template std::size_t uninstall<domains::hsa_finalize_ext>(::FinalizerExtTable&);
}  // namespace encore::tracing
