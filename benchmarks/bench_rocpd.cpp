// benchmarks/bench_rocpd.cpp — how fast the rocpd writer (src/trace/rocpd.hpp) fills a database.
//
//   bench_rocpd [REGIONS [DIR [--no-indexes]]]   (default 10000000 regions, DIR /tmp)
//
// Writes REGIONS API-call regions of 2 arguments each (an event, a region and 2 argument rows
// apiece: 4 rows per region), from 8 threads over 64 operation names, plus one kernel dispatch per
// 100 regions, then finish() (commit, views). The records are built once and re-stamped, so the
// figure is the writer's and sqlite's cost, not the caller's. Prints records/s for the inserts
// and the time of finish() separately; the target is 10 M regions in 20 s on a 2-core CI machine.
#include "../src/trace/rocpd.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace rp = encore::trace::rocpd;
using clk = std::chrono::steady_clock;

int main(int argc, char** argv) {
    const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000ULL;
    const std::string dir = argc > 2 ? argv[2] : "/tmp";
    const std::string path = dir + "/bench_rocpd_" + std::to_string(getpid()) + ".db";

    rp::process_info proc;
    proc.pid = static_cast<std::uint64_t>(getpid());
    proc.ppid = static_cast<std::uint64_t>(getppid());
    proc.command = "bench_rocpd";
    proc.start_ns = 1;
    proc.end_ns = n * 100 + 1;
    rp::fill_from_system(proc);

    rp::options opts;
    opts.create_indexes = !(argc > 3 && std::string(argv[3]) == "--no-indexes");

    std::string err;
    const auto t0 = clk::now();
    auto db = rp::writer::open(path, proc, &err, opts);
    if (!db) {
        std::fprintf(stderr, "bench_rocpd: %s\n", err.c_str());
        return 1;
    }
    bool ok = db->add_agent({.handle = 1, .type = "CPU", .absolute_index = 0, .name = "cpu"}) &&
              db->add_agent({.handle = 2, .type = "GPU", .absolute_index = 1, .type_index = 0, .name = "gfx942"}) &&
              db->add_code_object({.code_object_id = 1, .agent = 2, .uri = "file:///bench.co", .storage_type = "FILE"}) &&
              db->add_kernel_symbol(
                  {.kernel_id = 1, .code_object_id = 1, .kernel_name = "_Z4axpyPf.kd", .display_name = "axpy(float*)"});

    std::vector<rp::region> ops(64);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        ops[i].category = "HSA_CORE_API";
        ops[i].name = "hsa_operation_" + std::to_string(i);
        ops[i].args = {{.position = 0, .type = "hsa_agent_t", .name = "agent", .value = "0x1234"},
                       {.position = 1, .type = "uint32_t*", .name = "value", .value = "0x7ffd12345678"}};
    }
    rp::kernel_dispatch kd{.tid = 100, .agent = 2, .kernel_id = 1, .grid = {1024, 1, 1}};

    std::uint64_t records = 0;
    for (std::uint64_t i = 0; ok && i < n; ++i) {
        rp::region& r = ops[i % ops.size()];
        r.tid = 100 + i % 8;
        r.start_ns = i * 100;
        r.end_ns = i * 100 + 50;
        r.corr.internal = i + 1;
        ok = db->add_region(r);
        ++records;
        if (i % 100 == 0) {
            kd.dispatch_id = i / 100 + 1;
            kd.start_ns = i * 100;
            kd.end_ns = i * 100 + 80;
            kd.corr.internal = kd.corr.ancestor = i + 1;
            ok = ok && db->add_dispatch(kd);
            ++records;
        }
    }
    const auto t1 = clk::now();
    ok = ok && db->finish(&err);
    const auto t2 = clk::now();
    if (!ok) {
        std::fprintf(stderr, "bench_rocpd: %s\n", err.empty() ? db->error().c_str() : err.c_str());
        return 1;
    }
    const double ins = std::chrono::duration<double>(t1 - t0).count();
    const double fin = std::chrono::duration<double>(t2 - t1).count();
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    std::printf("regions (2 args each) + dispatches: %llu records\n", static_cast<unsigned long long>(records));
    std::printf("inserts: %.2f s  %.0f records/s\n", ins, static_cast<double>(records) / ins);
    std::printf("finish (commit, views): %.2f s\n", fin);
    std::printf("total: %.2f s  %.0f records/s  file %.1f MiB\n", ins + fin, static_cast<double>(records) / (ins + fin),
                static_cast<double>(bytes) / (1024.0 * 1024.0));
    std::filesystem::remove(path, ec);
    return 0;
}
