// src/core/buffer.cpp — buffers (rocprofiler-sdk/buffer.h) and callback threads
// (internal_threading.h): per-thread single-producer rings, drained by callback threads.
//
// A buffer is a set of rings, one per producer thread (a thread's first record into the buffer
// makes or adopts one). A ring is a power-of-two byte array with a producer position (head) and a
// consumer position (tail), both counting bytes since the start; a record is an 8-byte slot
// header and its payload rounded up to 8 bytes, never split across the end (a padding slot fills
// the rest). The producer writes and publishes head (release); the consumer (the buffer's
// callback thread) reads up to head (acquire), hands the tool pointers into the ring, then
// publishes tail. The producer's fast path touches only its own ring's lines and a read-mostly
// buffer line; everything shared (waking the consumer, blocking when full) is a slow path.
#include "buffer.hpp"
#include "registry.hpp"
#include "warn.hpp"

#include <encore/tracing/kinds.hpp>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

namespace encore::core {
namespace {

constexpr std::size_t max_buffers = 256;          // per process lifetime (ids are never reused)
constexpr std::size_t max_callback_threads = 64;  // the default one included
constexpr std::size_t min_ring_bytes = 4096;
constexpr std::size_t max_ring_bytes = std::size_t{1} << 31;  // a slot's size is 32 bits
constexpr std::uint16_t padding_category = 0xffff;            // a slot that only fills a ring's end
// A full LOSSLESS producer re-reads tail this often (pause between), then yields this often,
// then blocks: spinning long takes the core from the consumer it waits for.
constexpr int lossless_spins = 64;
constexpr int lossless_yields = 16;
// The most records one callback gets: the consumer frees their space after each batch, so a
// producer of a big ring waits for one batch, not the whole ring.
constexpr std::size_t max_batch = 1024;

struct slot_header {
    std::uint32_t bytes;  // the whole slot, header included, a multiple of 8
    std::uint16_t category;
    std::uint16_t kind;
};
static_assert(sizeof(slot_header) == 8);

constexpr std::size_t slot_bytes(std::size_t payload) noexcept {
    return sizeof(slot_header) + ((payload + 7) & ~std::size_t{7});
}

void cpu_relax() noexcept {
#if defined(__SSE2__)
    _mm_pause();
#endif
}

std::uint64_t gettid_now() noexcept { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

struct callback_thread;

// One producer thread's ring in one buffer. Producer-owned, consumer-owned and read-mostly
// fields sit on separate cache lines.
struct ring {
    // ---- the producer's line: everything the record path reads and writes
    alignas(64) std::atomic<std::uint64_t> head{0};  // release by the producer; acquire by the consumer
    // The furthest head a record may end at without the slow path's checks: the ring's end (no
    // wrap), the space known free (cached_tail), and before check_at (no watermark look due). 0
    // sends every record to the slow path (a new ring, a fork child, a reset), which recomputes it.
    // limit_busy while a record is being written into the ring (below). Atomic, relaxed: plain
    // loads and stores, which a signal handler on this thread may read (lock-free atomics are what
    // a handler may touch).
    std::atomic<std::uint64_t> limit{0};
    std::byte* wdata = nullptr;                  // data and capacity - 1, copied here so that
    std::uint64_t mask = 0;                      // a record touches one line of the ring
    std::uint64_t cached_tail = 0;               // the producer's last look at tail
    std::uint64_t signaled = ~std::uint64_t{0};  // the buffer's `consumed` when we last woke the consumer
    std::uint64_t check_at = 0;                  // head at which the producer next looks at the watermark
    std::atomic<std::uint64_t> reported{0};      // head as of the last look (added to the buffer's `written`)
    // ---- the consumer's line
    alignas(64) std::atomic<std::uint64_t> tail{0};  // seq_cst by the consumer (pairs with `waiting`)
    // LOSSLESS waits blocked on tail: the producer's, and a signal handler's that interrupted it
    // (emit_slow lets one in while it waits). A count, so the inner one's end does not hide the
    // outer one from the consumer's notify.
    std::atomic<std::uint32_t> waiting{0};
    std::atomic<std::uint64_t> dropped{0};  // the producer counts (relaxed, rare); the consumer takes
    std::uint64_t accounted = 0;            // the consumer's: reported bytes it took out of `written`
    // ---- read-mostly (the consumer's view)
    alignas(64) std::byte* data = nullptr;
    std::uint64_t capacity = 0;
    std::uint64_t generation = 0;     // the buffer incarnation it belongs to
    std::atomic<bool> orphan{false};  // its thread exited: another thread may adopt it (acq/rel)
    ring* next = nullptr;             // the buffer's list; set before the ring is published
};
static_assert(offsetof(ring, tail) == 64, "the producer's fields fill exactly one cache line");

// A ring's limit while its producer writes a record (both paths set it first, before they read
// head, and put a real limit back last). A record that interrupts that one on the same thread (a
// signal handler's: a sampler's traced call, a backend's record) finds every record's end past it,
// takes the slow path and is dropped there, counted, instead of being written at the same head
// (issue 40 item 10: records overwritten, cut, lost). No real limit is 1: it is 0 or a ring's end,
// a free-space end (>= 4096) or a watermark look minus one at a head past a record (>= 7).
constexpr std::uint64_t limit_busy = 1;

// The limit (above) for the ring's state now; the producer calls it after the slow path.
void refresh_limit(ring& r) noexcept {
    const std::uint64_t head = r.head.load(std::memory_order_relaxed);
    const std::uint64_t ring_end = (head | r.mask) + 1;
    const std::uint64_t free_end = r.cached_tail + r.mask + 1;
    const std::uint64_t watermark_end = r.check_at == 0 ? 0 : r.check_at - 1;
    r.limit.store(std::min({ring_end, free_end, watermark_end}), std::memory_order_relaxed);
}

struct buffer {
    // Read by every producer on every record (read-mostly: written at create/destroy only).
    // 0 free, 1 live, 3 closing (records refused, what its rings hold still delivered: destroy,
    // finalization), 2 destroyed. Release at change.
    alignas(64) std::atomic<int> state{0};
    std::uint64_t generation = 0;  // a ring cached by a thread for another incarnation is not ours
    std::uint64_t ring_bytes = 0;
    std::uint64_t watermark = 0;
    rocprofiler_buffer_policy_t policy = ROCPROFILER_BUFFER_POLICY_NONE;
    std::atomic<callback_thread*> thread{nullptr};
    // Written at create, read by the consumer.
    rocprofiler_context_id_t context{};
    rocprofiler_buffer_tracing_cb_t callback = nullptr;
    void* callback_data = nullptr;
    alignas(64) std::atomic<ring*> rings{nullptr};  // pushed with CAS by producers (rare)
    std::atomic<std::uint32_t> ring_count{0};       // rings made for it (relaxed: a hint for the watermark)
    // Bytes its rings reported at their watermark looks, and bytes the consumer freed: their
    // difference is what the buffer holds, to within the rings' unreported bytes. Apart, so a
    // producer's add does not take the consumer's line and the reverse.
    alignas(64) std::atomic<std::uint64_t> written{0};
    alignas(64) std::atomic<std::uint64_t> consumed{0};
    // Drops not yet reported: written by the consumer only; atomic (relaxed) so that destroy and
    // finalization can read what no delivery carried (a callback gets at least one record).
    std::atomic<std::uint64_t> pending_drops{0};
    std::atomic<std::uint64_t> flush_requested{0};  // flushers increment (release)
    std::atomic<std::uint64_t> flush_done{0};       // the consumer stores (release) and notifies
    std::atomic<bool> delivering{false};
    // Records dropped before a ring could count them (a record that interrupted its thread's
    // making of a ring, no memory for one): producers add, the consumer takes them into
    // pending_drops.
    std::atomic<std::uint64_t> lost{0};
};

// A thread that delivers buffers. `work` is bumped (seq_cst) and notified by anyone who wants a
// pass: producers past a watermark or blocked, flushers. Its pid tells a thread inherited by a
// fork child (which does not exist there) from a live one.
struct callback_thread {
    std::atomic<std::uint32_t> work{0};
    // Passes begun and ended (seq_cst / release): destroy waits out a pass that may be reading
    // the buffer's rings.
    std::atomic<std::uint64_t> pass_begin{0};
    std::atomic<std::uint64_t> pass_end{0};
    std::atomic<std::uint64_t> os_tid{0};
    std::atomic<bool> started{false};
    // What its callback is blocked on now, for the waits' deadlock checks (waits, below): the
    // callback thread it waits for (a flush, a full LOSSLESS ring), a backend resource (an
    // agent's replay gate: set_blocked_on). seq_cst stores and loads: two threads that each set
    // theirs and then read the other's cannot both miss.
    std::atomic<callback_thread*> waits_for{nullptr};
    std::atomic<std::uint64_t> blocked_on{0};
    pid_t pid = 0;
    std::vector<rocprofiler_record_header_t> headers;
    std::vector<rocprofiler_record_header_t*> pointers;
};

buffer g_buffers[max_buffers];
std::atomic<std::size_t> g_buffer_count{0};
callback_thread* g_threads[max_callback_threads];  // [0] the default; made with `new`, never freed
std::atomic<std::size_t> g_thread_count{0};
// Serializes creation, destruction, assignment and thread starts; never taken by a producer
// that already has its ring, nor by a consumer pass.
std::mutex g_mutex;
std::atomic<bool> g_restart_after_fork{false};
std::uint64_t g_generation = 0;  // guarded by g_mutex

struct thread_hooks {
    rocprofiler_internal_thread_library_cb_t pre, post;
    int libs;
    void* data;
};
std::vector<thread_hooks>& hooks() {
    static auto* h = new std::vector<thread_hooks>();  // never destroyed: used at exit
    return *h;
}

// This thread's ring per buffer (index = buffer id - 1), made on its first record, behind an
// initial-exec TLS pointer (one load from the thread pointer per record). Mapped pages, not heap:
// a thread's first record may be written from a signal handler that interrupted malloc.
struct producer_state {
    ring* rings[max_buffers] = {};
};
constexpr std::size_t producer_state_bytes = (sizeof(producer_state) + 4095) & ~std::size_t{4095};
__attribute__((tls_model("initial-exec"))) constinit thread_local producer_state* t_producer = nullptr;
// The thread is making its producer state or a ring (attach_ring: not re-entrant); a record that
// interrupts it (a signal handler's) is dropped. initial-exec: read on the record path.
__attribute__((tls_model("initial-exec"))) constinit thread_local bool t_attaching = false;
// The buffer whose callback runs on this thread now (flush from inside it is BUFFER_BUSY).
constinit thread_local buffer* t_delivering = nullptr;
// This thread's callback_thread, if it is one; and a backend resource it holds (set_held_resource).
// initial-exec: read by a LOSSLESS producer's wait, which may run in a signal handler.
__attribute__((tls_model("initial-exec"))) constinit thread_local callback_thread* t_callback_thread = nullptr;
__attribute__((tls_model("initial-exec"))) constinit thread_local std::uint64_t t_held_resource = 0;

// A thread's exit hook (a pthread key destructor: after its C++ thread_local destructors, which
// may still write records; exit_safe_local.hpp). Its rings outlive it: they stay in their
// buffers until drained, then another thread may adopt them (its records after the exited
// thread's in that ring). t_producer is cleared first: a signal handler's record from here on
// makes a new state instead of writing into rings another thread may adopt.
void drop_producer_state(void* p) noexcept {
    auto* const state = static_cast<producer_state*>(p);
    if (t_producer == state) t_producer = nullptr;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    for (ring* r : state->rings)
        if (r != nullptr) r->orphan.store(true, std::memory_order_release);
    ::munmap(state, producer_state_bytes);
}
// Made at load: a key made on first use could be made in a signal handler, and one past the
// first 32 makes pthread_setspecific allocate.
struct producer_exit_hook {
    pthread_key_t key{};
    bool ok = false;
    producer_exit_hook() noexcept { ok = ::pthread_key_create(&key, &drop_producer_state) == 0; }
} g_producer_exit_hook;

// ---- callback threads -------------------------------------------------------------------------

void drain_buffer(callback_thread& self, buffer& b) noexcept;

// One pass over every buffer assigned to `self`: drain each, then complete the flushes asked for
// before the drain began.
void deliver_pass(callback_thread& self) noexcept {
    const std::uint64_t pass = self.pass_begin.fetch_add(1, std::memory_order_seq_cst) + 1;
    const std::size_t n = g_buffer_count.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i) {
        buffer& b = g_buffers[i];
        const int state = b.state.load(std::memory_order_seq_cst);
        if (state == 0 || b.thread.load(std::memory_order_acquire) != &self) continue;
        const std::uint64_t asked = b.flush_requested.load(std::memory_order_acquire);
        if (state == 1 || state == 3) drain_buffer(self, b);  // a destroyed one only completes its flushes
        if (asked > b.flush_done.load(std::memory_order_relaxed)) {
            b.flush_done.store(asked, std::memory_order_release);
            b.flush_done.notify_all();
        }
    }
    self.pass_end.store(pass, std::memory_order_release);
    self.pass_end.notify_all();
}

// Whether a buffer of `self` holds a watermark's worth, all its rings together (the last look
// before sleeping: a producer that saw its wake-up as already sent is covered by it).
bool any_due(callback_thread& self) noexcept {
    const std::size_t n = g_buffer_count.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i) {
        buffer& b = g_buffers[i];
        const int state = b.state.load(std::memory_order_acquire);
        if ((state != 1 && state != 3) || b.thread.load(std::memory_order_acquire) != &self) continue;
        if (b.flush_requested.load(std::memory_order_acquire) > b.flush_done.load(std::memory_order_relaxed))
            return true;
        std::uint64_t held = 0;
        for (ring* r = b.rings.load(std::memory_order_acquire); r != nullptr; r = r->next) {
            const std::uint64_t fill = r->head.load(std::memory_order_acquire) - r->tail.load(std::memory_order_relaxed);
            if (fill > 0 && r->waiting.load(std::memory_order_seq_cst) != 0) return true;
            held += fill;
        }
        if (held > 0 && held >= b.watermark) return true;
    }
    return false;
}

void* callback_thread_main(void* arg) {
    auto& self = *static_cast<callback_thread*>(arg);
    t_callback_thread = &self;
    self.os_tid.store(gettid_now(), std::memory_order_release);
    // A pass when asked (work moved: a wake-up, a flush) or when a buffer is due; never just
    // because the thread started, which would deliver below the watermark.
    std::uint32_t seen = 0;
    for (;;) {
        const std::uint32_t w = self.work.load(std::memory_order_seq_cst);
        if (w == seen && !any_due(self)) {
            self.work.wait(w, std::memory_order_seq_cst);
            continue;
        }
        seen = w;
        deliver_pass(self);
    }
    return nullptr;
}

// Starts `t` (under g_mutex), with the tools' precreate/postcreate hooks around it.
bool start_thread(callback_thread& t) noexcept {
    const auto call_hooks = [](bool pre) {
        for (const thread_hooks& h : hooks()) {
            if ((h.libs & ROCPROFILER_LIBRARY) == 0) continue;
            auto* cb = pre ? h.pre : h.post;
            if (cb == nullptr) continue;
            try {
                cb(ROCPROFILER_LIBRARY, h.data);
            } catch (...) {
                warn("a tool's internal-thread %s callback threw; ignored", pre ? "precreate" : "postcreate");
            }
        }
    };
    call_hooks(true);
    pthread_attr_t attr;
    ::pthread_attr_init(&attr);
    ::pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    // No signals on a callback thread: the program's handlers expect its own threads.
    sigset_t all, old;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    const int rc = ::pthread_create(&th, &attr, &callback_thread_main, &t);
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ::pthread_attr_destroy(&attr);
    call_hooks(false);
    if (rc != 0) return false;
    t.pid = ::getpid();
    t.started.store(true, std::memory_order_release);
    return true;
}

callback_thread* make_thread() noexcept {
    const std::size_t n = g_thread_count.load(std::memory_order_relaxed);
    if (n >= max_callback_threads) return nullptr;
    auto* t = new (std::nothrow) callback_thread();
    if (t == nullptr) return nullptr;
    if (!start_thread(*t)) {
        delete t;
        return nullptr;
    }
    g_threads[n] = t;
    g_thread_count.store(n + 1, std::memory_order_release);
    return t;
}

// In a fork child the callback threads do not exist: start them again before anyone waits on
// one (a flush, a full LOSSLESS ring). Rare: a flag load otherwise.
void restart_threads_if_forked() noexcept {
    if (!g_restart_after_fork.load(std::memory_order_acquire)) [[likely]]
        return;
    std::lock_guard lk(g_mutex);
    if (!g_restart_after_fork.load(std::memory_order_relaxed)) return;
    const std::size_t n = g_thread_count.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < n; ++i)
        if (g_threads[i]->pid != ::getpid() && !start_thread(*g_threads[i]))
            warn("could not restart a buffer callback thread after fork(): its buffers are not delivered");
    g_restart_after_fork.store(false, std::memory_order_release);
}

void wake(callback_thread* t) noexcept {
    if (t == nullptr) return;
    restart_threads_if_forked();
    t->work.fetch_add(1, std::memory_order_seq_cst);
    t->work.notify_one();
}

// ---- delivery -----------------------------------------------------------------------------------

// Hands every record of every ring of `b` to the tool, one callback per ring with records (so a
// thread's records arrive in order), then frees their space.
void drain_buffer(callback_thread& self, buffer& b) noexcept {
    if (b.lost.load(std::memory_order_relaxed) != 0)
        b.pending_drops.store(b.pending_drops.load(std::memory_order_relaxed) +
                                  b.lost.exchange(0, std::memory_order_relaxed),
                              std::memory_order_relaxed);
    for (ring* r = b.rings.load(std::memory_order_acquire); r != nullptr; r = r->next) {
        const std::uint64_t head = r->head.load(std::memory_order_acquire);
        if (r->dropped.load(std::memory_order_relaxed) != 0)
            b.pending_drops.store(b.pending_drops.load(std::memory_order_relaxed) +
                                      r->dropped.exchange(0, std::memory_order_relaxed),
                                  std::memory_order_relaxed);
        for (std::uint64_t tail = r->tail.load(std::memory_order_relaxed); tail != head;) {
            self.headers.clear();
            self.pointers.clear();
            std::uint64_t pos = tail;
            try {
                while (pos != head && self.headers.size() < max_batch) {
                    auto* s = reinterpret_cast<slot_header*>(r->data + (pos & (r->capacity - 1)));
                    if (s->bytes == 0) {  // never written (a ring reset by fork); defensive
                        pos = head;
                        break;
                    }
                    if (s->category != padding_category)
                        self.headers.push_back(rocprofiler_record_header_t{
                            {{s->category, s->kind}}, reinterpret_cast<std::byte*>(s) + sizeof(slot_header)});
                    pos += s->bytes;
                }
                for (auto& h : self.headers) self.pointers.push_back(&h);
            } catch (...) {
                break;  // no memory for the batch: the records stay and go with the next pass
            }
            if (!self.pointers.empty()) {
                const rocprofiler_buffer_id_t id{static_cast<std::uint64_t>(&b - g_buffers) + 1};
                const std::uint64_t drops = b.pending_drops.load(std::memory_order_relaxed);
                b.pending_drops.store(0, std::memory_order_relaxed);
                // Saved and put back: a callback of another buffer on this thread may be flushing
                // b inline (flush), and is still delivering when b's callback returns.
                buffer* const outer = std::exchange(t_delivering, &b);
                b.delivering.store(true, std::memory_order_relaxed);
                try {
                    b.callback(b.context, id, self.pointers.data(), self.pointers.size(), b.callback_data, drops);
                } catch (...) {
                    // Named by the callback kind the batch's first record comes from, if any.
                    const auto& h = self.headers.front();
                    const kind source = h.category == ROCPROFILER_BUFFER_CATEGORY_TRACING
                                            ? tracing::buffer_source_of(h.kind)
                                            : kind::none;
                    tracing::detail::callback_threw(b.context.handle, static_cast<std::uint32_t>(source));
                }
                b.delivering.store(false, std::memory_order_relaxed);
                t_delivering = outer;
            }
            // seq_cst: pairs with a blocked producer's `waiting` (it sets it, then reads tail).
            tail = pos;
            r->tail.store(tail, std::memory_order_seq_cst);
            if (r->waiting.load(std::memory_order_seq_cst) != 0) r->tail.notify_all();
        }
        // What the buffer no longer holds, of what this ring reported (bytes it has not reported
        // are not in `written` either); every pass, records or not, so a producer that reported
        // after our last drain sees progress.
        const std::uint64_t upto = std::min(r->tail.load(std::memory_order_relaxed),
                                            r->reported.load(std::memory_order_acquire));
        if (upto > r->accounted) {
            b.consumed.fetch_add(upto - r->accounted, std::memory_order_seq_cst);
            r->accounted = upto;
        }
    }
}

// ---- producers ----------------------------------------------------------------------------------

// How far apart a ring's looks at the watermark are: an eighth of its share of the watermark,
// so the buffer's fill is known to within an eighth of the watermark (every ring's unreported
// bytes together); but at least 16 KiB (~220 API records) when the watermark allows it, since a
// look is an atomic add on a line every producer of the buffer adds to (at an eighth of a share,
// 16 producers of 1 MiB rings spent several ns per record there). Then the fill is known to
// within 16 KiB per ring.
std::uint64_t look_step(const buffer& b) noexcept {
    constexpr std::uint64_t min_step = 16 << 10;
    const std::uint64_t rings = std::max<std::uint32_t>(b.ring_count.load(std::memory_order_relaxed), 1);
    const std::uint64_t step = std::min(std::max(b.watermark / rings / 8, min_step), b.watermark / 8);
    return std::max<std::uint64_t>(step, sizeof(slot_header));
}

// The calling thread's ring in `b` (index i): an orphan adopted, or a new one. Null when out of
// memory. Async-signal-safe (mmap, atomics, a pthread key made at load), not re-entrant: the
// caller sets t_attaching around it.
[[gnu::noinline]] ring* attach_ring(buffer& b, std::size_t i) noexcept {
    producer_state* p = t_producer;
    if (p == nullptr) {
        void* mem = ::mmap(nullptr, producer_state_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED) return nullptr;
        p = ::new (mem) producer_state();
        // No key (out of keys at load): the state and its rings are never given up.
        if (g_producer_exit_hook.ok) ::pthread_setspecific(g_producer_exit_hook.key, p);
        t_producer = p;
    }
    for (ring* r = b.rings.load(std::memory_order_acquire); r != nullptr; r = r->next) {
        bool was = true;
        if (r->generation != b.generation) continue;
        if (r->orphan.load(std::memory_order_relaxed) &&
            r->orphan.compare_exchange_strong(was, false, std::memory_order_acq_rel))
            return p->rings[i] = r;
    }
    // The ring's fields in the page after its data: one mapping, never unmapped (release_rings
    // gives back the data's pages only).
    void* mem = ::mmap(nullptr, b.ring_bytes + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return nullptr;
    static_assert(sizeof(ring) <= 4096 && alignof(ring) <= 4096);
    auto* r = ::new (static_cast<std::byte*>(mem) + b.ring_bytes) ring();
    r->data = r->wdata = static_cast<std::byte*>(mem);
    r->mask = b.ring_bytes - 1;
    // This ring's share of the watermark (past_watermark).
    b.ring_count.fetch_add(1, std::memory_order_relaxed);
    r->check_at = b.watermark == 0 ? 0 : look_step(b);
    r->capacity = b.ring_bytes;
    r->generation = b.generation;
    ring* first = b.rings.load(std::memory_order_relaxed);
    do {
        r->next = first;
    } while (!b.rings.compare_exchange_weak(first, r, std::memory_order_release, std::memory_order_relaxed));
    return p->rings[i] = r;
}

// ---- waits on callback threads ----------------------------------------------------------------
//
// A thread that waits for a callback thread's progress (a flush; a full LOSSLESS ring; destroy
// waiting out a pass) must not wait for one that waits for it: two buffers' callbacks on two
// callback threads each flushing the other's buffer (issue 40 item 1); a callback whose traced
// call fills a LOSSLESS ring of a buffer whose callback thread waits for this one; a callback
// blocked on a backend resource the waiting thread holds (a kernel replay holds its agent's gate
// while its passes' records fill a ring whose callback copies into that agent's memory: item 2).
// Each waiting callback thread says what it waits for (waits_for), each callback thread blocked
// on a backend resource says which (blocked_on), and a wait first follows that chain from the
// thread it would wait for: reaching the waiting thread itself, or a thread blocked on what the
// waiting thread holds, means the wait would never end, and the caller gives up instead (a
// flush: BUFFER_BUSY; a LOSSLESS record: dropped, counted). Waits between callback threads
// block (two threads that set waits_for and then follow the chain cannot both miss each other:
// seq_cst); a thread that holds a resource naps and looks again, since the callback thread may
// block on the resource only after the look.

// Whether waiting for `t` would wait for the calling thread (see above).
bool waits_for_me(callback_thread* t) noexcept {
    for (std::size_t hops = 0; t != nullptr && hops <= max_callback_threads; ++hops) {
        if (t == t_callback_thread) return true;
        if (t_held_resource != 0 && t->blocked_on.load(std::memory_order_seq_cst) == t_held_resource) return true;
        t = t->waits_for.load(std::memory_order_seq_cst);
    }
    return false;
}

// Marks the calling callback thread as waiting for `t` while it lives.
class waiting_for {
public:
    explicit waiting_for(callback_thread* t) noexcept : self_(t_callback_thread) {
        if (self_ != nullptr) before_ = self_->waits_for.exchange(t, std::memory_order_seq_cst);
    }
    ~waiting_for() {
        if (self_ != nullptr) self_->waits_for.store(before_, std::memory_order_seq_cst);
    }
    waiting_for(const waiting_for&) = delete;
    waiting_for& operator=(const waiting_for&) = delete;

private:
    callback_thread* self_;
    callback_thread* before_ = nullptr;
};

// Waits until `word` moves from `seen` (a futex wait), or a nap when the calling thread holds a
// resource (the deadlock check must look again).
void wait_change(std::atomic<std::uint64_t>& word, std::uint64_t seen) noexcept {
    if (t_held_resource != 0) {
        const timespec nap{0, 200 * 1000};
        ::nanosleep(&nap, nullptr);
        return;
    }
    word.wait(seen, std::memory_order_seq_cst);
}

// Waits until `need` bytes are free past `head` (LOSSLESS): spins re-reading tail, then blocks on
// it after waking the consumer. True when there is room, or when head moved meanwhile (a signal
// handler's record on this thread: the caller computes head and need again; against a stale head
// the room test could never pass, once the consumer has freed past it). False when waiting cannot
// end: this is the consumer's thread, or the consumer waits for this thread (waits_for_me).
[[gnu::noinline]] bool wait_for_room(buffer& b, ring& r, std::uint64_t head, std::uint64_t need) noexcept {
    callback_thread* const consumer = b.thread.load(std::memory_order_acquire);
    if (consumer == t_callback_thread) return false;
    const auto done = [&](std::uint64_t tail) noexcept {
        return head + need - tail <= r.capacity || r.head.load(std::memory_order_relaxed) != head;
    };
    wake(consumer);
    for (int i = 0; i < lossless_spins + lossless_yields; ++i) {
        r.cached_tail = r.tail.load(std::memory_order_acquire);
        if (done(r.cached_tail)) return true;
        if (i < lossless_spins)
            cpu_relax();
        else
            ::sched_yield();
    }
    const waiting_for marked(consumer);
    r.waiting.fetch_add(1, std::memory_order_seq_cst);
    bool ok = false;
    for (;;) {
        const std::uint64_t t = r.tail.load(std::memory_order_seq_cst);
        r.cached_tail = t;
        if (done(t)) {
            ok = true;
            break;
        }
        if (b.state.load(std::memory_order_acquire) != 1 || waits_for_me(consumer)) break;
        wake(consumer);  // again: a pass that began before our record may have missed it
        wait_change(r.tail, t);
    }
    r.waiting.fetch_sub(1, std::memory_order_relaxed);
    return ok;
}

// head reached check_at: report this ring's bytes since its last look into the buffer's count
// of bytes written (one atomic add on a line shared by the buffer's producers, once per step),
// then compare what the buffer holds (written minus what the consumer freed) with the watermark.
// At or past it, wake the consumer once per progress it makes: one that has freed nothing since
// our last wake-up has a pass coming and looks at every ring again before it sleeps (any_due).
// A ring never reads another ring's lines, which other cores are writing. Returns the consumer
// to wake, or null: the caller wakes it once the ring is no longer busy (a wake-up is a system
// call, and a signal is delivered on the way back from one: a handler's record would find the
// ring busy every time).
[[gnu::noinline]] callback_thread* past_watermark(buffer& b, ring& r, std::uint64_t head) noexcept {
    // seq_cst: a full barrier between our head store and the loads below (the consumer stores
    // tail and `consumed`, then loads head): one of us sees the other's store.
    const std::uint64_t delta = head - r.reported.load(std::memory_order_relaxed);
    const std::uint64_t written = b.written.fetch_add(delta, std::memory_order_seq_cst) + delta;
    r.reported.store(head, std::memory_order_release);
    r.cached_tail = r.tail.load(std::memory_order_seq_cst);
    const std::uint64_t consumed = b.consumed.load(std::memory_order_seq_cst);
    const std::uint64_t held = written > consumed ? written - consumed : 0;
    r.check_at = b.watermark == 0 ? head : head + look_step(b);
    if (held < b.watermark || held == 0) return nullptr;
    if (consumed == r.signaled) return nullptr;
    r.signaled = consumed;
    return b.thread.load(std::memory_order_acquire);
}

// Writes a slot: its header, then the payload. Records are small whole words (the fast path
// takes those up to 128 bytes): a call to memcpy costs more than the record. The payload moves
// in 8-byte words, as a head and a tail that may overlap (no loop; one branch per size class,
// taken the same way for every record of one kind). Not 16-byte moves: a record is built with
// 8-byte stores just before it is written, and a wider load of two such stores waits for them
// to reach the cache instead of being forwarded (measured: RESULTS.md, buffer tracing).
[[gnu::always_inline]] inline void move_word(std::byte* dst, const std::byte* src) noexcept {
    std::uint64_t w;
    std::memcpy(&w, src, 8);
    asm("" : "+r"(w));  // through a register: else the compiler merges words into 16-byte moves
    std::memcpy(dst, &w, 8);
}
template <std::size_t Words>
[[gnu::always_inline]] inline void move_words(std::byte* dst, const std::byte* src) noexcept {
    [&]<std::size_t... I>(std::index_sequence<I...>) { (move_word(dst + 8 * I, src + 8 * I), ...); }
    (std::make_index_sequence<Words>{});
}
[[gnu::always_inline]] inline void write_slot(std::byte* dst, std::uint64_t header, const void* src,
                                              std::size_t n) noexcept {
    std::memcpy(dst, &header, sizeof header);
    dst += sizeof header;
    const auto* p = static_cast<const std::byte*>(src);
    if (n >= 16 && n <= 128 && (n & 7) == 0) {
        if (n <= 32) {
            move_words<2>(dst, p);
            move_words<2>(dst + n - 16, p + n - 16);
        } else if (n <= 64) {
            move_words<4>(dst, p);
            move_words<4>(dst + n - 32, p + n - 32);
        } else {
            move_words<8>(dst, p);
            move_words<8>(dst + n - 64, p + n - 64);
        }
    } else if (n == 8) {
        move_words<1>(dst, p);
    } else if (n != 0) {
        std::memcpy(dst, p, n);
    }
}

constexpr std::uint64_t slot_word(std::uint64_t total, std::uint32_t category, std::uint32_t kind) noexcept {
    static_assert(offsetof(slot_header, bytes) == 0 && offsetof(slot_header, category) == 4 &&
                  offsetof(slot_header, kind) == 6 && std::endian::native == std::endian::little);
    return total | static_cast<std::uint64_t>(category) << 32 | static_cast<std::uint64_t>(kind) << 48;
}

// A read-modify-write, not a load and a store: the consumer takes the count with an exchange, and
// a signal handler's drop may interrupt this thread's own.
[[gnu::noinline]] rocprofiler_status_t drop(ring& r) noexcept {
    r.dropped.fetch_add(1, std::memory_order_relaxed);
    return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
}
[[gnu::noinline]] rocprofiler_status_t lost(buffer& b) noexcept {
    b.lost.fetch_add(1, std::memory_order_relaxed);
    return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
}

// fork(): the child has one thread. Its callback threads do not exist (they are started again
// when first needed); its rings hold records the parent delivers, so the child drops them; the
// rings of the parent's other threads become orphans. g_mutex is held across the fork so the
// child never inherits it locked.
void fork_prepare() noexcept { g_mutex.lock(); }
void fork_parent() noexcept { g_mutex.unlock(); }
void fork_child() noexcept {
    ::new (&g_mutex) std::mutex();
    const std::size_t n = g_buffer_count.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < n; ++i) {
        buffer& b = g_buffers[i];
        for (ring* r = b.rings.load(std::memory_order_relaxed); r != nullptr; r = r->next) {
            const std::uint64_t head = r->head.load(std::memory_order_relaxed);
            r->tail.store(head, std::memory_order_relaxed);
            r->cached_tail = head;
            r->signaled = ~std::uint64_t{0};
            r->reported.store(head, std::memory_order_relaxed);
            r->accounted = head;
            r->check_at = head;
            r->limit.store(0, std::memory_order_relaxed);
            r->dropped.store(0, std::memory_order_relaxed);
            r->waiting.store(0, std::memory_order_relaxed);
            const bool mine = t_producer != nullptr && t_producer->rings[i] == r;
            if (!mine) r->orphan.store(true, std::memory_order_relaxed);
        }
        b.pending_drops.store(0, std::memory_order_relaxed);
        b.written.store(0, std::memory_order_relaxed);
        b.consumed.store(0, std::memory_order_relaxed);
        b.flush_done.store(b.flush_requested.load(std::memory_order_relaxed), std::memory_order_relaxed);
        b.delivering.store(false, std::memory_order_relaxed);
    }
    const std::size_t nt = g_thread_count.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < nt; ++i) {
        g_threads[i]->pass_end.store(g_threads[i]->pass_begin.load(std::memory_order_relaxed), std::memory_order_relaxed);
        g_threads[i]->started.store(false, std::memory_order_relaxed);
        g_threads[i]->waits_for.store(nullptr, std::memory_order_relaxed);
        g_threads[i]->blocked_on.store(0, std::memory_order_relaxed);
    }
    if (nt != 0) g_restart_after_fork.store(true, std::memory_order_release);
}
[[gnu::constructor]] void install_fork_handlers() { ::pthread_atfork(&fork_prepare, &fork_parent, &fork_child); }

}  // namespace

// ---- the record path ----------------------------------------------------------------------------

namespace {
// Every case of a record: a new or stale ring, a wrap, a full ring, the watermark, odd sizes, a
// record that interrupted this thread's own (a signal handler's).
[[gnu::noinline]] rocprofiler_status_t emit_slow(buffer& b, std::uint64_t i, std::uint32_t category, std::uint32_t kind,
                                                 const void* payload, std::size_t bytes) noexcept {
    producer_state* p = t_producer;
    ring* r = p != nullptr ? p->rings[i] : nullptr;
    if (r == nullptr || r->generation != b.generation) [[unlikely]] {
        if (t_attaching) return lost(b);  // interrupts this thread's attach_ring (a signal handler)
        t_attaching = true;
        std::atomic_signal_fence(std::memory_order_seq_cst);
        r = attach_ring(b, i);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        t_attaching = false;
        if (r == nullptr) {
            static warn_once no_ring;
            no_ring("no memory for a thread's buffer ring: its records are dropped");
            return lost(b);
        }
    }
    // Busy before anything of the ring is read (limit_busy); a real limit again on every way out.
    if (r->limit.load(std::memory_order_relaxed) == limit_busy) [[unlikely]]
        return drop(*r);  // this record interrupted the thread's own record into r
    r->limit.store(limit_busy, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const auto done = [r](rocprofiler_status_t st) noexcept {
        std::atomic_signal_fence(std::memory_order_seq_cst);
        refresh_limit(*r);
        return st;
    };
    const std::uint64_t total = slot_bytes(bytes);
    if (total > r->capacity) [[unlikely]]
        return done(drop(*r));
    std::uint64_t head, to_end;
    const std::uint64_t mask = r->capacity - 1;
    for (;;) {
        head = r->head.load(std::memory_order_relaxed);
        to_end = r->capacity - (head & mask);
        const std::uint64_t need = total <= to_end ? total : total + to_end;  // + the padding slot
        if (head + need - r->cached_tail <= r->capacity) break;
        r->cached_tail = r->tail.load(std::memory_order_acquire);
        if (head + need - r->cached_tail <= r->capacity) break;
        if (b.policy == ROCPROFILER_BUFFER_POLICY_DISCARD) return done(drop(*r));
        // A LOSSLESS wait lets a signal handler's record on this thread in (limit 0: the slow
        // path, which waits for room in turn), rather than drop every record of a sampler that
        // interrupts a thread blocked on a full ring; this record then goes after it (head is
        // read again).
        std::atomic_signal_fence(std::memory_order_seq_cst);
        r->limit.store(0, std::memory_order_relaxed);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        const bool room = wait_for_room(b, *r, head, need);
        r->limit.store(limit_busy, std::memory_order_relaxed);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        if (!room) return done(drop(*r));
    }
    if (total > to_end) {
        auto* pad = reinterpret_cast<slot_header*>(r->data + (head & mask));
        *pad = slot_header{static_cast<std::uint32_t>(to_end), padding_category, 0};
        head += to_end;
    }
    write_slot(r->data + (head & mask), slot_word(total, category, kind), payload, bytes);
    head += total;
    r->head.store(head, std::memory_order_release);
    callback_thread* const to_wake = head >= r->check_at ? past_watermark(b, *r, head) : nullptr;
    const rocprofiler_status_t st = done(ROCPROFILER_STATUS_SUCCESS);
    if (to_wake != nullptr) wake(to_wake);
    return st;
}
}  // namespace

bool buffer_group_fits(rocprofiler_buffer_id_t id, std::size_t first_bytes, std::size_t each_bytes,
                       std::size_t count) noexcept {
    const std::uint64_t i = id.handle - 1;
    if (i >= max_buffers) return true;  // buffer_emit says what is wrong
    buffer& b = g_buffers[i];
    if (b.state.load(std::memory_order_acquire) != 1 || b.policy != ROCPROFILER_BUFFER_POLICY_DISCARD) return true;
    // The group's slots, and one padding slot where it wraps (at most the largest slot): only this
    // thread writes its ring, and the consumer only frees space, so what fits now still fits when
    // the records are written (a signal handler's record into the same ring in between aside).
    const std::uint64_t largest = std::max(slot_bytes(first_bytes), slot_bytes(each_bytes));
    const std::uint64_t need = slot_bytes(first_bytes) + count * slot_bytes(each_bytes) + largest;
    producer_state* const p = t_producer;
    ring* const r = p != nullptr ? p->rings[i] : nullptr;
    std::uint64_t used = 0, capacity = b.ring_bytes;
    if (r != nullptr && r->generation == b.generation) {
        capacity = r->capacity;
        used = r->head.load(std::memory_order_relaxed) - r->tail.load(std::memory_order_acquire);
    }
    if (used + need <= capacity) return true;
    if (r != nullptr && r->generation == b.generation) {
        r->dropped.fetch_add(1 + count, std::memory_order_relaxed);
    } else {
        b.lost.fetch_add(1 + count, std::memory_order_relaxed);
    }
    return false;
}

rocprofiler_status_t buffer_emit(rocprofiler_buffer_id_t id, std::uint32_t category, std::uint32_t kind,
                                 const void* payload, std::size_t bytes) noexcept {
    const std::uint64_t i = id.handle - 1;
    if (i >= max_buffers) [[unlikely]]
        return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    buffer& b = g_buffers[i];
    if (b.state.load(std::memory_order_acquire) != 1) [[unlikely]]
        return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    if ((payload == nullptr && bytes != 0) || category >= padding_category || kind > 0xffff) [[unlikely]]
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    // The common record: the thread has its ring, whole words up to 128 bytes (the API records
    // are 64), and it ends within the ring's limit (before the ring's end, in the space known
    // free, before the next watermark look). Nothing else is spilled around it, so everything
    // else goes to emit_slow (a tail call). A ring of an earlier incarnation of the buffer (test
    // resets) has limit 0.
    producer_state* const p = t_producer;
    ring* const r = p != nullptr ? p->rings[i] : nullptr;
    if (r == nullptr || bytes > 128 || (bytes & 7) != 0) [[unlikely]]
        return emit_slow(b, i, category, kind, payload, bytes);
    // The ring is busy (limit_busy) from before head is read until after it is published, so a
    // signal handler's record on this thread in between takes the slow path and is dropped there,
    // never written at the same head. Two plain stores on the producer's own line. A handler's
    // record that completes between the load of `limit` and the busy store only moves the true
    // limit further (a later ring end, more space known free, a later watermark look), so the one
    // read here is still safe to check against and to put back.
    const std::uint64_t limit = r->limit.load(std::memory_order_relaxed);
    r->limit.store(limit_busy, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const std::uint64_t head = r->head.load(std::memory_order_relaxed);
    const std::uint64_t total = sizeof(slot_header) + bytes;
    const std::uint64_t end = head + total;
    if (end > limit) [[unlikely]] {
        r->limit.store(limit, std::memory_order_relaxed);
        return emit_slow(b, i, category, kind, payload, bytes);
    }
    write_slot(r->wdata + (head & r->mask), slot_word(total, category, kind), payload, bytes);
    r->head.store(end, std::memory_order_release);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    r->limit.store(limit, std::memory_order_relaxed);
    return ROCPROFILER_STATUS_SUCCESS;
}

// ---- buffers --------------------------------------------------------------------------------------

bool buffer_context(rocprofiler_buffer_id_t id, rocprofiler_context_id_t& out) noexcept {
    const std::uint64_t i = id.handle - 1;
    if (i >= g_buffer_count.load(std::memory_order_acquire)) return false;
    if (g_buffers[i].state.load(std::memory_order_acquire) != 1) return false;
    out = g_buffers[i].context;
    return true;
}

rocprofiler_status_t create_buffer(rocprofiler_context_id_t context, std::size_t size, std::size_t watermark,
                                   rocprofiler_buffer_policy_t policy, rocprofiler_buffer_tracing_cb_t callback,
                                   void* callback_data, rocprofiler_buffer_id_t* out) noexcept {
    if (!configuration_open()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    if (find_context(context) == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    int policy_bits;
    std::memcpy(&policy_bits, &policy, sizeof policy_bits);  // a C caller may pass any int
    if (callback == nullptr || out == nullptr || size == 0 || watermark > size || size > max_ring_bytes ||
        (policy_bits != ROCPROFILER_BUFFER_POLICY_DISCARD && policy_bits != ROCPROFILER_BUFFER_POLICY_LOSSLESS))
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard lk(g_mutex);
    const std::size_t n = g_buffer_count.load(std::memory_order_relaxed);
    if (n >= max_buffers) return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    if (g_thread_count.load(std::memory_order_relaxed) == 0 && make_thread() == nullptr)
        return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    buffer& b = g_buffers[n];
    b.generation = ++g_generation;
    b.ring_bytes = std::bit_ceil(std::max(size, min_ring_bytes));
    b.watermark = watermark;
    b.policy = policy;
    b.context = context;
    b.callback = callback;
    b.callback_data = callback_data;
    b.pending_drops.store(0, std::memory_order_relaxed);
    b.ring_count.store(0, std::memory_order_relaxed);
    b.written.store(0, std::memory_order_relaxed);
    b.consumed.store(0, std::memory_order_relaxed);
    b.thread.store(g_threads[0], std::memory_order_relaxed);
    b.state.store(1, std::memory_order_release);
    g_buffer_count.store(n + 1, std::memory_order_release);
    out->handle = n + 1;
    return ROCPROFILER_STATUS_SUCCESS;
}

namespace {
buffer* live_buffer(rocprofiler_buffer_id_t id) noexcept {
    const std::uint64_t i = id.handle - 1;
    if (i >= g_buffer_count.load(std::memory_order_acquire)) return nullptr;
    buffer& b = g_buffers[i];
    return b.state.load(std::memory_order_acquire) == 1 ? &b : nullptr;
}

// Delivers what `b` holds now and waits for it (on b's callback thread; inline when called there).
// BUFFER_BUSY where the wait would never end (waits_for_me: b's callback thread waits for this
// one, directly or through others, or is blocked on a resource this thread holds); the request
// stays, and b's callback thread completes it on its next pass.
rocprofiler_status_t flush(buffer& b) noexcept {
    if (t_delivering == &b) return ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
    callback_thread* const t = b.thread.load(std::memory_order_acquire);
    if (t == nullptr) return ROCPROFILER_STATUS_ERROR;
    if (t_callback_thread == t) {
        // From another buffer's callback on this thread: that callback's batch lives in t's
        // vectors, so this drain gets vectors of its own (a swap keeps the batch's memory alive).
        std::vector<rocprofiler_record_header_t> headers;
        std::vector<rocprofiler_record_header_t*> pointers;
        std::swap(headers, t->headers);
        std::swap(pointers, t->pointers);
        drain_buffer(*t, b);
        std::swap(headers, t->headers);
        std::swap(pointers, t->pointers);
        return ROCPROFILER_STATUS_SUCCESS;
    }
    const std::uint64_t mine = b.flush_requested.fetch_add(1, std::memory_order_acq_rel) + 1;
    wake(t);
    const waiting_for marked(t);
    for (std::uint64_t done = b.flush_done.load(std::memory_order_seq_cst); done < mine;
         done = b.flush_done.load(std::memory_order_seq_cst)) {
        if (waits_for_me(t)) return ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
        wait_change(b.flush_done, done);
    }
    return ROCPROFILER_STATUS_SUCCESS;
}

void release_rings(buffer& b) noexcept {
    // The memory goes back to the system; the mapping and the ring stay, so a producer that read
    // the buffer as live just before destroy writes into zero pages instead of freed memory.
    for (ring* r = b.rings.load(std::memory_order_acquire); r != nullptr; r = r->next)
        ::madvise(r->data, r->capacity, MADV_DONTNEED);
}
// Records a DISCARD buffer dropped after its last delivery: their count rides on the next
// delivery, and a callback always gets at least one record (the reference's guarantee), so when
// no record follows the count has no way to the tool. Said on stderr instead of lost unsaid.
// Called where no pass is reading b, or after a flush (the relaxed loads may then miss drops
// that raced with it, never report any twice).
void warn_undelivered_drops(const buffer& b) noexcept {
    std::uint64_t n = b.pending_drops.load(std::memory_order_relaxed) + b.lost.load(std::memory_order_relaxed);
    for (const ring* r = b.rings.load(std::memory_order_acquire); r != nullptr; r = r->next)
        n += r->dropped.load(std::memory_order_relaxed);
    if (n != 0)
        warn("buffer %llu (context %llu): %llu dropped records were never reported to its callback (a drop count "
             "goes with the next delivery, and no record followed them)",
             static_cast<unsigned long long>(&b - g_buffers + 1), static_cast<unsigned long long>(b.context.handle),
             static_cast<unsigned long long>(n));
}
}  // namespace

void warn_undelivered_drops() noexcept {
    const std::size_t n = g_buffer_count.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i)
        if (g_buffers[i].state.load(std::memory_order_acquire) == 1) warn_undelivered_drops(g_buffers[i]);
}

rocprofiler_status_t flush_buffer(rocprofiler_buffer_id_t id) noexcept {
    buffer* b = live_buffer(id);
    if (b == nullptr) return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    return flush(*b);
}

namespace {
// Records still in b's rings (written after the last pass read them), counted slot by slot.
// Called where no pass reads b any more.
std::uint64_t records_left(const buffer& b) noexcept {
    std::uint64_t n = 0;
    for (const ring* r = b.rings.load(std::memory_order_acquire); r != nullptr; r = r->next) {
        const std::uint64_t head = r->head.load(std::memory_order_acquire);
        for (std::uint64_t pos = r->tail.load(std::memory_order_relaxed); pos != head;) {
            const auto* s = reinterpret_cast<const slot_header*>(r->data + (pos & (r->capacity - 1)));
            if (s->bytes == 0) break;  // never written (a ring reset by fork); defensive
            if (s->category != padding_category) ++n;
            pos += s->bytes;
        }
    }
    return n;
}

// Ends b: records written from now on get BUFFER_NOT_FOUND (producers blocked on its full rings
// wake and drop), what its rings hold is delivered (a flush while it is closing), then a pass that
// may still read it is waited out (unless that pass waits for this thread: then b's memory stays,
// unreleased). What no delivery carried is said on stderr: drops, and records that a writer which
// saw b live just before the close published after the last pass (or everything, where the flush
// could not be waited for). False if b was not live.
bool close_buffer(buffer& b) noexcept {
    {
        std::lock_guard lk(g_mutex);
        int live = 1;
        if (!b.state.compare_exchange_strong(live, 3, std::memory_order_seq_cst)) return false;
    }
    for (ring* r = b.rings.load(std::memory_order_acquire); r != nullptr; r = r->next) r->tail.notify_all();
    (void)flush(b);
    std::lock_guard lk(g_mutex);
    b.state.store(2, std::memory_order_seq_cst);
    // A pass that read b as live before the change may still be reading its rings: wait it out
    // (passes begun after it skip b). On b's own callback thread no pass is running.
    bool quiet = true;
    if (callback_thread* t = b.thread.load(std::memory_order_acquire); t != nullptr && t_callback_thread != t) {
        const std::uint64_t begun = t->pass_begin.load(std::memory_order_seq_cst);
        const waiting_for marked(t);
        for (std::uint64_t ended = t->pass_end.load(std::memory_order_seq_cst); ended < begun;
             ended = t->pass_end.load(std::memory_order_seq_cst)) {
            if (waits_for_me(t)) {
                quiet = false;
                break;
            }
            wait_change(t->pass_end, ended);
        }
    }
    warn_undelivered_drops(b);
    if (!quiet) return true;
    if (const std::uint64_t n = records_left(b); n != 0)
        warn("buffer %llu (context %llu): %llu records were never delivered (written as it was destroyed or "
             "finalized, or its last delivery could not be waited for)",
             static_cast<unsigned long long>(&b - g_buffers + 1), static_cast<unsigned long long>(b.context.handle),
             static_cast<unsigned long long>(n));
    release_rings(b);
    return true;
}
}  // namespace

rocprofiler_status_t destroy_buffer(rocprofiler_buffer_id_t id) noexcept {
    buffer* b = live_buffer(id);
    if (b == nullptr) return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    if (t_delivering == b) return ROCPROFILER_STATUS_ERROR_BUFFER_BUSY;
    // A flush first, only to refuse (BUFFER_BUSY, b left live) where it cannot be waited for.
    if (const auto st = flush(*b); st != ROCPROFILER_STATUS_SUCCESS) return st;
    return close_buffer(*b) ? ROCPROFILER_STATUS_SUCCESS : ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
}

void close_buffers(std::uint32_t client, bool all) noexcept {
    const std::size_t n = g_buffer_count.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i) {
        buffer& b = g_buffers[i];
        if (b.state.load(std::memory_order_acquire) != 1) continue;
        if (!all) {
            const context* c = find_context(b.context);
            if (c == nullptr || c->client != client) continue;
        }
        (void)close_buffer(b);
    }
}

std::uint64_t set_held_resource(std::uint64_t resource) noexcept { return std::exchange(t_held_resource, resource); }

std::uint64_t set_blocked_on(std::uint64_t resource) noexcept {
    callback_thread* const self = t_callback_thread;
    if (self == nullptr) return 0;
    return self->blocked_on.exchange(resource, std::memory_order_seq_cst);
}

void flush_all_buffers() noexcept {
    const std::size_t n = g_buffer_count.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i)
        if (g_buffers[i].state.load(std::memory_order_acquire) == 1) (void)flush(g_buffers[i]);
}

// ---- callback threads -------------------------------------------------------------------------

rocprofiler_status_t create_callback_thread(rocprofiler_callback_thread_t* out) noexcept {
    if (out == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!configuration_open()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    std::lock_guard lk(g_mutex);
    // The default thread first, so created ones are numbered from 1 (handle 0 is no thread).
    if (g_thread_count.load(std::memory_order_relaxed) == 0 && make_thread() == nullptr)
        return ROCPROFILER_STATUS_ERROR;
    if (make_thread() == nullptr) return ROCPROFILER_STATUS_ERROR;
    out->handle = g_thread_count.load(std::memory_order_relaxed) - 1;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t assign_callback_thread(rocprofiler_buffer_id_t id, rocprofiler_callback_thread_t th) noexcept {
    if (!configuration_open()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    buffer* b = live_buffer(id);
    if (b == nullptr) return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    if (th.handle == 0 || th.handle >= g_thread_count.load(std::memory_order_acquire))
        return ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND;
    callback_thread* const to = g_threads[th.handle];
    if (b->thread.load(std::memory_order_acquire) == to) return ROCPROFILER_STATUS_SUCCESS;
    // What the old thread owes is delivered there first, so one thread at a time drains b.
    if (const auto st = flush(*b); st != ROCPROFILER_STATUS_SUCCESS) return st;
    std::lock_guard lk(g_mutex);
    b->thread.store(to, std::memory_order_release);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t at_internal_thread_create(rocprofiler_internal_thread_library_cb_t pre,
                                               rocprofiler_internal_thread_library_cb_t post, int libs,
                                               void* data) noexcept {
    std::lock_guard lk(g_mutex);
    try {
        hooks().push_back(thread_hooks{pre, post, libs, data});
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    return ROCPROFILER_STATUS_SUCCESS;
}

void buffers_reset_for_testing() noexcept {
    flush_all_buffers();
    std::lock_guard lk(g_mutex);
    const std::size_t n = g_buffer_count.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < n; ++i) {
        buffer& b = g_buffers[i];
        b.state.store(0, std::memory_order_release);
        // Rings are not freed: a thread may still cache one (limit 0 sends its next record to
        // the slow path, where its generation tells it apart). They stay reachable from a list
        // that lives as long as the process.
        release_rings(b);
        for (ring* r = b.rings.load(std::memory_order_relaxed); r != nullptr; r = r->next)
            r->limit.store(0, std::memory_order_relaxed);
        static auto* retired = new std::vector<ring*>();
        for (ring* r = b.rings.exchange(nullptr, std::memory_order_acq_rel); r != nullptr; r = r->next) {
            try {
                retired->push_back(r);
            } catch (...) {
                // No memory to keep it listed: it is only unreachable, not freed.
            }
        }
        b.flush_requested.store(0, std::memory_order_relaxed);
        b.flush_done.store(0, std::memory_order_relaxed);
        b.pending_drops.store(0, std::memory_order_relaxed);
    }
    g_buffer_count.store(0, std::memory_order_release);
    hooks().clear();
}

}  // namespace encore::core
