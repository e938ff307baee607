// src/hsa/tools_entry.cpp — libencore-hsa: encore as an HSA tools library (HSA_TOOLS_LIB).
//
// ROCr (and encore's software HSA runtime) loads each library in HSA_TOOLS_LIB during the first
// hsa_init and calls its OnLoad with the runtime's API table. encore then:
//   1. copies the runtime's own functions (its internal calls use them: never traced);
//   2. declares the kinds it produces here (HSA API kinds, KERNEL_DISPATCH);
//   3. finds the client tools (rocprofiler_configure, ROCP_TOOL_LIBRARIES) and runs their
//      initialization with configuration open, then locks it;
//   4. replaces only what some context configured: the queue create/destroy slots for dispatch
//      tracing, then the API slots (whose wrappers then wrap encore's queue functions too).
// A process whose tools configure nothing keeps the runtime's table exactly as it was.
#include "agents.hpp"
#include "replay.hpp"
#include "replay_memory.hpp"
#include "runtime.hpp"

#include "backend/events.hpp"
#include "core/clock.hpp"
#include "core/registration.hpp"
#include "core/registry.hpp"

#include <encore/tracing/hsa.hpp>

#include <time.h>

#include <cstdio>
#include <cstring>

namespace encore::hsa {
namespace {

originals g_runtime;
::HsaApiTable* g_table = nullptr;
double g_ns_per_tick = 1.0;
std::int64_t g_offset_ns = 0;

// The runtime's timestamps count ticks of its own clock; map them onto CLOCK_BOOTTIME (the clock
// of every encore timestamp) once, at load.
void calibrate_clock() noexcept {
    std::uint64_t freq = 0, now = 0;
    if (g_runtime.core.hsa_system_get_info_fn == nullptr ||
        g_runtime.core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq) != HSA_STATUS_SUCCESS ||
        freq == 0)
        return;
    g_ns_per_tick = 1e9 / static_cast<double>(freq);
    const std::uint64_t before = core::now_ns();
    if (g_runtime.core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP, &now) != HSA_STATUS_SUCCESS) return;
    const std::uint64_t after = core::now_ns();
    g_offset_ns = static_cast<std::int64_t>((before + after) / 2) -
                  static_cast<std::int64_t>(static_cast<double>(now) * g_ns_per_tick);
}

template <class T>
void copy_table(T& out, const T* in) noexcept {
    if (in == nullptr) return;
    // Copy no more than the runtime reports; later slots stay null.
    const std::size_t n = in->version.minor_id < sizeof(T) ? in->version.minor_id : sizeof(T);
    std::memcpy(&out, in, n);
}

}  // namespace

const originals& runtime() noexcept { return g_runtime; }

std::uint64_t to_encore_ns(std::uint64_t ticks) noexcept {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<double>(ticks) * g_ns_per_tick) + g_offset_ns);
}

}  // namespace encore::hsa

extern "C" ENCORE_API bool OnLoad(::HsaApiTable* table, uint64_t runtime_version, uint64_t failed_tool_count,
                                  const char* const* failed_tool_names) {
    using namespace encore;
    if (table == nullptr) {
        std::fprintf(stderr, "[encore] OnLoad called without an API table; tracing disabled\n");
        return false;
    }
    for (uint64_t i = 0; i < failed_tool_count && failed_tool_names != nullptr; ++i)
        std::fprintf(stderr, "[encore] the HSA runtime could not load tool %s\n", failed_tool_names[i]);
    hsa::copy_table(hsa::g_runtime.core, table->core_);
    hsa::copy_table(hsa::g_runtime.amd, table->amd_ext_);
    hsa::calibrate_clock();
    hsa::register_agents();
    core::add_producer(tracing::produced_by::hsa);
    core::initialize();
    if (core::replay::service_configured()) {
        // Before any queue or allocation exists: every dispatch and copy is counted, every
        // covered allocation tracked.
        hsa::replay_gate::enable();
        hsa::replay_memory::enable();
    }
    hsa::g_table = table;
    hsa::install_dispatch_tracing(*table);
    hsa::install_memory_tracing(*table);
    hsa::install_code_object_tracing(*table);
    tracing::hsa_all::install(*table);
    backend::deliver_runtime_initialization(ROCPROFILER_RUNTIME_INITIALIZATION_HSA, [&] { return runtime_version; });
    return true;
}

extern "C" ENCORE_API void OnUnload() {
    using namespace encore;
    // The runtime is shutting down: give it back its own functions.
    if (hsa::g_table != nullptr) {
        tracing::hsa_all::uninstall(*hsa::g_table);
        hsa::uninstall_dispatch_tracing(*hsa::g_table);
        hsa::uninstall_memory_tracing(*hsa::g_table);
        hsa::uninstall_code_object_tracing(*hsa::g_table);
    }
    hsa::g_table = nullptr;
}
