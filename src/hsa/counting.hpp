// src/hsa/counting.hpp — the software HSA runtime's GPU agents as counter sources (counting.cpp).
#pragma once

namespace encore::hsa {

/// Registers every GPU agent as a counter source with libencore when the runtime is encore's
/// software runtime (which reports each dispatch's exact geometry and times); on ROCr, none
/// (encore cannot program the GPU's counters there). After register_agents, before tools are
/// initialized: a tool may list its counters in its initialize.
void register_counter_sources() noexcept;

}  // namespace encore::hsa
