// test/cuda/fake_cupti.cpp — a fake CUPTI (libcupti.so) for the GPU-free tests of libencore-cuda's
// CUPTI timing source (src/cuda/cupti.cpp), loaded through ENCORE_CUPTI_LIBRARY=<path>. It works
// with the fake driver (fake_driver.cpp, ENCORE_CUDA_DRIVER), whose cuLaunchKernel it observes
// (fake_cuda_set_launch_observer) as the real CUPTI observes the real driver.
//
// What it does as CUPTI does: a correlation id per cuLaunchKernel call; with an external id
// pushed on the calling thread (cuptiActivityPushExternalCorrelationId, a stack per kind and
// thread), an EXTERNAL_CORRELATION record pairing them; for each kernel that ran, a
// CONCURRENT_KERNEL record with its start and end (the registered timestamp callback's clock, else
// CLOCK_REALTIME ns, CUPTI's own default) and the correlation id; records in buffers obtained
// from and handed back to the registered callbacks: when a buffer is full, at
// cuptiActivityFlushAll, and every flush period on a thread of its own.
//
// Test knobs (environment): FAKE_CUPTI_FAIL=enable (cuptiActivityEnable fails as without
// profiling permission), FAKE_CUPTI_NO_TIMESTAMP_CALLBACK=1 (cuptiActivityRegisterTimestampCallback
// is not supported: encore measures an offset), FAKE_CUPTI_KERNEL_FIRST=1 (a launch's kernel
// record comes before its EXTERNAL_CORRELATION record), FAKE_CUPTI_STALE_EXTERNAL=1 (each
// launch's correlation id is also paired with the previous launch's id), FAKE_CUPTI_WRONG_CORRELATION=1
// (no key is ever paired with its kernel's correlation id), FAKE_CUPTI_DROP_KERNELS=1 (no kernel
// records at all), FAKE_CUPTI_NO_PERIOD=1 (no periodic
// flush: records arrive only when encore flushes). fake_cupti_stats() gives the counts tests check.
#include "cuda/cupti_api.hpp"

#include <dlfcn.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#define FAKE_API extern "C" __attribute__((visibility("default")))

using namespace encore::cuda::cupti_api;

namespace {

/// A kernel record as large as CUDA 13's (the prefix encore reads, then the rest unused).
struct ENCORE_CUPTI_RECORD kernel_record {
    kernel_record_prefix head;
    unsigned char rest[152];
};
static_assert(sizeof(kernel_record) == 256);

std::atomic<CUpti_BuffersCallbackRequestFunc> g_request{nullptr};
std::atomic<CUpti_BuffersCallbackCompleteFunc> g_complete{nullptr};
std::atomic<CUpti_TimestampCallbackFunc> g_clock{nullptr};
std::atomic<bool> g_kernels{false}, g_external{false};
// As the real CUPTI: EXTERNAL_CORRELATION records only for API calls whose DRIVER records are on.
std::atomic<bool> g_driver_records{false};
std::atomic<std::uint32_t> g_next_correlation{0};
std::atomic<unsigned long> g_pushed{0}, g_kernel_records{0}, g_external_records{0}, g_flushes{0};

std::mutex g_mutex;  // the current buffer
std::uint8_t* g_buffer = nullptr;
std::size_t g_size = 0, g_used = 0;

bool env(const char* name, const char* value = "1") {
    const char* v = std::getenv(name);
    return v != nullptr && std::strcmp(v, value) == 0;
}

std::uint64_t timestamp() {
    if (auto* c = g_clock.load(std::memory_order_acquire)) return c();
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

/// Hands the current buffer back (outside the lock: the callback parses and delivers).
void complete_current() {
    std::uint8_t* b = nullptr;
    std::size_t size = 0, used = 0;
    {
        std::lock_guard lk(g_mutex);
        std::swap(b, g_buffer);
        size = std::exchange(g_size, 0);
        used = std::exchange(g_used, 0);
    }
    if (b == nullptr) return;
    if (auto* done = g_complete.load(std::memory_order_acquire)) done(nullptr, 0, b, size, used);
}

/// Appends a record, asking for a buffer when there is none or it is full.
void append(const void* record, std::size_t bytes) {
    for (int tries = 0; tries < 2; ++tries) {
        {
            std::lock_guard lk(g_mutex);
            if (g_buffer == nullptr) {
                auto* request = g_request.load(std::memory_order_acquire);
                if (request == nullptr) return;
                std::size_t max_records = 0;
                request(&g_buffer, &g_size, &max_records);
                g_used = 0;
                if (g_buffer == nullptr) return;  // CUPTI drops the record then
            }
            if (g_size - g_used >= bytes) {
                std::memcpy(g_buffer + g_used, record, bytes);
                g_used += bytes;
                return;
            }
        }
        complete_current();
    }
}

// Per thread: the external ids pushed (of kind CUSTOM2 and the others alike), the launch's
// correlation id and its kernel's start. Trivially destructible: launches from thread_local
// destructors may still use them.
constexpr int max_depth = 16;
thread_local std::uint64_t t_stack[CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 + 1][max_depth];
thread_local int t_depth[CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 + 1];
thread_local std::uint32_t t_correlation = 0;
thread_local std::uint64_t t_start = 0;
thread_local CUpti_ActivityExternalCorrelation t_held{};  // FAKE_CUPTI_KERNEL_FIRST: written after the kernel's
thread_local bool t_holding = false;
thread_local std::uint64_t t_last_id = 0;  // FAKE_CUPTI_STALE_EXTERNAL

void observe(int phase) {
    if (!g_kernels.load(std::memory_order_acquire)) return;
    if (phase == 0) {
        t_correlation = g_next_correlation.fetch_add(1, std::memory_order_relaxed) + 1;
        t_holding = false;
        if (!g_external.load(std::memory_order_acquire) || !g_driver_records.load(std::memory_order_acquire)) return;
        for (int k = CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN; k <= CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2; ++k) {
            if (t_depth[k] == 0) continue;
            CUpti_ActivityExternalCorrelation x{};
            x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
            x.externalKind = static_cast<CUpti_ExternalCorrelationKind>(k);
            x.externalId = t_stack[k][t_depth[k] - 1];
            // FAKE_CUPTI_WRONG_CORRELATION: a CUPTI whose records pair the key with another id.
            x.correlationId = env("FAKE_CUPTI_WRONG_CORRELATION") ? t_correlation + 1'000'000'000u : t_correlation;
            g_external_records.fetch_add(1, std::memory_order_relaxed);
            if (env("FAKE_CUPTI_KERNEL_FIRST")) {
                t_held = x;
                t_holding = true;
            } else {
                append(&x, sizeof(x));
            }
            if (env("FAKE_CUPTI_STALE_EXTERNAL") && k == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 && t_last_id != 0) {
                // A second record for the same correlation id, with the id the thread pushed for
                // its previous launch (what a CUPTI that pairs an outer API level would write).
                CUpti_ActivityExternalCorrelation stale = x;
                stale.externalId = t_last_id;
                append(&stale, sizeof(stale));
            }
            if (k == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2) t_last_id = x.externalId;
        }
    } else if (phase == 1) {
        t_start = timestamp();
    } else {
        if (env("FAKE_CUPTI_DROP_KERNELS")) return;  // a CUPTI that lost the record
        kernel_record r{};
        r.head.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        r.head.start = t_start;
        r.head.end = timestamp();
        r.head.correlationId = t_correlation;
        r.head.streamId = 7;
        g_kernel_records.fetch_add(1, std::memory_order_relaxed);
        append(&r, sizeof(r));
        if (t_holding) {
            append(&t_held, sizeof(t_held));
            t_holding = false;
        }
    }
}

std::atomic<bool> g_period_started{false};

}  // namespace

FAKE_API CUptiResult cuptiGetVersion(std::uint32_t* version) {
    if (version == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    *version = 130001;  // CUDA 13.0 update 1's numbering
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiGetResultString(CUptiResult r, const char** text) {
    if (text == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    *text = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" : "CUPTI_ERROR_UNKNOWN";
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                    CUpti_BuffersCallbackCompleteFunc complete) {
    if (request == nullptr || complete == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    g_request.store(request, std::memory_order_release);
    g_complete.store(complete, std::memory_order_release);
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc clock) {
    if (env("FAKE_CUPTI_NO_TIMESTAMP_CALLBACK")) return CUPTI_ERROR_NOT_SUPPORTED;
    if (clock == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    g_clock.store(clock, std::memory_order_release);
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiGetTimestamp(std::uint64_t* t) {
    if (t == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    *t = timestamp();
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
    if (env("FAKE_CUPTI_FAIL", "enable")) return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
    if (kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
        g_external.store(true, std::memory_order_release);
        return CUPTI_SUCCESS;
    }
    if (kind == CUPTI_ACTIVITY_KIND_DRIVER || kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
        if (kind == CUPTI_ACTIVITY_KIND_DRIVER) g_driver_records.store(true, std::memory_order_release);
        return CUPTI_SUCCESS;  // the API records themselves are not made (encore skips them)
    }
    if (kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) return CUPTI_ERROR_NOT_SUPPORTED;
    // The driver CUPTI profiles: the fake one libencore-cuda loaded.
    const char* path = std::getenv("ENCORE_CUDA_DRIVER");
    void* h = path != nullptr ? ::dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    void* set = h != nullptr ? ::dlsym(h, "fake_cuda_set_launch_observer") : nullptr;
    if (set == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;
    void (*set_observer)(void (*)(int)) = nullptr;
    std::memcpy(&set_observer, &set, sizeof(set));
    set_observer(&observe);
    g_kernels.store(true, std::memory_order_release);
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
    if (kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) g_external.store(false, std::memory_order_release);
    if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) g_kernels.store(false, std::memory_order_release);
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivityGetNextRecord(std::uint8_t* buffer, std::size_t valid, CUpti_Activity** record) {
    if (buffer == nullptr || record == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    auto size_of = [](const CUpti_Activity* r) {
        return r->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION ? sizeof(CUpti_ActivityExternalCorrelation)
                                                                   : sizeof(kernel_record);
    };
    std::uint8_t* next = *record == nullptr ? buffer : reinterpret_cast<std::uint8_t*>(*record) + size_of(*record);
    if (next >= buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = reinterpret_cast<CUpti_Activity*>(next);
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivityFlushAll(std::uint32_t) {
    g_flushes.fetch_add(1, std::memory_order_relaxed);
    complete_current();
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivityFlushPeriod(std::uint32_t ms) {
    if (ms == 0 || env("FAKE_CUPTI_NO_PERIOD") || g_period_started.exchange(true)) return CUPTI_SUCCESS;
    try {
        std::thread([ms] {
            for (;;) {
                std::this_thread::sleep_for(std::chrono::milliseconds(ms));
                complete_current();
            }
        }).detach();
    } catch (...) {
        return CUPTI_ERROR_UNKNOWN;
    }
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, std::uint64_t id) {
    if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID || kind > CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 ||
        t_depth[kind] == max_depth)
        return CUPTI_ERROR_INVALID_PARAMETER;
    t_stack[kind][t_depth[kind]++] = id;
    g_pushed.fetch_add(1, std::memory_order_relaxed);
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind, std::uint64_t* last) {
    if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID || kind > CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (t_depth[kind] == 0) return static_cast<CUptiResult>(18);  // CUPTI_ERROR_QUEUE_EMPTY
    const std::uint64_t id = t_stack[kind][--t_depth[kind]];
    if (last != nullptr) *last = id;
    return CUPTI_SUCCESS;
}

/// For the tests: how many external ids were pushed, kernel and EXTERNAL_CORRELATION records made,
/// flushes asked for, and external ids still pushed on the calling thread.
FAKE_API void fake_cupti_stats(unsigned long* pushed, unsigned long* kernels, unsigned long* externals,
                               unsigned long* flushes, int* depth) {
    *pushed = g_pushed.load();
    *kernels = g_kernel_records.load();
    *externals = g_external_records.load();
    *flushes = g_flushes.load();
    *depth = t_depth[CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2];
}
