// src/hsa/agents.hpp — libencore-hsa's agent provider (src/hsa/agents.cpp).
#pragma once

namespace encore::hsa {

/// Enumerates the runtime's agents through runtime() and hands them to libencore
/// (rocprofiler_query_available_agents, encore::agents()). Called once, in OnLoad, after the
/// runtime's table was copied and before tools are initialized.
void register_agents() noexcept;

}  // namespace encore::hsa
