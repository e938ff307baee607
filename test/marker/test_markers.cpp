// test/marker/test_markers.cpp — libencore-roctx: the roctx functions with and without a tool.
//
// One scenario per process (argv[1]):
//   notool   no tool in the process: the functions still return what roctx documents
//            (nesting levels, -1 on an unbalanced pop, range ids, thread id, NULL checks)
//   traced   the program is its own tool, tracing MARKER_CORE_API, MARKER_CONTROL_API and
//            MARKER_NAME_API: records with messages and return values, nesting per thread from
//            several threads at once, unbalanced pops, a context stopped mid-run
#include "../support/check.hpp"

#include <encore/domains/marker.hpp>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/marker/api_id.h>
#include <roctracer/roctx.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using test_support::expect;

struct rec {
    rocprofiler_callback_tracing_kind_t kind;
    int op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t tid, internal;
    std::string args;
    std::int64_t ret = 0;
};

std::mutex g_mutex;
std::vector<rec> g_recs;
std::string g_scenario;
encore::context g_ctx;
int g_init_records = 0;

int collect_arg(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const,
                int32_t, const char*, const char* name, const char* value, int32_t, void* data) {
    auto* s = static_cast<std::string*>(data);
    *s += name;
    *s += '=';
    *s += value;
    *s += ';';
    return 0;
}

void on_marker(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    rec x{r.kind, r.operation, r.phase, r.thread_id, r.correlation_id.internal, {}, 0};
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        rocprofiler_iterate_callback_tracing_kind_operation_args(r, &collect_arg, 1, &x.args);
        const auto* p = static_cast<const rocprofiler_callback_tracing_marker_api_data_t*>(r.payload);
        x.ret = r.kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API && r.operation == ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA
                    ? static_cast<std::int64_t>(p->retval.uint64_t_retval)
                    : p->retval.int32_t_retval;
    }
    std::lock_guard lk(g_mutex);
    g_recs.push_back(std::move(x));
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (encore::context::create(g_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    for (auto k : {ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API,
                   ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API})
        if (rocprofiler_configure_callback_tracing_service(g_ctx.id(), k, nullptr, 0, &on_marker, nullptr) !=
            ROCPROFILER_STATUS_SUCCESS)
            return 1;
    const rocprofiler_tracing_operation_t marker_init = ROCPROFILER_RUNTIME_INITIALIZATION_MARKER;
    if (rocprofiler_configure_callback_tracing_service(
            g_ctx.id(), ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION, &marker_init, 1,
            [](rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) { ++g_init_records; },
            nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    // Bad input to the new kinds: an op id past the kind, a repeat, names by id.
    encore::context other;
    if (encore::context::create(other) != ROCPROFILER_STATUS_SUCCESS) return 1;
    const rocprofiler_tracing_operation_t past_end = ROCPROFILER_MARKER_CORE_API_ID_LAST;
    if (rocprofiler_configure_callback_tracing_service(other.id(), ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, &past_end, 1,
                                                       &on_marker, nullptr) != ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND)
        return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx.id(), ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, nullptr, 0,
                                                       &on_marker, nullptr) != ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED)
        return 1;
    if (rocprofiler_configure_callback_tracing_service(other.id(), ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API, nullptr, 0,
                                                       nullptr, nullptr) != ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT)
        return 1;
    // The range kind of newer roctx (roctxThreadRangeA ...) is not implemented: said so.
    if (rocprofiler_configure_callback_tracing_service(g_ctx.id(), ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
                                                       nullptr, 0, &on_marker, nullptr) !=
        ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED)
        return 1;
    return g_ctx.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

std::vector<rec> select(int kind, int op, rocprofiler_callback_phase_t phase, std::uint64_t tid = 0) {
    std::lock_guard lk(g_mutex);
    std::vector<rec> out;
    for (const auto& r : g_recs)
        if (r.kind == kind && r.op == op && r.phase == phase && (tid == 0 || r.tid == tid)) out.push_back(r);
    return out;
}

std::uint64_t gettid_now() { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

// What every scenario checks: the functions' own results.
void check_results() {
    expect(roctxRangePushA("outer") == 0, "first push: level 0");
    expect(roctxRangePushA("inner") == 1, "nested push: level 1");
    expect(roctxRangePop() == 1, "pop closes level 1");
    expect(roctxRangePop() == 0, "pop closes level 0");
    expect(roctxRangePop() == -1, "unbalanced pop: -1");
    expect(roctxRangePop() == -1, "and again: -1");
    expect(roctxRangePushA(nullptr) == 0, "a NULL message is allowed");
    expect(roctxRangePop() == 0, "and popped");
    const roctx_range_id_t a = roctxRangeStartA("a"), b = roctxRangeStartA("b");
    expect(a != 0 && b != 0 && a != b, "range ids: non-zero, distinct");
    roctxRangeStop(b);
    roctxRangeStop(a);
    roctxRangeStop(0);  // an id never started: nothing happens
    roctxMarkA("mark");
    roctxMarkA(nullptr);
    roctx_thread_id_t tid = 0;
    expect(roctxGetThreadId(&tid) == 0 && tid == gettid_now(), "roctxGetThreadId: gettid");
    expect(roctxGetThreadId(nullptr) == -1, "roctxGetThreadId(NULL): -1");
    expect(roctxNameOsThread("main") == 0 && roctxNameOsThread(nullptr) == -1, "roctxNameOsThread");
    expect(roctxNameHipDevice("gpu0", 0) == 0 && roctxNameHipDevice(nullptr, 0) == -1, "roctxNameHipDevice");
    expect(roctxNameHipStream("s", nullptr) == 0 && roctxNameHipStream(nullptr, nullptr) == -1, "roctxNameHipStream");
    expect(roctxNameHsaAgent("cpu", nullptr) == 0 && roctxNameHsaAgent(nullptr, nullptr) == -1, "roctxNameHsaAgent");
    expect(roctxProfilerPause(0) == 0 && roctxProfilerResume(0) == 0, "pause/resume");

    // Each thread has its own stack.
    std::vector<std::thread> ts;
    std::atomic<int> bad{0};
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&bad, t] {
            for (int i = 0; i < 201; ++i) {  // a multiple of 3: 402 pushes per thread
                const int depth = 1 + (i + t) % 3;
                for (int d = 0; d < depth; ++d)
                    if (roctxRangePushA("work") != d) ++bad;
                for (int d = depth - 1; d >= 0; --d)
                    if (roctxRangePop() != d) ++bad;
                if (roctxRangePop() != -1) ++bad;
            }
        });
    for (auto& t : ts) t.join();
    expect(bad == 0, "4 threads: nesting levels per thread, -1 when empty");
}

void scenario_traced() {
    check_results();
    using encore::domains::marker_core;
    const std::uint64_t me = gettid_now();
    constexpr auto ENTER = ROCPROFILER_CALLBACK_PHASE_ENTER;
    constexpr auto EXIT = ROCPROFILER_CALLBACK_PHASE_EXIT;
    constexpr int CORE = ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API;
    expect(g_init_records == 1, "one RUNTIME_INITIALIZATION (MARKER) record");
    const char* name = nullptr;
    std::uint64_t len = 0;
    expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
                                                                  ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, &name, &len) ==
                   ROCPROFILER_STATUS_SUCCESS &&
               std::string(name) == "roctxRangePushA" && len == 15,
           "op names by id");
    expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
                                                                  ROCPROFILER_MARKER_NAME_API_ID_LAST, &name, &len) ==
               ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
           "an op id past the kind: OPERATION_NOT_FOUND");
    expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API,
                                                                  ROCPROFILER_MARKER_CONTROL_API_ID_NONE, &name, &len) ==
               ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
           "op id NONE (-1): OPERATION_NOT_FOUND");

    const auto push = select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, EXIT, me);
    expect(push.size() == 3 && push[0].args == "message=\"outer\";" && push[0].ret == 0 && push[1].args == "message=\"inner\";" &&
               push[1].ret == 1 && push[2].args == "message=(null);",
           "push records on the main thread: messages and levels");
    const auto pop = select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, EXIT, me);
    expect(pop.size() == 5 && pop[0].ret == 1 && pop[1].ret == 0 && pop[2].ret == -1 && pop[3].ret == -1 && pop[4].ret == 0,
           "pop records: levels, -1 for the unbalanced ones");
    const auto start = select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, EXIT, me);
    const auto stop = select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop, EXIT, me);
    expect(start.size() == 2 && stop.size() == 3 && stop[0].args == "id=" + std::to_string(start[1].ret) + ";" &&
               stop[1].args == "id=" + std::to_string(start[0].ret) + ";",
           "start returns the id that stop carries");
    expect(select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA, ENTER, me).size() == 2, "marks traced");
    expect(select(ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API, ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread, EXIT, me).size() == 2,
           "MARKER_NAME_API records");
    const auto pause = select(ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API, ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause, EXIT, me);
    expect(pause.size() == 1 && pause[0].args == "tid=0;", "MARKER_CONTROL_API records");

    // The threads: per thread, push/pop records alternate as a well-nested sequence.
    {
        std::lock_guard lk(g_mutex);
        std::map<std::uint64_t, std::vector<const rec*>> by_thread;
        for (const auto& r : g_recs)
            if (r.tid != me && r.kind == CORE && r.phase == EXIT) by_thread[r.tid].push_back(&r);
        bool nested = by_thread.size() == 4;
        for (auto& [tid, v] : by_thread) {
            int depth = 0, pushes = 0;
            for (const rec* r : v) {
                if (r->op == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA) {
                    nested = nested && r->ret == depth;
                    ++depth;
                    ++pushes;
                } else if (r->op == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop) {
                    nested = nested && r->ret == (depth > 0 ? depth - 1 : -1);
                    if (depth > 0) --depth;
                }
            }
            nested = nested && depth == 0 && pushes == 402;
        }
        expect(nested, "4 threads x 201 rounds: each thread's records nest, 402 pushes each");
    }

    // Stopped context: the functions still work, nothing is recorded.
    expect(g_ctx.stop() == ROCPROFILER_STATUS_SUCCESS, "stop");
    std::size_t n;
    {
        std::lock_guard lk(g_mutex);
        n = g_recs.size();
    }
    expect(roctxRangePushA("x") == 0 && roctxRangePop() == 0, "stopped: results unchanged");
    {
        std::lock_guard lk(g_mutex);
        expect(g_recs.size() == n, "stopped: no records");
    }
    expect(g_ctx.start() == ROCPROFILER_STATUS_SUCCESS, "restart");
    roctxMarkA("again");
    expect(select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA, ENTER, me).size() == 3, "restarted: traced again");
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    if (g_scenario != "traced") return nullptr;  // "notool": decline, no tool in the process
    id->name = "test-markers";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}

int main(int argc, char** argv) {
    g_scenario = argc > 1 ? argv[1] : "traced";
    if (g_scenario == "traced") {
        scenario_traced();
    } else if (g_scenario == "notool") {
        check_results();
        std::lock_guard lk(g_mutex);
        expect(g_recs.empty() && g_init_records == 0, "no tool: no records");
    } else {
        std::fprintf(stderr, "unknown scenario %s\n", g_scenario.c_str());
        return 2;
    }
    return test_support::finish();
}
