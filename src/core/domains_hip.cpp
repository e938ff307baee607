// src/core/domains_hip.cpp — the one translation unit that instantiates the HIP runtime and
// compiler domains (names and argument printers) and the marker domains; kept apart from the
// HSA domains so the two compile in parallel. Their names and arguments are libencore's, so a
// tool can query them in a process where libencore-hip or libencore-roctx is not loaded.
#include "kinds.hpp"

#include <encore/domains/hip.hpp>
#include <encore/domains/marker.hpp>

namespace encore::core {
namespace {
const kind_registration<domains::hip_runtime, domains::hip_compiler, domains::marker_core, domains::marker_control,
                        domains::marker_name, domains::marker_core_range>
    registered;
}  // namespace
}  // namespace encore::core
