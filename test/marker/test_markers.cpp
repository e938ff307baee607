// test/marker/test_markers.cpp — libencore-roctx: the roctx functions with and without a tool.
//
// One scenario per process (argv[1]):
//   notool   no tool in the process: the functions still return what roctx documents
//            (nesting levels, -1 on an unbalanced pop, range ids, thread id, NULL checks)
//   traced   the program is its own tool, tracing MARKER_CORE_API, MARKER_CONTROL_API and
//            MARKER_NAME_API: records with messages and return values, nesting per thread from
//            several threads at once, unbalanced pops, a context stopped mid-run; a second
//            context traces MARKER_CORE_RANGE_API: push/pop and start/stop pairs as one range
//            each (ENTER at the opening call, EXIT at the closing one), per thread and across
//            threads, no record for an unbalanced pop or an unknown stop
//   bad_messages  the traced setup; range messages that are unmapped or unterminated: no crash,
//            the records keep what could be read
#include "../support/check.hpp"

#include <encore/domains/marker.hpp>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/marker/api_id.h>
#include <roctracer/roctx.h>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
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
    std::uint64_t ancestor = 0, user = 0;
};

std::mutex g_mutex;
std::vector<rec> g_recs, g_range;
std::string g_scenario;
encore::context g_ctx, g_range_ctx;
std::atomic<std::uint64_t> g_user_seq{1};
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
        x.ret = r.kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API &&
                        r.operation == ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA
                    ? static_cast<std::int64_t>(p->retval.roctx_range_id_t_retval)
                    : p->retval.int32_t_retval;
    }
    std::lock_guard lk(g_mutex);
    g_recs.push_back(std::move(x));
}

// MARKER_CORE_RANGE_API: each ENTER stores a fresh number in user_data; its EXIT must see it.
void on_range(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    rec x{r.kind, r.operation, r.phase, r.thread_id, r.correlation_id.internal, {}, 0, r.correlation_id.ancestor, 0};
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) ud->value = g_user_seq.fetch_add(1);
    x.user = ud->value;
    if (rocprofiler_iterate_callback_tracing_kind_operation_args(r, &collect_arg, 1, &x.args) !=
        ROCPROFILER_STATUS_SUCCESS)
        x.args = "<iterate failed>";
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        const auto* p = static_cast<const rocprofiler_callback_tracing_marker_api_data_t*>(r.payload);
        x.ret = r.operation == ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA
                    ? static_cast<std::int64_t>(p->retval.roctx_range_id_t_retval)
                    : p->retval.int32_t_retval;
    }
    std::lock_guard lk(g_mutex);
    g_range.push_back(std::move(x));
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
    if (rocprofiler_configure_callback_tracing_service(other.id(), ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
                                                       &past_end, 1, &on_marker,
                                                       nullptr) != ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND)
        return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx.id(), ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
                                                       nullptr, 0, &on_marker,
                                                       nullptr) != ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED)
        return 1;
    if (rocprofiler_configure_callback_tracing_service(other.id(), ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API, nullptr,
                                                       0, nullptr, nullptr) != ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT)
        return 1;
    // The range kind, in a context of its own; an op id past it is refused.
    if (encore::context::create(g_range_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    const rocprofiler_tracing_operation_t range_past_end = ROCPROFILER_MARKER_CORE_RANGE_API_ID_LAST;
    if (rocprofiler_configure_callback_tracing_service(other.id(), ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
                                                       &range_past_end, 1, &on_range,
                                                       nullptr) != ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND)
        return 1;
    if (rocprofiler_configure_callback_tracing_service(g_range_ctx.id(),
                                                       ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API, nullptr, 0,
                                                       &on_range, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return g_ctx.start() == ROCPROFILER_STATUS_SUCCESS && g_range_ctx.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
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

void check_ranges();
void check_ranges_live();

void scenario_traced() {
    check_results();
    check_ranges();
    using encore::domains::marker_core;
    const std::uint64_t me = gettid_now();
    constexpr auto ENTER = ROCPROFILER_CALLBACK_PHASE_ENTER;
    constexpr auto EXIT = ROCPROFILER_CALLBACK_PHASE_EXIT;
    constexpr int CORE = ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API;
    expect(g_init_records == 1, "one RUNTIME_INITIALIZATION (MARKER) record");
    const char* name = nullptr;
    std::uint64_t len = 0;
    expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
                                                                  ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, &name,
                                                                  &len) == ROCPROFILER_STATUS_SUCCESS &&
               std::string(name) == "roctxRangePushA" && len == 15,
           "op names by id");
    expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
                                                                  ROCPROFILER_MARKER_NAME_API_ID_LAST, &name,
                                                                  &len) == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
           "an op id past the kind: OPERATION_NOT_FOUND");
    expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API,
                                                                  ROCPROFILER_MARKER_CONTROL_API_ID_NONE, &name,
                                                                  &len) == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
           "op id NONE (-1): OPERATION_NOT_FOUND");

    const auto push = select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, EXIT, me);
    expect(push.size() == 3 && push[0].args == "message=\"outer\";" && push[0].ret == 0 &&
               push[1].args == "message=\"inner\";" && push[1].ret == 1 && push[2].args == "message=(null);",
           "push records on the main thread: messages and levels");
    const auto pop = select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, EXIT, me);
    expect(pop.size() == 5 && pop[0].ret == 1 && pop[1].ret == 0 && pop[2].ret == -1 && pop[3].ret == -1 &&
               pop[4].ret == 0,
           "pop records: levels, -1 for the unbalanced ones");
    const auto start = select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, EXIT, me);
    const auto stop = select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop, EXIT, me);
    expect(start.size() == 2 && stop.size() == 3 && stop[0].args == "id=" + std::to_string(start[1].ret) + ";" &&
               stop[1].args == "id=" + std::to_string(start[0].ret) + ";",
           "start returns the id that stop carries");
    expect(select(CORE, ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA, ENTER, me).size() == 2, "marks traced");
    expect(select(ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API, ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread, EXIT, me)
                   .size() == 2,
           "MARKER_NAME_API records");
    const auto pause = select(ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API,
                              ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause, EXIT, me);
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
    check_ranges_live();
}

std::vector<rec> ranges(int op, rocprofiler_callback_phase_t phase, std::uint64_t tid = 0) {
    std::lock_guard lk(g_mutex);
    std::vector<rec> out;
    for (const auto& r : g_range)
        if (r.op == op && r.phase == phase && (tid == 0 || r.tid == tid)) out.push_back(r);
    return out;
}

// MARKER_CORE_RANGE_API, checked on what check_results() did (the context traced it all along).
void check_ranges() {
    constexpr auto ENTER = ROCPROFILER_CALLBACK_PHASE_ENTER;
    constexpr auto EXIT = ROCPROFILER_CALLBACK_PHASE_EXIT;
    constexpr int THREAD = ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA;
    constexpr int PROCESS = ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA;
    const std::uint64_t me = gettid_now();
    const char* name = nullptr;
    expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
                                                                  THREAD, &name, nullptr) == ROCPROFILER_STATUS_SUCCESS &&
               std::string(name) == "roctxThreadRangeA",
           "range op names by id (the reference's numbering)");
    static_assert(encore::domains::marker_core_range::id_of<"roctxProcessRangeA">() == PROCESS);
    static_assert(encore::domains::marker_core_range::id_of<"roctxGetThreadId">() ==
                  ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxGetThreadId);

    // Main thread: push outer, push inner, pop, pop, pop (unbalanced), push NULL, pop.
    {
        std::lock_guard lk(g_mutex);
        std::vector<const rec*> v;
        for (const auto& r : g_range)
            if (r.tid == me && r.op == THREAD) v.push_back(&r);
        expect(v.size() == 6, "main thread: 3 ranges, ENTER + EXIT each, none for the unbalanced pops (got " +
                                  std::to_string(v.size()) + ")");
        if (v.size() == 6) {
            expect(v[0]->phase == ENTER && v[0]->args == "message=\"outer\";" && v[1]->phase == ENTER &&
                       v[1]->args == "message=\"inner\";",
                   "ENTER at each push, with its message");
            expect(v[2]->phase == EXIT && v[2]->internal == v[1]->internal && v[2]->ret == 1 &&
                       v[2]->args == "message=\"inner\";" && v[2]->user == v[1]->user,
                   "the first pop closes inner: same correlation id and user_data, level 1, message kept");
            expect(v[3]->phase == EXIT && v[3]->internal == v[0]->internal && v[3]->ret == 0 && v[3]->user == v[0]->user,
                   "the second pop closes outer (level 0)");
            expect(v[4]->phase == ENTER && v[4]->args == "message=(null);" && v[5]->phase == EXIT &&
                       v[5]->internal == v[4]->internal,
                   "a NULL message: a range with message (null)");
        }
    }
    // Ancestor: the range's own id; its ancestor is the MARKER_CORE_API push record (context 1).
    {
        const auto push = select(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
                                 ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, ROCPROFILER_CALLBACK_PHASE_ENTER, me);
        const auto r = ranges(THREAD, ENTER, me);
        expect(!push.empty() && !r.empty() && r[0].ancestor == push[0].internal && r[0].internal != push[0].internal,
               "the range's ancestor is the roctxRangePushA call it opened in");
    }
    // Process ranges: b stopped first, then a; 0 (never started): no record.
    {
        const auto s_in = ranges(PROCESS, ENTER, me), s_out = ranges(PROCESS, EXIT, me);
        expect(s_in.size() == 2 && s_out.size() == 2 && s_in[0].args == "message=\"a\";" &&
                   s_out[0].internal == s_in[1].internal && s_out[1].internal == s_in[0].internal &&
                   s_out[0].args == "message=\"b\";",
               "start/stop: ENTER at start, EXIT at stop, paired by range id; no record for an unknown id");
        const auto core_start = select(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
                                       ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, ROCPROFILER_CALLBACK_PHASE_EXIT,
                                       me);
        expect(s_out.size() == 2 && core_start.size() == 2 && s_out[1].ret == core_start[0].ret &&
                   s_out[0].ret == core_start[1].ret,
               "the EXIT's return value is the range id roctxRangeStartA returned");
    }
    expect(ranges(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA, ENTER, me).size() == 2 &&
               ranges(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA, EXIT, me).size() == 2,
           "marks: ENTER/EXIT in the range kind too");
    {
        const auto t = ranges(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxGetThreadId, EXIT, me);
        expect(t.size() == 2 && t[0].ret == 0 && t[1].ret == -1, "roctxGetThreadId: return values 0 and -1");
    }
    // The 4 worker threads: per thread, ranges open and close LIFO, 402 each.
    {
        std::lock_guard lk(g_mutex);
        std::map<std::uint64_t, std::vector<const rec*>> by_thread;
        for (const auto& r : g_range)
            if (r.tid != me && r.op == THREAD) by_thread[r.tid].push_back(&r);
        bool nested = by_thread.size() == 4;
        for (auto& [tid, v] : by_thread) {
            std::vector<const rec*> open;
            int ranges_closed = 0;
            for (const rec* r : v) {
                if (r->phase == ENTER) {
                    open.push_back(r);
                } else {
                    nested = nested && !open.empty() && open.back()->internal == r->internal &&
                             r->ret == static_cast<std::int64_t>(open.size()) - 1;
                    if (!open.empty()) open.pop_back();
                    ++ranges_closed;
                }
            }
            nested = nested && open.empty() && ranges_closed == 402;
        }
        expect(nested,
               "4 threads: ranges nest per thread (LIFO pairs, levels), 402 each, no record for their unbalanced pops");
    }
}

// MARKER_CORE_RANGE_API with calls of its own (run after the MARKER_CORE_API checks, which count
// the main thread's calls).
void check_ranges_live() {
    constexpr auto ENTER = ROCPROFILER_CALLBACK_PHASE_ENTER;
    constexpr auto EXIT = ROCPROFILER_CALLBACK_PHASE_EXIT;
    constexpr int THREAD = ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA;
    constexpr int PROCESS = ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA;
    const std::uint64_t me = gettid_now();
    // Across threads: a range started here and stopped on another thread, and the reverse.
    const std::size_t n_before = ranges(PROCESS, EXIT).size();
    const roctx_range_id_t here = roctxRangeStartA("started on main");
    roctx_range_id_t there = 0;
    std::uint64_t other_tid = 0;
    std::thread([&] {
        roctxRangeStop(here);
        there = roctxRangeStartA("started on a worker");
        other_tid = gettid_now();
    }).join();
    roctxRangeStop(there);
    roctxRangeStop(there);  // stopped twice: the second is unknown
    {
        const auto all_in = ranges(PROCESS, ENTER), all_out = ranges(PROCESS, EXIT);
        expect(all_out.size() == n_before + 2, "two cross-thread ranges closed, the repeated stop ignored");
        bool ok = all_in.size() >= 2 && all_out.size() >= 2;
        if (ok) {
            const rec &in1 = all_in[all_in.size() - 2], &in2 = all_in.back();
            const rec &out1 = all_out[all_out.size() - 2], &out2 = all_out.back();
            ok = in1.tid == me && out1.internal == in1.internal && out1.tid == me && out1.user == in1.user &&
                 static_cast<roctx_range_id_t>(out1.ret) == here && in2.tid == other_tid &&
                 out2.internal == in2.internal && out2.tid == other_tid &&
                 static_cast<roctx_range_id_t>(out2.ret) == there;
        }
        expect(ok, "a process range stopped on another thread: EXIT paired with its ENTER, on the starting thread's id");
    }

    // Ranges from a thread's thread_local destructor: one built before the thread's first range
    // is destroyed after roctx's per-thread state would be as a plain thread_local; its
    // push/pop pairs still nest and close (ASan: no freed state read).
    {
        static std::uint64_t exiting_tid = 0;
        struct at_exit {
            ~at_exit() {
                roctxRangePushA("exit outer");
                roctxRangePushA("exit inner");
                roctxRangePop();
                roctxRangePop();
            }
        };
        std::thread([] {
            static thread_local at_exit guard;  // constructed before the thread's first range
            (void)guard;
            exiting_tid = gettid_now();
            roctxRangePushA("running");
            roctxRangePop();
        }).join();
        const auto in = ranges(THREAD, ENTER, exiting_tid), out = ranges(THREAD, EXIT, exiting_tid);
        expect(in.size() == 3 && out.size() == 3 && out[1].internal == in[2].internal &&
                   out[2].internal == in[1].internal && out[1].args == "message=\"exit inner\";" && out[2].ret == 0,
               "ranges pushed and popped from a thread_local destructor at thread exit: paired and nested");
    }

    // The message is copied: the caller's string may be gone when the range closes.
    {
        auto* msg = new std::string("a message on the heap, longer than any small-string buffer");
        roctxRangePushA(msg->c_str());
        delete msg;
        roctxRangePop();
        const auto r = ranges(THREAD, EXIT, me);
        expect(!r.empty() && r.back().args == "message=\"a message on the heap, longer than any small-string buffer\";",
               "a range's EXIT shows its message after the caller freed it");
    }

    // Tracing stopped mid-range: the open range still gets its EXIT; a push made while stopped
    // gets no record and its pop does not close the wrong range.
    const std::size_t before = ranges(THREAD, EXIT, me).size();
    roctxRangePushA("open while traced");
    expect(g_range_ctx.stop() == ROCPROFILER_STATUS_SUCCESS, "stop the range context");
    roctxRangePushA("untraced");
    expect(g_range_ctx.start() == ROCPROFILER_STATUS_SUCCESS, "restart it");
    roctxRangePop();  // closes "untraced": no record
    expect(ranges(THREAD, EXIT, me).size() == before, "the untraced push's pop: no record");
    roctxRangePop();  // closes "open while traced"
    const auto last = ranges(THREAD, EXIT, me);
    expect(last.size() == before + 1 && last.back().args == "message=\"open while traced\";",
           "the traced range closes at its own pop");
}

// Messages a careless program passes while the ranges are traced: unmapped, and not terminated
// before an unreadable page. The range records keep what could be read (the copy used to read
// the caller's string unguarded: SIGSEGV).
void scenario_bad_messages() {
    const long page = ::sysconf(_SC_PAGESIZE);
    auto* two = static_cast<char*>(::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    expect(two != MAP_FAILED, "mmap");
    if (two == MAP_FAILED) return;
    std::memset(two, 'x', page);  // no NUL in the first page
    expect(::mprotect(two + page, page, PROT_NONE) == 0, "mprotect");
    const char* unterminated = two + page - 10;  // ten bytes, then the unreadable page
    // Unreadable: a page kept mapped with no access (an unmapped one could be mapped again by
    // anything in between, ASan's allocator included).
    const char* gone = two + page;
    const std::size_t before = [] {
        std::lock_guard lk(g_mutex);
        return g_range.size();
    }();
    expect(roctxRangePushA(gone) == 0, "push with an unmapped message");
    expect(roctxRangePop() == 0, "its pop");
    expect(roctxRangePushA(unterminated) == 0, "push with an unterminated message");
    expect(roctxRangePop() == 0, "its pop");
    const roctx_range_id_t id = roctxRangeStartA(gone);
    expect(id != 0, "start with an unmapped message");
    roctxRangeStop(id);
    std::lock_guard lk(g_mutex);
    std::vector<std::string> exits;
    for (std::size_t i = before; i < g_range.size(); ++i)
        if (g_range[i].phase == ROCPROFILER_CALLBACK_PHASE_EXIT) exits.push_back(g_range[i].args);
    char invalid[64];
    std::snprintf(invalid, sizeof invalid, "message=\"<invalid pointer %p>\";", static_cast<const void*>(gone));
    expect(exits.size() == 3, "three ranges recorded");
    if (exits.size() == 3) {
        expect(exits[0] == invalid, "an unmapped message is kept as <invalid pointer ...>");
        expect(exits[1] == "message=\"xxxxxxxxxx\";", "an unterminated message is cut at the unreadable page");
        expect(exits[2] == invalid, "the same for a process range");
    }
    ::munmap(two, 2 * page);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    if (g_scenario == "notool") return nullptr;  // decline: no tool in the process
    id->name = "test-markers";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}

int main(int argc, char** argv) {
    g_scenario = argc > 1 ? argv[1] : "traced";
    if (g_scenario == "traced") {
        scenario_traced();
    } else if (g_scenario == "bad_messages") {
        scenario_bad_messages();
    } else if (g_scenario == "notool") {
        check_results();
        std::lock_guard lk(g_mutex);
        expect(g_recs.empty() && g_range.empty() && g_init_records == 0, "no tool: no records");
    } else {
        std::fprintf(stderr, "unknown scenario %s\n", g_scenario.c_str());
        return 2;
    }
    return test_support::finish();
}
