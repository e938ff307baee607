// examples/tools/range_replay.hpp — encore-replay --range NAME (replay_bench.cpp includes it):
// every roctx range whose message is NAME (roctxRangePushA/Pop, roctxRangeStartA/Stop, seen as
// MARKER_CORE_RANGE_API records from libencore-roctx) is replayed as one range: begun at the push
// (start), ended at the matching pop (stop), and reported per range name: ranges replayed, passes,
// dispatches per pass, the GPU time of a pass (the sum of its dispatches' times; pass 0, the
// program's own run, included) as min / median / max, and the median wall time of a replayed pass
// (PASS ENTER to PASS EXIT on the host: restore, resubmission and the wait for the pass's end; pass
// 0 has no PASS record). Kernels launched through CUDA graphs have no KERNEL_DISPATCH records, so a
// graph range's GPU columns are "-" and its wall time is the figure to read.
//
// Environment (encore-replay sets it): ENCORE_REPLAY_RANGE=NAME, ENCORE_REPLAY_PASSES (as for
// kernel replay). While NAME is set, replay_bench's kernel replay opts out of every dispatch.
// A start/stop range stopped on another thread than it started on is not replayed (ranges are
// thread-scoped): it is counted and reported. On CUDA, a graph launch outside a named range is a
// range of its own (libencore-cuda begins it): those are reported on a row of their own,
// "(graph launches)". With ENCORE_REPLAY_VERIFY=1 (--verify) the report says how many passes
// started from memory that differs from the range's start, and how many ranges ended otherwise
// than their pass 0 (divergence_count at PASS ENTER and at CLOSE).
#pragma once

#include <encore/domains/events.hpp>
#include <encore/domains/marker.hpp>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/experimental/range_replay.h>
#include <rocprofiler-sdk/marker/api_args.h>
#include <rocprofiler-sdk/marker/api_id.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace range_tool {

struct state {
    std::string name;  // ENCORE_REPLAY_RANGE
    std::uint64_t passes = 5;
    std::mutex mu;
    // The range being replayed now (one at a time: end blocks its thread for the passes).
    std::uint64_t open_id = 0;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pass_ns;  // (agent, ns) per COMPLETE, pass 0 first
    std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> by_pass;
    std::atomic<std::uint64_t> current_pass{0};
    std::uint64_t pass_enter_ns = 0;  // PASS ENTER of the pass running now
    // The report: [0] the named ranges, [1] graph launches replayed as ranges of their own.
    struct figures {
        std::uint64_t replayed = 0, passes_run = 0, dispatches = 0, timed_dispatches = 0;
        std::vector<double> pass_us, wall_us;
    } rows[2];
    bool open_is_graph = false;  // the range being replayed began at a graph launch, not a marker
    std::uint64_t unmatched_stop = 0, passes_seen = 0, passes_diverged = 0, ranges_diverged = 0;
    std::map<std::string, std::uint64_t> declined;
    std::atomic<std::uint64_t> next_id{1};
};

inline state& g() {
    static state* s = new state;  // never destroyed: callbacks may run at exit
    return *s;
}

/// Whether --range is in effect (kernel replay then opts out).
inline bool enabled() noexcept { return !g().name.empty(); }

inline std::uint64_t pass_count(std::uint64_t, rocprofiler_user_data_t) { return g().passes; }

// Set around the begin a marker makes: a CONFIG outside it is a graph launch's (CUDA).
inline thread_local bool t_named = false;

inline void on_range(const encore::record& r, rocprofiler_user_data_t&) {
    auto* p = static_cast<rocprofiler_callback_tracing_range_replay_data_t*>(r.payload);
    auto& s = g();
    if (r.operation == ROCPROFILER_RANGE_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        p->pass_count_cb = &pass_count;
        std::lock_guard lk(s.mu);
        s.open_id = p->range_id;
        s.open_is_graph = !t_named;
        s.by_pass.assign(1, {});
        s.current_pass.store(0);
    } else if (r.operation == ROCPROFILER_RANGE_REPLAY_PASS && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        std::lock_guard lk(s.mu);
        s.by_pass.emplace_back();
        s.current_pass.store(p->current_pass);
        ++s.passes_seen;
        if (p->divergence_count != 0) ++s.passes_diverged;
        rocprofiler_timestamp_t t = 0;
        (void)rocprofiler_get_timestamp(&t);
        s.pass_enter_ns = t;
    } else if (r.operation == ROCPROFILER_RANGE_REPLAY_PASS && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        rocprofiler_timestamp_t t = 0;
        (void)rocprofiler_get_timestamp(&t);
        std::lock_guard lk(s.mu);
        if (s.pass_enter_ns != 0 && t >= s.pass_enter_ns)
            s.rows[s.open_is_graph ? 1 : 0].wall_us.push_back(static_cast<double>(t - s.pass_enter_ns) / 1e3);
        s.pass_enter_ns = 0;
    } else if (r.operation == ROCPROFILER_RANGE_REPLAY_CLOSE && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        std::lock_guard lk(s.mu);
        if (p->status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED) {
            auto& row = s.rows[s.open_is_graph ? 1 : 0];
            ++row.replayed;
            row.passes_run += p->passes_run;
            row.dispatches += p->dispatch_count;
            if (p->divergence_count != 0) ++s.ranges_diverged;
            for (const auto& pass : s.by_pass) {
                std::uint64_t ns = 0;
                for (const auto& [agent, t] : pass)
                    if (agent == p->agent_id.handle) {
                        ns += t;
                        ++row.timed_dispatches;
                    }
                row.pass_us.push_back(static_cast<double>(ns) / 1e3);
            }
        } else {
            ++s.declined[p->decline_reason != nullptr ? p->decline_reason : "the tool opted out"];
        }
        s.open_id = 0;
        s.by_pass.clear();
    }
}

inline void on_dispatch(const encore::record& r, rocprofiler_user_data_t&) {
    if (r.operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    auto& s = g();
    std::lock_guard lk(s.mu);
    if (s.open_id == 0 || s.by_pass.empty()) return;
    s.by_pass.back().emplace_back(p->dispatch_info.agent_id.handle, p->end_timestamp - p->start_timestamp);
}

// A thread range (push/pop) or process range (start/stop) named `name`: begun at ENTER (the
// push), ended at EXIT (the pop). user_data remembers whether this one began a range.
inline void on_marker(const encore::record& r, rocprofiler_user_data_t& ud) {
    if (r.operation != ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA &&
        r.operation != ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA)
        return;
    auto* p = static_cast<rocprofiler_callback_tracing_marker_api_data_t*>(r.payload);
    const char* msg = r.operation == ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA
                          ? p->args.roctxThreadRangeA.message
                          : p->args.roctxProcessRangeA.message;
    auto& s = g();
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud.value = 0;
        if (msg == nullptr || s.name != msg) return;
        t_named = true;
        if (rocprofiler_range_replay_begin(s.next_id.fetch_add(1)) == ROCPROFILER_STATUS_SUCCESS) ud.value = 1;
        t_named = false;
    } else if (ud.value == 1) {
        if (rocprofiler_range_replay_end() != ROCPROFILER_STATUS_SUCCESS) {
            std::lock_guard lk(s.mu);
            ++s.unmatched_stop;
        }
    }
}

/// Adds the range replay services to a context of their own (KERNEL_DISPATCH once per context:
/// replay_bench's context has its own). false: --range asked and not possible (said why).
inline bool configure(std::uint64_t passes) {
    const char* v = std::getenv("ENCORE_REPLAY_RANGE");
    if (v == nullptr || *v == '\0') return true;
    auto& s = g();
    s.name = v;
    s.passes = passes;
    namespace d = encore::domains;
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS ||
        ctx.trace<d::range_replay>(&on_range) != ROCPROFILER_STATUS_SUCCESS ||
        ctx.trace<d::kernel_dispatch>(&on_dispatch) != ROCPROFILER_STATUS_SUCCESS ||
        ctx.trace<d::marker_core_range>(&on_marker) != ROCPROFILER_STATUS_SUCCESS ||
        ctx.start() != ROCPROFILER_STATUS_SUCCESS) {
        std::fprintf(stderr, "[encore-replay] --range: this encore cannot replay ranges\n");
        return false;
    }
    return true;
}

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// The per-range table (stderr), at finalization.
inline void report() {
    if (!enabled()) return;
    auto& s = g();
    std::lock_guard lk(s.mu);
    std::fprintf(stderr, "\n[encore-replay] range \"%s\": %" PRIu64 " passes per range (pass 0 is the program's run)\n",
                 s.name.c_str(), s.passes);
    std::fprintf(stderr, "%-24s %8s %8s %16s %12s %12s %12s %14s\n", "range", "replayed", "passes", "dispatches/pass",
                 "min_us", "median_us", "max_us", "wall_median_us");
    for (int i = 0; i < 2; ++i) {
        const auto& row = s.rows[i];
        if (i == 1 && row.replayed == 0) continue;  // no graph launch was a range
        char gpu[3][24], wall[24];
        // Graph kernels have no KERNEL_DISPATCH records: a graph range's sum would be 0, or the time
        // of some other launch that happened to land in it (seen on the H200), not the graph's.
        if (i == 1 || row.timed_dispatches == 0) {
            for (auto& c : gpu) std::snprintf(c, sizeof c, "-");
        } else {
            const auto mm = std::minmax_element(row.pass_us.begin(), row.pass_us.end());
            std::snprintf(gpu[0], sizeof gpu[0], "%.2f", *mm.first);
            std::snprintf(gpu[1], sizeof gpu[1], "%.2f", median(row.pass_us));
            std::snprintf(gpu[2], sizeof gpu[2], "%.2f", *mm.second);
        }
        if (row.wall_us.empty())
            std::snprintf(wall, sizeof wall, "-");
        else
            std::snprintf(wall, sizeof wall, "%.2f", median(row.wall_us));
        std::fprintf(stderr, "%-24s %8" PRIu64 " %8" PRIu64 " %16.1f %12s %12s %12s %14s\n",
                     i == 0 ? s.name.c_str() : "(graph launches)", row.replayed, row.passes_run,
                     row.replayed != 0 ? static_cast<double>(row.dispatches) / static_cast<double>(row.replayed) : 0.0,
                     gpu[0], gpu[1], gpu[2], wall);
    }
    const char* v = std::getenv("ENCORE_REPLAY_VERIFY");
    if (v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0)
        std::fprintf(stderr,
                     "[encore-replay] verification: %" PRIu64 " of %" PRIu64 " passes started from memory that differs "
                     "from their range's start; %" PRIu64 " range(s) ended otherwise than their pass 0\n",
                     s.passes_diverged, s.passes_seen, s.ranges_diverged);
    for (const auto& [why, n] : s.declined)
        std::fprintf(stderr, "[encore-replay] %" PRIu64 " range(s) not replayed: %s\n", n, why.c_str());
    if (s.unmatched_stop != 0)
        std::fprintf(stderr,
                     "[encore-replay] %" PRIu64 " range(s) ended on another thread than they began: not replayed\n",
                     s.unmatched_stop);
}

}  // namespace range_tool
