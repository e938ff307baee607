/* rocprofiler-sdk/ompt.h — OpenMP (OMPT) tracing: the operation ids, each record's arguments,
 * and three functions for a tool that is an OMPT tool itself.
 *
 *   // trace OpenMP: run the program under encore-trace --ompt-trace, or with
 *   // OMP_TOOL_LIBRARIES=libencore-ompt.so, and in the tool:
 *   rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_OMPT, NULL, 0, cb, NULL);
 *
 *   // a tool with an ompt_start_tool of its own that lets encore trace OpenMP as well:
 *   ompt_start_tool_result_t* ompt_start_tool(unsigned v, const char* rt) {
 *       return rocprofiler_ompt_start_tool(v, rt);
 *   }
 *
 * The records come from libencore-ompt (docs/ompt.md): an OMPT tool that registers every
 * callback the runtime offers and turns each into an operation of ROCPROFILER_CALLBACK_TRACING_OMPT.
 */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/ompt/api_args.h>
#include <rocprofiler-sdk/ompt/api_id.h>
#include <rocprofiler-sdk/ompt/omp-tools.h>

#ifndef ROCPROFILER_SDK_EXPERIMENTAL
#    define ROCPROFILER_SDK_EXPERIMENTAL
#endif

ROCPROFILER_EXTERN_C_INIT

/**
 * (experimental) Whether the OpenMP runtime has initialized encore's OMPT tool.
 * @param [out] status 1 once the runtime called the tool's initialize, else 0.
 * @retval ROCPROFILER_STATUS_SUCCESS status was set
 * @retval ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT status is null (the reference declares the
 *         argument nonnull, which makes a null undefined; encore leaves the attribute out and
 *         reports it, as for rocprofiler_get_version_triplet)
 */
ROCPROFILER_SDK_EXPERIMENTAL
rocprofiler_status_t rocprofiler_ompt_is_initialized(int* status) ROCPROFILER_API;

/**
 * (experimental) Whether the OpenMP runtime has finalized encore's OMPT tool.
 * @param [out] status 1 once the runtime called the tool's finalize, else 0.
 * @retval ROCPROFILER_STATUS_SUCCESS status was set
 * @retval ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT status is null
 */
ROCPROFILER_SDK_EXPERIMENTAL
rocprofiler_status_t rocprofiler_ompt_is_finalized(int* status) ROCPROFILER_API;

/**
 * (experimental) For a tool whose own ompt_start_tool the runtime calls: returns encore's OMPT
 * tool registration (libencore-ompt's, loaded from beside libencore if it is not in the
 * process yet), to be returned from that ompt_start_tool. Null when libencore-ompt cannot be
 * loaded, or when encore's tool was already started (the runtime starts one tool).
 */
ROCPROFILER_SDK_EXPERIMENTAL
ompt_start_tool_result_t* rocprofiler_ompt_start_tool(unsigned int omp_version,
                                                      const char* runtime_version) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI
