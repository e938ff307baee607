// src/core/version.cpp — the version queries: the rocprofiler-sdk API level encore implements
// (what tools written for rocprofiler-sdk compare) and encore's own version. Both come from
// meson.build through the generated <encore/version.h>; these answer for the libencore loaded,
// which may be newer than the headers a tool was built with.
#include <rocprofiler-sdk/rocprofiler.h>

extern "C" {

rocprofiler_status_t rocprofiler_get_version(uint32_t* major, uint32_t* minor, uint32_t* patch) noexcept {
    if (major != nullptr) *major = ROCPROFILER_VERSION_MAJOR;
    if (minor != nullptr) *minor = ROCPROFILER_VERSION_MINOR;
    if (patch != nullptr) *patch = ROCPROFILER_VERSION_PATCH;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_get_version_triplet(rocprofiler_version_triplet_t* info) noexcept {
    if (info == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *info = rocprofiler_version_triplet_t{ROCPROFILER_VERSION_MAJOR, ROCPROFILER_VERSION_MINOR,
                                          ROCPROFILER_VERSION_PATCH};
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t encore_get_version(uint32_t* major, uint32_t* minor, uint32_t* patch) noexcept {
    if (major != nullptr) *major = ENCORE_VERSION_MAJOR;
    if (minor != nullptr) *minor = ENCORE_VERSION_MINOR;
    if (patch != nullptr) *patch = ENCORE_VERSION_PATCH;
    return ROCPROFILER_STATUS_SUCCESS;
}

}  // extern "C"
