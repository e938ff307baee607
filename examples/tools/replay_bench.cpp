// examples/tools/replay_bench.cpp — a benchmark harness on kernel replay: replays the kernel
// dispatches of an unmodified HSA program N times each (all of them, or those whose kernel name
// contains a pattern) and reports, per kernel, the GPU time of every pass (min / median / max),
// optionally verifying that every pass started from identical inputs.
//
// A rocprofiler_configure tool (ROCP_TOOL_LIBRARIES; see encore-replay) on encore's C++ API:
// KERNEL_REPLAY sets the pass count, KERNEL_DISPATCH gives each pass's GPU start/end, CODE_OBJECT
// gives kernel names.
//
// Environment:
//   ENCORE_REPLAY_PASSES=N       passes per replayed dispatch (decimal, default 5, at least 2; a bad
//                                value is ignored with a message; libencore caps it, see
//                                ENCORE_REPLAY_MAX_PASSES in docs/replay.md)
//   ENCORE_REPLAY_KERNEL=TEXT    replay only kernels whose name contains TEXT (default: all)
//   ENCORE_REPLAY_VERIFY=1       checksum the covered memory before each pass; a dispatch whose
//                                passes did not all start from the same bytes is reported
//   ENCORE_REPLAY_REPORT=FILE    write the report (CSV) to FILE; the table always goes to stderr
#include <encore/domains/events.hpp>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/experimental/kernel_replay.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

namespace d = encore::domains;

struct dispatch_run {
    std::string kernel;
    std::vector<std::uint64_t> pass_ns;    // GPU time of each pass
    std::vector<std::uint64_t> checksums;  // at each PASS ENTER (verify)
};

struct kernel_report {
    std::uint64_t dispatches = 0, passes = 0, mismatched = 0;
    std::vector<std::uint64_t> pass_ns;
};

std::mutex g_mutex;
std::map<std::uint64_t, std::string> g_names;     // kernel id -> name
std::map<std::uint64_t, dispatch_run> g_running;  // dispatch id -> its passes so far
std::map<std::string, kernel_report> g_report;    // kernel name -> results
std::map<std::string, std::uint64_t> g_declined;  // reason -> count
std::uint64_t g_passes = 5;
std::string g_pattern;
bool g_verify = false;
bool g_done = false;

std::string name_of(std::uint64_t kernel_id) {
    const auto it = g_names.find(kernel_id);
    return it != g_names.end() ? it->second : "kernel#" + std::to_string(kernel_id);
}

std::uint64_t pass_count(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return g_passes; }

void on_code_object(const encore::record& r, rocprofiler_user_data_t&) {
    if (r.operation != ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER || r.phase != ROCPROFILER_CALLBACK_PHASE_LOAD)
        return;
    auto* p = static_cast<rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(r.payload);
    std::string name = p->kernel_name != nullptr ? p->kernel_name : "";
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".kd") == 0) name.resize(name.size() - 3);
    std::lock_guard lk(g_mutex);
    g_names[p->kernel_id] = name;
}

void on_replay(const encore::record& r, rocprofiler_user_data_t&) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    const std::uint64_t id = p->dispatch_info.dispatch_id;
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        std::lock_guard lk(g_mutex);
        const std::string name = name_of(p->dispatch_info.kernel_id);
        if (!g_pattern.empty() && name.find(g_pattern) == std::string::npos) return;  // opt out
        p->replay_pass_count = &pass_count;
        g_running[id].kernel = name;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        std::uint64_t sum = 0;
        const bool have = g_verify && encore_kernel_replay_checksum(&sum) == ROCPROFILER_STATUS_SUCCESS;
        std::lock_guard lk(g_mutex);
        if (have) g_running[id].checksums.push_back(sum);
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        std::lock_guard lk(g_mutex);
        const auto it = g_running.find(id);
        if (p->decline_reason != nullptr) ++g_declined[p->decline_reason];
        if (it == g_running.end()) return;
        auto& k = g_report[it->second.kernel];
        if (p->passes_run > 1) {
            ++k.dispatches;
            k.passes += it->second.pass_ns.size();
            k.pass_ns.insert(k.pass_ns.end(), it->second.pass_ns.begin(), it->second.pass_ns.end());
            const auto& c = it->second.checksums;
            if (std::adjacent_find(c.begin(), c.end(), std::not_equal_to<>()) != c.end()) ++k.mismatched;
        }
        g_running.erase(it);
    }
}

void on_dispatch(const encore::record& r, rocprofiler_user_data_t&) {
    if (r.operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    // A replayed pass completes on the replaying thread before its PASS EXIT.
    const auto it = g_running.find(p->dispatch_info.dispatch_id);
    if (it != g_running.end()) it->second.pass_ns.push_back(p->end_timestamp - p->start_timestamp);
}

int initialize(rocprofiler_client_finalize_t, void*) {
    if (const char* v = std::getenv("ENCORE_REPLAY_PASSES"); v != nullptr && *v != '\0') {
        // Decimal digits only, the whole string, in range: strtoull alone takes "-1" as 2^64-1 and
        // an overflow as 2^64-1 (a replay without end), and "5x" as 5. A bad value is ignored with
        // one message, as libencore ignores its bad ENCORE_REPLAY_* variables.
        char* end = nullptr;
        errno = 0;
        const unsigned long long x = std::isdigit(static_cast<unsigned char>(*v)) ? std::strtoull(v, &end, 10) : 0;
        if (end == nullptr || *end != '\0' || errno == ERANGE || x < 2)
            std::fprintf(stderr,
                         "[encore-replay] ignoring ENCORE_REPLAY_PASSES=%s (a decimal number of passes, at least 2); "
                         "using %" PRIu64 "\n",
                         v, g_passes);
        else
            g_passes = x;
    }
    if (const char* v = std::getenv("ENCORE_REPLAY_KERNEL"); v != nullptr) g_pattern = v;
    if (const char* v = std::getenv("ENCORE_REPLAY_VERIFY"); v != nullptr) g_verify = std::strcmp(v, "0") != 0;
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (ctx.trace<d::kernel_replay>(&on_replay) != ROCPROFILER_STATUS_SUCCESS ||
        ctx.trace<d::kernel_dispatch>(&on_dispatch) != ROCPROFILER_STATUS_SUCCESS ||
        ctx.trace<d::code_object>(&on_code_object) != ROCPROFILER_STATUS_SUCCESS) {
        std::fprintf(stderr, "[encore-replay] this encore cannot replay (is libencore-hsa the HSA tools library?)\n");
        return 1;
    }
    return ctx.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

double us(std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

void finalize(void*) {
    std::lock_guard lk(g_mutex);
    if (g_done) return;
    g_done = true;
    FILE* csv = nullptr;
    if (const char* f = std::getenv("ENCORE_REPLAY_REPORT"); f != nullptr && *f != '\0') {
        csv = std::fopen(f, "w");
        if (csv == nullptr) std::perror(f);
    }
    if (csv != nullptr) std::fprintf(csv, "kernel,dispatches,passes,min_us,median_us,max_us,inputs\n");
    std::fprintf(stderr, "\n[encore-replay] %" PRIu64 " passes per dispatch%s\n", g_passes,
                 g_verify ? ", inputs verified" : "");
    std::fprintf(stderr, "%-32s %10s %8s %12s %12s %12s  %s\n", "kernel", "dispatches", "passes", "min_us", "median_us",
                 "max_us", "inputs");
    for (auto& [name, k] : g_report) {
        auto& v = k.pass_ns;
        std::sort(v.begin(), v.end());
        const double mn = v.empty() ? 0 : us(v.front()), mx = v.empty() ? 0 : us(v.back());
        const double med = v.empty() ? 0
                                     : (v.size() % 2 == 1 ? us(v[v.size() / 2])
                                                          : (us(v[v.size() / 2 - 1]) + us(v[v.size() / 2])) / 2);
        const std::string inputs = !g_verify           ? "not checked"
                                   : k.mismatched == 0 ? "identical"
                                                       : std::to_string(k.mismatched) + " differ";
        std::fprintf(stderr, "%-32s %10" PRIu64 " %8" PRIu64 " %12.2f %12.2f %12.2f  %s\n", name.c_str(), k.dispatches,
                     k.passes, mn, med, mx, inputs.c_str());
        if (csv != nullptr)
            std::fprintf(csv, "%s,%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,%.3f,%s\n", name.c_str(), k.dispatches, k.passes,
                         mn, med, mx, inputs.c_str());
    }
    for (auto& [why, n] : g_declined)
        std::fprintf(stderr, "[encore-replay] %" PRIu64 " dispatch(es) not replayed: %s\n", n, why.c_str());
    if (csv != nullptr) std::fclose(csv);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t*) {
    static rocprofiler_tool_configure_result_t result{sizeof(result), &initialize, &finalize, nullptr};
    return &result;
}
