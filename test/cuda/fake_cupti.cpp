// test/cuda/fake_cupti.cpp — a fake CUPTI (libcupti.so) for the GPU-free tests of libencore-cuda's
// CUPTI timing source (src/cuda/cupti.cpp), loaded through ENCORE_CUPTI_LIBRARY=<path>. It works
// with the fake driver (fake_driver.cpp, ENCORE_CUDA_DRIVER), whose cuLaunchKernel it observes
// (fake_cuda_set_launch_observer) as the real CUPTI observes the real driver.
//
// What it does as CUPTI does: a correlation id per cuLaunchKernel call; with an external id
// pushed on the calling thread (cuptiActivityPushExternalCorrelationId, a stack per kind and
// thread) and DRIVER records on, an EXTERNAL_CORRELATION record pairing them; for each kernel that
// ran, a CONCURRENT_KERNEL record with its start and end (the registered timestamp callback's
// clock, else CLOCK_REALTIME ns, CUPTI's own default), the correlation id, the context's and
// stream's ids (cuptiGetContextId / cuptiGetStreamIdEx give the same: ids per context, so two
// contexts' streams share stream ids; the legacy default stream, each thread's per-thread default
// stream and each created stream have their own) and the grid and block; records in buffers
// obtained from and handed back to the registered callbacks: when a buffer is full, at
// cuptiActivityFlushAll, and every flush period on a thread of its own.
//
// Test knobs (environment): FAKE_CUPTI_FAIL=enable (cuptiActivityEnable fails as without
// profiling permission), FAKE_CUPTI_FAIL=stream_id (cuptiGetStreamIdEx fails), FAKE_CUPTI_NO_TIMESTAMP_CALLBACK=1 (cuptiActivityRegisterTimestampCallback
// is not supported: encore measures an offset), FAKE_CUPTI_KERNEL_FIRST=1 (a launch's kernel
// record comes before its EXTERNAL_CORRELATION record), FAKE_CUPTI_STALE_EXTERNAL=1 (each
// launch's correlation id is also paired with the previous launch's id), FAKE_CUPTI_WRONG_CORRELATION=1
// (no key is ever paired with its kernel's correlation id), FAKE_CUPTI_DROP_KERNELS=1 (no kernel
// records at all), FAKE_CUPTI_NO_PERIOD=1 (no periodic
// flush: records arrive only when encore flushes), FAKE_CUPTI_RUNTIME_NESTING=1 (what CUDA 13's
// CUPTI did on an H200 for kernels launched through the CUDA runtime: the kernel record carries
// the correlation id of the enclosing runtime call, which no EXTERNAL_CORRELATION record names),
// FAKE_CUPTI_DELIVERY_THREAD=1 (a full buffer is handed back on a thread of the fake's own, as
// on a GPU; else on the thread whose record did not fit), FAKE_CUPTI_RECORDS_PER_BUFFER=N (a
// buffer is complete after N records: a stream's records spread over several buffers, handed
// back together), FAKE_CUPTI_SHUFFLE=1 (kernel records are
// held until the next hand-over and written stream by stream, the newest stream first: out of
// order between streams, in order within one), FAKE_CUPTI_DROP_GRID=X (kernel records of grids X
// wide are lost, counted in cuptiActivityGetNumDroppedRecords), FAKE_CUPTI_GRAPH_KERNELS=1 (every
// other launch's record is preceded by a graph kernel's, graphId 1, on the same stream and of the
// same shape), FAKE_CUPTI_WRONG_STREAM=1 (kernel records name stream ids cuptiGetStreamIdEx never
// gave). fake_cupti_counts() gives the counts tests check (fake_cupti.h).
#include "cuda/cupti_api.hpp"
#include "fake_cupti.h"

#include <cuda.h>

#include <dlfcn.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#define FAKE_API extern "C" __attribute__((visibility("default")))

using namespace encore::cuda::cupti_api;

namespace {

/// A kernel record as large as CUDA 13.0's CUpti_ActivityKernel10 (the prefix encore reads, then
/// the rest unused).
struct ENCORE_CUPTI_RECORD kernel_record {
    kernel_record_prefix head;
    unsigned char rest[56];
};
static_assert(sizeof(kernel_record) == 216);

std::atomic<CUpti_BuffersCallbackRequestFunc> g_request{nullptr};
std::atomic<CUpti_BuffersCallbackCompleteFunc> g_complete{nullptr};
std::atomic<CUpti_TimestampCallbackFunc> g_clock{nullptr};
std::atomic<bool> g_kernels{false}, g_external{false};
// As the real CUPTI: EXTERNAL_CORRELATION records only for API calls whose DRIVER records are on.
std::atomic<bool> g_driver_records{false};
std::atomic<unsigned> g_api_kinds{0};
std::atomic<std::uint32_t> g_next_correlation{0};
std::atomic<unsigned long> g_pushed{0}, g_kernel_records{0}, g_external_records{0}, g_flushes{0}, g_dropped_total{0},
    g_graph_records{0}, g_buffers{0}, g_stream_id_calls{0};

std::mutex g_mutex;  // the current buffer, the completed ones, held records, dropped count
std::uint8_t* g_buffer = nullptr;
std::size_t g_size = 0, g_used = 0, g_records_in_buffer = 0;
struct buffer {
    std::uint8_t* data;
    std::size_t size, used;
};
auto& g_completed = *new std::vector<buffer>;    // FAKE_CUPTI_RECORDS_PER_BUFFER: full, not handed back yet
auto& g_held = *new std::vector<kernel_record>;  // FAKE_CUPTI_SHUFFLE: kernel records not written yet
std::size_t g_dropped = 0;                       // since the last cuptiActivityGetNumDroppedRecords

// Ids (under g_ids_mutex): contexts numbered from 1; per context, the legacy default stream is 1,
// per-thread default streams and created streams are numbered from 2 in the order first seen.
std::mutex g_ids_mutex;
// Never destroyed: launches and flushes may come at exit.
auto& g_context_ids = *new std::map<const void*, std::uint32_t>;
auto& g_stream_ids = *new std::map<std::pair<std::uint32_t, std::uintptr_t>, std::uint32_t>;  // (context, stream or thread)
auto& g_next_stream = *new std::map<std::uint32_t, std::uint32_t>;                            // context -> next id
CUresult (*g_ctx_get_current)(CUcontext*) = nullptr;                                          // the fake driver's
CUresult (*g_stream_get_id)(CUstream, unsigned long long*) = nullptr;                         // the fake driver's

std::uint32_t context_id_of(const void* ctx) {
    std::lock_guard lk(g_ids_mutex);
    auto [it, added] = g_context_ids.emplace(ctx, 0);
    if (added) it->second = static_cast<std::uint32_t>(g_context_ids.size());
    return it->second;
}

/// stream: null or a special handle for the default streams; `per_thread` with null: the thread's.
std::uint32_t stream_id_of(std::uint32_t ctx, CUstream stream, bool per_thread) {
    if (stream == CU_STREAM_LEGACY) stream = nullptr, per_thread = false;
    if (stream == CU_STREAM_PER_THREAD) stream = nullptr, per_thread = true;
    if (stream == nullptr && !per_thread) return 1;
    thread_local int this_thread = 0;  // its address names the thread
    // A created stream is named by the driver's id when it has one, as CUPTI names streams: a
    // handle reused for a new stream after cuStreamDestroy (FAKE_CUDA_REUSE_STREAMS) gets a new id.
    unsigned long long driver_id = 0;
    const bool by_id = stream != nullptr && g_stream_get_id != nullptr &&
                       g_stream_get_id(stream, &driver_id) == CUDA_SUCCESS;
    const auto who = by_id               ? static_cast<std::uintptr_t>(driver_id << 2 | 2u)
                     : stream != nullptr ? reinterpret_cast<std::uintptr_t>(stream)
                                         : reinterpret_cast<std::uintptr_t>(&this_thread) | 1u;
    std::lock_guard lk(g_ids_mutex);
    auto [it, added] = g_stream_ids.emplace(std::pair{ctx, who}, 0);
    if (added) {
        auto& next = g_next_stream[ctx];
        if (next == 0) next = 2;
        it->second = next++;
    }
    return it->second;
}

bool env(const char* name, const char* value = "1") {
    const char* v = std::getenv(name);
    return v != nullptr && std::strcmp(v, value) == 0;
}
long env_number(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::strtol(v, nullptr, 10) : 0;
}
// A knob of the launch path, read once (getenv per launch would dominate the launch benchmark,
// benchmarks/cuda/bench_launch_fake.cpp).
#define FAKE_KNOB(name)                   \
    ([] {                                 \
        static const bool on = env(name); \
        return on;                        \
    }())
#define FAKE_NUMBER(name)                       \
    ([] {                                       \
        static const long n = env_number(name); \
        return n;                               \
    }())

std::uint64_t timestamp() {
    if (auto* c = g_clock.load(std::memory_order_acquire)) return c();
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

// FAKE_CUPTI_PER_THREAD_BUFFERS=1: CUDA 12.3+'s default, per-thread activity buffers, unless
// cuptiActivitySetAttribute(PER_THREAD_ACTIVITY_BUFFER, 0) came before the callbacks were
// registered. Each launching thread's kernel records wait in its own buffer; a hand-over gives
// them back thread by thread, the thread that wrote first last (so one stream's records from two
// threads come out of the stream's order, as on an H200 under PyTorch's autograd thread).
std::atomic<bool> g_per_thread_off{false};
std::atomic<bool> g_callbacks_registered{false};
// g_mutex; never destroyed (the periodic flush thread may still hand buffers over at exit)
auto& g_thread_buffers = *new std::vector<std::pair<std::thread::id, std::vector<kernel_record>>>;

bool per_thread_buffers() { return FAKE_KNOB("FAKE_CUPTI_PER_THREAD_BUFFERS") && !g_per_thread_off.load(); }

void append(const void* record, std::size_t bytes);

/// Hands the completed buffers and the current one back, oldest first (outside the lock: the
/// callback parses and delivers). Held kernel records (FAKE_CUPTI_SHUFFLE) are written first.
void complete_current() {
    // One hand-over at a time, so buffers come back in the order they were filled (as CUPTI's,
    // whose records of one stream encore's stream-order pairing takes in buffer order). Recursive:
    // a full buffer in append() below hands over from inside a hand-over.
    static std::recursive_mutex handing_over;
    std::lock_guard order(handing_over);
    std::vector<kernel_record> held;
    {
        std::lock_guard lk(g_mutex);
        held.swap(g_held);
    }
    // Stream by stream, the newest stream first; each stream's records in their order.
    std::stable_sort(held.begin(), held.end(), [](const kernel_record& a, const kernel_record& b) {
        return std::pair{a.head.contextId, a.head.streamId} > std::pair{b.head.contextId, b.head.streamId};
    });
    for (const auto& r : held) append(&r, sizeof(r));
    std::vector<std::pair<std::thread::id, std::vector<kernel_record>>> threads;
    {
        std::lock_guard lk(g_mutex);
        threads.swap(g_thread_buffers);
    }
    for (auto t = threads.rbegin(); t != threads.rend(); ++t)
        for (const auto& r : t->second) append(&r, sizeof(r));
    std::vector<buffer> done;
    {
        std::lock_guard lk(g_mutex);
        done.swap(g_completed);
        if (g_buffer != nullptr) done.push_back({g_buffer, g_size, g_used});
        g_buffer = nullptr;
        g_size = g_used = g_records_in_buffer = 0;
    }
    for (const auto& b : done) {
        g_buffers.fetch_add(1, std::memory_order_relaxed);
        if (auto* cb = g_complete.load(std::memory_order_acquire)) cb(nullptr, 0, b.data, b.size, b.used);
    }
}

// FAKE_CUPTI_DELIVERY_THREAD=1: a full buffer is handed back on a thread of the fake's own, as
// CUPTI's worker thread hands back buffers on a GPU, not on the launching thread that filled it
// (benchmarks/meson.build: the launch benchmark's cross-thread case).
// Never destroyed: the thread waits on them through the exit handlers (a destroyed condition
// variable with a waiter blocks exit).
std::mutex& g_delivery_mutex = *new std::mutex;
std::condition_variable& g_delivery_cv = *new std::condition_variable;
bool g_delivery_wanted = false;  // g_delivery_mutex

/// Wakes the delivery thread (started at the first full buffer); false: none could be started.
bool wake_delivery() {
    static const bool started = [] {
        try {
            std::thread([] {
                for (;;) {
                    {
                        std::unique_lock lk(g_delivery_mutex);
                        g_delivery_cv.wait(lk, [] { return g_delivery_wanted; });
                        g_delivery_wanted = false;
                    }
                    complete_current();
                }
            }).detach();
            return true;
        } catch (...) {
            return false;
        }
    }();
    if (!started) return false;
    {
        std::lock_guard lk(g_delivery_mutex);
        g_delivery_wanted = true;
    }
    g_delivery_cv.notify_one();
    return true;
}

/// Appends a record, asking for a buffer when there is none or it is full.
void append(const void* record, std::size_t bytes) {
    const auto per_buffer = static_cast<std::size_t>(FAKE_NUMBER("FAKE_CUPTI_RECORDS_PER_BUFFER"));
    const bool own_thread = FAKE_KNOB("FAKE_CUPTI_DELIVERY_THREAD");
    for (int tries = 0; tries < 2; ++tries) {
        {
            std::lock_guard lk(g_mutex);
            if (g_buffer == nullptr) {
                auto* request = g_request.load(std::memory_order_acquire);
                if (request == nullptr) return;
                std::size_t max_records = 0;
                request(&g_buffer, &g_size, &max_records);
                g_used = g_records_in_buffer = 0;
                if (g_buffer == nullptr) return;  // CUPTI drops the record then
            }
            if (g_size - g_used >= bytes) {
                std::memcpy(g_buffer + g_used, record, bytes);
                g_used += bytes;
                if (per_buffer != 0 && ++g_records_in_buffer >= per_buffer) {
                    // Complete: handed back with the next flush, after those completed before it.
                    g_completed.push_back({g_buffer, g_size, g_used});
                    g_buffer = nullptr;
                }
                return;
            }
            if (own_thread) {
                // Full: waits with the completed ones for the delivery thread; a fresh one next.
                g_completed.push_back({g_buffer, g_size, g_used});
                g_buffer = nullptr;
            }
        }
        if (!own_thread || !wake_delivery()) complete_current();
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
thread_local CUstream t_stream = nullptr;  // the launch's stream and shape (the shape observer)
thread_local unsigned t_grid[3], t_block[3];

void observe_shape(CUstream s, const unsigned grid[3], const unsigned block[3]) {
    t_stream = s;
    std::memcpy(t_grid, grid, sizeof(t_grid));
    std::memcpy(t_block, block, sizeof(t_block));
}

void write_kernel(const kernel_record& r) {
    if (per_thread_buffers()) {
        std::lock_guard lk(g_mutex);
        const auto me = std::this_thread::get_id();
        auto it = std::find_if(g_thread_buffers.begin(), g_thread_buffers.end(),
                               [&](const auto& b) { return b.first == me; });
        if (it == g_thread_buffers.end()) it = g_thread_buffers.insert(g_thread_buffers.end(), {me, {}});
        it->second.push_back(r);
        return;
    }
    if (FAKE_KNOB("FAKE_CUPTI_SHUFFLE")) {
        std::lock_guard lk(g_mutex);
        g_held.push_back(r);
        return;
    }
    append(&r, sizeof(r));
}

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
            x.correlationId = FAKE_KNOB("FAKE_CUPTI_WRONG_CORRELATION") ? t_correlation + 1'000'000'000u : t_correlation;
            g_external_records.fetch_add(1, std::memory_order_relaxed);
            if (FAKE_KNOB("FAKE_CUPTI_KERNEL_FIRST")) {
                t_held = x;
                t_holding = true;
            } else {
                append(&x, sizeof(x));
            }
            if (FAKE_KNOB("FAKE_CUPTI_STALE_EXTERNAL") && k == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 && t_last_id != 0) {
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
        if (FAKE_KNOB("FAKE_CUPTI_DROP_KERNELS")) return;  // a CUPTI that lost the record
        kernel_record r{};
        r.head.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        r.head.start = t_start;
        r.head.end = timestamp();
        // FAKE_CUPTI_RUNTIME_NESTING: the enclosing runtime call's id (made up: one no record names).
        r.head.correlationId = FAKE_KNOB("FAKE_CUPTI_RUNTIME_NESTING") ? t_correlation | 0x80000000u : t_correlation;
        CUcontext ctx = nullptr;
        if (g_ctx_get_current != nullptr) (void)g_ctx_get_current(&ctx);
        r.head.contextId = context_id_of(ctx);
        r.head.streamId = stream_id_of(r.head.contextId, t_stream, false);
        if (FAKE_KNOB("FAKE_CUPTI_WRONG_STREAM")) r.head.streamId += 1000;  // ids cuptiGetStreamIdEx never gave
        r.head.gridX = static_cast<std::int32_t>(t_grid[0]);
        r.head.gridY = static_cast<std::int32_t>(t_grid[1]);
        r.head.gridZ = static_cast<std::int32_t>(t_grid[2]);
        r.head.blockX = static_cast<std::int32_t>(t_block[0]);
        r.head.blockY = static_cast<std::int32_t>(t_block[1]);
        r.head.blockZ = static_cast<std::int32_t>(t_block[2]);
        if (FAKE_KNOB("FAKE_CUPTI_GRAPH_KERNELS") && (t_correlation & 1) != 0) {
            kernel_record g = r;                   // a graph's kernel that ran on the stream just before (ending 10 us
            g.head.start = r.head.start - 50'000;  // before this one: outside its launch's window)
            g.head.end = r.head.start - 10'000;
            g.head.graphId = 1;
            g.head.graphNodeId = 1;
            g.head.correlationId = 0;
            g_kernel_records.fetch_add(1, std::memory_order_relaxed);
            g_graph_records.fetch_add(1, std::memory_order_relaxed);
            write_kernel(g);
        }
        if (r.head.gridX == FAKE_NUMBER("FAKE_CUPTI_DROP_GRID")) {
            std::lock_guard lk(g_mutex);
            ++g_dropped;  // no buffer space for it, as CUPTI would say
            g_dropped_total.fetch_add(1, std::memory_order_relaxed);
        } else {
            g_kernel_records.fetch_add(1, std::memory_order_relaxed);
            write_kernel(r);
        }
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
    g_callbacks_registered.store(true);
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, std::size_t* size, void* value) {
    if (size == nullptr || value == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    // FAKE_CUPTI_NO_ATTRIBUTE: a CUPTI with per-thread buffers that cannot be turned off (what
    // encore would meet without the attribute: the test that shows why it is set).
    if (FAKE_KNOB("FAKE_CUPTI_NO_ATTRIBUTE")) return CUPTI_ERROR_INVALID_PARAMETER;
    if (attr != CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER) return CUPTI_ERROR_INVALID_PARAMETER;  // not modelled
    if (*size != sizeof(std::uint8_t)) return CUPTI_ERROR_INVALID_PARAMETER;
    // CUPTI documents a change after the callbacks are registered as undefined: here it is ignored.
    if (!g_callbacks_registered.load()) g_per_thread_off.store(*static_cast<std::uint8_t*>(value) == 0);
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
        g_api_kinds.fetch_or(4);
        g_external.store(true, std::memory_order_release);
        return CUPTI_SUCCESS;
    }
    if (kind == CUPTI_ACTIVITY_KIND_DRIVER || kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
        g_api_kinds.fetch_or(kind == CUPTI_ACTIVITY_KIND_DRIVER ? 1u : 2u);
        if (kind == CUPTI_ACTIVITY_KIND_DRIVER) g_driver_records.store(true, std::memory_order_release);
        return CUPTI_SUCCESS;  // the API records themselves are not made (encore skips them)
    }
    if (kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) return CUPTI_ERROR_NOT_SUPPORTED;
    // The driver CUPTI profiles: the fake one libencore-cuda loaded.
    const char* path = std::getenv("ENCORE_CUDA_DRIVER");
    void* h = path != nullptr ? ::dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    void* set = h != nullptr ? ::dlsym(h, "fake_cuda_set_launch_observer") : nullptr;
    if (set == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;
    void* set_shape = ::dlsym(h, "fake_cuda_set_launch_shape_observer");
    void* get_current = ::dlsym(h, "cuCtxGetCurrent");
    if (set_shape == nullptr || get_current == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;
    std::memcpy(&g_ctx_get_current, &get_current, sizeof(get_current));
    if (void* get_id = ::dlsym(h, "cuStreamGetId")) std::memcpy(&g_stream_get_id, &get_id, sizeof(get_id));
    void (*set_shape_observer)(void (*)(CUstream, const unsigned*, const unsigned*)) = nullptr;
    std::memcpy(&set_shape_observer, &set_shape, sizeof(set_shape));
    set_shape_observer(&observe_shape);
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

FAKE_API CUptiResult cuptiGetContextId(CUcontext context, std::uint32_t* id) {
    if (id == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    if (context == nullptr) return static_cast<CUptiResult>(3);  // CUPTI_ERROR_INVALID_CONTEXT
    *id = context_id_of(context);
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiGetStreamIdEx(CUcontext context, CUstream stream, std::uint8_t per_thread, std::uint32_t* id) {
    if (id == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    g_stream_id_calls.fetch_add(1, std::memory_order_relaxed);
    static const bool fail = env("FAKE_CUPTI_FAIL", "stream_id");  // read once: called per launch
    if (fail) return static_cast<CUptiResult>(20);                 // CUPTI_ERROR_INVALID_STREAM
    CUcontext ctx = context;
    if (ctx == nullptr && g_ctx_get_current != nullptr) (void)g_ctx_get_current(&ctx);
    *id = stream_id_of(context_id_of(ctx), stream, per_thread != 0);
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, std::uint32_t, std::size_t* dropped) {
    if (dropped == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    std::lock_guard lk(g_mutex);
    *dropped = std::exchange(g_dropped, 0);  // reset by the call, as CUPTI's
    return CUPTI_SUCCESS;
}

/// For the tests: fake_cupti.h's counts (`depth`: of the calling thread).
FAKE_API void fake_cupti_counts(fake_cupti_counts_t* c) {
    c->pushed = g_pushed.load();
    c->kernels = g_kernel_records.load();
    c->externals = g_external_records.load();
    c->flushes = g_flushes.load();
    c->dropped = g_dropped_total.load();
    c->graph_kernels = g_graph_records.load();
    c->buffers = g_buffers.load();
    c->stream_ids = g_stream_id_calls.load();
    c->api_kinds = g_api_kinds.load();
    c->depth = t_depth[CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2];
}
