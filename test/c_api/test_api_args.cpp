// test/c_api/test_api_args.cpp — the payload unions' per-function members (rocprofiler-sdk/
// {hsa,marker}/api_args.h) on real records: HSA calls on the software runtime (HSA_TOOLS_LIB =
// libencore-hsa) and roctx calls through libencore-roctx. The program is its own tool; one
// domain per process (doctest --test-case=hsa* / marker*).
//
// For each call: the member read in C++ (data->args.hsa_queue_create.size), the same member
// read by C11 code (api_args_c.c), argument iteration's value and address for that parameter
// in the same record, and what the program passed all agree; retval members equal what the
// program got back.
#include "../support/tool_stub.hpp"

#include "../../examples/hsa/hsa_example.hpp"
#include "api_args_c.h"
#include "api_args_record.hpp"

#include <encore/encore.hpp>
#include <rocprofiler-sdk/hsa/api_id.h>
#include <rocprofiler-sdk/marker/api_id.h>
#include <roctracer/roctx.h>

#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace api_args_test;

namespace {

using hsa_seen = seen<rocprofiler_callback_tracing_hsa_api_data_t>;
using marker_seen = seen<rocprofiler_callback_tracing_marker_api_data_t>;
std::vector<hsa_seen> g_hsa;
std::vector<marker_seen> g_marker;
rocprofiler_status_t g_hsa_configured = ROCPROFILER_STATUS_ERROR, g_marker_configured = ROCPROFILER_STATUS_ERROR;
bool g_started = false;

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    // Whichever library's first call initialized the tool, the other kind may have no producer
    // in this process (a status other than SUCCESS); each test case checks its own kind's.
    g_hsa_configured = rocprofiler_configure_callback_tracing_service(
        ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0,
        [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) { keep(g_hsa, r); }, nullptr);
    g_marker_configured = rocprofiler_configure_callback_tracing_service(
        ctx, ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, nullptr, 0,
        [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) { keep(g_marker, r); }, nullptr);
    g_started = rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS;
    return 0;
}

hsa_status_t find_global_region(hsa_region_t region, void* data) {
    hsa_region_segment_t segment{};
    bool alloc = false;
    hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment);
    hsa_region_get_info(region, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED, &alloc);
    if (segment == HSA_REGION_SEGMENT_GLOBAL && alloc) {
        *static_cast<hsa_region_t*>(data) = region;
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}

constexpr auto ENTER = ROCPROFILER_CALLBACK_PHASE_ENTER;
constexpr auto EXIT = ROCPROFILER_CALLBACK_PHASE_EXIT;

}  // namespace

ENCORE_TEST_TOOL("test-api-args", &tool_init, nullptr)

TEST_CASE("hsa: members of HSA core calls on the software runtime") {
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    REQUIRE(g_started);
    REQUIRE(g_hsa_configured == ROCPROFILER_STATUS_SUCCESS);
    const auto gpus = example::agents(HSA_DEVICE_TYPE_GPU);
    const auto cpus = example::agents(HSA_DEVICE_TYPE_CPU);
    REQUIRE(!gpus.empty());
    REQUIRE(!cpus.empty());

    {
        INFO("hsa_agent_get_info: agent, attribute, value; retval");
        char name[64] = {};
        const hsa_status_t got = hsa_agent_get_info(gpus[0], HSA_AGENT_INFO_NAME, name);
        CHECK(got == HSA_STATUS_SUCCESS);
        const auto r = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_agent_get_info, EXIT);
        REQUIRE(r);
        const auto& a = r->data.args.hsa_agent_get_info;
        CHECK(a.agent.handle == gpus[0].handle);
        CHECK(a.attribute == HSA_AGENT_INFO_NAME);
        CHECK(a.value == static_cast<void*>(name));
        CHECK(c_hsa_agent_get_info_attribute(&r->data) == HSA_AGENT_INFO_NAME);
        CHECK(r->data.retval.hsa_status_t_retval == got);
        CHECK(c_hsa_status_retval(&r->data) == got);
        // Iteration over the same record: the same names, at the members' addresses.
        REQUIRE(r->iterate_status == ROCPROFILER_STATUS_SUCCESS);
        REQUIRE(r->args.size() == 3);
        CHECK(r->args[0].name == "agent");
        CHECK(r->args[0].offset == offset_in_args(*r, a.agent));
        CHECK(r->args[1].name == "attribute");
        CHECK(r->args[1].offset == offset_in_args(*r, a.attribute));
        CHECK(r->args[1].value == "HSA_AGENT_INFO_NAME");
        CHECK(r->args[2].name == "value");
        CHECK(r->args[2].offset == offset_in_args(*r, a.value));
    }

    {
        INFO("a failing call: its status in retval, its bad handle in args");
        const hsa_agent_t bogus{0xdead0};
        std::uint32_t v = 0;
        const hsa_status_t got = hsa_agent_get_info(bogus, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &v);
        CHECK(got != HSA_STATUS_SUCCESS);
        const auto r = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_agent_get_info, EXIT);
        REQUIRE(r);
        CHECK(r->data.args.hsa_agent_get_info.agent.handle == bogus.handle);
        CHECK(r->data.args.hsa_agent_get_info.attribute == HSA_AGENT_INFO_QUEUE_MAX_SIZE);
        CHECK(r->data.retval.hsa_status_t_retval == got);
        CHECK(c_hsa_status_retval(&r->data) == static_cast<int>(got));
    }

    {
        INFO("hsa_queue_create: size, type, segment sizes, queue out-pointer, at ENTER and EXIT");
        hsa_queue_t* q = nullptr;
        const hsa_status_t got = hsa_queue_create(gpus[0], 128, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX,
                                                  UINT32_MAX, &q);
        REQUIRE(got == HSA_STATUS_SUCCESS);
        for (auto phase : {ENTER, EXIT}) {
            const auto r = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_queue_create, phase);
            REQUIRE(r);
            const auto& a = r->data.args.hsa_queue_create;
            CHECK(a.agent.handle == gpus[0].handle);
            CHECK(a.size == 128);
            CHECK(c_hsa_queue_create_size(&r->data) == 128);
            CHECK(a.type == HSA_QUEUE_TYPE_SINGLE);
            CHECK((a.callback == nullptr));
            CHECK(a.data == nullptr);
            CHECK(a.private_segment_size == UINT32_MAX);
            CHECK(a.group_segment_size == UINT32_MAX);
            CHECK(a.queue == &q);
        }
        const auto r = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_queue_create, EXIT);
        REQUIRE(r);
        CHECK(r->data.retval.hsa_status_t_retval == got);
        REQUIRE(r->args.size() == 8);
        const auto* size = arg(*r, "size");
        REQUIRE(size != nullptr);
        CHECK(size->value == "128");
        CHECK(size->offset == offset_in_args(*r, r->data.args.hsa_queue_create.size));
        CHECK(static_cast<std::size_t>(size->offset) == c_hsa_queue_create_size_offset());
        const auto* queue = arg(*r, "queue");
        REQUIRE(queue != nullptr);
        CHECK(queue->offset == offset_in_args(*r, r->data.args.hsa_queue_create.queue));
        CHECK(hsa_queue_destroy(q) == HSA_STATUS_SUCCESS);
        const auto d = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_queue_destroy, EXIT);
        REQUIRE(d);
        CHECK(d->data.args.hsa_queue_destroy.queue == q);
    }

    {
        INFO("hsa_memory_allocate / hsa_memory_free: region, size, ptr");
        hsa_region_t region{};
        CHECK(hsa_agent_iterate_regions(cpus[0], &find_global_region, &region) == HSA_STATUS_INFO_BREAK);
        REQUIRE(region.handle != 0);
        const auto it = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_agent_iterate_regions, EXIT);
        REQUIRE(it);
        CHECK((it->data.args.hsa_agent_iterate_regions.callback == &find_global_region));
        CHECK(it->data.args.hsa_agent_iterate_regions.data == static_cast<void*>(&region));
        CHECK(it->data.retval.hsa_status_t_retval == HSA_STATUS_INFO_BREAK);

        void* p = nullptr;
        REQUIRE(hsa_memory_allocate(region, 3 * 4096, &p) == HSA_STATUS_SUCCESS);
        const auto r = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_memory_allocate, EXIT);
        REQUIRE(r);
        const auto& a = r->data.args.hsa_memory_allocate;
        CHECK(a.region.handle == region.handle);
        CHECK(a.size == 3 * 4096);
        CHECK(c_hsa_memory_allocate_size(&r->data) == 3 * 4096);
        CHECK(a.ptr == &p);
        const auto* size = arg(*r, "size");
        REQUIRE(size != nullptr);
        CHECK(size->value == std::to_string(3 * 4096));
        CHECK(size->offset == offset_in_args(*r, a.size));
        REQUIRE(hsa_memory_free(p) == HSA_STATUS_SUCCESS);
        const auto f = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_memory_free, EXIT);
        REQUIRE(f);
        CHECK(f->data.args.hsa_memory_free.ptr == p);
    }

    {
        INFO("hsa_signal_create / load: value arguments and a non-status retval");
        hsa_signal_t s{};
        REQUIRE(hsa_signal_create(7, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
        const auto c = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_signal_create, EXIT);
        REQUIRE(c);
        CHECK(c->data.args.hsa_signal_create.initial_value == 7);
        CHECK(c->data.args.hsa_signal_create.num_consumers == 0);
        CHECK(c->data.args.hsa_signal_create.signal == &s);
        const hsa_signal_value_t v = hsa_signal_load_relaxed(s);
        CHECK(v == 7);
        const auto l = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_signal_load_relaxed, EXIT);
        REQUIRE(l);
        CHECK(l->data.args.hsa_signal_load_relaxed.signal.handle == s.handle);
        CHECK(l->data.retval.hsa_signal_value_t_retval == v);
        CHECK(hsa_signal_destroy(s) == HSA_STATUS_SUCCESS);
    }

    {
        INFO("a function without parameters has the one-byte no_args member");
        static_assert(sizeof(rocprofiler_hsa_api_args_t{}.hsa_init) == 1);
        static_assert(sizeof(rocprofiler_hsa_api_args_t{}.hsa_init.no_args) == 1);
        // The first hsa_init loads the tools library, so its record may not exist: a nested
        // init is certainly traced.
        REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
        const auto nested = last(g_hsa, ROCPROFILER_HSA_CORE_API_ID_hsa_init, EXIT);
        REQUIRE(nested);
        CHECK(nested->data.retval.hsa_status_t_retval == HSA_STATUS_SUCCESS);
        REQUIRE(nested->iterate_status == ROCPROFILER_STATUS_SUCCESS);
        CHECK(nested->args.empty());
        CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
    }
    CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("marker: members of roctx calls") {
    static const char mark[] = "payload-mark";
    static const char push[] = "payload-push";
    roctxMarkA("first");  // initializes the tool if nothing did yet
    roctxMarkA(mark);
    REQUIRE(g_started);
    REQUIRE(g_marker_configured == ROCPROFILER_STATUS_SUCCESS);
    const auto m = last(g_marker, ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA, EXIT);
    REQUIRE(m);
    CHECK(m->data.args.roctxMarkA.message == mark);  // the pointer the program passed
    CHECK(std::strcmp(c_roctx_mark_message(&m->data), mark) == 0);
    REQUIRE(m->iterate_status == ROCPROFILER_STATUS_SUCCESS);
    REQUIRE(m->args.size() == 1);
    CHECK(m->args[0].name == "message");
    CHECK(m->args[0].offset == offset_in_args(*m, m->data.args.roctxMarkA.message));
    CHECK(m->args[0].value == "\"payload-mark\"");

    const int outer = roctxRangePushA(push);
    const int inner = roctxRangePushA("inner");
    CHECK(inner == outer + 1);
    const auto p = last(g_marker, ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, EXIT);
    REQUIRE(p);
    CHECK(std::strcmp(p->data.args.roctxRangePushA.message, "inner") == 0);
    CHECK(p->data.retval.int32_t_retval == inner);
    CHECK(c_marker_int32_retval(&p->data) == inner);
    CHECK(roctxRangePop() == inner);
    const auto pop = last(g_marker, ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, EXIT);
    REQUIRE(pop);
    CHECK(pop->data.retval.int32_t_retval == inner);
    CHECK(pop->args.empty());
    CHECK(roctxRangePop() == outer);
    {
        std::lock_guard lk(g_mutex);
        int pushes = 0;
        for (const auto& r : g_marker)
            if (r.op == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA && r.phase == EXIT &&
                r.data.args.roctxRangePushA.message == push) {
                ++pushes;
                CHECK(std::strcmp(c_roctx_push_message(&r.data), push) == 0);
                CHECK(r.data.retval.int32_t_retval == outer);
            }
        CHECK(pushes == 1);
    }

    const roctx_range_id_t id = roctxRangeStartA("process-range");
    roctxRangeStop(id);
    const auto start = last(g_marker, ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, EXIT);
    const auto stop = last(g_marker, ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop, ENTER);
    REQUIRE(start);
    REQUIRE(stop);
    CHECK(start->data.retval.roctx_range_id_t_retval == id);
    CHECK(stop->data.args.roctxRangeStop.id == id);
    CHECK(c_marker_args_size() == sizeof(rocprofiler_marker_api_args_t));
}

int main(int argc, char** argv) {
    doctest::Context ctx(argc, argv);
    return ctx.run();
}
