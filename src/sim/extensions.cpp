// The encore-sim extensions (include/encore/sim/sim.h) and the one entry point ROCr exports
// outside the API table (hsa_amd_image_get_info_max_dim).
#include "sim_internal.hpp"

#include <encore/sim/sim.h>

extern "C" {
ENCORE_SIM_EXPORT int encore_sim_is_simulator(void) { return 1; }

// Exported by ROCr outside the API table; images are not supported by the simulator.
ENCORE_SIM_EXPORT hsa_status_t hsa_amd_image_get_info_max_dim(hsa_agent_t agent, hsa_agent_info_t, void* value) {
    if (!encore::sim::initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
    if (!encore::sim::agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_ERROR;
}

ENCORE_SIM_EXPORT size_t encore_sim_topology(encore_sim_topology_agent_t* out, size_t capacity) {
    return encore::sim::topology(out, capacity);
}

ENCORE_SIM_EXPORT uint32_t encore_sim_unimplemented_count(void) {
    return static_cast<uint32_t>(encore::sim::unimplemented_slots().size());
}

ENCORE_SIM_EXPORT const char* encore_sim_unimplemented_name(uint32_t index) {
    auto v = encore::sim::unimplemented_slots();
    return index < v.size() ? v[index] : nullptr;
}
}
