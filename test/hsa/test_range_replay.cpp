// test/hsa/test_range_replay.cpp — RANGE_REPLAY end to end on the software HSA runtime.
//
// The program is its own tool (rocprofiler_configure) and runs with HSA_TOOLS_LIB (two GPU
// agents, ENCORE_REPLAY_VERIFY=1). Its range is a stateful three-dispatch phase on one queue:
// add_into(x -> y), double_in_place(x), add_into(x -> z), all three with the same kernarg buffer
// rewritten between dispatches (so a replay must have recorded the arguments). One run leaves
// y = y0 + x0, x = 2 x0, z = z0 + 2 x0. Modes:
//   rules       passes (fixed, continue stopping early, indefinite until continue says 0), each
//               pass from identical inputs and with the same outputs, the final memory as one
//               unreplayed run, user_data, local context toggles (and their illegal uses),
//               begin/end from callbacks, dispatch records per pass, divergence counts, many
//               ranges one after another, the RAII scope.
//   copies      ranges whose dispatches have a host-to-device copy (the host buffer overwritten
//               right after the call), a device-to-device copy and a fill between them, as
//               hsa_memory_copy and as hsa_amd_memory_async_copy (a dependency signal the program
//               reuses afterwards): every pass reads what pass 0 read (two dispatches write what
//               they read to uncovered memory, compared per pass) and ends where pass 0 ended, no
//               divergence, and the memory after the range is byte for byte an unreplayed run's.
//   declines    every decline with its status: no dispatch, opt-outs, nested begin, end without
//               begin, allocation and free, a copy to the host, a rectangular copy, a copy or fill
//               into a second agent's memory, a copy or fill the runtime refuses, another thread's
//               copy or fill on the agent, a second queue, a second agent, another thread
//               dispatching to the agent; the memory each time as one run.
//   mixed       KERNEL_REPLAY configured too: a dispatch outside a range is kernel-replayed, none
//               inside one (nor its passes); a thread that ends with its range open drops it.
//   no_service  no context configured RANGE_REPLAY: begin CONTEXT_NOT_FOUND, end INVALID_ARGUMENT.
//   stopped     the context is configured but not started: begin CONTEXT_NOT_STARTED.
//   throws      the tool throws at CONFIG ENTER: disabled, it gets nothing more of the range (no
//               CLOSE), and the memory is one run's.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <encore/replay/range_scope.hpp>
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/experimental/range_replay.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// Interface facts (the reference's range replay pull request): values, member order.
static_assert(ROCPROFILER_RANGE_REPLAY_CONFIG == 1 && ROCPROFILER_RANGE_REPLAY_PASS == 2 &&
              ROCPROFILER_RANGE_REPLAY_CLOSE == 3 && ROCPROFILER_RANGE_REPLAY_LAST == 4);
static_assert(ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED == 0 && ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_QUEUE == 3 &&
              ROCPROFILER_RANGE_REPLAY_STATUS_UNSUPPORTED_QUEUE_PATH == 13 && ROCPROFILER_RANGE_REPLAY_STATUS_LAST == 14);
static_assert(ENCORE_RANGE_REPLAY_STATUS_NESTED_RANGE > ROCPROFILER_RANGE_REPLAY_STATUS_LAST);
// encore's number for the kind (docs/replay.md: the PR's slot, 26, is encore's HIP_EVENT).
static_assert(ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY == 28);
#define RR_BEFORE(a, b)                                                           \
    static_assert(offsetof(rocprofiler_callback_tracing_range_replay_data_t, a) < \
                  offsetof(rocprofiler_callback_tracing_range_replay_data_t, b))
RR_BEFORE(size, range_id);
RR_BEFORE(range_id, pass_count_cb);
RR_BEFORE(pass_count_cb, replay_continue_cb);
RR_BEFORE(replay_continue_cb, current_pass);
RR_BEFORE(current_pass, total_passes);
RR_BEFORE(total_passes, replay_local_start_context_cb);
RR_BEFORE(replay_local_start_context_cb, replay_local_stop_context_cb);
RR_BEFORE(replay_local_stop_context_cb, agent_id);
RR_BEFORE(agent_id, dispatch_count);
RR_BEFORE(dispatch_count, status);
RR_BEFORE(status, divergence_count);
RR_BEFORE(divergence_count, passes_run);  // encore's members after the reference's
#undef RR_BEFORE

namespace {

using test_support::expect;

std::string g_mode;
rocprofiler_context_id_t g_ctx{}, g_trace{};

struct PairArgs {
    float* x;
    float* y;
    uint32_t n;
};

constexpr uint32_t n = 4096;

// ---- what the tool sees -------------------------------------------------------------------------
struct range_seen {
    int config_enter = 0, config_exit = 0, pass_enter = 0, pass_exit = 0, close_enter = 0, close_exit = 0;
    std::vector<std::uint64_t> passes;  // current_pass at each PASS ENTER
    std::uint64_t total = 0, dispatches = 0, passes_run = 0, divergence = 0, agent = 0, snapshot_bytes = 0;
    std::uint64_t pass_divergence = 0;  // sum over PASS ENTERs
    int outputs_ok = 0;                 // PASS EXITs whose memory was what one run leaves
    int continue_calls = 0;
    rocprofiler_range_replay_status_t status = ROCPROFILER_RANGE_REPLAY_STATUS_LAST;
    const char* reason = nullptr;
    std::uint64_t ud_pass_count = 0, ud_close = 0;
    std::vector<std::uint64_t> ud_pass_enter, ud_pass_exit;
    std::uint64_t correlation = 0;
    bool correlation_same = true;
};
std::mutex g_mutex;
std::map<std::uint64_t, range_seen> g_seen;  // by range id

// What the range's memory must be after one run (checked at PASS EXIT; set by the program).
const float* g_x = nullptr;
const float* g_y = nullptr;
const float* g_z = nullptr;
std::vector<float> g_x0, g_y0, g_z0;
bool one_run_left(const float* x, const float* y, const float* z) {
    for (uint32_t i = 0; i < n; ++i)
        if (x[i] != 2 * g_x0[i] || y[i] != g_y0[i] + g_x0[i] || z[i] != g_z0[i] + 2 * g_x0[i]) return false;
    return true;
}

// The policy of the next range (what CONFIG ENTER does), by range id.
enum class plan {
    fixed4,
    optout_null,
    one,
    zero_no_continue,
    until3,
    fixed5_stop2,
    toggles,
    callbacks,
    diverge,
    copies,
    throws  // CONFIG ENTER throws: the tool is disabled, and hears nothing more of the range
};
std::map<std::uint64_t, plan> g_plan;

std::uint64_t count_4(std::uint64_t id, rocprofiler_user_data_t ud) {
    std::lock_guard lk(g_mutex);
    g_seen[id].ud_pass_count = ud.value;
    return 4;
}
std::uint64_t count_5(std::uint64_t, rocprofiler_user_data_t) { return 5; }
std::uint64_t count_1(std::uint64_t, rocprofiler_user_data_t) { return 1; }
std::uint64_t count_0(std::uint64_t, rocprofiler_user_data_t) { return 0; }
int until_3(std::uint64_t id, uint64_t cur, uint64_t total, rocprofiler_user_data_t) {
    std::lock_guard lk(g_mutex);
    ++g_seen[id].continue_calls;
    expect(total == 0, "an indefinite range reports total_passes 0");
    return cur < 3 ? 1 : 0;
}
int stop_after_2(std::uint64_t id, uint64_t cur, uint64_t, rocprofiler_user_data_t) {
    std::lock_guard lk(g_mutex);
    ++g_seen[id].continue_calls;
    return cur < 2 ? 1 : 0;
}

// Dispatch records of the tracing context per pass (0: the application's run).
std::atomic<std::uint64_t> g_current_pass{0};
std::map<std::uint64_t, int> g_trace_by_pass;  // guarded by g_mutex (toggles range only)
std::atomic<bool> g_count_trace{false};
std::atomic<rocprofiler_status_t (*)(rocprofiler_context_id_t)> g_kept_toggle{nullptr};
// The divergence plan: a fine-grained (uncovered) input the tool changes before each pass.
float* g_uncovered = nullptr;

// The copies plan: two dispatches of the range add what they read into these uncovered
// (fine-grained) buffers, zeroed before each pass; at PASS EXIT they must hold what they held after
// pass 0 (identical inputs), and x, y, z what an unreplayed run left (identical outputs).
float* g_probe[2] = {nullptr, nullptr};
std::vector<float> g_probe0[2];                // after pass 0
std::vector<float> g_ref_x, g_ref_y, g_ref_z;  // after an unreplayed run
int g_inputs_ok = 0;                           // PASS EXITs whose probes equal pass 0's (guarded by g_mutex)
bool same_floats(const float* a, const std::vector<float>& b) {
    return b.size() == n && std::memcmp(a, b.data(), n * sizeof(float)) == 0;
}

void on_range(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_range_replay_data_t*>(r.payload);
    expect(r.kind == ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY, "record kind");
    expect(p->size == sizeof(*p), "payload size");
    const std::uint64_t id = p->range_id;
    std::unique_lock lk(g_mutex);
    auto& s = g_seen[id];
    const plan pl = g_plan.count(id) != 0 ? g_plan[id] : plan::fixed4;
    if (s.correlation == 0) s.correlation = r.correlation_id.internal;
    s.correlation_same = s.correlation_same && s.correlation == r.correlation_id.internal;
    if (r.operation == ROCPROFILER_RANGE_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ++s.config_enter;
        expect(p->pass_count_cb == nullptr && p->replay_continue_cb == nullptr, "CONFIG ENTER starts empty");
        expect(p->replay_local_start_context_cb == nullptr, "no toggles at CONFIG");
        ud->value = 100 + id;
        switch (pl) {
            case plan::fixed4:
            case plan::toggles:
            case plan::diverge:
            case plan::copies: p->pass_count_cb = &count_4; break;
            case plan::optout_null: break;
            case plan::one: p->pass_count_cb = &count_1; break;
            case plan::zero_no_continue: p->pass_count_cb = &count_0; break;
            case plan::until3:
                p->pass_count_cb = &count_0;
                p->replay_continue_cb = &until_3;
                break;
            case plan::fixed5_stop2:
                p->pass_count_cb = &count_5;
                p->replay_continue_cb = &stop_after_2;
                break;
            case plan::throws: lk.unlock(); throw std::runtime_error("a tool's bug at CONFIG ENTER");
            case plan::callbacks:
                p->pass_count_cb = &count_4;
                lk.unlock();
                expect(rocprofiler_range_replay_begin(999) == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
                       "begin inside a RANGE_REPLAY callback");
                expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
                       "end inside a RANGE_REPLAY callback");
                lk.lock();
                break;
        }
    } else if (r.operation == ROCPROFILER_RANGE_REPLAY_CONFIG) {
        ++s.config_exit;
        s.total = p->total_passes;
    } else if (r.operation == ROCPROFILER_RANGE_REPLAY_PASS && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ++s.pass_enter;
        s.passes.push_back(p->current_pass);
        s.pass_divergence += p->divergence_count;
        s.dispatches = p->dispatch_count;
        s.agent = p->agent_id.handle;
        s.ud_pass_enter.push_back(ud->value);
        ud->value += 1000;  // seen by this pass's EXIT only
        g_current_pass.store(p->current_pass);
        expect(p->replay_local_start_context_cb != nullptr && p->replay_local_stop_context_cb != nullptr,
               "toggles at PASS ENTER");
        g_kept_toggle.store(p->replay_local_stop_context_cb);
        if (pl == plan::toggles) {
            if (p->current_pass == 1)
                expect(p->replay_local_stop_context_cb(g_trace) == ROCPROFILER_STATUS_SUCCESS, "stop locally");
            if (p->current_pass == 3)
                expect(p->replay_local_start_context_cb(g_trace) == ROCPROFILER_STATUS_SUCCESS, "start locally");
            expect(p->replay_local_stop_context_cb(rocprofiler_context_id_t{60}) ==
                       ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
                   "toggle of an unknown context");
        }
        if (pl == plan::diverge)
            for (uint32_t i = 0; i < n; ++i) g_uncovered[i] = static_cast<float>(p->current_pass);
        if (pl == plan::copies)
            for (float* probe : g_probe) std::fill(probe, probe + n, 0.0f);
    } else if (r.operation == ROCPROFILER_RANGE_REPLAY_PASS) {
        ++s.pass_exit;
        s.ud_pass_exit.push_back(ud->value);
        if (pl == plan::copies) {
            if (same_floats(g_x, g_ref_x) && same_floats(g_y, g_ref_y) && same_floats(g_z, g_ref_z)) ++s.outputs_ok;
            if (same_floats(g_probe[0], g_probe0[0]) && same_floats(g_probe[1], g_probe0[1])) ++g_inputs_ok;
        } else if (pl != plan::diverge && g_x != nullptr && one_run_left(g_x, g_y, g_z)) {
            ++s.outputs_ok;
        }
        auto keep = g_kept_toggle.load();
        expect(keep != nullptr && keep(g_trace) == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
               "a toggle kept from PASS ENTER and called at PASS EXIT");
        g_current_pass.store(0);
    } else if (r.operation == ROCPROFILER_RANGE_REPLAY_CLOSE) {
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
            ++s.close_enter;
            s.ud_close = ud->value;
        } else {
            ++s.close_exit;
        }
        s.status = p->status;
        s.reason = p->decline_reason;
        s.passes_run = p->passes_run;
        s.divergence = p->divergence_count;
        s.dispatches = p->dispatch_count;
        s.snapshot_bytes = p->snapshot_bytes;
        s.agent = p->agent_id.handle;
    }
}

std::atomic<int> g_kernel_configs{0};
std::uint64_t kernel_passes(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return 3; }
void on_kernel_replay(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ++g_kernel_configs;
        p->replay_pass_count = &kernel_passes;
    }
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (!g_count_trace.load() || r.operation != ROCPROFILER_KERNEL_DISPATCH_ENQUEUE ||
        r.phase != ROCPROFILER_CALLBACK_PHASE_ENTER)
        return;
    std::lock_guard lk(g_mutex);
    ++g_trace_by_pass[g_current_pass.load()];
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (g_mode == "no_service") return 0;
    if (rocprofiler_create_context(&g_ctx) != 0 || rocprofiler_create_context(&g_trace) != 0) return 1;
    expect(rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY, nullptr, 0,
                                                          &on_range, nullptr) == ROCPROFILER_STATUS_SUCCESS,
           "range replay service");
    expect(rocprofiler_configure_callback_tracing_service(g_trace, ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY, nullptr,
                                                          0, &on_range, nullptr) ==
               ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
           "exactly one context may configure RANGE_REPLAY");
    const rocprofiler_tracing_operation_t bad_op = ROCPROFILER_RANGE_REPLAY_LAST;
    expect(rocprofiler_configure_callback_tracing_service(g_trace, ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY, &bad_op,
                                                          1, &on_range, nullptr) != ROCPROFILER_STATUS_SUCCESS,
           "an operation past RANGE_REPLAY_LAST");
    if (rocprofiler_configure_callback_tracing_service(g_trace, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr,
                                                       0, &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (g_mode == "mixed" &&
        rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                       &on_kernel_replay, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (g_mode == "stopped") return 0;
    if (rocprofiler_start_context(g_ctx) != 0 || rocprofiler_start_context(g_trace) != 0) return 1;
    return 0;
}

// ---- the program ------------------------------------------------------------------------------
struct device_state {
    hsa_agent_t cpu, gpu, gpu2;
    example::CodeObject *co, *co2;
    uint64_t k_add, k_double, k_add2;
    float *x, *y, *z;
    PairArgs* args;  // one kernarg buffer, rewritten between the range's dispatches
    PairArgs* args2;
    hsa_queue_t *queue, *queue2, *queue_other_agent;
    hsa_signal_t done;
};

void reset(device_state& d) {
    HSA_CHECK(hsa_memory_copy(d.x, g_x0.data(), n * sizeof(float)));
    HSA_CHECK(hsa_memory_copy(d.y, g_y0.data(), n * sizeof(float)));
    HSA_CHECK(hsa_memory_copy(d.z, g_z0.data(), n * sizeof(float)));
}

void run(device_state& d, hsa_queue_t* q, uint64_t kernel, PairArgs* args, PairArgs value) {
    *args = value;
    hsa_signal_store_relaxed(d.done, 1);
    example::dispatch_1d(q, kernel, args, n, 64, d.done);
    hsa_signal_wait_scacquire(d.done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
}

// The range's body: three dispatches, one kernarg buffer.
void body(device_state& d) {
    run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
    run(d, d.queue, d.k_double, d.args, {d.x, d.y, n});
    run(d, d.queue, d.k_add, d.args, {d.x, d.z, n});
}

bool memory_as_one_run(device_state& d) {
    std::vector<float> x(n), y(n), z(n);
    HSA_CHECK(hsa_memory_copy(x.data(), d.x, n * sizeof(float)));
    HSA_CHECK(hsa_memory_copy(y.data(), d.y, n * sizeof(float)));
    HSA_CHECK(hsa_memory_copy(z.data(), d.z, n * sizeof(float)));
    return one_run_left(x.data(), y.data(), z.data());
}

void setup(device_state& d, const char* co_path) {
    d.cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
    const auto gpus = example::agents(HSA_DEVICE_TYPE_GPU);
    d.gpu = gpus.at(0);
    d.gpu2 = gpus.at(1);
    d.co = new example::CodeObject(co_path, d.gpu);
    d.co2 = new example::CodeObject(co_path, d.gpu2);
    d.k_add = d.co->kernel("add_into", d.gpu);
    d.k_double = d.co->kernel("double_in_place", d.gpu);
    d.k_add2 = d.co2->kernel("add_into", d.gpu2);
    d.x = static_cast<float*>(example::alloc_device(d.gpu, n * sizeof(float)));
    d.y = static_cast<float*>(example::alloc_device(d.gpu, n * sizeof(float)));
    d.z = static_cast<float*>(example::alloc_device(d.gpu, n * sizeof(float)));
    g_x0.resize(n);
    g_y0.assign(n, 1.0f);
    g_z0.assign(n, 0.5f);
    for (uint32_t i = 0; i < n; ++i) g_x0[i] = static_cast<float>(i % 13 + 1);
    reset(d);
    d.args = static_cast<PairArgs*>(example::alloc_kernarg(d.cpu, d.gpu, sizeof(PairArgs)));
    d.args2 = static_cast<PairArgs*>(example::alloc_kernarg(d.cpu, d.gpu, sizeof(PairArgs)));
    HSA_CHECK(hsa_queue_create(d.gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &d.queue));
    HSA_CHECK(hsa_queue_create(d.gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &d.queue2));
    HSA_CHECK(hsa_queue_create(d.gpu2, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX,
                               &d.queue_other_agent));
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &d.done));
    // Sim device memory is this process's memory: the PASS EXIT check reads it directly.
    g_x = d.x;
    g_y = d.y;
    g_z = d.z;
}

// The code objects go before hsa_shut_down (their executables are the runtime's).
void teardown(device_state& d) {
    delete d.co;
    delete d.co2;
    d.co = d.co2 = nullptr;
}

range_seen seen(std::uint64_t id) {
    std::lock_guard lk(g_mutex);
    return g_seen[id];
}

// One range with plan `pl` around body(); returns what the tool saw.
range_seen one_range(device_state& d, std::uint64_t id, plan pl) {
    {
        std::lock_guard lk(g_mutex);
        g_plan[id] = pl;
    }
    reset(d);
    expect(rocprofiler_range_replay_begin(id) == ROCPROFILER_STATUS_SUCCESS, "begin");
    body(d);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    expect(memory_as_one_run(d), "range " + std::to_string(id) + ": the memory is what one run leaves");
    return seen(id);
}

// A tool whose CONFIG ENTER throws is disabled (the tool boundary): the range runs once as the
// program wrote it, and the disabled tool gets no CLOSE (nor anything else) afterwards.
int throws(const char* co) {
    device_state d{};
    setup(d, co);
    {
        std::lock_guard lk(g_mutex);
        g_plan[7] = plan::throws;
    }
    reset(d);
    expect(rocprofiler_range_replay_begin(7) == ROCPROFILER_STATUS_SUCCESS, "begin");
    body(d);
    (void)rocprofiler_range_replay_end();  // the range's context is disabled by now
    expect(memory_as_one_run(d), "the memory is what one run leaves");
    const range_seen s = seen(7);
    expect(s.config_enter == 1, "CONFIG ENTER reached the tool once (it threw there)");
    expect(s.config_exit == 0 && s.pass_enter == 0 && s.close_enter == 0 && s.close_exit == 0,
           "nothing reached the disabled tool after it threw (CONFIG EXIT " + std::to_string(s.config_exit) +
               ", CLOSE " + std::to_string(s.close_enter) + "/" + std::to_string(s.close_exit) + ")");
    int valid = 1;
    expect(rocprofiler_context_is_valid(g_ctx, &valid) == ROCPROFILER_STATUS_SUCCESS && valid == 0,
           "the tool's context is invalid");
    teardown(d);
    return 0;
}

int rules(const char* co) {
    device_state d{};
    setup(d, co);

    // A fixed count: passes 1..3 after the application's run.
    auto s = one_range(d, 1, plan::fixed4);
    expect(s.config_enter == 1 && s.config_exit == 1 && s.close_enter == 1 && s.close_exit == 1,
           "one CONFIG and one CLOSE per range");
    expect(s.total == 4, "total_passes at CONFIG EXIT");
    expect(s.passes == std::vector<std::uint64_t>{1, 2, 3}, "PASS records for passes 1..N-1 only (1-based)");
    expect(s.pass_exit == 3, "every PASS ENTER has its EXIT");
    expect(s.status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED && s.reason == nullptr, "replayed");
    expect(s.passes_run == 4, "passes_run counts the application's run");
    expect(s.dispatches == 3, "three dispatches recorded");
    expect(s.agent == d.gpu.handle, "the range's agent");
    expect(s.outputs_ok == 3, "every pass started from the range's start and left what one run leaves");
    expect(s.pass_divergence == 0 && s.divergence == 0, "verify: no divergence");
    expect(s.snapshot_bytes >= 3 * n * sizeof(float), "the start snapshot covers the range's buffers");
    expect(s.ud_pass_count == 101, "pass_count_cb gets what CONFIG ENTER left");
    expect(s.ud_pass_enter == std::vector<std::uint64_t>(3, 101), "each PASS starts from CONFIG ENTER's user_data");
    expect(s.ud_pass_exit == std::vector<std::uint64_t>(3, 1101), "a PASS ENTER write is seen by its EXIT");
    expect(s.ud_close == 101, "CLOSE gets CONFIG ENTER's user_data");
    expect(s.correlation != 0 && s.correlation_same, "one correlation id for the range's records");

    // Indefinite: until replay_continue_cb returns 0 (after pass 3).
    s = one_range(d, 2, plan::until3);
    expect(s.passes == std::vector<std::uint64_t>{1, 2, 3} && s.continue_calls == 3 && s.passes_run == 4,
           "an indefinite range stops when continue returns 0");
    expect(s.total == 0, "indefinite: total_passes 0");
    // Fixed 5, continue stopping after pass 2.
    s = one_range(d, 3, plan::fixed5_stop2);
    expect(s.passes == std::vector<std::uint64_t>{1, 2} && s.passes_run == 3 && s.continue_calls == 2,
           "continue stops a fixed count early");
    expect(s.outputs_ok == 2, "identical inputs per pass");

    // Local context control: the tracing context stopped for passes 1 and 2, started for 3.
    {
        std::lock_guard lk(g_mutex);
        g_trace_by_pass.clear();
    }
    g_count_trace.store(true);
    s = one_range(d, 4, plan::toggles);
    g_count_trace.store(false);
    {
        std::lock_guard lk(g_mutex);
        expect(g_trace_by_pass[0] == 3, "the application's run is traced");
        expect(g_trace_by_pass[1] == 0 && g_trace_by_pass[2] == 0, "a locally stopped context gets no records");
        expect(g_trace_by_pass[3] == 3, "started again locally: records again");
    }
    // After the range the context takes part again (toggles end with the range).
    g_count_trace.store(true);
    s = one_range(d, 5, plan::fixed4);
    g_count_trace.store(false);
    {
        std::lock_guard lk(g_mutex);
        expect(g_trace_by_pass[1] == 3 && g_trace_by_pass[2] == 3, "toggles do not outlive their range");
    }

    // begin/end refused from the service's own callbacks.
    s = one_range(d, 6, plan::callbacks);
    expect(s.status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED && s.passes_run == 4, "the range itself is replayed");

    // Divergence: add_into reads an uncovered (fine-grained) input the tool changes per pass.
    {
        std::lock_guard lk(g_mutex);
        g_plan[7] = plan::diverge;
    }
    g_uncovered = static_cast<float*>(example::alloc_shared(d.cpu, d.gpu, n * sizeof(float)));
    for (uint32_t i = 0; i < n; ++i) g_uncovered[i] = 0.0f;
    reset(d);
    expect(rocprofiler_range_replay_begin(7) == ROCPROFILER_STATUS_SUCCESS, "begin (diverge)");
    run(d, d.queue, d.k_add, d.args, {g_uncovered, d.y, n});
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end (diverge)");
    s = seen(7);
    expect(s.status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "replayed (diverge)");
    expect(s.pass_divergence == 0, "every pass still starts from the snapshot");
    expect(s.divergence == 1, "CLOSE: one region (y) differs between pass 0's end and the last pass's");
    {
        std::vector<float> y(n);
        HSA_CHECK(hsa_memory_copy(y.data(), d.y, n * sizeof(float)));
        expect(y == g_y0, "the memory is pass 0's (y + 0), not the last pass's (y + 3)");
    }

    // Many ranges one after another, and the RAII scope.
    for (std::uint64_t id = 100; id < 140; ++id) {
        reset(d);
        {
            encore::replay::range_scope scope(id);
            expect(scope.open() && scope.status() == ROCPROFILER_STATUS_SUCCESS, "scope opened");
            body(d);
        }
        expect(memory_as_one_run(d), "scope range: memory as one run");
        const auto t = seen(id);
        expect(t.status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED && t.outputs_ok == 3, "scope range replayed");
    }
    {
        reset(d);
        encore::replay::range_scope scope(200);
        body(d);
        expect(scope.end() == ROCPROFILER_STATUS_SUCCESS && !scope.open(), "scope ended early");
        expect(scope.end() == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "a second end on a scope");
        expect(memory_as_one_run(d), "early-ended scope: memory as one run");
        expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
               "the scope closed its range: nothing left open");
    }
    {
        encore::replay::range_scope outer(201);
        {
            encore::replay::range_scope inner(202);
            expect(!inner.open() && inner.status() == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
                   "a nested scope does not open");
            expect(inner.end() == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "and ends nothing");
        }
        expect(outer.open(), "the outer scope is still open");
    }
    expect(seen(201).status == ENCORE_RANGE_REPLAY_STATUS_NESTED_RANGE, "the outer range is declined as nested");
    expect(seen(202).config_enter == 0, "the nested begin opened no range");
    teardown(d);
    return 0;
}

// ---- copies and fills inside a range ------------------------------------------------------------
constexpr float fill_value = 3.0f;
std::vector<float> g_host, g_host2;  // the program's host buffers of its host-to-device copies

// H: what the host-to-device copy of the copy phase brings.
float host_value(uint32_t i) { return 5.0f + 0.25f * static_cast<float>(i % 7); }

std::uint32_t fill_word() {
    std::uint32_t w = 0;
    std::memcpy(&w, &fill_value, sizeof(w));
    return w;
}

std::vector<float> read_back(const float* dev) {
    std::vector<float> v(n);
    HSA_CHECK(hsa_memory_copy(v.data(), dev, n * sizeof(float)));
    return v;
}

// One copy of n floats as the program makes it: hsa_memory_copy, or hsa_amd_memory_async_copy
// with a dependency signal (satisfied at the call) and a completion signal it waits for.
struct copier {
    bool async;
    hsa_signal_t done, dep;
    void operator()(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent) const {
        if (!async) {
            HSA_CHECK(hsa_memory_copy(dst, src, n * sizeof(float)));
            return;
        }
        hsa_signal_store_screlease(done, 1);
        hsa_signal_store_screlease(dep, 0);
        HSA_CHECK(hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, n * sizeof(float), 1, &dep, done));
        example::wait_done(done);
    }
};

// y = y0 + x0; x = H (from the host); probe 0 += x (= H); x = 2H; z = y (= y0 + x0, device to
// device); y = 3 (a fill); probe 1 += y (= 3); y += x (= 3 + 2H). Skipping any entry in a pass, or
// re-reading the program's host buffer (overwritten right after the copy), changes a probe or x, y, z.
void copy_body(device_state& d, const copier& copy) {
    run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
    g_host.resize(n);
    for (uint32_t i = 0; i < n; ++i) g_host[i] = host_value(i);
    copy(d.x, d.gpu, g_host.data(), d.cpu);
    std::fill(g_host.begin(), g_host.end(), -7.0f);  // the program reuses its buffer
    run(d, d.queue, d.k_add, d.args, {d.x, g_probe[0], n});
    run(d, d.queue, d.k_double, d.args, {d.x, d.y, n});
    copy(d.z, d.gpu, d.y, d.gpu);
    HSA_CHECK(hsa_amd_memory_fill(d.y, fill_word(), n));
    expect(hsa_amd_memory_fill(nullptr, fill_word(), n) != HSA_STATUS_SUCCESS,
           "a fill at a null pointer gets the runtime's error");
    run(d, d.queue, d.k_add, d.args, {d.y, g_probe[1], n});
    run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
    // The program reuses its dependency signal: a pass that waited for it would never start its copy.
    if (copy.async) hsa_signal_store_screlease(copy.dep, 1);
}

// `body` run once unreplayed (its memory and probes kept as the reference), then as range `id`
// (four passes): what the tool saw. Checks pass 0 and the memory after the range.
range_seen copies_range(device_state& d, std::uint64_t id, const std::function<void()>& body) {
    {
        std::lock_guard lk(g_mutex);
        g_plan[id] = plan::copies;
        g_inputs_ok = 0;
    }
    reset(d);
    for (float* p : g_probe) std::fill(p, p + n, 0.0f);
    body();
    g_ref_x = read_back(d.x);
    g_ref_y = read_back(d.y);
    g_ref_z = read_back(d.z);
    const std::vector<float> probe_ref[2] = {{g_probe[0], g_probe[0] + n}, {g_probe[1], g_probe[1] + n}};
    reset(d);
    for (float* p : g_probe) std::fill(p, p + n, 0.0f);
    expect(rocprofiler_range_replay_begin(id) == ROCPROFILER_STATUS_SUCCESS, "begin (copies)");
    body();
    for (int i = 0; i < 2; ++i) g_probe0[i].assign(g_probe[i], g_probe[i] + n);
    expect(g_probe0[0] == probe_ref[0] && g_probe0[1] == probe_ref[1], "pass 0 read what the unreplayed run read");
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end (copies)");
    expect(same_floats(read_back(d.x).data(), g_ref_x) && same_floats(read_back(d.y).data(), g_ref_y) &&
               same_floats(read_back(d.z).data(), g_ref_z),
           "range " + std::to_string(id) + ": the memory after the range is byte for byte the unreplayed run's");
    return seen(id);
}

int copies(const char* co) {
    device_state d{};
    setup(d, co);
    for (float*& p : g_probe) p = static_cast<float*>(example::alloc_shared(d.cpu, d.gpu, n * sizeof(float)));
    hsa_signal_t done{}, dep{};
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
    HSA_CHECK(hsa_signal_create(0, 0, nullptr, &dep));
    const copier sync{false, done, dep}, async{true, done, dep};
    auto replayed = [&](const range_seen& s, const char* what) {
        const std::string w = what;
        expect(s.status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED && s.reason == nullptr && s.passes_run == 4,
               w + ": replayed, four passes");
        expect(s.dispatches == 5, w + ": five dispatches (copies and fills are entries, not dispatches)");
        expect(s.outputs_ok == 3, w + ": every pass left what the unreplayed run left");
        std::lock_guard lk(g_mutex);
        expect(g_inputs_ok == 3, w + ": every pass's dispatches read what pass 0's read");
        expect(s.pass_divergence == 0 && s.divergence == 0, w + ": verify, no divergence");
    };

    // The unreplayed run itself does what copy_body says (so the reference is the right one).
    auto s = copies_range(d, 50, [&] { copy_body(d, sync); });
    bool formula = true;
    for (uint32_t i = 0; i < n; ++i) {
        const float h = host_value(i);
        formula = formula && g_ref_x[i] == 2 * h && g_ref_y[i] == fill_value + 2 * h &&
                  g_ref_z[i] == g_y0[i] + g_x0[i] && g_probe0[0][i] == h && g_probe0[1][i] == fill_value;
    }
    expect(formula, "one run of the copy phase: x = 2H, y = 3 + 2H, z = y0 + x0");
    replayed(s, "hsa_memory_copy and a fill");

    s = copies_range(d, 51, [&] { copy_body(d, async); });
    replayed(s, "hsa_amd_memory_async_copy and a fill");
    expect(hsa_signal_load_scacquire(done) == 0, "the program's completion signal fired once per copy (pass 0's)");

    // A copy before the range's first dispatch: no entry, the start snapshot holds what it wrote.
    s = copies_range(d, 52, [&] {
        g_host2.assign(n, 11.0f);
        sync(d.y, d.gpu, g_host2.data(), d.cpu);
        std::fill(g_host2.begin(), g_host2.end(), -9.0f);
        copy_body(d, async);
    });
    replayed(s, "a copy before the first dispatch");
    expect(g_ref_z[0] == 11.0f + g_x0[0], "the copy before the first dispatch is in the unreplayed run");

    HSA_CHECK(hsa_signal_destroy(done));
    HSA_CHECK(hsa_signal_destroy(dep));
    teardown(d);
    return 0;
}

range_seen declined(device_state& d, std::uint64_t id, const std::function<void()>& inside, plan pl = plan::fixed4) {
    {
        std::lock_guard lk(g_mutex);
        g_plan[id] = pl;
    }
    reset(d);
    expect(rocprofiler_range_replay_begin(id) == ROCPROFILER_STATUS_SUCCESS, "begin");
    inside();
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    const auto s = seen(id);
    expect(s.pass_enter == 0 && s.close_enter == 1 && s.close_exit == 1 && s.passes_run == 1,
           "declined range " + std::to_string(id) + ": no passes, one CLOSE");
    return s;
}

int declines(const char* co) {
    device_state d{};
    setup(d, co);
    using st = rocprofiler_range_replay_status_t;
    auto check = [&](std::uint64_t id, st want, const std::function<void()>& inside, plan pl = plan::fixed4) {
        const auto s = declined(d, id, inside, pl);
        expect(s.status == want, "range " + std::to_string(id) + ": status " + std::to_string(s.status) +
                                     ", expected " + std::to_string(want));
        expect(memory_as_one_run(d), "range " + std::to_string(id) + ": memory as one run");
    };
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "end without begin");
    {
        const auto s10 = declined(d, 10, [] {});
        expect(s10.status == ROCPROFILER_RANGE_REPLAY_STATUS_NO_DISPATCH && s10.dispatches == 0 && s10.agent == 0,
               "a range with no dispatch");
    }
    check(
        11, ROCPROFILER_RANGE_REPLAY_STATUS_NO_PASS_COUNT, [&] { body(d); }, plan::optout_null);
    check(
        12, ROCPROFILER_RANGE_REPLAY_STATUS_NO_PASS_COUNT, [&] { body(d); }, plan::one);
    check(
        13, ROCPROFILER_RANGE_REPLAY_STATUS_NO_PASS_COUNT, [&] { body(d); }, plan::zero_no_continue);
    check(14, ROCPROFILER_RANGE_REPLAY_STATUS_ALLOCATION_CHANGED_IN_RANGE, [&] {
        body(d);
        void* extra = example::alloc_device(d.gpu, 4096);
        HSA_CHECK(hsa_amd_memory_pool_free(extra));
    });
    void* spare = example::alloc_device(d.gpu, 4096);
    check(15, ROCPROFILER_RANGE_REPLAY_STATUS_ALLOCATION_CHANGED_IN_RANGE, [&] {
        HSA_CHECK(hsa_amd_memory_pool_free(spare));
        body(d);
    });
    check(16, ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE, [&] {
        run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
        float v = 0;
        HSA_CHECK(hsa_memory_copy(&v, d.y, sizeof(v)));  // the host reads what the range wrote
        run(d, d.queue, d.k_double, d.args, {d.x, d.y, n});
        run(d, d.queue, d.k_add, d.args, {d.x, d.z, n});
    });
    // The same read as an async copy.
    check(48, ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE, [&] {
        run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
        std::vector<float> host(n);
        hsa_signal_store_screlease(d.done, 1);
        HSA_CHECK(hsa_amd_memory_async_copy(host.data(), d.cpu, d.y, d.gpu, n * sizeof(float), 0, nullptr, d.done));
        example::wait_done(d.done);
        run(d, d.queue, d.k_double, d.args, {d.x, d.y, n});
        run(d, d.queue, d.k_add, d.args, {d.x, d.z, n});
    });
    {
        // A rectangular copy (of the bytes x already holds) is not re-issued by the passes.
        const auto s40 = declined(d, 40, [&] {
            run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
            run(d, d.queue, d.k_double, d.args, {d.x, d.y, n});
            std::vector<float> twice(n);
            for (uint32_t i = 0; i < n; ++i) twice[i] = 2 * g_x0[i];
            hsa_pitched_ptr_t to{d.x, n * sizeof(float), n * sizeof(float)};
            hsa_pitched_ptr_t from{twice.data(), n * sizeof(float), n * sizeof(float)};
            const hsa_dim3_t origin{0, 0, 0}, extent{n * sizeof(float), 1, 1};
            hsa_signal_store_screlease(d.done, 1);
            HSA_CHECK(hsa_amd_memory_async_copy_rect(&to, &origin, &from, &origin, &extent, d.gpu, hsaHostToDevice, 0,
                                                     nullptr, d.done));
            example::wait_done(d.done);
            run(d, d.queue, d.k_add, d.args, {d.x, d.z, n});
        });
        expect(s40.status == ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE && s40.reason != nullptr &&
                   std::strstr(s40.reason, "rectangular") != nullptr,
               "a rectangular copy declines the range, saying so");
        expect(memory_as_one_run(d), "range 40: memory as one run");
    }
    // Entries must be on the range's agent: copies and fills into a second agent's memory.
    float* other = static_cast<float*>(example::alloc_device(d.gpu2, n * sizeof(float)));
    check(41, ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_AGENT, [&] {
        body(d);
        HSA_CHECK(hsa_memory_copy(other, g_x0.data(), n * sizeof(float)));
    });
    check(42, ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_AGENT, [&] {
        body(d);
        HSA_CHECK(hsa_memory_copy(other, d.x, n * sizeof(float)));
    });
    check(43, ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_AGENT, [&] {
        body(d);
        HSA_CHECK(hsa_amd_memory_fill(other, 0, n));
    });
    // A copy or fill the runtime refuses is the program's error, and the range's passes could not
    // repeat it: declined.
    float* scratch = static_cast<float*>(example::alloc_device(d.gpu, n * sizeof(float)));
    auto refused = [&](std::uint64_t id, const std::function<hsa_status_t()>& call) {
        const auto sr = declined(d, id, [&] {
            body(d);
            expect(call() != HSA_STATUS_SUCCESS, "range " + std::to_string(id) + ": the runtime refuses the call");
        });
        expect(sr.status == ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE && sr.reason != nullptr &&
                   std::strstr(sr.reason, "failed") != nullptr,
               "range " + std::to_string(id) + ": a refused copy or fill declines the range");
        expect(memory_as_one_run(d), "range " + std::to_string(id) + ": memory as one run");
    };
    refused(44, [&] {
        hsa_signal_store_screlease(d.done, 1);
        return hsa_amd_memory_async_copy(scratch, hsa_agent_t{1}, g_x0.data(), d.cpu, n * sizeof(float), 0, nullptr,
                                         d.done);
    });
    refused(45, [&] { return hsa_amd_memory_fill(reinterpret_cast<char*>(scratch) + 2, 0, 4); });
    // Another thread's copy or fill into the range's agent's memory.
    auto other_thread = [&](std::uint64_t id, const std::function<void()>& work) {
        const auto so = declined(d, id, [&] {
            run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
            std::thread t(work);
            t.join();
            run(d, d.queue, d.k_double, d.args, {d.x, d.y, n});
            run(d, d.queue, d.k_add, d.args, {d.x, d.z, n});
        });
        expect(so.status == ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE && so.reason != nullptr &&
                   std::strstr(so.reason, "another thread") != nullptr,
               "range " + std::to_string(id) + ": another thread's work on the agent declines the range");
        expect(memory_as_one_run(d), "range " + std::to_string(id) + ": memory as one run");
    };
    other_thread(46, [&] { HSA_CHECK(hsa_amd_memory_fill(scratch, 0, n)); });
    other_thread(47, [&] { HSA_CHECK(hsa_memory_copy(scratch, g_x0.data(), n * sizeof(float))); });
    check(17, ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_QUEUE, [&] {
        run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
        run(d, d.queue2, d.k_double, d.args, {d.x, d.y, n});
        run(d, d.queue, d.k_add, d.args, {d.x, d.z, n});
    });
    float* w2 = static_cast<float*>(example::alloc_device(d.gpu2, n * sizeof(float)));
    float* v2 = static_cast<float*>(example::alloc_device(d.gpu2, n * sizeof(float)));
    check(19, ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_AGENT, [&] {
        body(d);
        run(d, d.queue_other_agent, d.k_add2, d.args2, {w2, v2, n});
    });
    check(20, ROCPROFILER_RANGE_REPLAY_STATUS_CONCURRENT_DISPATCH, [&] {
        run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
        std::thread other([&] {
            hsa_signal_t s;
            HSA_CHECK(hsa_signal_create(1, 0, nullptr, &s));
            *d.args2 = {w2, v2, 0};  // n = 0: touches nothing
            example::dispatch_1d(d.queue2, d.k_add, d.args2, 64, 64, s);
            hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
            hsa_signal_destroy(s);
        });
        other.join();
        run(d, d.queue, d.k_double, d.args, {d.x, d.y, n});
        run(d, d.queue, d.k_add, d.args, {d.x, d.z, n});
    });
    // Nested begin: refused, and the open range is declined.
    {
        std::lock_guard lk(g_mutex);
        g_plan[21] = plan::fixed4;
    }
    reset(d);
    expect(rocprofiler_range_replay_begin(21) == ROCPROFILER_STATUS_SUCCESS, "begin 21");
    expect(rocprofiler_range_replay_begin(22) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "nested begin");
    body(d);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end 21");
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "the nested begin's end");
    expect(seen(21).status == ENCORE_RANGE_REPLAY_STATUS_NESTED_RANGE && seen(21).pass_enter == 0, "nested: declined");
    expect(seen(21).reason != nullptr, "a declined range says why");
    expect(memory_as_one_run(d), "nested: memory as one run");
    // After all of that a clean range still replays.
    const auto s = one_range(d, 30, plan::fixed4);
    expect(s.status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED && s.outputs_ok == 3, "a clean range after the declines");
    teardown(d);
    return 0;
}

int mixed(const char* co) {
    device_state d{};
    setup(d, co);
    reset(d);
    run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
    expect(g_kernel_configs.load() == 1, "a dispatch outside any range goes to kernel replay");
    {
        std::vector<float> y(n);
        HSA_CHECK(hsa_memory_copy(y.data(), d.y, n * sizeof(float)));
        bool once = true;
        for (uint32_t i = 0; i < n; ++i) once = once && y[i] == g_y0[i] + g_x0[i];
        expect(once, "kernel replay left one run's memory");
    }
    auto s = one_range(d, 1, plan::fixed4);
    expect(s.status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED && s.outputs_ok == 3, "the range is replayed");
    expect(g_kernel_configs.load() == 1, "no dispatch of the range (or of its passes) goes to kernel replay");
    s = declined(d, 4, [&] {
        run(d, d.queue, d.k_add, d.args, {d.x, d.y, n});
        run(d, d.queue2, d.k_double, d.args, {d.x, d.y, n});  // declines the range
        run(d, d.queue, d.k_add, d.args, {d.x, d.z, n});
    });
    expect(s.status == ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_QUEUE, "declined range (mixed)");
    expect(g_kernel_configs.load() == 1, "nor those of a declined range");
    expect(memory_as_one_run(d), "declined range (mixed): memory as one run");
    // A thread that ends with its range open: the range is dropped, nothing else changes.
    reset(d);
    std::thread t([&] {
        expect(rocprofiler_range_replay_begin(2) == ROCPROFILER_STATUS_SUCCESS, "begin on a thread");
        body(d);
    });
    t.join();
    expect(memory_as_one_run(d), "the dropped range ran once");
    expect(seen(2).close_enter == 0 && seen(2).pass_enter == 0, "a dropped range gets no passes and no CLOSE");
    s = one_range(d, 3, plan::fixed4);
    expect(s.status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED && s.outputs_ok == 3, "ranges go on after a drop");
    teardown(d);
    return 0;
}

// An executable destroyed while a range that dispatched its kernel is open: the range is declined
// at once (issue 40 item 4: each pass re-dispatched the destroyed kernel object and waited for the
// pass timeout), and a later range replays.
int executable_destroyed(const char* co) {
    device_state d{};
    setup(d, co);
    {
        std::lock_guard lk(g_mutex);
        g_plan[40] = plan::fixed4;
    }
    reset(d);
    auto* own = new example::CodeObject(co, d.gpu);
    const uint64_t k = own->kernel("add_into", d.gpu);
    const auto t0 = std::chrono::steady_clock::now();
    expect(rocprofiler_range_replay_begin(40) == ROCPROFILER_STATUS_SUCCESS, "begin");
    run(d, d.queue, k, d.args, {d.x, d.y, n});
    run(d, d.queue, d.k_double, d.args, {d.x, d.y, n});
    run(d, d.queue, d.k_add, d.args, {d.x, d.z, n});
    delete own;  // hsa_executable_destroy inside the range
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    const auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const range_seen s = seen(40);
    expect(s.status == ENCORE_RANGE_REPLAY_STATUS_EXECUTABLE_DESTROYED && s.pass_enter == 0 && s.reason != nullptr,
           "declined as EXECUTABLE_DESTROYED, no pass (status " + std::to_string(s.status) + ")");
    expect(secs < 10, "declined at once (" + std::to_string(secs) + " s)");
    expect(memory_as_one_run(d), "the memory is what one run leaves");
    const auto again = one_range(d, 41, plan::fixed4);
    expect(again.status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED && again.outputs_ok == 3, "a later range replays");
    teardown(d);
    return 0;
}

example::CodeObject* g_kept_code_objects[2];  // shut_down's: reachable, never freed

// A range open across hsa_shut_down, ended after it (a program that pops its range last): the
// recording made by libencore-hsa is finished before the runtime unloads it, and the range ends
// declined, with its CLOSE records (issue 40 item 3: SIGSEGV at the end).
int shut_down(const char* co) {
    device_state d{};
    setup(d, co);
    {
        std::lock_guard lk(g_mutex);
        g_plan[50] = plan::fixed4;
    }
    reset(d);
    expect(rocprofiler_range_replay_begin(50) == ROCPROFILER_STATUS_SUCCESS, "begin");
    body(d);
    // The code objects stay loaded (destroying them would decline the range first); the runtime's
    // shutdown takes their executables, and the wrappers stay reachable, never freed.
    g_kept_code_objects[0] = d.co;
    g_kept_code_objects[1] = d.co2;
    HSA_CHECK(hsa_shut_down());
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end after hsa_shut_down");
    const range_seen s = seen(50);
    expect(s.status == ENCORE_RANGE_REPLAY_STATUS_RUNTIME_SHUT_DOWN && s.pass_enter == 0 && s.close_exit == 1,
           "declined as RUNTIME_SHUT_DOWN with its CLOSE (status " + std::to_string(s.status) + ", passes " +
               std::to_string(s.pass_enter) + ", CLOSE EXIT " + std::to_string(s.close_exit) + ")");
    return 0;
}

}  // namespace

ENCORE_TEST_TOOL(nullptr, &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(
            stderr,
            "usage: %s <range code object> rules|copies|declines|mixed|throws|no_service|stopped|executable_destroyed|shut_down\n",
            argv[0]);
        return 2;
    }
    g_mode = argv[2];
    // Before hsa_init (no tool yet): nothing is configured.
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "end before anything");
    HSA_CHECK(hsa_init());
    int rc = 2;
    if (g_mode == "rules") rc = rules(argv[1]);
    if (g_mode == "declines") rc = declines(argv[1]);
    if (g_mode == "copies") rc = copies(argv[1]);
    if (g_mode == "mixed") rc = mixed(argv[1]);
    if (g_mode == "throws") rc = throws(argv[1]);
    if (g_mode == "executable_destroyed") rc = executable_destroyed(argv[1]);
    if (g_mode == "shut_down") return shut_down(argv[1]) | test_support::finish();  // shut down already
    if (g_mode == "no_service" || g_mode == "stopped") {
        const auto want = g_mode == "no_service" ? ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND
                                                 : ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED;
        for (int i = 0; i < 3; ++i) {
            expect(rocprofiler_range_replay_begin(static_cast<uint64_t>(i)) == want, "begin without a running service");
            expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
                   "end without a running service");
        }
        encore::replay::range_scope scope(5);
        expect(!scope.open() && scope.status() == want, "a scope without a running service");
        rc = 0;
    }
    HSA_CHECK(hsa_shut_down());
    return rc | test_support::finish();
}
