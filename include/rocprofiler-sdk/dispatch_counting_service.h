/* rocprofiler-sdk/dispatch_counting_service.h — counters per kernel dispatch.
 *
 * Same names, types and prototypes as the reference SDK. At each kernel dispatch on an agent with
 * a counter source, every active context with the service has its dispatch callback asked for a
 * config (leave it 0: this dispatch is not counted); after the dispatch completed, its record
 * callback gets one rocprofiler_counter_record_t per counter instance. Under kernel replay, each
 * pass the context takes part in is one dispatch to count (its own config, its own records):
 * docs/counters.md.
 *
 *   static void on_dispatch(rocprofiler_dispatch_counting_service_data_t d,
 *                           rocprofiler_counter_config_id_t* cfg, rocprofiler_user_data_t* ud, void* a)
 *   { *cfg = my_config_for(d.dispatch_info.agent_id); }
 *   static void on_record(rocprofiler_dispatch_counting_service_data_t d,
 *                         rocprofiler_counter_record_t* r, size_t n, rocprofiler_user_data_t ud, void* a)
 *   { ... r[i].counter_value ... }
 *   rocprofiler_configure_callback_dispatch_counting_service(ctx, on_dispatch, NULL, on_record, NULL);
 */
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/counter_config.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/** The dispatch being counted. Timestamps are 0 in the dispatch callback (not started yet). */
typedef struct rocprofiler_dispatch_counting_service_data_t {
    uint64_t size; /* of this struct */
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp; /* ns */
    rocprofiler_timestamp_t end_timestamp;   /* ns */
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_dispatch_counting_service_data_t;

/** The header record of one dispatch's values in a buffer (buffered service). */
typedef struct rocprofiler_dispatch_counting_service_record_t {
    uint64_t size;        /* of this struct */
    uint64_t num_records; /* rocprofiler_counter_record_t records that follow */
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_dispatch_counting_service_record_t;

/** Asked before the dispatch starts: set `*config` (0: do not count it) and, optionally,
 *  `*user_data`, which the record callback receives. */
typedef void (*rocprofiler_dispatch_counting_service_cb_t)(rocprofiler_dispatch_counting_service_data_t dispatch_data,
                                                           rocprofiler_counter_config_id_t* config,
                                                           rocprofiler_user_data_t* user_data, void* callback_data_args);

/** Called once the dispatch completed, with its records (valid during the call only). */
typedef void (*rocprofiler_dispatch_counting_record_cb_t)(rocprofiler_dispatch_counting_service_data_t dispatch_data,
                                                          rocprofiler_counter_record_t* record_data, size_t record_count,
                                                          rocprofiler_user_data_t user_data, void* callback_data_args);

/** Records into `buffer_id` (a buffer of the same context) instead: per counted dispatch a
 *  rocprofiler_dispatch_counting_service_record_t (kind PROFILE_COUNTING_DISPATCH_HEADER) and then
 *  one rocprofiler_counter_record_t per value (kind VALUE), category COUNTERS. */
rocprofiler_status_t rocprofiler_configure_buffer_dispatch_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_id_t buffer_id,
    rocprofiler_dispatch_counting_service_cb_t callback, void* callback_data_args) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

/** Records to `record_callback`. One per context; during tool initialization only. */
rocprofiler_status_t rocprofiler_configure_callback_dispatch_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_dispatch_counting_service_cb_t dispatch_callback,
    void* dispatch_callback_args, rocprofiler_dispatch_counting_record_cb_t record_callback,
    void* record_callback_args) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI
