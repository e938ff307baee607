/* rocprofiler-sdk/rocprofiler.h — the whole C API.
 *
 * encore (a header-first C++20 SDK for callback tracing and kernel replay) implements the
 * reference rocprofiler-sdk's callback tracing C API under the same names; C++ tools can use
 * <encore/encore.hpp> instead. See README.md and docs/c-api.md for what is covered. */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/version.h>

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/buffer.h>
#include <rocprofiler-sdk/buffer_tracing.h>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/context.h>
#include <rocprofiler-sdk/external_correlation.h>
#include <rocprofiler-sdk/internal_threading.h>
#include <rocprofiler-sdk/registration.h>

ROCPROFILER_EXTERN_C_INIT

/** encore's C API version. Any pointer may be NULL. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_get_version(uint32_t* major, uint32_t* minor,
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
