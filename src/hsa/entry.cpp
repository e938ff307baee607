// src/hsa/entry.cpp — libencore-hsa: encore as an HSA tools library (HSA_TOOLS_LIB): OnLoad and
// OnUnload, which install and uninstall what the other files of the library provide.
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
    core::initialize();
    if (core::range_replay::service_configured()) core::range_replay::backend_available();
    if (core::replay::service_configured() || core::range_replay::service_configured()) {
        // Before any queue or allocation exists: every dispatch and copy is counted, every
        // covered allocation tracked.
        hsa::replay_gate::enable();
        hsa::replay_memory::enable();
    }
    hsa::g_table = table;
    hsa::install_dispatch_tracing(*table);
    hsa::install_memory_tracing(*table);
    hsa::install_code_object_tracing(*table);
    hsa::install_scratch_tracing(*table);  // after dispatch tracing: it wraps queue creation too
    tracing::hsa_all::install(*table);
    backend::deliver_runtime_initialization(ROCPROFILER_RUNTIME_INITIALIZATION_HSA, [&] { return runtime_version; });
    return true;
}

extern "C" ENCORE_API void OnUnload() {
    using namespace encore;
    // The runtime is shutting down: give it back its own functions.
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
