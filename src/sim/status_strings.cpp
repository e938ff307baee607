// hsa_status_string: a text for each status code (hsa.h's description of it); usable before
// hsa_init, as with ROCr.
#include "sim_internal.hpp"

namespace encore::sim {
namespace {

const char* status_text(hsa_status_t s) {
    switch (static_cast<int>(s)) {
        case HSA_STATUS_SUCCESS: return "HSA_STATUS_SUCCESS: The function has been executed successfully.";
        case HSA_STATUS_INFO_BREAK:
            return "HSA_STATUS_INFO_BREAK: A traversal over a list of elements has been interrupted by the application before completing.";
        case HSA_STATUS_ERROR: return "HSA_STATUS_ERROR: A generic error has occurred.";
        case HSA_STATUS_ERROR_INVALID_ARGUMENT:
            return "HSA_STATUS_ERROR_INVALID_ARGUMENT: One of the actual arguments does not meet a precondition stated in the documentation of the corresponding formal argument.";
        case HSA_STATUS_ERROR_INVALID_QUEUE_CREATION:
            return "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: The requested queue creation is not valid.";
        case HSA_STATUS_ERROR_INVALID_ALLOCATION:
            return "HSA_STATUS_ERROR_INVALID_ALLOCATION: The requested allocation is not valid.";
        case HSA_STATUS_ERROR_INVALID_AGENT: return "HSA_STATUS_ERROR_INVALID_AGENT: The agent is invalid.";
        case HSA_STATUS_ERROR_INVALID_REGION: return "HSA_STATUS_ERROR_INVALID_REGION: The memory region is invalid.";
        case HSA_STATUS_ERROR_INVALID_SIGNAL: return "HSA_STATUS_ERROR_INVALID_SIGNAL: The signal is invalid.";
        case HSA_STATUS_ERROR_INVALID_QUEUE: return "HSA_STATUS_ERROR_INVALID_QUEUE: The queue is invalid.";
        case HSA_STATUS_ERROR_OUT_OF_RESOURCES:
            return "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.";
        case HSA_STATUS_ERROR_INVALID_PACKET_FORMAT:
            return "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: The AQL packet is malformed.";
        case HSA_STATUS_ERROR_RESOURCE_FREE:
            return "HSA_STATUS_ERROR_RESOURCE_FREE: An error has been detected while releasing a resource.";
        case HSA_STATUS_ERROR_NOT_INITIALIZED:
            return "HSA_STATUS_ERROR_NOT_INITIALIZED: An API other than hsa_init has been invoked while the reference count of the HSA runtime is zero.";
        case HSA_STATUS_ERROR_REFCOUNT_OVERFLOW:
            return "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW: The maximum reference count for the object has been reached.";
        case HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS:
            return "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: The arguments passed to a functions are not compatible.";
        case HSA_STATUS_ERROR_INVALID_INDEX: return "HSA_STATUS_ERROR_INVALID_INDEX: The index is invalid.";
        case HSA_STATUS_ERROR_INVALID_ISA:
            return "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid.";
        case HSA_STATUS_ERROR_INVALID_ISA_NAME:
            return "HSA_STATUS_ERROR_INVALID_ISA_NAME: The instruction set architecture name is invalid.";
        case HSA_STATUS_ERROR_INVALID_CODE_OBJECT:
            return "HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid.";
        case HSA_STATUS_ERROR_INVALID_EXECUTABLE:
            return "HSA_STATUS_ERROR_INVALID_EXECUTABLE: The executable is invalid.";
        case HSA_STATUS_ERROR_FROZEN_EXECUTABLE: return "HSA_STATUS_ERROR_FROZEN_EXECUTABLE: The executable is frozen.";
        case HSA_STATUS_ERROR_INVALID_SYMBOL_NAME:
            return "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: There is no symbol with the given name.";
        case HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED:
            return "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED: The variable is already defined.";
        case HSA_STATUS_ERROR_VARIABLE_UNDEFINED:
            return "HSA_STATUS_ERROR_VARIABLE_UNDEFINED: The variable is undefined.";
        case HSA_STATUS_ERROR_EXCEPTION:
            return "HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception.";
        case HSA_STATUS_ERROR_INVALID_CODE_SYMBOL:
            return "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL: The code object symbol is invalid.";
        case HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL:
            return "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL: The executable symbol is invalid.";
        case HSA_STATUS_ERROR_INVALID_FILE: return "HSA_STATUS_ERROR_INVALID_FILE: The file descriptor is invalid.";
        case HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER:
            return "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER: The code object reader is invalid.";
        case HSA_STATUS_ERROR_INVALID_CACHE: return "HSA_STATUS_ERROR_INVALID_CACHE: The cache is invalid.";
        case HSA_STATUS_ERROR_INVALID_WAVEFRONT: return "HSA_STATUS_ERROR_INVALID_WAVEFRONT: The wavefront is invalid.";
        case HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP:
            return "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP: The signal group is invalid.";
        case HSA_STATUS_ERROR_INVALID_RUNTIME_STATE:
            return "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE: The HSA runtime is not in the configuration state.";
        case HSA_STATUS_ERROR_FATAL: return "HSA_STATUS_ERROR_FATAL: Queue processing has incurred a fatal error.";
        case HSA_STATUS_ERROR_INVALID_MEMORY_POOL:
            return "HSA_STATUS_ERROR_INVALID_MEMORY_POOL: The memory pool is invalid.";
        case HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION:
            return "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address.";
        case HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION:
            return "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent executed an illegal shader instruction.";
        case HSA_STATUS_ERROR_MEMORY_FAULT:
            return "HSA_STATUS_ERROR_MEMORY_FAULT: The agent attempted to access an inaccessible address.";
        default: return nullptr;
    }
}

hsa_status_t impl_status_string(hsa_status_t status, const char** str) {
    // Like ROCr, usable before hsa_init.
    if (!str) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    const char* s = status_text(status);
    if (!s) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *str = s;
    return HSA_STATUS_SUCCESS;
}

}  // namespace

void install_status_strings(HsaApiTable& t) {
    CoreApiTable& c = *t.core_;
    c.hsa_status_string_fn = impl_status_string;
}

}  // namespace encore::sim
