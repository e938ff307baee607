/* rocprofiler-sdk/pc_sampling.h — program-counter sampling.
 *
 * Declared with the reference SDK's names, types and prototypes so tools compile. PC sampling
 * needs the GPU's trap handler or stochastic sampling hardware, which neither the software HSA
 * runtime nor a ROCr agent driven from outside exposes to encore: no agent has a configuration
 * (rocprofiler_query_pc_sampling_agent_configurations reports none) and
 * rocprofiler_configure_pc_sampling_service returns ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED
 * (docs/counters.md).
 */
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

rocprofiler_status_t rocprofiler_configure_pc_sampling_service(
    rocprofiler_context_id_t context_id, rocprofiler_agent_id_t agent_id, rocprofiler_pc_sampling_method_t method,
    rocprofiler_pc_sampling_unit_t unit, uint64_t interval, rocprofiler_buffer_id_t buffer_id,
    int flags) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

typedef enum rocprofiler_pc_sampling_configuration_flags_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_NONE = 0,
  ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_INTERVAL_POW2,
  ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_LAST } rocprofiler_pc_sampling_configuration_flags_t;

/** One way an agent can sample. */
typedef struct rocprofiler_pc_sampling_configuration_t {
    uint64_t size; /* of this struct */
    rocprofiler_pc_sampling_method_t method;
    rocprofiler_pc_sampling_unit_t unit;
    size_t min_interval;
    size_t max_interval;
    uint64_t flags; /* rocprofiler_pc_sampling_configuration_flags_t */
} rocprofiler_pc_sampling_configuration_t;

typedef rocprofiler_status_t (*rocprofiler_available_pc_sampling_configurations_cb_t)(
    const rocprofiler_pc_sampling_configuration_t* configs, size_t num_config, void* user_data);

/** Calls `cb` once with the agent's configurations (encore: none). */
rocprofiler_status_t rocprofiler_query_pc_sampling_agent_configurations(
    rocprofiler_agent_id_t agent_id, rocprofiler_available_pc_sampling_configurations_cb_t cb,
    void* user_data) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

/* The sample records, as the reference lays them out (tools read them by layout). */
typedef struct rocprofiler_pc_sampling_hw_id_v0_t {
    uint64_t chiplet : 6;
    uint64_t wave_id : 7;
    uint64_t simd_id : 2;
    uint64_t pipe_id : 4;
    uint64_t cu_or_wgp_id : 4;
    uint64_t shader_array_id : 1;
    uint64_t shader_engine_id : 5;
    uint64_t workgroup_id : 7;
    uint64_t vm_id : 6;
    uint64_t queue_id : 4;
    uint64_t microengine_id : 2;
    uint64_t reserved0 : 16;
} rocprofiler_pc_sampling_hw_id_v0_t;

typedef struct rocprofiler_pc_t {
    uint64_t code_object_id;
    uint64_t code_object_offset;
} rocprofiler_pc_t;

typedef struct rocprofiler_pc_sampling_record_host_trap_v0_t {
    uint64_t size;
    rocprofiler_pc_sampling_hw_id_v0_t hw_id;
    rocprofiler_pc_t pc;
    uint64_t exec_mask;
    uint64_t timestamp;
    uint64_t dispatch_id;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_dim3_t workgroup_id;
    uint32_t wave_in_group : 8;
    uint32_t reserved0 : 24;
} rocprofiler_pc_sampling_record_host_trap_v0_t;

typedef struct rocprofiler_pc_sampling_record_stochastic_header_t {
    uint8_t has_memory_counter : 1;
    uint8_t reserved_type : 7;
} rocprofiler_pc_sampling_record_stochastic_header_t;

typedef enum rocprofiler_pc_sampling_instruction_type_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NONE = 0,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_VALU,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MATRIX,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_SCALAR,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_TEX,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS_DIRECT,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_FLAT,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_EXPORT,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MESSAGE,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BARRIER,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BRANCH_NOT_TAKEN,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BRANCH_TAKEN,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_JUMP,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_OTHER,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NO_INST,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_DUAL_VALU,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LAST } rocprofiler_pc_sampling_instruction_type_t;

typedef enum rocprofiler_pc_sampling_instruction_not_issued_reason_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NONE = 0,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NO_INSTRUCTION_AVAILABLE,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ALU_DEPENDENCY,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_INTERNAL_INSTRUCTION,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_BARRIER_WAIT,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ARBITER_NOT_WIN,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ARBITER_WIN_EX_STALL,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_OTHER_WAIT,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_SLEEP_WAIT,
  ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_LAST } rocprofiler_pc_sampling_instruction_not_issued_reason_t;

typedef struct rocprofiler_pc_sampling_snapshot_v0_t {
    uint32_t reason_not_issued : 4;
    uint32_t reserved0 : 1;
    uint32_t arb_state_issue_valu : 1;
    uint32_t arb_state_issue_matrix : 1;
    uint32_t arb_state_issue_lds : 1;
    uint32_t arb_state_issue_lds_direct : 1;
    uint32_t arb_state_issue_scalar : 1;
    uint32_t arb_state_issue_vmem_tex : 1;
    uint32_t arb_state_issue_flat : 1;
    uint32_t arb_state_issue_exp : 1;
    uint32_t arb_state_issue_misc : 1;
    uint32_t arb_state_issue_brmsg : 1;
    uint32_t arb_state_issue_reserved : 1;
    uint32_t arb_state_stall_valu : 1;
    uint32_t arb_state_stall_matrix : 1;
    uint32_t arb_state_stall_lds : 1;
    uint32_t arb_state_stall_lds_direct : 1;
    uint32_t arb_state_stall_scalar : 1;
    uint32_t arb_state_stall_vmem_tex : 1;
    uint32_t arb_state_stall_flat : 1;
    uint32_t arb_state_stall_exp : 1;
    uint32_t arb_state_stall_misc : 1;
    uint32_t arb_state_stall_brmsg : 1;
    uint32_t arb_state_state_reserved : 1;
    uint32_t dual_issue_valu : 1;
    uint32_t reserved1 : 1;
    uint32_t reserved2 : 3;
} rocprofiler_pc_sampling_snapshot_v0_t;

typedef struct rocprofiler_pc_sampling_memory_counters_t {
    uint32_t load_cnt : 6;
    uint32_t store_cnt : 6;
    uint32_t bvh_cnt : 3;
    uint32_t sample_cnt : 6;
    uint32_t ds_cnt : 6;
    uint32_t km_cnt : 5;
} rocprofiler_pc_sampling_memory_counters_t;

typedef struct rocprofiler_pc_sampling_record_stochastic_v0_t {
    uint64_t size;
    rocprofiler_pc_sampling_record_stochastic_header_t flags;
    uint8_t wave_in_group;
    uint8_t wave_issued : 1;
    uint8_t inst_type : 5;
    uint8_t reserved : 2;
    rocprofiler_pc_sampling_hw_id_v0_t hw_id;
    rocprofiler_pc_t pc;
    uint64_t exec_mask;
    rocprofiler_dim3_t workgroup_id;
    uint32_t wave_count;
    uint64_t timestamp;
    uint64_t dispatch_id;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_pc_sampling_snapshot_v0_t snapshot;
    rocprofiler_pc_sampling_memory_counters_t memory_counters;
} rocprofiler_pc_sampling_record_stochastic_v0_t;

typedef struct rocprofiler_pc_sampling_record_invalid_t {
    uint64_t size;
} rocprofiler_pc_sampling_record_invalid_t;

/** The enumerator's name ("ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_VALU"); NULL for a value that
 *  is none (LAST or out of range). */
const char* rocprofiler_get_pc_sampling_instruction_type_name(
    rocprofiler_pc_sampling_instruction_type_t instruction_type) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

/** Same for a not-issued reason. */
const char* rocprofiler_get_pc_sampling_instruction_not_issued_reason_name(
    rocprofiler_pc_sampling_instruction_not_issued_reason_t not_issued_reason) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI
