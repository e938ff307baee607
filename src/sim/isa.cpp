// The one ISA of the GPU agents, its wavefront and the caches every agent reports: the
// hsa_isa_*, hsa_wavefront_* and hsa_cache_* queries.
#include "sim_internal.hpp"

#include <cstring>

namespace encore::sim {

Isa g_isa;
const Cache g_caches[] = {{"L1", 1, 16 * 1024}, {"L2", 2, 4 * 1024 * 1024}};

namespace {

bool valid_isa(hsa_isa_t isa) { return isa.handle == reinterpret_cast<uint64_t>(&g_isa); }

hsa_status_t impl_agent_iterate_isas(hsa_agent_t agent, hsa_status_t (*cb)(hsa_isa_t, void*), void* data) {
    SIM_REQUIRE_INIT();
    Agent* a = agent_from_handle(agent);
    if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (a->type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
    return cb(hsa_isa_t{reinterpret_cast<uint64_t>(&g_isa)}, data);
}

hsa_status_t impl_isa_from_name(const char* name, hsa_isa_t* isa) {
    SIM_REQUIRE_INIT();
    if (!name || !isa) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (strcmp(name, g_isa.name) != 0) return HSA_STATUS_ERROR_INVALID_ISA_NAME;
    isa->handle = reinterpret_cast<uint64_t>(&g_isa);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    switch (attribute) {
        case HSA_ISA_INFO_NAME_LENGTH:
            *static_cast<uint32_t*>(value) = static_cast<uint32_t>(strlen(g_isa.name) + 1);
            break;
        case HSA_ISA_INFO_NAME: memcpy(value, g_isa.name, strlen(g_isa.name) + 1); break;
        case HSA_ISA_INFO_MACHINE_MODELS: {
            bool* b = static_cast<bool*>(value);
            b[HSA_MACHINE_MODEL_SMALL] = false;
            b[HSA_MACHINE_MODEL_LARGE] = true;
            break;
        }
        case HSA_ISA_INFO_PROFILES: {
            bool* b = static_cast<bool*>(value);
            b[HSA_PROFILE_BASE] = true;
            b[HSA_PROFILE_FULL] = false;
            break;
        }
        case HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES:
        case HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: {
            bool* b = static_cast<bool*>(value);
            b[HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT] = false;
            b[HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO] = false;
            b[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR] = true;
            break;
        }
        case HSA_ISA_INFO_FAST_F16_OPERATION: *static_cast<bool*>(value) = false; break;
        case HSA_ISA_INFO_WORKGROUP_MAX_DIM: {
            uint16_t* d = static_cast<uint16_t*>(value);
            d[0] = d[1] = d[2] = 1024;
            break;
        }
        case HSA_ISA_INFO_WORKGROUP_MAX_SIZE: *static_cast<uint32_t*>(value) = 1024; break;
        case HSA_ISA_INFO_GRID_MAX_DIM: {
            hsa_dim3_t* d = static_cast<hsa_dim3_t*>(value);
            d->x = d->y = d->z = UINT32_MAX;
            break;
        }
        case HSA_ISA_INFO_GRID_MAX_SIZE: *static_cast<uint64_t*>(value) = UINT32_MAX; break;
        case HSA_ISA_INFO_FBARRIER_MAX_SIZE: *static_cast<uint32_t*>(value) = 32; break;
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_isa_get_info(hsa_isa_t isa, hsa_isa_info_t attribute, uint32_t index, void* value) {
    SIM_REQUIRE_INIT();
    if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    switch (attribute) {
        case HSA_ISA_INFO_CALL_CONVENTION_COUNT: *static_cast<uint32_t*>(value) = 1; return HSA_STATUS_SUCCESS;
        case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE:
            if (index != 0) return HSA_STATUS_ERROR_INVALID_INDEX;
            *static_cast<uint32_t*>(value) = 64;
            return HSA_STATUS_SUCCESS;
        case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT:
            if (index != 0) return HSA_STATUS_ERROR_INVALID_INDEX;
            *static_cast<uint32_t*>(value) = 40;
            return HSA_STATUS_SUCCESS;
        default: return impl_isa_get_info_alt(isa, attribute, value);
    }
}

hsa_status_t impl_isa_compatible(hsa_isa_t code_isa, hsa_isa_t agent_isa, bool* result) {
    SIM_REQUIRE_INIT();
    if (!valid_isa(code_isa) || !valid_isa(agent_isa)) return HSA_STATUS_ERROR_INVALID_ISA;
    if (!result) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *result = true;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_isa_get_exception_policies(hsa_isa_t isa, hsa_profile_t profile, uint16_t* mask) {
    SIM_REQUIRE_INIT();
    if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
    if (!mask || (profile != HSA_PROFILE_BASE && profile != HSA_PROFILE_FULL)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *mask = 0;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_isa_get_round_method(hsa_isa_t isa, hsa_fp_type_t, hsa_flush_mode_t, hsa_round_method_t* method) {
    SIM_REQUIRE_INIT();
    if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
    if (!method) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *method = HSA_ROUND_METHOD_SINGLE;
    return HSA_STATUS_SUCCESS;
}

constexpr uint64_t kWavefrontHandle = 0x57a7e64;
hsa_status_t impl_isa_iterate_wavefronts(hsa_isa_t isa, hsa_status_t (*cb)(hsa_wavefront_t, void*), void* data) {
    SIM_REQUIRE_INIT();
    if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return cb(hsa_wavefront_t{kWavefrontHandle}, data);
}

hsa_status_t impl_wavefront_get_info(hsa_wavefront_t wf, hsa_wavefront_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    if (wf.handle != kWavefrontHandle) return HSA_STATUS_ERROR_INVALID_WAVEFRONT;
    if (!value || attribute != HSA_WAVEFRONT_INFO_SIZE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *static_cast<uint32_t*>(value) = 64;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_agent_iterate_caches(hsa_agent_t agent, hsa_status_t (*cb)(hsa_cache_t, void*), void* data) {
    SIM_REQUIRE_INIT();
    if (!agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    for (const Cache& c : g_caches) {
        hsa_status_t s = cb(hsa_cache_t{reinterpret_cast<uint64_t>(&c)}, data);
        if (s != HSA_STATUS_SUCCESS) return s;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_cache_get_info(hsa_cache_t cache, hsa_cache_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    const Cache* c = nullptr;
    for (const Cache& x : g_caches)
        if (reinterpret_cast<uint64_t>(&x) == cache.handle) c = &x;
    if (!c) return HSA_STATUS_ERROR_INVALID_CACHE;
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    switch (attribute) {
        case HSA_CACHE_INFO_NAME_LENGTH: *static_cast<uint32_t*>(value) = static_cast<uint32_t>(strlen(c->name)); break;
        case HSA_CACHE_INFO_NAME: memcpy(value, c->name, strlen(c->name) + 1); break;
        case HSA_CACHE_INFO_LEVEL: *static_cast<uint8_t*>(value) = c->level; break;
        case HSA_CACHE_INFO_SIZE: *static_cast<uint32_t*>(value) = c->size; break;
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

}  // namespace

void install_isa(HsaApiTable& t) {
    CoreApiTable& c = *t.core_;
    c.hsa_agent_iterate_isas_fn = impl_agent_iterate_isas;
    c.hsa_isa_from_name_fn = impl_isa_from_name;
    c.hsa_isa_get_info_fn = impl_isa_get_info;
    c.hsa_isa_get_info_alt_fn = impl_isa_get_info_alt;
    c.hsa_isa_compatible_fn = impl_isa_compatible;
    c.hsa_isa_get_exception_policies_fn = impl_isa_get_exception_policies;
    c.hsa_isa_get_round_method_fn = impl_isa_get_round_method;
    c.hsa_isa_iterate_wavefronts_fn = impl_isa_iterate_wavefronts;
    c.hsa_wavefront_get_info_fn = impl_wavefront_get_info;
    c.hsa_agent_iterate_caches_fn = impl_agent_iterate_caches;
    c.hsa_cache_get_info_fn = impl_cache_get_info;
}

}  // namespace encore::sim
