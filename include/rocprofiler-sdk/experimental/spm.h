/* rocprofiler-sdk/experimental/spm.h — streaming performance monitor (SPM) counters.
 *
 * Declared with the reference SDK's names, types and prototypes so tools compile. SPM streams
 * counter samples from the RLC's sampling hardware into a ring during a dispatch; the software
 * HSA runtime has no such stream and encore cannot program one on a ROCr agent. So: no agent has
 * SPM counters (rocprofiler_spm_iterate_agent_supported_counters returns the reference's
 * ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED), no configurations are reported, and the
 * configure and create functions return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED
 * (docs/counters.md).
 */
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

typedef enum rocprofiler_spm_parameter_type_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_SPM_PARAMETER_TYPE_NONE = 0,
  ROCPROFILER_SPM_PARAMETER_TYPE_SAMPLE_INTERVAL_SCLK_CYCLES,
  ROCPROFILER_SPM_PARAMETER_TYPE_LAST,
} rocprofiler_spm_parameter_type_t;

/** A parameter an agent supports and its range. */
typedef struct rocprofiler_spm_available_configuration_t {
    uint64_t size; /* of this struct */
    rocprofiler_spm_parameter_type_t type;
    ROCPROFILER_ANONYMOUS union {
        struct {
            uint64_t min_interval;
            uint64_t max_interval;
        } interval;
    };
} rocprofiler_spm_available_configuration_t;

typedef rocprofiler_status_t (*rocprofiler_spm_available_configurations_cb_t)(
    const rocprofiler_spm_available_configuration_t** config, size_t num_config, void* user_data);

/** Calls `cb` once with the agent's configurations (encore: none). */
rocprofiler_status_t rocprofiler_spm_query_agent_configurations(rocprofiler_agent_id_t agent_id,
                                                                rocprofiler_spm_available_configurations_cb_t cb,
                                                                void* user_data) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

typedef struct rocprofiler_spm_parameters_t {
    uint64_t size;
    rocprofiler_spm_parameter_type_t type;
    uint64_t value;
} rocprofiler_spm_parameters_t;

rocprofiler_status_t rocprofiler_spm_create_counter_config(
    rocprofiler_agent_id_t agent_id, rocprofiler_counter_id_t* counters_list, size_t counters_count,
    rocprofiler_spm_parameters_t** parameters, size_t parameters_count,
    rocprofiler_counter_config_id_t* config_id) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

rocprofiler_status_t rocprofiler_spm_destroy_counter_config(
    rocprofiler_counter_config_id_t config_id) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

typedef enum rocprofiler_spm_record_flag_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_SPM_RECORD_FLAG_NONE = 0,
  ROCPROFILER_SPM_RECORD_FLAG_DATA = 1 << 0,
  ROCPROFILER_SPM_RECORD_FLAG_DATA_LOSS = 1 << 1,
  ROCPROFILER_SPM_RECORD_FLAG_DISPATCH_END = 1 << 2,
  ROCPROFILER_SPM_RECORD_FLAG_LAST = 1 << 3,
} rocprofiler_spm_record_flag_t;

typedef struct rocprofiler_spm_dispatch_counting_service_data_t {
    uint64_t size; /* of this struct */
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_spm_dispatch_counting_service_data_t;

typedef struct rocprofiler_spm_counter_record_t {
    uint64_t size; /* of this struct */
    rocprofiler_dispatch_id_t dispatch_id;
    rocprofiler_counter_instance_id_t id;
    rocprofiler_agent_id_t agent_id;
    rocprofiler_timestamp_t timestamp;
    double value;
} rocprofiler_spm_counter_record_t;

typedef void (*rocprofiler_spm_dispatch_counting_record_cb_t)(
    const rocprofiler_spm_dispatch_counting_service_data_t* dispatch_data,
    const rocprofiler_spm_counter_record_t** records, size_t record_count, rocprofiler_spm_record_flag_t flags,
    rocprofiler_user_data_t userdata, void* record_callback_args);

typedef void (*rocprofiler_spm_dispatch_counting_service_cb_t)(
    const rocprofiler_spm_dispatch_counting_service_data_t* dispatch_data, rocprofiler_counter_config_id_t* config,
    rocprofiler_user_data_t* user_data, void* callback_data_args);

rocprofiler_status_t rocprofiler_spm_iterate_agent_supported_counters(
    rocprofiler_agent_id_t agent_id, rocprofiler_available_counters_cb_t cb,
    void* user_data) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

rocprofiler_status_t rocprofiler_spm_configure_callback_dispatch_service(
    rocprofiler_context_id_t context_id, rocprofiler_spm_dispatch_counting_service_cb_t dispatch_callback,
    void* dispatch_callback_args, rocprofiler_spm_dispatch_counting_record_cb_t record_callback,
    void* record_callback_args) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

rocprofiler_status_t rocprofiler_spm_configure_buffer_dispatch_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_id_t buffer_id,
    rocprofiler_spm_dispatch_counting_service_cb_t callback,
    void* callback_data_args) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI
