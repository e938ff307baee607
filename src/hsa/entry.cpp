// src/hsa/entry.cpp — libencore-hsa: encore as an HSA tools library (HSA_TOOLS_LIB): OnLoad and
// OnUnload, which install and uninstall what the other files of the library provide.
//
// ROCr (and encore's software HSA runtime) loads each library in HSA_TOOLS_LIB during the first
// hsa_init and calls its OnLoad with the runtime's API table. encore then:
//   1. copies the runtime's own functions (its internal calls use them: never traced);
//   2. declares the kinds it produces here (HSA API kinds, KERNEL_DISPATCH);
//   3. finds the client tools (rocprofiler_configure, ROCP_TOOL_LIBRARIES) and runs their
//      initialization with configuration open, then locks it; with no tool in the process it
//      stops here, configuration still open, until a rocprofiler_force_configure (then 3 and 4
//      run inside that call);
//   4. replaces only what some context configured: the queue create/destroy slots for dispatch
//      tracing, then the API slots (whose wrappers then wrap encore's queue functions too).
// A process whose tools configure nothing keeps the runtime's table exactly as it was.
#include "agents.hpp"
#include "code_object.hpp"
#include "memory.hpp"
#include "counting.hpp"
#include "queues.hpp"
#include "replay_gate.hpp"
#include "replay_memory.hpp"
#include "runtime.hpp"
#include "scratch.hpp"

#include "backend/events.hpp"
#include "core/range_replay.hpp"
#include "core/registration.hpp"
#include "core/registry.hpp"
#include "core/range_replay.hpp"
#include "core/replay.hpp"
#include "core/warn.hpp"

#include <encore/tracing/hsa.hpp>

namespace encore::hsa {
namespace {

::HsaApiTable* g_table = nullptr;  // the runtime's table, from OnLoad to OnUnload
uint64_t g_runtime_version = 0;    // OnLoad's, for the RUNTIME_INITIALIZATION record
bool g_installed = false;          // install_tracing ran (OnLoad or a later forced configure)

// Step 4: what the tools configured goes into the runtime's table. Runs in OnLoad when a
// tool was present then; otherwise at a later rocprofiler_force_configure, on its thread, with
// the runtime in use: the table's slots are then replaced while other threads may call through
// them (each slot is one pointer, read at each call: a call sees the old or the new function).
void install_tracing() noexcept {
    using namespace encore;
    if (g_table == nullptr || g_installed) return;
    g_installed = true;
    if (core::range_replay::service_configured()) core::range_replay::backend_available();
    if (core::replay::service_configured() || core::range_replay::service_configured()) {
        // Before any queue or allocation exists (when installed in OnLoad): every dispatch and
        // copy is counted, every covered allocation tracked.
        replay_gate::enable();
        replay_memory::enable();
    }
    install_dispatch_tracing(*g_table);
    install_memory_tracing(*g_table);
    if (install_code_object_tracing(*g_table))
        report_loaded_code_objects();   // a tool that came late: the executables frozen before it
    install_scratch_tracing(*g_table);  // after dispatch tracing: it wraps queue creation too
    tracing::hsa_all::install(*g_table);
    backend::deliver_runtime_initialization(ROCPROFILER_RUNTIME_INITIALIZATION_HSA, [] { return g_runtime_version; });
}

}  // namespace
}  // namespace encore::hsa

extern "C" ENCORE_API bool OnLoad(::HsaApiTable* table, uint64_t runtime_version, uint64_t failed_tool_count,
                                  const char* const* failed_tool_names) {
    using namespace encore;
    if (table == nullptr) {
        core::warn("OnLoad called without an API table; tracing disabled");
        return false;
    }
    // Listed twice in HSA_TOOLS_LIB (one file under two names is one library, whose OnLoad the
    // runtime then calls twice; or two copies): a second install would wrap encore's own
    // wrappers, each calling the other forever. The first one attached serves; the rest stay idle.
    if (hsa::g_table != nullptr || !core::attach_backend(tracing::produced_by::hsa)) {
        static core::warn_once twice;
        twice("libencore-hsa is loaded more than once (listed twice in HSA_TOOLS_LIB?): the first one traces, "
              "the others stay idle");
        return true;
    }
    for (uint64_t i = 0; i < failed_tool_count && failed_tool_names != nullptr; ++i)
        core::warn("the HSA runtime could not load tool %s", failed_tool_names[i]);
    hsa::adopt_runtime(*table);
    hsa::register_agents();
    hsa::register_counter_sources();
    core::add_producer(tracing::produced_by::hsa);
    hsa::g_table = table;
    hsa::g_runtime_version = runtime_version;
    hsa::g_installed = false;
    // No tool yet: nothing is locked and the table stays as it is; a tool that forces its
    // configuration later (llama.cpp's roofline tool dlopens the SDK after hsa_init) gets the
    // runtime traced from then on (docs/c-api.md#late-tools).
    core::initialize_or_defer(&hsa::install_tracing);
    return true;
}

extern "C" ENCORE_API void OnUnload() {
    using namespace encore;
    // The runtime is shutting down: give it back its own functions.
    core::cancel_deferred(&hsa::install_tracing);  // no tool came while the runtime was up
    if (hsa::g_table != nullptr) {
        // A range still open (a program that shuts HSA down inside one, or pops it after): its
        // recording lives in this library, which the runtime unloads next; it is finished now,
        // with the runtime still working, and the range declined (issue 40 item 3: SIGSEGV at
        // the range's end).
        static constexpr core::range_replay::decline_reason shut_down{
            ENCORE_RANGE_REPLAY_STATUS_RUNTIME_SHUT_DOWN,
            "the HSA runtime shut down (hsa_shut_down) while a range was open: the range is not replayed"};
        core::range_replay::drop_recordings(shut_down);
        tracing::hsa_all::uninstall(*hsa::g_table);
        hsa::uninstall_scratch_tracing(*hsa::g_table);
        hsa::uninstall_dispatch_tracing(*hsa::g_table);
        hsa::uninstall_memory_tracing(*hsa::g_table);
        hsa::uninstall_code_object_tracing(*hsa::g_table);
        hsa::g_table = nullptr;
        core::detach_backend(tracing::produced_by::hsa);  // a later OnLoad (hsa_init again) attaches anew
    }
}
