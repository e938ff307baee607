// ROCr's tools table (ToolsApiTable, sim_internal.hpp): the slots the runtime calls at its scratch
// events (queues.cpp) and a tool replaces in OnLoad; the runtime's own do nothing. Its own file,
// below the queues that call its slots and the API table (init.cpp) whose root points at it and
// which resets it with the rest: the queues reaching it in the file that installs the queues'
// functions made a call cycle (docs/architecture.md).
#include "sim_internal.hpp"

namespace encore::sim {

namespace {

hsa_status_t no_tool_event(hsa_amd_tool_event_t) { return HSA_STATUS_SUCCESS; }

ToolsApiTable fresh_tools_table() {
    ToolsApiTable tools{};
    tools.version = {1, sizeof(ToolsApiTable), 0, 0};
    tools.hsa_amd_tool_scratch_event_alloc_start_fn = &no_tool_event;
    tools.hsa_amd_tool_scratch_event_alloc_end_fn = &no_tool_event;
    tools.hsa_amd_tool_scratch_event_free_start_fn = &no_tool_event;
    tools.hsa_amd_tool_scratch_event_free_end_fn = &no_tool_event;
    tools.hsa_amd_tool_scratch_event_async_reclaim_start_fn = &no_tool_event;
    tools.hsa_amd_tool_scratch_event_async_reclaim_end_fn = &no_tool_event;
    return tools;
}

}  // namespace

ToolsApiTable& tools_table() {
    static ToolsApiTable tools = fresh_tools_table();
    return tools;
}

void tools_table_reset() { tools_table() = fresh_tools_table(); }

}  // namespace encore::sim
