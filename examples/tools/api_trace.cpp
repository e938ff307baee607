// examples/tools/api_trace.cpp — a tracing tool: prints every HSA API call with its arguments
// and return value, and a per-function summary at exit.
//
// It is a rocprofiler_configure tool (loaded through ROCP_TOOL_LIBRARIES, see encore-trace) that
// uses encore's C++ API: the domains it traces are chosen at compile time (`traced` below), and
// arguments print through encore's guarded formatter.
//
// Environment: ENCORE_TRACE_QUIET=1 prints only the summary.
#include <encore/domains/hsa.hpp>
#include <encore/encore.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace {

using traced = std::tuple<encore::domains::hsa_core, encore::domains::hsa_amd_ext>;

std::mutex g_mutex;
std::map<std::string, std::size_t> g_counts;  // guarded by g_mutex
bool g_quiet = false;

template <class Domain>
void on_call(const encore::record& r, rocprofiler_user_data_t&) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    std::string line;
    encore::api::visit<Domain>(r.operation, [&](auto I) {
        using op = typename Domain::template op_at<I>;
        line += op::name;
        line += '(';
        encore::tracing::for_each_arg<Domain, I>(r.payload, 2, [&](const encore::tracing::arg_info& a) {
            if (a.number != 0) line += ", ";
            line += a.name;
            line += '=';
            line += a.value;
        });
        line += ')';
        if constexpr (!std::is_void_v<typename op::return_type>) {
            line += " -> ";
            encore::format_context ctx{line, 0};
            encore::format_value(ctx, encore::tracing::retval_of<Domain, I>(r.payload));
        }
    });
    std::lock_guard lk(g_mutex);
    ++g_counts[std::string(Domain::names[static_cast<std::size_t>(r.operation)])];
    if (!g_quiet)
        std::fprintf(stderr, "[api-trace] tid=%llu corr=%llu %s\n", static_cast<unsigned long long>(r.thread_id),
                     static_cast<unsigned long long>(r.correlation_id.internal), line.c_str());
}

int initialize(rocprofiler_client_finalize_t, void*) {
    g_quiet = std::getenv("ENCORE_TRACE_QUIET") != nullptr;
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    int failed = 0;
    std::apply([&](auto... d) {
        ((failed += ctx.trace<decltype(d)>(&on_call<decltype(d)>) != ROCPROFILER_STATUS_SUCCESS), ...);
    }, traced{});
    return failed == 0 && ctx.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

void finalize(void*) {
    std::lock_guard lk(g_mutex);
    std::vector<std::pair<std::string, std::size_t>> rows(g_counts.begin(), g_counts.end());
    std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second > b.second; });
    std::size_t total = 0;
    for (auto& [n, c] : rows) total += c;
    std::fprintf(stderr, "[api-trace] %zu HSA calls traced, %zu distinct functions\n", total, rows.size());
    for (auto& [name, count] : rows) std::fprintf(stderr, "[api-trace] %8zu  %s\n", count, name.c_str());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "encore-api-trace";
    static rocprofiler_tool_configure_result_t result{sizeof(result), &initialize, &finalize, nullptr};
    return &result;
}
