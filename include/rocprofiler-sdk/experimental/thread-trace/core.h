/* rocprofiler-sdk/experimental/thread-trace/core.h — thread trace (ATT) parameters and the
 * shader-data callback. Declared with the reference SDK's names so tools compile; encore has no
 * thread trace (experimental/thread_trace.h says why).
 */
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

typedef enum rocprofiler_thread_trace_parameter_type_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_THREAD_TRACE_PARAMETER_TARGET_CU = 0,
  ROCPROFILER_THREAD_TRACE_PARAMETER_SHADER_ENGINE_MASK,
  ROCPROFILER_THREAD_TRACE_PARAMETER_BUFFER_SIZE,
  ROCPROFILER_THREAD_TRACE_PARAMETER_SIMD_SELECT,
  ROCPROFILER_THREAD_TRACE_PARAMETER_PERFCOUNTERS_CTRL,
  ROCPROFILER_THREAD_TRACE_PARAMETER_PERFCOUNTER,
  ROCPROFILER_THREAD_TRACE_PARAMETER_SERIALIZE_ALL,
  ROCPROFILER_THREAD_TRACE_PARAMETER_PERFCOUNTER_EXCLUDE_MASK,
  ROCPROFILER_THREAD_TRACE_PARAMETER_NO_DETAIL,
  ROCPROFILER_THREAD_TRACE_PARAMETER_NUM_BUFFERS,
  ROCPROFILER_THREAD_TRACE_PARAMETER_LAST } rocprofiler_thread_trace_parameter_type_t;

typedef struct rocprofiler_thread_trace_parameter_t {
    rocprofiler_thread_trace_parameter_type_t type;
    ROCPROFILER_ANONYMOUS union {
        uint64_t value;
        ROCPROFILER_ANONYMOUS struct {
            rocprofiler_counter_id_t counter_id;
            uint64_t simd_mask : 4;
        };
    };
} rocprofiler_thread_trace_parameter_t;

typedef enum rocprofiler_thread_trace_shader_data_flags_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_THREAD_TRACE_SHADER_DATA_FLAGS_NONE = 0,
  ROCPROFILER_THREAD_TRACE_SHADER_DATA_FLAGS_END = 1 << 0,
  ROCPROFILER_THREAD_TRACE_SHADER_DATA_FLAGS_GPU_BUFFER_FULL = 1 << 1,
  ROCPROFILER_THREAD_TRACE_SHADER_DATA_FLAGS_CPU_BUFFER_FULL = 1 << 2,
  ROCPROFILER_THREAD_TRACE_SHADER_DATA_FLAGS_LAST = ROCPROFILER_THREAD_TRACE_SHADER_DATA_FLAGS_CPU_BUFFER_FULL
} rocprofiler_thread_trace_shader_data_flags_t;

/** One chunk of trace data of one shader engine. */
typedef struct rocprofiler_thread_trace_shader_data_t {
    uint64_t size; /* of this struct */
    void* data;
    uint64_t data_size;
    int64_t shader_engine_id;
    uint64_t chunk_index;
    uint64_t read_offset;
    rocprofiler_agent_id_t agent;
    rocprofiler_thread_trace_shader_data_flags_t flags;
} rocprofiler_thread_trace_shader_data_t;

typedef void (*rocprofiler_thread_trace_shader_data_callback_t)(rocprofiler_thread_trace_shader_data_t args,
                                                                rocprofiler_user_data_t userdata);

ROCPROFILER_EXTERN_C_FINI
