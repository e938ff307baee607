// test/hsa/test_agents.cpp — rocprofiler_query_available_agents and encore::agents() on the
// software HSA runtime.
//
// Runs with HSA_TOOLS_LIB=libencore-hsa.so and ENCORE_SIM_GPU_AGENTS=2. Checks: before hsa_init
// the query says HSA_NOT_LOADED (and the C++ API is empty); after it, one CPU and two GPU agents
// with names, types and ids equal to the HSA handles (in hsa_iterate_agents order); argument
// errors (null callback, unknown version, agent_size too large); the callback's status is the
// query's; repeated queries give the same agents; the C++ API agrees with the C API.
#include <encore/tracing/agents.hpp>
#include <rocprofiler-sdk/rocprofiler.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include "../support/check.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using test_support::expect;


struct query_result {
    rocprofiler_status_t status = ROCPROFILER_STATUS_LAST;
    int calls = 0;
    rocprofiler_agent_version_t version = ROCPROFILER_AGENT_INFO_VERSION_NONE;
    std::vector<const rocprofiler_agent_v0_t*> agents;
};

rocprofiler_status_t on_agents(rocprofiler_agent_version_t version, const void** agents, size_t n, void* data) {
    auto* r = static_cast<query_result*>(data);
    ++r->calls;
    r->version = version;
    for (size_t i = 0; i < n; ++i) r->agents.push_back(static_cast<const rocprofiler_agent_v0_t*>(agents[i]));
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t refuse(rocprofiler_agent_version_t, const void**, size_t, void*) {
    return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
}

query_result query(size_t agent_size = sizeof(rocprofiler_agent_t)) {
    query_result r;
    r.status = rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0, &on_agents, agent_size, &r);
    return r;
}

hsa_status_t collect(hsa_agent_t agent, void* data) {
    static_cast<std::vector<hsa_agent_t>*>(data)->push_back(agent);
    return HSA_STATUS_SUCCESS;
}

}  // namespace

int main() {
    // Before any HSA runtime loaded libencore-hsa.
    {
        query_result r = query();
        expect(r.status == ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED && r.calls == 0, "HSA_NOT_LOADED before hsa_init");
        expect(encore::agents().empty(), "encore::agents() is empty before hsa_init");
        std::span<const rocprofiler_agent_v0_t> s;
        expect(encore::query_agents(s) == ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED && s.empty(),
               "encore::query_agents says HSA_NOT_LOADED before hsa_init");
    }
    // Argument errors come first.
    expect(rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0, nullptr, sizeof(rocprofiler_agent_t),
                                              nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "null callback: INVALID_ARGUMENT");

    if (hsa_init() != HSA_STATUS_SUCCESS) {
        std::fprintf(stderr, "test_agents: hsa_init failed\n");
        return 1;
    }
    std::vector<hsa_agent_t> hsa_agents;
    hsa_iterate_agents(&collect, &hsa_agents);

    query_result r = query();
    expect(r.status == ROCPROFILER_STATUS_SUCCESS, "query succeeds after hsa_init");
    expect(r.calls == 1, "the callback is called once with all agents");
    expect(r.version == ROCPROFILER_AGENT_INFO_VERSION_0, "version 0 handed to the callback");
    expect(r.agents.size() == 3 && hsa_agents.size() == 3, "one CPU and two GPU agents (ENCORE_SIM_GPU_AGENTS=2)");
    int cpus = 0, gpus = 0;
    bool ids_match = r.agents.size() == hsa_agents.size(), types_ok = true, names_ok = true, logical_ok = true,
         sizes_ok = true, gpu_info_ok = true, strings_ok = true;
    for (size_t i = 0; i < r.agents.size(); ++i) {
        const rocprofiler_agent_v0_t& a = *r.agents[i];
        if (ids_match && a.id.handle != hsa_agents[i].handle) ids_match = false;
        hsa_device_type_t dev{};
        if (i < hsa_agents.size()) hsa_agent_get_info(hsa_agents[i], HSA_AGENT_INFO_DEVICE, &dev);
        const bool gpu = a.type == ROCPROFILER_AGENT_TYPE_GPU;
        if ((dev == HSA_DEVICE_TYPE_GPU) != gpu || (!gpu && a.type != ROCPROFILER_AGENT_TYPE_CPU)) types_ok = false;
        char name[64] = {};
        if (i < hsa_agents.size()) hsa_agent_get_info(hsa_agents[i], HSA_AGENT_INFO_NAME, name);
        if (a.name == nullptr || a.name[0] == '\0' || std::strcmp(a.name, name) != 0) names_ok = false;
        if (a.vendor_name == nullptr || a.product_name == nullptr || a.model_name == nullptr || a.uuid_string == nullptr)
            strings_ok = false;
        if (a.logical_node_id != static_cast<int32_t>(i)) logical_ok = false;
        if (a.logical_node_type_id != (gpu ? gpus : cpus)) logical_ok = false;
        if (a.size != sizeof(rocprofiler_agent_v0_t)) sizes_ok = false;
        if (gpu && (a.wave_front_size == 0 || a.workgroup_max_size == 0 || a.cu_count == 0 ||
                    a.queue_max_size < a.queue_min_size || a.queue_min_size == 0 || a.grid_max_dim.x == 0 ||
                    a.workgroup_max_dim.x == 0 || std::strncmp(a.uuid_string, "GPU-", 4) != 0))
            gpu_info_ok = false;
        (gpu ? gpus : cpus) += 1;
    }
    expect(cpus == 1 && gpus == 2, "types: one CPU, two GPUs");
    expect(ids_match, "agent ids are the HSA agent handles, in hsa_iterate_agents order");
    expect(types_ok, "types agree with HSA_AGENT_INFO_DEVICE");
    expect(names_ok, "names agree with HSA_AGENT_INFO_NAME");
    expect(strings_ok, "every string field is a valid pointer");
    expect(logical_ok, "logical_node_id 0..N-1 and logical_node_type_id per type");
    expect(sizes_ok, "size = sizeof(rocprofiler_agent_v0_t)");
    expect(gpu_info_ok, "GPU agents report wavefront, workgroup, grid, CU, queue sizes and a UUID");

    // Errors and the callback's status.
    expect(query(sizeof(rocprofiler_agent_t) + 1).status == ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI,
           "agent_size too large: INCOMPATIBLE_ABI");
    expect(query(sizeof(rocprofiler_agent_t) - 8).status == ROCPROFILER_STATUS_SUCCESS,
           "a smaller (older) agent_size is accepted");
    expect(rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0, nullptr, sizeof(rocprofiler_agent_t),
                                              nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "null callback: INVALID_ARGUMENT after hsa_init");
    {
        query_result unused;
        expect(rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_LAST, &on_agents,
                                                  sizeof(rocprofiler_agent_t),
                                                  &unused) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT &&
                   unused.calls == 0,
               "unknown version: INVALID_ARGUMENT");
    }
    expect(rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0, &refuse, sizeof(rocprofiler_agent_t),
                                              nullptr) == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
           "the query returns the callback's status");

    // Repeated queries: the same agents (same pointers, same contents).
    query_result again = query();
    expect(again.status == ROCPROFILER_STATUS_SUCCESS && again.agents == r.agents,
           "repeated queries give the same agents");

    // The C++ API agrees.
    auto span = encore::agents();
    bool same = span.size() == r.agents.size();
    for (size_t i = 0; same && i < span.size(); ++i)
        same = &span[i] == r.agents[i] && span[i].id.handle == r.agents[i]->id.handle;
    expect(same, "encore::agents() is the C API's list");
    std::span<const rocprofiler_agent_v0_t> s;
    expect(encore::query_agents(s) == ROCPROFILER_STATUS_SUCCESS && s.size() == 3, "encore::query_agents succeeds");
    bool found_all = true;
    for (auto h : hsa_agents) {
        const rocprofiler_agent_v0_t* a = encore::find_agent({h.handle});
        found_all = found_all && a != nullptr && a->id.handle == h.handle;
    }
    expect(found_all && encore::find_agent({0}) == nullptr, "encore::find_agent finds each HSA agent by handle");

    std::vector<std::string> names;
    for (const auto& a : span) names.push_back(a.name);
    hsa_shut_down();
    // The agents (and their strings) outlive the runtime's shut-down.
    bool still = encore::agents().size() == names.size();
    for (size_t i = 0; still && i < names.size(); ++i) still = names[i] == encore::agents()[i].name;
    expect(still, "agents and strings stay valid after hsa_shut_down");

    return test_support::finish();
}
