/* rocprofiler-sdk/experimental/thread-trace/dispatch.h — thread trace around chosen dispatches.
 * encore: rocprofiler_configure_dispatch_thread_trace_service returns NOT_IMPLEMENTED. */
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/experimental/thread-trace/core.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

typedef enum rocprofiler_thread_trace_control_flags_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_THREAD_TRACE_CONTROL_NONE = 0,
  ROCPROFILER_THREAD_TRACE_CONTROL_START_AND_STOP = 3 } rocprofiler_thread_trace_control_flags_t;

/** Asked per dispatch whether to trace it. */
typedef rocprofiler_thread_trace_control_flags_t (*rocprofiler_thread_trace_dispatch_callback_t)(
    rocprofiler_agent_id_t agent_id, rocprofiler_queue_id_t queue_id, rocprofiler_async_correlation_id_t correlation_id,
    rocprofiler_kernel_id_t kernel_id, rocprofiler_dispatch_id_t dispatch_id, void* userdata_config,
    rocprofiler_user_data_t* userdata_shader);

rocprofiler_status_t rocprofiler_configure_dispatch_thread_trace_service(
    rocprofiler_context_id_t context_id, rocprofiler_agent_id_t agent_id,
    rocprofiler_thread_trace_parameter_t* parameters, size_t num_parameters,
    rocprofiler_thread_trace_dispatch_callback_t dispatch_callback,
    rocprofiler_thread_trace_shader_data_callback_t shader_callback,
    void* callback_userdata) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI
