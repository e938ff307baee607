// encore-sim: AQL queues, packet processing, errors, intercept queues, profiling, copies.
#include <doctest/doctest.h>

#include "sim_test_util.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <hsa/amd_hsa_queue.h>
#include <hsa/hsa_api_trace.h>  // declares the intercept-queue API
#pragma GCC diagnostic pop

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>

using namespace simtest;

namespace {

struct Rt {
    Rt() { REQUIRE(hsa_init() == HSA_STATUS_SUCCESS); }
    ~Rt() { CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS); }
};

struct ErrorLog {
    std::mutex mu;
    std::vector<hsa_status_t> statuses;
    std::vector<hsa_queue_t*> queues;
    size_t count() {
        std::lock_guard<std::mutex> lk(mu);
        return statuses.size();
    }
};

void on_queue_error(hsa_status_t status, hsa_queue_t* q, void* data) {
    auto* log = static_cast<ErrorLog*>(data);
    std::lock_guard<std::mutex> lk(log->mu);
    log->statuses.push_back(status);
    log->queues.push_back(q);
}

struct Queue {
    hsa_queue_t* q = nullptr;
    Queue(hsa_agent_t a, uint32_t size = 256, ErrorLog* log = nullptr) {
        REQUIRE(hsa_queue_create(a, size, HSA_QUEUE_TYPE_MULTI, log ? on_queue_error : nullptr, log, 0, 0, &q) ==
                HSA_STATUS_SUCCESS);
    }
    ~Queue() { CHECK(hsa_queue_destroy(q) == HSA_STATUS_SUCCESS); }
    hsa_queue_t* operator->() const { return q; }
};

struct Signal {
    hsa_signal_t s{};
    explicit Signal(hsa_signal_value_t v = 1) { REQUIRE(hsa_signal_create(v, 0, nullptr, &s) == HSA_STATUS_SUCCESS); }
    ~Signal() { hsa_signal_destroy(s); }
};

struct MeetArgs {
    uint32_t* arrived;
    uint32_t* met;
    uint32_t parties;
    uint32_t timeout_ms;
};

struct OrderArgs {
    uint32_t* log;
    uint32_t* next;
    uint32_t tag;
    uint32_t sleep_us;
};

struct FillArgs {
    uint32_t* out;
    uint32_t n;
};

bool wait_for(const std::function<bool()>& pred, int ms = 5000) {
    for (int i = 0; i < ms; ++i) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return pred();
}

}  // namespace

TEST_CASE("queue creation arguments") {
    Rt rt;
    hsa_queue_t* q = nullptr;
    CHECK(hsa_queue_create(gpu(), 100, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &q) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_queue_create(gpu(), 1u << 20, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &q) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_queue_create(gpu(), 0, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &q) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_queue_create(gpu(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, nullptr) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_queue_create(hsa_agent_t{1}, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &q) ==
          HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(hsa_queue_create(cpu(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &q) == HSA_STATUS_ERROR_INVALID_AGENT);
    REQUIRE(hsa_queue_create(gpu(), 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &q) == HSA_STATUS_SUCCESS);
    CHECK(q->size == 64);
    CHECK(q->base_address != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(q->base_address) % 64 == 0);
    CHECK(hsa_signal_load_relaxed(q->doorbell_signal) == 0);
    CHECK(hsa_signal_destroy(q->doorbell_signal) == HSA_STATUS_ERROR_INVALID_SIGNAL);
    // Every slot starts INVALID.
    auto* pkts = static_cast<hsa_kernel_dispatch_packet_t*>(q->base_address);
    CHECK(((pkts[17].header >> HSA_PACKET_HEADER_TYPE) & 0xff) == HSA_PACKET_TYPE_INVALID);
    CHECK(hsa_queue_load_write_index_relaxed(q) == 0);
    CHECK(hsa_queue_add_write_index_relaxed(q, 3) == 0);
    CHECK(hsa_queue_cas_write_index_scacq_screl(q, 3, 1) == 3);
    CHECK(hsa_queue_load_write_index_scacquire(q) == 1);
    hsa_queue_store_write_index_relaxed(q, 0);
    CHECK(hsa_queue_destroy(q) == HSA_STATUS_SUCCESS);
    CHECK(hsa_queue_destroy(q) == HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK(hsa_queue_destroy(nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("kernel dispatch covers the grid, partial work-groups, 3D, completion signal") {
    Rt rt;
    hsa_agent_t g = gpu();
    Program prog(g);
    REQUIRE(prog.status == HSA_STATUS_SUCCESS);
    Queue q(g);
    const uint32_t n = 1000;
    std::vector<uint32_t> out(n, 0);
    auto* args = static_cast<FillArgs*>(alloc_kernarg(g, sizeof(FillArgs)));
    *args = {out.data(), n};
    Signal done(1);
    Dispatch d;
    d.kernel_object = prog.kernel("fill_ids", g);
    d.kernarg = args;
    d.grid[0] = n;
    d.wg[0] = 64;  // 1000 = 15*64 + 40: last group is partial
    d.completion = done.s;
    submit(q.q, d);
    CHECK(wait_zero(done.s) == 0);
    bool ok = true;
    for (uint32_t i = 0; i < n; ++i) ok &= out[i] == i + 1;
    CHECK(ok);
    CHECK(hsa_queue_load_read_index_scacquire(q.q) == 1);
    // As on ROCr, the hsa_queue_t is the head of an amd_queue_t carrying the indices.
    const auto* aq = reinterpret_cast<const amd_queue_t*>(q.q);
    CHECK(aq->write_dispatch_id == 1);
    CHECK(aq->read_dispatch_id == 1);
    CHECK((aq->queue_properties & AMD_QUEUE_PROPERTIES_IS_PTR64) != 0);

    // 3D: 5 x 4 x 3 with 2 x 2 x 2 groups.
    std::fill(out.begin(), out.end(), 0);
    *args = {out.data(), 60};
    hsa_signal_store_relaxed(done.s, 1);
    d.dims = 3;
    d.grid[0] = 5;
    d.grid[1] = 4;
    d.grid[2] = 3;
    d.wg[0] = d.wg[1] = d.wg[2] = 2;
    submit(q.q, d);
    CHECK(wait_zero(done.s) == 0);
    ok = true;
    for (uint32_t i = 0; i < 60; ++i) ok &= out[i] == i + 1;
    CHECK(ok);
    CHECK(out[60] == 0);
    hsa_amd_memory_pool_free(args);
}

TEST_CASE("group segment is provided per work-group") {
    Rt rt;
    hsa_agent_t g = gpu();
    Program prog(g);
    REQUIRE(prog.status == HSA_STATUS_SUCCESS);
    Queue q(g);
    std::vector<uint32_t> sums(4, 0);
    auto* args = static_cast<uint32_t**>(alloc_kernarg(g, sizeof(uint32_t*)));
    *args = sums.data();
    Signal done(1);
    Dispatch d;
    d.kernel_object = prog.kernel("group_sum", g);
    d.kernarg = args;
    d.grid[0] = 4 * 100;
    d.wg[0] = 100;
    d.group_segment_size = 400;
    d.completion = done.s;
    submit(q.q, d);
    CHECK(wait_zero(done.s) == 0);
    for (uint32_t s : sums) CHECK(s == 4950);
    hsa_amd_memory_pool_free(args);
}

TEST_CASE("packets complete in order; barrier bit and barrier-AND across queues") {
    Rt rt;
    hsa_agent_t g = gpu();
    Program prog(g);
    REQUIRE(prog.status == HSA_STATUS_SUCCESS);
    const uint64_t ko = prog.kernel("record_order", g);
    Queue qa(g), qb(g);
    std::vector<uint32_t> log(16, 0);
    uint32_t next = 0;
    auto* args = static_cast<OrderArgs*>(alloc_kernarg(g, 4 * sizeof(OrderArgs)));
    args[0] = {log.data(), &next, 1, 30000};  // slow, queue A
    args[1] = {log.data(), &next, 2, 0};      // queue A, barrier bit
    args[2] = {log.data(), &next, 3, 0};      // queue B, after a barrier-AND on A's first kernel
    Signal a_done(1), b_done(1), last(1);
    Dispatch d;
    d.kernel_object = ko;
    d.kernarg = &args[0];
    d.completion = a_done.s;
    submit(qa.q, d);
    // Queue B must wait for A's first dispatch via barrier-AND.
    submit_barrier(qb.q, true, {a_done.s}, hsa_signal_t{0});
    d.kernarg = &args[2];
    d.completion = b_done.s;
    submit(qb.q, d);
    d.kernarg = &args[1];
    d.completion = last.s;
    d.barrier = true;
    submit(qa.q, d);
    CHECK(wait_zero(b_done.s) == 0);
    CHECK(wait_zero(last.s) == 0);
    CHECK(next == 3);
    CHECK(log[0] == 1);  // the slow one came first although B was submitted before it finished
    CHECK(((log[1] == 2 && log[2] == 3) || (log[1] == 3 && log[2] == 2)));
    hsa_amd_memory_pool_free(args);
}

TEST_CASE("barrier-AND waits for all dependencies, barrier-OR for any") {
    Rt rt;
    hsa_agent_t g = gpu();
    Queue q(g);
    Signal d1(1), d2(1), and_done(1), or_done(1);
    Queue q2(g);
    submit_barrier(q.q, true, {d1.s, hsa_signal_t{0}, d2.s}, and_done.s);
    submit_barrier(q2.q, false, {d1.s, d2.s}, or_done.s);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(hsa_signal_load_scacquire(and_done.s) == 1);
    CHECK(hsa_signal_load_scacquire(or_done.s) == 1);
    hsa_signal_store_screlease(d2.s, 0);
    CHECK(wait_zero(or_done.s) == 0);  // OR: one dependency is enough
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(hsa_signal_load_scacquire(and_done.s) == 1);  // AND: still waiting on d1
    hsa_signal_store_screlease(d1.s, 0);
    CHECK(wait_zero(and_done.s) == 0);
    // A barrier with no dependencies completes immediately.
    Signal empty(1);
    submit_barrier(q.q, true, {}, empty.s);
    CHECK(wait_zero(empty.s) == 0);
}

TEST_CASE("a full ring makes the writer wait; many more packets than slots complete") {
    Rt rt;
    hsa_agent_t g = gpu();
    Program prog(g);
    REQUIRE(prog.status == HSA_STATUS_SUCCESS);
    Queue q(g, 64);
    const uint64_t ko = prog.kernel("bump_counter", g);
    hsa_executable_symbol_t var = prog.symbol("counter", g);
    uint64_t addr = 0;
    REQUIRE(hsa_executable_symbol_get_info(var, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &addr) == HSA_STATUS_SUCCESS);
    auto* counter = reinterpret_cast<uint32_t*>(addr);
    *counter = 0;
    Signal done(1000);
    Dispatch d;
    d.kernel_object = ko;
    d.grid[0] = 2;
    d.wg[0] = 2;
    d.completion = done.s;
    std::thread producer2([&] {
        for (int i = 0; i < 500; ++i) submit(q.q, d);
    });
    for (int i = 0; i < 500; ++i) submit(q.q, d);
    producer2.join();
    CHECK(wait_zero(done.s) == 0);
    CHECK(__atomic_load_n(counter, __ATOMIC_SEQ_CST) == 2000);
    CHECK(hsa_queue_load_write_index_relaxed(q.q) == 1000);
    CHECK(wait_for([&] { return hsa_queue_load_read_index_scacquire(q.q) == 1000; }));
}

TEST_CASE("invalid packets put the queue in error state and call the error callback") {
    Rt rt;
    hsa_agent_t g = gpu();
    Program prog(g);
    REQUIRE(prog.status == HSA_STATUS_SUCCESS);

    SUBCASE("unknown kernel object") {
        ErrorLog log;
        Queue q(g, 64, &log);
        Signal done(1);
        Dispatch d;
        d.kernel_object = 0xbad0bad0;
        d.completion = done.s;
        submit(q.q, d);
        REQUIRE(wait_for([&] { return log.count() == 1; }));
        CHECK(log.statuses[0] == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
        CHECK(log.queues[0] == q.q);
        CHECK(hsa_signal_load_relaxed(done.s) == 1);
        // The queue processes nothing more.
        d.kernel_object = prog.kernel("noop", g);
        submit(q.q, d);
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        CHECK(hsa_signal_load_relaxed(done.s) == 1);
    }
    SUBCASE("bad dimensions") {
        ErrorLog log;
        Queue q(g, 64, &log);
        Dispatch d;
        d.kernel_object = prog.kernel("noop", g);
        d.dims = 0;
        submit(q.q, d);
        REQUIRE(wait_for([&] { return log.count() == 1; }));
        CHECK(log.statuses[0] == HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    }
    SUBCASE("work-group too large") {
        ErrorLog log;
        Queue q(g, 64, &log);
        Dispatch d;
        d.kernel_object = prog.kernel("noop", g);
        d.dims = 2;
        d.wg[0] = 64;
        d.wg[1] = 64;
        d.grid[0] = d.grid[1] = 64;
        submit(q.q, d);
        REQUIRE(wait_for([&] { return log.count() == 1; }));
        CHECK(log.statuses[0] == HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    }
    SUBCASE("unsupported packet type") {
        ErrorLog log;
        Queue q(g, 64, &log);
        Dispatch d;
        d.type = HSA_PACKET_TYPE_AGENT_DISPATCH;
        submit(q.q, d);
        REQUIRE(wait_for([&] { return log.count() == 1; }));
        CHECK(log.statuses[0] == HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    }
}

TEST_CASE("queues on several agents run concurrently") {
    setenv("ENCORE_SIM_GPU_AGENTS", "2", 1);
    Rt rt;
    unsetenv("ENCORE_SIM_GPU_AGENTS");
    auto gpus = agents_of(HSA_DEVICE_TYPE_GPU);
    REQUIRE(gpus.size() == 2);
    Program p0(gpus[0]), p1(gpus[1]);
    REQUIRE(p0.status == HSA_STATUS_SUCCESS);
    REQUIRE(p1.status == HSA_STATUS_SUCCESS);
    Queue q0(gpus[0]), q1(gpus[1]);
    // Each load has its own module-scope storage.
    uint64_t a0 = 0, a1 = 0;
    hsa_executable_symbol_get_info(p0.symbol("counter", gpus[0]), HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &a0);
    hsa_executable_symbol_get_info(p1.symbol("counter", gpus[1]), HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &a1);
    CHECK(a0 != a1);
    // Each dispatch waits for the other to arrive (5 s at most, within wait_zero's 10 s): both meet
    // only if the two agents ran them at the same time.
    uint32_t arrived = 0, met = 0;
    auto* args = static_cast<MeetArgs*>(alloc_kernarg(gpus[0], 2 * sizeof(MeetArgs)));
    args[0] = args[1] = {&arrived, &met, 2, 5000};
    Signal done(2);
    std::thread t1([&] {
        Dispatch d;
        d.kernel_object = p1.kernel("meet", gpus[1]);
        d.kernarg = &args[1];
        d.completion = done.s;
        submit(q1.q, d);
    });
    Dispatch d;
    d.kernel_object = p0.kernel("meet", gpus[0]);
    d.kernarg = &args[0];
    d.completion = done.s;
    submit(q0.q, d);
    t1.join();
    CHECK(wait_zero(done.s) == 0);
    CHECK(arrived == 2);
    CHECK(met == 2);  // the two dispatches overlapped
    hsa_amd_memory_pool_free(args);
}

TEST_CASE("worker threads per agent split the work-groups of a dispatch") {
    setenv("ENCORE_SIM_THREADS_PER_AGENT", "4", 1);
    Rt rt;
    unsetenv("ENCORE_SIM_THREADS_PER_AGENT");
    hsa_agent_t g = gpu();
    Program prog(g);
    REQUIRE(prog.status == HSA_STATUS_SUCCESS);
    Queue q(g);
    const uint32_t n = 100000;
    std::vector<uint32_t> out(n, 0);
    auto* args = static_cast<FillArgs*>(alloc_kernarg(g, sizeof(FillArgs)));
    *args = {out.data(), n};
    Signal done(1);
    Dispatch d;
    d.kernel_object = prog.kernel("fill_ids", g);
    d.kernarg = args;
    d.grid[0] = n;
    d.wg[0] = 256;
    d.completion = done.s;
    submit(q.q, d);
    CHECK(wait_zero(done.s) == 0);
    bool ok = true;
    for (uint32_t i = 0; i < n; ++i) ok &= out[i] == i + 1;
    CHECK(ok);
    hsa_amd_memory_pool_free(args);
}

TEST_CASE("dispatch profiling timestamps") {
    Rt rt;
    hsa_agent_t g = gpu();
    Program prog(g);
    REQUIRE(prog.status == HSA_STATUS_SUCCESS);
    Queue q(g);
    CHECK(hsa_amd_profiling_set_profiler_enabled(q.q, 1) == HSA_STATUS_SUCCESS);
    std::vector<uint32_t> log(2);
    uint32_t next = 0;
    auto* args = static_cast<OrderArgs*>(alloc_kernarg(g, sizeof(OrderArgs)));
    *args = {log.data(), &next, 1, 5000};
    Signal done(1);
    uint64_t before = 0, after = 0;
    hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &before);
    Dispatch d;
    d.kernel_object = prog.kernel("record_order", g);
    d.kernarg = args;
    d.completion = done.s;
    submit(q.q, d);
    CHECK(wait_zero(done.s) == 0);
    hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &after);
    hsa_amd_profiling_dispatch_time_t t{};
    CHECK(hsa_amd_profiling_get_dispatch_time(g, done.s, &t) == HSA_STATUS_SUCCESS);
    CHECK(t.start >= before);
    CHECK(t.end <= after);
    CHECK(t.end - t.start >= 5'000'000);
    uint64_t sys = 0;
    CHECK(hsa_amd_profiling_convert_tick_to_system_domain(g, t.start, &sys) == HSA_STATUS_SUCCESS);
    CHECK(sys == t.start);
    CHECK(hsa_amd_profiling_get_dispatch_time(g, hsa_signal_t{5}, &t) == HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK(hsa_amd_profiling_set_profiler_enabled(nullptr, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_amd_memory_pool_free(args);
}

TEST_CASE("async copies wait for dependencies and record times") {
    Rt rt;
    hsa_agent_t g = gpu();
    auto pool = pool_with(g, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    void *src = nullptr, *dst = nullptr;
    REQUIRE(hsa_amd_memory_pool_allocate(pool, 1 << 20, 0, &src) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_amd_memory_pool_allocate(pool, 1 << 20, 0, &dst) == HSA_STATUS_SUCCESS);
    memset(src, 7, 1 << 20);
    memset(dst, 0, 1 << 20);
    CHECK(hsa_amd_profiling_async_copy_enable(true) == HSA_STATUS_SUCCESS);
    Signal dep(1), done(1);
    CHECK(hsa_amd_memory_async_copy(dst, g, src, g, 1 << 20, 1, &dep.s, done.s) == HSA_STATUS_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(hsa_signal_load_scacquire(done.s) == 1);
    CHECK(static_cast<char*>(dst)[100] == 0);
    hsa_signal_store_screlease(dep.s, 0);
    CHECK(wait_zero(done.s) == 0);
    CHECK(static_cast<char*>(dst)[(1 << 20) - 1] == 7);
    hsa_amd_profiling_async_copy_time_t t{};
    CHECK(hsa_amd_profiling_get_async_copy_time(done.s, &t) == HSA_STATUS_SUCCESS);
    CHECK(t.end >= t.start);
    CHECK(t.start > 0);
    CHECK(hsa_amd_memory_async_copy(dst, g, src, g, 16, 0, nullptr, hsa_signal_t{77}) == HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK(hsa_amd_memory_async_copy(nullptr, g, src, g, 16, 0, nullptr, done.s) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    // Rectangular copy: a 3 x 4 x 2 box of bytes between two pitched 16 x 8 x 3 volumes.
    std::vector<uint8_t> vs(16 * 8 * 3), vd(16 * 8 * 3, 0);
    for (size_t i = 0; i < vs.size(); ++i) vs[i] = static_cast<uint8_t>(i);
    hsa_pitched_ptr_t ps{vs.data(), 16, 16 * 8}, pd{vd.data(), 16, 16 * 8};
    hsa_dim3_t so{1, 2, 0}, doff{4, 0, 1}, range{3, 4, 2};
    hsa_signal_store_relaxed(done.s, 1);
    CHECK(hsa_amd_memory_async_copy_rect(&pd, &doff, &ps, &so, &range, g, hsaHostToHost, 0, nullptr, done.s) ==
          HSA_STATUS_SUCCESS);
    CHECK(wait_zero(done.s) == 0);
    bool ok = true;
    size_t copied = 0;
    for (uint32_t z = 0; z < 3; ++z)
        for (uint32_t y = 0; y < 8; ++y)
            for (uint32_t x = 0; x < 16; ++x) {
                const bool inside = x >= 4 && x < 7 && y < 4 && z >= 1 && z < 3;
                const uint8_t want = inside ? vs[(z - 1) * 128 + (y + 2) * 16 + (x - 4 + 1)] : 0;
                ok &= vd[z * 128 + y * 16 + x] == want;
                copied += inside;
            }
    CHECK(ok);
    CHECK(copied == 24);
    CHECK(hsa_amd_memory_async_copy_rect(&pd, &doff, &ps, &so, &range, cpu(), hsaHostToHost, 0, nullptr, done.s) ==
          HSA_STATUS_ERROR_INVALID_AGENT);
    hsa_amd_memory_pool_free(src);
    hsa_amd_memory_pool_free(dst);
}

// ---- intercept queues -------------------------------------------------------------------------
namespace {
struct InterceptState {
    std::atomic<int> batches{0};
    std::atomic<uint64_t> packets{0};
    std::vector<uint64_t> indices;
    std::mutex mu;
    bool duplicate = false;
    bool drop_all = false;
    hsa_queue_t* resubmit_to = nullptr;  // submits one barrier packet from inside the handler
    std::atomic<int> resubmitted{0};
    std::vector<std::string> order;  // which handler saw a batch, in order
};

void intercept_handler(const void* pkts, uint64_t count, uint64_t user_index, void* data,
                       hsa_amd_queue_intercept_packet_writer writer) {
    auto* st = static_cast<InterceptState*>(data);
    st->batches++;
    st->packets += count;
    {
        std::lock_guard<std::mutex> lk(st->mu);
        st->indices.push_back(user_index);
        st->order.push_back("A");
    }
    if (st->resubmit_to && st->resubmitted.fetch_add(1) == 0) {
        // Re-entrant submission into the same intercept queue: must not deadlock.
        submit_barrier(st->resubmit_to, true, {}, hsa_signal_t{0});
    }
    if (st->drop_all) return;
    writer(pkts, count);
    if (st->duplicate) writer(pkts, count);
}

void second_handler(const void* pkts, uint64_t count, uint64_t, void* data, hsa_amd_queue_intercept_packet_writer writer) {
    auto* st = static_cast<InterceptState*>(data);
    {
        std::lock_guard<std::mutex> lk(st->mu);
        st->order.push_back("B");
    }
    writer(pkts, count);
}
}  // namespace

TEST_CASE("intercept queues hand submitted packets to handlers that forward them") {
    Rt rt;
    hsa_agent_t g = gpu();
    Program prog(g);
    REQUIRE(prog.status == HSA_STATUS_SUCCESS);
    hsa_queue_t* q = nullptr;
    REQUIRE(hsa_amd_queue_intercept_create(g, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &q) == HSA_STATUS_SUCCESS);
    InterceptState st;
    REQUIRE(hsa_amd_queue_intercept_register(q, intercept_handler, &st) == HSA_STATUS_SUCCESS);
    hsa_signal_t sigc{};
    hsa_signal_create(1, 0, nullptr, &sigc);
    hsa_executable_symbol_t var = prog.symbol("counter", g);
    uint64_t addr = 0;
    hsa_executable_symbol_get_info(var, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &addr);
    auto* counter = reinterpret_cast<uint32_t*>(addr);

    SUBCASE("pass-through, many packets (more than the ring)") {
        hsa_signal_store_relaxed(sigc, 200);
        Dispatch d;
        d.kernel_object = prog.kernel("bump_counter", g);
        d.completion = sigc;
        for (int i = 0; i < 200; ++i) submit(q, d);
        CHECK(wait_zero(sigc) == 0);
        CHECK(__atomic_load_n(counter, __ATOMIC_SEQ_CST) == 200);
        CHECK(st.packets == 200);
        std::lock_guard<std::mutex> lk(st.mu);
        CHECK(st.indices.front() == 0);
        CHECK(std::is_sorted(st.indices.begin(), st.indices.end()));
    }
    SUBCASE("handler duplicates packets") {
        st.duplicate = true;
        hsa_signal_store_relaxed(sigc, 2);
        Dispatch d;
        d.kernel_object = prog.kernel("bump_counter", g);
        d.completion = sigc;
        submit(q, d);
        CHECK(wait_zero(sigc) == 0);
        CHECK(__atomic_load_n(counter, __ATOMIC_SEQ_CST) == 2);
    }
    SUBCASE("handler drops packets") {
        st.drop_all = true;
        Dispatch d;
        d.kernel_object = prog.kernel("bump_counter", g);
        d.completion = sigc;
        submit(q, d);
        CHECK(wait_for([&] { return st.packets == 1; }));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        CHECK(hsa_signal_load_relaxed(sigc) == 1);
        CHECK(__atomic_load_n(counter, __ATOMIC_SEQ_CST) == 0);
        CHECK(hsa_queue_load_read_index_scacquire(q) == 1);  // consumed from the program's ring
    }
    SUBCASE("re-entrant submission from a handler and handler chaining") {
        REQUIRE(hsa_amd_queue_intercept_register(q, second_handler, &st) == HSA_STATUS_SUCCESS);
        st.resubmit_to = q;
        Dispatch d;
        d.kernel_object = prog.kernel("bump_counter", g);
        d.completion = sigc;
        submit(q, d);
        CHECK(wait_zero(sigc) == 0);
        CHECK(wait_for([&] { return st.packets == 2; }));
        std::lock_guard<std::mutex> lk(st.mu);
        REQUIRE(st.order.size() == 4);
        // The most recently registered handler sees each batch first.
        CHECK(st.order[0] == "B");
        CHECK(st.order[1] == "A");
    }
    CHECK(hsa_amd_queue_intercept_register(q, nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    Queue plain(g);
    CHECK(hsa_amd_queue_intercept_register(plain.q, intercept_handler, &st) == HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK(hsa_queue_destroy(q) == HSA_STATUS_SUCCESS);
    hsa_signal_destroy(sigc);
}

TEST_CASE("runtime queue notifier registration") {
    Rt rt;
    CHECK(hsa_amd_runtime_queue_create_register(nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_runtime_queue_create_register([](const hsa_queue_t*, hsa_agent_t, void*) {}, nullptr) ==
          HSA_STATUS_SUCCESS);
}

TEST_CASE("queue errors: intercept queues report the program's queue; destroy from the callback") {
    Rt rt;
    hsa_agent_t g = gpu();
    SUBCASE("intercept queue error source") {
        ErrorLog log;
        hsa_queue_t* q = nullptr;
        REQUIRE(hsa_amd_queue_intercept_create(g, 64, HSA_QUEUE_TYPE_MULTI, on_queue_error, &log, 0, 0, &q) ==
                HSA_STATUS_SUCCESS);
        Dispatch d;
        d.kernel_object = 0x1;  // unknown
        submit(q, d);
        REQUIRE(wait_for([&] { return log.count() == 1; }));
        CHECK(log.statuses[0] == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
        CHECK(log.queues[0] == q);
        CHECK(hsa_queue_destroy(q) == HSA_STATUS_SUCCESS);
    }
    SUBCASE("hsa_queue_destroy inside the error callback") {
        struct Ctx {
            std::atomic<int> calls{0};
            std::atomic<hsa_status_t> destroy_status{HSA_STATUS_ERROR};
        } ctx;
        hsa_queue_t* q = nullptr;
        REQUIRE(hsa_queue_create(
                    g, 64, HSA_QUEUE_TYPE_MULTI,
                    [](hsa_status_t, hsa_queue_t* source, void* data) {
                        auto* c = static_cast<Ctx*>(data);
                        c->destroy_status = hsa_queue_destroy(source);
                        c->calls++;
                    },
                    &ctx, 0, 0, &q) == HSA_STATUS_SUCCESS);
        Dispatch d;
        d.kernel_object = 0x1;
        submit(q, d);
        REQUIRE(wait_for([&] { return ctx.calls == 1; }));
        CHECK(ctx.destroy_status == HSA_STATUS_SUCCESS);
        CHECK(hsa_queue_destroy(q) == HSA_STATUS_ERROR_INVALID_QUEUE);
    }
    SUBCASE("inactivated queue processes nothing") {
        Queue q(g);
        Program prog(g);
        REQUIRE(prog.status == HSA_STATUS_SUCCESS);
        CHECK(hsa_queue_inactivate(q.q) == HSA_STATUS_SUCCESS);
        Signal done(1);
        Dispatch d;
        d.kernel_object = prog.kernel("noop", g);
        d.completion = done.s;
        submit(q.q, d);
        CHECK(hsa_signal_wait_scacquire(done.s, HSA_SIGNAL_CONDITION_EQ, 0, 30'000'000, HSA_WAIT_STATE_BLOCKED) == 1);
    }
}

TEST_CASE("soft queues: a ring with the program's doorbell and no packet processor") {
    Rt rt;
    hsa_region_t region{pools_of(gpu()).at(1).handle};
    Signal db(0);
    hsa_queue_t* q = nullptr;
    REQUIRE(hsa_soft_queue_create(region, 64, HSA_QUEUE_TYPE_SINGLE, HSA_QUEUE_FEATURE_AGENT_DISPATCH, db.s, &q) ==
            HSA_STATUS_SUCCESS);
    CHECK(q->doorbell_signal.handle == db.s.handle);
    CHECK(q->features == HSA_QUEUE_FEATURE_AGENT_DISPATCH);
    Signal done(1);
    Dispatch d;
    d.completion = done.s;
    submit(q, d);                                 // nobody consumes it
    CHECK(hsa_signal_load_scacquire(db.s) == 0);  // the doorbell value written by submit
    CHECK(hsa_signal_wait_scacquire(done.s, HSA_SIGNAL_CONDITION_EQ, 0, 20'000'000, HSA_WAIT_STATE_BLOCKED) == 1);
    CHECK(hsa_queue_load_read_index_relaxed(q) == 0);
    CHECK(hsa_queue_load_write_index_relaxed(q) == 1);
    CHECK(hsa_queue_destroy(q) == HSA_STATUS_SUCCESS);
    CHECK(hsa_signal_load_relaxed(db.s) == 0);  // the program's doorbell survives the queue
    CHECK(hsa_soft_queue_create(hsa_region_t{1}, 64, HSA_QUEUE_TYPE_SINGLE, 1, db.s, &q) ==
          HSA_STATUS_ERROR_INVALID_REGION);
    CHECK(hsa_soft_queue_create(region, 63, HSA_QUEUE_TYPE_SINGLE, 1, db.s, &q) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_soft_queue_create(region, 64, HSA_QUEUE_TYPE_SINGLE, 1, hsa_signal_t{3}, &q) ==
          HSA_STATUS_ERROR_INVALID_SIGNAL);
}
