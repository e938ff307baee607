/* rocprofiler-sdk/dispatch_profile.h — the dispatch counting service under the names of the
 * reference SDK's 2024 releases (renamed dispatch_counting_service.h since), so tools written
 * then compile unchanged: the same service, whose data struct carries a full
 * rocprofiler_correlation_id_t (internal, external, ancestor 0) where the newer one has an
 * asynchronous correlation id. docs/counters.md.
 */
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/profile_config.h>

/* Old names: available while the reference's beta compatibility is (the default). */
#if !defined(ROCPROFILER_SDK_BETA_COMPAT) || ROCPROFILER_SDK_BETA_COMPAT > 0
ROCPROFILER_EXTERN_C_INIT

typedef struct rocprofiler_profile_counting_dispatch_data_t {
    uint64_t size; /* of this struct */
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp; /* ns */
    rocprofiler_timestamp_t end_timestamp;   /* ns */
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_profile_counting_dispatch_data_t;

typedef struct rocprofiler_profile_counting_dispatch_record_t {
    uint64_t size;
    uint64_t num_records;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_profile_counting_dispatch_record_t;

typedef void (*rocprofiler_profile_counting_dispatch_callback_t)(
    rocprofiler_profile_counting_dispatch_data_t dispatch_data, rocprofiler_profile_config_id_t* config,
    rocprofiler_user_data_t* user_data, void* callback_data_args);

typedef void (*rocprofiler_profile_counting_record_callback_t)(
    rocprofiler_profile_counting_dispatch_data_t dispatch_data, rocprofiler_record_counter_t* record_data,
    size_t record_count, rocprofiler_user_data_t user_data, void* callback_data_args);

/** The 2024 name of rocprofiler_configure_buffer_dispatch_counting_service (its header record is
 *  rocprofiler_profile_counting_dispatch_record_t). */
rocprofiler_status_t rocprofiler_configure_buffered_dispatch_profile_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_id_t buffer_id,
    rocprofiler_profile_counting_dispatch_callback_t callback,
    void* callback_data_args) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

/** rocprofiler_configure_callback_dispatch_counting_service with the 2024 callback types; a context
 *  has one dispatch counting service in either form. */
rocprofiler_status_t rocprofiler_configure_callback_dispatch_profile_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_profile_counting_dispatch_callback_t dispatch_callback,
    void* dispatch_callback_args, rocprofiler_profile_counting_record_callback_t record_callback,
    void* record_callback_args) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI
#endif
