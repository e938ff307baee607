/* rocprofiler-sdk/version.h — encore's version under the reference SDK's macro names.
 *
 *   #if ROCPROFILER_SDK_VERSION >= ROCPROFILER_SDK_COMPUTE_VERSION(0, 1, 0) ...
 *
 * The numbers come from <encore/version.h>, which Meson generates from the project version in
 * meson.build (the only place a version is written). rocprofiler_get_version answers the same
 * numbers at run time. */
#pragma once

#include <encore/version.h>

/* The reference SDK's macros, for tools that test them. */
#define ROCPROFILER_VERSION_MAJOR ENCORE_VERSION_MAJOR
#define ROCPROFILER_VERSION_MINOR ENCORE_VERSION_MINOR
#define ROCPROFILER_VERSION_PATCH ENCORE_VERSION_PATCH
#define ROCPROFILER_VERSION_STRING ENCORE_VERSION_STRING
#define ROCPROFILER_SDK_COMPUTE_VERSION(MAJOR, MINOR, PATCH) ENCORE_COMPUTE_VERSION(MAJOR, MINOR, PATCH)
#define ROCPROFILER_SDK_VERSION ENCORE_VERSION_NUMBER
