// src/core/domains_hip.cpp — the one translation unit that instantiates the HIP runtime domain
// (its 378 names and argument printers); kept apart from the HSA domains so the two compile in
// parallel.
#include "kinds.hpp"

#include <encore/domains/hip_enums.hpp>
#include <encore/domains/hip_runtime.hpp>

namespace encore::core {
constinit const kind_info hip_runtime_info = api_kind_info<domains::hip_runtime>();
}  // namespace encore::core
