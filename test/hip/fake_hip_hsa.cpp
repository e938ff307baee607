// test/hip/fake_hip_hsa.cpp — a stand-in HIP runtime built on HSA, as ROCm's is: its functions
// call HSA functions (of encore's software HSA runtime here), so a test can see the HSA records
// made underneath a HIP call. Loaded by libencore-hip through ENCORE_HIP_LIBRARY.
#include <hip/hip_runtime_api.h>
#include <hsa/hsa.h>

extern "C" {
__attribute__((visibility("default"))) hipError_t hipInit(unsigned int flags) {
    if (flags != 0) return hipErrorInvalidValue;
    return hsa_init() == HSA_STATUS_SUCCESS ? hipSuccess : hipErrorNotInitialized;
}

// Counts GPU agents: hsa_iterate_agents, and hsa_agent_get_info for each agent.
__attribute__((visibility("default"))) hipError_t hipGetDeviceCount(int* count) {
    if (count == nullptr) return hipErrorInvalidValue;
    *count = 0;
    const hsa_status_t s = hsa_iterate_agents(
        [](hsa_agent_t agent, void* data) {
            hsa_device_type_t type{};
            if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
            if (type == HSA_DEVICE_TYPE_GPU) ++*static_cast<int*>(data);
            return HSA_STATUS_SUCCESS;
        },
        count);
    if (s != HSA_STATUS_SUCCESS) return hipErrorNotInitialized;
    return *count > 0 ? hipSuccess : hipErrorNoDevice;
}

// The "driver" version: the HSA runtime's version, major * 1000 + minor * 10.
__attribute__((visibility("default"))) hipError_t hipDriverGetVersion(int* version) {
    if (version == nullptr) return hipErrorInvalidValue;
    uint16_t major = 0, minor = 0;
    if (hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) != HSA_STATUS_SUCCESS ||
        hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &minor) != HSA_STATUS_SUCCESS)
        return hipErrorNotInitialized;
    *version = major * 1000 + minor * 10;
    return hipSuccess;
}

// No HSA underneath: a HIP call whose records must have no HSA children.
__attribute__((visibility("default"))) hipError_t hipRuntimeGetVersion(int* v) {
    if (v == nullptr) return hipErrorInvalidValue;
    *v = 12345;
    return hipSuccess;
}
}
