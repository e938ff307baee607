// src/hsa/counting.cpp — counter sources (counting.hpp). The values themselves are computed by
// libencore (core/counting.cpp) from what dispatch_records.cpp measures of each dispatch.
#include "counting.hpp"

#include "runtime.hpp"

#include "core/counting.hpp"

#include <encore/tracing/agents.hpp>

#include <dlfcn.h>

namespace encore::hsa {

void register_counter_sources() noexcept {
    // The software runtime says what it is with this symbol (docs/sim.md). Its dispatch times are
    // the packet processor's own around the workgroups it ran, and its geometry is the packet's:
    // exact. A ROCr GPU's counters need its performance-monitor blocks programmed, which encore
    // does not do, so ROCr agents get no source.
    if (::dlsym(RTLD_DEFAULT, "encore_sim_is_simulator") == nullptr) return;
    std::uint64_t frequency = 0;
    if (runtime().core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &frequency) != HSA_STATUS_SUCCESS)
        frequency = 0;  // the busy-time counter in ns is then 0
    for (const auto& a : encore::agents()) {
        // CPU agents run no kernel dispatches: nothing to count.
        if (a.type != ROCPROFILER_AGENT_TYPE_GPU || a.wave_front_size == 0) continue;
        core::counting::register_source({a.id.handle, a.wave_front_size, frequency});
    }
}

}  // namespace encore::hsa
