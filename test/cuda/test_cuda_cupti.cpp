// test/cuda/test_cuda_cupti.cpp — KERNEL_DISPATCH records timed by CUPTI (src/cuda/cupti.cpp) on
// the fake driver (ENCORE_CUDA_DRIVER) and the fake CUPTI (test/cuda/fake_cupti.cpp,
// ENCORE_CUPTI_LIBRARY), no GPU. The program is its own tool (C API, records by value).
//
//   test_cuda_cupti run SOURCE   two threads launch 40 kernels each on two streams, one launch
//                                the driver rejects, one launch made on the driver behind encore's
//                                back; then the primary context is released. SOURCE (cupti |
//                                events) is the timing source the environment should have chosen.
//                                Checks: every launch made through encore has one ENQUEUE ENTER,
//                                one EXIT and exactly one COMPLETE, delivered before the release
//                                returned, with the ENQUEUE's correlation id and user_data, a
//                                dispatch id of its own, start <= end inside the host window of
//                                its launch call (exact with CUPTI: the fake driver's launches are
//                                synchronous); the rejected one with zero times; nothing for the
//                                launch encore did not make; with cupti, one external id pushed
//                                and popped per launch, with events none
//   test_cuda_cupti exit         three launches, no release: every COMPLETE reaches the tool
//                                before its finalization (printed there, checked on stderr)
//   test_cuda_cupti broken       a CUPTI that pairs no key with its kernel: encore gives up on it
//                                after 1024 launches' evidence, says so once, uses events after
//   test_cuda_cupti dropped      a CUPTI that loses every kernel record: after the release's 10 s
//                                wait each launch gets its COMPLETE without times
// (test/cuda/meson.build runs these under several environments; check_stderr.py checks messages.)
#include "../support/check.hpp"
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

/// The fake CUPTI's counts (zeros when it is not loaded).
struct cupti_stats {
    unsigned long pushed = 0, kernels = 0, externals = 0, flushes = 0;
    int depth = 0;
};
cupti_stats fake_cupti() {
    cupti_stats s;
    const char* path = std::getenv("ENCORE_CUPTI_LIBRARY");
    void* h = path != nullptr ? ::dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    void* f = h != nullptr ? ::dlsym(h, "fake_cupti_stats") : nullptr;
    if (f == nullptr) return s;
    void (*stats)(unsigned long*, unsigned long*, unsigned long*, unsigned long*, int*) = nullptr;
    std::memcpy(&stats, &f, sizeof(f));
    stats(&s.pushed, &s.kernels, &s.externals, &s.flushes, &s.depth);
    return s;
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

int run(const std::string& source) {
    const bool cupti = source == "cupti";
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

    const cupti_stats st = fake_cupti();
    std::lock_guard lk(g_mutex);
    std::map<std::uint64_t, std::vector<const seen*>> by_corr;
    for (const auto& s : g_seen) by_corr[s.corr].push_back(&s);
    const int launches = 2 * per_thread + 1;
    expect(static_cast<int>(by_corr.size()) == launches,
           "one correlation id per launch made through encore (" + std::to_string(by_corr.size()) + ")");
    int complete_ok = 0, timed = 0, untimed = 0, in_window = 0, user_ok = 0, order_ok = 0;
    std::set<std::uint64_t> ids;
    std::vector<const seen*> completes;
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
        ++complete_ok;
        ids.insert(complete->dispatch_id);
        user_ok += complete->user_value == (corr ^ 0x5a5a) && complete->dispatch_id == enter->dispatch_id;
        order_ok += enter->host_ns <= exit->host_ns && exit->host_ns <= complete->host_ns + 0;
        if (complete->start == 0 && complete->end == 0) {
            ++untimed;
            continue;
        }
        ++timed;
        completes.push_back(complete);
        // The launch call's host window: the launch ran inside it (the fake driver runs kernels
        // synchronously). CUPTI's times are on encore's clock exactly when CUPTI takes encore's
        // clock; a measured offset (FAKE_CUPTI_NO_TIMESTAMP_CALLBACK) and events carry an error
        // of a few us: 1 ms of slack for them.
        const bool exact = cupti && std::getenv("FAKE_CUPTI_NO_TIMESTAMP_CALLBACK") == nullptr;
        const std::uint64_t slack = exact ? 0 : 1'000'000;
        in_window += complete->start <= complete->end && complete->start + slack >= enter->host_ns &&
                     complete->end <= exit->host_ns + slack;
    }
    expect(complete_ok == launches, "ENQUEUE ENTER, EXIT and exactly one COMPLETE per launch (" +
                                        std::to_string(complete_ok) + " of " + std::to_string(launches) + ")");
    expect(static_cast<int>(ids.size()) == complete_ok, "a dispatch id of its own per launch");
    expect(user_ok == complete_ok, "COMPLETE has its ENQUEUE's user_data and dispatch id");
    expect(order_ok == complete_ok, "COMPLETE is delivered after its ENQUEUE EXIT");
    expect(timed == 2 * per_thread && untimed == 1, "every launch timed but the rejected one (" + std::to_string(timed) +
                                                        " timed, " + std::to_string(untimed) + " untimed)");
    expect(in_window == timed, "start <= end inside the launch's host window (" + std::to_string(in_window) + " of " +
                                   std::to_string(timed) + ")");
    if (cupti) {
        expect(st.pushed == static_cast<unsigned long>(launches) && st.depth == 0,
               "one external id pushed per launch, all popped (" + std::to_string(st.pushed) + ")");
        expect(st.kernels == static_cast<unsigned long>(2 * per_thread + 1),
               "CUPTI recorded every kernel, the one encore did not launch included (" + std::to_string(st.kernels) + ")");
    } else {
        expect(st.pushed == 0, "events: CUPTI not asked (" + std::to_string(st.pushed) + " pushed)");
    }
    return test_support::finish();
}

// A CUPTI that never pairs encore's keys with its kernel records (FAKE_CUPTI_WRONG_CORRELATION):
// 4096 launches in batches (the fake CUPTI's flush period passes between them); encore gives up
// on CUPTI (said once) and times the rest with events; every launch still gets one COMPLETE.
int run_broken() {
    auto [dev, ctx, mod, f, counter] = open_counting(false);
    void* params[] = {&counter};
    constexpr int batches = 8, per_batch = 512;
    for (int b = 0; b < batches; ++b) {
        for (int i = 0; i < per_batch; ++i) CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr));
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    CHECK(cuMemFree(counter));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    const cupti_stats st = fake_cupti();
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
    expect(st.pushed > 0 && st.pushed < static_cast<unsigned long>(launches),
           "CUPTI used at first, then not (" + std::to_string(st.pushed) + " keys pushed)");
    expect(timed > 0 && timed <= launches - static_cast<int>(st.pushed) + 0,
           "the launches after the fallback are timed with events (" + std::to_string(timed) + " timed)");
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

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "test-cuda-cupti";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, &tool_fini, nullptr};
    return &r;
}

int main(int argc, char** argv) {
    g_mode = argc > 1 ? argv[1] : "";
    if (g_mode == "run" && argc > 2) return run(argv[2]);
    if (g_mode == "exit") return run_exit();
    if (g_mode == "broken") return run_broken();
    if (g_mode == "dropped") return run_dropped();
    std::fprintf(stderr, "usage: test_cuda_cupti run cupti|events | exit\n");
    return 2;
}
