// examples/tools/replay_metrics.cpp — the tool behind `encore-replay --metrics`: hardware counters
// of the selected kernel dispatches of an unmodified program, collected over kernel-replay passes.
//
// A rocprofiler_configure tool (ROCP_TOOL_LIBRARIES). At a dispatch's CONFIG ENTER it finds the
// metrics by name on the dispatch's agent (encore_counter_find_by_name: NVIDIA's metric names on
// CUDA, the software runtime's counters on HSA) and plans the passes, one of two ways
// (ENCORE_METRICS_SCHEDULE):
//   library (default)  one multi-pass config of every metric (encore_create_multipass_counter_config):
//                      as many passes as the counter library's own schedule needs, the same config
//                      in each, every value delivered with the last pass. On CUDA the passes after
//                      the first cost CUPTI ~2 ms instead of a new profiler object each (~180 ms).
//   groups             one-pass groups (encore_counter_schedule_passes, greedy), one config per
//                      group and one pass per group: pass p is counted with group p's config.
// The dispatch counting callback gives each pass its config (PASS ENTER says which pass runs on
// this thread); the record callback keeps each value; CONFIG EXIT writes one row per metric.
// Every pass starts from the same memory (replay restores it), so each pass sees the same inputs.
//
// Environment:
//   ENCORE_METRICS=a,b,c       the metrics (required); a name the dispatch's agent does not have
//                              ends the program with status 2 at its first selected dispatch, with
//                              the agent's metrics listed (exit_unknown_metrics)
//   ENCORE_REPLAY_KERNEL=TEXT  only kernels whose name (demangled or as the runtime gave it) contains TEXT
//   ENCORE_REPLAY_COUNT=N      only the first N selected dispatches (as Nsight Compute's -c)
//   ENCORE_REPLAY_REPORT=FILE  also a CSV: dispatch_id,kernel,metric,value,pass,passes,replay_us
//                              (pass: the pass that counted it; empty with the library's schedule,
//                              which does not say)
//   ENCORE_METRICS_SCHEDULE=library|groups  (above; default library)
#include "kernel_names.hpp"

#include <encore/counters.h>
#include <encore/domains/events.hpp>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/counter_config.h>
#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/dispatch_counting_service.h>
#include <rocprofiler-sdk/experimental/kernel_replay.h>

#include <sys/file.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

namespace d = encore::domains;

/// What is collected on one agent: the metrics' ids, their groups and one config per group (or
/// one multi-pass config for all).
struct plan {
    bool ok = false;
    std::vector<rocprofiler_counter_id_t> ids;  // in ENCORE_METRICS' order
    std::vector<std::size_t> group_of;
    std::vector<rocprofiler_counter_config_id_t> configs;  // per group; the multi-pass config
    std::size_t library_passes = 0;                        // the counter library's own count
    bool multipass = false;                                // configs[0] runs in every pass
    std::size_t passes() const { return multipass ? library_passes : configs.size(); }
};

struct dispatch_run {
    std::string kernel;
    std::uint64_t agent = 0;
    std::vector<double> value;  // per metric; NaN: not delivered
    std::chrono::steady_clock::time_point started, pass_started;
    double us = 0;  // CONFIG ENTER to CONFIG EXIT
    // where that time went: the snapshot, the passes (launch, counting, its wait), the restores
    double snapshot_us = 0, passes_us = 0, restores_us = 0;
    bool exited = false;  // CONFIG EXIT seen: written as soon as its values are in
    std::uint64_t passes = 0;
    // Groups in reverse pass order (every other dispatch): consecutive passes then share a metric
    // set across dispatches, and CUDA's counter source, which needs a new profiler object per change
    // of set (~170 ms each on an H200, docs/counters.md), changes once per dispatch instead of twice.
    bool reversed = false;
};

/// The group that pass `pass` of `run` counts (groups: the plan's).
std::size_t group_in_pass(const dispatch_run& run, std::size_t pass, std::size_t groups) {
    return run.reversed && pass < groups ? groups - 1 - pass : pass;
}

struct kernel_total {
    std::uint64_t dispatches = 0;
    double us = 0, snapshot_us = 0, passes_us = 0, restores_us = 0;
    std::vector<double> first, sum;  // per metric
    std::vector<std::uint64_t> got;
};

std::mutex g_mutex;
std::vector<std::string> g_metrics;
std::map<std::uint64_t, plan> g_plans;  // agent -> plan
std::map<std::uint64_t, std::string> g_names;
std::map<std::uint64_t, dispatch_run> g_runs;  // dispatch id -> values so far
std::map<std::string, kernel_total> g_totals;
std::string g_pattern;
bool g_groups = false;  // ENCORE_METRICS_SCHEDULE=groups
std::uint64_t g_count = 0, g_selected = 0;
FILE* g_csv = nullptr;
thread_local std::uint64_t t_pass = 0;

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

/// The names of every metric `agent` lists, sorted.
std::vector<std::string> metrics_of(rocprofiler_agent_id_t agent) {
    std::vector<std::string> names;
    rocprofiler_iterate_agent_supported_counters(
        agent,
        [](rocprofiler_agent_id_t, rocprofiler_counter_id_t* ids, size_t n, void* data) {
            auto& out = *static_cast<std::vector<std::string>*>(data);
            for (size_t i = 0; i < n; ++i) {
                rocprofiler_counter_info_v0_t info{};
                if (rocprofiler_query_counter_info(ids[i], ROCPROFILER_COUNTER_INFO_VERSION_0, &info) ==
                        ROCPROFILER_STATUS_SUCCESS &&
                    info.name != nullptr)
                    out.emplace_back(info.name);
            }
            return ROCPROFILER_STATUS_SUCCESS;
        },
        &names);
    std::sort(names.begin(), names.end());
    return names;
}

/// "agent 1 (gfx90a)" where the runtime lists the agent (HSA: its id is a handle, meaningless to
/// a reader), else "agent ID" (CUDA lists none: its id is the device ordinal).
std::string agent_label(rocprofiler_agent_id_t agent) {
    struct query {
        rocprofiler_agent_id_t id;
        std::string label;
    } q{agent, "agent " + std::to_string(agent.handle)};
    rocprofiler_query_available_agents(
        ROCPROFILER_AGENT_INFO_VERSION_0,
        [](rocprofiler_agent_version_t, const void** agents, size_t n, void* data) {
            auto& q = *static_cast<query*>(data);
            for (size_t i = 0; i < n; ++i) {
                const auto* a = static_cast<const rocprofiler_agent_v0_t*>(agents[i]);
                if (a->id.handle == q.id.handle)
                    q.label = "agent " + std::to_string(a->logical_node_id) + " (" +
                              (a->name != nullptr ? a->name : "") + ")";
            }
            return ROCPROFILER_STATUS_SUCCESS;
        },
        sizeof(rocprofiler_agent_v0_t), &q);
    return q.label;
}

/// Metrics the agent does not have: a typo would otherwise cost a whole run with no numbers, so
/// the tool says which names are wrong and what the agent has, then ends the program with status
/// 2 (encore-replay's status for a bad option) at its first selected dispatch, before that
/// dispatch runs. A list too long to read (CUDA's: every base metric with each rollup) is cut to
/// the names that begin as the first unknown one does (its unit: `sm__`, or its first 3 letters).
[[noreturn]] void exit_unknown_metrics(rocprofiler_agent_id_t agent, const std::vector<std::string>& unknown) {
    std::string said;
    for (const auto& m : unknown) said += (said.empty() ? "" : ", ") + m;
    std::fprintf(stderr, "[encore-replay] %s has no metric %s", agent_label(agent).c_str(), said.c_str());
    constexpr std::size_t readable = 100;
    const std::vector<std::string> all = metrics_of(agent);
    std::vector<std::string> shown = all;
    std::size_t matching = all.size();  // the names of the shown kind, listed or not
    const std::string& u = unknown.front();
    const std::size_t unit = u.find("__");
    const std::string prefix = u.substr(0, unit != std::string::npos ? unit + 2 : std::min<std::size_t>(3, u.size()));
    if (all.size() > readable) {
        shown.clear();
        matching = 0;
        for (const auto& m : all)
            if (m.compare(0, prefix.size(), prefix) == 0 && ++matching <= readable) shown.push_back(m);
    }
    if (all.empty())
        std::fprintf(stderr, "; it lists no metrics");
    else if (shown.size() == all.size())
        std::fprintf(stderr, "; its metrics:");
    else
        std::fprintf(stderr, "; of its %zu metrics, %zu begin with '%s'%s", all.size(), matching, prefix.c_str(),
                     shown.empty()              ? ""
                     : shown.size() == matching ? ":"
                                                : ", the first of them:");
    for (std::size_t i = 0; i < shown.size(); ++i) std::fprintf(stderr, "%s %s", i == 0 ? "" : ",", shown[i].c_str());
    if (shown.size() != all.size())
        std::fprintf(stderr, " (rocprofiler_iterate_agent_supported_counters lists them all; on NVIDIA GPUs, "
                             "ncu --query-metrics lists the base names)");
    std::fprintf(stderr, "\n[encore-replay] unknown metric: ending the program with status 2 before its first "
                         "selected dispatch runs\n");
    if (g_csv != nullptr) std::fclose(g_csv);  // its header only: no dispatch was counted
    std::fflush(nullptr);
    // Not exit(): this runs inside the runtime's dispatch path, where the program's and the
    // runtime's exit handlers would run with its locks held.
    std::_Exit(2);
}

/// The plan of `agent`, made at its first selected dispatch (g_mutex held).
plan& plan_of(std::uint64_t agent) {
    auto [it, made] = g_plans.try_emplace(agent);
    plan& p = it->second;
    if (!made) return p;
    const rocprofiler_agent_id_t a{agent};
    std::vector<std::string> unknown;
    for (const auto& m : g_metrics) {
        rocprofiler_counter_id_t id{};
        const rocprofiler_status_t st = encore_counter_find_by_name(a, m.c_str(), &id);
        if (st == ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND) {
            unknown.push_back(m);
            continue;
        }
        if (st != ROCPROFILER_STATUS_SUCCESS) {
            std::fprintf(stderr, "[encore-replay] agent %" PRIu64 " has no metric %s (%s): not collecting\n", agent,
                         m.c_str(), rocprofiler_get_status_string(st));
            return p;
        }
        p.ids.push_back(id);
    }
    if (!unknown.empty()) exit_unknown_metrics(a, unknown);
    if (!g_groups) {
        rocprofiler_counter_config_id_t cfg{0};
        std::size_t passes = 0;
        if (const auto st = encore_create_multipass_counter_config(a, p.ids.data(), p.ids.size(), &cfg, &passes);
            st != ROCPROFILER_STATUS_SUCCESS) {
            std::fprintf(stderr, "[encore-replay] a config of the metrics failed (%s): not collecting\n",
                         rocprofiler_get_status_string(st));
            return p;
        }
        p.configs.push_back(cfg);
        p.group_of.assign(p.ids.size(), 0);
        p.library_passes = passes;
        p.multipass = passes > 1;
        if (p.multipass)
            std::fprintf(stderr,
                         "[encore-replay] agent %" PRIu64 ": %zu metrics in %zu passes (the counter library's own "
                         "multi-pass schedule: one config in every pass, the values with the last)\n",
                         agent, p.ids.size(), passes);
        else
            std::fprintf(stderr, "[encore-replay] agent %" PRIu64 ": %zu metric%s in 1 pass\n", agent, p.ids.size(),
                         p.ids.size() == 1 ? "" : "s");
        p.ok = true;
        return p;
    }
    p.group_of.resize(p.ids.size());
    std::size_t groups = 0;
    const rocprofiler_status_t st = encore_counter_schedule_passes(a, p.ids.data(), p.ids.size(), p.group_of.data(),
                                                                   &groups);
    if (st != ROCPROFILER_STATUS_SUCCESS) {
        std::fprintf(stderr, "[encore-replay] the metrics cannot be scheduled into one-pass groups (%s)",
                     rocprofiler_get_status_string(st));
        for (std::size_t i = 0; i < p.ids.size(); ++i)
            if (p.group_of[i] == SIZE_MAX)
                std::fprintf(stderr, "; %s alone needs more than one pass", g_metrics[i].c_str());
        std::fprintf(stderr, ": not collecting\n");
        return p;
    }
    if (encore_counter_pass_count(a, p.ids.data(), p.ids.size(), &p.library_passes) != ROCPROFILER_STATUS_SUCCESS)
        p.library_passes = 0;
    for (std::size_t g = 0; g < groups; ++g) {
        std::vector<rocprofiler_counter_id_t> members;
        for (std::size_t i = 0; i < p.ids.size(); ++i)
            if (p.group_of[i] == g) members.push_back(p.ids[i]);
        rocprofiler_counter_config_id_t cfg{0};
        if (const auto s = rocprofiler_create_counter_config(a, members.data(), members.size(), &cfg);
            s != ROCPROFILER_STATUS_SUCCESS) {
            std::fprintf(stderr, "[encore-replay] a config of group %zu failed (%s): not collecting\n", g,
                         rocprofiler_get_status_string(s));
            return p;
        }
        p.configs.push_back(cfg);
    }
    std::fprintf(stderr,
                 "[encore-replay] agent %" PRIu64 ": %zu metrics in %zu pass%s (the counter library's own "
                 "multi-pass config: %zu)",
                 agent, p.ids.size(), groups, groups == 1 ? "" : "es", p.library_passes);
    for (std::size_t g = 0; g < groups; ++g) {
        std::fprintf(stderr, "%s pass %zu:", g == 0 ? ";" : ",", g);
        for (std::size_t i = 0; i < p.ids.size(); ++i)
            if (p.group_of[i] == g) std::fprintf(stderr, " %s", g_metrics[i].c_str());
    }
    if (groups > 1) std::fprintf(stderr, " (every other dispatch runs them in reverse order)");
    std::fprintf(stderr, "\n");
    p.ok = true;
    return p;
}

std::uint64_t pass_count(rocprofiler_kernel_dispatch_info_t info, rocprofiler_user_data_t) {
    std::lock_guard lk(g_mutex);
    const auto it = g_plans.find(info.agent_id.handle);
    return it != g_plans.end() && it->second.ok ? it->second.passes() : 1;
}

void on_code_object(const encore::record& r, rocprofiler_user_data_t&) {
    if (r.operation != ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER || r.phase != ROCPROFILER_CALLBACK_PHASE_LOAD)
        return;
    auto* p = static_cast<rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    g_names[p->kernel_id] = example_tools::readable_kernel_name(p->kernel_name) + '\x1f' +
                            (p->kernel_name != nullptr ? p->kernel_name : "");
}

void finish(std::uint64_t id) {
    const auto it = g_runs.find(id);
    if (it == g_runs.end()) return;
    const dispatch_run& run = it->second;
    const double us = run.us;
    const std::uint64_t passes = run.passes;
    const plan& p = g_plans[run.agent];
    kernel_total& k = g_totals[run.kernel];
    if (k.first.empty()) {
        k.first = run.value;
        k.sum.assign(run.value.size(), 0);
        k.got.assign(run.value.size(), 0);
    }
    ++k.dispatches;
    k.us += us;
    k.snapshot_us += run.snapshot_us;
    k.passes_us += run.passes_us;
    k.restores_us += run.restores_us;
    for (std::size_t i = 0; i < run.value.size(); ++i) {
        if (!std::isnan(run.value[i])) {
            k.sum[i] += run.value[i];
            ++k.got[i];
        }
        if (g_csv == nullptr) continue;
        std::fprintf(g_csv, "%" PRIu64 ",%s,%s,", id, csv_field(run.kernel).c_str(), g_metrics[i].c_str());
        if (std::isnan(run.value[i]))
            std::fprintf(g_csv, ",");
        else
            std::fprintf(g_csv, "%.17g,", run.value[i]);
        // The pass that counted it (group_in_pass is its own inverse); the library's multi-pass
        // schedule does not say which of its passes counted what.
        if (p.multipass)
            std::fprintf(g_csv, ",%" PRIu64 ",%.3f\n", passes, us);
        else
            std::fprintf(g_csv, "%zu,%" PRIu64 ",%.3f\n", group_in_pass(run, p.group_of[i], p.configs.size()), passes,
                         us);
    }
    if (g_csv != nullptr) std::fflush(g_csv);
    g_runs.erase(it);
}

void on_replay(const encore::record& r, rocprofiler_user_data_t&) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    const std::uint64_t id = p->dispatch_info.dispatch_id;
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        t_pass = 0;
        std::lock_guard lk(g_mutex);
        const auto n = g_names.find(p->dispatch_info.kernel_id);
        const std::string both = n != g_names.end() ? n->second : "kernel#" + std::to_string(p->dispatch_info.kernel_id);
        const std::string readable = both.substr(0, both.find('\x1f'));
        if (!g_pattern.empty() && both.find(g_pattern) == std::string::npos) return;
        if (g_count != 0 && g_selected >= g_count) return;
        const plan& pl = plan_of(p->dispatch_info.agent_id.handle);
        if (!pl.ok) return;
        ++g_selected;
        p->replay_pass_count = &pass_count;
        dispatch_run& run = g_runs[id];
        run.reversed = g_selected % 2 == 0;
        run.kernel = readable;
        run.agent = p->dispatch_info.agent_id.handle;
        run.value.assign(g_metrics.size(), std::nan(""));
        run.started = std::chrono::steady_clock::now();
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS) {
        const auto now = std::chrono::steady_clock::now();
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) t_pass = p->current_pass;
        std::lock_guard lk(g_mutex);
        const auto it = g_runs.find(id);
        if (it == g_runs.end()) return;
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
            it->second.pass_started = now;
        else
            it->second.passes_us += std::chrono::duration<double, std::micro>(now - it->second.pass_started).count();
    } else if ((r.operation == ROCPROFILER_KERNEL_REPLAY_SNAPSHOT || r.operation == ROCPROFILER_KERNEL_REPLAY_RESTORE) &&
               r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        // The backend's host times of the copy (on CUDA including the wait for it).
        const double us = p->end_timestamp >= p->start_timestamp
                              ? static_cast<double>(p->end_timestamp - p->start_timestamp) / 1000.0
                              : 0.0;
        std::lock_guard lk(g_mutex);
        const auto it = g_runs.find(id);
        if (it == g_runs.end()) return;
        (r.operation == ROCPROFILER_KERNEL_REPLAY_SNAPSHOT ? it->second.snapshot_us : it->second.restores_us) += us;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        t_pass = 0;
        std::lock_guard lk(g_mutex);
        const auto it = g_runs.find(id);
        if (it == g_runs.end()) return;
        if (p->decline_reason != nullptr)
            std::fprintf(stderr, "[encore-replay] dispatch %" PRIu64 " was not replayed: %s\n", id, p->decline_reason);
        dispatch_run& run = it->second;
        run.us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - run.started).count();
        run.passes = p->passes_run;
        run.exited = true;
        // A dispatch that ran once (one group) may be counted after this, on the runtime's
        // completion thread (HSA): it is written when its values arrive, or at exit.
        const bool all_in = std::none_of(run.value.begin(), run.value.end(), [](double v) { return std::isnan(v); });
        if (all_in || p->passes_run > 1) finish(id);
    }
}

void on_dispatch(rocprofiler_dispatch_counting_service_data_t data, rocprofiler_counter_config_id_t* config,
                 rocprofiler_user_data_t*, void*) {
    std::lock_guard lk(g_mutex);
    const auto run = g_runs.find(data.dispatch_info.dispatch_id);
    if (run == g_runs.end()) return;  // not selected: not counted
    const auto it = g_plans.find(data.dispatch_info.agent_id.handle);
    if (it == g_plans.end() || !it->second.ok || t_pass >= it->second.passes()) return;
    *config = it->second.multipass ? it->second.configs[0]
                                   : it->second.configs[group_in_pass(run->second, t_pass, it->second.configs.size())];
}

void on_record(rocprofiler_dispatch_counting_service_data_t data, rocprofiler_counter_record_t* records, size_t n,
               rocprofiler_user_data_t, void*) {
    std::lock_guard lk(g_mutex);
    const auto run = g_runs.find(data.dispatch_info.dispatch_id);
    const auto pl = g_plans.find(data.dispatch_info.agent_id.handle);
    if (run == g_runs.end() || pl == g_plans.end()) return;
    for (size_t i = 0; i < n; ++i) {
        rocprofiler_counter_id_t c{};
        if (rocprofiler_query_record_counter_id(records[i].id, &c) != ROCPROFILER_STATUS_SUCCESS) continue;
        for (std::size_t m = 0; m < pl->second.ids.size(); ++m)
            if (pl->second.ids[m].handle == c.handle) run->second.value[m] = records[i].counter_value;
    }
    if (run->second.exited) finish(run->first);
}

bool decimal_at_least(const char* v, std::uint64_t least, std::uint64_t& out) {
    char* end = nullptr;
    const unsigned long long x = std::strtoull(v, &end, 10);
    if (end == v || *end != '\0' || x < least) return false;
    out = x;
    return true;
}

int initialize(rocprofiler_client_finalize_t, void*) {
    const char* list = std::getenv("ENCORE_METRICS");
    if (list == nullptr || *list == '\0') {
        std::fprintf(stderr, "[encore-replay] ENCORE_METRICS is empty: no metrics to collect\n");
        return 1;
    }
    for (std::string s = list; !s.empty();) {
        const std::size_t comma = s.find(',');
        std::string m = s.substr(0, comma);
        m.erase(0, m.find_first_not_of(" \t"));
        m.erase(m.find_last_not_of(" \t") + 1);
        if (!m.empty() && std::find(g_metrics.begin(), g_metrics.end(), m) == g_metrics.end()) g_metrics.push_back(m);
        s = comma == std::string::npos ? "" : s.substr(comma + 1);
    }
    if (const char* v = std::getenv("ENCORE_REPLAY_KERNEL"); v != nullptr) g_pattern = v;
    if (const char* v = std::getenv("ENCORE_METRICS_SCHEDULE"); v != nullptr && *v != '\0') {
        if (std::strcmp(v, "groups") == 0)
            g_groups = true;
        else if (std::strcmp(v, "library") != 0)
            std::fprintf(stderr, "[encore-replay] ignoring ENCORE_METRICS_SCHEDULE=%s (library or groups)\n", v);
    }
    if (const char* v = std::getenv("ENCORE_REPLAY_COUNT");
        v != nullptr && *v != '\0' && !decimal_at_least(v, 1, g_count))
        std::fprintf(stderr, "[encore-replay] ignoring ENCORE_REPLAY_COUNT=%s\n", v);
    if (const char* f = std::getenv("ENCORE_REPLAY_REPORT"); f != nullptr && *f != '\0') {
        // ENCORE_REPLAY_REPORT_SHARED=1 (encore-replay -o, which empties the file first): every
        // process of the run appends, the first to find it empty writing the header.
        const char* shared_env = std::getenv("ENCORE_REPLAY_REPORT_SHARED");
        const bool shared = shared_env != nullptr && std::strcmp(shared_env, "1") == 0;
        g_csv = std::fopen(f, shared ? "a" : "w");
        if (g_csv == nullptr) {
            std::fprintf(stderr, "[encore-replay] cannot write %s: %s (not collecting)\n", f, std::strerror(errno));
            return 1;
        }
        struct stat st {};
        if (shared) ::flock(::fileno(g_csv), LOCK_EX);
        if (!shared || (::fstat(::fileno(g_csv), &st) == 0 && st.st_size == 0))
            std::fprintf(g_csv, "dispatch_id,kernel,metric,value,pass,passes,replay_us\n");
        std::fflush(g_csv);
        if (shared) ::flock(::fileno(g_csv), LOCK_UN);
    }
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (ctx.trace<d::kernel_replay>(&on_replay) != ROCPROFILER_STATUS_SUCCESS ||
        ctx.trace<d::code_object>(&on_code_object) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_dispatch_counting_service(ctx.id(), &on_dispatch, nullptr, &on_record, nullptr) !=
            ROCPROFILER_STATUS_SUCCESS) {
        std::fprintf(stderr, "[encore-replay] this encore cannot count over replay passes\n");
        return 1;
    }
    return ctx.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

void finalize(void*) {
    std::lock_guard lk(g_mutex);
    while (!g_runs.empty()) finish(g_runs.begin()->first);  // those whose values never came
    std::fprintf(stderr, "\n[encore-replay] metrics per kernel (value: of the first dispatch; mean over %s)\n",
                 "the dispatches");
    std::fprintf(stderr, "%10s %12s %20s %20s  %-40s %s\n", "dispatches", "ms/dispatch", "first", "mean", "metric",
                 "kernel");
    for (const auto& [name, k] : g_totals)
        for (std::size_t i = 0; i < k.first.size() && i < g_metrics.size(); ++i) {
            char first[32] = "-", mean[32] = "-";
            if (!std::isnan(k.first[i])) std::snprintf(first, sizeof(first), "%.6g", k.first[i]);
            if (k.got[i] != 0) std::snprintf(mean, sizeof(mean), "%.6g", k.sum[i] / static_cast<double>(k.got[i]));
            std::fprintf(stderr, "%10" PRIu64 " %12.3f %20s %20s  %-40s %s\n", k.dispatches,
                         k.us / 1000.0 / static_cast<double>(k.dispatches), first, mean, g_metrics[i].c_str(),
                         name.c_str());
        }
    if (g_totals.empty()) std::fprintf(stderr, "  (no dispatch was counted)\n");
    // Where a dispatch's time went (host times, ms per dispatch): the rest is draining the
    // agent before the snapshot and the tool's own callbacks.
    if (!g_totals.empty())
        std::fprintf(stderr, "[encore-replay] time per dispatch, ms: %10s %10s %10s %10s  %s\n", "all", "snapshot",
                     "passes", "restores", "kernel");
    for (const auto& [name, k] : g_totals) {
        const double n = static_cast<double>(k.dispatches) * 1000.0;
        std::fprintf(stderr, "[encore-replay] time per dispatch, ms: %10.3f %10.3f %10.3f %10.3f  %s\n", k.us / n,
                     k.snapshot_us / n, k.passes_us / n, k.restores_us / n, name.c_str());
    }
    if (g_csv != nullptr) std::fclose(g_csv);
    g_csv = nullptr;
}

}  // namespace

extern "C" rocprofiler_tool_configure_result_t* rocprofiler_configure(uint32_t, const char*, uint32_t,
                                                                      rocprofiler_client_id_t* id) {
    id->name = "encore-replay-metrics";
    static rocprofiler_tool_configure_result_t cfg{sizeof(cfg), &initialize, &finalize, nullptr};
    return &cfg;
}
