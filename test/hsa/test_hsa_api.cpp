// test/hsa/test_hsa_api.cpp — HSA API tracing through HSA_TOOLS_LIB on the software runtime.
//
// The program is its own tool with two contexts: A traces every HSA core operation, B only
// hsa_agent_get_info and hsa_queue_create. Checks: ENTER/EXIT pairs per operation, filters,
// return values at EXIT equal what the program got (including errors from bad handles, passed
// through unchanged), start/stop mid-run, nested hsa_init/hsa_shut_down, and that a tool which
// configures after initialization gets CONFIGURATION_LOCKED.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <encore/domains/hsa.hpp>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/hsa/api_id.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace {

using test_support::expect;

using encore::domains::hsa_core;

struct counts {
    std::map<std::pair<int, int>, int> by_op_phase;  // (op, phase) -> count
    std::map<int, int> last_status;                  // op -> hsa_status_t at the last EXIT
};
std::mutex g_mutex;
counts g_a, g_b;
encore::context g_ctx_a, g_ctx_b;


void record(counts& c, const encore::record& r) {
    std::lock_guard lk(g_mutex);
    ++c.by_op_phase[{r.operation, r.phase}];
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        encore::api::visit<hsa_core>(r.operation, [&](auto I) {
            using R = typename hsa_core::op_at<I>::return_type;
            if constexpr (std::is_same_v<R, hsa_status_t>)
                c.last_status[r.operation] = static_cast<int>(encore::tracing::retval_of<hsa_core, I>(r.payload));
        });
    }
}

int count(const counts& c, int op, rocprofiler_callback_phase_t ph) {
    auto it = c.by_op_phase.find({op, ph});
    return it == c.by_op_phase.end() ? 0 : it->second;
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (encore::context::create(g_ctx_a) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (encore::context::create(g_ctx_b) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (g_ctx_a.trace<hsa_core>([](const encore::record& r, rocprofiler_user_data_t&) { record(g_a, r); }) !=
        ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (g_ctx_b.trace<hsa_core>(encore::ops<hsa_core, "hsa_agent_get_info", "hsa_queue_create">(),
                                [](const encore::record& r, rocprofiler_user_data_t&) { record(g_b, r); }) !=
        ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return g_ctx_a.start() == ROCPROFILER_STATUS_SUCCESS && g_ctx_b.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

}  // namespace

ENCORE_TEST_TOOL("test-hsa-api", &tool_init, nullptr)

int main() {
    constexpr int get_info = ROCPROFILER_HSA_CORE_API_ID_hsa_agent_get_info;
    constexpr int queue_create = ROCPROFILER_HSA_CORE_API_ID_hsa_queue_create;
    constexpr int iterate = ROCPROFILER_HSA_CORE_API_ID_hsa_iterate_agents;
    constexpr int init = ROCPROFILER_HSA_CORE_API_ID_hsa_init;
    constexpr int shut_down = ROCPROFILER_HSA_CORE_API_ID_hsa_shut_down;
    constexpr auto ENTER = ROCPROFILER_CALLBACK_PHASE_ENTER;
    constexpr auto EXIT = ROCPROFILER_CALLBACK_PHASE_EXIT;

    HSA_CHECK(hsa_init());  // loads the tools: this first call itself is not traced
    HSA_CHECK(hsa_init());  // nested: traced, reference counted by the runtime
    expect(count(g_a, init, ENTER) == 1 && count(g_a, init, EXIT) == 1, "nested hsa_init traced once");
    {
        const auto gpus = example::agents(HSA_DEVICE_TYPE_GPU);
        expect(!gpus.empty(), "a GPU agent");
        const int iterations = count(g_a, iterate, ENTER);
        expect(iterations >= 1 && iterations == count(g_a, iterate, EXIT), "hsa_iterate_agents ENTER == EXIT");
        expect(count(g_b, iterate, ENTER) == 0, "context B's filter excludes hsa_iterate_agents");

        char name[64] = {};
        const int before_a = count(g_a, get_info, EXIT), before_b = count(g_b, get_info, EXIT);
        HSA_CHECK(hsa_agent_get_info(gpus.at(0), HSA_AGENT_INFO_NAME, name));
        expect(count(g_a, get_info, EXIT) == before_a + 1 && count(g_b, get_info, EXIT) == before_b + 1,
               "both contexts see hsa_agent_get_info");

        // A bad handle: the runtime's error reaches the program and the EXIT record unchanged.
        hsa_queue_t* q = nullptr;
        const hsa_status_t bad = hsa_queue_create(hsa_agent_t{0xdead}, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                                                  UINT32_MAX, UINT32_MAX, &q);
        expect(bad != HSA_STATUS_SUCCESS, "a bogus agent handle fails");
        expect(g_a.last_status[queue_create] == static_cast<int>(bad) &&
                   g_b.last_status[queue_create] == static_cast<int>(bad),
               "EXIT carries the runtime's error status");
        const hsa_status_t null_out = hsa_agent_get_info(gpus.at(0), HSA_AGENT_INFO_NAME, nullptr);
        expect(null_out == HSA_STATUS_ERROR_INVALID_ARGUMENT, "a null out-pointer is passed through to the runtime");
        expect(g_a.last_status[get_info] == static_cast<int>(HSA_STATUS_ERROR_INVALID_ARGUMENT), "and traced");

        // Stop B mid-run: A still sees calls, B does not.
        expect(g_ctx_b.stop() == ROCPROFILER_STATUS_SUCCESS, "stop B");
        const int b_now = count(g_b, get_info, ENTER), a_now = count(g_a, get_info, ENTER);
        HSA_CHECK(hsa_agent_get_info(gpus.at(0), HSA_AGENT_INFO_NAME, name));
        expect(count(g_b, get_info, ENTER) == b_now && count(g_a, get_info, ENTER) == a_now + 1,
               "stopped B sees nothing");
        expect(g_ctx_b.start() == ROCPROFILER_STATUS_SUCCESS, "restart B");
        HSA_CHECK(hsa_agent_get_info(gpus.at(0), HSA_AGENT_INFO_NAME, name));
        expect(count(g_b, get_info, ENTER) == b_now + 1, "restarted B sees calls again");

        // Configuration is locked after initialization.
        rocprofiler_context_id_t late{};
        expect(rocprofiler_create_context(&late) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
               "creating a context after initialization is locked");

        // Every ENTER has its EXIT, for every operation.
        std::lock_guard lk(g_mutex);
        bool paired = true;
        for (auto& [key, n] : g_a.by_op_phase)
            if (key.second == ENTER) paired = paired && n == count(g_a, key.first, EXIT);
        expect(paired, "ENTER and EXIT counts match for every operation");
    }
    HSA_CHECK(hsa_shut_down());  // nested: still initialized, traced
    expect(count(g_a, shut_down, ENTER) == 1 && count(g_a, shut_down, EXIT) == 1, "nested hsa_shut_down traced");
    HSA_CHECK(hsa_shut_down());  // the last one unloads the tools
    return test_support::finish();
}
