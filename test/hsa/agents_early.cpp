// test/hsa/agents_early.cpp — a tool asks for the agents in its initialize, before the program's
// hsa_init (Caliper's order, issue 41; Caliper aborts on an error there). The reference reads
// KFD's topology and answers at any time; encore answered HSA_NOT_LOADED until hsa_init. On the
// software runtime it now answers from the runtime's topology, with the ids the agents have after
// hsa_init. Runs with libencore-hsa as HSA_TOOLS_LIB and two GPU agents.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

using test_support::expect;

namespace {

struct seen_agent {
    std::uint64_t id;
    rocprofiler_agent_type_t type;
    std::uint32_t node;
    std::string name;
};

rocprofiler_status_t g_early_status = ROCPROFILER_STATUS_ERROR;
std::vector<seen_agent> g_early;

std::vector<seen_agent> query(rocprofiler_status_t& status) {
    std::vector<seen_agent> out;
    status = rocprofiler_query_available_agents(
        ROCPROFILER_AGENT_INFO_VERSION_0,
        [](rocprofiler_agent_version_t, const void** agents, size_t n, void* data) {
            auto* v = static_cast<std::vector<seen_agent>*>(data);
            for (size_t i = 0; i < n; ++i) {
                const auto* a = static_cast<const rocprofiler_agent_v0_t*>(agents[i]);
                v->push_back({a->id.handle, a->type, a->node_id, a->name != nullptr ? a->name : "<null>"});
            }
            return ROCPROFILER_STATUS_SUCCESS;
        },
        sizeof(rocprofiler_agent_v0_t), &out);
    return out;
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    g_early = query(g_early_status);
    return 0;
}

rocprofiler_tool_configure_result_t* configure(uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "agents-early";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}

std::multiset<std::pair<std::uint64_t, int>> ids_and_types(const std::vector<seen_agent>& v) {
    std::multiset<std::pair<std::uint64_t, int>> out;
    for (const auto& a : v) out.insert({a.id, static_cast<int>(a.type)});
    return out;
}

}  // namespace

int main() {
    expect(rocprofiler_force_configure(&configure) == ROCPROFILER_STATUS_SUCCESS, "force_configure before hsa_init");
    expect(g_early_status == ROCPROFILER_STATUS_SUCCESS,
           "agents answered before hsa_init (status " + std::to_string(g_early_status) + ")");
    int cpus = 0, gpus = 0;
    for (const auto& a : g_early) {
        cpus += a.type == ROCPROFILER_AGENT_TYPE_CPU;
        gpus += a.type == ROCPROFILER_AGENT_TYPE_GPU;
    }
    expect(cpus == 1 && gpus == 2,
           "one CPU and two GPUs before hsa_init (" + std::to_string(cpus) + ", " + std::to_string(gpus) + ")");

    HSA_CHECK(hsa_init());
    rocprofiler_status_t late_status = ROCPROFILER_STATUS_ERROR;
    const auto late = query(late_status);
    expect(late_status == ROCPROFILER_STATUS_SUCCESS, "agents answered after hsa_init");
    expect(ids_and_types(late) == ids_and_types(g_early), "the same agent ids and types after hsa_init");
    for (const auto& e : g_early)
        for (const auto& l : late)
            if (e.id == l.id) {
                expect(e.node == l.node, "agent " + std::to_string(e.id) + ": the same node id");
                expect(e.name == l.name,
                       "agent " + std::to_string(e.id) + ": the same name (" + e.name + ", " + l.name + ")");
            }
    // The ids are the runtime's agent handles (agent id = HSA agent handle, docs/c-api.md).
    std::set<std::uint64_t> handles;
    for (auto type : {HSA_DEVICE_TYPE_CPU, HSA_DEVICE_TYPE_GPU})
        for (hsa_agent_t a : example::agents(type)) handles.insert(a.handle);
    std::set<std::uint64_t> early_ids;
    for (const auto& a : g_early) early_ids.insert(a.id);
    expect(handles == early_ids, "the ids told before hsa_init are the runtime's agent handles");
    HSA_CHECK(hsa_shut_down());
    return test_support::finish();
}
