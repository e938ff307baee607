// src/core/unsupported_services.cpp — the services that need hardware encore cannot reach: PC
// sampling (pc_sampling.h), thread trace (experimental/thread_trace.h) and SPM
// (experimental/spm.h). They are declared so that tools written for the reference compile and
// link; here each checks its arguments as the working services do (so a tool's mistakes still get
// the usual statuses) and then says it is not available: NOT_IMPLEMENTED at configure time, no
// configurations and no counters from the queries (docs/counters.md).
#include "registry.hpp"
#include "enum_bits.hpp"

#include <encore/tracing/agents.hpp>
#include <rocprofiler-sdk/experimental/spm.h>
#include <rocprofiler-sdk/experimental/thread_trace.h>
#include <rocprofiler-sdk/pc_sampling.h>

#include <cstring>
#include <type_traits>

using namespace encore;
using core::bits_of;

namespace {

bool agent_exists(rocprofiler_agent_id_t id) noexcept { return encore::find_agent(id) != nullptr; }

// Checks shared by every configure function: the tool is initializing and the context exists.
rocprofiler_status_t check_configure(rocprofiler_context_id_t ctx) noexcept {
    if (!core::configuration_open()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    if (core::find_context(ctx) == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    return ROCPROFILER_STATUS_SUCCESS;
}


}  // namespace

extern "C" {

// ---- PC sampling ------------------------------------------------------------------------------

rocprofiler_status_t rocprofiler_configure_pc_sampling_service(
    rocprofiler_context_id_t context_id, rocprofiler_agent_id_t agent_id, rocprofiler_pc_sampling_method_t,
    rocprofiler_pc_sampling_unit_t, uint64_t, rocprofiler_buffer_id_t, int) noexcept {
    if (const auto s = check_configure(context_id); s != ROCPROFILER_STATUS_SUCCESS) return s;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
}

rocprofiler_status_t rocprofiler_query_pc_sampling_agent_configurations(
    rocprofiler_agent_id_t agent_id, rocprofiler_available_pc_sampling_configurations_cb_t cb, void* user_data) noexcept {
    if (cb == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    // No agent samples: the callback gets an empty list (a non-null pointer, for tools that
    // iterate from it).
    static const rocprofiler_pc_sampling_configuration_t none[1] = {};
    try {
        return cb(none, 0, user_data);
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR;
    }
}

const char* rocprofiler_get_pc_sampling_instruction_type_name(
    rocprofiler_pc_sampling_instruction_type_t instruction_type) noexcept {
    static const char* const names[] = {
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NONE",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_VALU",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MATRIX",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_SCALAR",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_TEX",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS_DIRECT",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_FLAT",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_EXPORT",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_MESSAGE",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BARRIER",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BRANCH_NOT_TAKEN",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_BRANCH_TAKEN",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_JUMP",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_OTHER",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_NO_INST",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_DUAL_VALU",
    };
    static_assert(sizeof(names) / sizeof(names[0]) == ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LAST);
    const auto v = bits_of(instruction_type);
    return static_cast<unsigned long long>(v) < ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LAST ? names[v] : nullptr;
}

const char* rocprofiler_get_pc_sampling_instruction_not_issued_reason_name(
    rocprofiler_pc_sampling_instruction_not_issued_reason_t not_issued_reason) noexcept {
    static const char* const names[] = {
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NONE",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NO_INSTRUCTION_AVAILABLE",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ALU_DEPENDENCY",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_INTERNAL_INSTRUCTION",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_BARRIER_WAIT",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ARBITER_NOT_WIN",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ARBITER_WIN_EX_STALL",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_OTHER_WAIT",
        "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_SLEEP_WAIT",
    };
    static_assert(sizeof(names) / sizeof(names[0]) == ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_LAST);
    const auto v = bits_of(not_issued_reason);
    return static_cast<unsigned long long>(v) < ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_LAST ? names[v]
                                                                                                           : nullptr;
}

// ---- thread trace -----------------------------------------------------------------------------

rocprofiler_status_t rocprofiler_configure_dispatch_thread_trace_service(
    rocprofiler_context_id_t context_id, rocprofiler_agent_id_t agent_id, rocprofiler_thread_trace_parameter_t*, size_t,
    rocprofiler_thread_trace_dispatch_callback_t, rocprofiler_thread_trace_shader_data_callback_t, void*) noexcept {
    if (const auto s = check_configure(context_id); s != ROCPROFILER_STATUS_SUCCESS) return s;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
}

rocprofiler_status_t rocprofiler_configure_device_thread_trace_service(
    rocprofiler_context_id_t context_id, rocprofiler_agent_id_t agent_id, rocprofiler_thread_trace_parameter_t*, size_t,
    rocprofiler_thread_trace_shader_data_callback_t, rocprofiler_user_data_t) noexcept {
    if (const auto s = check_configure(context_id); s != ROCPROFILER_STATUS_SUCCESS) return s;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
}

// ---- SPM --------------------------------------------------------------------------------------

rocprofiler_status_t rocprofiler_spm_query_agent_configurations(rocprofiler_agent_id_t agent_id,
                                                                rocprofiler_spm_available_configurations_cb_t cb,
                                                                void* user_data) noexcept {
    if (cb == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    static const rocprofiler_spm_available_configuration_t* const none[1] = {nullptr};
    try {
        return cb(const_cast<const rocprofiler_spm_available_configuration_t**>(none), 0, user_data);
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR;
    }
}

rocprofiler_status_t rocprofiler_spm_create_counter_config(rocprofiler_agent_id_t agent_id,
                                                           rocprofiler_counter_id_t* counters_list, size_t,
                                                           rocprofiler_spm_parameters_t** parameters, size_t,
                                                           rocprofiler_counter_config_id_t* config_id) noexcept {
    if (counters_list == nullptr || parameters == nullptr || config_id == nullptr)
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
}

rocprofiler_status_t rocprofiler_spm_destroy_counter_config(rocprofiler_counter_config_id_t) noexcept {
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;  // no SPM config can exist
}

rocprofiler_status_t rocprofiler_spm_iterate_agent_supported_counters(rocprofiler_agent_id_t agent_id,
                                                                      rocprofiler_available_counters_cb_t cb,
                                                                      void*) noexcept {
    if (cb == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    return ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED;  // the reference's "no SPM counter"
}

rocprofiler_status_t rocprofiler_spm_configure_callback_dispatch_service(
    rocprofiler_context_id_t context_id, rocprofiler_spm_dispatch_counting_service_cb_t dispatch_callback, void*,
    rocprofiler_spm_dispatch_counting_record_cb_t record_callback, void*) noexcept {
    if (const auto s = check_configure(context_id); s != ROCPROFILER_STATUS_SUCCESS) return s;
    if (dispatch_callback == nullptr || record_callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
}

rocprofiler_status_t rocprofiler_spm_configure_buffer_dispatch_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_id_t,
    rocprofiler_spm_dispatch_counting_service_cb_t callback, void*) noexcept {
    if (const auto s = check_configure(context_id); s != ROCPROFILER_STATUS_SUCCESS) return s;
    if (callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
}

}  // extern "C"
