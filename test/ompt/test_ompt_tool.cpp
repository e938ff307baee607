// test/ompt/test_ompt_tool.cpp — libencore-ompt under a fake OpenMP runtime, and the functions
// of rocprofiler-sdk/ompt.h.
//
// The test is the runtime: it asks rocprofiler_ompt_start_tool for encore's registration
// (libencore loads libencore-ompt), initializes it with a lookup of its own (an
// ompt_set_callback that keeps each callback and answers as a runtime would, inquiry functions
// that are markers), then calls every registered callback with arguments it chose. That covers
// what LLVM 14's libomp never calls (device and target callbacks, error, beginend scopes,
// scopes closed out of order by task switches), and checks each record's payload member by
// member. The test is also the encore tool (rocprofiler_force_configure).
#include "../support/stderr_capture.hpp"

#include <doctest/doctest.h>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

struct rec {
    int op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t internal, ancestor, tid, user;
    rocprofiler_callback_tracing_ompt_data_t payload;
    std::vector<std::string> names;
};
std::vector<rec> g_recs;
rocprofiler_context_id_t g_ctx{};
std::uint64_t g_next_user = 100;

int collect(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const, int32_t,
            const char*, const char* name, const char*, int32_t, void* data) {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
}

void on_record(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    rec x{static_cast<int>(r.operation),
          r.phase,
          r.correlation_id.internal,
          r.correlation_id.ancestor,
          r.thread_id,
          0,
          {},
          {}};
    std::memcpy(&x.payload, r.payload, sizeof(x.payload));
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) ud->value = g_next_user++;
    x.user = ud->value;
    rocprofiler_iterate_callback_tracing_kind_operation_args(r, &collect, 1, &x.names);
    g_recs.push_back(std::move(x));
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    REQUIRE(rocprofiler_create_context(&g_ctx) == ROCPROFILER_STATUS_SUCCESS);
    REQUIRE(rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_OMPT, nullptr, 0,
                                                           &on_record, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    return rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

rocprofiler_tool_configure_result_t* configure(uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "test_ompt_tool";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}

// ---- the fake runtime --------------------------------------------------------------------------
std::map<int, void (*)(void)> g_registered;
int g_refuse_event = 33;  // target_emi: answered ompt_set_never, as LLVM 14's libomp does

int fake_set_callback(int event, void (*cb)(void)) {
    if (event <= 0 || event > 37) return 0;  // ompt_set_error
    g_registered[event] = cb;
    return event == g_refuse_event ? 1 /* never */ : 5 /* always */;
}
int fake_get_callback(int event, void (**cb)(void)) {
    auto it = g_registered.find(event);
    if (it == g_registered.end()) return 0;
    *cb = it->second;
    return 1;
}
int fake_num_procs() { return 7; }
ompt_interface_fn_t fake_lookup(const char* name) {
    if (std::strcmp(name, "ompt_set_callback") == 0) return reinterpret_cast<ompt_interface_fn_t>(&fake_set_callback);
    if (std::strcmp(name, "ompt_get_callback") == 0) return reinterpret_cast<ompt_interface_fn_t>(&fake_get_callback);
    if (std::strcmp(name, "ompt_get_num_procs") == 0) return reinterpret_cast<ompt_interface_fn_t>(&fake_num_procs);
    return nullptr;
}
ompt_interface_fn_t lookup_without_set_callback(const char*) { return nullptr; }

template <class Fn>
Fn registered(int event) {
    auto it = g_registered.find(event);
    REQUIRE(it != g_registered.end());
    return reinterpret_cast<Fn>(it->second);
}

std::uint64_t tid() { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

}  // namespace

TEST_CASE("rocprofiler_ompt_is_initialized / is_finalized: a null status is refused, state before start") {
    CHECK(rocprofiler_ompt_is_initialized(nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(rocprofiler_ompt_is_finalized(nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    int s = -1;
    CHECK(rocprofiler_ompt_is_initialized(&s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 0);
    s = -1;
    CHECK(rocprofiler_ompt_is_finalized(&s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 0);
}

ompt_start_tool_result_t* g_tool = nullptr;

TEST_CASE("libencore-ompt under a fake runtime: start and initialize") {
    REQUIRE(rocprofiler_force_configure(&configure) == ROCPROFILER_STATUS_SUCCESS);
    g_tool = rocprofiler_ompt_start_tool(51, "fake runtime");
    REQUIRE(g_tool != nullptr);
    REQUIRE(bool(g_tool->initialize != nullptr));
    REQUIRE(bool(g_tool->finalize != nullptr));
    // The runtime starts one tool: asking again (a second deferring tool) gets none.
    CHECK(rocprofiler_ompt_start_tool(51, "fake runtime") == nullptr);

    // A lookup without ompt_set_callback: the tool declines (returns 0), and says why.
    const std::string why = test_support::stderr_of([&] {
        CHECK(g_tool->initialize(&lookup_without_set_callback, 0, &g_tool->tool_data) == 0);
    });
    CHECK(why.find("no ompt_set_callback") != std::string::npos);
    int s = -1;
    rocprofiler_ompt_is_initialized(&s);
    CHECK(s == 0);

    REQUIRE(g_tool->initialize(&fake_lookup, 0, &g_tool->tool_data) == 1);
    rocprofiler_ompt_is_initialized(&s);
    CHECK(s == 1);
    // Every OMPT callback with an operation of its own was registered: 30 events.
    CHECK(g_registered.size() == 30);
    for (int e : {1,  2,  3,  4,  5,  6,  7,  12, 13, 14, 16, 17, 18, 19, 20,
                  21, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 37})
        CHECK(g_registered.count(e) == 1);
    // Not traced (the reference has no operation for them): device unload, target map, the
    // non-EMI target callbacks, control_tool.
    for (int e : {8, 9, 10, 11, 15, 22, 36}) CHECK(g_registered.count(e) == 0);

    // The callback_functions record came at initialize, with the runtime's entry points.
    REQUIRE(g_recs.size() == 1);
    CHECK(g_recs[0].op == ROCPROFILER_OMPT_ID_callback_functions);
    CHECK(g_recs[0].phase == ROCPROFILER_CALLBACK_PHASE_NONE);
    CHECK(bool(g_recs[0].payload.args.callback_functions.ompt_get_num_procs == &fake_num_procs));
    CHECK(bool(g_recs[0].payload.args.callback_functions.ompt_get_thread_data == nullptr));
    CHECK(g_recs[0].names == std::vector<std::string>{"callback_functions"});
    g_recs.clear();
}

TEST_CASE("libencore-ompt under a fake runtime: every operation's records") {
    REQUIRE(g_tool != nullptr);
    g_recs.clear();
    ompt_data_t thread_data{}, parallel_data{}, task_a{}, task_b{}, target_data{};
    ompt_frame_t frame{};
    const void* ra = reinterpret_cast<const void*>(0x1234);

    SUBCASE("single callbacks: one NONE record each, arguments by name and in the union") {
        registered<void (*)(ompt_thread_t, ompt_data_t*)>(1)(ompt_thread_worker, &thread_data);
        registered<void (*)(ompt_data_t*, const ompt_frame_t*, ompt_data_t*, unsigned, int, const void*)>(3)(
            &task_a, &frame, &parallel_data, 4, 0x80000001, ra);
        registered<void (*)(ompt_mutex_t, unsigned, unsigned, ompt_wait_id_t, const void*)>(26)(ompt_mutex_critical, 0,
                                                                                                2, 77, ra);
        registered<void (*)(int, const char*, ompt_device_t*, ompt_function_lookup_t, const char*)>(12)(
            3, "fake-gpu", nullptr, &fake_lookup, "docs");
        registered<void (*)(int, const char*, std::int64_t, void*, std::size_t, void*, void*, std::uint64_t)>(14)(
            3, "image.so", 64, nullptr, 4096, nullptr, nullptr, 9);
        registered<void (*)(ompt_data_t*, ompt_data_t*, ompt_dispatch_t, ompt_data_t)>(32)(&parallel_data, &task_a,
                                                                                           ompt_dispatch_iteration,
                                                                                           ompt_data_t{.value = 42});
        registered<void (*)(ompt_severity_t, const char*, std::size_t, const void*)>(37)(ompt_warning, "careful", 7, ra);
        registered<void (*)(int)>(13)(3);
        REQUIRE(g_recs.size() == 8);
        for (const auto& r : g_recs) {
            CHECK(r.phase == ROCPROFILER_CALLBACK_PHASE_NONE);
            CHECK(r.tid == tid());
            CHECK(r.internal != 0);
            CHECK(r.payload.size == sizeof(rocprofiler_callback_tracing_ompt_data_t));
        }
        CHECK(g_recs[0].op == ROCPROFILER_OMPT_ID_thread_begin);
        CHECK(g_recs[0].payload.args.thread_begin.thread_type == ompt_thread_worker);
        CHECK(g_recs[0].payload.args.thread_begin.thread_data == &thread_data);
        CHECK(g_recs[0].names == std::vector<std::string>{"thread_type", "thread_data"});
        CHECK(g_recs[1].op == ROCPROFILER_OMPT_ID_parallel_begin);
        CHECK(g_recs[1].payload.args.parallel_begin.encountering_task_frame == &frame);
        CHECK(g_recs[1].payload.args.parallel_begin.requested_parallelism == 4);
        CHECK(g_recs[1].payload.args.parallel_begin.flags == static_cast<int>(0x80000001));
        CHECK(g_recs[1].payload.args.parallel_begin.codeptr_ra == ra);
        CHECK(g_recs[2].op == ROCPROFILER_OMPT_ID_mutex_acquire);
        CHECK(g_recs[2].payload.args.mutex_acquire.kind == ompt_mutex_critical);
        CHECK(g_recs[2].payload.args.mutex_acquire.impl == 2);
        CHECK(g_recs[2].payload.args.mutex_acquire.wait_id == 77);
        CHECK(g_recs[3].op == ROCPROFILER_OMPT_ID_device_initialize);
        CHECK(std::string(g_recs[3].payload.args.device_initialize.type) == "fake-gpu");
        CHECK(bool(g_recs[3].payload.args.device_initialize.lookup == &fake_lookup));
        CHECK(g_recs[4].op == ROCPROFILER_OMPT_ID_device_load);
        CHECK(g_recs[4].payload.args.device_load.bytes == 4096);
        CHECK(g_recs[4].payload.args.device_load.module_id == 9);
        CHECK(g_recs[4].names.size() == 8);
        CHECK(g_recs[5].op == ROCPROFILER_OMPT_ID_dispatch);
        CHECK(g_recs[5].payload.args.dispatch.instance.value == 42);
        CHECK(g_recs[6].op == ROCPROFILER_OMPT_ID_error);
        CHECK(g_recs[6].payload.args.error.length == 7);
        CHECK(g_recs[7].op == ROCPROFILER_OMPT_ID_device_finalize);
        CHECK(g_recs[7].payload.args.device_finalize.device_num == 3);
        // Each record its own correlation id.
        CHECK(g_recs[0].internal != g_recs[1].internal);
    }

    SUBCASE("scope callbacks: ENTER at begin, EXIT at end, one correlation and user_data") {
        using work_fn = void (*)(ompt_work_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, std::uint64_t,
                                 const void*);
        using sync_fn = void (*)(ompt_sync_region_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*);
        auto work = registered<work_fn>(20);
        auto sync = registered<sync_fn>(23);
        work(ompt_work_loop, ompt_scope_begin, &parallel_data, &task_a, 100, ra);
        sync(ompt_sync_region_barrier_explicit, ompt_scope_begin, &parallel_data, &task_a, ra);  // nested in work
        sync(ompt_sync_region_barrier_explicit, ompt_scope_end, &parallel_data, &task_a, ra);
        work(ompt_work_loop, ompt_scope_end, &parallel_data, &task_a, 100, ra);
        REQUIRE(g_recs.size() == 4);
        CHECK(g_recs[0].op == ROCPROFILER_OMPT_ID_work);
        CHECK(g_recs[0].phase == ROCPROFILER_CALLBACK_PHASE_ENTER);
        CHECK(g_recs[0].payload.args.work.count == 100);
        CHECK(g_recs[0].payload.args.work.endpoint == ompt_scope_begin);
        CHECK(g_recs[3].phase == ROCPROFILER_CALLBACK_PHASE_EXIT);
        CHECK(g_recs[3].payload.args.work.endpoint == ompt_scope_end);
        CHECK(g_recs[3].internal == g_recs[0].internal);
        CHECK(g_recs[3].user == g_recs[0].user);
        CHECK(g_recs[1].op == ROCPROFILER_OMPT_ID_sync_region);
        CHECK(g_recs[2].internal == g_recs[1].internal);
        CHECK(g_recs[2].user == g_recs[1].user);
        // The barrier's ancestor is the open work scope around it.
        CHECK(g_recs[1].ancestor == g_recs[0].internal);
        CHECK(g_recs[1].internal != g_recs[0].internal);
    }

    SUBCASE("scopes closed out of order (task switches) pair by task; beginend gives both records; a bad endpoint none") {
        using sync_fn = void (*)(ompt_sync_region_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*);
        auto group = registered<sync_fn>(23);
        group(ompt_sync_region_taskgroup, ompt_scope_begin, &parallel_data, &task_a, ra);
        group(ompt_sync_region_taskgroup, ompt_scope_begin, &parallel_data, &task_b, ra);
        group(ompt_sync_region_taskgroup, ompt_scope_end, &parallel_data, &task_a, ra);  // task a's, not the innermost
        group(ompt_sync_region_taskgroup, ompt_scope_end, &parallel_data, &task_b, ra);
        group(ompt_sync_region_taskwait, ompt_scope_beginend, &parallel_data, &task_a, ra);
        // An endpoint OpenMP does not define: no record (nor a crash). Called as a C runtime
        // would, with an int (a C++ enum cannot hold 7).
        reinterpret_cast<void (*)(int, int, ompt_data_t*, ompt_data_t*, const void*)>(group)(ompt_sync_region_taskwait,
                                                                                             7, &parallel_data, &task_a,
                                                                                             ra);
        REQUIRE(g_recs.size() == 6);
        CHECK(g_recs[2].internal == g_recs[0].internal);
        CHECK(g_recs[2].payload.args.sync_region.task_data == &task_a);
        CHECK(g_recs[3].internal == g_recs[1].internal);
        CHECK(g_recs[4].phase == ROCPROFILER_CALLBACK_PHASE_ENTER);
        CHECK(g_recs[5].phase == ROCPROFILER_CALLBACK_PHASE_EXIT);
        CHECK(g_recs[5].internal == g_recs[4].internal);
        CHECK(g_recs[5].payload.args.sync_region.kind == ompt_sync_region_taskwait);
    }

    SUBCASE("target callbacks (EMI): paired by target region and host operation id") {
        auto target = registered<void (*)(ompt_target_t, ompt_scope_endpoint_t, int, ompt_data_t*, ompt_data_t*,
                                          ompt_data_t*, const void*)>(33);
        auto data_op = registered<void (*)(ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, ompt_id_t*,
                                           ompt_target_data_op_t, void*, int, void*, int, std::size_t, const void*)>(34);
        auto submit = registered<void (*)(ompt_scope_endpoint_t, ompt_data_t*, ompt_id_t*, unsigned)>(35);
        ompt_id_t host_op = 0;
        int buffer[4] = {};
        target(ompt_target, ompt_scope_begin, 1, &task_a, nullptr, &target_data, ra);
        data_op(ompt_scope_begin, nullptr, &target_data, &host_op, ompt_target_data_transfer_to_device, buffer, 0,
                nullptr, 1, sizeof buffer, ra);
        data_op(ompt_scope_end, nullptr, &target_data, &host_op, ompt_target_data_transfer_to_device, buffer, 0,
                nullptr, 1, sizeof buffer, ra);
        submit(ompt_scope_begin, &target_data, &host_op, 8);
        submit(ompt_scope_end, &target_data, &host_op, 8);
        target(ompt_target, ompt_scope_end, 1, &task_a, nullptr, &target_data, ra);
        REQUIRE(g_recs.size() == 6);
        CHECK(g_recs[0].op == ROCPROFILER_OMPT_ID_target_emi);
        CHECK(g_recs[0].payload.args.target_emi.device_num == 1);
        CHECK(g_recs[0].payload.args.target_emi.target_data == &target_data);
        CHECK(g_recs[5].internal == g_recs[0].internal);
        CHECK(g_recs[1].op == ROCPROFILER_OMPT_ID_target_data_op_emi);
        CHECK(g_recs[1].payload.args.target_data_op_emi.bytes == sizeof buffer);
        CHECK(g_recs[1].payload.args.target_data_op_emi.src_address == buffer);
        CHECK(reinterpret_cast<void*>(g_recs[1].payload.args.target_data_op_emi.host_op_id) == &host_op);
        CHECK(g_recs[1].ancestor == g_recs[0].internal);
        CHECK(g_recs[2].internal == g_recs[1].internal);
        CHECK(g_recs[3].op == ROCPROFILER_OMPT_ID_target_submit_emi);
        CHECK(g_recs[3].payload.args.target_submit_emi.requested_num_teams == 8);
        CHECK(g_recs[4].internal == g_recs[3].internal);
        CHECK(g_recs[1].names.size() == 11);
    }

    SUBCASE("an end without its begin: no EXIT, one warning") {
        auto masked = registered<void (*)(ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*)>(21);
        const std::string err = test_support::stderr_of([&] {
            masked(ompt_scope_end, &parallel_data, &task_a, ra);
            masked(ompt_scope_end, &parallel_data, &task_a, ra);
        });
        CHECK(g_recs.empty());
        CHECK(test_support::occurrences(err, "had no begin") == 1);
    }

    SUBCASE("a stopped context gets nothing; restarted, it does again") {
        REQUIRE(rocprofiler_stop_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS);
        registered<void (*)(ompt_data_t*, const void*)>(29)(&thread_data, ra);
        CHECK(g_recs.empty());
        REQUIRE(rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS);
        registered<void (*)(ompt_data_t*, const void*)>(29)(&thread_data, ra);
        REQUIRE(g_recs.size() == 1);
        CHECK(g_recs[0].op == ROCPROFILER_OMPT_ID_flush);
    }

    g_recs.clear();
}

TEST_CASE("rocprofiler_ompt_is_finalized after the runtime finalizes the tool; repeated queries agree") {
    REQUIRE(g_tool != nullptr);
    int s = -1;
    rocprofiler_ompt_is_finalized(&s);
    CHECK(s == 0);
    g_tool->finalize(&g_tool->tool_data);
    for (int i = 0; i < 2; ++i) {
        s = -1;
        CHECK(rocprofiler_ompt_is_finalized(&s) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(s == 1);
        s = -1;
        CHECK(rocprofiler_ompt_is_initialized(&s) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(s == 1);
    }
    CHECK(rocprofiler_ompt_is_finalized(nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
}
