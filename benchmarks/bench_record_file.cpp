// benchmarks/bench_record_file.cpp — what one record costs in the MAP_SHARED record files:
// reserve + fill a 56-byte body (a 64-byte record with its header) + commit, per thread, chunk
// growth (open, fallocate, mmap, populate, close) included, on 1 and 4 threads at once.
//
//   bench_record_file [root (default /tmp)] [records per thread (default 2000000)]
//                     [chunk KiB (default: the library's, 2048)]
//
// Two figures per thread count:
//   with growth   every record, chunk growth included (the kernel's cost of allocating, zeroing
//                 and mapping page-cache pages: about one page per 64 records)
//   hot path      the same records into one 512 MiB chunk mapped before the timing starts: what
//                 reserve + fill + commit cost on the thread, the library's own share
//   floor         the same stores (body, then size word released) into private memory mapped and
//                 populated before the timing: what writing 64 bytes of fresh memory costs here
// ns per record: each thread's wall time / its records, the mean over threads; and the aggregate
// (records per second over all threads). On a machine with fewer cores than threads, the threads
// share cores: the per-thread figure then includes the waits, the aggregate does not lie.
// Each run writes into a fresh folder under root, removed after.
#include "../src/trace/record_file.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace rf = encore::trace;

namespace {

struct body {
    std::uint64_t ts;
    std::uint64_t v[6];
};
static_assert(sizeof(body) + sizeof(rf::record_header) == 64);

struct result {
    double ns_per_record;  // per thread
    double aggregate_mrps;
};

result run(const std::string& root, int threads, std::uint64_t per_thread, std::uint32_t chunk, bool prefault) {
    const std::string dir = root + "/bench-record-file-" + std::to_string(getpid());
    rf::writer_options opt;
    if (chunk != 0) opt.chunk_bytes = chunk;
    if (!rf::open_process(dir.c_str(), opt)) {
        std::fprintf(stderr, "open_process: %s\n", rf::last_error());
        std::exit(1);
    }
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<double> ns(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k)
        pool.emplace_back([&, k] {
            if (prefault) {  // the thread's file and its one chunk, before the timing
                void* p = rf::reserve(8);
                std::memset(p, 0, 8);
                rf::commit(p, 2);
            }
            ready.fetch_add(1);
            while (!go.load()) std::this_thread::yield();
            const auto t0 = std::chrono::steady_clock::now();
            for (std::uint64_t i = 0; i < per_thread; ++i) {
                void* p = rf::reserve(sizeof(body));
                if (p == nullptr) continue;
                auto* b = static_cast<body*>(p);
                b->ts = i;
                for (int j = 0; j < 6; ++j) b->v[j] = i + static_cast<std::uint64_t>(j);
                rf::commit(p, 1);
            }
            const auto t1 = std::chrono::steady_clock::now();
            ns[static_cast<std::size_t>(k)] = std::chrono::duration<double, std::nano>(t1 - t0).count() /
                                              static_cast<double>(per_thread);
        });
    while (ready.load() < threads) std::this_thread::yield();
    const auto wall_start = std::chrono::steady_clock::now();
    go.store(true);
    for (auto& t : pool) t.join();
    const auto wall_end = std::chrono::steady_clock::now();
    double mean = 0;
    for (double v : ns) mean += v / threads;
    const double wall = std::chrono::duration<double, std::nano>(wall_end - wall_start).count();

    // Check the records are all there (outside the timing), then clean up.
    std::uint64_t read = 0;
    for (const auto& p : rf::list_processes(dir))
        for (const auto& t : p.threads) read += rf::read_thread(t.path, nullptr).records;
    if (prefault) read -= static_cast<std::uint64_t>(threads);
    if (read != per_thread * static_cast<std::uint64_t>(threads))
        std::fprintf(stderr, "read back %llu of %llu records\n", static_cast<unsigned long long>(read),
                     static_cast<unsigned long long>(per_thread * static_cast<std::uint64_t>(threads)));
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    return {mean, static_cast<double>(per_thread) * threads / wall * 1e3};
}

double floor_ns(std::uint64_t n) {
    const std::size_t bytes = n * 64;
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (m == MAP_FAILED) return 0;
    char* base = static_cast<char*>(m);
    const auto t0 = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < n; ++i) {
        char* r = base + i * 64;
        auto* b = reinterpret_cast<body*>(r + 8);
        b->ts = i;
        for (int j = 0; j < 6; ++j) b->v[j] = i + static_cast<std::uint64_t>(j);
        reinterpret_cast<rf::record_header*>(r)->type = 1;
        std::atomic_ref<std::uint32_t>(reinterpret_cast<rf::record_header*>(r)->size).store(64, std::memory_order_release);
    }
    const auto t1 = std::chrono::steady_clock::now();
    munmap(m, bytes);
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
    const std::string root = argc > 1 ? argv[1] : "/tmp";
    const std::uint64_t per_thread = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2000000;
    const std::uint32_t chunk = argc > 3 ? static_cast<std::uint32_t>(std::strtoul(argv[3], nullptr, 10)) * 1024 : 0;
    std::printf("root %s, %llu records per thread, chunk %u KiB, %u cores\n", root.c_str(),
                static_cast<unsigned long long>(per_thread),
                (chunk != 0 ? chunk : rf::writer_options{}.chunk_bytes) / 1024, std::thread::hardware_concurrency());
    floor_ns(per_thread / 10);
    std::printf("threads 1, floor:        %6.2f ns per 64-byte record\n", floor_ns(per_thread));
    for (int threads : {1, 4}) {
        for (bool prefault : {false, true}) {
            // Hot path: one chunk holds every record of the thread.
            const std::uint32_t c = prefault ? 512u << 20 : chunk;
            run(root, threads, per_thread / 10, c, prefault);  // warm up: page cache, allocator
            const result r = run(root, threads, per_thread, c, prefault);
            std::printf("threads %d, %-12s %6.2f ns per 64-byte record per thread, %6.1f M records/s "
                        "aggregate (%.2f ns per record)\n",
                        threads, prefault ? "hot path:" : "with growth:", r.ns_per_record, r.aggregate_mrps,
                        1e3 / r.aggregate_mrps);
        }
    }
    return 0;
}
