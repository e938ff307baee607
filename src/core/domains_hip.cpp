// src/core/domains_hip.cpp — the one translation unit that instantiates the HIP runtime and
// compiler domains (names and argument printers) and the marker domains; kept apart from the
// HSA domains so the two compile in parallel.
#include "kinds.hpp"

#include <encore/domains/hip.hpp>
#include <encore/domains/marker.hpp>

namespace encore::core {
constinit const kind_info hip_runtime_info = api_kind_info<domains::hip_runtime>();
constinit const kind_info hip_compiler_info = api_kind_info<domains::hip_compiler>();
constinit const kind_info marker_core_info = api_kind_info<domains::marker_core>();
constinit const kind_info marker_control_info = api_kind_info<domains::marker_control>();
constinit const kind_info marker_name_info = api_kind_info<domains::marker_name>();
constinit const kind_info marker_core_range_info = api_kind_info<domains::marker_core_range>();
}  // namespace encore::core
