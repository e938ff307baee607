// test/hostile/test_hostile_core.cpp — issue 40's hostile cases against libencore itself, each
// bounded by a watchdog (a hang fails in seconds): two callback threads whose callbacks flush each
// other's buffer (item 1); traced calls from a signal handler while threads start and end
// (item 9); records written from a signal handler that interrupts the thread's own record
// (item 10); rocprofiler_start/stop_context from a signal handler (item 11).
#include "../../src/core/buffer.hpp"
#include "../support/fake_hsa.hpp"
#include "../support/tool_fixture.hpp"
#include "watchdog.hpp"

#include <encore/tracing/hsa.hpp>
#include <rocprofiler-sdk/hsa/api_id.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <doctest/doctest.h>

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

using namespace encore;
using test_hostile::watchdog;
using test_support::run_tool;

namespace {

constexpr std::uint32_t test_category = ROCPROFILER_BUFFER_CATEGORY_COUNTERS;

long gettid_now() { return ::syscall(SYS_gettid); }

// A payload whose every word is known from (producer, seq): a record cut or overwritten by
// another shows.
struct payload64 {
    std::uint64_t producer;
    std::uint64_t seq;
    std::uint64_t check[6];
};
static_assert(sizeof(payload64) == 64);
payload64 make_payload(std::uint64_t producer, std::uint64_t seq) {
    payload64 p{producer, seq, {}};
    for (std::uint64_t k = 0; k < 6; ++k) p.check[k] = (producer << 56) ^ (seq * 0x9e3779b97f4a7c15ull) ^ k;
    return p;
}
bool intact(const payload64& p) {
    const payload64 want = make_payload(p.producer, p.seq);
    return std::memcmp(&p, &want, sizeof p) == 0;
}

// Installs `handler` for `sig` (SA_RESTART, nothing masked) and puts the old one back.
struct handler_scope {
    int sig;
    struct sigaction old {};
    handler_scope(int s, void (*handler)(int)) : sig(s) {
        struct sigaction sa {};
        sa.sa_handler = handler;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, &old);
    }
    ~handler_scope() { ::sigaction(sig, &old, nullptr); }
};

// run_tool's set-up for the cases that watch traced calls one by one: a context with `cb` on
// hsa_signal_load_relaxed's callback tracing, started. 0 when it is.
int start_load_callbacks(rocprofiler_callback_tracing_cb_t cb) {
    rocprofiler_context_id_t ctx{};
    const rocprofiler_tracing_operation_t ops[] = {ROCPROFILER_HSA_CORE_API_ID_hsa_signal_load_relaxed};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, ops, 1, cb,
                                                       nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return static_cast<int>(rocprofiler_start_context(ctx));
}

}  // namespace

// ---- item 1 ---------------------------------------------------------------------------------------

namespace {
struct flush_pair {
    rocprofiler_buffer_id_t a{}, b{};
    std::atomic<std::uint64_t> records[2]{};
    std::atomic<int> flush_ok{0}, flush_busy{0}, flush_other{0};
} g_pair;

void flush_other_cb(rocprofiler_context_id_t, rocprofiler_buffer_id_t buf, rocprofiler_record_header_t**, size_t n,
                    void*, uint64_t) {
    const bool is_a = buf.handle == g_pair.a.handle;
    g_pair.records[is_a ? 0 : 1] += n;
    // Each callback asks for the other buffer's delivery and waits for it: the other's callback
    // does the same, on the other callback thread.
    switch (rocprofiler_flush_buffer(is_a ? g_pair.b : g_pair.a)) {
        case ROCPROFILER_STATUS_SUCCESS: ++g_pair.flush_ok; break;
        case ROCPROFILER_STATUS_ERROR_BUFFER_BUSY: ++g_pair.flush_busy; break;
        default: ++g_pair.flush_other; break;
    }
}
}  // namespace

TEST_CASE("item 1: two buffers on two callback threads whose callbacks flush each other do not hang") {
    const watchdog w(30, "item 1: callbacks flushing each other's buffer");
    run_tool([] {
        rocprofiler_context_id_t ctx{};
        rocprofiler_callback_thread_t ta{}, tb{};
        if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
        // Small LOSSLESS rings: the producer blocks on a full ring while the callbacks wait.
        for (auto* b : {&g_pair.a, &g_pair.b})
            if (rocprofiler_create_buffer(ctx, 4096, 2048, ROCPROFILER_BUFFER_POLICY_LOSSLESS, &flush_other_cb, nullptr,
                                          b) != ROCPROFILER_STATUS_SUCCESS)
                return 1;
        if (rocprofiler_create_callback_thread(&ta) != ROCPROFILER_STATUS_SUCCESS ||
            rocprofiler_create_callback_thread(&tb) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        if (rocprofiler_assign_callback_thread(g_pair.a, ta) != ROCPROFILER_STATUS_SUCCESS ||
            rocprofiler_assign_callback_thread(g_pair.b, tb) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        return 0;
    });
    constexpr std::uint64_t per_buffer = 20000;
    for (std::uint64_t i = 0; i < per_buffer; ++i) {
        const payload64 p = make_payload(0, i);
        REQUIRE(core::buffer_emit(g_pair.a, test_category, 1, &p, sizeof p) == ROCPROFILER_STATUS_SUCCESS);
        REQUIRE(core::buffer_emit(g_pair.b, test_category, 1, &p, sizeof p) == ROCPROFILER_STATUS_SUCCESS);
    }
    CHECK(rocprofiler_flush_buffer(g_pair.a) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(rocprofiler_flush_buffer(g_pair.b) == ROCPROFILER_STATUS_SUCCESS);
    // LOSSLESS: every record, and every flush answered (done, or refused where it would have
    // waited for a callback thread that waits for this one).
    CHECK(g_pair.records[0].load() == per_buffer);
    CHECK(g_pair.records[1].load() == per_buffer);
    CHECK(g_pair.flush_other.load() == 0);
    CHECK(g_pair.flush_ok.load() > 0);
    MESSAGE("flushes from callbacks: " << g_pair.flush_ok.load() << " done, " << g_pair.flush_busy.load() << " busy");
}

// ---- item 10 --------------------------------------------------------------------------------------

namespace {
struct emit_log {
    rocprofiler_buffer_id_t buf{};
    std::mutex m;
    std::vector<payload64> records;
    std::uint64_t drops = 0;
    std::uint64_t corrupt = 0;
} g_emit;
std::atomic<std::uint64_t> g_handler_seq{0};
std::atomic<std::uint64_t> g_handler_refused{0};

void emit_log_cb(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t** h, size_t n, void*,
                 uint64_t drops) {
    std::lock_guard lk(g_emit.m);
    g_emit.drops += drops;
    for (size_t i = 0; i < n; ++i) {
        payload64 p;
        std::memcpy(&p, h[i]->payload, sizeof p);
        if (h[i]->category != test_category || h[i]->kind != 1 + p.producer || !intact(p))
            ++g_emit.corrupt;
        else
            g_emit.records.push_back(p);
    }
}

// A signal-driven sampler's record: written from the handler, on the thread it interrupted.
void emit_from_handler(int) {
    const int saved = errno;
    const payload64 p = make_payload(1, g_handler_seq.fetch_add(1, std::memory_order_relaxed));
    if (core::buffer_emit(g_emit.buf, test_category, 2, &p, sizeof p) != ROCPROFILER_STATUS_SUCCESS)
        g_handler_refused.fetch_add(1, std::memory_order_relaxed);
    errno = saved;
}
}  // namespace

TEST_CASE("item 10: records written from a signal handler that interrupts the thread's own: none lost unsaid, none "
          "corrupt") {
    const watchdog w(60, "item 10: buffer_emit from a signal handler");
    run_tool([] {
        rocprofiler_context_id_t ctx{};
        if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
        return static_cast<int>(rocprofiler_create_buffer(ctx, 1 << 20, 1 << 19, ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                                                          &emit_log_cb, nullptr, &g_emit.buf));
    });
    const handler_scope hs(SIGUSR1, &emit_from_handler);
    const long me = gettid_now();
    std::atomic<bool> stop{false};
    // Signals at the writing thread as fast as they go.
    std::thread signaller([&] {
        while (!stop.load(std::memory_order_relaxed)) ::syscall(SYS_tgkill, ::getpid(), me, SIGUSR1);
    });
    // For a while (signals need time to arrive), in rounds of records.
    std::uint64_t mine = 0;
    std::uint64_t refused = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < until)
        for (int i = 0; i < 1000; ++i, ++mine) {
            const payload64 p = make_payload(0, mine);
            if (core::buffer_emit(g_emit.buf, test_category, 1, &p, sizeof p) != ROCPROFILER_STATUS_SUCCESS) ++refused;
        }
    stop = true;
    signaller.join();
    CHECK(rocprofiler_flush_buffer(g_emit.buf) == ROCPROFILER_STATUS_SUCCESS);
    std::lock_guard lk(g_emit.m);
    const std::uint64_t theirs = g_handler_seq.load();
    CHECK(g_emit.corrupt == 0);
    // Every record written is delivered or counted as dropped (drop_count), and every drop was
    // answered to its writer (OUT_OF_RESOURCES).
    CHECK(g_emit.records.size() + g_emit.drops == mine + theirs);
    CHECK(g_emit.drops == refused + g_handler_refused.load());
    // Each writer's records in order, none twice.
    std::uint64_t next[2] = {0, 0};
    std::uint64_t out_of_order = 0;
    for (const auto& p : g_emit.records) {
        if (p.seq < next[p.producer]) ++out_of_order;
        next[p.producer] = p.seq + 1;
    }
    CHECK(out_of_order == 0);
    MESSAGE(theirs << " records from the handler, " << g_emit.drops << " dropped (" << refused
                   << " of the thread's own)");
}

// A sampler's traced calls, through the buffer tracing service of a context that also has the
// tool's own callback on the kind (the paired services' path: the buffer record's start time is
// kept per thread): every call a record or a counted drop, each record whole, no id twice.
namespace {
struct api_log {
    rocprofiler_buffer_id_t buf{};
    std::mutex m;
    std::vector<rocprofiler_buffer_tracing_hsa_api_record_t> recs;
    std::uint64_t drops = 0;
} g_api;
fake_hsa::tables* g_api_tables = nullptr;
std::atomic<std::uint64_t> g_api_handler_calls{0};

void api_log_cb(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t** h, size_t n, void*,
                uint64_t drops) {
    std::lock_guard lk(g_api.m);
    g_api.drops += drops;
    for (size_t i = 0; i < n; ++i)
        g_api.recs.push_back(*static_cast<const rocprofiler_buffer_tracing_hsa_api_record_t*>(h[i]->payload));
}
void tool_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) ud->value = r.correlation_id.internal;
}
void api_call_from_handler(int) {
    const int saved = errno;
    g_api_tables->core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
    g_api_handler_calls.fetch_add(1, std::memory_order_relaxed);
    errno = saved;
}
}  // namespace

TEST_CASE("item 10: traced calls from a signal handler through the buffer service: counted, whole, ids unique") {
    const watchdog w(60, "item 10: traced calls from a signal handler, buffer service");
    static fake_hsa::tables t;
    g_api_tables = &t;
    (void)fake_hsa::calls();
    run_tool([] {
        rocprofiler_context_id_t ctx{};
        const rocprofiler_tracing_operation_t ops[] = {ROCPROFILER_HSA_CORE_API_ID_hsa_signal_load_relaxed};
        if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
        if (rocprofiler_create_buffer(ctx, 1 << 20, 1 << 19, ROCPROFILER_BUFFER_POLICY_LOSSLESS, &api_log_cb, nullptr,
                                      &g_api.buf) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        if (rocprofiler_configure_buffer_tracing_service(ctx, ROCPROFILER_BUFFER_TRACING_HSA_CORE_API, ops, 1,
                                                         g_api.buf) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        if (rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, ops, 1,
                                                           &tool_cb, nullptr) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        return static_cast<int>(rocprofiler_start_context(ctx));
    });
    tracing::hsa_all::install(t.root);
    const handler_scope hs(SIGUSR1, &api_call_from_handler);
    const long me = gettid_now();
    std::atomic<bool> stop{false};
    std::thread signaller([&] {
        while (!stop.load(std::memory_order_relaxed)) ::syscall(SYS_tgkill, ::getpid(), me, SIGUSR1);
    });
    std::uint64_t mine = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < until)
        for (int i = 0; i < 1000; ++i, ++mine) t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
    stop = true;
    signaller.join();
    tracing::hsa_all::uninstall(t.root);
    CHECK(rocprofiler_flush_buffer(g_api.buf) == ROCPROFILER_STATUS_SUCCESS);
    std::lock_guard lk(g_api.m);
    const std::uint64_t theirs = g_api_handler_calls.load();
    CHECK(g_api.recs.size() + g_api.drops == mine + theirs);
    std::uint64_t bad = 0;
    std::vector<std::uint64_t> ids;
    ids.reserve(g_api.recs.size());
    for (const auto& r : g_api.recs) {
        if (r.size != sizeof(r) || r.kind != ROCPROFILER_BUFFER_TRACING_HSA_CORE_API ||
            r.operation != ROCPROFILER_HSA_CORE_API_ID_hsa_signal_load_relaxed || r.start_timestamp == 0 ||
            r.start_timestamp > r.end_timestamp)
            ++bad;
        ids.push_back(r.correlation_id.internal);
    }
    CHECK(bad == 0);
    std::sort(ids.begin(), ids.end());
    CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
    MESSAGE(theirs << " traced calls from the handler; " << g_api.drops << " records dropped");
}

#if defined(__x86_64__)
// The same race made certain: a traced call from a signal handler at each instruction where the
// interrupted traced call has taken the last id of its thread's block and not yet a new block.
// The x86 trap flag raises SIGTRAP after every instruction of the stepped call; the handler makes
// its call only while the thread's next id has passed the block's end (between the interrupted
// call's id and its refill, or inside the refill), the window a timer's signal hits rarely (item
// 10 above failed once in many runs).
namespace {
fake_hsa::tables* g_step_tables = nullptr;
std::atomic<bool> g_stepping{false};
std::atomic<std::uint64_t> g_step_handler_calls{0};
constexpr std::size_t step_ids_capacity = 1 << 16;
std::uint64_t g_step_ids[step_ids_capacity];  // internal ids at ENTER, main thread's and handler's
std::atomic<std::size_t> g_step_n{0};

void step_id_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_ENTER) return;
    const std::size_t i = g_step_n.fetch_add(1, std::memory_order_relaxed);
    if (i < step_ids_capacity) g_step_ids[i] = r.correlation_id.internal;
}
void call_at_block_end(int) {
    const int saved = errno;
    const tracing::detail::thread_fast* t = tracing::detail::t_thread;
    if (g_stepping.load(std::memory_order_relaxed) && t != nullptr && t->next_id > t->end_id) {
        g_step_tables->core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
        g_step_handler_calls.fetch_add(1, std::memory_order_relaxed);
    }
    errno = saved;
}
// The trap flag set (SIGTRAP after each instruction from here) or cleared, below the red zone.
[[gnu::noinline]] void trap_flag(bool on) {
    if (on)
        asm volatile("sub $128, %%rsp\n\tpushfq\n\torq $0x100, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::: "memory", "cc");
    else
        asm volatile("sub $128, %%rsp\n\tpushfq\n\tandq $-257, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::: "memory", "cc");
}
// Under ThreadSanitizer every access of the stepped code calls into its runtime, and a handler
// that makes a traced call from inside that runtime (the window includes refill_ids' stores)
// re-enters it, which it does not allow (hung there): the case is skipped in that build only.
#    if defined(__SANITIZE_THREAD__)
constexpr bool stepping_unsafe = true;
#    else
constexpr bool stepping_unsafe = false;
#    endif
}  // namespace

TEST_CASE("item 10: a traced call from a signal handler between a call's last id of a block and its refill: ids "
          "unique" *
          doctest::skip(stepping_unsafe)) {
    const watchdog w(60, "item 10: traced calls stepped across id blocks' ends");
    static fake_hsa::tables t;
    g_step_tables = &t;
    (void)fake_hsa::calls();
    run_tool([] { return start_load_callbacks(&step_id_cb); });
    tracing::hsa_all::install(t.root);
    const handler_scope hs(SIGTRAP, &call_at_block_end);
    t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});  // this thread's state exists from here
    const tracing::detail::thread_fast* me = tracing::detail::t_thread;
    REQUIRE(me != nullptr);
    constexpr int blocks = 8;
    int stepped = 0;
    for (int b = 0; b < blocks; ++b) {
        // Untraced by the trap up to the last id of the block; then stepped until a new block.
        const std::uint64_t end = me->end_id;
        while (me->next_id + 1 < end) t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
        while (me->end_id == end && stepped < 64) {
            g_stepping = true;
            trap_flag(true);
            t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
            trap_flag(false);
            g_stepping = false;
            ++stepped;
        }
    }
    tracing::hsa_all::uninstall(t.root);
    const std::size_t n = g_step_n.load();
    REQUIRE(n <= step_ids_capacity);
    // The handler ran in the window at each block's end (else the test tested nothing).
    CHECK(g_step_handler_calls.load() >= blocks);
    std::vector<std::uint64_t> ids(g_step_ids, g_step_ids + n);
    std::sort(ids.begin(), ids.end());
    const auto dup = std::adjacent_find(ids.begin(), ids.end());
    CHECK_MESSAGE(dup == ids.end(), "internal correlation id " << (dup == ids.end() ? 0 : *dup) << " given twice");
    MESSAGE(n << " ids, " << g_step_handler_calls.load() << " calls from the handler in the window, " << stepped
              << " calls stepped");
}
#endif

// ---- item 9 ---------------------------------------------------------------------------------------

namespace {
constexpr op_id op_load = domains::hsa_core::id_of<"hsa_signal_load_relaxed">();
static_assert(op_load == ROCPROFILER_HSA_CORE_API_ID_hsa_signal_load_relaxed);  // start_load_callbacks' op
std::atomic<std::uint64_t> g_calls_seen{0};
fake_hsa::tables* g_tables = nullptr;
std::atomic<std::uint64_t> g_handler_calls{0};

void count_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) g_calls_seen.fetch_add(1, std::memory_order_relaxed);
}

// A traced call from a signal handler (a sampler's, on whatever thread it interrupts).
void traced_call_from_handler(int) {
    const int saved = errno;
    g_tables->core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
    g_handler_calls.fetch_add(1, std::memory_order_relaxed);
    errno = saved;
}
}  // namespace

TEST_CASE("item 9: traced calls from a signal handler while threads start and end do not deadlock") {
    const watchdog w(60, "item 9: traced calls from a signal handler, threads starting and ending");
    static fake_hsa::tables t;
    g_tables = &t;
    (void)fake_hsa::calls();  // its static made here, not first in a handler
    run_tool([] { return start_load_callbacks(&count_cb); });
    tracing::hsa_all::install(t.root);
    g_calls_seen = 0;
    g_handler_calls = 0;
    const handler_scope hs(SIGUSR1, &traced_call_from_handler);
    // Workers publish their thread id; the signaller aims at whichever are alive (tgkill on an
    // ended thread's id fails, or reaches another of this process's threads: either is fine).
    constexpr int slots = 8;
    std::atomic<long> tids[slots] = {};
    std::atomic<bool> stop{false};
    std::thread signaller([&] {
        while (!stop.load(std::memory_order_relaxed))
            for (auto& tid : tids)
                if (const long id = tid.load(std::memory_order_relaxed); id != 0)
                    ::syscall(SYS_tgkill, ::getpid(), id, SIGUSR1);
    });
    // Rounds of short-lived threads for a while.
    std::uint64_t program_calls = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(4);
    while (std::chrono::steady_clock::now() < until) {
        std::vector<std::thread> workers;
        for (int s = 0; s < slots; ++s)
            workers.emplace_back([&, s] {
                tids[s].store(gettid_now(), std::memory_order_relaxed);
                // The thread's first traced call attaches it; its exit detaches it.
                t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
                t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
                tids[s].store(0, std::memory_order_relaxed);
            });
        for (auto& th : workers) th.join();
        program_calls += 2 * slots;
    }
    stop = true;
    signaller.join();
    tracing::hsa_all::uninstall(t.root);
    CHECK(g_calls_seen.load() == program_calls + g_handler_calls.load());
    MESSAGE(g_handler_calls.load() << " traced calls from the handler");
}

// ---- item 11 --------------------------------------------------------------------------------------

namespace {
rocprofiler_context_id_t g_toggled{};
std::atomic<std::uint64_t> g_toggle_ok{0}, g_toggle_refused{0}, g_toggle_other{0};
std::atomic<bool> g_toggle_on{false};

// The common tool pattern: a timer signal turns tracing on and off.
void toggle_from_handler(int) {
    const int saved = errno;
    const bool on = !g_toggle_on.load(std::memory_order_relaxed);
    const rocprofiler_status_t st = on ? rocprofiler_start_context(g_toggled) : rocprofiler_stop_context(g_toggled);
    if (st == ROCPROFILER_STATUS_SUCCESS) {
        g_toggle_on.store(on, std::memory_order_relaxed);
        g_toggle_ok.fetch_add(1, std::memory_order_relaxed);
    } else if (st == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR) {
        g_toggle_refused.fetch_add(1, std::memory_order_relaxed);
    } else {
        g_toggle_other.fetch_add(1, std::memory_order_relaxed);
    }
    errno = saved;
}
}  // namespace

TEST_CASE("item 11: start/stop_context from a signal handler do not deadlock") {
    const watchdog w(60, "item 11: start/stop_context from a signal handler");
    static rocprofiler_context_id_t mine{};
    run_tool([] {
        const rocprofiler_tracing_operation_t ops[] = {op_load};
        for (auto* c : {&g_toggled, &mine}) {
            if (rocprofiler_create_context(c) != ROCPROFILER_STATUS_SUCCESS) return 1;
            if (rocprofiler_configure_callback_tracing_service(*c, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, ops, 1,
                                                               &count_cb, nullptr) != ROCPROFILER_STATUS_SUCCESS)
                return 1;
        }
        return 0;
    });
    const handler_scope hs(SIGUSR2, &toggle_from_handler);
    const long me = gettid_now();
    std::atomic<bool> stop{false};
    std::thread signaller([&] {
        while (!stop.load(std::memory_order_relaxed)) {
            ::syscall(SYS_tgkill, ::getpid(), me, SIGUSR2);
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    });
    // First the thread does something else (outside libencore): every toggle from the handler
    // takes effect. 300 ms, and on until a toggle has landed: on a loaded machine the signaller
    // may not have run at all in 300 ms (the watchdog bounds the wait).
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (std::chrono::steady_clock::now() < until || g_toggle_ok.load(std::memory_order_relaxed) == 0)
        ::sched_yield();
    CHECK(g_toggle_ok.load() > 0);
    CHECK(g_toggle_refused.load() == 0);
    // Then it starts and stops a context of its own meanwhile (the registry's lock held often, as
    // a tool toggling per kernel holds it): a handler that interrupts it inside the lock is
    // refused (CONTEXT_ERROR), never left waiting for itself.
    constexpr int toggles = 100000;
    int failed = 0;
    for (int i = 0; i < toggles; ++i) {
        if (rocprofiler_start_context(mine) != ROCPROFILER_STATUS_SUCCESS) ++failed;
        if (rocprofiler_stop_context(mine) != ROCPROFILER_STATUS_SUCCESS) ++failed;
    }
    stop = true;
    signaller.join();
    CHECK(failed == 0);
    CHECK(g_toggle_other.load() == 0);
    // Whatever the handler left, the context's state is what its last successful call set.
    int active = -1;
    REQUIRE(rocprofiler_context_is_active(g_toggled, &active) == ROCPROFILER_STATUS_SUCCESS);
    CHECK((active != 0) == g_toggle_on.load());
    MESSAGE("from the handler: " << g_toggle_ok.load() << " done, " << g_toggle_refused.load()
                                 << " refused (CONTEXT_ERROR: the thread was inside encore's lock)");
}
