// src/core/domains_hip.cpp — the one translation unit that instantiates the HIP runtime and
// compiler domains (names and argument printers); kept apart from the HSA domains so the two
// compile in parallel. Their names and arguments are libencore's, so a tool can query them in a
// process where libencore-hip is not loaded. Built where HIP's headers are (meson.build's
// hip_domains).
#include "kinds.hpp"

#include <encore/domains/hip.hpp>

namespace encore::core {
namespace {
const kind_registration<domains::hip_runtime, domains::hip_compiler> registered;
}  // namespace
}  // namespace encore::core
