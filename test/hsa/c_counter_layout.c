/* test/hsa/c_counter_layout.c — the counter, PC sampling, thread trace and SPM headers compile as
 * C (C11, pedantic, with the rest of the C API), and their values and record layouts are the
 * reference's: tools compare enumerators and read records by offset. Compile-time checks only;
 * counter_layout_checked() lets test_counters.cpp link this file in. */
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/device_counting_service.h>
#include <rocprofiler-sdk/dispatch_counting_service.h>
#include <rocprofiler-sdk/experimental/spm.h>
#include <rocprofiler-sdk/experimental/thread_trace.h>
#include <rocprofiler-sdk/pc_sampling.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <stddef.h>

/* Enumerator values. */
_Static_assert(ROCPROFILER_COUNTER_INFO_VERSION_0 == 1 && ROCPROFILER_COUNTER_INFO_VERSION_1 == 2, "info versions");
_Static_assert(ROCPROFILER_COUNTER_RECORD_VALUE == 2 && ROCPROFILER_COUNTER_FLAG_APPEND_DEFINITION == 2, "counter enums");
_Static_assert(ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP == 2 && ROCPROFILER_PC_SAMPLING_UNIT_TIME == 3, "PC sampling");
_Static_assert(ROCPROFILER_PC_SAMPLING_RECORD_STOCHASTIC_V0_SAMPLE == 3, "PC sampling record kinds");
_Static_assert(ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LAST == 17, "instruction types");
_Static_assert(ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_LAST == 10, "not-issued reasons");
_Static_assert(ROCPROFILER_THREAD_TRACE_CONTROL_START_AND_STOP == 3, "thread trace control");
_Static_assert(ROCPROFILER_THREAD_TRACE_PARAMETER_SHADER_ENGINE_MASK == 1 && ROCPROFILER_THREAD_TRACE_PARAMETER_LAST == 10,
               "thread trace parameters");
_Static_assert(ROCPROFILER_SPM_RECORD_FLAG_DISPATCH_END == 4 &&
                   ROCPROFILER_SPM_PARAMETER_TYPE_SAMPLE_INTERVAL_SCLK_CYCLES == 1,
               "SPM");
_Static_assert(ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND == 30 && ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED == 39,
               "the statuses the counters return");

/* Record layouts (LP64). */
_Static_assert(sizeof(rocprofiler_counter_record_t) == 40 && offsetof(rocprofiler_counter_record_t, counter_value) == 8 &&
                   offsetof(rocprofiler_counter_record_t, agent_id) == 32,
               "rocprofiler_counter_record_t");
_Static_assert(offsetof(rocprofiler_dispatch_counting_service_data_t, correlation_id) == 8 &&
                   offsetof(rocprofiler_dispatch_counting_service_data_t, dispatch_info) == 40 &&
                   sizeof(rocprofiler_dispatch_counting_service_data_t) == 168,
               "rocprofiler_dispatch_counting_service_data_t");
_Static_assert(offsetof(rocprofiler_dispatch_counting_service_record_t, dispatch_info) == 48,
               "rocprofiler_dispatch_counting_service_record_t");
_Static_assert(sizeof(rocprofiler_counter_info_v0_t) == 48 && offsetof(rocprofiler_counter_info_v0_t, expression) == 32,
               "rocprofiler_counter_info_v0_t");
_Static_assert(offsetof(rocprofiler_counter_info_v1_t, dimensions_count) == 56 &&
                   offsetof(rocprofiler_counter_info_v1_t, dimensions_instances) == 80,
               "rocprofiler_counter_info_v1_t");
_Static_assert(sizeof(rocprofiler_counter_record_dimension_info_t) == 24, "dimension info");
_Static_assert(sizeof(rocprofiler_pc_sampling_hw_id_v0_t) == 8, "hw id");
_Static_assert(sizeof(rocprofiler_pc_sampling_record_host_trap_v0_t) == 88 &&
                   offsetof(rocprofiler_pc_sampling_record_host_trap_v0_t, correlation_id) == 56,
               "host-trap sample");
_Static_assert(sizeof(rocprofiler_pc_sampling_configuration_t) == 40, "PC sampling configuration");
_Static_assert(sizeof(rocprofiler_thread_trace_parameter_t) == 24, "thread trace parameter");
_Static_assert(offsetof(rocprofiler_thread_trace_shader_data_t, agent) == 48, "thread trace shader data");
_Static_assert(sizeof(rocprofiler_spm_counter_record_t) == 48 && offsetof(rocprofiler_spm_counter_record_t, value) == 40,
               "SPM record");

int counter_layout_checked(void) { return 1; }
