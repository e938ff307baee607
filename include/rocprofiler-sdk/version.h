/* rocprofiler-sdk/version.h — encore's version (the C API's version numbers). */
#pragma once

#define ENCORE_VERSION_MAJOR 0
#define ENCORE_VERSION_MINOR 1
#define ENCORE_VERSION_PATCH 0
#define ENCORE_VERSION_STRING "0.1.0"

/* The reference SDK's macros, for tools that test them. */
#define ROCPROFILER_VERSION_MAJOR ENCORE_VERSION_MAJOR
#define ROCPROFILER_VERSION_MINOR ENCORE_VERSION_MINOR
#define ROCPROFILER_VERSION_PATCH ENCORE_VERSION_PATCH
#define ROCPROFILER_VERSION_STRING ENCORE_VERSION_STRING
#define ROCPROFILER_SDK_COMPUTE_VERSION(MAJOR, MINOR, PATCH) ((10000 * (MAJOR)) + (100 * (MINOR)) + (PATCH))
#define ROCPROFILER_SDK_VERSION                                                                    \
    ROCPROFILER_SDK_COMPUTE_VERSION(ROCPROFILER_VERSION_MAJOR, ROCPROFILER_VERSION_MINOR,          \
                                    ROCPROFILER_VERSION_PATCH)
