// benchmarks/bench_buffer.cpp — the cost of a buffered record, side by side:
//   ring/threads:N          one 64-byte record into a LOSSLESS buffer (core::buffer_emit: the
//                           producer's own ring), N producer threads, encore's callback thread
//                           draining it meanwhile (so: the transport's throughput per producer)
//   ring_burst/threads:N    the producer's cost alone: bursts that fit the ring, each followed by
//                           a flush outside the timed region
//   double_buffer/threads:N the same records into a mutex-protected shared double buffer drained
//                           by a consumer thread (the shape of the reference SDK's buffers), as a
//                           baseline written here
//   double_buffer_burst/threads:N  the same bursts into it, drained outside the timed region
//   ring_rounds/threads:N   the producer's cost with N producers writing at once: rounds of half a
//                           ring's worth of records shared by the N threads, each thread timing
//                           its own writes (counter ns_per_record, the mean over threads), the
//                           buffer drained between rounds while every producer waits (the
//                           rounds design of the reference's transport proposal: records x
//                           rounds)
//   floor_rounds/threads:N  the same rounds written inline with nothing but the stores, read
//                           between rounds by a consumer thread of its own as encore's callback
//                           thread reads the rings (the machine's floor for this record shape and
//                           transport); _wide: with 16-byte moves
// The rounds also report ns_per_record_p50: each thread's median round (what the record path costs
// when the producer was not preempted mid-round; the mean includes those rounds).
//   double_buffer_rounds/threads:N  the same rounds into the shared double buffer
//   hsa_call_callback       one traced HSA call, one context with a no-op callback (by value)
//   hsa_call_buffer         the same call with a buffer tracing service instead: the record is
//                           written at EXIT and delivered in batches on the callback thread
// Per-record figures are real time per iteration of one producer (with N threads, each thread's
// view: on a machine with fewer cores than N the threads share cores); items_per_second is the
// aggregate. See RESULTS.md.
#include "../src/core/buffer.hpp"
#include "../test/support/fake_hsa.hpp"

#include <encore/tracing/hsa.hpp>
#include <rocprofiler-sdk/hsa/api_id.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace {

struct record64 {
    std::uint64_t words[8];
};
static_assert(sizeof(record64) == 64);

// Bytes per producer ring (the buffer's size): ENCORE_BENCH_RING_BYTES, default 1 MiB. A ring that
// fits the core's L2 is written without a cache miss per record (RESULTS.md compares sizes).
const std::size_t ring_bytes = [] {
    const char* e = std::getenv("ENCORE_BENCH_RING_BYTES");
    const unsigned long long v = e != nullptr ? std::strtoull(e, nullptr, 0) : 0;
    return v >= 4096 ? static_cast<std::size_t>(v) : std::size_t{1} << 20;
}();
const std::size_t watermark = ring_bytes / 2;

std::atomic<std::uint64_t> g_delivered{0};
void count_records(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t** h, size_t n, void*,
                   uint64_t) {
    std::uint64_t sum = 0;
    for (size_t i = 0; i < n; ++i) sum += static_cast<const record64*>(h[i]->payload)->words[0];
    benchmark::DoNotOptimize(sum);
    g_delivered.fetch_add(n, std::memory_order_relaxed);
}

// ---- the traced call (as bench_tracing.cpp) ------------------------------------------------------

std::int64_t g_signal_value = 42;
[[gnu::noinline]] hsa_signal_value_t plain_signal_load(hsa_signal_t s) {
    benchmark::DoNotOptimize(s);
    return g_signal_value;
}
struct bench_tables : fake_hsa::tables {
    bench_tables() { core.hsa_signal_load_relaxed_fn = &plain_signal_load; }
};
bench_tables g_tables;

rocprofiler_context_id_t g_ring_ctx{}, g_cb_ctx{}, g_buf_ctx{};
rocprofiler_buffer_id_t g_ring{}, g_burst{}, g_call_buf{};
// Records per burst: half a ring (72 bytes a record in it), so a burst never waits.
const std::int64_t burst = static_cast<std::int64_t>(ring_bytes / 72 / 2);

void noop_cb(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {}

int init(void*) {
    const rocprofiler_tracing_operation_t op[] = {ROCPROFILER_HSA_CORE_API_ID_hsa_signal_load_relaxed};
    if (rocprofiler_create_context(&g_ring_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_create_buffer(g_ring_ctx, ring_bytes, watermark, ROCPROFILER_BUFFER_POLICY_LOSSLESS, &count_records,
                                  nullptr, &g_ring) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (rocprofiler_create_buffer(g_ring_ctx, ring_bytes, ring_bytes, ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                                  &count_records, nullptr, &g_burst) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (rocprofiler_create_context(&g_cb_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(g_cb_ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, op, 1,
                                                       &noop_cb, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (rocprofiler_create_context(&g_buf_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_create_buffer(g_buf_ctx, ring_bytes, watermark, ROCPROFILER_BUFFER_POLICY_LOSSLESS, &count_records,
                                  nullptr, &g_call_buf) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (rocprofiler_configure_buffer_tracing_service(g_buf_ctx, ROCPROFILER_BUFFER_TRACING_HSA_CORE_API, op, 1,
                                                     g_call_buf) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return 0;
}
encore::tool_registration g_reg{"bench-buffer", &init};

struct setup {
    setup() {
        encore::initialize();
        encore::tracing::hsa_all::install(g_tables.root);
    }
} g_setup;

// ---- the baseline: a mutex-protected shared double buffer ----------------------------------------

class double_buffer {
public:
    explicit double_buffer(std::size_t bytes) : halves_{std::vector<std::byte>(bytes), std::vector<std::byte>(bytes)} {
        consumer_ = std::thread([this] { consume(); });
    }
    ~double_buffer() {
        {
            std::lock_guard lk(m_);
            stop_ = true;
        }
        cv_.notify_all();
        consumer_.join();
    }
    void push(const void* p, std::size_t n) {
        std::unique_lock lk(m_);
        if (used_ + n > halves_[active_].size()) {
            // Full: hand this half to the consumer and wait until the other one is free.
            cv_.wait(lk, [&] { return !full_; });
            full_ = true;
            full_bytes_ = used_;
            active_ ^= 1;
            used_ = 0;
            cv_.notify_all();
        }
        std::memcpy(halves_[active_].data() + used_, p, n);
        used_ += n;
    }
    void drain() {
        std::unique_lock lk(m_);
        cv_.wait(lk, [&] { return !full_; });
        records_ += used_ / sizeof(record64);
        used_ = 0;
    }
    std::uint64_t records() {
        std::lock_guard lk(m_);
        return records_;
    }

private:
    void consume() {
        std::unique_lock lk(m_);
        for (;;) {
            cv_.wait(lk, [&] { return full_ || stop_; });
            if (stop_ && !full_) return;
            const auto& half = halves_[active_ ^ 1];
            const std::size_t bytes = full_bytes_;
            lk.unlock();
            std::uint64_t sum = 0;
            for (std::size_t off = 0; off < bytes; off += sizeof(record64))
                sum += reinterpret_cast<const record64*>(half.data() + off)->words[0];
            benchmark::DoNotOptimize(sum);
            lk.lock();
            records_ += bytes / sizeof(record64);
            full_ = false;
            cv_.notify_all();
        }
    }

    std::mutex m_;
    std::condition_variable cv_;
    std::vector<std::byte> halves_[2];
    int active_ = 0;
    std::size_t used_ = 0;
    bool full_ = false;
    std::size_t full_bytes_ = 0;
    bool stop_ = false;
    std::uint64_t records_ = 0;
    std::thread consumer_;
};

double_buffer* g_double = nullptr;

// ---- benchmarks ------------------------------------------------------------------------------------

void ring(benchmark::State& state) {
    record64 r{};
    r.words[0] = static_cast<std::uint64_t>(state.thread_index()) + 1;
    for (auto _ : state) {
        if (encore::core::buffer_emit(g_ring, ROCPROFILER_BUFFER_CATEGORY_TRACING, 1, &r, sizeof r) !=
            ROCPROFILER_STATUS_SUCCESS)
            state.SkipWithError("a LOSSLESS record was not written");
        ++r.words[1];
    }
    state.SetItemsProcessed(state.iterations());
    if (state.thread_index() == 0) rocprofiler_flush_buffer(g_ring);
}

void ring_burst(benchmark::State& state) {
    record64 r{};
    r.words[0] = static_cast<std::uint64_t>(state.thread_index()) + 1;
    std::int64_t n = 0;
    for (auto _ : state) {
        if (encore::core::buffer_emit(g_burst, ROCPROFILER_BUFFER_CATEGORY_TRACING, 1, &r, sizeof r) !=
            ROCPROFILER_STATUS_SUCCESS)
            state.SkipWithError("a LOSSLESS record was not written");
        ++r.words[1];
        if (++n == burst) {
            state.PauseTiming();
            rocprofiler_flush_buffer(g_burst);
            state.ResumeTiming();
            n = 0;
        }
    }
    state.SetItemsProcessed(state.iterations());
    if (state.thread_index() == 0) rocprofiler_flush_buffer(g_burst);
}

void double_buffered_burst(benchmark::State& state) {
    if (state.thread_index() == 0) g_double = new double_buffer(ring_bytes);
    record64 r{};
    r.words[0] = static_cast<std::uint64_t>(state.thread_index()) + 1;
    std::int64_t n = 0;
    for (auto _ : state) {
        g_double->push(&r, sizeof r);
        ++r.words[1];
        if (++n == burst) {
            state.PauseTiming();
            g_double->drain();
            state.ResumeTiming();
            n = 0;
        }
    }
    state.SetItemsProcessed(state.iterations());
    if (state.thread_index() == 0) g_double->drain();
}

void double_buffered(benchmark::State& state) {
    if (state.thread_index() == 0) g_double = new double_buffer(ring_bytes);
    // Google Benchmark starts every thread's loop together, after the setup above.
    record64 r{};
    r.words[0] = static_cast<std::uint64_t>(state.thread_index()) + 1;
    for (auto _ : state) {
        g_double->push(&r, sizeof r);
        ++r.words[1];
    }
    state.SetItemsProcessed(state.iterations());
    if (state.thread_index() == 0) {
        // The other threads have left the loop (the benchmark waits for all before teardown).
        g_double->drain();
    }
}

void teardown_double(const benchmark::State&) {
    delete g_double;
    g_double = nullptr;
}

// ---- rounds: N producers writing at once, each timing its own records ----------------------------

std::barrier<>* g_round_barrier = nullptr;
void setup_rounds(const benchmark::State& state) {
    g_round_barrier = new std::barrier<>(state.threads());
    if (g_double == nullptr) g_double = new double_buffer(ring_bytes);
}
void teardown_rounds(const benchmark::State&) {
    delete g_round_barrier;
    g_round_barrier = nullptr;
    delete g_double;
    g_double = nullptr;
}

template <class Write, class Drain>
void rounds(benchmark::State& state, Write write, Drain drain) {
    record64 r{};
    r.words[0] = static_cast<std::uint64_t>(state.thread_index()) + 1;
    std::int64_t ns = 0, records = 0;
    // Half a ring's worth per round, all threads together: below the watermark (the buffer's
    // whole size), so no delivery runs while producers write; what a round measures is the
    // producers alone, N of them at once.
    const std::int64_t per_thread = std::max<std::int64_t>(burst / state.threads(), 64);
    std::vector<double> per_round;  // ns per record of each round (reserved: no allocation timed)
    per_round.reserve(1 << 16);
    for (auto _ : state) {
        g_round_barrier->arrive_and_wait();
        const auto t0 = std::chrono::steady_clock::now();
        for (std::int64_t i = 0; i < per_thread; ++i) {
            write(r);
            ++r.words[1];
        }
        const auto t1 = std::chrono::steady_clock::now();
        const auto round_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
        ns += round_ns;
        records += per_thread;
        if (per_round.size() < per_round.capacity())
            per_round.push_back(static_cast<double>(round_ns) / static_cast<double>(per_thread));
        g_round_barrier->arrive_and_wait();
        if (state.thread_index() == 0) drain();
        g_round_barrier->arrive_and_wait();
    }
    state.counters["ns_per_record"] = benchmark::Counter(
        records != 0 ? static_cast<double>(ns) / static_cast<double>(records) : 0.0, benchmark::Counter::kAvgThreads);
    double p50 = 0;
    if (!per_round.empty()) {
        auto mid = per_round.begin() + static_cast<std::ptrdiff_t>(per_round.size() / 2);
        std::nth_element(per_round.begin(), mid, per_round.end());
        p50 = *mid;
    }
    state.counters["ns_per_record_p50"] = benchmark::Counter(p50, benchmark::Counter::kAvgThreads);
    state.SetItemsProcessed(records);
}

void ring_rounds(benchmark::State& state) {
    rounds(
        state,
        [&](const record64& r) {
            if (encore::core::buffer_emit(g_burst, ROCPROFILER_BUFFER_CATEGORY_TRACING, 1, &r, sizeof r) !=
                ROCPROFILER_STATUS_SUCCESS)
                state.SkipWithError("a LOSSLESS record was not written");
        },
        [] { rocprofiler_flush_buffer(g_burst); });
}

// The floor: the least a producer can do per record in these rounds, written inline here (no
// call, no checks, no TLS, a fixed size): one 8-byte header and the 64-byte payload at a
// position in the thread's own array, and a release store of the position. Between rounds
// every record is read by a consumer thread of its own, woken for the drain and waited for as
// rocprofiler_flush_buffer wakes and waits for the callback thread, so the lines are where a
// consumer on another core leaves them. (Until 2026-12-02 thread 0 read them: with one producer
// its own lines stayed in its own cache, a floor 2 to 4 ns below what any transport with a
// separate consumer can reach; RESULTS.md.)
struct floor_ring {
    alignas(64) std::atomic<std::uint64_t> head{0};
    std::vector<std::byte> data;
};
std::vector<floor_ring>* g_floor = nullptr;

void read_floor_rings() {
    std::uint64_t sum = 0;
    for (auto& f : *g_floor) {
        const std::uint64_t h = f.head.load(std::memory_order_acquire);
        const std::uint64_t round = static_cast<std::uint64_t>(burst) * 72;  // at most what a round wrote
        const std::uint64_t from = h >= round ? h - round : 0;
        for (std::uint64_t p = from; p < h; p += 72) {
            std::uint64_t w;
            std::memcpy(&w, f.data.data() + (p & (ring_bytes - 1)) + 8, 8);
            sum += w;
        }
    }
    benchmark::DoNotOptimize(sum);
}

class floor_consumer {
public:
    floor_consumer() : thread_([this] { run(); }) {}
    ~floor_consumer() {
        stop_.store(true);
        asked_.fetch_add(1);
        asked_.notify_one();
        thread_.join();
    }
    void drain() {
        const std::uint32_t n = asked_.fetch_add(1) + 1;
        asked_.notify_one();
        for (std::uint32_t d = done_.load(); d != n; d = done_.load()) done_.wait(d);
    }

private:
    void run() {
        std::uint32_t seen = 0;
        for (;;) {
            asked_.wait(seen);
            seen = asked_.load();
            if (stop_.load()) return;
            read_floor_rings();
            done_.store(seen);
            done_.notify_one();
        }
    }
    std::atomic<std::uint32_t> asked_{0}, done_{0};
    std::atomic<bool> stop_{false};
    std::thread thread_;
};
floor_consumer* g_floor_consumer = nullptr;

void setup_floor(const benchmark::State& state) {
    setup_rounds(state);
    g_floor = new std::vector<floor_ring>(static_cast<std::size_t>(state.threads()));
    for (auto& f : *g_floor) f.data.assign(ring_bytes + 72, std::byte{1});  // a record may end past the mask
    g_floor_consumer = new floor_consumer();
}
void teardown_floor(const benchmark::State& state) {
    delete g_floor_consumer;
    g_floor_consumer = nullptr;
    delete g_floor;
    g_floor = nullptr;
    teardown_rounds(state);
}
template <bool Wide>
void floor_rounds(benchmark::State& state) {
    floor_ring& mine = (*g_floor)[static_cast<std::size_t>(state.thread_index())];
    const std::uint64_t mask = ring_bytes - 1;
    rounds(
        state,
        [&](const record64& r) {
            const std::uint64_t h = mine.head.load(std::memory_order_relaxed);
            std::byte* d = mine.data.data() + (h & mask);
            const std::uint64_t header = 72 | std::uint64_t{1} << 32;
            std::memcpy(d, &header, 8);
            if constexpr (Wide) {
                std::memcpy(d + 8, &r, sizeof r);  // the compiler's choice: 16-byte moves
            } else {
                for (int i = 0; i < 8; ++i) {  // 8-byte words, as the record was written
                    std::uint64_t w = r.words[i];
                    asm("" : "+r"(w));
                    std::memcpy(d + 8 + 8 * i, &w, 8);
                }
            }
            mine.head.store(h + 72, std::memory_order_release);
        },
        [] { g_floor_consumer->drain(); });
}

void double_buffer_rounds(benchmark::State& state) {
    rounds(
        state, [](const record64& r) { g_double->push(&r, sizeof r); }, [] { g_double->drain(); });
}

void call(benchmark::State& state) {
    hsa_signal_t s{1};
    for (auto _ : state) {
        benchmark::DoNotOptimize(s);
        benchmark::DoNotOptimize(g_tables.core.hsa_signal_load_relaxed_fn(s));
    }
}
void hsa_call_callback(benchmark::State& state) {
    rocprofiler_start_context(g_cb_ctx);
    call(state);
    rocprofiler_stop_context(g_cb_ctx);
}
void hsa_call_buffer(benchmark::State& state) {
    rocprofiler_start_context(g_buf_ctx);
    call(state);
    rocprofiler_stop_context(g_buf_ctx);
    rocprofiler_flush_buffer(g_call_buf);
}

BENCHMARK(ring)->Threads(1)->Threads(16)->UseRealTime();
BENCHMARK(ring_burst)->Threads(1)->Threads(16)->UseRealTime();
BENCHMARK(double_buffered)->Name("double_buffer")->Threads(1)->Threads(16)->UseRealTime()->Teardown(teardown_double);
BENCHMARK(double_buffered_burst)->Name("double_buffer_burst")->Threads(1)->Threads(16)->UseRealTime()->Teardown(teardown_double);
BENCHMARK(ring_rounds)->Threads(1)->Threads(4)->Threads(16)->UseRealTime()->Setup(setup_rounds)->Teardown(teardown_rounds);
BENCHMARK(floor_rounds<false>)
    ->Name("floor_rounds")
    ->Threads(1)
    ->Threads(4)
    ->Threads(16)
    ->UseRealTime()
    ->Setup(setup_floor)
    ->Teardown(teardown_floor);
BENCHMARK(floor_rounds<true>)
    ->Name("floor_rounds_wide")
    ->Threads(1)
    ->Threads(4)
    ->Threads(16)
    ->UseRealTime()
    ->Setup(setup_floor)
    ->Teardown(teardown_floor);
BENCHMARK(double_buffer_rounds)->Threads(1)->Threads(4)->Threads(16)->UseRealTime()->Setup(setup_rounds)->Teardown(teardown_rounds);
BENCHMARK(hsa_call_callback);
BENCHMARK(hsa_call_buffer);

}  // namespace

BENCHMARK_MAIN();
