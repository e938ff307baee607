// test/trace/test_rocpd.cpp — the rocpd writer (src/trace/rocpd.hpp): a database of a small run,
// read back through the views AMD's tools read (kernels, regions, region_args, top_kernels,
// memory_copies, ...), and the writer's refusals (a missing directory, an existing file, a record
// naming an unknown agent, values outside the schema's enumerations).
#include "../../src/trace/rocpd.hpp"

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace rp = encore::trace::rocpd;
namespace fs = std::filesystem;

namespace {

using table = std::vector<std::vector<std::string>>;

// A fresh directory per test, removed afterwards.
struct temp_dir {
    fs::path path;
    temp_dir() {
        std::string tmpl = (fs::temp_directory_path() / "encore_rocpd_XXXXXX").string();
        REQUIRE(mkdtemp(tmpl.data()) != nullptr);
        path = tmpl;
    }
    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
};

// Every row of a query, as text ("NULL" for NULL); fails the test on an SQL error.
table query(sqlite3* db, const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
    INFO(sql << ": " << sqlite3_errmsg(db));
    REQUIRE(rc == SQLITE_OK);
    table out;
    int step = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int c = 0; c < sqlite3_column_count(s); ++c) {
            const auto* text = sqlite3_column_text(s, c);
            row.emplace_back(text ? reinterpret_cast<const char*>(text) : "NULL");
        }
        out.push_back(std::move(row));
    }
    CHECK(step == SQLITE_DONE);
    sqlite3_finalize(s);
    return out;
}

struct read_only_db {
    sqlite3* db = nullptr;
    explicit read_only_db(const fs::path& p) {
        REQUIRE(sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    }
    ~read_only_db() { sqlite3_close(db); }
    read_only_db(const read_only_db&) = delete;
    read_only_db& operator=(const read_only_db&) = delete;
    table operator()(const std::string& sql) const { return query(db, sql); }
};

rp::process_info test_process() {
    rp::process_info p;
    p.pid = 4242;
    p.ppid = 4241;
    p.start_ns = 1'000;
    p.end_ns = 900'000;
    p.command = "./vector_add --size 1024";
    p.machine_id = "0123456789abcdef0123456789abcdef";
    p.hostname = "node7";
    p.system_name = "Linux";
    p.release = "6.1.0";
    p.environment_json = R"({"HSA_TOOLS_LIB":"libencore-hsa.so"})";
    return p;
}

constexpr std::uint64_t cpu = 100, gpu = 200;  // agent handles
constexpr std::uint64_t main_tid = 4242, worker_tid = 4250;

// The run the tests read back: 2 agents, 2 threads, 3 kernels dispatched 4 times, HSA calls
// with arguments, a roctx range and a roctx mark, 2 copies, 3 allocations.
void write_run(rp::writer& w) {
    CHECK(w.add_agent({.handle = cpu,
                       .type = "CPU",
                       .absolute_index = 0,
                       .logical_index = 0,
                       .type_index = 0,
                       .name = "AMD EPYC 9654",
                       .vendor_name = "CPU"}));
    CHECK(w.add_agent({.handle = gpu,
                       .type = "GPU",
                       .absolute_index = 1,
                       .logical_index = 1,
                       .type_index = 0,
                       .uuid = 77,
                       .name = "gfx942",
                       .model_name = "aldebaran",
                       .vendor_name = "AMD",
                       .product_name = "AMD Instinct MI300X"}));
    CHECK(w.add_thread({.tid = main_tid, .name = "vector_add"}));
    CHECK(w.add_thread({.tid = worker_tid, .name = "worker"}));
    CHECK(w.add_queue(5, "Queue 0"));
    CHECK(w.add_stream(0, "null stream"));  // renames the default stream
    CHECK(w.add_code_object({.code_object_id = 1,
                             .agent = gpu,
                             .uri = "file:///app/kernels.co#offset=0&size=4096",
                             .load_base = 0x7000,
                             .load_size = 4096,
                             .storage_type = "FILE",
                             .size = 4096}));
    CHECK(w.add_kernel_symbol({.kernel_id = 1,
                               .code_object_id = 1,
                               .kernel_name = "_Z10vector_addPfS_S_.kd",
                               .display_name = "vector_add(float*, float*, float*)",
                               .kernel_object = 0xdead,
                               .group_segment_size = 64,
                               .sgpr_count = 16,
                               .arch_vgpr_count = 8}));
    CHECK(w.add_kernel_symbol(
        {.kernel_id = 2, .code_object_id = 1, .kernel_name = "_Z5scalePff.kd", .display_name = "scale(float*, float)"}));
    CHECK(w.add_kernel_symbol(
        {.kernel_id = 3, .code_object_id = 1, .kernel_name = "_Z4zeroPf.kd", .display_name = "zero(float*)"}));

    rp::region create{.tid = main_tid,
                      .start_ns = 10'000,
                      .end_ns = 12'000,
                      .corr = {1, 0, 0},
                      .category = "HSA_CORE_API",
                      .name = "hsa_queue_create"};
    create.args = {{0, "hsa_agent_t", "agent", "{handle=0x1}"},
                   {1, "uint32_t", "size", "4096"},
                   {2, "hsa_queue_type32_t", "type", "HSA_QUEUE_TYPE_MULTI"}};
    CHECK(w.add_region(create));
    CHECK(w.add_region({.tid = worker_tid,
                        .start_ns = 13'000,
                        .end_ns = 13'500,
                        .corr = {2, 0, 0},
                        .category = "HSA_CORE_API",
                        .name = "hsa_signal_create",
                        .args = {{0, "hsa_signal_value_t", "initial_value", "1"}}}));
    // roctxRangePush/Pop as rocprofv3 records it: one range, the text in the event's extdata.
    CHECK(w.add_region({.tid = main_tid,
                        .start_ns = 14'000,
                        .end_ns = 60'000,
                        .corr = {3, 0, 0},
                        .category = "MARKER_CORE_RANGE_API",
                        .name = "roctxRangePushA",
                        .message = "compute"}));
    // roctxMark: an instant, written as a sample.
    CHECK(w.add_region({.tid = main_tid,
                        .start_ns = 15'000,
                        .end_ns = 15'000,
                        .corr = {4, 0, 0},
                        .category = "MARKER_CORE_API",
                        .name = "roctxMarkA",
                        .message = "checkpoint \"A\""}));

    CHECK(w.add_dispatch({.tid = main_tid,
                          .agent = gpu,
                          .kernel_id = 1,
                          .dispatch_id = 1,
                          .queue_id = 5,
                          .start_ns = 20'000,
                          .end_ns = 30'000,
                          .corr = {5, 5, 0},
                          .group_segment_size = 64,
                          .workgroup = {256, 1, 1},
                          .grid = {1024, 1, 1}}));
    CHECK(w.add_dispatch({.tid = main_tid,
                          .agent = gpu,
                          .kernel_id = 1,
                          .dispatch_id = 2,
                          .queue_id = 5,
                          .start_ns = 31'000,
                          .end_ns = 41'000,
                          .corr = {6, 6, 0},
                          .workgroup = {256, 1, 1},
                          .grid = {1024, 1, 1}}));
    CHECK(w.add_dispatch({.tid = worker_tid,
                          .agent = gpu,
                          .kernel_id = 2,
                          .dispatch_id = 3,
                          .start_ns = 42'000,
                          .end_ns = 47'000,
                          .corr = {7, 7, 0},
                          .workgroup = {64, 4, 1},
                          .grid = {512, 512, 1}}));
    CHECK(w.add_dispatch({.tid = worker_tid,
                          .agent = gpu,
                          .kernel_id = 3,
                          .dispatch_id = 4,
                          .start_ns = 48'000,
                          .end_ns = 50'000,
                          .corr = {8, 8, 0},
                          .workgroup = {32, 2, 2},
                          .grid = {64, 8, 4}}));

    CHECK(w.add_copy({.tid = main_tid,
                      .start_ns = 16'000,
                      .end_ns = 19'000,
                      .corr = {9, 9, 0},
                      .dst_agent = gpu,
                      .src_agent = cpu,
                      .dst_address = 0x9000,
                      .src_address = 0x1000,
                      .size = 4096,
                      .name = "MEMORY_COPY_HOST_TO_DEVICE"}));
    CHECK(w.add_copy({.tid = main_tid,
                      .start_ns = 51'000,
                      .end_ns = 52'000,
                      .corr = {10, 10, 0},
                      .dst_agent = cpu,
                      .src_agent = gpu,
                      .dst_address = 0x1000,
                      .src_address = 0x9000,
                      .size = 4096,
                      .name = "MEMORY_COPY_DEVICE_TO_HOST"}));

    CHECK(w.add_allocation({.tid = main_tid,
                            .start_ns = 11'000,
                            .end_ns = 11'500,
                            .corr = {11, 0, 0},
                            .agent = gpu,
                            .address = 0x9000,
                            .size = 1 << 20,
                            .type = "ALLOC",
                            .level = "REAL"}));
    CHECK(w.add_allocation({.tid = main_tid,
                            .start_ns = 70'000,
                            .end_ns = 70'100,
                            .corr = {12, 0, 0},
                            .address = 0x9000,
                            .type = "FREE",
                            .level = "REAL"}));
    CHECK(w.add_allocation({.tid = worker_tid,
                            .start_ns = 42'500,
                            .end_ns = 42'600,
                            .corr = {13, 0, 0},
                            .agent = gpu,
                            .size = 65536,
                            .queue_id = 5,
                            .type = "ALLOC",
                            .level = "SCRATCH",
                            .flags = 1}));
}

}  // namespace

// Query results print as rows in failure messages.
template <>
struct doctest::StringMaker<table> {
    static doctest::String convert(const table& t) {
        std::string out = "{";
        for (const auto& row : t) {
            out += "\n  {";
            for (const auto& v : row) out += "\"" + v + "\", ";
            out += "}";
        }
        return (out + "}").c_str();
    }
};

TEST_CASE("a run read back through the views AMD's tools read") {
    temp_dir dir;
    const fs::path path = dir.path / "4242_results.db";
    std::string err;
    auto w = rp::writer::open(path.string(), test_process(), &err);
    REQUIRE_MESSAGE(w, err);
    const std::string uuid = w->uuid(), guid = w->guid();
    write_run(*w);
    REQUIRE_MESSAGE(w->finish(&err), err);
    read_only_db q(path);

    SUBCASE("metadata and per-process table names") {
        CHECK(q("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'") == table{{"3.0.3"}});
        CHECK(q("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version_patch'") == table{{"3"}});
        CHECK(q("SELECT value FROM rocpd_metadata WHERE tag = 'uuid'") == table{{"_" + uuid}});
        CHECK(q("SELECT value FROM rocpd_metadata WHERE tag = 'guid'") == table{{guid}});
        CHECK(guid.size() == 36);
        CHECK(guid[14] == '7');  // UUIDv7
        CHECK(q("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'rocpd_region_" + uuid + "'") ==
              table{{"1"}});
        // Every row carries the guid the views join on.
        CHECK(q("SELECT DISTINCT guid FROM rocpd_event") == table{{guid}});
    }

    SUBCASE("kernels: names, grid and workgroup sizes, agent, queue and stream") {
        CHECK(q("SELECT name, grid_x, grid_y, grid_z, workgroup_x, workgroup_y, workgroup_z, agent_type,"
                " agent_abs_index, queue, stream, category, duration, tid FROM kernels ORDER BY start") ==
              table{{"vector_add(float*, float*, float*)", "1024", "1", "1", "256", "1", "1", "GPU", "1", "Queue 0",
                     "null stream", "KERNEL_DISPATCH", "10000", "4242"},
                    {"vector_add(float*, float*, float*)", "1024", "1", "1", "256", "1", "1", "GPU", "1", "Queue 0",
                     "null stream", "KERNEL_DISPATCH", "10000", "4242"},
                    {"scale(float*, float)", "512", "512", "1", "64", "4", "1", "GPU", "1", "Default Queue",
                     "null stream", "KERNEL_DISPATCH", "5000", "4250"},
                    {"zero(float*)", "64", "8", "4", "32", "2", "2", "GPU", "1", "Default Queue", "null stream",
                     "KERNEL_DISPATCH", "2000", "4250"}});
        CHECK(q("SELECT lds_size, static_lds_size, sgpr_count, vgpr_count, corr_id, stack_id FROM kernels"
                " WHERE dispatch_id = 1") == table{{"64", "64", "16", "8", "0", "5"}});
    }

    SUBCASE("regions: API calls and ranges with names, categories and threads") {
        CHECK(q("SELECT category, name, tid, duration, stack_id FROM regions ORDER BY start") ==
              table{{"HSA_CORE_API", "hsa_queue_create", "4242", "2000", "1"},
                    {"HSA_CORE_API", "hsa_signal_create", "4250", "500", "2"},
                    {"MARKER_CORE_RANGE_API", "roctxRangePushA", "4242", "46000", "3"}});
        CHECK(q("SELECT json_extract(extdata, '$.message') FROM regions WHERE name = 'roctxRangePushA'") ==
              table{{"compute"}});
        // The mark is an instant: a sample on the thread's MARKER_CORE_API track.
        CHECK(q("SELECT category, name, tid, timestamp, json_extract(extdata, '$.message') FROM samples") ==
              table{{"MARKER_CORE_API", "MARKER_CORE_API", "4242", "15000", "checkpoint \"A\""}});
        CHECK(q("SELECT count(*) FROM regions_and_samples") == table{{"4"}});
    }

    SUBCASE("region_args: each call's arguments") {
        CHECK(q("SELECT A.name, A.type, A.value FROM region_args A JOIN regions R ON R.id = A.id"
                " WHERE R.name = 'hsa_queue_create' ORDER BY A.name") ==
              table{{"agent", "hsa_agent_t", "{handle=0x1}"},
                    {"size", "uint32_t", "4096"},
                    {"type", "hsa_queue_type32_t", "HSA_QUEUE_TYPE_MULTI"}});
        CHECK(q("SELECT arg_position, arg_name, arg_value FROM events_args WHERE category = 'HSA_CORE_API'"
                " ORDER BY event_id, arg_position") == table{{"0", "agent", "{handle=0x1}"},
                                                             {"1", "size", "4096"},
                                                             {"2", "type", "HSA_QUEUE_TYPE_MULTI"},
                                                             {"0", "initial_value", "1"}});
    }

    SUBCASE("summaries: top_kernels, top, busy") {
        // 27 us of kernels in all: vector_add 2 x 10 us, scale 5 us, zero 2 us.
        CHECK(q("SELECT name, total_calls, total_duration, average, round(percentage, 3) FROM top_kernels") ==
              table{{"vector_add(float*, float*, float*)", "2", "20.0", "10.0", "74.074"},
                    {"scale(float*, float)", "1", "5.0", "5.0", "18.519"},
                    {"zero(float*)", "1", "2.0", "2.0", "7.407"}});
        CHECK(q("SELECT name, total_calls FROM top WHERE name IN ('hsa_queue_create', 'MEMORY_COPY_HOST_TO_DEVICE',"
                " 'zero(float*)') ORDER BY name") ==
              table{{"MEMORY_COPY_HOST_TO_DEVICE", "1"}, {"hsa_queue_create", "1"}, {"zero(float*)", "1"}});
        CHECK(q("SELECT round(sum(percentage)) FROM top") == table{{"100.0"}});
        // busy: kernels and copies into the GPU (27 + 3 us) and into the CPU (1 us) over 16..52 us.
        CHECK(q("SELECT agent_id, type, GpuTime, WallTime FROM busy ORDER BY agent_id") ==
              table{{"0", "CPU", "1000", "36000"}, {"1", "GPU", "30000", "36000"}});
    }

    SUBCASE("memory_copies and memory_allocations") {
        CHECK(q("SELECT category, name, size, src_agent_type, dst_agent_type, dst_device, stream_name, queue_id,"
                " duration FROM memory_copies ORDER BY start") ==
              table{{"MEMORY_COPY", "MEMORY_COPY_HOST_TO_DEVICE", "4096", "CPU", "GPU", "gfx942", "null stream", "NULL",
                     "3000"},
                    {"MEMORY_COPY", "MEMORY_COPY_DEVICE_TO_HOST", "4096", "GPU", "CPU", "AMD EPYC 9654", "null stream",
                     "NULL", "1000"}});
        CHECK(q("SELECT category, type, level, agent_type, size, queue_name FROM memory_allocations ORDER BY start") ==
              table{{"MEMORY_ALLOCATION", "ALLOC", "REAL", "GPU", "1048576", "Default Queue"},
                    {"SCRATCH_MEMORY", "ALLOC", "SCRATCH", "GPU", "65536", "Queue 0"},
                    {"MEMORY_ALLOCATION", "FREE", "REAL", "NULL", "0", "Default Queue"}});
        CHECK(q("SELECT operation, alloc_flags, size, tid FROM scratch_memory") == table{{"ALLOC", "1", "65536", "4250"}});
    }

    SUBCASE("processes, threads, agents, code objects, kernel symbols") {
        CHECK(q("SELECT pid, ppid, command, hostname, machine_id, system_name, system_release, start, end"
                " FROM processes") == table{{"4242", "4241", "./vector_add --size 1024", "node7",
                                             "0123456789abcdef0123456789abcdef", "Linux", "6.1.0", "1000", "900000"}});
        CHECK(q("SELECT json_extract(environment, '$.HSA_TOOLS_LIB') FROM rocpd_info_process") ==
              table{{"libencore-hsa.so"}});
        CHECK(q("SELECT pid, tid, name FROM threads ORDER BY tid") ==
              table{{"4242", "4242", "vector_add"}, {"4242", "4250", "worker"}});
        CHECK(q("SELECT id, type, absolute_index, name, product_name, user_name FROM rocpd_info_agent ORDER BY id") ==
              table{{"0", "CPU", "0", "AMD EPYC 9654", "", ""},
                    {"1", "GPU", "1", "gfx942", "AMD Instinct MI300X", "AMD Instinct MI300X"}});
        CHECK(q("SELECT agent_abs_index, uri, storage_type_str, code_object_size FROM code_objects") ==
              table{{"1", "file:///app/kernels.co#offset=0&size=4096", "FILE", "4096"}});
        CHECK(q("SELECT kernel_id, kernel_name, display_name, formatted_kernel_name, kernel_address"
                " FROM kernel_symbols WHERE id = 1") ==
              table{{"1", "_Z10vector_addPfS_S_.kd", "vector_add(float*, float*, float*)",
                     "vector_add(float*, float*, float*)", "57005"}});
        CHECK(q("SELECT id, name FROM rocpd_info_queue ORDER BY id") == table{{"0", "Default Queue"}, {"5", "Queue 0"}});
        CHECK(q("SELECT id, name FROM rocpd_info_stream ORDER BY id") == table{{"0", "null stream"}});
    }

    SUBCASE("strings are interned once") {
        CHECK(q("SELECT count(*) FROM rocpd_string WHERE string = 'HSA_CORE_API'") == table{{"1"}});
        CHECK(q("SELECT count(*), count(DISTINCT string) FROM rocpd_string")[0][0] ==
              q("SELECT count(*), count(DISTINCT string) FROM rocpd_string")[0][1]);
    }
}

TEST_CASE("batches: partial batches reach the file at commits and at finish") {
    temp_dir dir;
    const fs::path path = dir.path / "batches.db";
    std::string err;
    rp::options opts;
    opts.rows_per_commit = 97;  // commits in the middle of batches
    opts.create_indexes = false;
    auto w = rp::writer::open(path.string(), test_process(), &err, opts);
    REQUIRE(w);
    rp::region r{.tid = 1,
                 .category = "HIP_RUNTIME_API",
                 .name = "hipMemcpy",
                 .args = {{0, "void*", "dst", "0x1"}, {1, "size_t", "sizeBytes", "8"}}};
    for (std::uint64_t i = 0; i < 1000; ++i) {
        r.start_ns = 10 * i;
        r.end_ns = 10 * i + 5;
        r.corr.internal = i + 1;
        REQUIRE(w->add_region(r));
    }
    REQUIRE(w->finish(&err));
    read_only_db q(path);
    CHECK(q("SELECT count(*), min(stack_id), max(stack_id), sum(duration) FROM regions") ==
          table{{"1000", "1", "1000", "5000"}});
    CHECK(q("SELECT count(*) FROM region_args") == table{{"2000"}});
    // Every region points at its own event, and every event at its own arguments.
    CHECK(q("SELECT count(*) FROM rocpd_region R JOIN rocpd_event E ON E.id = R.event_id"
            " WHERE E.stack_id * 10 - 10 != R.start") == table{{"0"}});
}

TEST_CASE("errors are reported, not crashes") {
    temp_dir dir;
    std::string err;

    SUBCASE("a directory that does not exist") {
        const auto path = (dir.path / "no" / "such" / "dir" / "x.db").string();
        auto w = rp::writer::open(path, test_process(), &err);
        CHECK(!w);
        CHECK(err.find(path) != std::string::npos);
    }
    SUBCASE("an existing file is not overwritten") {
        const auto path = dir.path / "exists.db";
        {
            auto first = rp::writer::open(path.string(), test_process(), &err);
            REQUIRE(first);
        }  // destructor finishes
        auto w = rp::writer::open(path.string(), test_process(), &err);
        CHECK(!w);
        CHECK(err.find("exists") != std::string::npos);
        read_only_db q(path);  // the first writer's file is intact
        CHECK(q("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'") == table{{"3.0.3"}});
    }
    SUBCASE("no machine id") {
        auto p = test_process();
        p.machine_id.clear();
        CHECK(!rp::writer::open((dir.path / "m.db").string(), p, &err));
        CHECK(err.find("machine_id") != std::string::npos);
        CHECK(!fs::exists(dir.path / "m.db"));
    }
    SUBCASE("records the schema cannot hold") {
        auto w = rp::writer::open((dir.path / "bad.db").string(), test_process(), &err);
        REQUIRE(w);
        CHECK(!w->add_dispatch({.agent = 99, .kernel_id = 1}));
        CHECK(w->error().find("unknown agent handle 99") != std::string::npos);
        CHECK(!w->add_agent({.handle = 1, .type = "DSP"}));
        CHECK(w->error().find("CPU, GPU or NIC") != std::string::npos);
        CHECK(w->add_agent({.handle = 1, .type = "GPU", .absolute_index = 3}));
        CHECK(!w->add_agent({.handle = 1, .type = "GPU", .absolute_index = 4}));
        CHECK(!w->add_allocation({.type = "MALLOC", .level = "REAL"}));
        CHECK(w->error().find("ALLOC, FREE, REALLOC or RECLAIM") != std::string::npos);
        CHECK(!w->add_allocation({.type = "ALLOC", .level = "HUGE"}));
        CHECK(!w->add_copy({.dst_agent = 1, .src_agent = 2, .name = "MEMORY_COPY_DEVICE_TO_DEVICE"}));
        // The database stays usable after refused records.
        CHECK(w->add_region({.tid = 1, .start_ns = 1, .end_ns = 2, .category = "HSA_CORE_API", .name = "hsa_init"}));
        CHECK(w->finish(&err));
        CHECK(w->finish(&err));  // a second finish returns the first one's result
        CHECK(!w->add_region({.tid = 1, .start_ns = 3, .end_ns = 4, .category = "HSA_CORE_API", .name = "x"}));
        read_only_db q(dir.path / "bad.db");
        CHECK(q("SELECT name FROM regions") == table{{"hsa_init"}});
        CHECK(q("SELECT count(*) FROM rocpd_info_agent") == table{{"1"}});
    }
}

TEST_CASE("uuid_v7 and placeholders") {
    const std::string a = rp::detail::uuid_v7(1'700'000'000'000'000'000ULL, 1);
    CHECK(a == rp::detail::uuid_v7(1'700'000'000'000'000'000ULL, 1));
    CHECK(a != rp::detail::uuid_v7(1'700'000'000'000'000'000ULL, 2));
    CHECK(a.substr(0, 13) == "018bcfe5-6800");  // 1.7e12 ms = 0x018bcfe56800
    CHECK(a[14] == '7');
    CHECK(std::string("89ab").find(a[19]) != std::string::npos);  // RFC 9562 variant
    CHECK(rp::detail::substitute("t{{uuid}} '{{guid}}' {{x}}", "_u", "g") == "t_u 'g' {{x}}");
}
