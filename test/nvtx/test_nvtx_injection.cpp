// test/nvtx/test_nvtx_injection.cpp — libencore-nvtx's side of NVTX's injection protocol, driven
// the way a copy of NVTX drives it (InitializeInjectionNvtx2 with an export table), with bad
// tables and bad arguments; the program is its own tool, so the MARKER_CORE_API records the
// attached functions make are checked too (messages from ASCII, wide and registered strings).
#include "../support/tool_stub.hpp"

#include "nvtx/nvtx_abi.hpp"

#include <doctest/doctest.h>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/marker/api_id.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace abi = encore::nvtx::abi;

extern "C" int InitializeInjectionNvtx2(abi::get_export_table_t);

namespace {

// ---- the records ---------------------------------------------------------------------------
std::mutex g_mutex;
std::vector<std::pair<rocprofiler_tracing_operation_t, std::string>> g_records;  // op, first argument

void on_marker(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_ENTER) return;
    std::string first;
    rocprofiler_iterate_callback_tracing_kind_operation_args(
        r,
        [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const, int32_t,
           const char*, const char*, const char* value, int32_t, void* data) {
            if (n == 0) *static_cast<std::string*>(data) = value;
            return 0;
        },
        1, &first);
    std::lock_guard lk(g_mutex);
    g_records.emplace_back(r.operation, first);
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, nullptr, 0,
                                                       &on_marker, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

std::vector<std::pair<rocprofiler_tracing_operation_t, std::string>> take_records() {
    std::lock_guard lk(g_mutex);
    return std::exchange(g_records, {});
}

// ---- a copy of NVTX, as the injection sees it ------------------------------------------------
struct nvtx_copy {
    // The slots (function pointers) by callback id, and the table of pointers to them.
    abi::function_pointer core[abi::core_name_os_thread_w + 1]{};
    abi::function_pointer core2[abi::core2_initialize + 1]{};
    abi::function_pointer* core_table[abi::core_name_os_thread_w + 2]{};  // +1: a null end
    abi::function_pointer* core2_table[abi::core2_initialize + 2]{};
    unsigned core_size = abi::core_name_os_thread_w + 1, core2_size = abi::core2_initialize + 1;
    bool has_core = true, has_core2 = true;
    nvtx_copy() {
        for (unsigned i = 1; i <= abi::core_name_os_thread_w; ++i) core_table[i] = &core[i];
        for (unsigned i = 1; i <= abi::core2_initialize; ++i) core2_table[i] = &core2[i];
    }
    template <class F>
    F fn(unsigned id, bool domain = false) const {
        return reinterpret_cast<F>(domain ? core2[id] : core[id]);
    }
};
nvtx_copy* g_copy = nullptr;  // the one the export table below serves
abi::export_table_callbacks g_callbacks{sizeof(abi::export_table_callbacks),
                                        [](abi::module m, abi::function_table* out, unsigned* size) {
                                            if (m == abi::module_core && g_copy->has_core) {
                                                *out = g_copy->core_table;
                                                *size = g_copy->core_size;
                                                return 1;
                                            }
                                            if (m == abi::module_core2 && g_copy->has_core2) {
                                                *out = g_copy->core2_table;
                                                *size = g_copy->core2_size;
                                                return 1;
                                            }
                                            return 0;
                                        }};
const void* export_table(std::uint32_t id) { return id == abi::etid_callbacks ? &g_callbacks : nullptr; }

bool filled(abi::function_pointer f) { return f != nullptr; }

int init(nvtx_copy& c) {
    g_copy = &c;
    return InitializeInjectionNvtx2(&export_table);
}

}  // namespace

ENCORE_TEST_TOOL("test_nvtx_injection", &tool_init, nullptr)

TEST_CASE("a missing or unusable export table is refused, and nothing is written") {
    CHECK(InitializeInjectionNvtx2(nullptr) == 0);
    CHECK(InitializeInjectionNvtx2([](std::uint32_t) -> const void* { return nullptr; }) == 0);
    static const abi::export_table_callbacks short_table{sizeof(std::size_t), nullptr};
    CHECK(InitializeInjectionNvtx2([](std::uint32_t) -> const void* { return &short_table; }) == 0);
    static const abi::export_table_callbacks no_function{sizeof(abi::export_table_callbacks), nullptr};
    CHECK(InitializeInjectionNvtx2([](std::uint32_t) -> const void* { return &no_function; }) == 0);
    nvtx_copy c;
    c.has_core = c.has_core2 = false;  // a copy that knows neither module
    CHECK(init(c) == 0);
    for (auto* f : c.core) CHECK_FALSE(filled(f));
}

TEST_CASE("the core and domain slots are filled; categories, resources and other modules are not") {
    nvtx_copy c;
    REQUIRE(init(c) == 1);
    for (unsigned id :
         {abi::core_mark_ex, abi::core_mark_a, abi::core_mark_w, abi::core_range_start_ex, abi::core_range_start_a,
          abi::core_range_start_w, abi::core_range_end, abi::core_range_push_ex, abi::core_range_push_a,
          abi::core_range_push_w, abi::core_range_pop, abi::core_name_os_thread_a, abi::core_name_os_thread_w})
        CHECK_MESSAGE(filled(c.core[id]), "core slot ", id);
    CHECK_FALSE(filled(c.core[abi::core_name_category_a]));
    CHECK_FALSE(filled(c.core[abi::core_name_category_w]));
    for (unsigned id : {abi::core2_domain_mark_ex, abi::core2_domain_range_push_ex, abi::core2_domain_range_pop,
                        abi::core2_domain_register_string_a, abi::core2_domain_create_a, abi::core2_initialize})
        CHECK_MESSAGE(filled(c.core2[id]), "core2 slot ", id);
    CHECK_FALSE(filled(c.core2[abi::core2_domain_resource_create]));
    CHECK_FALSE(filled(c.core2[abi::core2_domain_name_category_a]));
}

TEST_CASE("an older NVTX with fewer slots, or a null slot pointer, gets only what fits") {
    nvtx_copy c;
    c.core_size = abi::core_mark_w;  // ids 1 and 2 only
    c.has_core2 = false;             // NVTX v1: no domains
    c.core_table[abi::core_mark_ex] = nullptr;
    REQUIRE(init(c) == 1);
    CHECK(filled(c.core[abi::core_mark_a]));
    CHECK_FALSE(filled(c.core[abi::core_mark_ex]));  // its slot pointer was null: skipped
    for (unsigned id = abi::core_mark_w; id <= abi::core_name_os_thread_w; ++id) CHECK_FALSE(filled(c.core[id]));
}

TEST_CASE("every copy of NVTX in a process is attached (repeated initialization)") {
    nvtx_copy a, b;
    REQUIRE(init(a) == 1);
    REQUIRE(init(b) == 1);
    CHECK((a.core[abi::core_range_push_a] == b.core[abi::core_range_push_a]));
    CHECK(filled(b.core[abi::core_range_push_a]));
}

TEST_CASE("ranges and marks become MARKER_CORE_API records with their messages") {
    nvtx_copy c;
    REQUIRE(init(c) == 1);
    take_records();
    const auto push_a = c.fn<int (*)(const char*)>(abi::core_range_push_a);
    const auto push_w = c.fn<int (*)(const wchar_t*)>(abi::core_range_push_w);
    const auto push_ex = c.fn<int (*)(const abi::event_attributes*)>(abi::core_range_push_ex);
    const auto pop = c.fn<int (*)()>(abi::core_range_pop);
    const auto mark_a = c.fn<void (*)(const char*)>(abi::core_mark_a);
    const auto mark_ex = c.fn<void (*)(const abi::event_attributes*)>(abi::core_mark_ex);
    const auto start_a = c.fn<abi::range_id (*)(const char*)>(abi::core_range_start_a);
    const auto end = c.fn<void (*)(abi::range_id)>(abi::core_range_end);
    using domain_t = const abi::domain_registration*;
    const auto create = c.fn<domain_t (*)(const char*)>(abi::core2_domain_create_a, true);
    const auto reg = c.fn<const abi::string_registration* (*)(domain_t, const char*)>(abi::core2_domain_register_string_a,
                                                                                      true);
    const auto dpush = c.fn<int (*)(domain_t, const abi::event_attributes*)>(abi::core2_domain_range_push_ex, true);
    const auto dpop = c.fn<int (*)(domain_t)>(abi::core2_domain_range_pop, true);

    CHECK(push_a("outer") == 0);  // NVTX's push returns the zero-based level, as roctx's
    CHECK(push_w(L"wide \u00fc \U0001F600") == 1);
    abi::event_attributes attr{};
    attr.version = 3;
    attr.size = sizeof(attr);
    attr.message_type = abi::message_ascii;
    attr.message.ascii = "ex";
    CHECK(push_ex(&attr) == 2);
    CHECK(pop() == 2);
    CHECK(pop() == 1);
    CHECK(pop() == 0);
    CHECK(pop() == -1);  // unbalanced: nothing open
    const domain_t d = create("domain");
    REQUIRE(d != nullptr);
    attr.message_type = abi::message_registered;
    attr.message.registered = reg(d, "registered");
    REQUIRE(attr.message.registered != nullptr);
    CHECK(dpush(d, &attr) == 0);
    CHECK(dpop(d) == 0);
    const abi::range_id id = start_a("process range");
    CHECK(id != 0);
    end(id);
    end(id);  // twice, and an id never started: no record, no crash
    end(0);
    mark_a("mark");
    // Bad input: null messages and attributes, a struct too short for its message, an unknown
    // message type, a null registered handle, invalid code points: records with "" or the text
    // that could be converted, never a crash.
    mark_a(nullptr);
    mark_ex(nullptr);
    abi::event_attributes bad{};
    bad.size = 8;
    bad.message_type = abi::message_ascii;
    bad.message.ascii = "past the struct's size";
    mark_ex(&bad);
    bad.size = sizeof(bad);
    bad.message_type = 77;
    mark_ex(&bad);
    bad.message_type = abi::message_registered;
    bad.message.registered = nullptr;
    mark_ex(&bad);
    const wchar_t invalid[] = {static_cast<wchar_t>(0xD800), static_cast<wchar_t>(0x110000), L'x', 0};
    CHECK(push_w(invalid) == 0);
    CHECK(pop() == 0);
    CHECK(push_a(nullptr) == 0);
    CHECK(pop() == 0);
    CHECK(create(nullptr) != nullptr);
    CHECK(reg(d, nullptr) != nullptr);

    using R = std::pair<rocprofiler_tracing_operation_t, std::string>;
    const auto push = ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA;
    const auto mark = ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA;
    std::vector<R> pushes, marks;
    int pops = 0, starts = 0, stops = 0;
    for (auto& r : take_records()) {
        if (r.first == push) pushes.push_back(r);
        if (r.first == mark) marks.push_back(r);
        pops += r.first == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop;
        starts += r.first == ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA;
        stops += r.first == ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop;
    }
    // (String arguments print quoted.)
    REQUIRE(pushes.size() == 6);
    CHECK(pushes[0].second == "\"outer\"");
    CHECK(pushes[1].second == "\"wide \u00fc \U0001F600\"");  // UTF-8
    CHECK(pushes[2].second == "\"ex\"");
    CHECK(pushes[3].second == "\"registered\"");
    CHECK(pushes[4].second == "\"\uFFFD\uFFFDx\"");
    CHECK(pushes[5].second == "\"\"");
    CHECK(pops == 7);  // every pop call is a record, the unbalanced one too
    CHECK(starts == 1);
    CHECK(stops == 3);
    REQUIRE(marks.size() == 6);
    CHECK(marks[0].second == "\"mark\"");
    for (std::size_t i = 1; i < marks.size(); ++i) CHECK(marks[i].second == "\"\"");
}
