// src/core/domains_hsa.cpp — the one translation unit that instantiates the HSA domains: their
// names, argument iteration, and the wrappers installed over ROCr's tables. The wrappers live in
// libencore, not libencore-hsa, because they reach the tracing state PC-relative here (hidden
// names, encore/tracing/detail/core.hpp) instead of through a GOT load per call.
#include "kinds.hpp"

#include <encore/domains/hsa.hpp>
#include <encore/tracing/wrapper.hpp>

namespace encore::core {
namespace {
const kind_registration<domains::hsa_core, domains::hsa_amd_ext, domains::hsa_image_ext, domains::hsa_finalize_ext> registered;
}  // namespace
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
