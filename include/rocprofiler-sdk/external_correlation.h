/* rocprofiler-sdk/external_correlation.h — tool-provided correlation ids.
 *
 * Each (context, thread) has a stack; records of that thread carry its top in
 * correlation_id.external (0 when empty). */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/** Push a value for thread tid (any live thread of the process). THREAD_NOT_FOUND for a tid that
 *  is not a thread of this process; CONTEXT_NOT_FOUND for an unknown context. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_push_external_correlation_id(
    rocprofiler_context_id_t context, rocprofiler_thread_id_t tid,
    rocprofiler_user_data_t external_correlation_id) ROCPROFILER_NOEXCEPT;

/** Pop the top value (written to *external_correlation_id unless NULL). ERROR when the stack is
 *  empty. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_pop_external_correlation_id(
    rocprofiler_context_id_t context, rocprofiler_thread_id_t tid,
    rocprofiler_user_data_t* external_correlation_id) ROCPROFILER_NOEXCEPT;

/** Callback of the external correlation id request service: return 0 after setting
 *  *external_correlation_id_value, non-zero to keep the pushed value. */
typedef int (*rocprofiler_external_correlation_id_request_cb_t)(
    rocprofiler_thread_id_t thread_id, rocprofiler_context_id_t context_id,
    rocprofiler_external_correlation_id_request_kind_t kind, rocprofiler_tracing_operation_t operation,
    uint64_t internal_corr_id_value, rocprofiler_user_data_t* external_corr_id_value, void* data);

/** Experimental in the reference; implemented in encore (docs/correlation.md): the callback may
 *  supply a traced call's external id at ENTER. Only during tool initialization. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_configure_external_correlation_id_request_service(
    rocprofiler_context_id_t context_id, const rocprofiler_external_correlation_id_request_kind_t* kinds,
    unsigned long kinds_count, rocprofiler_external_correlation_id_request_cb_t callback,
    void* callback_args) ROCPROFILER_NOEXCEPT;

ROCPROFILER_EXTERN_C_FINI
