/* rocprofiler-sdk/ompt/api_id.h — operation ids of ROCPROFILER_CALLBACK_TRACING_OMPT: one per
 * OMPT callback encore registers, numbered as the reference SDK numbers them (same order as
 * include/encore/domains/ompt.hpp). Append-only. The reference has no device_unload and no
 * target_map_emi operation (the runtime's callbacks for those are not traced), and ends with a
 * record that is no callback: callback_functions, the runtime's inquiry entry points, once at
 * the runtime's initialization. */
#pragma once

typedef enum rocprofiler_ompt_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_OMPT_ID_NONE = -1,
  ROCPROFILER_OMPT_ID_thread_begin = 0,
  ROCPROFILER_OMPT_ID_thread_end,
  ROCPROFILER_OMPT_ID_parallel_begin,
  ROCPROFILER_OMPT_ID_parallel_end,
  ROCPROFILER_OMPT_ID_task_create,
  ROCPROFILER_OMPT_ID_task_schedule,
  ROCPROFILER_OMPT_ID_implicit_task,
  ROCPROFILER_OMPT_ID_device_initialize,
  ROCPROFILER_OMPT_ID_device_finalize,
  ROCPROFILER_OMPT_ID_device_load,
  ROCPROFILER_OMPT_ID_sync_region_wait,
  ROCPROFILER_OMPT_ID_mutex_released,
  ROCPROFILER_OMPT_ID_dependences,
  ROCPROFILER_OMPT_ID_task_dependence,
  ROCPROFILER_OMPT_ID_work,
  ROCPROFILER_OMPT_ID_masked,
  ROCPROFILER_OMPT_ID_sync_region,
  ROCPROFILER_OMPT_ID_lock_init,
  ROCPROFILER_OMPT_ID_lock_destroy,
  ROCPROFILER_OMPT_ID_mutex_acquire,
  ROCPROFILER_OMPT_ID_mutex_acquired,
  ROCPROFILER_OMPT_ID_nest_lock,
  ROCPROFILER_OMPT_ID_flush,
  ROCPROFILER_OMPT_ID_cancel,
  ROCPROFILER_OMPT_ID_reduction,
  ROCPROFILER_OMPT_ID_dispatch,
  ROCPROFILER_OMPT_ID_target_emi,
  ROCPROFILER_OMPT_ID_target_data_op_emi,
  ROCPROFILER_OMPT_ID_target_submit_emi,
  ROCPROFILER_OMPT_ID_error,
  ROCPROFILER_OMPT_ID_callback_functions,
  ROCPROFILER_OMPT_ID_LAST } rocprofiler_ompt_operation_t;
