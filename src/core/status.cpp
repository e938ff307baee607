// src/core/status.cpp — names and descriptions of status codes.
#include "enum_bits.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <array>
#include <cstring>
#include <utility>

using encore::core::bits_of;

namespace {

#define ENCORE_STATUS(NAME, TEXT) \
    std::pair<const char*, const char*> { "ROCPROFILER_STATUS_" #NAME, TEXT }
// Indexed by status value; a test checks every entry against its enumerator.
constexpr std::array<std::pair<const char*, const char*>, ROCPROFILER_STATUS_LAST> g_status{
    ENCORE_STATUS(SUCCESS, "Success"),
    ENCORE_STATUS(ERROR, "General error"),
    ENCORE_STATUS(ERROR_CONTEXT_NOT_FOUND, "No context with the given id"),
    ENCORE_STATUS(ERROR_BUFFER_NOT_FOUND, "No buffer with the given id"),
    ENCORE_STATUS(ERROR_KIND_NOT_FOUND, "Kind id is not valid"),
    ENCORE_STATUS(ERROR_OPERATION_NOT_FOUND, "Operation id is not valid for the kind"),
    ENCORE_STATUS(ERROR_THREAD_NOT_FOUND, "No thread with the given id in this process"),
    ENCORE_STATUS(ERROR_AGENT_NOT_FOUND, "Agent id not found"),
    ENCORE_STATUS(ERROR_COUNTER_NOT_FOUND, "Counter id not found"),
    ENCORE_STATUS(ERROR_CONTEXT_ERROR, "Context error (e.g. a call not legal in the current phase)"),
    ENCORE_STATUS(ERROR_CONTEXT_INVALID, "Context is not valid (its tool failed or was finalized)"),
    ENCORE_STATUS(ERROR_CONTEXT_NOT_STARTED, "Context was not started"),
    ENCORE_STATUS(ERROR_CONTEXT_CONFLICT, "Context conflicts with another context"),
    ENCORE_STATUS(ERROR_CONTEXT_ID_NOT_ZERO, "Context id is not zero-initialized"),
    ENCORE_STATUS(ERROR_BUFFER_BUSY, "Buffer is busy"),
    ENCORE_STATUS(ERROR_SERVICE_ALREADY_CONFIGURED, "Service already configured for this kind on this context"),
    ENCORE_STATUS(ERROR_CONFIGURATION_LOCKED, "Configuration is only allowed during tool initialization"),
    ENCORE_STATUS(ERROR_NOT_IMPLEMENTED, "Not implemented by encore"),
    ENCORE_STATUS(ERROR_INCOMPATIBLE_ABI, "Incompatible ABI (struct size)"),
    ENCORE_STATUS(ERROR_INVALID_ARGUMENT, "Invalid argument"),
    ENCORE_STATUS(ERROR_METRIC_NOT_VALID_FOR_AGENT, "Metric not valid for agent"),
    ENCORE_STATUS(ERROR_FINALIZED, "encore has been finalized"),
    ENCORE_STATUS(ERROR_HSA_NOT_LOADED, "The HSA runtime is not loaded"),
    ENCORE_STATUS(ERROR_DIM_NOT_FOUND, "Dimension not found"),
    ENCORE_STATUS(ERROR_PROFILE_COUNTER_NOT_FOUND, "Profile counter not found"),
    ENCORE_STATUS(ERROR_AST_GENERATION_FAILED, "AST generation failed"),
    ENCORE_STATUS(ERROR_AST_NOT_FOUND, "AST not found"),
    ENCORE_STATUS(ERROR_AQL_NO_EVENT_COORD, "AQL event coordinate not found"),
    ENCORE_STATUS(ERROR_INCOMPATIBLE_KERNEL, "Kernel driver too old for this service"),
    ENCORE_STATUS(ERROR_OUT_OF_RESOURCES, "Out of resources"),
    ENCORE_STATUS(ERROR_PROFILE_NOT_FOUND, "Profile not found"),
    ENCORE_STATUS(ERROR_AGENT_DISPATCH_CONFLICT, "Agent and dispatch counting conflict"),
    ENCORE_STATUS(INTERNAL_NO_AGENT_CONTEXT, "No agent context"),
    ENCORE_STATUS(ERROR_SAMPLE_RATE_EXCEEDED, "Sample rate exceeded"),
    ENCORE_STATUS(ERROR_NO_PROFILE_QUEUE, "Profile queue creation failed"),
    ENCORE_STATUS(ERROR_NO_HARDWARE_COUNTERS, "No hardware counters specified"),
    ENCORE_STATUS(ERROR_AGENT_MISMATCH, "Agent mismatch"),
    ENCORE_STATUS(ERROR_NOT_AVAILABLE, "Service not available"),
    ENCORE_STATUS(ERROR_EXCEEDS_HW_LIMIT, "Exceeds hardware limits"),
    ENCORE_STATUS(ERROR_AGENT_ARCH_NOT_SUPPORTED, "Agent architecture not supported"),
    ENCORE_STATUS(ERROR_PERMISSION_DENIED, "Permission denied"),
    ENCORE_STATUS(ERROR_INCOMPATIBLE_REGISTER_VERSION, "Registration library too old for a late start"),
};
#undef ENCORE_STATUS

}  // namespace

extern "C" const char* rocprofiler_get_status_name(rocprofiler_status_t status) noexcept {
    const int i = bits_of(status);
    return (i >= 0 && i < ROCPROFILER_STATUS_LAST) ? g_status[static_cast<std::size_t>(i)].first : nullptr;
}

extern "C" const char* rocprofiler_get_status_string(rocprofiler_status_t status) noexcept {
    const int i = bits_of(status);
    return (i >= 0 && i < ROCPROFILER_STATUS_LAST) ? g_status[static_cast<std::size_t>(i)].second : nullptr;
}
