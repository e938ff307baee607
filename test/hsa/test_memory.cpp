// test/hsa/test_memory.cpp — MEMORY_ALLOCATION, MEMORY_COPY and RUNTIME_INITIALIZATION records
// end to end on the software HSA runtime.
//
// This program is its own tool (it exports rocprofiler_configure) and runs with
// HSA_TOOLS_LIB=libencore-hsa.so. Checks:
//   - one RUNTIME_INITIALIZATION record (phase NONE, op HSA, the runtime's version);
//   - pool allocations (GPU coarse-grained and kernarg pools, several sizes) and a region
//     allocation are each reported once (ENTER, then EXIT with agent, address, size, times), the
//     user_data of ENTER reaching EXIT; frees report the size and agent of their allocation;
//     failing calls (size 0, an invalid pool, an unknown address) still get ENTER/EXIT and the
//     runtime's status unchanged; concurrent allocations from several threads all match up;
//   - hsa_memory_copy and hsa_amd_memory_async_copy host->device, device->device, device->host,
//     hsa_amd_memory_async_copy_rect host->device
//     (and host->host for memory the runtime does not know) are reported with the direction as
//     operation, bytes, addresses, agents, start <= end; the copied data is right; the program's
//     completion signal is still 1 when EXIT runs and reaches 0 exactly once afterwards; a
//     failing async submission gets ENTER/EXIT and the runtime's status, and leaves the
//     program's signal alone.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using test_support::expect;

struct rec {
    rocprofiler_callback_tracing_kind_t kind;
    int op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t internal;
    std::uint64_t ud_seen;  // user_data value when the callback ran
    // allocation
    std::uint64_t agent = 0, address = 0, size = 0;
    // copy
    std::uint64_t dst = 0, src = 0, dst_agent = 0, src_agent = 0, bytes = 0;
    std::uint64_t start = 0, end = 0;
    // runtime initialization
    std::uint64_t version = 0, instance = 0;
    std::int64_t app_signal_at_exit = -100;
};

std::mutex g_mutex;
std::vector<rec> g_recs;
std::atomic<std::uint64_t> g_next_ud{1};
std::map<std::uint64_t, hsa_signal_t> g_signal_of_dst;  // async copy destination -> program's signal


void on_record(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    rec x{};
    x.kind = r.kind;
    x.op = r.operation;
    x.phase = r.phase;
    x.internal = r.correlation_id.internal;
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) ud->value = g_next_ud.fetch_add(1);
    x.ud_seen = ud->value;
    if (r.kind == ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION) {
        auto* p = static_cast<rocprofiler_callback_tracing_memory_allocation_data_t*>(r.payload);
        x.agent = p->agent_id.handle;
        x.address = p->address.value;
        x.size = p->allocation_size;
        x.start = p->start_timestamp;
        x.end = p->end_timestamp;
    } else if (r.kind == ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY) {
        auto* p = static_cast<rocprofiler_callback_tracing_memory_copy_data_t*>(r.payload);
        x.dst = p->dst_address.value;
        x.src = p->src_address.value;
        x.dst_agent = p->dst_agent_id.handle;
        x.src_agent = p->src_agent_id.handle;
        x.bytes = p->bytes;
        x.start = p->start_timestamp;
        x.end = p->end_timestamp;
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
            hsa_signal_t s{0};
            {
                std::lock_guard lk(g_mutex);
                if (auto it = g_signal_of_dst.find(x.dst); it != g_signal_of_dst.end()) s = it->second;
            }
            if (s.handle != 0) x.app_signal_at_exit = hsa_signal_load_scacquire(s);
        }
    } else if (r.kind == ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION) {
        auto* p = static_cast<rocprofiler_callback_tracing_runtime_initialization_data_t*>(r.payload);
        x.version = p->version;
        x.instance = p->instance;
    }
    std::lock_guard lk(g_mutex);
    g_recs.push_back(x);
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    for (auto k : {ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
                   ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION})
        if (rocprofiler_configure_callback_tracing_service(ctx, k, nullptr, 0, &on_record, nullptr) !=
            ROCPROFILER_STATUS_SUCCESS) {
            std::fprintf(stderr, "test_memory: cannot configure kind %d\n", static_cast<int>(k));
            return 1;
        }
    return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

std::vector<rec> take() {
    std::lock_guard lk(g_mutex);
    std::vector<rec> out;
    out.swap(g_recs);
    return out;
}

// The ENTER and EXIT records of one allocation-kind call, in order, for `op`; checks pairing.
struct call_seen {
    rec enter, exit;
};
std::vector<call_seen> calls(const std::vector<rec>& rs, rocprofiler_callback_tracing_kind_t k, int op) {
    std::vector<call_seen> out;
    std::map<std::uint64_t, rec> open;  // by user_data
    for (const auto& r : rs) {
        if (r.kind != k || r.op != op) continue;
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
            open[r.ud_seen] = r;
        else if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
            auto it = open.find(r.ud_seen);
            if (it == open.end()) {
                expect(false, "EXIT with the user_data of an ENTER");
                continue;
            }
            out.push_back({it->second, r});
            open.erase(it);
        }
    }
    expect(open.empty(), "every ENTER has its EXIT");
    return out;
}

hsa_region_t find_region(hsa_agent_t agent) {
    hsa_region_t out{0};
    hsa_agent_iterate_regions(
        agent,
        [](hsa_region_t r, void* d) {
            hsa_region_segment_t seg{};
            bool alloc = false;
            hsa_region_get_info(r, HSA_REGION_INFO_SEGMENT, &seg);
            hsa_region_get_info(r, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED, &alloc);
            if (seg == HSA_REGION_SEGMENT_GLOBAL && alloc) {
                *static_cast<hsa_region_t*>(d) = r;
                return HSA_STATUS_INFO_BREAK;
            }
            return HSA_STATUS_SUCCESS;
        },
        &out);
    return out;
}

std::uint64_t u(const void* p) { return reinterpret_cast<std::uint64_t>(p); }

void test_runtime_initialization() {
    auto rs = take();
    int n = 0;
    for (auto& r : rs)
        if (r.kind == ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION) {
            ++n;
            expect(r.op == ROCPROFILER_RUNTIME_INITIALIZATION_HSA && r.phase == ROCPROFILER_CALLBACK_PHASE_NONE,
                   "RUNTIME_INITIALIZATION: op HSA, phase NONE");
            expect(r.version == 1 && r.instance == 0, "RUNTIME_INITIALIZATION: the runtime's version, instance 0");
        }
    expect(n == 1, "one RUNTIME_INITIALIZATION record");
}

void test_allocations(hsa_agent_t cpu, hsa_agent_t gpu) {
    take();
    const hsa_amd_memory_pool_t coarse = example::find_pool(gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    const hsa_amd_memory_pool_t kernarg = example::find_pool(gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT);
    struct want {
        void* p;
        std::size_t size;
        std::uint64_t agent;
    };
    std::vector<want> made;
    for (std::size_t size : {std::size_t{1}, std::size_t{4096}, std::size_t{100000}}) {
        void* p = nullptr;
        HSA_CHECK(hsa_amd_memory_pool_allocate(coarse, size, 0, &p));
        made.push_back({p, size, gpu.handle});
    }
    {
        void* p = nullptr;
        HSA_CHECK(hsa_amd_memory_pool_allocate(kernarg, 64, 0, &p));
        made.push_back({p, 64, gpu.handle});
    }
    const hsa_region_t region = find_region(cpu);
    expect(region.handle != 0, "a CPU region that allows allocations");
    void* rp = nullptr;
    HSA_CHECK(hsa_memory_allocate(region, 5000, &rp));

    // Failing calls: the runtime's status unchanged, still reported.
    void* bad = reinterpret_cast<void*>(0x1);
    const hsa_status_t s_zero = hsa_amd_memory_pool_allocate(coarse, 0, 0, &bad);
    expect(s_zero == HSA_STATUS_ERROR_INVALID_ARGUMENT, "size-0 allocation: the runtime's INVALID_ARGUMENT");
    void* bad2 = nullptr;
    const hsa_status_t s_pool = hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t{12345}, 64, 0, &bad2);
    expect(s_pool == static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL),
           "invalid pool: the runtime's INVALID_MEMORY_POOL");

    auto rs = take();
    auto allocs = calls(rs, ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE);
    expect(allocs.size() == made.size() + 1 + 2, "every allocation call reported once (ENTER/EXIT)");
    int good = 0;
    for (auto& w : made)
        for (auto& c : allocs)
            if (c.exit.address == u(w.p))
                good += c.exit.size == w.size && c.exit.agent == w.agent && c.exit.start != 0 &&
                        c.exit.start <= c.exit.end && c.enter.address == 0 && c.enter.start == 0;
    expect(good == static_cast<int>(made.size()), "pool allocations: agent, address, size, times at EXIT");
    int region_ok = 0;
    for (auto& c : allocs) region_ok += c.exit.address == u(rp) && c.exit.size == 5000 && c.exit.agent == cpu.handle;
    expect(region_ok == 1, "region allocation: the region's agent, address, size");
    int failed = 0;
    for (auto& c : allocs) {
        if (c.exit.address == 0 && c.exit.size == 0) ++failed;  // size 0
        if (c.exit.address == 0 && c.exit.size == 64 && c.exit.agent == 0 && c.exit.start <= c.exit.end)
            ++failed;  // bad pool
    }
    expect(failed == 2, "failed allocations: EXIT with address 0");

    // Frees: the size and agent of their allocation.
    for (auto& w : made) HSA_CHECK(hsa_amd_memory_pool_free(w.p));
    HSA_CHECK(hsa_memory_free(rp));
    int on_stack = 0;
    const hsa_status_t s_unknown = hsa_amd_memory_pool_free(&on_stack);
    expect(s_unknown == static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_ALLOCATION),
           "free of an unknown address: the runtime's status");
    rs = take();
    auto frees = calls(rs, ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, ROCPROFILER_MEMORY_ALLOCATION_FREE);
    expect(frees.size() == made.size() + 2, "every free reported once");
    good = 0;
    for (auto& w : made)
        for (auto& c : frees)
            good += c.exit.address == u(w.p) && c.enter.address == u(w.p) && c.exit.size == w.size &&
                    c.exit.agent == w.agent && c.exit.start <= c.exit.end;
    expect(good == static_cast<int>(made.size()), "pool frees matched with their allocations");
    int rfree = 0, unknown = 0;
    for (auto& c : frees) {
        rfree += c.exit.address == u(rp) && c.exit.size == 5000 && c.exit.agent == cpu.handle;
        unknown += c.exit.address == u(&on_stack) && c.exit.size == 0 && c.exit.agent == 0;
    }
    expect(rfree == 1, "region free matched with its allocation");
    expect(unknown == 1, "unknown address: size 0, agent 0");
}

void test_concurrent_allocations(hsa_agent_t gpu) {
    take();
    const hsa_amd_memory_pool_t coarse = example::find_pool(gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    constexpr int threads = 4, per_thread = 200;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                void* p = nullptr;
                HSA_CHECK(hsa_amd_memory_pool_allocate(coarse, static_cast<std::size_t>(64 * (t + 1) + i), 0, &p));
                HSA_CHECK(hsa_amd_memory_pool_free(p));
            }
        });
    for (auto& th : pool) th.join();
    auto rs = take();
    auto allocs = calls(rs, ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE);
    auto frees = calls(rs, ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, ROCPROFILER_MEMORY_ALLOCATION_FREE);
    expect(allocs.size() == threads * per_thread && frees.size() == threads * per_thread,
           "concurrent: every allocation and free reported");
    // Each free knows the size and agent of its allocation (sizes are all >= 64).
    int bad = 0;
    for (auto& c : frees) bad += c.exit.size < 64 || c.exit.agent != gpu.handle || c.exit.address == 0;
    for (auto& c : allocs) bad += c.exit.size < 64 || c.exit.agent != gpu.handle || c.exit.address == 0;
    expect(bad == 0, "concurrent: every free knows its size and agent");
}

struct copy_seen {
    rec enter, exit;
};

copy_seen find_copy(const std::vector<rec>& rs, std::uint64_t dst) {
    copy_seen c{};
    int n_enter = 0, n_exit = 0;
    for (auto& r : rs) {
        if (r.kind != ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY || r.dst != dst) continue;
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) c.enter = r, ++n_enter;
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) c.exit = r, ++n_exit;
    }
    expect(n_enter == 1 && n_exit == 1, "one ENTER and one EXIT per copy");
    return c;
}

void test_copies(hsa_agent_t cpu, hsa_agent_t gpu) {
    constexpr std::size_t n = 1 << 16;
    const auto fine = example::find_pool(cpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
    const auto coarse = example::find_pool(gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    void *h1, *h2, *d1, *d2;
    HSA_CHECK(hsa_amd_memory_pool_allocate(fine, n, 0, &h1));
    HSA_CHECK(hsa_amd_memory_pool_allocate(fine, n, 0, &h2));
    HSA_CHECK(hsa_amd_memory_pool_allocate(coarse, n, 0, &d1));
    HSA_CHECK(hsa_amd_memory_pool_allocate(coarse, n, 0, &d2));
    std::vector<unsigned char> m1(n), m2(n);  // memory the runtime does not know: host
    auto fill = [&](void* p, unsigned char seed) {
        for (std::size_t i = 0; i < n; ++i)
            static_cast<unsigned char*>(p)[i] = static_cast<unsigned char>(i * 7 + seed);
    };
    auto same = [&](const void* a, const void* b) { return std::memcmp(a, b, n) == 0; };

    // Synchronous copies.
    take();
    fill(h1, 3);
    std::memset(h2, 0, n);
    HSA_CHECK(hsa_memory_copy(d1, h1, n));
    HSA_CHECK(hsa_memory_copy(d2, d1, n));
    HSA_CHECK(hsa_memory_copy(h2, d2, n / 2));
    fill(m1.data(), 9);
    HSA_CHECK(hsa_memory_copy(m2.data(), m1.data(), n));
    expect(std::memcmp(h1, h2, n / 2) == 0 && same(m1.data(), m2.data()), "sync copies: data right");
    auto rs = take();
    struct want {
        const void* dst;
        const void* src;
        std::size_t bytes;
        int op;
        std::uint64_t dst_agent, src_agent;
    };
    const want sync[] = {
        {d1, h1, n, ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, gpu.handle, cpu.handle},
        {d2, d1, n, ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, gpu.handle, gpu.handle},
        {h2, d2, n / 2, ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST, cpu.handle, gpu.handle},
        {m2.data(), m1.data(), n, ROCPROFILER_MEMORY_COPY_HOST_TO_HOST, cpu.handle, cpu.handle},
    };
    int good = 0;
    for (auto& w : sync) {
        auto c = find_copy(rs, u(w.dst));
        good += c.enter.op == w.op && c.exit.op == w.op && c.exit.src == u(w.src) && c.exit.bytes == w.bytes &&
                c.exit.dst_agent == w.dst_agent && c.exit.src_agent == w.src_agent && c.enter.start == 0 &&
                c.exit.start != 0 && c.exit.start <= c.exit.end && c.enter.ud_seen == c.exit.ud_seen;
    }
    expect(good == 4, "hsa_memory_copy: direction, bytes, addresses, agents, times");

    // Async copies, each with the program's own completion signal.
    take();
    fill(h1, 5);
    std::memset(h2, 0, n);
    const want async[] = {
        {d1, h1, n, ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, gpu.handle, cpu.handle},
        {d2, d1, n, ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, gpu.handle, gpu.handle},
        {h2, d2, n, ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST, cpu.handle, gpu.handle},
    };
    std::vector<hsa_signal_t> signals;
    int exit_before_signal = 0;
    for (auto& w : async) {
        hsa_signal_t s{};
        HSA_CHECK(hsa_signal_create(1, 0, nullptr, &s));
        {
            std::lock_guard lk(g_mutex);
            g_signal_of_dst[u(w.dst)] = s;
        }
        const hsa_agent_t dst_agent{w.dst_agent}, src_agent{w.src_agent};
        HSA_CHECK(hsa_amd_memory_async_copy(const_cast<void*>(w.dst), dst_agent, w.src, src_agent, w.bytes, 0, nullptr,
                                            s));
        example::wait_done(s);
        {
            std::lock_guard lk(g_mutex);
            for (auto& r : g_recs)
                exit_before_signal += r.kind == ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY &&
                                      r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT && r.dst == u(w.dst);
        }
        signals.push_back(s);
    }
    expect(exit_before_signal == 3, "async: EXIT delivered before the program's signal reached 0");
    expect(same(h1, h2), "async copies: data right");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    int zero = 0;
    for (auto s : signals) zero += hsa_signal_load_scacquire(s) == 0;
    expect(zero == 3, "async: the program's signal decremented exactly once");
    rs = take();
    good = 0;
    for (auto& w : async) {
        auto c = find_copy(rs, u(w.dst));
        good += c.enter.op == w.op && c.exit.op == w.op && c.exit.src == u(w.src) && c.exit.bytes == w.bytes &&
                c.exit.dst_agent == w.dst_agent && c.exit.src_agent == w.src_agent && c.enter.start == 0 &&
                c.exit.start != 0 && c.exit.start <= c.exit.end && c.enter.ud_seen == c.exit.ud_seen &&
                c.enter.internal == c.exit.internal && c.exit.app_signal_at_exit == 1;
    }
    expect(good == 3, "hsa_amd_memory_async_copy: direction, bytes, addresses, agents, times, signal still 1 at EXIT");

    // A failing submission: reported, the runtime's status, the program's signal untouched.
    hsa_signal_t s{};
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &s));
    const hsa_status_t bad = hsa_amd_memory_async_copy(d2, hsa_agent_t{0}, h1, cpu, n, 0, nullptr, s);
    expect(bad == HSA_STATUS_ERROR_INVALID_AGENT, "failing async copy: the runtime's INVALID_AGENT");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    expect(hsa_signal_load_scacquire(s) == 1, "failing async copy: the program's signal untouched");
    rs = take();
    auto c = find_copy(rs, u(d2));
    expect(c.exit.bytes == n && c.exit.start <= c.exit.end, "failing async copy: EXIT right away");
    signals.push_back(s);

    // A rectangular copy host -> device: 8 rows of 100 bytes from pitch 256 (offset x 4, y 1) to
    // pitch 512 (offset x 16, y 2): one ENTER + EXIT, bytes 800, first-byte addresses, agents.
    {
        take();
        fill(h1, 11);
        hsa_signal_t rs_sig{};
        HSA_CHECK(hsa_signal_create(1, 0, nullptr, &rs_sig));
        const hsa_pitched_ptr_t rdst{d2, 512, 512 * 16}, rsrc{h1, 256, 256 * 16};
        const hsa_dim3_t doff{16, 2, 0}, soff{4, 1, 0}, range{100, 8, 1};
        auto* const to = static_cast<unsigned char*>(d2) + 2 * 512 + 16;
        const auto* const from = static_cast<const unsigned char*>(h1) + 256 + 4;
        {
            std::lock_guard lk(g_mutex);
            g_signal_of_dst[u(to)] = rs_sig;
        }
        HSA_CHECK(hsa_amd_memory_async_copy_rect(&rdst, &doff, &rsrc, &soff, &range, gpu, hsaHostToDevice, 0, nullptr,
                                                 rs_sig));
        example::wait_done(rs_sig);
        bool rows = true;
        for (int y = 0; y < 8; ++y) rows = rows && std::memcmp(to + y * 512, from + y * 256, 100) == 0;
        expect(rows, "async_copy_rect: rows right");
        auto rr = take();
        auto rc = find_copy(rr, u(to));
        expect(rc.enter.op == ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE && rc.exit.op == rc.enter.op &&
                   rc.exit.bytes == 800 && rc.exit.src == u(from) && rc.exit.dst_agent == gpu.handle &&
                   rc.exit.src_agent == cpu.handle && rc.exit.start != 0 && rc.exit.start <= rc.exit.end &&
                   rc.enter.internal == rc.exit.internal && rc.exit.app_signal_at_exit == 1,
               "hsa_amd_memory_async_copy_rect: direction, bytes, first-byte addresses, agents, times, signal");
        // Arguments the runtime rejects: its status, no record.
        expect(hsa_amd_memory_async_copy_rect(nullptr, &doff, &rsrc, &soff, &range, gpu, hsaHostToDevice, 0, nullptr,
                                              rs_sig) == HSA_STATUS_ERROR_INVALID_ARGUMENT,
               "async_copy_rect with a null destination: the runtime's INVALID_ARGUMENT");
        int none = 0;
        for (const auto& r : take()) none += r.kind == ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY;
        expect(none == 0, "async_copy_rect rejected for its arguments: no record");
        {
            std::lock_guard lk(g_mutex);
            g_signal_of_dst.erase(u(to));
        }
        HSA_CHECK(hsa_signal_destroy(rs_sig));
    }

    // Concurrent async copies from several threads, each waiting for its own signal.
    constexpr int threads = 3, per_thread = 30;
    std::vector<void*> dsts(threads);
    for (auto& d : dsts) HSA_CHECK(hsa_amd_memory_pool_allocate(coarse, n, 0, &d));
    std::vector<std::thread> pool;
    std::atomic<int> wrong{0};
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                hsa_signal_t sig{};
                HSA_CHECK(hsa_signal_create(1, 0, nullptr, &sig));
                {
                    std::lock_guard lk(g_mutex);
                    g_signal_of_dst[u(dsts[t])] = sig;
                }
                HSA_CHECK(hsa_amd_memory_async_copy(dsts[t], gpu, h1, cpu, n, 0, nullptr, sig));
                example::wait_done(sig);
                wrong += std::memcmp(dsts[t], h1, n) != 0;
                {
                    std::lock_guard lk(g_mutex);
                    g_signal_of_dst.erase(u(dsts[t]));
                }
                HSA_CHECK(hsa_signal_destroy(sig));
            }
        });
    for (auto& th : pool) th.join();
    rs = take();
    int enters = 0, exits = 0, at_one = 0;
    for (auto& r : rs) {
        if (r.kind != ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY || r.op != ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE)
            continue;
        enters += r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
        exits += r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT;
        at_one += r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT && r.app_signal_at_exit == 1;
    }
    expect(wrong.load() == 0, "concurrent async copies: data right");
    expect(enters == threads * per_thread && exits == threads * per_thread && at_one == exits,
           "concurrent async copies: ENTER and EXIT once each, EXIT before the program's signal");
    for (void* d : dsts) HSA_CHECK(hsa_amd_memory_pool_free(d));

    for (auto sig : signals) HSA_CHECK(hsa_signal_destroy(sig));
    for (void* p : {h1, h2, d1, d2}) HSA_CHECK(hsa_amd_memory_pool_free(p));
}

}  // namespace

ENCORE_TEST_TOOL("test-memory", &tool_init, nullptr)

int main() {
    HSA_CHECK(hsa_init());
    {
        const hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        const hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        test_runtime_initialization();
        test_allocations(cpu, gpu);
        test_concurrent_allocations(gpu);
        test_copies(cpu, gpu);
    }
    HSA_CHECK(hsa_shut_down());
    return test_support::finish();
}
