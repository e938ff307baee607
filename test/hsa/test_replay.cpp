// test/hsa/test_replay.cpp — KERNEL_REPLAY end to end on the software HSA runtime.
//
// The program is its own tool (rocprofiler_configure) and runs with HSA_TOOLS_LIB. Modes:
//   rules         the seed's rules one dispatch at a time: pass counts (fixed, continue stopping
//                 early, indefinite loop stopped by continue, opt-out, 1, 0 without continue),
//                 the user_data table, local context toggles (and their illegal uses), one
//                 dispatch id for every pass, identical inputs on every pass (checksum), SNAPSHOT/
//                 RESTORE records, the program's memory and signals as without replay; plus the
//                 configuration rules (one context, options API).
//   budget        ENCORE_REPLAY_MEMORY_BUDGET too small: declined with the reason, run once.
//   restore_fail  runs itself as a child with a restore failure injected: the child aborts
//                 with the message (the seed's rule).
//   async_copy    an async copy submitted during a replay waits for it
//   fill          an hsa_amd_memory_fill into the replayed agent's memory from another thread
//                 during a replay waits for it (the replay gate), then lands
//   stop_midway   the replay context stopped during a sequence
//   declines      a drain that times out, a pass that does not complete in time, a
//                 multi-packet submission
//   nested        a dispatch submitted from a PASS callback on the same agent: no deadlock
//   stress        threads x queues x two agents, thousands of dispatches, a fraction replayed,
//                 async copies during replays: nothing lost or duplicated, results match.
//   incremental   kernel replay's snapshots kept between dispatches (changed_chunks, write
//                 tracking): what the program writes between two replayed dispatches (a host
//                 copy, a dispatch not replayed, memory allocated since) reaches the next
//                 snapshot, and results are as without replay; with userfaultfd each snapshot
//                 after the first copies less than it holds (TEST_INCREMENTAL=whole: the SIGSEGV
//                 path, every snapshot copied whole).
//   incremental_budget  two agents, a budget that holds one snapshot: the copies kept stay within it.
//   pass_dependent  a kernel whose writes depend on the pass (index in host memory), then a
//                 replayed dispatch over its last pass's writes (the kept copy must have them).
//   cap           runs itself as a child: a pass count of 2^64-1 and a replay_continue that
//                 never returns 0 stop at the pass cap (TEST_REPLAY_CAP passes: the
//                 ENCORE_REPLAY_MAX_PASSES the test sets, or the default), warned once per kernel,
//                 with progress lines; the program's results as without replay.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/rocprofiler.h>
#include <encore/encore.hpp>

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

using test_support::expect;

using example::AppendArgs;
using example::CounterArgs;
using example::SaxpyArgs;

std::string g_mode;
rocprofiler_context_id_t g_replay_ctx{}, g_trace_b{}, g_stopped_c{};

// ---- what the tool sees -------------------------------------------------------------------------
struct replay_seen {
    int config_enter = 0, config_exit = 0, pass_enter = 0, pass_exit = 0, snapshot = 0, restore = 0;
    int continue_calls = 0;
    std::uint64_t passes_run = 0, total = 0, snapshot_bytes = 0, snapshot_copied = 0;
    std::uint64_t correlation = 0;
    bool correlation_same = true;
    const char* declined = nullptr;
    std::vector<std::uint64_t> checksums;      // at each PASS ENTER
    std::vector<std::uint64_t> ud_pass_enter;  // user_data seen at PASS ENTER
    std::vector<std::uint64_t> ud_pass_exit;
    std::vector<std::uint64_t> ud_continue;
    std::uint64_t ud_pass_count = 0, ud_config_exit = 0;
    rocprofiler_timestamp_t config_exit_ts = 0;
    std::map<std::uint64_t, int> dispatch_records;  // context handle -> ENQUEUE enters during passes
};
std::mutex g_mutex;
std::map<std::uint64_t, replay_seen> g_seen;  // by dispatch id
std::vector<std::uint64_t> g_order;           // dispatch ids in CONFIG order
std::atomic<int> g_complete_total{0};
std::map<std::uint64_t, int> g_complete_by_dispatch;  // ctx A COMPLETE count per dispatch id

std::atomic<bool> g_replay_started{false};
std::atomic<std::uint64_t> g_optout_queue{~0ull};
std::function<void()> g_nested_hook;  // runs in PASS ENTER of pass 1 (nested mode)

// The policy for the n-th dispatch (rules mode): what CONFIG ENTER sets.
int g_nth = 0;

std::uint64_t pass_count_fixed3(rocprofiler_kernel_dispatch_info_t info, rocprofiler_user_data_t ud) {
    std::lock_guard lk(g_mutex);
    g_seen[info.dispatch_id].ud_pass_count = ud.value;
    return 3;
}
std::uint64_t pass_count_5(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return 5; }
std::uint64_t pass_count_0(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return 0; }
std::uint64_t pass_count_1(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return 1; }
std::uint64_t pass_count_2(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return 2; }
std::uint64_t pass_count_max(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return UINT64_MAX; }

int continue_always(rocprofiler_kernel_dispatch_info_t info, uint64_t, uint64_t, rocprofiler_user_data_t ud) {
    std::lock_guard lk(g_mutex);
    auto& s = g_seen[info.dispatch_id];
    ++s.continue_calls;
    s.ud_continue.push_back(ud.value);
    return 1;
}
int continue_until_1(rocprofiler_kernel_dispatch_info_t info, uint64_t cur, uint64_t, rocprofiler_user_data_t) {
    std::lock_guard lk(g_mutex);
    ++g_seen[info.dispatch_id].continue_calls;
    return cur < 1 ? 1 : 0;
}
int continue_until_3(rocprofiler_kernel_dispatch_info_t info, uint64_t cur, uint64_t total, rocprofiler_user_data_t) {
    std::lock_guard lk(g_mutex);
    ++g_seen[info.dispatch_id].continue_calls;
    expect(total == 0, "an indefinite loop reports total_passes 0");
    return cur < 3 ? 1 : 0;
}

void on_replay(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    expect(p->size == sizeof(*p), "payload size");
    const std::uint64_t id = p->dispatch_info.dispatch_id;
    std::unique_lock lk(g_mutex);
    auto& s = g_seen[id];
    if (s.correlation == 0) s.correlation = r.correlation_id.internal;
    s.correlation_same = s.correlation_same && s.correlation == r.correlation_id.internal;
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ++s.config_enter;
        g_order.push_back(id);
        expect(p->replay_pass_count == nullptr && p->replay_continue == nullptr, "CONFIG ENTER starts with no callbacks");
        expect(p->replay_start_context == nullptr, "no toggles at CONFIG");
        // Toggles and checksum are illegal outside PASS ENTER.
        expect(p->current_pass == 0 && p->total_passes == 0, "pass fields are zero at CONFIG ENTER");
        std::uint64_t c = 0;
        expect(encore_kernel_replay_checksum(&c) == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
               "checksum outside PASS ENTER");
        ud->value = 100;
        if (g_mode == "rules") {
            switch (g_nth++) {
                case 0:
                    p->replay_pass_count = &pass_count_fixed3;
                    p->replay_continue = &continue_always;
                    break;
                case 1:  // the reference's other spelling of the two members (same slots)
                    p->pass_count_cb = &pass_count_5;
                    p->replay_continue_cb = &continue_until_1;
                    break;
                case 2:
                    p->replay_pass_count = &pass_count_0;
                    p->replay_continue = &continue_until_3;
                    break;
                case 3: break;  // opt out
                case 4: p->replay_pass_count = &pass_count_1; break;
                case 5: p->replay_pass_count = &pass_count_0; break;       // no continue: declined
                case 6: p->replay_pass_count = &pass_count_fixed3; break;  // local toggles
                default: p->replay_pass_count = &pass_count_2; break;
            }
        } else if (g_mode == "declines" && p->dispatch_info.queue_id.handle == g_optout_queue.load()) {
            // opt out: this queue's dispatch stays in flight behind a barrier
        } else if (g_mode == "cap_child") {
            switch (g_nth++) {
                case 0:  // saxpy: far more passes than the cap
                case 3:  // saxpy again: capped, not warned again
                    p->replay_pass_count = &pass_count_max;
                    p->replay_continue = &continue_always;
                    break;
                case 1:  // counter: an indefinite loop whose continue never says stop
                    p->replay_pass_count = &pass_count_0;
                    p->replay_continue = &continue_always;
                    break;
                default: p->replay_pass_count = &pass_count_2; break;  // append: a valid count, as ever
            }
        } else if (g_mode == "incremental_budget" || g_mode == "pass_dependent") {
            p->replay_pass_count = &pass_count_fixed3;
        } else if (g_mode == "incremental") {
            if (g_nth++ != 4) p->replay_pass_count = &pass_count_fixed3;  // the 5th runs once (opt out)
        } else if (g_mode == "stress") {
            // Every third dispatch is replayed with 2 passes.
            if (id % 3 == 0) p->replay_pass_count = &pass_count_2;
        } else {
            p->replay_pass_count = &pass_count_fixed3;
        }
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG) {
        ++s.config_exit;
        rocprofiler_get_timestamp(&s.config_exit_ts);
        s.passes_run = p->passes_run;
        s.total = p->total_passes;
        s.declined = p->decline_reason;
        s.ud_config_exit = ud->value;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ++s.pass_enter;
        expect(p->current_pass == static_cast<std::uint64_t>(s.pass_enter - 1), "passes counted from 0");
        expect(p->replay_pass_count == nullptr && p->replay_continue == nullptr, "PASS ENTER: no tool callbacks");
        expect(p->replay_start_context != nullptr && p->replay_stop_context != nullptr, "PASS ENTER: toggles set");
        s.ud_pass_enter.push_back(ud->value);
        const std::size_t nth = g_nth;
        lk.unlock();
        std::uint64_t c = 0;
        expect(encore_kernel_replay_checksum(&c) == ROCPROFILER_STATUS_SUCCESS, "checksum during PASS ENTER");
        if (g_mode == "rules" && nth == 7) {  // the local-toggle dispatch
            const auto pass = p->current_pass;
            if (pass == 0) expect(p->replay_stop_context(g_trace_b) == ROCPROFILER_STATUS_SUCCESS, "local stop");
            if (pass == 2) {
                expect(p->replay_start_context(g_trace_b) == ROCPROFILER_STATUS_SUCCESS, "local start");
                // A globally stopped context stays stopped.
                expect(p->replay_start_context(g_stopped_c) == ROCPROFILER_STATUS_SUCCESS,
                       "local start of a stopped context");
            }
            expect(p->replay_stop_context(rocprofiler_context_id_t{999}) == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
                   "local stop of an unknown context");
        }
        if ((g_mode == "async_copy" || g_mode == "fill") && p->current_pass == 0) {
            // Hold the replay open while another thread copies or fills into its memory.
            g_replay_started.store(true);
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (g_mode == "nested" && p->current_pass == 1 && g_nested_hook) g_nested_hook();
        if (g_mode == "stop_midway" && p->current_pass == 1)
            expect(rocprofiler_stop_context(g_replay_ctx) == ROCPROFILER_STATUS_SUCCESS,
                   "stop the replay context mid-sequence");
        lk.lock();
        s.checksums.push_back(c);
        ud->value = 200 + p->current_pass;  // scoped to this pass
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS) {
        ++s.pass_exit;
        s.ud_pass_exit.push_back(ud->value);
        expect(p->replay_start_context == nullptr, "PASS EXIT: toggles no longer offered");
        // Stored toggles from PASS ENTER called now are illegal: use the functions the tool kept.
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_SNAPSHOT && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        ++s.snapshot;
        s.snapshot_bytes = p->bytes;
        s.snapshot_copied = p->bytes_copied;
        expect(p->end_timestamp >= p->start_timestamp, "snapshot times");
        expect(p->bytes_copied <= p->bytes, "a snapshot copies at most what it holds");
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_RESTORE && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        ++s.restore;
    }
}

std::atomic<rocprofiler_kernel_replay_context_cb_t> g_kept_toggle{nullptr};
void keep_toggle(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
        g_kept_toggle.store(p->replay_stop_context);
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    const std::uint64_t id = p->dispatch_info.dispatch_id;
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ++g_seen[id].dispatch_records[r.context_id.handle];
        if (r.context_id.handle == g_replay_ctx.handle) {
            auto& s = g_seen[id];
            if (s.correlation != 0)
                s.correlation_same = s.correlation_same && s.correlation == r.correlation_id.internal;
        }
    }
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE && r.context_id.handle == g_replay_ctx.handle) {
        ++g_complete_by_dispatch[id];
        g_complete_total.fetch_add(1);
    }
}

void both(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void* d) {
    keep_toggle(r, ud, d);
    on_replay(r, ud, d);
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t second{};
    if (rocprofiler_create_context(&g_replay_ctx) != 0 || rocprofiler_create_context(&g_trace_b) != 0 ||
        rocprofiler_create_context(&g_stopped_c) != 0 || rocprofiler_create_context(&second) != 0)
        return 1;
    encore_kernel_replay_options_t o{};
    o.size = sizeof(o);
    expect(encore_configure_kernel_replay_options(g_replay_ctx, &o) == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
           "options before the context has the replay service");
    expect(rocprofiler_configure_callback_tracing_service(g_replay_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY,
                                                          nullptr, 0, &both, nullptr) == ROCPROFILER_STATUS_SUCCESS,
           "replay service");
    expect(rocprofiler_configure_callback_tracing_service(second, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr,
                                                          0, &on_replay, nullptr) ==
               ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
           "exactly one context may configure KERNEL_REPLAY");
    expect(rocprofiler_configure_callback_tracing_service(g_replay_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY,
                                                          nullptr, 0, &on_replay, nullptr) ==
               ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
           "the same context twice");
    expect(encore_configure_kernel_replay_options(g_replay_ctx, nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "null options");
    encore_kernel_replay_options_t bad = o;
    bad.policy = static_cast<encore_replay_snapshot_policy_t>(99);
    expect(encore_configure_kernel_replay_options(g_replay_ctx, &bad) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "unknown policy");
    bad = o;
    bad.size = 8;
    expect(encore_configure_kernel_replay_options(g_replay_ctx, &bad) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "short options struct");
    // Out of range (a chunk size that wrapped to 0 when rounded up to pages divided by zero).
    for (std::uint64_t chunk : {UINT64_MAX, (std::uint64_t{1} << 30) + 1}) {
        bad = o;
        bad.chunk_size = chunk;
        expect(encore_configure_kernel_replay_options(g_replay_ctx, &bad) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
               "chunk_size over 2^30");
    }
    bad = o;
    bad.wait_timeout_ns = UINT64_MAX;
    expect(encore_configure_kernel_replay_options(g_replay_ctx, &bad) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "wait_timeout_ns over a day");
    bad = o;
    bad.chunk_size = std::uint64_t{1} << 30;
    expect(encore_configure_kernel_replay_options(g_replay_ctx, &bad) == ROCPROFILER_STATUS_SUCCESS,
           "chunk_size of 2^30 (the bound)");
    expect(encore_configure_kernel_replay_options(rocprofiler_context_id_t{999}, &o) ==
               ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
           "options of an unknown context");
    expect(encore_configure_kernel_replay_options(g_replay_ctx, &o) == ROCPROFILER_STATUS_SUCCESS, "options");
    if (const char* pol = std::getenv("TEST_REPLAY_POLICY"); pol != nullptr) {
        // The C++ face of the same call (a repeated call replaces the options).
        const auto policy = std::strcmp(pol, "full_copy") == 0 ? ENCORE_REPLAY_SNAPSHOT_FULL_COPY
                                                               : ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS;
        expect(encore::context(g_replay_ctx).replay_options(policy, 8192) == ROCPROFILER_STATUS_SUCCESS,
               "C++ replay options");
    }
    for (auto c : {g_replay_ctx, g_trace_b, g_stopped_c})
        if (rocprofiler_configure_callback_tracing_service(c, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                           &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
    if (rocprofiler_start_context(g_replay_ctx) != 0 || rocprofiler_start_context(g_trace_b) != 0) return 1;
    return 0;  // g_stopped_c stays stopped
}

// ---- the program ------------------------------------------------------------------------------
struct device_state {
    hsa_agent_t cpu, gpu;
    example::CodeObject* co;
    uint64_t k_saxpy, k_counter, k_append;
    float *x, *y;
    uint32_t *out, *index, *counter;
    SaxpyArgs* saxpy;
    CounterArgs* cargs;
    AppendArgs* app;
    hsa_queue_t* queue;
    hsa_signal_t done;
};

constexpr uint32_t n = 4096, append_n = 500;

template <class T>
T read_back(const T* dev) {
    T v{};
    HSA_CHECK(hsa_memory_copy(&v, dev, sizeof(T)));
    return v;
}

void setup(device_state& d, const char* co_path, int agent_index, int iterations) {
    d.cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
    d.gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(static_cast<std::size_t>(agent_index));
    d.co = new example::CodeObject(co_path, d.gpu);
    d.k_saxpy = d.co->kernel("saxpy_accumulate", d.gpu);
    d.k_counter = d.co->kernel("counter_increment", d.gpu);
    d.k_append = d.co->kernel("atomic_append", d.gpu);
    d.counter = static_cast<uint32_t*>(d.co->variable("counter", d.gpu));
    d.x = static_cast<float*>(example::alloc_device(d.gpu, n * sizeof(float)));
    d.y = static_cast<float*>(example::alloc_device(d.gpu, n * sizeof(float)));
    d.out = static_cast<uint32_t*>(example::alloc_device(d.gpu, append_n * static_cast<size_t>(iterations) * 4 + 4));
    d.index = static_cast<uint32_t*>(example::alloc_device(d.gpu, sizeof(uint32_t)));
    std::vector<float> hx(n), hy(n, 1.0f);
    for (uint32_t i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 17) * 0.5f;
    HSA_CHECK(hsa_memory_copy(d.x, hx.data(), n * sizeof(float)));
    HSA_CHECK(hsa_memory_copy(d.y, hy.data(), n * sizeof(float)));
    const uint32_t zero = 0;
    HSA_CHECK(hsa_memory_copy(d.index, &zero, 4));
    d.saxpy = static_cast<SaxpyArgs*>(example::alloc_kernarg(d.cpu, d.gpu, sizeof(SaxpyArgs)));
    d.cargs = static_cast<CounterArgs*>(example::alloc_kernarg(d.cpu, d.gpu, sizeof(CounterArgs)));
    d.app = static_cast<AppendArgs*>(example::alloc_kernarg(d.cpu, d.gpu, sizeof(AppendArgs)));
    *d.saxpy = {d.x, d.y, 0.25f, n};
    *d.cargs = {n / 2};
    HSA_CHECK(hsa_queue_create(d.gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &d.queue));
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &d.done));
}

void teardown(device_state& d) {
    HSA_CHECK(hsa_signal_destroy(d.done));
    HSA_CHECK(hsa_queue_destroy(d.queue));
    for (void* p :
         {static_cast<void*>(d.x), static_cast<void*>(d.y), static_cast<void*>(d.out), static_cast<void*>(d.index),
          static_cast<void*>(d.saxpy), static_cast<void*>(d.cargs), static_cast<void*>(d.app)})
        HSA_CHECK(hsa_amd_memory_pool_free(p));
    delete d.co;
}

// One kernel, waited for; `which` 0 saxpy, 1 counter, 2 append (value `it`).
void run_one(device_state& d, int which, int it) {
    hsa_signal_store_screlease(d.done, 1);
    if (which == 0) example::dispatch_1d(d.queue, d.k_saxpy, d.saxpy, n, 64, d.done);
    if (which == 1) example::dispatch_1d(d.queue, d.k_counter, d.cargs, n, 128, d.done);
    if (which == 2) {
        *d.app = {d.out, d.index, 1000u * static_cast<uint32_t>(it), append_n};
        example::dispatch_1d(d.queue, d.k_append, d.app, append_n, 100, d.done);
    }
    example::wait_done(d.done);
    expect(hsa_signal_load_scacquire(d.done) == 0, "the program's signal fired exactly once");
}

// Host reference after `saxpies`, `counters` and `appends` dispatches.
bool check_results(device_state& d, int saxpies, int counters, int appends) {
    std::vector<float> hy(n);
    HSA_CHECK(hsa_memory_copy(hy.data(), d.y, n * sizeof(float)));
    bool ok = true;
    for (uint32_t i = 0; i < n; ++i) {
        float v = 1.0f;
        for (int k = 0; k < saxpies; ++k) v += 0.25f * (static_cast<float>(i % 17) * 0.5f);
        ok = ok && std::fabs(hy[i] - v) <= 1e-4f * std::fabs(v);
    }
    expect(ok, "saxpy results as without replay");
    const uint32_t counter = read_back(d.counter);
    expect(counter == static_cast<uint32_t>(counters) * (n / 2), "module variable as without replay");
    const uint32_t idx = read_back(d.index);
    expect(idx == static_cast<uint32_t>(appends) * append_n, "atomic append count as without replay");
    std::vector<uint32_t> out(idx);
    if (idx > 0) HSA_CHECK(hsa_memory_copy(out.data(), d.out, idx * 4));
    uint64_t sum = 0, ref = 0;
    for (uint32_t v : out) sum += v;
    for (int it = 0; it < appends; ++it)
        for (uint32_t g = 0; g < append_n; ++g) ref += 1000u * static_cast<uint32_t>(it) + g;
    expect(sum == ref, "atomic append contents as without replay");
    return ok;
}

int rules(const char* co) {
    encore_kernel_replay_options_t late{};
    late.size = sizeof(late);
    expect(encore_configure_kernel_replay_options(g_replay_ctx, &late) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
           "options after tool initialization");
    device_state d{};
    setup(d, co, 0, 8);
    // 8 dispatches, policies by position (see on_replay): saxpy, counter, append, saxpy, counter,
    // append, saxpy (toggles), counter.
    const int kinds[] = {0, 1, 2, 0, 1, 2, 0, 1};
    int appends = 0;
    for (int i = 0; i < 8; ++i) run_one(d, kinds[i], kinds[i] == 2 ? appends++ : 0);
    check_results(d, 3, 3, 2);
    teardown(d);

    std::lock_guard lk(g_mutex);
    expect(g_order.size() == 8, "CONFIG ENTER once per dispatch");
    if (g_order.size() != 8) return 1;
    for (auto id : g_order) {
        const auto& s = g_seen[id];
        expect(s.config_enter == 1 && s.config_exit == 1, "CONFIG ENTER and EXIT once");
        expect(s.correlation_same, "one correlation id for the whole sequence");
        for (std::size_t i = 1; i < s.checksums.size(); ++i)
            expect(s.checksums[i] == s.checksums[0], "every pass starts from identical inputs");
        expect(s.pass_enter == s.pass_exit, "PASS ENTER and EXIT balanced");
        expect(s.pass_enter == 0 || s.snapshot == 1, "one snapshot per replayed dispatch");
        expect(s.pass_enter == 0 || s.restore == s.pass_enter - 1, "a restore before every pass but the first");
        expect(s.ud_config_exit == 100, "CONFIG EXIT sees the CONFIG value");
        for (auto v : s.ud_pass_enter) expect(v == 100, "each PASS starts from the CONFIG value");
        for (std::size_t i = 0; i < s.ud_pass_exit.size(); ++i)
            expect(s.ud_pass_exit[i] == 200 + i, "a write in PASS ENTER reaches that pass's EXIT");
        // ctx A traces each pass's dispatch once (one dispatch id for all passes).
        const int passes = s.pass_enter == 0 ? 1 : s.pass_enter;
        expect(s.dispatch_records.count(g_replay_ctx.handle) == 1 && s.dispatch_records.at(g_replay_ctx.handle) == passes,
               "one ENQUEUE per pass under one dispatch id");
        expect(g_complete_by_dispatch[id] == passes, "one COMPLETE per pass");
        expect(s.dispatch_records.count(g_stopped_c.handle) == 0, "a globally stopped context sees nothing");
    }
    const auto& fixed = g_seen[g_order[0]];
    expect(fixed.pass_enter == 3 && fixed.passes_run == 3 && fixed.total == 3, "fixed 3 passes");
    expect(fixed.continue_calls == 2, "continue is not consulted after the last fixed pass");
    expect(fixed.ud_pass_count == 100, "replay_pass_count receives the CONFIG value");
    expect(fixed.ud_continue.size() == 2 && fixed.ud_continue[0] == 200 && fixed.ud_continue[1] == 201,
           "replay_continue receives that pass's copy");
    expect(fixed.snapshot_bytes >= 2 * n * sizeof(float), "the snapshot covers the device buffers");
    const auto& early = g_seen[g_order[1]];
    expect(early.pass_enter == 2 && early.passes_run == 2 && early.total == 5, "continue stops a fixed loop early");
    const auto& indefinite = g_seen[g_order[2]];
    expect(indefinite.pass_enter == 4 && indefinite.passes_run == 4 && indefinite.total == 0,
           "an indefinite loop runs until continue returns 0");
    const auto& opt_out = g_seen[g_order[3]];
    expect(opt_out.pass_enter == 0 && opt_out.passes_run == 1 && opt_out.declined == nullptr, "opt-out: run once");
    const auto& one = g_seen[g_order[4]];
    expect(one.pass_enter == 0 && one.snapshot == 0 && one.passes_run == 1, "1 pass: the ordinary path");
    const auto& zero = g_seen[g_order[5]];
    expect(zero.pass_enter == 0 && zero.declined != nullptr, "0 passes without continue is declined with a reason");
    const auto& toggles = g_seen[g_order[6]];
    expect(toggles.pass_enter == 3, "toggle dispatch: 3 passes");
    // ctx B stopped in pass 0, still stopped in pass 1 (sticky), started again in pass 2.
    expect(toggles.dispatch_records.count(g_trace_b.handle) == 1 && toggles.dispatch_records.at(g_trace_b.handle) == 1,
           "a locally stopped context misses passes 0 and 1, not 2");
    // Scoped to the loop: ctx B sees the next dispatch again.
    const auto& after = g_seen[g_order[7]];
    expect(after.dispatch_records.count(g_trace_b.handle) == 1 && after.dispatch_records.at(g_trace_b.handle) == 2,
           "local toggles end with their loop");
    // A toggle kept from PASS ENTER and called outside it is refused.
    const auto kept = g_kept_toggle.load();
    expect(kept != nullptr && kept(g_trace_b) == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
           "toggles are illegal outside PASS ENTER");
    return 0;
}

int budget(const char* co) {
    device_state d{};
    setup(d, co, 0, 1);
    run_one(d, 0, 0);
    check_results(d, 1, 0, 0);
    teardown(d);
    std::lock_guard lk(g_mutex);
    expect(g_order.size() == 1, "one CONFIG");
    if (g_order.empty()) return 1;
    const auto& s = g_seen[g_order[0]];
    expect(s.pass_enter == 0 && s.passes_run == 1, "declined: run once");
    expect(s.declined != nullptr && std::strstr(s.declined, "budget") != nullptr, "the reason names the budget");
    return 0;
}

// Another thread writes device memory while a replay of a kernel reading that memory is in
// progress, with an async copy (async_copy) or hsa_amd_memory_fill (fill): the write waits for the
// replay (it would otherwise land during pass 0 and be undone by the restore before pass 1) and
// completes after it; the program sees the written bytes afterwards.
int write_during_replay(const char* co, bool fill) {
    device_state d{};
    setup(d, co, 0, 1);
    std::vector<float> twos(n, 2.0f);
    std::uint32_t two_word = 0;
    std::memcpy(&two_word, twos.data(), sizeof(two_word));
    hsa_signal_t copied{};
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &copied));
    rocprofiler_timestamp_t written_ts = 0;
    std::thread writer([&] {
        while (!g_replay_started.load()) std::this_thread::yield();
        if (fill) {
            HSA_CHECK(hsa_amd_memory_fill(d.y, two_word, n));
        } else {
            HSA_CHECK(hsa_amd_memory_async_copy(d.y, d.gpu, twos.data(), d.cpu, n * sizeof(float), 0, nullptr, copied));
            example::wait_done(copied);
        }
        rocprofiler_get_timestamp(&written_ts);
    });
    run_one(d, 0, 0);  // saxpy, replayed 3 times
    writer.join();
    std::vector<float> hy(n);
    HSA_CHECK(hsa_memory_copy(hy.data(), d.y, n * sizeof(float)));
    expect(hy == twos, "the written bytes are what the program sees afterwards");
    HSA_CHECK(hsa_signal_destroy(copied));
    teardown(d);
    std::lock_guard lk(g_mutex);
    expect(g_order.size() == 1, "one replayed dispatch");
    if (g_order.empty()) return 1;
    const auto& s = g_seen[g_order[0]];
    expect(s.pass_enter == 3 && s.declined == nullptr, "three passes");
    for (std::size_t i = 1; i < s.checksums.size(); ++i)
        expect(s.checksums[i] == s.checksums[0], "the write did not land between passes");
    expect(written_ts > s.config_exit_ts, "the write completed after the replay");
    return 0;
}

// A tool that submits a dispatch on another queue of the same agent from a PASS callback (and
// waits for it): no deadlock, and the nested dispatch runs once (nested replays are declined).
int nested(const char* co) {
    device_state d{};
    setup(d, co, 0, 1);
    hsa_queue_t* q2 = nullptr;
    HSA_CHECK(hsa_queue_create(d.gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q2));
    hsa_signal_t s2{};
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &s2));
    int nested_runs = 0;
    g_nested_hook = [&] {
        ++nested_runs;
        hsa_signal_store_screlease(s2, 1);
        example::dispatch_1d(q2, d.k_counter, d.cargs, n, 128, s2);
        example::wait_done(s2);
    };
    run_one(d, 0, 0);  // saxpy, 3 passes; pass 1 runs the counter kernel once from its callback
    g_nested_hook = nullptr;
    expect(nested_runs == 1, "the nested submission ran from PASS ENTER");
    // saxpy as without replay. The counter kernel ran once, inside the replay window: the
    // restore before pass 2 put the covered memory (the module variable too) back as the
    // snapshot had it, so its increment is undone (docs/replay.md).
    check_results(d, 1, 0, 0);
    HSA_CHECK(hsa_signal_destroy(s2));
    HSA_CHECK(hsa_queue_destroy(q2));
    teardown(d);
    std::lock_guard lk(g_mutex);
    expect(g_order.size() == 1, "only the outer dispatch went through CONFIG");
    return 0;
}

// Declines that run the dispatch once: a drain that times out (a sibling queue's dispatch waits
// behind a barrier on a signal nobody sets yet; ENCORE_REPLAY_TIMEOUT_MS is small), and a
// submission of two packets at once.
void submit_barrier(hsa_queue_t* q, hsa_signal_t dep) {
    const uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
    auto* b = static_cast<hsa_barrier_and_packet_t*>(q->base_address) + (idx & (q->size - 1));
    std::memset(reinterpret_cast<char*>(b) + 4, 0, sizeof(*b) - 4);
    b->dep_signal[0] = dep;
    const uint16_t header = (HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER);
    __atomic_store_n(reinterpret_cast<uint16_t*>(b), header, __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, static_cast<hsa_signal_value_t>(idx));
}

int declines(const char* co) {
    device_state d{};
    setup(d, co, 0, 1);
    hsa_queue_t* q2 = nullptr;
    HSA_CHECK(hsa_queue_create(d.gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q2));
    hsa_signal_t blocker{}, s2{};
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &blocker));
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &s2));

    // A: a sibling queue's dispatch (opted out) waits behind a barrier: the drain times out.
    g_optout_queue.store(q2->id);
    submit_barrier(q2, blocker);
    example::dispatch_1d(q2, d.k_counter, d.cargs, n, 128, s2);
    run_one(d, 0, 0);  // saxpy: declined, runs once
    hsa_signal_store_screlease(blocker, 0);
    example::wait_done(s2);

    // B: a replayed dispatch that cannot run (behind a barrier on its own queue): its first pass
    // times out, the loop ends there, the program's signal fires once it has run.
    g_optout_queue.store(~0ull);
    hsa_signal_store_screlease(blocker, 1);
    hsa_signal_store_screlease(s2, 1);
    submit_barrier(q2, blocker);
    example::dispatch_1d(q2, d.k_counter, d.cargs, n, 128, s2);  // returns after the pass wait bound
    expect(hsa_signal_load_scacquire(s2) == 1, "the program's signal waits for the stuck pass");
    hsa_signal_store_screlease(blocker, 0);
    example::wait_done(s2);

    // C: two packets, one doorbell: neither is replayed.
    hsa_signal_store_screlease(d.done, 2);
    {
        const uint64_t idx = hsa_queue_add_write_index_screlease(d.queue, 2);
        for (uint64_t k = 0; k < 2; ++k) {
            auto* p = static_cast<hsa_kernel_dispatch_packet_t*>(d.queue->base_address) +
                      ((idx + k) & (d.queue->size - 1));
            std::memset(reinterpret_cast<char*>(p) + 4, 0, sizeof(*p) - 4);
            p->workgroup_size_x = 64;
            p->workgroup_size_y = p->workgroup_size_z = 1;
            p->grid_size_x = n;
            p->grid_size_y = p->grid_size_z = 1;
            p->kernel_object = d.k_saxpy;
            p->kernarg_address = d.saxpy;
            p->completion_signal = d.done;
            const uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                                    (1 << HSA_PACKET_HEADER_BARRIER) |
                                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
            const uint16_t setup_bits = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
            __atomic_store_n(reinterpret_cast<uint32_t*>(p), header | (static_cast<uint32_t>(setup_bits) << 16),
                             __ATOMIC_RELEASE);
        }
        hsa_signal_store_screlease(d.queue->doorbell_signal, static_cast<hsa_signal_value_t>(idx + 1));
    }
    example::wait_done(d.done);
    check_results(d, 3, 2, 0);  // saxpy: once (A) + twice (C); counter: A, B once each
    HSA_CHECK(hsa_signal_destroy(blocker));
    HSA_CHECK(hsa_signal_destroy(s2));
    HSA_CHECK(hsa_queue_destroy(q2));
    teardown(d);
    std::lock_guard lk(g_mutex);
    expect(g_order.size() == 3, "CONFIG for the single-packet dispatches only");
    if (g_order.size() != 3) return 1;
    const auto& a_counter = g_seen[g_order[0]];
    const auto& a_saxpy = g_seen[g_order[1]];
    const auto& b = g_seen[g_order[2]];
    expect(a_counter.pass_enter == 0 && a_counter.declined == nullptr, "A: the opted-out dispatch");
    expect(a_saxpy.pass_enter == 0 && a_saxpy.declined != nullptr && std::strstr(a_saxpy.declined, "draining") != nullptr,
           "A: the drain timed out, with the reason");
    expect(b.pass_enter == 1 && b.passes_run == 1 && b.declined != nullptr &&
               std::strstr(b.declined, "did not complete") != nullptr,
           "B: the stuck pass ends the loop, with the reason");
    return 0;
}

// The replay context stopped during a sequence: the sequence still ends for it (every PASS ENTER
// gets its EXIT, CONFIG EXIT arrives); the next dispatch is not replayed.
int stop_midway(const char* co) {
    device_state d{};
    setup(d, co, 0, 1);
    run_one(d, 0, 0);  // 3 passes; the context is stopped in pass 1
    run_one(d, 0, 0);  // not replayed: no active replay context
    check_results(d, 2, 0, 0);
    teardown(d);
    std::lock_guard lk(g_mutex);
    expect(g_order.size() == 1, "no CONFIG once the context is stopped");
    if (g_order.empty()) return 1;
    const auto& s = g_seen[g_order[0]];
    expect(s.pass_enter == 3 && s.pass_exit == 3 && s.config_exit == 1,
           "the stopped context still gets the rest of its sequence");
    return 0;
}

// Runs this program as `mode` with `extra_env` added; its stderr in `err`, its wait status returned.
int run_child(const char* self, const char* co, const char* mode, const char* extra_env, std::string& err) {
    int pipefd[2];
    if (pipe(pipefd) != 0) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    std::vector<std::string> envs;
    for (char** e = environ; *e != nullptr; ++e) envs.emplace_back(*e);
    if (extra_env != nullptr) envs.emplace_back(extra_env);
    std::vector<char*> envp;
    for (auto& e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string a0 = self, a1 = co, a2 = mode;
    char* argv[] = {a0.data(), a1.data(), a2.data(), nullptr};
    pid_t pid = 0;
    expect(posix_spawn(&pid, self, &fa, nullptr, argv, envp.data()) == 0, "spawn the child");
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    char buf[4096];
    for (ssize_t k; (k = read(pipefd[0], buf, sizeof(buf))) > 0;) err.append(buf, static_cast<std::size_t>(k));
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

int restore_fail_parent(const char* self, const char* co) {
    std::string err;
    const int status = run_child(self, co, "restore_fail_child", "ENCORE_REPLAY_TEST_FAIL_RESTORE=1", err);
    expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "a failed restore aborts the process");
    expect(err.find("restoring device memory failed part-way") != std::string::npos, "with the reason on stderr");
    if (!(WIFSIGNALED(status))) std::fprintf(stderr, "child stderr:\n%s\n", err.c_str());
    return 0;
}

std::uint64_t expected_cap() {
    const char* v = std::getenv("TEST_REPLAY_CAP");
    return v != nullptr ? std::strtoull(v, nullptr, 10) : 10000;
}

// The child of `cap`: four dispatches (see on_replay), each as one run leaves memory.
int cap_child(const char* co) {
    device_state d{};
    setup(d, co, 0, 1);
    run_one(d, 0, 0);  // saxpy: 2^64-1 passes asked
    run_one(d, 1, 0);  // counter: indefinite, continue never 0
    run_one(d, 2, 0);  // append: 2 passes
    run_one(d, 0, 0);  // saxpy again
    check_results(d, 2, 1, 1);
    teardown(d);
    const std::uint64_t cap = expected_cap();
    std::lock_guard lk(g_mutex);
    expect(g_order.size() == 4, "four dispatches through CONFIG");
    if (g_order.size() != 4) return 1;
    for (std::size_t k : {0, 1, 3}) {
        const auto& s = g_seen[g_order[k]];
        expect(s.pass_enter == static_cast<int>(cap) && s.pass_exit == static_cast<int>(cap) && s.passes_run == cap &&
                   s.config_exit == 1,
               "stopped at the cap, the sequence complete");
        expect(s.declined == nullptr, "capped is replayed, not declined");
        expect(s.restore == static_cast<int>(cap) - 1, "no restore after the last pass");
        expect(s.continue_calls == static_cast<int>(cap) - 1, "continue not consulted after the last pass");
        for (std::size_t i = 1; i < s.checksums.size(); ++i)
            expect(s.checksums[i] == s.checksums[0], "every pass starts from identical inputs");
    }
    expect(g_seen[g_order[0]].total == cap && g_seen[g_order[3]].total == cap, "total_passes: the capped count");
    expect(g_seen[g_order[1]].total == 0, "an indefinite loop still reports 0");
    const auto& two = g_seen[g_order[2]];
    expect(two.pass_enter == 2 && two.passes_run == 2 && two.total == 2, "a count under the cap is unchanged");
    return 0;
}

int cap_parent(const char* self, const char* co) {
    std::string err;
    const int status = run_child(self, co, "cap_child", "ENCORE_REPLAY_PROGRESS_MS=1", err);
    expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the capped program finishes with its checks held");
    const std::string cap = std::to_string(expected_cap());
    auto count = [&](const std::string& what) {
        int k = 0;
        for (std::size_t at = err.find(what); at != std::string::npos; at = err.find(what, at + 1)) ++k;
        return k;
    };
    expect(count("asked for 18446744073709551615 passes, more than the cap: at most " + cap + " are run") == 1,
           "the fixed count over the cap is warned once for its kernel");
    expect(count("replay_continue did not return 0 within " + cap + " passes, the cap") == 1,
           "the endless continue is warned once");
    expect(count(" of " + cap + " done, ") >= 1, "progress lines of a fixed count");
    expect(count(" done (until replay_continue returns 0, at most " + cap + "), ") >= 1,
           "progress lines of an indefinite loop");
    if (const char* bad = std::getenv("TEST_REPLAY_BAD_MAX"); bad != nullptr)
        expect(count(std::string("ignoring ENCORE_REPLAY_MAX_PASSES=") + bad) == 1, "a bad cap is ignored, said once");
    if (test_support::checks_failed.load() != 0) std::fprintf(stderr, "child stderr:\n%s\n", err.c_str());
    return 0;
}

int stress(const char* co) {
    // Thousands of dispatches in a plain build; fewer under the sanitizers (meson.build).
    const char* iters_env = std::getenv("TEST_REPLAY_ITERATIONS");
    const int threads_per_agent = 2, iterations = iters_env != nullptr ? std::atoi(iters_env) : 600;
    std::vector<std::thread> ts;
    std::atomic<int> bad{0};
    std::atomic<int> copies{0};
    for (int agent = 0; agent < 2; ++agent)
        for (int t = 0; t < threads_per_agent; ++t)
            ts.emplace_back([&, agent] {
                device_state d{};
                setup(d, co, agent, iterations);
                int s = 0, c = 0, a = 0;
                hsa_signal_t copy_done{};
                HSA_CHECK(hsa_signal_create(1, 0, nullptr, &copy_done));
                std::vector<float> host(n);
                for (int it = 0; it < iterations; ++it) {
                    const int which = it % 3;
                    run_one(d, which, which == 2 ? a : 0);
                    if (which == 0) ++s;
                    if (which == 1) ++c;
                    if (which == 2) ++a;
                    if (it % 10 == 0) {
                        // An async copy out of device memory, racing other threads' replays.
                        hsa_signal_store_screlease(copy_done, 1);
                        HSA_CHECK(hsa_amd_memory_async_copy(host.data(), d.cpu, d.x, d.gpu, n * sizeof(float), 0,
                                                            nullptr, copy_done));
                        example::wait_done(copy_done);
                        if (host[5] != 2.5f) bad.fetch_add(1);
                        copies.fetch_add(1);
                    }
                }
                HSA_CHECK(hsa_signal_destroy(copy_done));
                // The counter is per executable (each thread loads its own).
                check_results(d, s, c, a);
                teardown(d);
            });
    for (auto& t : ts) t.join();
    expect(bad.load() == 0, "async copies read the inputs");
    std::lock_guard lk(g_mutex);
    const int total = 2 * threads_per_agent * iterations;
    expect(static_cast<int>(g_order.size()) == total, "every dispatch went through CONFIG once");
    int replayed = 0;
    for (auto id : g_order) {
        const auto& s = g_seen[id];
        const int passes = s.pass_enter == 0 ? 1 : s.pass_enter;
        replayed += s.pass_enter > 0 ? 1 : 0;
        if (g_complete_by_dispatch[id] != passes) {
            expect(false, "one COMPLETE per pass, none lost or duplicated");
            break;
        }
        for (std::size_t i = 1; i < s.checksums.size(); ++i)
            expect(s.checksums[i] == s.checksums[0], "identical inputs");
    }
    expect(replayed > total / 4, "a fraction of the dispatches was replayed");
    std::printf("stress: %d dispatches, %d replayed, %d async copies\n", total, replayed, copies.load());
    return 0;
}

// Whether this kernel gives the process asynchronous userfaultfd write-protection (what encore's
// incremental snapshots need; replay_memory_write_tracking.cpp also probes a page).
bool uffd_async_wp() {
    const int fd = static_cast<int>(::syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK));
    if (fd < 0) return false;
    uffdio_api api{};
    api.api = UFFD_API;
    api.features = UFFD_FEATURE_PAGEFAULT_FLAG_WP | (1ull << 15);  // UFFD_FEATURE_WP_ASYNC (Linux 6.7)
    const bool ok = ::ioctl(fd, UFFDIO_API, &api) == 0;
    ::close(fd);
    return ok;
}

int incremental(const char* co) {
    device_state d{};
    setup(d, co, 0, 1);
    std::vector<float> hx(n), hy(n);
    for (uint32_t i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 17) * 0.5f;
    const auto expect_y = [&](const float* dev, float start, int saxpies, const char* what) {
        HSA_CHECK(hsa_memory_copy(hy.data(), dev, n * sizeof(float)));
        bool ok = true;
        for (uint32_t i = 0; i < n; ++i) {
            const float v = start + static_cast<float>(saxpies) * 0.25f * hx[i];
            ok = ok && std::fabs(hy[i] - v) <= 1e-4f * std::fabs(v);
        }
        expect(ok, what);
    };
    run_one(d, 0, 0);  // 1: saxpy, replayed: the first snapshot, copied whole
    expect_y(d.y, 1.0f, 1, "1st saxpy as without replay");
    run_one(d, 1, 0);  // 2: the counter, replayed: y as the last pass of dispatch 1 left it is kept
    // 3: the host writes y, which dispatch 2's passes did not: the next snapshot must see it, or
    // the restores before that saxpy's later passes put back the y of before this copy.
    std::vector<float> fives(n, 5.0f);
    HSA_CHECK(hsa_memory_copy(d.y, fives.data(), n * sizeof(float)));
    run_one(d, 0, 0);
    expect_y(d.y, 5.0f, 1, "a host copy between two replayed dispatches reaches the next snapshot");
    run_one(d, 1, 0);  // 4: the counter, replayed
    // 5: a saxpy not replayed (opt out) writes y, which dispatch 4's passes did not; 6: replayed.
    run_one(d, 0, 0);
    run_one(d, 0, 0);
    expect_y(d.y, 5.0f, 3, "a dispatch not replayed between two replayed ones reaches the next snapshot");
    expect(read_back(d.counter) == 2 * (n / 2), "the module variable as without replay");
    // 7: memory allocated after the last snapshot (a region the kept copies do not have).
    auto* z = static_cast<float*>(example::alloc_device(d.gpu, n * sizeof(float)));
    std::vector<float> threes(n, 3.0f);
    HSA_CHECK(hsa_memory_copy(z, threes.data(), n * sizeof(float)));
    *d.saxpy = {d.x, z, 0.25f, n};
    run_one(d, 0, 0);
    expect_y(z, 3.0f, 1, "memory allocated since the last snapshot");
    expect_y(d.y, 5.0f, 3, "other memory untouched");
    // 8: y written again by the host, then the saxpy on y, replayed.
    HSA_CHECK(hsa_memory_copy(d.y, threes.data(), n * sizeof(float)));
    *d.saxpy = {d.x, d.y, 0.25f, n};
    run_one(d, 0, 0);
    expect_y(d.y, 3.0f, 1, "a second host copy reaches the next snapshot");
    HSA_CHECK(hsa_amd_memory_pool_free(z));
    teardown(d);

    std::lock_guard lk(g_mutex);
    expect(g_order.size() == 8, "eight dispatches");
    if (g_order.size() != 8) return 1;
    const bool whole = std::getenv("TEST_INCREMENTAL") != nullptr || !uffd_async_wp();
    for (std::size_t i = 0; i < g_order.size(); ++i) {
        const auto& s = g_seen[g_order[i]];
        if (i == 4) {
            expect(s.pass_enter == 0 && s.snapshot == 0, "the 5th dispatch runs once");
            continue;
        }
        expect(s.pass_enter == 3 && s.snapshot == 1 && s.declined == nullptr, "three passes");
        for (std::size_t k = 1; k < s.checksums.size(); ++k)
            expect(s.checksums[k] == s.checksums[0], "every pass starts from identical inputs");
        if (i == 0 || whole) {
            expect(s.snapshot_copied == s.snapshot_bytes, "a snapshot copied whole");
        } else {
            expect(s.snapshot_copied < s.snapshot_bytes, "a later snapshot copies only what was written since");
            expect(s.snapshot_copied > 0, "and what was written since is copied");
        }
    }
    if (!whole) std::printf("incremental snapshots: userfaultfd\n");
    return 0;
}

// A kernel whose writes depend on the pass, then another replayed dispatch over what it left:
// atomic_append with its index in host memory (which no snapshot covers), so each pass appends
// after the last one's records. Dispatch A's passes write slots [0, n), [n, 2n), [2n, 3n); the
// restores undo all but the last pass's. Dispatch B starts at slot 2n: its first pass overwrites
// A's records there, and the restores before its later passes must put A's records back, which
// the kept copy has only if A's last pass (pages its first pass never wrote) reached it.
int pass_dependent(const char* co) {
    device_state d{};
    setup(d, co, 0, 6);
    const std::uint32_t nn = append_n;
    std::vector<uint32_t> out(6 * nn, 0);
    HSA_CHECK(hsa_memory_copy(d.out, out.data(), out.size() * 4));
    static uint32_t host_index = 0;
    const auto append = [&](uint32_t start, uint32_t value) {
        host_index = start;
        *d.app = {d.out, &host_index, value, nn};
        hsa_signal_store_screlease(d.done, 1);
        example::dispatch_1d(d.queue, d.k_append, d.app, nn, 100, d.done);
        example::wait_done(d.done);
    };
    const auto slots = [&](uint32_t from, uint32_t value) {  // slots [from, from + n) hold value + 0 .. n-1
        std::vector<uint32_t> got(out.begin() + from, out.begin() + from + nn);
        std::sort(got.begin(), got.end());
        for (uint32_t g = 0; g < nn; ++g)
            if (got[g] != value + g) return false;
        return true;
    };
    append(0, 1000);
    expect(host_index == 3 * nn, "three passes, each after the last");
    HSA_CHECK(hsa_memory_copy(out.data(), d.out, out.size() * 4));
    expect(std::all_of(out.begin(), out.begin() + 2 * nn, [](uint32_t v) { return v == 0; }) && slots(2 * nn, 1000),
           "only the last pass's records are left");
    append(2 * nn, 2000);
    HSA_CHECK(hsa_memory_copy(out.data(), d.out, out.size() * 4));
    expect(slots(2 * nn, 1000), "the restores put back the records A's last pass left");
    expect(std::all_of(out.begin() + 3 * nn, out.begin() + 4 * nn, [](uint32_t v) { return v == 0; }) &&
               slots(4 * nn, 2000),
           "B's last pass's records only");
    teardown(d);
    std::lock_guard lk(g_mutex);
    expect(g_order.size() == 2, "two dispatches");
    for (auto id : g_order) {
        const auto& s = g_seen[id];
        expect(s.pass_enter == 3 && s.declined == nullptr, "three passes");
        for (std::size_t k = 1; k < s.checksums.size(); ++k)
            expect(s.checksums[k] == s.checksums[0], "every pass starts from identical inputs");
    }
    return 0;
}

// The copies kept between replays stay within the memory budget over all agents: with a budget
// that holds one agent's snapshot but not two, the agent replayed first keeps its copies
// (incremental snapshots after), the other's are let go (each of its snapshots copied whole).
// Results as without replay either way. ENCORE_REPLAY_MEMORY_BUDGET is set by meson.
int incremental_budget(const char* co) {
    device_state d0{}, d1{};
    setup(d0, co, 0, 1);
    setup(d1, co, 1, 1);
    for (int i = 0; i < 2; ++i) {
        run_one(d0, 0, 0);
        run_one(d1, 0, 0);
    }
    check_results(d0, 2, 0, 0);
    check_results(d1, 2, 0, 0);
    teardown(d0);
    teardown(d1);
    std::lock_guard lk(g_mutex);
    expect(g_order.size() == 4, "four dispatches");
    if (g_order.size() != 4) return 1;
    const auto& a0 = g_seen[g_order[0]];
    const auto& b0 = g_seen[g_order[1]];
    const auto& a1 = g_seen[g_order[2]];
    const auto& b1 = g_seen[g_order[3]];
    const std::uint64_t budget = std::strtoull(std::getenv("ENCORE_REPLAY_MEMORY_BUDGET"), nullptr, 10);
    expect(a0.snapshot_bytes <= budget && b0.snapshot_bytes <= budget && a0.snapshot_bytes + b0.snapshot_bytes > budget,
           "the budget holds one agent's snapshot, not both (" + std::to_string(a0.snapshot_bytes) + " + " +
               std::to_string(b0.snapshot_bytes) + " against " + std::to_string(budget) + ")");
    for (const auto* s : {&a0, &b0, &a1, &b1}) expect(s->pass_enter == 3 && s->declined == nullptr, "replayed");
    if (uffd_async_wp()) expect(a1.snapshot_copied < a1.snapshot_bytes, "the first agent's copies were kept");
    expect(b1.snapshot_copied == b1.snapshot_bytes, "the second agent's were not: copied whole");
    return 0;
}

}  // namespace

ENCORE_TEST_TOOL(nullptr, &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s <stateful code object> rules|budget|restore_fail|stress\n", argv[0]);
        return 2;
    }
    g_mode = argv[2];
    if (g_mode == "restore_fail") return restore_fail_parent(argv[0], argv[1]) | test_support::finish();
    if (g_mode == "cap") return cap_parent(argv[0], argv[1]) | test_support::finish();
    HSA_CHECK(hsa_init());
    int rc = 2;
    if (g_mode == "rules") rc = rules(argv[1]);
    if (g_mode == "budget") rc = budget(argv[1]);
    if (g_mode == "stress") rc = stress(argv[1]);
    if (g_mode == "async_copy" || g_mode == "fill") rc = write_during_replay(argv[1], g_mode == "fill");
    if (g_mode == "nested") rc = nested(argv[1]);
    if (g_mode == "incremental") rc = incremental(argv[1]);
    if (g_mode == "incremental_budget") rc = incremental_budget(argv[1]);
    if (g_mode == "pass_dependent") rc = pass_dependent(argv[1]);
    if (g_mode == "declines") rc = declines(argv[1]);
    if (g_mode == "stop_midway") rc = stop_midway(argv[1]);
    if (g_mode == "cap_child") rc = cap_child(argv[1]);
    if (g_mode == "restore_fail_child") {
        device_state d{};
        setup(d, argv[1], 0, 1);
        run_one(d, 0, 0);  // aborts in the restore before pass 1
        rc = 3;
    }
    HSA_CHECK(hsa_shut_down());
    return rc | test_support::finish();
}
