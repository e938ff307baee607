/* rocprofiler-sdk/device_counting_service.h — counters of a whole agent, sampled on demand.
 *
 * Declared with the reference's names and prototypes so tools compile. encore does not implement
 * it: both functions return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED (the software runtime counts
 * per dispatch only; docs/counters.md).
 */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

typedef rocprofiler_status_t (*rocprofiler_device_counting_agent_cb_t)(rocprofiler_context_id_t context_id,
                                                                       rocprofiler_counter_config_id_t config_id);

typedef void (*rocprofiler_device_counting_service_cb_t)(rocprofiler_context_id_t context_id,
                                                         rocprofiler_agent_id_t agent_id,
                                                         rocprofiler_device_counting_agent_cb_t set_config,
                                                         void* user_data);

rocprofiler_status_t rocprofiler_configure_device_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_id_t buffer_id, rocprofiler_agent_id_t agent_id,
    rocprofiler_device_counting_service_cb_t cb, void* user_data) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

rocprofiler_status_t rocprofiler_sample_device_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_user_data_t user_data, rocprofiler_counter_flag_t flags,
    rocprofiler_counter_record_t* output_records, size_t* rec_count) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

#if !defined(ROCPROFILER_SDK_BETA_COMPAT) || ROCPROFILER_SDK_BETA_COMPAT > 0
typedef rocprofiler_device_counting_agent_cb_t rocprofiler_agent_set_profile_callback_t;
#endif

ROCPROFILER_EXTERN_C_FINI
