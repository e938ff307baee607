// encore/tracing/agents.hpp — the agents of the HSA runtime encore is loaded into (C++ API).
//
//   for (const rocprofiler_agent_v0_t& a : encore::agents())
//       std::printf("%s agent %d: %s (%s)\n", a.type == ROCPROFILER_AGENT_TYPE_GPU ? "GPU" : "CPU",
//                   a.logical_node_type_id, a.name, a.product_name);
//
// Same data as rocprofiler_query_available_agents (rocprofiler-sdk/agent.h): found once, when an
// HSA runtime loads libencore-hsa; empty before. The span and its strings stay valid until exit.
#pragma once

#include <encore/tracing/detail/core.hpp>
#include <rocprofiler-sdk/agent.h>

#include <span>

namespace encore {

/// All agents, in hsa_iterate_agents order; empty while no HSA runtime has loaded libencore-hsa.
ENCORE_API std::span<const rocprofiler_agent_v0_t> agents() noexcept;

/// Same, with the status rocprofiler_query_available_agents would give: SUCCESS, or
/// ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED (and an empty span).
ENCORE_API rocprofiler_status_t query_agents(std::span<const rocprofiler_agent_v0_t>& out) noexcept;

/// The agent with this id (= HSA agent handle, = dispatch_info.agent_id), or nullptr.
[[nodiscard]] inline const rocprofiler_agent_v0_t* find_agent(rocprofiler_agent_id_t id) noexcept {
    for (const auto& a : agents())
        if (a.id.handle == id.handle) return &a;
    return nullptr;
}

}  // namespace encore
