/* rocprofiler-sdk/experimental/thread-trace/agent.h — thread trace of a whole agent.
 * encore: rocprofiler_configure_device_thread_trace_service returns NOT_IMPLEMENTED. */
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/experimental/thread-trace/core.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

rocprofiler_status_t rocprofiler_configure_device_thread_trace_service(
    rocprofiler_context_id_t context_id, rocprofiler_agent_id_t agent_id,
    rocprofiler_thread_trace_parameter_t* parameters, size_t num_parameters,
    rocprofiler_thread_trace_shader_data_callback_t shader_callback,
    rocprofiler_user_data_t callback_userdata) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI
