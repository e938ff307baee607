/* rocprofiler-sdk/rocprofiler.h — the whole C API.
 *
 * encore (a header-first C++20 SDK for callback tracing and kernel replay) implements the
 * reference rocprofiler-sdk's callback tracing C API under the same names; C++ tools can use
 * <encore/encore.hpp> instead. See README.md and docs/c-api.md for what is covered. */
#pragma once

#include <stddef.h>
#include <stdint.h>
/* The reference reaches <string.h> through HIP's headers (hip/api_args.h); tools written for it
 * use memset/strcmp without including it. */
#include <string.h>

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/version.h>

/* The reference's includes that encore has, in its order (docs/c-api.md lists the rest). */
#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/buffer.h>
#include <rocprofiler-sdk/buffer_tracing.h>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/context.h>
#include <rocprofiler-sdk/external_correlation.h>
#include <rocprofiler-sdk/internal_threading.h>
/* HIP's and HSA's umbrellas need those runtimes' headers: left out of a CUDA-only build. */
#include <encore/config.h>
#if ENCORE_HIP_HEADERS
#    include <rocprofiler-sdk/hip.h>
#endif
#if ENCORE_HSA_HEADERS
#    include <rocprofiler-sdk/hsa.h>
#endif
#include <rocprofiler-sdk/marker.h>
#include <rocprofiler-sdk/ompt.h>
/* The library API kinds (docs/libraries.md): the reference's rccl.h, rocdecode.h, rocjpeg.h, and
 * its later rocshmem.h and hipfile.h (those four use HIP's types: not in a build without HIP's
 * headers). */
#include <rocprofiler-sdk/rccl.h>
#if ENCORE_HIP_HEADERS
#    include <rocprofiler-sdk/hipfile.h>
#    include <rocprofiler-sdk/rocdecode.h>
#    include <rocprofiler-sdk/rocjpeg.h>
#    include <rocprofiler-sdk/rocshmem.h>
#endif
/* Not in the reference's list, which leaves it to tools; encore's tools expect it here. */
#include <rocprofiler-sdk/registration.h>
/* Counters and the services that need hardware encore cannot reach (docs/counters.md). */
#include <rocprofiler-sdk/counter_config.h>
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/device_counting_service.h>
#include <rocprofiler-sdk/dispatch_counting_service.h>
#include <rocprofiler-sdk/dispatch_profile.h>
#include <rocprofiler-sdk/pc_sampling.h>

ROCPROFILER_EXTERN_C_INIT

/** The rocprofiler-sdk API level encore implements (ROCPROFILER_VERSION_MAJOR/MINOR/PATCH of
 *  the libencore loaded, docs/c-api.md#versions), not encore's own version (encore_get_version).
 *  Any pointer may be NULL. Callable before tool initialization. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_get_version(uint32_t* major, uint32_t* minor,
                                                             uint32_t* patch) ROCPROFILER_NOEXCEPT;

/** rocprofiler_get_version as one struct. INVALID_ARGUMENT for a NULL `info` (the reference
 *  marks it nonnull instead). */
ROCPROFILER_API rocprofiler_status_t rocprofiler_get_version_triplet(
    rocprofiler_version_triplet_t* info) ROCPROFILER_NOEXCEPT;

/** encore's own version (ENCORE_VERSION_* of the libencore loaded, meson.build's project
 *  version). Any pointer may be NULL. */
ROCPROFILER_API rocprofiler_status_t encore_get_version(uint32_t* major, uint32_t* minor,
                                                        uint32_t* patch) ROCPROFILER_NOEXCEPT;

/** Current time in nanoseconds (CLOCK_BOOTTIME), the clock of every encore timestamp. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_get_timestamp(rocprofiler_timestamp_t* ts) ROCPROFILER_NOEXCEPT;

/** The calling thread's id (gettid), as in records. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_get_thread_id(rocprofiler_thread_id_t* tid) ROCPROFILER_NOEXCEPT;

/** The enumerator name of a status ("ROCPROFILER_STATUS_SUCCESS"); NULL for an unknown value. */
ROCPROFILER_API const char* rocprofiler_get_status_name(rocprofiler_status_t status) ROCPROFILER_NOEXCEPT;

/** A sentence describing a status; NULL for an unknown value. */
ROCPROFILER_API const char* rocprofiler_get_status_string(rocprofiler_status_t status) ROCPROFILER_NOEXCEPT;

ROCPROFILER_EXTERN_C_FINI
