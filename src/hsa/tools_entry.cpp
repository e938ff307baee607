// src/hsa/tools_entry.cpp — libencore-hsa: encore as an HSA tools library (HSA_TOOLS_LIB).
//
// ROCr (and encore's software HSA runtime) loads each library in HSA_TOOLS_LIB during the first
// hsa_init and calls its OnLoad with the runtime's API table. encore then finds the client tools
// (rocprofiler_configure, ROCP_TOOL_LIBRARIES), runs their initialization with configuration
// open, locks it, and replaces only the table slots of operations some context configured. A
// process whose tools configure nothing keeps the runtime's table exactly as it was.
//
// This covers HSA API tracing. Kernel-dispatch, copy, allocation and code-object records (queue
// interception) are not implemented yet: configuring those kinds returns NOT_IMPLEMENTED.
#include "../core/registration.hpp"

#include <encore/tracing/hsa.hpp>

#include <cstdio>

namespace {
::HsaApiTable* g_table = nullptr;
}

extern "C" ENCORE_API bool OnLoad(::HsaApiTable* table, uint64_t runtime_version, uint64_t failed_tool_count,
                                  const char* const* failed_tool_names) {
    (void)runtime_version;
    if (table == nullptr) {
        std::fprintf(stderr, "[encore] OnLoad called without an API table; tracing disabled\n");
        return false;
    }
    for (uint64_t i = 0; i < failed_tool_count && failed_tool_names != nullptr; ++i)
        std::fprintf(stderr, "[encore] the HSA runtime could not load tool %s\n", failed_tool_names[i]);
    encore::core::initialize();
    g_table = table;
    encore::tracing::hsa_all::install(*table);
    return true;
}

extern "C" ENCORE_API void OnUnload() {
    // The runtime is shutting down: give it back its own functions.
    if (g_table != nullptr) encore::tracing::hsa_all::uninstall(*g_table);
    g_table = nullptr;
}
