// src/core/domains_marker.cpp — the one translation unit that instantiates the marker (roctx)
// domains: names and argument printers, libencore's so a tool can query them where
// libencore-roctx is not loaded. Apart from the HIP domains (domains_hip.cpp): markers are traced
// in every build, NVTX's through them in a CUDA-only one.
#include "kinds.hpp"

#include <encore/domains/marker.hpp>

namespace encore::core {
namespace {
const kind_registration<domains::marker_core, domains::marker_control, domains::marker_name, domains::marker_core_range> registered;
}  // namespace
}  // namespace encore::core
