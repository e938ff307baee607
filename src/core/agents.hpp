// src/core/agents.hpp — the agents libencore hands out (rocprofiler_query_available_agents,
// encore::agents()). libencore does not link HSA: a backend (libencore-hsa) registers a provider
// when a runtime loads it, and libencore keeps its own copy of what the provider returned.
#pragma once

#include <encore/tracing/detail/core.hpp>
#include <rocprofiler-sdk/agent.h>

#include <cstddef>

namespace encore::core {

/// Fills `out[0..capacity)` with the runtime's agents (the strings and the mem_banks, caches and
/// io_links arrays may point anywhere: libencore copies them) and returns how many there are (which may exceed capacity: it is then called
/// again with enough room).
using agent_provider = std::size_t (*)(rocprofiler_agent_v0_t* out, std::size_t capacity);

/// Registers the provider and calls it at once: the agents are enumerated exactly once per
/// process (later registrations are ignored; a provisional table made before, from the software
/// runtime's topology, is replaced). The provider is not kept: the backend library may
/// be unloaded at runtime shut-down while the agents must outlive tool finalization.
ENCORE_API void register_agent_provider(agent_provider provider) noexcept;

}  // namespace encore::core
