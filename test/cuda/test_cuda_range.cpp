// test/cuda/test_cuda_range.cpp — RANGE_REPLAY on CUDA through libencore-cuda (linked as
// libcuda.so.1) on the fake driver (fake_driver.cpp: host "kernels" with parameter sizes, graphs
// captured from a stream), no GPU.
//
// The program is its own tool (C API). Scenarios (argv[1]):
//   range     a range of four read-modify-write kernels (cuLaunchKernel with kernelParams and with
//             `extra`, cuLaunchKernelEx, cuLaunchCooperativeKernel) replayed 4 times: every pass sees the inputs pass 0
//             saw, the final memory equals an unreplayed run's, CONFIG/PASS/CLOSE carry the
//             range id, pass and dispatch counts; encore::replay::range_scope does the same
//   graph     a graph (two kernels captured from a stream) launched outside any range is a
//             range of its own (range_id = the exec's handle, dispatch_count = its kernel nodes),
//             replayed with identical inputs and an unreplayed end state; inside an open range a
//             graph launch is one entry beside a kernel
//   declines  (and a memset and copies into device memory between kernels, recorded and re-issued)
//             every reason a range is not replayed, each with its status and the program's own
//             run intact: an allocation or a free, a copy to the host, a synchronous copy (the
//             legacy stream), a second stream, a second
//             context, another thread's launch, a kernel without parameter sizes, a nested begin,
//             imported memory, a capturing stream, no launch, a pass count of 1
//   misuse    end without begin, begin twice, end on a thread without the range, begin/end from
//             a RANGE_REPLAY callback; a pass count of 0 with replay_continue_cb; the local
//             context toggles (only in PASS ENTER, unknown contexts refused)
//   threads   (ENCORE_RANGE_REPLAY_THREADS=context) another thread's launches and memsets on the
//             range's context and stream join the range (in the order they reach encore); on a
//             second stream they decline it (MULTI_QUEUE)
//   verify    (ENCORE_REPLAY_VERIFY=1) divergence counts: 0 for a deterministic range at every
//             PASS ENTER and at CLOSE; a kernel that writes a different value each run diverges
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"
#include "ctx_create.hpp"
#include "fake_driver.h"

#include <encore/replay/range_scope.hpp>
#include <rocprofiler-sdk/experimental/range_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// CUDA 12.4's; an older cuda.h (CI's 11.8) lacks the prototype, libencore-cuda exports it anyway.
#if CUDA_VERSION < 12040
extern "C" CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset, size_t* paramSize);
#endif

namespace {

using test_support::expect;
#define CHECK(x) expect((x) == CUDA_SUCCESS, #x)

std::mutex g_mutex;

// ---- the tool ------------------------------------------------------------------------------------
struct close_seen {
    std::uint64_t range_id, passes_run, dispatch_count, total_passes, divergence, snapshot_bytes;
    rocprofiler_range_replay_status_t status;
    std::string reason;
};
struct tool_state {
    std::uint64_t passes = 4;  // what pass_count_cb answers
    bool use_continue = false;
    std::uint64_t stop_after = 0;  // replay_continue_cb: 0 once current_pass reaches it
    std::vector<close_seen> closes;
    std::vector<std::uint64_t> config_ids, pass_ids, pass_numbers, pass_divergence;
    std::function<void(rocprofiler_callback_tracing_range_replay_data_t&)> on_pass_enter;
    std::function<void()> on_config_enter;
} g_t;
rocprofiler_context_id_t g_range_ctx{}, g_dispatch_ctx{};
std::atomic<int> g_dispatch_completes{0};

/// Waits (at most 5 s) until `n` KERNEL_DISPATCH COMPLETE records arrived (pass 0's come from
/// the completion thread), then a little longer so that one too many would be seen too.
int completes_after(int n) {
    for (int i = 0; i < 5000 && g_dispatch_completes.load() < n; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return g_dispatch_completes.load();
}

std::uint64_t pass_count(std::uint64_t, rocprofiler_user_data_t) { return g_t.passes; }
int keep_going(std::uint64_t, std::uint64_t current, std::uint64_t, rocprofiler_user_data_t) {
    return current + 1 < g_t.stop_after ? 1 : 0;
}

void on_range(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_range_replay_data_t*>(r.payload);
    const bool enter = r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
    if (r.operation == ROCPROFILER_RANGE_REPLAY_CONFIG && enter) {
        g_t.config_ids.push_back(p->range_id);
        p->pass_count_cb = &pass_count;
        if (g_t.use_continue) p->replay_continue_cb = &keep_going;
        if (g_t.on_config_enter) g_t.on_config_enter();
    } else if (r.operation == ROCPROFILER_RANGE_REPLAY_PASS && enter) {
        g_t.pass_ids.push_back(p->range_id);
        g_t.pass_numbers.push_back(p->current_pass);
        g_t.pass_divergence.push_back(p->divergence_count);
        if (g_t.on_pass_enter) g_t.on_pass_enter(*p);
    } else if (r.operation == ROCPROFILER_RANGE_REPLAY_CLOSE && enter) {
        g_t.closes.push_back(close_seen{p->range_id, p->passes_run, p->dispatch_count, p->total_passes,
                                        p->divergence_count, p->snapshot_bytes, p->status,
                                        p->decline_reason != nullptr ? p->decline_reason : ""});
    }
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) ++g_dispatch_completes;
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (rocprofiler_create_context(&g_range_ctx) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(g_range_ctx, ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY, nullptr,
                                                       0, &on_range, nullptr) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_create_context(&g_dispatch_ctx) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(g_dispatch_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
                                                       nullptr, 0, &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_range_ctx) == ROCPROFILER_STATUS_SUCCESS &&
                   rocprofiler_start_context(g_dispatch_ctx) == ROCPROFILER_STATUS_SUCCESS
               ? 0
               : 1;
}

/// The last CLOSE, checked for its status (and the reason's words when declined).
void expect_close(rocprofiler_range_replay_status_t status, const std::string& what) {
    const bool ok = !g_t.closes.empty() && g_t.closes.back().status == status;
    expect(ok,
           what + ": CLOSE status " + std::to_string(status) + ", got " +
               (g_t.closes.empty() ? std::string("no CLOSE")
                                   : std::to_string(g_t.closes.back().status) + " (" + g_t.closes.back().reason + ")"));
    if (ok && status != ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED &&
        status != ROCPROFILER_RANGE_REPLAY_STATUS_NO_PASS_COUNT)
        expect(!g_t.closes.back().reason.empty() && g_t.closes.back().passes_run == 1,
               what + ": a declined range says why and ran once");
}

// ---- host "kernels" (fake_driver.h) -------------------------------------------------------------
template <class T>
T* arg_ptr(void** params, int i) {
    return reinterpret_cast<T*>(*static_cast<CUdeviceptr*>(params[i]));
}
std::uint64_t sum_of(const unsigned* v, unsigned n) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned i = 0; i < n; ++i) h = (h ^ v[i]) * 1099511628211ull;
    return h;
}
// Each run records what it read (a pass's inputs).
std::vector<std::uint64_t> g_inputs;
// rmw: x[i] = 3 x[i] + y[i] (params: x, y, n)
void rmw(const unsigned[3], const unsigned[3], void** params) {
    unsigned* x = arg_ptr<unsigned>(params, 0);
    const unsigned* y = arg_ptr<const unsigned>(params, 1);
    const unsigned n = *static_cast<unsigned*>(params[2]);
    g_inputs.push_back(sum_of(x, n) ^ sum_of(y, n));
    for (unsigned i = 0; i < n; ++i) x[i] = 3 * x[i] + y[i];
}
// bump: y[i] += k (params: y, k, n)
void bump(const unsigned[3], const unsigned[3], void** params) {
    unsigned* y = arg_ptr<unsigned>(params, 0);
    const unsigned k = *static_cast<unsigned*>(params[1]);
    const unsigned n = *static_cast<unsigned*>(params[2]);
    g_inputs.push_back(sum_of(y, n));
    for (unsigned i = 0; i < n; ++i) y[i] += k;
}
// bump_unsized: bump, as a kernel whose parameter sizes the driver does not know
void bump_unsized(const unsigned grid[3], const unsigned block[3], void** params) { bump(grid, block, params); }
// tick: x[0] = a value that changes every run (not deterministic: verification sees it)
std::atomic<unsigned> g_tick{100};
void tick(const unsigned[3], const unsigned[3], void** params) {
    unsigned* x = arg_ptr<unsigned>(params, 0);
    x[0] = g_tick++;
}
constexpr unsigned ptr_ptr_u32[] = {8, 8, 4, 0};
constexpr unsigned ptr_u32_u32[] = {8, 4, 4, 0};
constexpr unsigned ptr_only[] = {8, 0};
const fake_cuda_module g_module = {4,
                                   {{"rmw", &rmw, ptr_ptr_u32},
                                    {"bump", &bump, ptr_u32_u32},
                                    {"bump_unsized", &bump_unsized, nullptr},
                                    {"tick", &tick, ptr_only}}};

constexpr unsigned n_elems = 1024;

struct device {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    CUstream s = nullptr, s2 = nullptr;
    CUmodule mod = nullptr;
    CUfunction rmw = nullptr, bump = nullptr, unsized = nullptr, tick = nullptr;
    CUdeviceptr x = 0, y = 0;
};
device open_device() {
    device d;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&d.dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&d.ctx, d.dev));
    CHECK(cuCtxSetCurrent(d.ctx));
    CHECK(cuStreamCreate(&d.s, 0));
    CHECK(cuStreamCreate(&d.s2, 0));
    CHECK(cuModuleLoadData(&d.mod, &g_module));
    CHECK(cuModuleGetFunction(&d.rmw, d.mod, "rmw"));
    CHECK(cuModuleGetFunction(&d.bump, d.mod, "bump"));
    CHECK(cuModuleGetFunction(&d.unsized, d.mod, "bump_unsized"));
    CHECK(cuModuleGetFunction(&d.tick, d.mod, "tick"));
    CHECK(cuMemAlloc(&d.x, n_elems * 4));
    CHECK(cuMemAlloc(&d.y, n_elems * 4));
    return d;
}
void close_device(device& d) {
    CHECK(cuMemFree(d.x));
    CHECK(cuMemFree(d.y));
    CHECK(cuStreamDestroy(d.s));
    CHECK(cuStreamDestroy(d.s2));
    CHECK(cuModuleUnload(d.mod));
    CHECK(cuDevicePrimaryCtxRelease(d.dev));
}

/// x and y to a known start.
void reset(const device& d) {
    std::vector<unsigned> x(n_elems), y(n_elems);
    for (unsigned i = 0; i < n_elems; ++i) x[i] = i % 13, y[i] = i % 5 + 1;
    CHECK(cuMemcpyHtoD(d.x, x.data(), n_elems * 4));
    CHECK(cuMemcpyHtoD(d.y, y.data(), n_elems * 4));
    CHECK(cuCtxSynchronize());
}
struct state {
    std::vector<unsigned> x, y;
    bool operator==(const state&) const = default;
};
state read(const device& d) {
    state s{std::vector<unsigned>(n_elems), std::vector<unsigned>(n_elems)};
    CHECK(cuMemcpyDtoH(s.x.data(), d.x, n_elems * 4));
    CHECK(cuMemcpyDtoH(s.y.data(), d.y, n_elems * 4));
    return s;
}

void launch_rmw(const device& d, CUstream s) {
    CUdeviceptr x = d.x, y = d.y;
    unsigned n = n_elems;
    void* params[] = {&x, &y, &n};
    CHECK(cuLaunchKernel(d.rmw, 1, 1, 1, 64, 1, 1, 0, s, params, nullptr));
}
void launch_bump(const device& d, CUfunction f, CUstream s, unsigned k) {
    CUdeviceptr y = d.y;
    unsigned n = n_elems;
    void* params[] = {&y, &k, &n};
    CHECK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, s, params, nullptr));
}
void launch_bump_ex(const device& d, CUstream s, unsigned k) {
    CUdeviceptr y = d.y;
    unsigned n = n_elems;
    void* params[] = {&y, &k, &n};
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attr.value.priority = 0;
    CUlaunchConfig cfg{};
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = 64, cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.hStream = s;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK(cuLaunchKernelEx(&cfg, d.bump, params, nullptr));
}
void launch_rmw_coop(const device& d, CUstream s) {
    CUdeviceptr x = d.x, y = d.y;
    unsigned n = n_elems;
    void* params[] = {&x, &y, &n};
    CHECK(cuLaunchCooperativeKernel(d.rmw, 1, 1, 1, 64, 1, 1, 0, s, params));
}

/// bump through cuLaunchKernel's `extra`: one buffer, each parameter at the driver's offset.
void launch_bump_extra(const device& d, CUstream s, unsigned k) {
    unsigned char buffer[24] = {};
    std::size_t offsets[3] = {}, size = sizeof(buffer);
    for (std::size_t i = 0; i < 3; ++i) {
        std::size_t n = 0;
        CHECK(cuFuncGetParamInfo(d.bump, i, &offsets[i], &n));
    }
    const CUdeviceptr y = d.y;
    const unsigned n = n_elems;
    std::memcpy(buffer + offsets[0], &y, sizeof(y));
    std::memcpy(buffer + offsets[1], &k, sizeof(k));
    std::memcpy(buffer + offsets[2], &n, sizeof(n));
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CHECK(cuLaunchKernel(d.bump, 1, 1, 1, 64, 1, 1, 0, s, nullptr, extra));
}

/// The range's four launches, one of each form; each launch's argument storage is gone before
/// the range ends.
void four_launches(const device& d) {
    launch_rmw(d, d.s);
    launch_bump_ex(d, d.s, 7);
    launch_rmw_coop(d, d.s);
    launch_bump_extra(d, d.s, 11);
}

/// The inputs of K kernels over `passes` passes: every pass's equal pass 0's.
bool identical_per_pass(const std::vector<std::uint64_t>& in, std::size_t k, std::size_t passes) {
    if (in.size() != k * passes) return false;
    for (std::size_t p = 1; p < passes; ++p)
        for (std::size_t i = 0; i < k; ++i)
            if (in[p * k + i] != in[i]) return false;
    return true;
}

// ---- range -----------------------------------------------------------------------------------------
int run_range() {
    device d = open_device();
    // Unreplayed: no range.
    reset(d);
    g_inputs.clear();
    four_launches(d);
    CHECK(cuCtxSynchronize());
    const state plain = read(d);
    const auto plain_inputs = g_inputs;
    expect(g_t.closes.empty() && g_inputs.size() == 4, "without a range nothing is replayed");

    reset(d);
    g_inputs.clear();
    expect(rocprofiler_range_replay_begin(42) == ROCPROFILER_STATUS_SUCCESS, "begin on a CUDA-only process");
    four_launches(d);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    const state replayed = read(d);
    expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "three kernels");
    if (!g_t.closes.empty()) {
        const auto& c = g_t.closes.back();
        expect(c.range_id == 42 && c.passes_run == 4 && c.total_passes == 4 && c.dispatch_count == 4,
               "CLOSE: range 42, 4 passes run, 4 dispatches (" + std::to_string(c.passes_run) + ", " +
                   std::to_string(c.dispatch_count) + ")");
        expect(c.snapshot_bytes >= 2 * n_elems * 4, "the start snapshot covers x and y");
    }
    expect(g_t.pass_numbers == std::vector<std::uint64_t>({1, 2, 3}), "PASS ENTER for passes 1, 2, 3");
    expect(identical_per_pass(g_inputs, 4, 4), "every pass's kernels read what pass 0's read");
    expect(std::vector<std::uint64_t>(g_inputs.begin(), g_inputs.begin() + 4) == plain_inputs,
           "pass 0 read what an unreplayed run reads");
    expect(replayed == plain, "after the range, memory is what an unreplayed run leaves");

    // The RAII scope, twice in a row (each range its own snapshot).
    for (int i = 0; i < 2; ++i) {
        reset(d);
        g_inputs.clear();
        {
            encore::replay::range_scope scope(100 + i);
            expect(scope.open(), "range_scope opens on CUDA");
            four_launches(d);
        }
        expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "range_scope");
        expect(!g_t.closes.empty() && g_t.closes.back().range_id == std::uint64_t(100 + i), "range_scope's id");
        expect(identical_per_pass(g_inputs, 4, 4) && read(d) == plain, "range_scope: identical inputs, unreplayed end");
    }
    // Pass 0's and the passes' KERNEL_DISPATCH COMPLETE records: 4 launches x 4 passes per range.
    const int seen = completes_after(4 + 3 * 4 * 4);
    expect(seen == 4 + 3 * 4 * 4, "KERNEL_DISPATCH COMPLETE for pass 0 and every pass (" + std::to_string(seen) + ")");
    close_device(d);
    return test_support::finish();
}

// ---- graph -------------------------------------------------------------------------------------------
int run_graph() {
    device d = open_device();
    // The graph: rmw then bump, captured from stream s (the launches' arguments copied at capture).
    CHECK(cuStreamBeginCapture(d.s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    launch_rmw(d, d.s);
    launch_bump(d, d.bump, d.s, 3);
    CUgraph graph = nullptr;
    CHECK(cuStreamEndCapture(d.s, &graph));
    CUgraphExec exec = nullptr;
    CHECK(cuGraphInstantiateWithFlags(&exec, graph, 0));
    CHECK(cuGraphDestroy(graph));  // as PyTorch may: the exec lives on, its kernel count was taken

    // Unreplayed: the same two kernels launched directly.
    reset(d);
    g_inputs.clear();
    launch_rmw(d, d.s);
    launch_bump(d, d.bump, d.s, 3);
    CHECK(cuCtxSynchronize());
    const state plain = read(d);
    expect(g_t.closes.empty(), "kernel launches outside a range are not ranges");

    // A graph launch outside a range: a range of its own.
    reset(d);
    g_inputs.clear();
    CHECK(cuGraphLaunch(exec, d.s));
    CHECK(cuStreamSynchronize(d.s));
    expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "a graph launch");
    if (!g_t.closes.empty()) {
        const auto& c = g_t.closes.back();
        expect(c.range_id == reinterpret_cast<std::uint64_t>(exec), "its range_id is the exec's handle");
        expect(c.dispatch_count == 2 && c.passes_run == 4, "2 kernel nodes, 4 passes (" +
                                                               std::to_string(c.dispatch_count) + ", " +
                                                               std::to_string(c.passes_run) + ")");
    }
    expect(g_t.config_ids.size() == 1 && g_t.config_ids[0] == reinterpret_cast<std::uint64_t>(exec),
           "CONFIG with the exec's handle");
    expect(identical_per_pass(g_inputs, 2, 4), "every pass of the graph reads what pass 0 read");
    expect(read(d) == plain, "after the graph's passes, memory is what one launch leaves");

    // Inside an open range: a kernel and the graph, one range.
    reset(d);
    g_inputs.clear();
    launch_bump(d, d.bump, d.s, 5);
    CHECK(cuGraphLaunch(exec, d.s));
    CHECK(cuCtxSynchronize());
    const state plain2 = read(d);
    reset(d);
    g_inputs.clear();
    const std::size_t closes = g_t.closes.size();
    expect(rocprofiler_range_replay_begin(7) == ROCPROFILER_STATUS_SUCCESS, "begin");
    launch_bump(d, d.bump, d.s, 5);
    CHECK(cuGraphLaunch(exec, d.s));
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    expect(g_t.closes.size() == closes + 1, "one CLOSE: the graph launch is an entry of range 7, not a range");
    expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "a kernel and a graph in a range");
    expect(!g_t.closes.empty() && g_t.closes.back().range_id == 7 && g_t.closes.back().dispatch_count == 3,
           "range 7: 1 kernel + 2 graph nodes");
    expect(identical_per_pass(g_inputs, 3, 4), "every pass reads what pass 0 read");
    expect(read(d) == plain2, "memory as unreplayed");

    // A graph launched into a capturing stream is captured, not run: not a range.
    CHECK(cuStreamBeginCapture(d.s2, CU_STREAM_CAPTURE_MODE_GLOBAL));
    const std::size_t before = g_t.closes.size();
    CHECK(cuGraphLaunch(exec, d.s2));
    CUgraph nested = nullptr;
    CHECK(cuStreamEndCapture(d.s2, &nested));
    expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_UNSUPPORTED_QUEUE_PATH, "a graph launch into a capturing stream");
    expect(g_t.closes.size() == before + 1, "its range closes declined");
    CHECK(cuGraphDestroy(nested));
    CHECK(cuGraphExecDestroy(exec));
    close_device(d);
    return test_support::finish();
}

// ---- declines ---------------------------------------------------------------------------------------
/// One range that `body` spoils; then memory must be what the body's launches do once.
void decline_case(const device& d, rocprofiler_range_replay_status_t status, const std::string& what,
                  const std::function<void()>& body) {
    reset(d);
    g_inputs.clear();
    const std::size_t closes = g_t.closes.size();
    expect(rocprofiler_range_replay_begin(1000 + closes) == ROCPROFILER_STATUS_SUCCESS, what + ": begin");
    body();
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, what + ": end");
    expect(g_t.closes.size() == closes + 1, what + ": one CLOSE");
    expect_close(status, what);
}

int run_declines() {
    device d = open_device();
    // Reference: rmw, bump(1) once each.
    reset(d);
    launch_rmw(d, d.s);
    launch_bump(d, d.bump, d.s, 1);
    CHECK(cuCtxSynchronize());
    const state once = read(d);
    const auto two = [&] {
        launch_rmw(d, d.s);
        launch_bump(d, d.bump, d.s, 1);
    };

    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_ALLOCATION_CHANGED_IN_RANGE, "an allocation in the range", [&] {
        launch_rmw(d, d.s);
        CUdeviceptr p = 0;
        CHECK(cuMemAlloc(&p, 4096));
        launch_bump(d, d.bump, d.s, 1);
        CHECK(cuMemFree(p));
    });
    expect(read(d) == once && g_inputs.size() == 2, "allocation: the program's run only");
    CUdeviceptr spare = 0;
    CHECK(cuMemAlloc(&spare, 4096));
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_ALLOCATION_CHANGED_IN_RANGE, "a free in the range", [&] {
        two();
        CHECK(cuMemFree(spare));
    });
    expect(read(d) == once, "free: the program's run only");
    // A synchronous copy runs on the legacy stream: a second stream for a range on d.s.
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_QUEUE, "a synchronous copy to the device in the range", [&] {
        launch_rmw(d, d.s);
        const unsigned v = 1;
        CHECK(cuMemcpyHtoD(d.x + 4 * (n_elems - 1), &v, 4));
        launch_bump(d, d.bump, d.s, 1);
    });
    expect(
        read(d) ==
            [&] {
                reset(d);
                launch_rmw(d, d.s);
                const unsigned v = 1;
                CHECK(cuMemcpyHtoD(d.x + 4 * (n_elems - 1), &v, 4));
                launch_bump(d, d.bump, d.s, 1);
                CHECK(cuCtxSynchronize());
                return read(d);
            }(),
        "synchronous copy: the program's run only");
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE, "a copy to the host in the range", [&] {
        two();
        unsigned v = 0;
        CHECK(cuMemcpyDtoH(&v, d.x, 4));
    });
    expect(read(d) == once, "copy: the program's run only");
    // A memset is recorded, not declined: re-issued in each pass between the kernels.
    reset(d);
    launch_rmw(d, d.s);
    CHECK(cuMemsetD32Async(d.y, 9, 16, d.s));
    launch_bump(d, d.bump, d.s, 1);
    CHECK(cuCtxSynchronize());
    const state with_memset = read(d);
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "a memset between kernels", [&] {
        launch_rmw(d, d.s);
        CHECK(cuMemsetD32Async(d.y, 9, 16, d.s));
        launch_bump(d, d.bump, d.s, 1);
    });
    expect(!g_t.closes.empty() && g_t.closes.back().dispatch_count == 2, "a memset is an entry, not a dispatch");
    expect(read(d) == with_memset && identical_per_pass(g_inputs, 2, 4),
           "memset in the range: every pass's bump read the memset's values, unreplayed end");
    // Copies into device memory on the range's stream are recorded and issued again in each
    // pass: host to device with the bytes the host held at the call (changed right after it,
    // as a program reusing a staging buffer does), device to device with the program's
    // arguments (its source restored by the snapshot), through cuMemcpyHtoDAsync and
    // cuMemcpyDtoDAsync (the fake has no unified cuMemcpy nor pointer attributes).
    unsigned host_v[4] = {7, 8, 9, 10};
    const auto copies = [&] {
        launch_rmw(d, d.s);
        CHECK(cuMemcpyHtoDAsync(d.y, host_v, sizeof host_v, d.s));
        CHECK(cuMemcpyDtoDAsync(d.y + 64, d.x, 64, d.s));
        CHECK(cuStreamSynchronize(d.s));     // the fake's async copies are done here anyway
        host_v[0] = 1000, host_v[1] = 1001;  // after the calls: the passes must not see it
        launch_bump(d, d.bump, d.s, 1);
    };
    reset(d);
    copies();
    CHECK(cuCtxSynchronize());
    const state with_copies = read(d);
    host_v[0] = 7, host_v[1] = 8;
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "copies into device memory between kernels", copies);
    expect(!g_t.closes.empty() && g_t.closes.back().dispatch_count == 2, "copies are entries, not dispatches");
    expect(read(d) == with_copies && identical_per_pass(g_inputs, 2, 4),
           "copies in the range: every pass's bump read what pass 0's read, unreplayed end");
    // 2-D and 3-D copies into device memory are entries too: from host memory with the rows the
    // host held at the call (a pitched source, the rows copied densely), from device memory with
    // the program's descriptor (copied: the program may reuse it after the call).
    unsigned host_rows[4][8] = {};  // 4 rows of 32 bytes; each copy reads 16 bytes from each row
    for (unsigned r = 0; r < 4; ++r)
        for (unsigned i = 0; i < 8; ++i) host_rows[r][i] = 100 * r + i;
    const auto copies_2d = [&] {
        launch_rmw(d, d.s);
        CUDA_MEMCPY2D h2d{};
        h2d.srcMemoryType = CU_MEMORYTYPE_HOST;
        h2d.srcHost = host_rows;
        h2d.srcPitch = sizeof host_rows[0];
        h2d.srcXInBytes = 8;  // from the third word of each row
        h2d.srcY = 1;
        h2d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        h2d.dstDevice = d.y;
        h2d.dstPitch = 16;
        h2d.WidthInBytes = 16;
        h2d.Height = 2;
        CHECK(cuMemcpy2DAsync(&h2d, d.s));
        CUDA_MEMCPY3D h3d{};
        h3d.srcMemoryType = CU_MEMORYTYPE_HOST;
        h3d.srcHost = host_rows;
        h3d.srcPitch = sizeof host_rows[0];
        h3d.srcHeight = 2;
        h3d.srcY = 1;  // rows 1 and 3 of the two 2-row slices
        h3d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        h3d.dstDevice = d.y + 32;
        h3d.dstPitch = 8;
        h3d.dstHeight = 1;
        h3d.WidthInBytes = 8;
        h3d.Height = 1;
        h3d.Depth = 2;
        CHECK(cuMemcpy3DAsync(&h3d, d.s));
        CUDA_MEMCPY2D d2d{};
        d2d.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        d2d.srcDevice = d.x;
        d2d.srcPitch = 64;
        d2d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        d2d.dstDevice = d.y + 64;
        d2d.dstPitch = 32;
        d2d.WidthInBytes = 32;
        d2d.Height = 2;
        CHECK(cuMemcpy2DAsync(&d2d, d.s));
        h2d = {};  // the program's descriptors and host rows change after the calls
        d2d = {};
        CHECK(cuStreamSynchronize(d.s));
        for (auto& row : host_rows) row[2] = row[3] = 5000;
        launch_bump(d, d.bump, d.s, 1);
    };
    const auto refill = [&] {
        for (unsigned r = 0; r < 4; ++r)
            for (unsigned i = 0; i < 8; ++i) host_rows[r][i] = 100 * r + i;
    };
    reset(d);
    copies_2d();
    CHECK(cuCtxSynchronize());
    const state with_2d = read(d);
    refill();
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "2-D and 3-D copies into device memory", copies_2d);
    expect(read(d) == with_2d && identical_per_pass(g_inputs, 2, 4),
           "2-D/3-D copies in the range: every pass's bump read what pass 0's read, unreplayed end");
    refill();
    host_v[0] = 7, host_v[1] = 8;
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_QUEUE, "a second stream", [&] {
        launch_rmw(d, d.s);
        launch_bump(d, d.bump, d.s2, 1);
    });
    expect(read(d) == once && g_inputs.size() == 2, "second stream: the program's run only");
    CUcontext other = nullptr;
    CHECK(ctx_create_v2(&other, 0, d.dev));
    CHECK(cuCtxSetCurrent(d.ctx));
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_AGENT, "a second context", [&] {
        launch_rmw(d, d.s);
        CHECK(cuCtxSetCurrent(other));
        launch_bump(d, d.bump, nullptr, 1);
        CHECK(cuCtxSetCurrent(d.ctx));
    });
    expect(read(d) == once, "second context: the program's run only");
    CHECK(cuCtxDestroy(other));
    CHECK(cuCtxSetCurrent(d.ctx));
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_CONCURRENT_DISPATCH, "another thread's launch", [&] {
        launch_rmw(d, d.s);
        std::thread t([&] {
            CHECK(cuCtxSetCurrent(d.ctx));
            launch_bump(d, d.bump, d.s2, 1);
            CHECK(cuStreamSynchronize(d.s2));
        });
        t.join();
    });
    expect(read(d) == once, "another thread: the program's run only");
    // Before the range's first launch another thread's work is not the range's: it replays.
    const auto other_first = [&] {
        std::thread t([&] {
            CHECK(cuCtxSetCurrent(d.ctx));
            launch_bump(d, d.bump, d.s2, 1);
            CHECK(cuStreamSynchronize(d.s2));
        });
        t.join();
    };
    reset(d);
    other_first();
    two();
    CHECK(cuCtxSynchronize());
    const state after_other = read(d);
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "another thread's launch before the range's first", [&] {
        other_first();
        two();
    });
    expect(read(d) == after_other, "another thread first: memory as unreplayed");
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_UNKNOWN_KERNARG_SIZE, "a kernel without parameter sizes", [&] {
        launch_rmw(d, d.s);
        launch_bump(d, d.unsized, d.s, 1);
    });
    expect(read(d) == once && g_inputs.size() == 2, "unknown sizes: the program's run only");
    decline_case(d, ENCORE_RANGE_REPLAY_STATUS_NESTED_RANGE, "a nested begin", [&] {
        launch_rmw(d, d.s);
        expect(rocprofiler_range_replay_begin(5) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
               "begin inside a range: INVALID_ARGUMENT");
        launch_bump(d, d.bump, d.s, 1);
    });
    expect(read(d) == once, "nested: the program's run only");
    // Memory imported from another process (the fake takes any non-null pool).
    CUmemPoolPtrExportData share{};
    const std::size_t import_size = 4096;
    std::memcpy(share.reserved, &import_size, sizeof(import_size));
    CUdeviceptr imported = 0;
    CHECK(cuMemPoolImportPointer(&imported, reinterpret_cast<CUmemoryPool>(0x1), &share));
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_SNAPSHOT_FAILED, "imported memory in the context", two);
    expect(read(d) == once, "imported: the program's run only");
    CHECK(cuMemFreeAsync(imported, d.s));
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_UNSUPPORTED_QUEUE_PATH, "a launch into a capturing stream", [&] {
        CHECK(cuStreamBeginCapture(d.s, CU_STREAM_CAPTURE_MODE_GLOBAL));
        launch_rmw(d, d.s);
        CUgraph g = nullptr;
        CHECK(cuStreamEndCapture(d.s, &g));
        CHECK(cuGraphDestroy(g));
    });
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_NO_DISPATCH, "a range without a launch", [] {});
    g_t.passes = 1;
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_NO_PASS_COUNT, "a pass count of 1", two);
    expect(!g_t.closes.empty() && g_t.closes.back().passes_run == 1 && g_t.closes.back().snapshot_bytes == 0,
           "observe only: one pass, no snapshot");
    g_t.passes = 4;
    // After all of that a range replays again.
    decline_case(d, ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "a clean range afterwards", two);
    expect(read(d) == once && identical_per_pass(g_inputs, 2, 4), "the clean range: identical inputs, unreplayed end");
    close_device(d);
    return test_support::finish();
}

// ---- misuse ------------------------------------------------------------------------------------------
int run_misuse() {
    device d = open_device();
    reset(d);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "end without begin");
    expect(rocprofiler_range_replay_begin(1) == ROCPROFILER_STATUS_SUCCESS, "begin");
    expect(rocprofiler_range_replay_begin(2) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "begin twice");
    rocprofiler_status_t other_end = ROCPROFILER_STATUS_SUCCESS;
    std::thread([&] { other_end = rocprofiler_range_replay_end(); }).join();
    expect(other_end == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "end on a thread without the range");
    launch_rmw(d, d.s);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end on the range's thread");
    expect_close(ENCORE_RANGE_REPLAY_STATUS_NESTED_RANGE, "the range begun twice");
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, "end after end");

    // begin/end from a RANGE_REPLAY callback are refused.
    rocprofiler_status_t in_cb_begin = ROCPROFILER_STATUS_SUCCESS, in_cb_end = ROCPROFILER_STATUS_SUCCESS;
    g_t.on_config_enter = [&] {
        in_cb_begin = rocprofiler_range_replay_begin(9);
        in_cb_end = rocprofiler_range_replay_end();
    };
    reset(d);
    expect(rocprofiler_range_replay_begin(3) == ROCPROFILER_STATUS_SUCCESS, "begin");
    g_t.on_config_enter = nullptr;
    launch_rmw(d, d.s);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    expect(in_cb_begin == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR && in_cb_end == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
           "begin and end from CONFIG ENTER: CONTEXT_ERROR");
    expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "the range whose callback misused the API");

    // A pass count of 0 with replay_continue_cb: passes until it says 0 (after pass 4 here).
    g_t.passes = 0;
    g_t.use_continue = true;
    g_t.stop_after = 5;
    reset(d);
    launch_rmw(d, d.s);
    CHECK(cuCtxSynchronize());
    const state once = read(d);
    reset(d);
    g_inputs.clear();
    expect(rocprofiler_range_replay_begin(4) == ROCPROFILER_STATUS_SUCCESS, "begin (pass count 0)");
    launch_rmw(d, d.s);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end (pass count 0)");
    expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "pass count 0 + continue");
    expect(!g_t.closes.empty() && g_t.closes.back().passes_run == 5 && g_t.closes.back().total_passes == 0,
           "continue said 0 after pass 4: 5 passes run, total 0 (indefinite)");
    expect(identical_per_pass(g_inputs, 1, 5) && read(d) == once, "pass count 0: identical inputs, unreplayed end");
    g_t.passes = 4;
    g_t.use_continue = false;

    // Local toggles: at pass 1's ENTER the dispatch context is stopped for the range's passes.
    rocprofiler_status_t bad_ctx = ROCPROFILER_STATUS_SUCCESS, stop = ROCPROFILER_STATUS_ERROR;
    decltype(rocprofiler_callback_tracing_range_replay_data_t::replay_local_start_context_cb) saved = nullptr;
    g_t.on_pass_enter = [&](rocprofiler_callback_tracing_range_replay_data_t& p) {
        if (p.current_pass != 1) return;
        bad_ctx = p.replay_local_stop_context_cb(rocprofiler_context_id_t{977});
        stop = p.replay_local_stop_context_cb(g_dispatch_ctx);
        saved = p.replay_local_start_context_cb;
    };
    reset(d);
    const int completes = completes_after(0);
    expect(rocprofiler_range_replay_begin(5) == ROCPROFILER_STATUS_SUCCESS, "begin (toggles)");
    launch_rmw(d, d.s);
    launch_bump(d, d.bump, d.s, 2);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end (toggles)");
    g_t.on_pass_enter = nullptr;
    expect(stop == ROCPROFILER_STATUS_SUCCESS && bad_ctx == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
           "stop: SUCCESS for the dispatch context, CONTEXT_NOT_FOUND for an unknown one");
    const int toggled = completes_after(completes + 2) - completes;
    expect(toggled == 2, "the stopped context saw pass 0's 2 dispatches only (" + std::to_string(toggled) + ")");
    expect(saved != nullptr && saved(g_dispatch_ctx) == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
           "a toggle outside PASS ENTER: CONTEXT_ERROR");
    // The next range sees every pass again (toggles last one range).
    const int before = g_dispatch_completes.load();
    reset(d);
    expect(rocprofiler_range_replay_begin(6) == ROCPROFILER_STATUS_SUCCESS, "begin");
    launch_rmw(d, d.s);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    expect(completes_after(before + 4) - before == 4, "the next range: records for all 4 passes again");
    close_device(d);
    return test_support::finish();
}

// ---- threads -------------------------------------------------------------------------------------------
int run_threads() {
    device d = open_device();
    // Unreplayed: rmw here, then a memset and bump from another thread (handed over: joined).
    const auto other = [&](CUstream s) {
        std::thread t([&] {
            CHECK(cuCtxSetCurrent(d.ctx));
            CHECK(cuMemsetD32Async(d.y, 4, 8, s));
            launch_bump(d, d.bump, s, 2);
        });
        t.join();
    };
    reset(d);
    launch_rmw(d, d.s);
    other(d.s);
    launch_rmw(d, d.s);
    CHECK(cuCtxSynchronize());
    const state plain = read(d);
    reset(d);
    g_inputs.clear();
    expect(rocprofiler_range_replay_begin(1) == ROCPROFILER_STATUS_SUCCESS, "begin");
    launch_rmw(d, d.s);
    other(d.s);
    launch_rmw(d, d.s);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "another thread's launch and memset joined");
    expect(!g_t.closes.empty() && g_t.closes.back().dispatch_count == 3, "3 dispatches (2 here, 1 joined)");
    expect(identical_per_pass(g_inputs, 3, 4) && read(d) == plain, "joined: identical inputs, unreplayed end");
    // The other thread on a second stream: declined.
    reset(d);
    expect(rocprofiler_range_replay_begin(2) == ROCPROFILER_STATUS_SUCCESS, "begin");
    launch_rmw(d, d.s);
    other(d.s2);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_QUEUE, "another thread on a second stream");
    close_device(d);
    return test_support::finish();
}

// ---- verify ---------------------------------------------------------------------------------------------
int run_verify() {
    device d = open_device();
    reset(d);
    g_t.pass_divergence.clear();
    expect(rocprofiler_range_replay_begin(1) == ROCPROFILER_STATUS_SUCCESS, "begin");
    four_launches(d);
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "deterministic range");
    expect(g_t.pass_divergence == std::vector<std::uint64_t>({0, 0, 0}), "every PASS ENTER: 0 regions differ");
    expect(!g_t.closes.empty() && g_t.closes.back().divergence == 0, "CLOSE: the last pass ended as pass 0");

    reset(d);
    expect(rocprofiler_range_replay_begin(2) == ROCPROFILER_STATUS_SUCCESS, "begin");
    launch_rmw(d, d.s);
    CUdeviceptr x = d.x;
    void* params[] = {&x};
    CHECK(cuLaunchKernel(d.tick, 1, 1, 1, 1, 1, 1, 0, d.s, params, nullptr));
    expect(rocprofiler_range_replay_end() == ROCPROFILER_STATUS_SUCCESS, "end");
    expect_close(ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED, "non-deterministic range");
    expect(!g_t.closes.empty() && g_t.closes.back().divergence == 1,
           "CLOSE: x (one region) ended differently than after pass 0");
    unsigned first = 0;
    CHECK(cuMemcpyDtoH(&first, d.x, 4));
    expect(first == 100, "the program sees pass 0's value (the first tick), not the last pass's");
    close_device(d);
    return test_support::finish();
}

}  // namespace

ENCORE_TEST_TOOL("test-cuda-range", &tool_init, nullptr)

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "range") return run_range();
    if (mode == "graph") return run_graph();
    if (mode == "declines") return run_declines();
    if (mode == "misuse") return run_misuse();
    if (mode == "verify") return run_verify();
    if (mode == "threads") return run_threads();
    std::fprintf(stderr, "usage: test_cuda_range range|graph|declines|misuse|verify|threads\n");
    return 2;
}
