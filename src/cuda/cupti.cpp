// src/cuda/cupti.cpp — kernel GPU times from CUPTI's activity API (see cupti.hpp, docs/cuda.md).
//
// Why CUPTI: a CUDA event pair per launch costs the launching thread two more driver calls and the
// completion thread queries that contend for the driver's locks (+5 to +7 us per empty-kernel
// launch on an H200); CUPTI's CONCURRENT_KERNEL activity has the driver write each kernel's
// timestamps itself and hands them over in buffers (+0.6 to +2.3 us in the same loop).
//
// Pairing (ENCORE_CUPTI_PAIRING; docs/cuda.md "GPU times"):
// - `stream` (the default): kernels on one stream run, and CUPTI reports them, in the order they
//   were launched on it. Each launch encore makes while CUPTI times dispatches queues an entry on
//   its stream's FIFO (keyed by CUPTI's context and stream ids), under the stream's submission
//   lock, so the FIFO's order is the driver's; each kernel record completes the oldest entry of
//   its stream. Entries that want no times (replay passes, launches no tool wants COMPLETE of)
//   are placeholders, popped and ignored. Graph kernels (graphId != 0) are skipped: graph launches
//   queue nothing. Drift (a lost record, a kernel encore did not launch) is caught by comparing
//   the record's grid and block with the entry's and its start with the launch call's: on a
//   mismatch the first matching entry within a bounded window is taken (the ones before it lost
//   their records: COMPLETE without times), a record matching none is ignored. Resynchronizations
//   and CUPTI's dropped-record reports are counted; records.cpp falls back to events when they
//   repeat. Only CONCURRENT_KERNEL records are enabled: no API records, no external ids.
// - `external`: encore pushes a key of its own as an external correlation id (CUSTOM2; Kineto,
//   PyTorch's profiler, uses CUSTOM0/1) around each launch. CUPTI writes an EXTERNAL_CORRELATION
//   record pairing the key with its correlation id of the launch's API call, and the kernel record
//   carries the same id: whichever comes first waits in a map for the other. This needs DRIVER and
//   RUNTIME API records and, on CUDA 13, fails for kernels launched through the CUDA runtime (the
//   kernel carries the runtime call's id; encore, inside it, pushes its key for the nested driver
//   call's id). Kept, selectable, as the method for a CUPTI whose stream ids cannot be read and as
//   the comparison the tests make (test_cuda_cupti.cpp).
//
// Times: CUPTI is given encore's clock (cuptiActivityRegisterTimestampCallback), so its records
// are on CLOCK_BOOTTIME directly; a CUPTI without that function gets a fixed offset to its own
// clock, measured once (the midpoint of a cuptiGetTimestamp call between two reads of encore's
// clock; its half-width, typically < 1 us, is the error).
#include "cupti.hpp"

#include "cupti_api.hpp"

#include "core/clock.hpp"
#include "core/warn.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cuda.h>

#include <atomic>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace encore::cuda::cupti {
namespace {

using namespace cupti_api;

/// CUPTI buffers of 4 MiB: ~19 000 kernel records (216 B each in CUDA 13.0) per buffer, so a
/// buffer request per ~16 000 launches; CUPTI flushes them every 10 ms (flush period) or when full.
constexpr std::size_t buffer_bytes = 4u << 20;
constexpr std::uint32_t flush_period_ms = 10;
constexpr CUpti_ExternalCorrelationKind key_kind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
/// How many unpaired entries each side may hold before they are forgotten (launches that never
/// got a kernel record: rejected ones; kernel records of launches encore did not make).
constexpr std::size_t unpaired_limit = 1u << 20;
/// Stream-order pairing: how many entries from a stream's oldest a kernel record is compared with
/// before it is taken for a kernel encore did not launch; how much earlier than its launch call a
/// kernel's start may seem (the clock conversion's error: on an H200 the start was never more than
/// 2 us before ENQUEUE ENTER); and how many resynchronizations records.cpp tolerates.
constexpr std::size_t resync_window = 64;
constexpr std::uint64_t early_start_ns = 100'000;
constexpr std::uint64_t drift_limit = 16;

struct source {
    functions fn;
    pairing how = pairing::stream;
    times_fn on_times = nullptr;
    batch_fn on_batch = nullptr;
    std::int64_t offset_ns = 0;  // encore's clock minus CUPTI's (0 with the timestamp callback)
    std::mutex m;                // the maps
    // correlation -> the keys paired with it, newest last (CUPTI may write more than one
    // EXTERNAL_CORRELATION record per correlation id: one per API level that saw a key)
    std::unordered_map<std::uint32_t, std::vector<std::uint64_t>> key_of;
    std::unordered_map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> times_of;  // correlation -> times
};
// Set once by active() (cleared again if initialization fails half-way); never destroyed: CUPTI
// may call back at exit. Release/acquire: a reader sees the source's functions filled in.
std::atomic<source*> g_source{nullptr};
// A source whose initialization failed after CUPTI could see it (atomic: a plain store to a
// variable nothing reads may be optimized away, and LeakSanitizer would then call it a leak).
std::atomic<source*> g_retired{nullptr};

std::uint64_t encore_clock() { return core::now_ns(); }

// Handed-back buffers kept for CUPTI's next requests: a 4 MiB free and allocation per buffer
// made glibc consolidate its heap (malloc_consolidate) on the threads that launch.
std::mutex g_spare_mutex;
std::uint8_t* g_spare[4] = {};

void request_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = nullptr;
    {
        std::lock_guard lk(g_spare_mutex);
        for (auto*& b : g_spare)
            if (b != nullptr) {
                *buffer = std::exchange(b, nullptr);
                break;
            }
    }
    // CUPTI wants 8-byte aligned buffers.
    if (*buffer == nullptr) *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, buffer_bytes));
    *size = *buffer != nullptr ? buffer_bytes : 0;
    *max_records = 0;  // as many as fit
}

/// A buffer CUPTI handed back: kept for a later request, or freed when enough are kept.
void recycle_buffer(std::uint8_t* buffer) {
    {
        std::lock_guard lk(g_spare_mutex);
        for (auto*& b : g_spare)
            if (b == nullptr) {
                b = buffer;
                return;
            }
    }
    std::free(buffer);
}

// Kernel records paired with a waiting launch, and those that arrived unpaired (for
// pairing_health; relaxed: a heuristic read, no data depends on them).
std::atomic<std::uint64_t> g_paired{0}, g_unpaired{0};

// ---- stream-order pairing ------------------------------------------------------------------------
struct launch_entry {
    std::uint64_t key;        // 0: a placeholder
    std::uint64_t before_ns;  // encore's clock right before the driver call
    std::uint32_t grid[3], block[3];
};
/// A stream's entries live in blocks of `block_entries`, linked oldest to newest; a block the
/// pairing side has passed goes to its queue's spare stack, which the launching side takes from
/// before allocating. Why not a std::deque under a mutex: each launch then took a second lock
/// (which CUPTI's thread held while pairing, waking the launcher through futex) and allocated
/// a deque node every few launches that CUPTI's thread freed. Small blocks: every stream a
/// process ever launched on keeps its queue (2.5 KB of entries at least) for good.
constexpr std::size_t block_entries = 64;
struct entry_block {
    launch_entry e[block_entries];
    // The next block: stored (release) by the launching side before it publishes an entry in
    // it (stream_queue::tail), loaded (acquire) by the pairing side.
    std::atomic<entry_block*> next{nullptr};
    entry_block* next_spare = nullptr;  // on the spare stack: written before the push's release
};
/// One stream's FIFO of launches: a single writer, the launching side (serialized by `order`),
/// and a single reader, the pairing side (CUPTI's buffer hand-over, serialized by
/// g_buffers_mutex, and report(); both under `m`). Entries [head, tail) are waiting.
struct stream_queue {
    std::mutex order;  // held from queuing an entry until the driver call returned (queued_launch)
    // Launching side, under `order`. `tail`: entries published; stored (release) after the
    // entry's fields, loaded (acquire) by the pairing side. Only rejected() lowers it, under `m`
    // too, so that the pairing side never reads an entry being taken back.
    alignas(64) std::atomic<std::uint64_t> tail{0};
    entry_block* wblock = nullptr;  // the block holding entry `tail` (or the one before, full)
    std::uint64_t wbase = 0;        // the index of wblock's first entry
    // Pairing side, under `m` (the launching side takes it only in rejected()).
    alignas(64) std::mutex m;
    std::uint64_t head = 0;
    entry_block* rblock = nullptr;  // the block holding entry `head` (or the one before, consumed)
    std::uint64_t rbase = 0;
    // Blocks the pairing side passed: pushed by it (under `m`), popped by the launching side
    // (under `order`): one popper, so a popped block cannot come back meanwhile (no ABA).
    alignas(64) std::atomic<entry_block*> spare{nullptr};

    stream_queue() : wblock(new entry_block), rblock(wblock) {}  // may throw: queue_of's callers catch
    stream_queue(const stream_queue&) = delete;
    stream_queue& operator=(const stream_queue&) = delete;

    /// Launching side: entry `tail`'s slot, linking a block when the last is full; null: no memory.
    launch_entry* slot(std::uint64_t t) noexcept {
        if (t - wbase == block_entries) {
            entry_block* n = spare.load(std::memory_order_acquire);
            while (n != nullptr && !spare.compare_exchange_weak(n, n->next_spare, std::memory_order_acquire,
                                                                std::memory_order_acquire)) {
            }
            if (n != nullptr)
                n->next.store(nullptr, std::memory_order_relaxed);
            else if ((n = new (std::nothrow) entry_block) == nullptr)
                return nullptr;
            wblock->next.store(n, std::memory_order_release);
            wblock = n;
            wbase += block_entries;
        }
        return &wblock->e[t - wbase];
    }
    /// Pairing side (under `m`): entry `i` (head <= i < a tail loaded with acquire).
    const launch_entry& at(std::uint64_t i) const noexcept {
        const entry_block* b = rblock;
        std::uint64_t off = i - rbase;
        for (; off >= block_entries; off -= block_entries) b = b->next.load(std::memory_order_acquire);
        return b->e[off];
    }
    /// Pairing side (under `m`): entries before `h` are done; blocks passed go to the spare stack.
    /// A full block stays until its successor is linked: the launching side still links from it.
    void pop_to(std::uint64_t h) noexcept {
        head = h;
        while (head - rbase >= block_entries) {
            entry_block* const n = rblock->next.load(std::memory_order_acquire);
            if (n == nullptr) break;
            entry_block* old = rblock;
            rblock = n;
            rbase += block_entries;
            old->next_spare = spare.load(std::memory_order_relaxed);
            while (!spare.compare_exchange_weak(old->next_spare, old, std::memory_order_release,
                                                std::memory_order_relaxed)) {
            }
        }
    }
};
std::mutex g_queues_mutex;
auto* g_queues = new std::unordered_map<std::uint64_t, std::unique_ptr<stream_queue>>;  // never destroyed
// Resynchronizations (and dropped-record reports), graph kernels skipped (relaxed: statistics).
std::atomic<std::uint64_t> g_drift{0}, g_graph_kernels{0};
// For ENCORE_CUPTI_STATS (report()): entries a resynchronization skipped (their launches got no
// times), kernel records without times, and the first records that matched no entry, with the
// oldest entry of their stream at that moment (what a user needs to see why pairing failed).
std::atomic<std::uint64_t> g_lost{0}, g_zero_times{0};
struct unmatched_sample {
    std::uint32_t context, stream;
    std::int32_t grid[3], block[3];
    std::uint64_t start;
    std::size_t waiting;  // entries on the stream's queue (0: no queue for the stream)
    launch_entry head;    // its oldest (when waiting != 0)
};
constexpr std::size_t max_samples = 8;
std::mutex g_samples_mutex;
unmatched_sample g_samples[max_samples];
std::size_t g_sample_count = 0;

void sample_unmatched(const kernel_record_prefix& k, std::uint64_t start, const stream_queue* q) noexcept {
    std::lock_guard lk(g_samples_mutex);
    if (g_sample_count == max_samples) return;
    unmatched_sample& u = g_samples[g_sample_count++];
    u = {k.contextId, k.streamId, {k.gridX, k.gridY, k.gridZ}, {k.blockX, k.blockY, k.blockZ}, start, 0, {}};
    if (q != nullptr) {  // the caller holds q->m
        const std::uint64_t tail = q->tail.load(std::memory_order_acquire);
        u.waiting = static_cast<std::size_t>(tail - q->head);
        if (u.waiting != 0) u.head = q->at(q->head);
    }
}

/// The queue of stream key `ids` (created when `create`), or null. Queues are never freed, so a
/// thread keeps the last one it used without the map's lock.
stream_queue* queue_of(std::uint64_t ids, bool create) {
    struct last_queue {
        std::uint64_t ids = 0;
        stream_queue* q = nullptr;
    };
    static thread_local last_queue last;  // trivially destructible
    if (last.ids == ids && last.q != nullptr) return last.q;
    std::lock_guard lk(g_queues_mutex);
    auto it = g_queues->find(ids);
    if (it == g_queues->end()) {
        if (!create) return nullptr;
        it = g_queues->emplace(ids, std::make_unique<stream_queue>()).first;  // may throw: callers catch
    }
    last = {ids, it->second.get()};
    return last.q;
}

bool same_shape(const launch_entry& e, const kernel_record_prefix& k) {
    return static_cast<std::int64_t>(e.grid[0]) == k.gridX && static_cast<std::int64_t>(e.grid[1]) == k.gridY &&
           static_cast<std::int64_t>(e.grid[2]) == k.gridZ && static_cast<std::int64_t>(e.block[0]) == k.blockX &&
           static_cast<std::int64_t>(e.block[1]) == k.blockY && static_cast<std::int64_t>(e.block[2]) == k.blockZ;
}

/// A kernel record, paired in stream order (see the file's comment).
void handle_in_order(const kernel_record_prefix* k, std::uint64_t b, std::uint64_t e, std::vector<completion>& out) {
    if (k->graphId != 0) {
        g_graph_kernels.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    stream_queue* q = queue_of((static_cast<std::uint64_t>(k->contextId) + 1) << 32 | k->streamId, false);
    const bool timed = b != 0 || e != 0;
    if (!timed) g_zero_times.fetch_add(1, std::memory_order_relaxed);
    std::uint64_t key = 0;
    {
        if (q == nullptr) {
            g_unpaired.fetch_add(1, std::memory_order_relaxed);
            sample_unmatched(*k, b, nullptr);
            return;  // a stream encore launched nothing on while timing: not encore's kernel
        }
        std::lock_guard lk(q->m);
        const std::uint64_t waiting = q->tail.load(std::memory_order_acquire) - q->head;
        const std::uint64_t n = waiting < resync_window ? waiting : resync_window;
        std::uint64_t at = 0;
        while (at < n) {
            const launch_entry& w = q->at(q->head + at);
            if (same_shape(w, *k) && (!timed || b + early_start_ns >= w.before_ns)) break;
            ++at;
        }
        if (at == n) {
            g_unpaired.fetch_add(1, std::memory_order_relaxed);
            sample_unmatched(*k, b, q);
            return;  // matches no launch waiting on the stream: a kernel encore did not launch
        }
        if (at != 0) {
            g_drift.fetch_add(1, std::memory_order_relaxed);
            g_lost.fetch_add(at, std::memory_order_relaxed);
            // The entries before it lost their records (rare). May throw: caught by the caller,
            // before anything was taken off the queue.
            for (std::uint64_t i = 0; i < at; ++i)
                if (const std::uint64_t lost = q->at(q->head + i).key; lost != 0) out.push_back({lost, 0, 0, false});
        }
        key = q->at(q->head + at).key;
        if (key != 0) out.push_back({key, b, e, timed});  // may throw, as above
        q->pop_to(q->head + at + 1);
    }
    g_paired.fetch_add(1, std::memory_order_relaxed);
}

/// Offers CUPTI's times for one correlation id to its candidate keys, newest first, outside the
/// maps' lock (the receiver delivers records to tools); whether one took them.
bool offer(source* s, const std::vector<std::uint64_t>& keys, std::uint64_t b, std::uint64_t e, bool timed) {
    for (auto k = keys.rbegin(); k != keys.rend(); ++k)
        if (s->on_times(*k, b, e, timed)) {
            g_paired.fetch_add(1, std::memory_order_relaxed);
            return true;
        }
    return false;
}

/// One record of a completed buffer (records are handled in buffer order, each as if alone).
void handle(source* s, const CUpti_Activity* r, std::vector<completion>& in_order) {
    if (s->how == pairing::stream) {
        if (r->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && r->kind != CUPTI_ACTIVITY_KIND_KERNEL) return;
        const auto* k = reinterpret_cast<const kernel_record_prefix*>(r);
        std::uint64_t b = 0, e = 0;
        if (k->start != 0 || k->end != 0) {
            b = k->start + static_cast<std::uint64_t>(s->offset_ns);
            e = k->end + static_cast<std::uint64_t>(s->offset_ns);
        }
        handle_in_order(k, b, e, in_order);
        return;
    }
    std::vector<std::uint64_t> keys;
    std::uint64_t b = 0, e = 0;
    std::uint32_t correlation = 0;
    {
        std::lock_guard lk(s->m);
        if (r->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
            const auto* x = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(r);
            if (x->externalKind != key_kind) return;
            correlation = x->correlationId;
            auto it = s->times_of.find(correlation);
            if (it == s->times_of.end()) {
                if (s->key_of.size() >= unpaired_limit) s->key_of.clear();
                s->key_of[correlation].push_back(x->externalId);  // may throw: caught by the caller
                return;
            }
            std::tie(b, e) = it->second;
            s->times_of.erase(it);
            keys.push_back(x->externalId);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const auto* k = reinterpret_cast<const kernel_record_prefix*>(r);
            correlation = k->correlationId;
            if (k->start != 0 || k->end != 0) {
                b = k->start + static_cast<std::uint64_t>(s->offset_ns);
                e = k->end + static_cast<std::uint64_t>(s->offset_ns);
            }
            auto it = s->key_of.find(correlation);
            if (it == s->key_of.end()) {
                if (s->times_of.size() >= unpaired_limit) s->times_of.clear();
                g_unpaired.fetch_add(1, std::memory_order_relaxed);
                s->times_of.emplace(correlation, std::pair{b, e});
                return;
            }
            keys = std::move(it->second);
            s->key_of.erase(it);
        } else {
            return;  // DRIVER / RUNTIME records: only enabled for the correlation records
        }
    }
    if (offer(s, keys, b, e, b != 0 || e != 0)) return;
    // No candidate was (or is still) waiting, e.g. each was another API level's: the times wait
    // for the next key paired with this correlation id, which may have arrived on another thread.
    std::vector<std::uint64_t> later;
    {
        std::lock_guard lk(s->m);
        if (auto it = s->key_of.find(correlation); it != s->key_of.end()) {
            later = std::move(it->second);
            s->key_of.erase(it);
        } else {
            s->times_of.emplace(correlation, std::pair{b, e});
            return;
        }
    }
    (void)offer(s, later, b, e, b != 0 || e != 0);
}

// One buffer at a time: stream-order pairing needs a stream's records handled in CUPTI's order,
// and CUPTI's thread and a flushing thread may both hand buffers over.
std::mutex g_buffers_mutex;

void buffer_completed(void* ctx, std::uint32_t stream, std::uint8_t* buffer, std::size_t, std::size_t valid) {
    source* s = g_source.load(std::memory_order_acquire);
    std::lock_guard lk(g_buffers_mutex);
    // Stream order's completions of this buffer, handed over together (cupti.hpp: completion).
    // Kept between buffers (its capacity: no allocation per buffer); only this thread, under
    // g_buffers_mutex, uses it.
    static std::vector<completion>* in_order = new std::vector<completion>;  // never destroyed: CUPTI may call at exit
    in_order->clear();
    CUpti_Activity* r = nullptr;
    while (s != nullptr && buffer != nullptr && valid != 0 &&
           s->fn.get_next_record(buffer, valid, &r) == CUPTI_SUCCESS && r != nullptr) {
        try {
            handle(s, r, *in_order);
        } catch (...) {  // no memory for a map entry: that record is lost (its launch untimed at drain)
        }
    }
    if (s != nullptr && !in_order->empty()) {
        if (s->on_batch != nullptr) {
            s->on_batch(in_order->data(), in_order->size());
        } else {
            for (const completion& c : *in_order) (void)s->on_times(c.key, c.start_ns, c.end_ns, c.timed);
        }
    }
    // Records CUPTI had no buffer space for: stream order may have a gap (the window resyncs it).
    std::size_t dropped = 0;
    if (s != nullptr && s->fn.get_dropped != nullptr && s->fn.get_dropped(ctx, stream, &dropped) == CUPTI_SUCCESS &&
        dropped != 0)
        g_drift.fetch_add(1, std::memory_order_relaxed);
    if (buffer != nullptr) recycle_buffer(buffer);
}

// ---- loading ------------------------------------------------------------------------------------
constexpr const char* sonames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};

/// The directory of a loaded libcudart (pip wheels put CUPTI beside it, or in a sibling package).
std::string cudart_dir() {
    std::string dir;
    ::dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
            const char* name = info->dlpi_name;
            if (name == nullptr || std::strstr(name, "/libcudart.so") == nullptr) return 0;
            std::string path(name);
            *static_cast<std::string*>(out) = path.substr(0, path.rfind('/'));
            return 1;
        },
        &dir);
    return dir;
}

struct opened {
    void* handle = nullptr;
    std::string path;
    bool asked = false;  // named by ENCORE_CUPTI_LIBRARY: a failure to load it is said
};

opened open_cupti() {
    auto try_open = [](const std::string& path, int flags = RTLD_NOW | RTLD_LOCAL) -> void* {
        return ::dlopen(path.c_str(), flags);
    };
    if (const char* p = std::getenv("ENCORE_CUPTI_LIBRARY"); p != nullptr && *p != '\0') {
        if (void* h = try_open(p)) return {h, p, true};
        const char* why = ::dlerror();
        core::warn("libencore-cuda: cannot load ENCORE_CUPTI_LIBRARY=%s: %s; dispatch times come from CUDA events", p,
                   why != nullptr ? why : "unknown error");
        return {nullptr, p, true};
    }
    // One already in the process (PyTorch loads its own): a second CUPTI in one process would
    // fight the first over the driver's profiling hooks.
    for (const char* n : sonames)
        if (void* h = try_open(n, RTLD_NOW | RTLD_NOLOAD)) return {h, n};
    std::vector<std::string> dirs;
    if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0')
        dirs.push_back(std::string(home) + "/extras/CUPTI/lib64");
    dirs.emplace_back("/usr/local/cuda/extras/CUPTI/lib64");
    dirs.emplace_back("/usr/local/cuda/lib64");
    if (std::string d = cudart_dir(); !d.empty()) {
        dirs.push_back(d);                            // nvidia/cu13/lib (CUDA 13 wheels)
        dirs.push_back(d + "/../../cuda_cupti/lib");  // nvidia/cuda_runtime/lib -> nvidia/cuda_cupti/lib (12)
    }
    for (const auto& d : dirs)
        for (const char* n : sonames)
            if (void* h = try_open(d + "/" + n)) return {h, d + "/" + n};
    for (const char* n : sonames)
        if (void* h = try_open(n)) return {h, n};
    return {};
}

template <class F>
void bind(void* h, F& f, const char* name) noexcept {
    void* p = ::dlsym(h, name);
    std::memcpy(&f, &p, sizeof(f));
}

enum class mode { automatic, cupti, events };

// Events unless asked: on an H200 with CUDA 13's CUPTI the external-correlation records did not
// pair with the kernels the CUDA runtime launches (1 of 44 launches timed in records_program,
// docs/cuda.md "GPU times"), so CUPTI is opt-in until that pairing is solved.
mode timing_mode() noexcept {
    const char* v = std::getenv("ENCORE_CUDA_DISPATCH_TIMING");
    if (v == nullptr || *v == '\0' || std::strcmp(v, "events") == 0) return mode::events;
    if (std::strcmp(v, "auto") == 0) return mode::automatic;
    if (std::strcmp(v, "cupti") == 0) return mode::cupti;
    core::warn("libencore-cuda: ENCORE_CUDA_DISPATCH_TIMING=%s is not auto, cupti or events; using events", v);
    return mode::events;
}

pairing pairing_mode() noexcept {
    const char* v = std::getenv("ENCORE_CUPTI_PAIRING");
    if (v == nullptr || *v == '\0' || std::strcmp(v, "stream") == 0) return pairing::stream;
    if (std::strcmp(v, "external") == 0) return pairing::external;
    core::warn("libencore-cuda: ENCORE_CUPTI_PAIRING=%s is not stream or external; using stream", v);
    return pairing::stream;
}

/// Loads and initializes CUPTI; null (having said why, where it should) when it cannot be used.
source* start(times_fn on_times, batch_fn on_batch) noexcept {
    const mode m = timing_mode();
    if (m == mode::events) return nullptr;
    opened lib;
    try {
        lib = open_cupti();
    } catch (...) {
    }
    if (lib.handle == nullptr) {
        if (m == mode::cupti && !lib.asked)
            core::warn("libencore-cuda: ENCORE_CUDA_DISPATCH_TIMING=cupti, but CUPTI (libcupti.so) was not found "
                       "(set ENCORE_CUPTI_LIBRARY); dispatch times come from CUDA events");
        return nullptr;
    }
    auto* s = new (std::nothrow) source;
    if (s == nullptr) return nullptr;
    functions& f = s->fn;
    bind(lib.handle, f.get_version, "cuptiGetVersion");
    bind(lib.handle, f.get_result_string, "cuptiGetResultString");
    bind(lib.handle, f.activity_enable, "cuptiActivityEnable");
    bind(lib.handle, f.activity_disable, "cuptiActivityDisable");
    bind(lib.handle, f.register_callbacks, "cuptiActivityRegisterCallbacks");
    bind(lib.handle, f.get_next_record, "cuptiActivityGetNextRecord");
    bind(lib.handle, f.flush_all, "cuptiActivityFlushAll");
    bind(lib.handle, f.flush_period, "cuptiActivityFlushPeriod");
    bind(lib.handle, f.push_external, "cuptiActivityPushExternalCorrelationId");
    bind(lib.handle, f.pop_external, "cuptiActivityPopExternalCorrelationId");
    bind(lib.handle, f.register_timestamp, "cuptiActivityRegisterTimestampCallback");
    bind(lib.handle, f.get_timestamp, "cuptiGetTimestamp");
    bind(lib.handle, f.get_context_id, "cuptiGetContextId");
    bind(lib.handle, f.get_stream_id, "cuptiGetStreamIdEx");
    bind(lib.handle, f.get_dropped, "cuptiActivityGetNumDroppedRecords");
    bind(lib.handle, f.set_attribute, "cuptiActivitySetAttribute");
    s->how = pairing_mode();
    const char* path = lib.path.c_str();
    bool published = false;  // CUPTI may hold the source from then on: it is never freed after
    auto fail = [&](const char* step, CUptiResult r) -> source* {
        const char* text = nullptr;
        if (f.get_result_string == nullptr || f.get_result_string(r, &text) != CUPTI_SUCCESS) text = nullptr;
        core::warn("libencore-cuda: CUPTI (%s) cannot time dispatches: %s returned %d%s%s; dispatch times come from "
                   "CUDA events",
                   path, step, static_cast<int>(r), text != nullptr ? " " : "", text != nullptr ? text : "");
        if (published)
            g_retired.store(s, std::memory_order_relaxed);  // CUPTI may still hold it: kept for good
        else
            delete s;
        return nullptr;
    };
    if (f.get_version == nullptr || f.activity_enable == nullptr || f.activity_disable == nullptr ||
        f.register_callbacks == nullptr || f.get_next_record == nullptr || f.flush_all == nullptr ||
        f.flush_period == nullptr ||
        (s->how == pairing::external ? f.push_external == nullptr || f.pop_external == nullptr
                                     : f.get_context_id == nullptr || f.get_stream_id == nullptr) ||
        (f.register_timestamp == nullptr && f.get_timestamp == nullptr)) {
        core::warn("libencore-cuda: %s lacks functions of CUPTI's activity API; dispatch times come from CUDA events",
                   path);
        delete s;
        return nullptr;
    }
    std::uint32_t version = 0;
    if (CUptiResult r = f.get_version(&version); r != CUPTI_SUCCESS) return fail("cuptiGetVersion", r);
    if (version < oldest_supported_version) {
        core::warn("libencore-cuda: CUPTI (%s) API version %u is older than CUDA 11.0's (%u); dispatch times come "
                   "from CUDA events",
                   path, version, oldest_supported_version);
        delete s;
        return nullptr;
    }
    s->on_times = on_times;
    s->on_batch = on_batch;
    g_source.store(s, std::memory_order_release);  // before CUPTI can call back
    published = true;
    // Stream order needs one buffer for all threads (see CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER),
    // set before the callbacks are registered, as CUPTI requires. A CUPTI older than the attribute
    // rejects it and has a single buffer anyway; a CUPTI that has the attribute and refuses to
    // turn it off would leave pairing to its resynchronization and the events fallback.
    if (s->how == pairing::stream && f.set_attribute != nullptr) {
        std::uint8_t off = 0;
        std::size_t size = sizeof off;
        (void)f.set_attribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &off);
    }
    if (CUptiResult r = f.register_callbacks(&request_buffer, &buffer_completed); r != CUPTI_SUCCESS) {
        g_source.store(nullptr, std::memory_order_release);
        return fail("cuptiActivityRegisterCallbacks", r);
    }
    if (f.register_timestamp == nullptr || f.register_timestamp(&encore_clock) != CUPTI_SUCCESS) {
        // The tightest of a few tries.
        std::uint64_t best_half = ~0ull;
        for (int i = 0; i < 5; ++i) {
            std::uint64_t c = 0;
            const std::uint64_t h0 = core::now_ns();
            if (f.get_timestamp == nullptr || f.get_timestamp(&c) != CUPTI_SUCCESS) {
                g_source.store(nullptr, std::memory_order_release);
                return fail("cuptiGetTimestamp", CUPTI_ERROR_NOT_SUPPORTED);
            }
            const std::uint64_t h1 = core::now_ns();
            if ((h1 - h0) / 2 < best_half) {
                best_half = (h1 - h0) / 2;
                s->offset_ns = static_cast<std::int64_t>(h0 + (h1 - h0) / 2) - static_cast<std::int64_t>(c);
            }
        }
    }
    // Stream-order pairing needs only the kernel records.
    if (s->how == pairing::external) {
        if (CUptiResult r = f.activity_enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION); r != CUPTI_SUCCESS) {
            g_source.store(nullptr, std::memory_order_release);
            return fail("cuptiActivityEnable(EXTERNAL_CORRELATION)", r);
        }
        // CUPTI writes EXTERNAL_CORRELATION records only for API calls whose own activity records are
        // enabled (NVIDIA/Fuser found DRIVER necessary for driver-API launches), and a runtime
        // launch's kernel carries the runtime call's correlation id: both kinds are on unless
        // ENCORE_CUPTI_API_RECORDS names fewer (any of "driver", "runtime"; "none"), which is for
        // measuring what each costs and whether pairing holds without it. Their records are skipped.
        const char* api = std::getenv("ENCORE_CUPTI_API_RECORDS");
        const std::string api_kinds = api != nullptr ? api : "driver,runtime";
        for (const auto& [name, k] :
             {std::pair{"driver", CUPTI_ACTIVITY_KIND_DRIVER}, std::pair{"runtime", CUPTI_ACTIVITY_KIND_RUNTIME}}) {
            if (api_kinds.find(name) == std::string::npos) continue;
            if (CUptiResult r = f.activity_enable(k); r != CUPTI_SUCCESS) {
                (void)f.activity_disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
                g_source.store(nullptr, std::memory_order_release);
                return fail(k == CUPTI_ACTIVITY_KIND_DRIVER ? "cuptiActivityEnable(DRIVER)"
                                                            : "cuptiActivityEnable(RUNTIME)",
                            r);
            }
        }
    }
    if (CUptiResult r = f.activity_enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
        if (s->how == pairing::external) (void)f.activity_disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
        g_source.store(nullptr, std::memory_order_release);
        return fail("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
    }
    (void)f.flush_period(flush_period_ms);  // without it, delivery waits for full buffers or drains
    return s;
}

}  // namespace

bool active(times_fn on_times, batch_fn on_batch) noexcept {
    static source* const s = start(on_times, on_batch);
    return s != nullptr;
}

bool push(std::uint64_t key) noexcept {
    source* s = g_source.load(std::memory_order_acquire);
    return s != nullptr && s->fn.push_external(key_kind, key) == CUPTI_SUCCESS;
}

void pop() noexcept {
    std::uint64_t last = 0;
    if (source* s = g_source.load(std::memory_order_acquire)) (void)s->fn.pop_external(key_kind, &last);
}

pairing method() noexcept {
    source* s = g_source.load(std::memory_order_acquire);
    return s != nullptr ? s->how : pairing::stream;
}

std::uint64_t context_key(void* ctx) noexcept {
    source* s = g_source.load(std::memory_order_acquire);
    std::uint32_t id = 0;
    if (s == nullptr || s->how != pairing::stream || ctx == nullptr || s->fn.get_context_id(ctx, &id) != CUPTI_SUCCESS)
        return 0;
    return (static_cast<std::uint64_t>(id) + 1) << 32;
}

std::uint64_t stream_key(std::uint64_t context_key, void* ctx, void* stream, bool per_thread) noexcept {
    source* s = g_source.load(std::memory_order_acquire);
    if (s == nullptr || s->how != pairing::stream || context_key == 0) return 0;
    // The special handles are the default streams themselves (cuda.h).
    if (stream == reinterpret_cast<void*>(CU_STREAM_LEGACY)) stream = nullptr, per_thread = false;
    if (stream == reinterpret_cast<void*>(CU_STREAM_PER_THREAD)) stream = nullptr, per_thread = true;
    if (stream != nullptr) per_thread = false;
    std::uint32_t id = 0;
    if (s->fn.get_stream_id(ctx, stream, per_thread ? 1 : 0, &id) != CUPTI_SUCCESS) return 0;
    return context_key | id;
}

queued_launch::queued_launch(std::uint64_t ids, std::uint64_t key, const unsigned grid[3],
                             const unsigned block[3]) noexcept {
    if (ids == 0) return;
    stream_queue* q = nullptr;
    try {
        q = queue_of(ids, true);
    } catch (...) {
        return;
    }
    q->order.lock();
    const std::uint64_t t = q->tail.load(std::memory_order_relaxed);  // written under `order` only
    launch_entry* const e = q->slot(t);
    if (e == nullptr) {
        q->order.unlock();
        return;
    }
    *e = {key, core::now_ns(), {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]}};
    q->tail.store(t + 1, std::memory_order_release);  // pairs with the pairing side's acquire
    // The next launches' entries, in a block the pairing side read last (spare blocks come back).
    if (t + 2 - q->wbase < block_entries) __builtin_prefetch(e + 2, 1, 3);
    q_ = q;
    key_ = key;
    index_ = t;
}

queued_launch::~queued_launch() {
    if (q_ != nullptr) static_cast<stream_queue*>(q_)->order.unlock();
}

void queued_launch::rejected() noexcept {
    if (q_ == nullptr) return;
    auto* q = static_cast<stream_queue*>(q_);
    // Ours is the newest entry (the order lock is held); `m` keeps the pairing side out while it
    // is taken back. A resynchronization may have taken it already (head past it): then it stays.
    std::lock_guard lk(q->m);
    if (q->head <= index_) q->tail.store(index_, std::memory_order_relaxed);  // `m`'s unlock publishes it
}

health pairing_health(std::size_t waiting, std::size_t threshold) noexcept {
    if (g_paired.load(std::memory_order_relaxed) == 0 && g_unpaired.load(std::memory_order_relaxed) >= threshold &&
        waiting >= threshold)
        return health::never_paired;
    return g_drift.load(std::memory_order_relaxed) > drift_limit ? health::drifting : health::ok;
}

std::uint64_t drift_events() noexcept { return g_drift.load(std::memory_order_relaxed); }

void stop() noexcept {
    if (source* s = g_source.load(std::memory_order_acquire))
        (void)s->fn.activity_disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}

void report() noexcept {
    const char* v = std::getenv("ENCORE_CUPTI_STATS");
    if (v == nullptr || *v == '\0' || std::strcmp(v, "0") == 0 || g_source.load(std::memory_order_acquire) == nullptr)
        return;
    static std::atomic<bool> reported{false};  // drain_all may run twice at exit (records.cpp)
    if (reported.exchange(true)) return;
    // The records CUPTI holds but has not handed over yet are counted too: encore's own launches
    // were all delivered before this, but a kernel it did not launch may still sit in a buffer
    // (its record counts as matching no launch; under load the count read 0 where it was 1).
    flush(false);
    std::size_t waiting = 0, queues = 0;
    {
        std::lock_guard lk(g_queues_mutex);
        for (const auto& [ids, q] : *g_queues) {
            std::lock_guard ql(q->m);
            ++queues;
            const std::uint64_t tail = q->tail.load(std::memory_order_acquire);
            for (std::uint64_t i = q->head; i < tail; ++i) waiting += q->at(i).key != 0;
        }
    }
    std::fprintf(stderr,
                 "[encore] CUPTI pairing (%s): %llu kernel records paired, %llu matched no launch, %llu without times, "
                 "%llu graph kernels skipped; %llu resynchronizations skipped %llu launches; %zu launches still "
                 "waiting on %zu stream queues\n",
                 method() == pairing::stream ? "stream order" : "external ids",
                 static_cast<unsigned long long>(g_paired.load(std::memory_order_relaxed)),
                 static_cast<unsigned long long>(g_unpaired.load(std::memory_order_relaxed)),
                 static_cast<unsigned long long>(g_zero_times.load(std::memory_order_relaxed)),
                 static_cast<unsigned long long>(g_graph_kernels.load(std::memory_order_relaxed)),
                 static_cast<unsigned long long>(g_drift.load(std::memory_order_relaxed)),
                 static_cast<unsigned long long>(g_lost.load(std::memory_order_relaxed)), waiting, queues);
    std::lock_guard lk(g_samples_mutex);
    for (std::size_t i = 0; i < g_sample_count; ++i) {
        const unmatched_sample& u = g_samples[i];
        std::fprintf(stderr,
                     "[encore]   unmatched record: context %u stream %u grid %d,%d,%d block %d,%d,%d start %llu; "
                     "%zu waiting",
                     u.context, u.stream, u.grid[0], u.grid[1], u.grid[2], u.block[0], u.block[1], u.block[2],
                     static_cast<unsigned long long>(u.start), u.waiting);
        if (u.waiting != 0)
            std::fprintf(stderr, ", oldest grid %u,%u,%u block %u,%u,%u launched at %llu%s", u.head.grid[0],
                         u.head.grid[1], u.head.grid[2], u.head.block[0], u.head.block[1], u.head.block[2],
                         static_cast<unsigned long long>(u.head.before_ns), u.head.key == 0 ? " (placeholder)" : "");
        std::fputc('\n', stderr);
    }
}

void flush(bool forced) noexcept {
    if (source* s = g_source.load(std::memory_order_acquire))
        (void)s->fn.flush_all(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void* open_library(std::string& path) noexcept {
    try {
        opened lib = open_cupti();
        path = lib.path;
        return lib.handle;
    } catch (...) {
        return nullptr;
    }
}

}  // namespace encore::cuda::cupti
