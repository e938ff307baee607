/* rocprofiler-sdk/registration.h — how a tool registers with encore.
 *
 * A tool exports rocprofiler_configure. encore finds it (a symbol already loaded in the process,
 * a library listed in ROCP_TOOL_LIBRARIES, or rocprofiler_force_configure), calls it once, then
 * runs the returned initialize with configuration unlocked, locks configuration, and runs
 * finalize at exit.
 *
 *   static int  tool_init(rocprofiler_client_finalize_t fini, void* data) { ...; return 0; }
 *   static void tool_fini(void* data) { ... }
 *   rocprofiler_tool_configure_result_t*
 *   rocprofiler_configure(uint32_t version, const char* runtime_version, uint32_t priority,
 *                         rocprofiler_client_id_t* id) {
 *       id->name = "my-tool";
 *       static rocprofiler_tool_configure_result_t r = {sizeof(r), tool_init, tool_fini, NULL};
 *       return &r;
 *   }
 */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/** Returns 0 on success; non-zero marks the tool failed and its contexts are never started. */
typedef int (*rocprofiler_tool_initialize_t)(rocprofiler_client_finalize_t finalize_func, void* tool_data);
typedef void (*rocprofiler_tool_finalize_t)(void* tool_data);

typedef struct rocprofiler_tool_configure_result_t {
    size_t size;
    rocprofiler_tool_initialize_t initialize;
    rocprofiler_tool_finalize_t finalize;
    void* tool_data;
} rocprofiler_tool_configure_result_t;

/** version = 10000*major + 100*minor + patch of the rocprofiler-sdk API level encore implements
 *  (ROCPROFILER_SDK_VERSION), runtime_version the same as a string; priority = 0 for the first tool. */
typedef rocprofiler_tool_configure_result_t* (*rocprofiler_configure_func_t)(
    uint32_t version, const char* runtime_version, uint32_t priority, rocprofiler_client_id_t* client_id);

/** Implemented by a tool (weak here so that encore itself can look for it). */
ROCPROFILER_API rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t version, const char* runtime_version, uint32_t priority, rocprofiler_client_id_t* client_id)
    __attribute__((weak));

/** Configure a tool now, as rocprofiler-sdk does: encore initializes at once (tool discovery, with
 *  this function first), so the tool's initialize has run when this returns SUCCESS. One forced
 *  configure per process: CONFIGURATION_LOCKED once encore has initialized or is initializing, or
 *  after an earlier forced configure; INVALID_ARGUMENT for NULL. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_force_configure(
    rocprofiler_configure_func_t configure_func) ROCPROFILER_NOEXCEPT;

/** *status = 1 initialized, 0 not yet, -1 in progress. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_is_initialized(int* status) ROCPROFILER_NOEXCEPT;

/** *status = 1 finalized, 0 not yet, -1 in progress. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_is_finalized(int* status) ROCPROFILER_NOEXCEPT;

ROCPROFILER_EXTERN_C_FINI
