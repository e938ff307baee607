// test/hip/test_hip_hsa.cpp — ancestor correlation end to end: HSA calls made underneath a HIP
// call carry that HIP call's internal correlation id as their ancestor.
//
// libencore-hip is preloaded over a stand-in HIP runtime (fake_hip_hsa.cpp, ENCORE_HIP_LIBRARY)
// whose functions call HSA; HSA is encore's software runtime with libencore-hsa as its tools
// library (HSA_TOOLS_LIB). The program is its own tool: one context traces HIP_RUNTIME_API and
// HSA_CORE_API into one ordered list, a second traces HSA_CORE_API only.
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <encore/encore.hpp>
#include <hip/hip_runtime_api.h>
#include <hsa/hsa.h>
#include <rocprofiler-sdk/hip/runtime_api_id.h>
#include <rocprofiler-sdk/hsa/api_id.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using test_support::expect;

struct rec {
    int kind, op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t internal, ancestor, tid;
};

std::mutex g_mutex;
std::vector<rec> g_both, g_hsa_only;
encore::context g_ctx, g_ctx_hsa;

void on_record(std::vector<rec>& out, rocprofiler_callback_tracing_record_t r) {
    std::lock_guard lk(g_mutex);
    out.push_back({r.kind, r.operation, r.phase, r.correlation_id.internal, r.correlation_id.ancestor, r.thread_id});
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (encore::context::create(g_ctx) != ROCPROFILER_STATUS_SUCCESS ||
        encore::context::create(g_ctx_hsa) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    auto both = [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) { on_record(g_both, r); };
    for (auto k : {ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API})
        if (rocprofiler_configure_callback_tracing_service(g_ctx.id(), k, nullptr, 0, both, nullptr) !=
            ROCPROFILER_STATUS_SUCCESS)
            return 1;
    if (rocprofiler_configure_callback_tracing_service(
            g_ctx_hsa.id(), ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0,
            [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) { on_record(g_hsa_only, r); },
            nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return g_ctx.start() == ROCPROFILER_STATUS_SUCCESS && g_ctx_hsa.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

constexpr int HIP = ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API;
constexpr int HSA = ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API;

// The HSA records between the ENTER and EXIT of the n-th record pair of HIP op `op`, and that
// call's internal id.
struct span {
    std::uint64_t hip_internal = 0;
    std::vector<rec> hsa;
    bool found = false;
};
span under(int op, std::size_t nth = 0) {
    std::lock_guard lk(g_mutex);
    span s;
    for (std::size_t i = 0; i < g_both.size(); ++i) {
        const rec& in = g_both[i];
        if (in.kind != HIP || in.op != op || in.phase != ROCPROFILER_CALLBACK_PHASE_ENTER) continue;
        if (nth-- != 0) continue;
        for (std::size_t j = i + 1; j < g_both.size(); ++j) {
            const rec& r = g_both[j];
            if (r.kind == HIP && r.internal == in.internal && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
                s.found = true;
                s.hip_internal = in.internal;
                return s;
            }
            if (r.kind == HSA) s.hsa.push_back(r);
        }
        return s;
    }
    return s;
}

bool all_have_ancestor(const std::vector<rec>& v, std::uint64_t a) {
    for (const auto& r : v)
        if (r.ancestor != a || r.internal == a) return false;
    return true;
}

// hipGetDeviceCount's HSA records: hsa_iterate_agents directly under the HIP call, and
// hsa_agent_get_info under hsa_iterate_agents (the ancestor is the innermost enclosing traced
// call, as the reference's correlation stack has it).
bool nested_ancestors(const span& s) {
    std::uint64_t iterate = 0;
    for (const auto& r : s.hsa)
        if (r.op == ROCPROFILER_HSA_CORE_API_ID_hsa_iterate_agents) iterate = r.internal;
    if (iterate == 0 || iterate == s.hip_internal) return false;
    for (const auto& r : s.hsa) {
        const std::uint64_t expected = r.op == ROCPROFILER_HSA_CORE_API_ID_hsa_iterate_agents ? s.hip_internal : iterate;
        if (r.ancestor != expected) return false;
    }
    return true;
}

}  // namespace

ENCORE_TEST_TOOL("test-hip-hsa", &tool_init, nullptr)

int main() {
    // The first HIP call starts the tools; the stand-in's hipInit runs hsa_init, which loads
    // libencore-hsa (HSA_TOOLS_LIB) and wraps the HSA table for the contexts configured above.
    expect(hipInit(0) == hipSuccess, "hipInit (hsa_init underneath)");

    int n = 0;
    expect(hipGetDeviceCount(&n) == hipSuccess && n == 2,
           "hipGetDeviceCount: the 2 simulated GPUs (got " + std::to_string(n) + ")");
    {
        const span s = under(ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceCount);
        std::size_t iterate = 0, info = 0;
        for (const auto& r : s.hsa) {
            iterate += r.op == ROCPROFILER_HSA_CORE_API_ID_hsa_iterate_agents;
            info += r.op == ROCPROFILER_HSA_CORE_API_ID_hsa_agent_get_info;
        }
        expect(s.found && iterate == 2 && info >= 2 * 3,
               "hsa_iterate_agents and hsa_agent_get_info (ENTER+EXIT, one per agent) inside hipGetDeviceCount (" +
                   std::to_string(iterate) + ", " + std::to_string(info) + ")");
        expect(s.found && s.hip_internal != 0 && nested_ancestors(s),
               "hsa_iterate_agents has the hipGetDeviceCount call's "
               "internal id as ancestor; each hsa_agent_get_info, called from its callback, has hsa_iterate_agents' id");
    }
    int v = 0;
    expect(hipDriverGetVersion(&v) == hipSuccess && v > 0, "hipDriverGetVersion (hsa_system_get_info underneath)");
    {
        const span s = under(ROCPROFILER_HIP_RUNTIME_API_ID_hipDriverGetVersion);
        expect(s.found && s.hsa.size() == 4 && all_have_ancestor(s.hsa, s.hip_internal),
               "two hsa_system_get_info calls (4 records) with the hipDriverGetVersion call as ancestor");
    }
    expect(hipRuntimeGetVersion(&v) == hipSuccess, "hipRuntimeGetVersion");
    {
        const span s = under(ROCPROFILER_HIP_RUNTIME_API_ID_hipRuntimeGetVersion);
        expect(s.found && s.hsa.empty(), "no HSA under hipRuntimeGetVersion");
    }

    // HSA called directly (no HIP call around it): ancestor 0.
    std::uint16_t major = 0;
    std::size_t before;
    {
        std::lock_guard lk(g_mutex);
        before = g_both.size();
    }
    expect(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_SUCCESS,
           "hsa_system_get_info directly");
    {
        std::lock_guard lk(g_mutex);
        bool ok = g_both.size() == before + 2;
        for (std::size_t i = before; i < g_both.size(); ++i)
            ok = ok && g_both[i].kind == HSA && g_both[i].ancestor == 0;
        expect(ok, "a top-level HSA call: ancestor 0");
    }

    // The same from another thread, while this one is idle: ancestors follow the calling thread.
    std::thread([] {
        int m = 0;
        (void)hipGetDeviceCount(&m);
    }).join();
    {
        const span s = under(ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceCount, 1);
        bool same_thread = s.found && !s.hsa.empty();
        for (const auto& r : s.hsa) same_thread = same_thread && r.tid == s.hsa.front().tid;
        expect(same_thread && nested_ancestors(s),
               "a HIP call on another thread: its HSA records descend from that call");
    }

    // A context that traces only HSA sees the same ancestors (the id of a HIP record it does not get).
    {
        const span s = under(ROCPROFILER_HIP_RUNTIME_API_ID_hipDriverGetVersion);
        std::lock_guard lk(g_mutex);
        std::size_t with = 0;
        for (const auto& r : g_hsa_only) with += r.ancestor == s.hip_internal && s.hip_internal != 0;
        expect(with == 4, "the HSA-only context: the same 4 records with the HIP call as ancestor");
    }
    return test_support::finish();
}
