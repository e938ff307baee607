// test/cuda/test_cuda_cupti.cpp — KERNEL_DISPATCH records timed by CUPTI (src/cuda/cupti.cpp) on
// the fake driver (ENCORE_CUDA_DRIVER) and the fake CUPTI (test/cuda/fake_cupti.cpp,
// ENCORE_CUPTI_LIBRARY), no GPU. The program is its own tool (C API, records by value).
//
//   test_cuda_cupti run SOURCE   two threads launch 40 kernels each on two streams, one launch
//                                the driver rejects, one launch made on the driver behind encore's
//                                back; then the primary context is released. SOURCE (cupti |
//                                events | none) is the timing source the environment should have
//                                chosen (none: CUPTI, pairing none of the launches: every COMPLETE
//                                without times, after the release's 10 s wait; unnamed: CUPTI
//                                loaded, but it cannot name the streams: each launch timed with
//                                events).
//                                Checks: every launch made through encore has one ENQUEUE ENTER,
//                                one EXIT and exactly one COMPLETE, delivered before the release
//                                returned, with the ENQUEUE's correlation id and user_data, a
//                                dispatch id of its own, start <= end inside the host window of
//                                its launch call (exact with CUPTI: the fake driver's launches are
//                                synchronous); the rejected one with zero times; nothing for the
//                                launch encore did not make; with cupti, one external id pushed
//                                and popped per launch (ENCORE_CUPTI_PAIRING=external) or none and
//                                no API records asked for (stream order), with events none
//   test_cuda_cupti streams      two contexts (the primary one and a created one), two threads in
//                                each launching on a stream of their own, the legacy default
//                                stream (null and CU_STREAM_LEGACY) and their per-thread default
//                                stream, with varied grids and a rejected launch per stream; the
//                                same checks as `run` per launch, times exact; launches of 3-wide
//                                grids untimed when FAKE_CUPTI_DROP_GRID=3 loses their records;
//                                then 5 launches with the tool's context stopped and 5 of the same
//                                shape on the same stream after it restarted, those timed exactly
//   test_cuda_cupti reused       four streams one after another, each created, given 5 launches
//                                (grids 1 to 4 wide, one per stream) and destroyed; with
//                                FAKE_CUDA_REUSE_STREAMS each gets the handle of the one before
//                                (checked) and a new driver id, and the fake CUPTI names it by
//                                that id, as CUPTI does: every launch timed exactly (a CUPTI key
//                                kept for the handle would queue them where no record comes);
//                                CUPTI asked for each stream's id once (no destroy since: the
//                                kept key is the stream's; after one, cuStreamGetId tells),
//                                once too with FAKE_CUDA_NO_STREAM_ID (no stream ids from the
//                                driver: asked again after each destroy, which encore sees)
//   test_cuda_cupti many         three threads one after another, 30,000 launches each, none of
//                                their times handed back before the release (FAKE_CUPTI_NO_PERIOD,
//                                FAKE_CUPTI_RECORDS_PER_BUFFER: 90,000 launches waiting at once,
//                                more than encore's table has slots; records given back to the
//                                pools of threads that ended), and a rejected launch after every
//                                100th (its queue entry taken back): the same checks as `reused`,
//                                the rejected ones untimed
//   test_cuda_cupti exit         three launches, no release: every COMPLETE reaches the tool
//                                before its finalization (printed there, checked on stderr)
//   test_cuda_cupti broken       a CUPTI that pairs no launch with its kernel: encore gives up on it
//                                after 1024 launches' evidence, says so once, uses events after
//   test_cuda_cupti drift        launches of alternating grids whose every other record is lost
//                                (FAKE_CUPTI_DROP_GRID=2): encore resynchronizes, then gives up
//                                on CUPTI when that repeats (said once), events after
//   test_cuda_cupti dropped      a CUPTI that loses every kernel record: after the release's 10 s
//                                wait each launch gets its COMPLETE without times
// (test/cuda/meson.build runs these under several environments; check_stderr.py checks messages.)
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"
#include "fake_cupti.h"
#include "ctx_create.hpp"
#include "fake_driver.h"

#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <cuda.h>
#include <dlfcn.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using test_support::expect;

#define CHECK(call) expect((call) == CUDA_SUCCESS, #call)

std::uint64_t boottime_ns() {
    timespec ts{};
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

struct seen {
    int op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t corr;
    std::uint64_t user_value;
    std::uint64_t dispatch_id;
    std::uint64_t start, end;
    std::uint64_t host_ns;  // when the callback ran
};
std::mutex g_mutex;
std::vector<seen> g_seen;
rocprofiler_context_id_t g_ctx{};

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* user, void*) {
    const auto* p = static_cast<const rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
        user->value = r.correlation_id.internal ^ 0x5a5a;  // COMPLETE must bring it back
    seen s{static_cast<int>(r.operation),
           r.phase,
           r.correlation_id.internal,
           user->value,
           p->dispatch_info.dispatch_id,
           p->start_timestamp,
           p->end_timestamp,
           boottime_ns()};
    std::lock_guard lk(g_mutex);
    g_seen.push_back(s);
}

std::string g_mode;

void tool_fini(void*) {
    if (g_mode != "exit") return;
    std::lock_guard lk(g_mutex);
    int completes = 0;
    for (const auto& s : g_seen) completes += s.op == ROCPROFILER_KERNEL_DISPATCH_COMPLETE && s.end >= s.start;
    std::fprintf(stderr, "cupti-test: at finalization %d of 3 COMPLETE\n", completes);
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (rocprofiler_create_context(&g_ctx) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                       &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

// A host "kernel" (fake_driver.h): c[0] += 1.
void count(const unsigned*, const unsigned*, void** params) {
    auto* c = reinterpret_cast<unsigned*>(*static_cast<CUdeviceptr*>(params[0]));
    __atomic_add_fetch(c, 1u, __ATOMIC_RELAXED);
}
const fake_cuda_module g_module = {1, {{"count", &count}}};

/// Function `name` of the fake CUPTI as type F (null when it is not loaded).
template <typename F>
F fake_cupti_function(const char* name) {
    const char* path = std::getenv("ENCORE_CUPTI_LIBRARY");
    void* h = path != nullptr ? ::dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    void* f = h != nullptr ? ::dlsym(h, name) : nullptr;
    F fn = nullptr;
    if (f != nullptr) std::memcpy(&fn, &f, sizeof(f));
    return fn;
}

/// The fake CUPTI's counts (zeros when it is not loaded).
fake_cupti_counts_t fake_cupti() {
    fake_cupti_counts_t s{};
    if (auto counts = fake_cupti_function<void (*)(fake_cupti_counts_t*)>("fake_cupti_counts")) counts(&s);
    return s;
}

/// Has the fake CUPTI hand over the records it holds now (cuptiActivityFlushAll), as its flush
/// period would; nothing when it is not loaded.
void fake_cupti_flush() {
    if (auto flush_all = fake_cupti_function<int (*)(std::uint32_t)>("cuptiActivityFlushAll")) (void)flush_all(0);
}

bool external_pairing() {
    const char* v = std::getenv("ENCORE_CUPTI_PAIRING");
    return v != nullptr && std::strcmp(v, "external") == 0;
}

struct window {
    std::uint64_t before, after;
};

// What every scenario starts with: device 0's primary context current, the fake module's
// `count` kernel, and a 64-byte counter for it (zeroed when asked: a copy more).
struct counting {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    CUmodule mod = nullptr;
    CUfunction f = nullptr;
    CUdeviceptr counter = 0;
};
counting open_counting(bool zeroed) {
    counting c;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&c.dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&c.ctx, c.dev));
    CHECK(cuCtxSetCurrent(c.ctx));
    CHECK(cuModuleLoadData(&c.mod, &g_module));
    CHECK(cuModuleGetFunction(&c.f, c.mod, "count"));
    CHECK(cuMemAlloc(&c.counter, 64));
    if (zeroed) {
        const unsigned char zeros[64] = {};
        CHECK(cuMemcpyHtoD(c.counter, zeros, sizeof(zeros)));
    }
    return c;
}

/// What `run` and `streams` check per launch made through encore, from the records seen.
struct launch_checks {
    int complete_ok = 0, timed = 0, untimed = 0, in_window = 0, user_ok = 0, order_ok = 0, distinct_ids = 0;
    std::size_t correlations = 0;
};
launch_checks check_launches(bool exact) {
    launch_checks c;
    std::map<std::uint64_t, std::vector<const seen*>> by_corr;
    for (const auto& s : g_seen) by_corr[s.corr].push_back(&s);
    c.correlations = by_corr.size();
    std::set<std::uint64_t> ids;
    for (const auto& [corr, v] : by_corr) {
        const seen *enter = nullptr, *exit = nullptr, *complete = nullptr;
        int n_complete = 0;
        for (const seen* s : v) {
            if (s->op == ROCPROFILER_KERNEL_DISPATCH_COMPLETE)
                complete = s, ++n_complete;
            else if (s->phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
                enter = s;
            else
                exit = s;
        }
        if (enter == nullptr || exit == nullptr || n_complete != 1) continue;
        ++c.complete_ok;
        ids.insert(complete->dispatch_id);
        c.user_ok += complete->user_value == (corr ^ 0x5a5a) && complete->dispatch_id == enter->dispatch_id;
        c.order_ok += enter->host_ns <= exit->host_ns && exit->host_ns <= complete->host_ns;
        if (complete->start == 0 && complete->end == 0) {
            ++c.untimed;
            continue;
        }
        ++c.timed;
        // The launch call's host window: the launch ran inside it (the fake driver runs kernels
        // synchronously). CUPTI's times are on encore's clock exactly when CUPTI takes encore's
        // clock; a measured offset (FAKE_CUPTI_NO_TIMESTAMP_CALLBACK) and events carry an error
        // of a few us: 1 ms of slack for them.
        const std::uint64_t slack = exact ? 0 : 1'000'000;
        c.in_window += complete->start <= complete->end && complete->start + slack >= enter->host_ns &&
                       complete->end <= exit->host_ns + slack;
    }
    c.distinct_ids = static_cast<int>(ids.size());
    return c;
}

int run(const std::string& source) {
    const bool cupti = source == "cupti" || source == "none";
    auto [dev, ctx, mod, f, counter] = open_counting(true);

    constexpr int per_thread = 40;
    std::vector<window> windows[2];
    auto launcher = [&](int t) {
        CHECK(cuCtxSetCurrent(ctx));
        CUstream s = nullptr;
        CHECK(cuStreamCreate(&s, 0));
        void* params[] = {&counter};
        for (int i = 0; i < per_thread; ++i) {
            const std::uint64_t before = boottime_ns();
            CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, nullptr));
            windows[t].push_back({before, boottime_ns()});
        }
        CHECK(cuStreamSynchronize(s));
        CHECK(cuStreamDestroy(s));
    };
    std::thread a(launcher, 0), b(launcher, 1);
    a.join();
    b.join();
    void* params[] = {&counter};
    // Rejected by the driver (an empty grid): its COMPLETE at once, without times.
    expect(cuLaunchKernel(f, 0, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr) == CUDA_ERROR_INVALID_VALUE,
           "an empty grid is the driver's error");
    // A launch encore does not see (the driver's own function): CUPTI records its kernel, with a
    // correlation id nobody pushed an external id for; it must not become a record.
    void* drv = ::dlopen(std::getenv("ENCORE_CUDA_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    void* sym = drv != nullptr ? ::dlsym(drv, "cuLaunchKernel") : nullptr;
    expect(sym != nullptr, "the fake driver's own cuLaunchKernel");
    if (sym != nullptr) {
        decltype(&cuLaunchKernel) direct = nullptr;
        std::memcpy(&direct, &sym, sizeof(sym));
        CHECK(direct(f, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr));
    }
    unsigned value = 0;
    CHECK(cuMemcpyDtoH(&value, counter, sizeof(value)));
    expect(value == 2 * per_thread + 1, "every launch ran once (" + std::to_string(value) + ")");
    CHECK(cuMemFree(counter));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));  // every pending COMPLETE is delivered before it returns

    const fake_cupti_counts_t st = fake_cupti();
    std::lock_guard lk(g_mutex);
    const int launches = 2 * per_thread + 1;
    const launch_checks c = check_launches(cupti && std::getenv("FAKE_CUPTI_NO_TIMESTAMP_CALLBACK") == nullptr);
    expect(static_cast<int>(c.correlations) == launches,
           "one correlation id per launch made through encore (" + std::to_string(c.correlations) + ")");
    expect(c.complete_ok == launches, "ENQUEUE ENTER, EXIT and exactly one COMPLETE per launch (" +
                                          std::to_string(c.complete_ok) + " of " + std::to_string(launches) + ")");
    expect(c.distinct_ids == c.complete_ok, "a dispatch id of its own per launch");
    expect(c.user_ok == c.complete_ok, "COMPLETE has its ENQUEUE's user_data and dispatch id");
    expect(c.order_ok == c.complete_ok, "COMPLETE is delivered after its ENQUEUE EXIT");
    const int want_timed = source == "none" ? 0 : 2 * per_thread;
    expect(c.timed == want_timed && c.untimed == launches - want_timed,
           "timed " + std::to_string(want_timed) + " of " + std::to_string(launches) + " launches (" +
               std::to_string(c.timed) + " timed, " + std::to_string(c.untimed) + " untimed)");
    expect(c.in_window == c.timed, "start <= end inside the launch's host window (" + std::to_string(c.in_window) +
                                       " of " + std::to_string(c.timed) + ")");
    if (cupti && external_pairing()) {
        expect(st.pushed == static_cast<unsigned long>(launches) && st.depth == 0,
               "one external id pushed per launch, all popped (" + std::to_string(st.pushed) + ")");
        expect((st.api_kinds & 5u) == 5u, "external pairing asks for DRIVER and EXTERNAL_CORRELATION records (" +
                                              std::to_string(st.api_kinds) + ")");
    } else if (cupti) {
        expect(st.pushed == 0 && st.api_kinds == 0,
               "stream-order pairing pushes no external id and asks for no API records (" + std::to_string(st.pushed) +
                   " pushed, kinds " + std::to_string(st.api_kinds) + ")");
        expect(st.stream_ids > 0, "stream ids asked of CUPTI");
    }
    if (cupti)
        expect(st.kernels == static_cast<unsigned long>(2 * per_thread + 1),
               "CUPTI recorded every kernel, the one encore did not launch included (" + std::to_string(st.kernels) + ")");
    else if (source == "unnamed")
        expect(st.stream_ids > 0 && st.kernels > 0, "CUPTI was asked for stream ids and recorded kernels");
    else
        expect(st.pushed == 0 && st.stream_ids == 0,
               "events: CUPTI not asked (" + std::to_string(st.pushed) + " pushed)");
    return test_support::finish();
}

// Stream-order pairing across two contexts and every kind of stream (see the file's comment).
int run_streams() {
    auto [dev, primary, mod, f, counter] = open_counting(true);
    CUcontext created = nullptr;
    CHECK(ctx_create_v2(&created, 0, dev));
    CUmodule mod2 = nullptr;
    CUfunction f2 = nullptr;
    CUdeviceptr counter2 = 0;
    CHECK(cuModuleLoadData(&mod2, &g_module));
    CHECK(cuModuleGetFunction(&f2, mod2, "count"));
    CHECK(cuMemAlloc(&counter2, 64));
    const long drop_grid = std::getenv("FAKE_CUPTI_DROP_GRID") != nullptr
                               ? std::strtol(std::getenv("FAKE_CUPTI_DROP_GRID"), nullptr, 10)
                               : 0;
    constexpr int per_stream = 10;
    std::mutex m;
    int launched = 0, rejected = 0, lost = 0;
    auto launcher = [&](CUcontext ctx, CUfunction fn, CUdeviceptr* c, int thread) {
        CHECK(cuCtxSetCurrent(ctx));
        CUstream own = nullptr;
        CHECK(cuStreamCreate(&own, 0));
        const CUstream streams[] = {own, nullptr, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD};
        void* params[] = {c};
        int n = 0, r = 0, l = 0;
        for (int i = 0; i < per_stream; ++i)
            for (CUstream s : streams) {
                // Grids 1, 2, 4, 5 wide; one 3-wide launch per context (its own stream, thread 0).
                const unsigned grid = thread == 0 && s == own && i == 5
                                          ? 3u
                                          : 1u + static_cast<unsigned>(i % 4) + (i % 4 >= 2 ? 1u : 0u);
                CHECK(cuLaunchKernel(fn, grid, 1, 1, 32, 1, 1, 0, s, params, nullptr));
                ++n;
                l += static_cast<long>(grid) == drop_grid;
                if (i == 3) {
                    expect(cuLaunchKernel(fn, 0, 1, 1, 32, 1, 1, 0, s, params, nullptr) == CUDA_ERROR_INVALID_VALUE,
                           "an empty grid is the driver's error");
                    ++r;
                }
            }
        CHECK(cuStreamSynchronize(own));
        CHECK(cuStreamDestroy(own));
        std::lock_guard lk(m);
        launched += n, rejected += r, lost += l;
    };
    std::thread a(launcher, primary, f, &counter, 0), b(launcher, primary, f, &counter, 1),
        c(launcher, created, f2, &counter2, 0), d(launcher, created, f2, &counter2, 1);
    a.join(), b.join(), c.join(), d.join();
    // Launches no tool wants records of (the context stopped) still take their place in their
    // stream's order: the records of the same-shaped launches right after must not get theirs.
    {
        CHECK(cuCtxSetCurrent(primary));
        CUstream s = nullptr;
        CHECK(cuStreamCreate(&s, 0));
        void* params[] = {&counter};
        expect(rocprofiler_stop_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS, "context stopped");
        for (int i = 0; i < 5; ++i) CHECK(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, s, params, nullptr));
        expect(rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS, "context started again");
        for (int i = 0; i < 5; ++i) CHECK(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, s, params, nullptr));
        launched += 5;
        CHECK(cuStreamSynchronize(s));
        CHECK(cuStreamDestroy(s));
    }
    CHECK(cuCtxSetCurrent(created));
    CHECK(cuMemFree(counter2));
    CHECK(cuModuleUnload(mod2));
    CHECK(cuCtxDestroy(created));  // drains the created context's records
    CHECK(cuCtxSetCurrent(primary));
    CHECK(cuMemFree(counter));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));

    const fake_cupti_counts_t st = fake_cupti();
    std::lock_guard lk(g_mutex);
    const int launches = launched + rejected;
    const launch_checks ch = check_launches(true);
    expect(static_cast<int>(ch.correlations) == launches,
           "one correlation id per launch made through encore (" + std::to_string(ch.correlations) + ")");
    expect(ch.complete_ok == launches, "ENQUEUE ENTER, EXIT and exactly one COMPLETE per launch (" +
                                           std::to_string(ch.complete_ok) + " of " + std::to_string(launches) + ")");
    expect(ch.distinct_ids == ch.complete_ok && ch.user_ok == ch.complete_ok && ch.order_ok == ch.complete_ok,
           "COMPLETE has its ENQUEUE's user_data and dispatch id, after its ENQUEUE EXIT");
    expect(ch.timed == launched - lost && ch.untimed == rejected + lost,
           "every launch timed but the rejected ones and those whose records were lost (" + std::to_string(ch.timed) +
               " timed of " + std::to_string(launched - lost) + ", " + std::to_string(ch.untimed) + " untimed)");
    expect(ch.in_window == ch.timed, "times exactly inside the launch's host window (" + std::to_string(ch.in_window) +
                                         " of " + std::to_string(ch.timed) + ")");
    expect(st.dropped == static_cast<unsigned long>(lost), "CUPTI lost " + std::to_string(st.dropped) + " records");
    if (std::getenv("FAKE_CUPTI_GRAPH_KERNELS") != nullptr)
        expect(st.graph_kernels > 0, "graph kernels were recorded (and skipped)");
    if (std::getenv("FAKE_CUPTI_RECORDS_PER_BUFFER") != nullptr)
        expect(st.buffers > 4, "records came in several buffers (" + std::to_string(st.buffers) + ")");
    return test_support::finish();
}

// Stream handles reused after cuStreamDestroy (see the file's comment).
int run_reused() {
    auto [dev, ctx, mod, f, counter] = open_counting(true);
    constexpr int streams = 4, per_stream = 5;
    const bool reuse = std::getenv("FAKE_CUDA_REUSE_STREAMS") != nullptr;
    const unsigned long asked_before = fake_cupti().stream_ids;
    CUstream first = nullptr;
    int same_handle = 0;
    void* params[] = {&counter};
    for (int i = 0; i < streams; ++i) {
        CUstream s = nullptr;
        CHECK(cuStreamCreate(&s, 0));
        if (i == 0) first = s;
        same_handle += s == first;
        for (int j = 0; j < per_stream; ++j)
            CHECK(cuLaunchKernel(f, 1 + static_cast<unsigned>(i), 1, 1, 32, 1, 1, 0, s, params, nullptr));
        CHECK(cuStreamSynchronize(s));
        CHECK(cuStreamDestroy(s));
    }
    const unsigned long asked = fake_cupti().stream_ids - asked_before;
    CHECK(cuMemFree(counter));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    const int launches = streams * per_stream;
    if (reuse)
        expect(same_handle == streams, "every stream got the first one's handle (" + std::to_string(same_handle) + ")");
    std::lock_guard lk(g_mutex);
    const launch_checks ch = check_launches(true);
    expect(ch.complete_ok == launches, "ENQUEUE ENTER, EXIT and exactly one COMPLETE per launch (" +
                                           std::to_string(ch.complete_ok) + " of " + std::to_string(launches) + ")");
    expect(ch.timed == launches && ch.in_window == launches,
           "every launch timed exactly inside its host window (" + std::to_string(ch.timed) + " timed, " +
               std::to_string(ch.in_window) + " in the window, of " + std::to_string(launches) + ")");
    // Each stream's first launch comes after a destroy (the stream before): asked once per
    // stream either way, never per launch.
    const unsigned long want = streams;
    expect(asked == want,
           "CUPTI asked for a stream id " + std::to_string(asked) + " times (expected " + std::to_string(want) + ")");
    return test_support::finish();
}

// A CUPTI that never pairs encore's keys with its kernel records (FAKE_CUPTI_WRONG_CORRELATION):
// 4096 launches in batches, CUPTI's records handed over between them (a flush after a pause, so
// that a flush-period thread starved on a loaded machine cannot keep CUPTI's evidence from encore
// until the last batch); encore gives up on CUPTI (said once) and times the rest with events;
// every launch still gets one COMPLETE.
// `alternate`: grids 1 and 2 wide in turn (the drift scenario).
int run_broken(bool alternate) {
    auto [dev, ctx, mod, f, counter] = open_counting(false);
    void* params[] = {&counter};
    constexpr int batches = 8, per_batch = 512;
    for (int b = 0; b < batches; ++b) {
        for (int i = 0; i < per_batch; ++i) {
            const unsigned grid = alternate ? 1u + static_cast<unsigned>(i & 1) : 1u;
            CHECK(cuLaunchKernel(f, grid, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
        fake_cupti_flush();
    }
    CHECK(cuMemFree(counter));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    const fake_cupti_counts_t st = fake_cupti();
    std::lock_guard lk(g_mutex);
    std::map<std::uint64_t, int> completes;
    int timed = 0;
    for (const auto& s : g_seen)
        if (s.op == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) {
            ++completes[s.corr];
            timed += s.start != 0 && s.end >= s.start;
        }
    int once = 0;
    for (const auto& [corr, n] : completes) once += n == 1;
    const int launches = batches * per_batch;
    expect(once == launches,
           "exactly one COMPLETE per launch (" + std::to_string(once) + " of " + std::to_string(launches) + ")");
    // Launches CUPTI was used for: keys pushed (external pairing), kernels recorded or lost while
    // CUPTI's kernel records were on (stream order: turned off at the fallback).
    const unsigned long used = external_pairing() ? st.pushed : st.kernels + st.dropped;
    expect(used > 0 && used < static_cast<unsigned long>(launches),
           "CUPTI used at first, then not (" + std::to_string(used) + " launches)");
    if (external_pairing() || !alternate)
        expect(timed > 0 && timed <= launches - static_cast<int>(used),
               "the launches after the fallback are timed with events (" + std::to_string(timed) + " timed)");
    else  // the 1-wide launches before the fallback are timed by CUPTI too
        expect(timed >= launches - static_cast<int>(used),
               "the launches after the fallback are timed with events (" + std::to_string(timed) + " timed)");
    return test_support::finish();
}

// More launches waiting for their times at once than encore's table of waiting launches has
// slots (65,536), made by threads that end before any of their times arrive (see the file's
// comment): the run's environment keeps CUPTI from handing back a buffer before the release.
int run_many() {
    auto [dev, ctx, mod, f, counter] = open_counting(true);
    constexpr int threads = 3, per_thread = 30'000;
    int failed = 0, rejected = 0;
    for (int t = 0; t < threads; ++t) {
        std::thread th([&, ctx = ctx, f = f] {
            if (cuCtxSetCurrent(ctx) != CUDA_SUCCESS) ++failed;
            void* params[] = {&counter};
            for (int i = 0; i < per_thread; ++i) {
                failed += cuLaunchKernel(f, 1 + static_cast<unsigned>(i % 4), 1, 1, 32, 1, 1, 0, nullptr, params,
                                         nullptr) != CUDA_SUCCESS;
                // Rejected launches among them, each entry taken back where it fell in the
                // stream's queue: entries 100, 200, ..., so at the first of a block too (1,600:
                // cupti.cpp's blocks hold 64).
                if (i % 100 == 99)
                    rejected += cuLaunchKernel(f, 0, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr) ==
                                CUDA_ERROR_INVALID_VALUE;
            }
        });
        th.join();
    }
    expect(failed == 0, std::to_string(failed) + " launches failed");
    expect(rejected == threads * per_thread / 100, std::to_string(rejected) + " launches rejected");
    const fake_cupti_counts_t before = fake_cupti();
    expect(before.buffers == 0, "no buffer came back before the release (" + std::to_string(before.buffers) +
                                    "): every launch waited at once");
    CHECK(cuMemFree(counter));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    const int launched = threads * per_thread, launches = launched + rejected;
    std::lock_guard lk(g_mutex);
    const launch_checks ch = check_launches(true);
    expect(ch.complete_ok == launches, "ENQUEUE ENTER, EXIT and exactly one COMPLETE per launch (" +
                                           std::to_string(ch.complete_ok) + " of " + std::to_string(launches) + ")");
    expect(ch.distinct_ids == launches && ch.user_ok == launches && ch.order_ok == launches,
           "COMPLETE has its ENQUEUE's user_data and dispatch id, after its ENQUEUE EXIT");
    expect(ch.timed == launched && ch.in_window == launched && ch.untimed == rejected,
           "every launch timed exactly inside its host window but the rejected ones (" + std::to_string(ch.timed) +
               " timed, " + std::to_string(ch.in_window) + " in the window, of " + std::to_string(launched) + "; " +
               std::to_string(ch.untimed) + " untimed)");
    return test_support::finish();
}

// A CUPTI that loses every kernel record (FAKE_CUPTI_DROP_KERNELS): the release waits its 10 s,
// then delivers each launch's COMPLETE without times (said once), never none.
int run_dropped() {
    auto [dev, ctx, mod, f, counter] = open_counting(false);
    void* params[] = {&counter};
    for (int i = 0; i < 5; ++i) CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr));
    CHECK(cuMemFree(counter));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    std::lock_guard lk(g_mutex);
    int untimed = 0, completes = 0;
    for (const auto& s : g_seen)
        if (s.op == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) ++completes, untimed += s.start == 0 && s.end == 0;
    expect(completes == 5 && untimed == 5, "five COMPLETE records without times (" + std::to_string(completes) +
                                               " COMPLETE, " + std::to_string(untimed) + " untimed)");
    return test_support::finish();
}

int run_exit() {
    auto [dev, ctx, mod, f, counter] = open_counting(true);
    void* params[] = {&counter};
    for (int i = 0; i < 3; ++i) CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr));
    CHECK(cuMemFree(counter));
    CHECK(cuModuleUnload(mod));
    return test_support::finish();  // no context release, no flush: exit delivers them
}

}  // namespace

ENCORE_TEST_TOOL("test-cuda-cupti", &tool_init, &tool_fini)

int main(int argc, char** argv) {
    g_mode = argc > 1 ? argv[1] : "";
    if (g_mode == "run" && argc > 2) return run(argv[2]);
    if (g_mode == "exit") return run_exit();
    if (g_mode == "broken") return run_broken(false);
    if (g_mode == "drift") return run_broken(true);
    if (g_mode == "streams") return run_streams();
    if (g_mode == "dropped") return run_dropped();
    if (g_mode == "reused") return run_reused();
    if (g_mode == "many") return run_many();
    std::fprintf(
        stderr,
        "usage: test_cuda_cupti run cupti|events|none | streams | reused | many | exit | broken | drift | dropped\n");
    return 2;
}
