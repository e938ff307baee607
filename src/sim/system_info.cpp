// System-wide queries: hsa_system_get_info, the extensions the runtime supports (the AMD loader
// extension, 1.00 to 1.03) and their function tables, extension names.
#include "sim_internal.hpp"

#include <algorithm>
#include <cstring>

namespace encore::sim {
namespace {

hsa_status_t impl_system_get_info(hsa_system_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    switch (static_cast<int>(attribute)) {
        case HSA_SYSTEM_INFO_VERSION_MAJOR: *static_cast<uint16_t*>(value) = 1; break;
        case HSA_SYSTEM_INFO_VERSION_MINOR: *static_cast<uint16_t*>(value) = 1; break;
        case HSA_SYSTEM_INFO_TIMESTAMP: *static_cast<uint64_t*>(value) = now_ticks(); break;
        case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY: *static_cast<uint64_t*>(value) = kTimestampFrequency; break;
        case HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT: *static_cast<uint64_t*>(value) = UINT64_MAX; break;
        case HSA_SYSTEM_INFO_ENDIANNESS: *static_cast<hsa_endianness_t*>(value) = HSA_ENDIANNESS_LITTLE; break;
        case HSA_SYSTEM_INFO_MACHINE_MODEL: *static_cast<hsa_machine_model_t*>(value) = HSA_MACHINE_MODEL_LARGE; break;
        case HSA_SYSTEM_INFO_EXTENSIONS: {
            uint8_t* bits = static_cast<uint8_t*>(value);
            memset(bits, 0, 128);
            bits[HSA_EXTENSION_AMD_LOADER / 8] |= static_cast<uint8_t>(1u << (HSA_EXTENSION_AMD_LOADER % 8));
            break;
        }
        case HSA_AMD_SYSTEM_INFO_BUILD_VERSION: *static_cast<const char**>(value) = "encore-sim 1.5.0"; break;
        case HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED: *static_cast<bool*>(value) = false; break;
        case HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT: *static_cast<bool*>(value) = false; break;
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

bool loader_ext_version_ok(uint16_t major, uint16_t minor) { return major == 1 && minor <= 3; }

hsa_status_t impl_system_extension_supported(uint16_t extension, uint16_t major, uint16_t minor, bool* result) {
    SIM_REQUIRE_INIT();
    if (!result || extension > HSA_EXTENSION_AMD_AQLPROFILE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *result = extension == HSA_EXTENSION_AMD_LOADER && loader_ext_version_ok(major, minor);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_system_major_extension_supported(uint16_t extension, uint16_t major, uint16_t* minor, bool* result) {
    SIM_REQUIRE_INIT();
    if (!result || !minor || extension > HSA_EXTENSION_AMD_AQLPROFILE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *result = extension == HSA_EXTENSION_AMD_LOADER && major == 1;
    if (*result) *minor = 3;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t copy_loader_table(size_t length, void* table) {
    const auto& src = loader_extension_table();
    memcpy(table, &src, std::min(length, sizeof src));
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_system_get_extension_table(uint16_t extension, uint16_t major, uint16_t minor, void* table) {
    SIM_REQUIRE_INIT();
    if (!table) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (extension != HSA_EXTENSION_AMD_LOADER || !loader_ext_version_ok(major, minor))
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    size_t len = minor == 0   ? sizeof(hsa_ven_amd_loader_1_00_pfn_t)
                 : minor == 1 ? sizeof(hsa_ven_amd_loader_1_01_pfn_t)
                 : minor == 2 ? sizeof(hsa_ven_amd_loader_1_02_pfn_t)
                              : sizeof(hsa_ven_amd_loader_1_03_pfn_t);
    return copy_loader_table(len, table);
}

hsa_status_t impl_system_get_major_extension_table(uint16_t extension, uint16_t major, size_t length, void* table) {
    SIM_REQUIRE_INIT();
    if (!table || length == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (extension != HSA_EXTENSION_AMD_LOADER || major != 1) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return copy_loader_table(length, table);
}

hsa_status_t impl_extension_get_name(uint16_t extension, const char** name) {
    SIM_REQUIRE_INIT();
    if (!name) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    switch (extension) {
        case HSA_EXTENSION_FINALIZER: *name = "HSA_EXTENSION_FINALIZER"; break;
        case HSA_EXTENSION_IMAGES: *name = "HSA_EXTENSION_IMAGES"; break;
        case HSA_EXTENSION_PERFORMANCE_COUNTERS: *name = "HSA_EXTENSION_PERFORMANCE_COUNTERS"; break;
        case HSA_EXTENSION_PROFILING_EVENTS: *name = "HSA_EXTENSION_PROFILING_EVENTS"; break;
        case HSA_EXTENSION_AMD_PROFILER: *name = "HSA_EXTENSION_AMD_PROFILER"; break;
        case HSA_EXTENSION_AMD_LOADER: *name = "HSA_EXTENSION_AMD_LOADER"; break;
        case HSA_EXTENSION_AMD_AQLPROFILE: *name = "HSA_EXTENSION_AMD_AQLPROFILE"; break;
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

}  // namespace

void install_system_info(HsaApiTable& t) {
    CoreApiTable& c = *t.core_;
    c.hsa_system_get_info_fn = impl_system_get_info;
    c.hsa_system_extension_supported_fn = impl_system_extension_supported;
    c.hsa_system_major_extension_supported_fn = impl_system_major_extension_supported;
    c.hsa_system_get_extension_table_fn = impl_system_get_extension_table;
    c.hsa_system_get_major_extension_table_fn = impl_system_get_major_extension_table;
    c.hsa_extension_get_name_fn = impl_extension_get_name;
}

}  // namespace encore::sim
