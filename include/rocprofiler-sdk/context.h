/* rocprofiler-sdk/context.h — contexts: a set of services started and stopped together.
 *
 *   rocprofiler_context_id_t ctx;
 *   rocprofiler_create_context(&ctx);              // only inside the tool's initialize
 *   rocprofiler_configure_callback_tracing_service(ctx, kind, NULL, 0, callback, data);
 *   rocprofiler_start_context(ctx);                // any time; stop/start again at will
 *
 * At most 64 contexts per process. Rules: docs/tracing.md. */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/** The "no context" handle. */
#define ROCPROFILER_CONTEXT_NONE ((rocprofiler_context_id_t){UINT64_MAX})

/** Create a context (only during tool initialization: CONFIGURATION_LOCKED otherwise).
 *  OUT_OF_RESOURCES past 64 contexts; INVALID_ARGUMENT for a null pointer. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_create_context(rocprofiler_context_id_t* context_id) ROCPROFILER_NOEXCEPT;

/** Start a context: its services begin delivering. Starting an active context succeeds. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_start_context(rocprofiler_context_id_t context_id) ROCPROFILER_NOEXCEPT;

/** Stop a context. A call already in flight still gets its EXIT callback. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_stop_context(rocprofiler_context_id_t context_id) ROCPROFILER_NOEXCEPT;

/** *status = 1 if the context is active, else 0. CONTEXT_NOT_FOUND for an unknown id. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_context_is_active(rocprofiler_context_id_t context_id,
                                                                   int* status) ROCPROFILER_NOEXCEPT;

/** *status = 1 if the id names a context that can be started, else 0 (also for unknown ids). */
ROCPROFILER_API rocprofiler_status_t rocprofiler_context_is_valid(rocprofiler_context_id_t context_id,
                                                                  int* status) ROCPROFILER_NOEXCEPT;

ROCPROFILER_EXTERN_C_FINI
