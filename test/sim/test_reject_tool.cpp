// A tool whose OnLoad refuses to load: the runtime must report it and unload it (without
// calling OnUnload, as ROCr) without failing hsa_init. (Also used as "a shared library that is not a code
// object".)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <hsa/hsa_api_trace.h>
#pragma GCC diagnostic pop

#include <cstdint>
#include <cstdlib>

namespace {
hsa_status_t broken_get_info(hsa_agent_t, hsa_agent_info_t, void*) { return HSA_STATUS_ERROR_FATAL; }
}  // namespace

extern "C" {
__attribute__((visibility("default"))) bool OnLoad(HsaApiTable* table, uint64_t, uint64_t, const char* const*) {
    setenv("ENCORE_SIM_TEST_REJECT_ONLOAD", "1", 1);
    // Replaced, then refused: the runtime must restore the slot.
    table->core_->hsa_agent_get_info_fn = broken_get_info;
    return false;
}
__attribute__((visibility("default"))) void OnUnload() { setenv("ENCORE_SIM_TEST_REJECT_ONUNLOAD", "1", 1); }
}
