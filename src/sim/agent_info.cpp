// Agent queries: hsa_iterate_agents, hsa_agent_get_info (what each simulated CPU and GPU reports),
// agent extensions and exception policies.
#include "sim_internal.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace encore::sim {
namespace {

hsa_status_t impl_iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
    SIM_REQUIRE_INIT();
    if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    for (Agent* a : agents()) {
        hsa_status_t s = callback(a->handle(), data);
        if (s != HSA_STATUS_SUCCESS) return s;
    }
    return HSA_STATUS_SUCCESS;
}

void copy_name(void* value, const std::string& s) {
    char* out = static_cast<char*>(value);
    memset(out, 0, 64);
    memcpy(out, s.data(), std::min<size_t>(s.size(), 63));
}

hsa_status_t impl_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    Agent* a = agent_from_handle(agent);
    if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    const bool gpu = a->type == HSA_DEVICE_TYPE_GPU;
    switch (static_cast<int>(attribute)) {
        case HSA_AGENT_INFO_NAME: copy_name(value, a->name); break;
        case HSA_AGENT_INFO_VENDOR_NAME: copy_name(value, gpu ? "AMD" : "CPU"); break;
        case HSA_AGENT_INFO_FEATURE:
            *static_cast<hsa_agent_feature_t*>(value) = gpu ? HSA_AGENT_FEATURE_KERNEL_DISPATCH
                                                            : static_cast<hsa_agent_feature_t>(0);
            break;
        case HSA_AGENT_INFO_MACHINE_MODEL: *static_cast<hsa_machine_model_t*>(value) = HSA_MACHINE_MODEL_LARGE; break;
        case HSA_AGENT_INFO_PROFILE:
            *static_cast<hsa_profile_t*>(value) = gpu ? HSA_PROFILE_BASE : HSA_PROFILE_FULL;
            break;
        case HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
            *static_cast<hsa_default_float_rounding_mode_t*>(value) = HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
            break;
        case HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES:
            *static_cast<hsa_default_float_rounding_mode_t*>(value) = HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
            break;
        case HSA_AGENT_INFO_FAST_F16_OPERATION: *static_cast<bool*>(value) = false; break;
        case HSA_AGENT_INFO_WAVEFRONT_SIZE: *static_cast<uint32_t*>(value) = gpu ? 64 : 0; break;
        case HSA_AGENT_INFO_WORKGROUP_MAX_DIM: {
            uint16_t* d = static_cast<uint16_t*>(value);
            d[0] = d[1] = d[2] = gpu ? 1024 : 0;
            break;
        }
        case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE: *static_cast<uint32_t*>(value) = gpu ? 1024 : 0; break;
        case HSA_AGENT_INFO_GRID_MAX_DIM: {
            hsa_dim3_t* d = static_cast<hsa_dim3_t*>(value);
            d->x = d->y = d->z = gpu ? UINT32_MAX : 0;
            break;
        }
        case HSA_AGENT_INFO_GRID_MAX_SIZE: *static_cast<uint32_t*>(value) = gpu ? UINT32_MAX : 0; break;
        case HSA_AGENT_INFO_FBARRIER_MAX_SIZE: *static_cast<uint32_t*>(value) = gpu ? 32 : 0; break;
        case HSA_AGENT_INFO_QUEUES_MAX: *static_cast<uint32_t*>(value) = gpu ? 128 : 0; break;
        case HSA_AGENT_INFO_QUEUE_MIN_SIZE: *static_cast<uint32_t*>(value) = gpu ? 64 : 0; break;
        case HSA_AGENT_INFO_QUEUE_MAX_SIZE: *static_cast<uint32_t*>(value) = gpu ? 131072 : 0; break;
        case HSA_AGENT_INFO_QUEUE_TYPE: *static_cast<hsa_queue_type32_t*>(value) = HSA_QUEUE_TYPE_MULTI; break;
        case HSA_AGENT_INFO_NODE: *static_cast<uint32_t*>(value) = a->node; break;
        case HSA_AGENT_INFO_DEVICE: *static_cast<hsa_device_type_t*>(value) = a->type; break;
        case HSA_AGENT_INFO_CACHE_SIZE: {
            uint32_t* c = static_cast<uint32_t*>(value);
            c[0] = g_caches[0].size;
            c[1] = g_caches[1].size;
            c[2] = c[3] = 0;
            break;
        }
        case HSA_AGENT_INFO_ISA:
            static_cast<hsa_isa_t*>(value)->handle = gpu ? reinterpret_cast<uint64_t>(&g_isa) : 0;
            break;
        case HSA_AGENT_INFO_EXTENSIONS: {
            uint8_t* bits = static_cast<uint8_t*>(value);
            memset(bits, 0, 128);
            break;
        }
        case HSA_AGENT_INFO_VERSION_MAJOR: *static_cast<uint16_t*>(value) = 1; break;
        case HSA_AGENT_INFO_VERSION_MINOR: *static_cast<uint16_t*>(value) = 1; break;
        case HSA_AMD_AGENT_INFO_CHIP_ID: *static_cast<uint32_t*>(value) = gpu ? 0x5eed : 0; break;
        case HSA_AMD_AGENT_INFO_CACHELINE_SIZE: *static_cast<uint32_t*>(value) = 64; break;
        case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
            *static_cast<uint32_t*>(value) = gpu ? threads_per_agent() : std::thread::hardware_concurrency();
            break;
        case HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY: *static_cast<uint32_t*>(value) = 1000; break;
        case HSA_AMD_AGENT_INFO_DRIVER_NODE_ID: *static_cast<uint32_t*>(value) = a->node; break;
        case HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS: *static_cast<uint32_t*>(value) = 0; break;
        case HSA_AMD_AGENT_INFO_BDFID: *static_cast<uint32_t*>(value) = a->node << 8; break;
        case HSA_AMD_AGENT_INFO_MEMORY_WIDTH: *static_cast<uint32_t*>(value) = 64; break;
        case HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY: *static_cast<uint32_t*>(value) = 1000; break;
        case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
            copy_name(value, gpu ? "encore-sim software GPU" : "encore-sim host CPU");
            break;
        case HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU: *static_cast<uint32_t*>(value) = gpu ? 40 : 0; break;
        case HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU: *static_cast<uint32_t*>(value) = gpu ? 4 : 0; break;
        case HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES: *static_cast<uint32_t*>(value) = gpu ? 1 : 0; break;
        case HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE: *static_cast<uint32_t*>(value) = gpu ? 1 : 0; break;
        case HSA_AMD_AGENT_INFO_DOMAIN: *static_cast<uint32_t*>(value) = 0; break;
        case HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES: *static_cast<bool*>(value) = false; break;
        case HSA_AMD_AGENT_INFO_UUID: {
            char buf[32];
            if (gpu)
                snprintf(buf, sizeof buf, "GPU-5e0c0000%08x", a->gpu_index);
            else
                snprintf(buf, sizeof buf, "CPU-XX");
            memset(value, 0, 21);
            memcpy(value, buf, std::min<size_t>(strlen(buf), 20));
            break;
        }
        case HSA_AMD_AGENT_INFO_ASIC_REVISION: *static_cast<uint32_t*>(value) = 0; break;
        case HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS: *static_cast<bool*>(value) = true; break;
        case HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT:
            *static_cast<uint32_t*>(value) = gpu ? threads_per_agent() : 0;
            break;
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_agent_extension_supported(uint16_t extension, hsa_agent_t agent, uint16_t, uint16_t, bool* result) {
    SIM_REQUIRE_INIT();
    if (!agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!result || extension > HSA_EXTENSION_AMD_AQLPROFILE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *result = false;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_agent_major_extension_supported(uint16_t extension, hsa_agent_t agent, uint16_t, uint16_t* minor,
                                                  bool* result) {
    SIM_REQUIRE_INIT();
    if (!agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!result || !minor || extension > HSA_EXTENSION_AMD_AQLPROFILE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *result = false;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_agent_get_exception_policies(hsa_agent_t agent, hsa_profile_t profile, uint16_t* mask) {
    SIM_REQUIRE_INIT();
    if (!agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!mask || (profile != HSA_PROFILE_BASE && profile != HSA_PROFILE_FULL)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *mask = 0;
    return HSA_STATUS_SUCCESS;
}

}  // namespace

void install_agent_info(HsaApiTable& t) {
    CoreApiTable& c = *t.core_;
    c.hsa_iterate_agents_fn = impl_iterate_agents;
    c.hsa_agent_get_info_fn = impl_agent_get_info;
    c.hsa_agent_extension_supported_fn = impl_agent_extension_supported;
    c.hsa_agent_major_extension_supported_fn = impl_agent_major_extension_supported;
    c.hsa_agent_get_exception_policies_fn = impl_agent_get_exception_policies;
}

}  // namespace encore::sim
