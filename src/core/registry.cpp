// src/core/registry.cpp — contexts, callback services, subscriber masks, correlation ids and
// the ENTER/EXIT dispatch of traced calls. All mutable tracing state of encore lives here.
#include "registry.hpp"
#include "core_lock.hpp"
#include "tool_table.hpp"
#include "warn.hpp"

#include <encore/tracing/tool.hpp>

#include <encore/tracing/detail/core.hpp>
#include <encore/tracing/kinds.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

// GCC says ASan with __SANITIZE_ADDRESS__, clang (the fuzz build) with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#    define ENCORE_LSAN 1
#elif defined(__has_feature)
#    if __has_feature(address_sanitizer)
#        define ENCORE_LSAN 1
#    endif
#endif
#ifdef ENCORE_LSAN
#    include <sanitizer/lsan_interface.h>
#else
#    define ENCORE_LSAN 0
#endif

#include <algorithm>
#include <cstddef>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

namespace encore::tracing::detail {
std::atomic<std::uint64_t> subscribers[kind_count][max_ops_per_kind];
callback_slot slots[kind_count][max_contexts];
std::atomic<std::uint64_t> request_contexts{0};
std::atomic<std::uint64_t> subscriptions_generation{0};
namespace in_core {
// Hidden names of the three objects above (core.hpp). A misspelt target fails to link.
extern std::atomic<std::uint64_t> subscribers[kind_count][max_ops_per_kind]
    __attribute__((alias("_ZN6encore7tracing6detail11subscribersE")));
extern callback_slot slots[kind_count][max_contexts] __attribute__((alias("_ZN6encore7tracing6detail5slotsE")));
extern std::atomic<std::uint64_t> request_contexts __attribute__((alias("_ZN6encore7tracing6detail16request_contextsE")));
}  // namespace in_core
__attribute__((tls_model("initial-exec"))) constinit thread_local thread_fast* t_thread = nullptr;
}  // namespace encore::tracing::detail

namespace encore::tracing::detail {
void guarded_read_after_fork_child() noexcept;  // guarded_read.cpp
}

namespace encore::core {

namespace {

using tracing::detail::subscribers;

context g_contexts[max_contexts];
// Number of contexts created; a context id is its index. Release-incremented after the context
// is set up so readers that see the count see the context.
std::atomic<std::uint32_t> g_context_count{0};
// Serializes configuration and context start/stop. Never taken on the traced path.
std::mutex g_mutex;
std::atomic<bool> g_config_open{false};
std::uint32_t g_config_client = 0;  // guarded by g_mutex / single initializing thread
// Bumped (under g_mutex) by whatever may change configured_operations while configuration is
// closed, or opens it: kind_configured's cached answers of older generations are recomputed.
std::atomic<std::uint64_t> g_config_generation{1};

// ---- per-thread state -----------------------------------------------------------------------

// Internal correlation ids are handed to threads in blocks so that a traced call takes no
// shared atomic: ids are unique process-wide and increase along each thread.
constexpr std::uint64_t id_block = 1u << 12;
std::atomic<std::uint64_t> g_next_id_block{1};

constexpr std::uint32_t max_internal_services = 2;  // per kind of a context (service_set)

// An internal service's user_data, kept per thread: the record's own user_data is the tool's (it
// may write it at ENTER and read it at EXIT). An entry lives from a call's ENTER to its EXIT,
// found again by (context, service, internal correlation id); nesting is bounded by max_nesting,
// so the stack only fills if EXITs go missing (a thread that unwound through a traced call):
// then its older half is forgotten. A signal handler's traced call may interrupt enter or take
// on the same thread: each leaves the stack as it found it, so enter claims its slot before
// filling it (the handler's entries go above it) and take copies the value out before the entry
// is removed (the signal fences keep the compiler from reordering across those points).
struct internal_user_data {
    struct entry {
        std::uint64_t key, id;
        rocprofiler_user_data_t value;
    };
    static constexpr std::uint32_t capacity = 128;
    entry stack[capacity];
    std::uint32_t depth = 0;

    static std::uint64_t key_of(const rocprofiler_callback_tracing_record_t& r, std::uint32_t service) noexcept {
        return r.context_id.handle * max_internal_services + service;
    }
    // ENTER: a slot for the value, found again by take at EXIT.
    rocprofiler_user_data_t* enter(const rocprofiler_callback_tracing_record_t& r, std::uint32_t service) noexcept {
        if (depth == capacity) {
            static warn_once lost;
            lost("a traced call's EXIT never came: a buffer record's start time is lost");
            std::copy(stack + capacity / 2, stack + capacity, stack);
            depth = capacity / 2;
        }
        const std::uint32_t d = depth;
        depth = d + 1;
        std::atomic_signal_fence(std::memory_order_seq_cst);
        stack[d] = {key_of(r, service), r.correlation_id.internal, {}};
        return &stack[d].value;
    }
    // EXIT (or a record without phases): the value ENTER left, 0 if none; the entry is removed.
    rocprofiler_user_data_t take(const rocprofiler_callback_tracing_record_t& r, std::uint32_t service) noexcept {
        rocprofiler_user_data_t out{};
        if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return out;
        const std::uint64_t key = key_of(r, service);
        for (std::uint32_t i = depth; i-- > 0;)
            if (stack[i].key == key && stack[i].id == r.correlation_id.internal) {
                out = stack[i].value;
                std::copy(stack + i + 1, stack + depth, stack + i);
                std::atomic_signal_fence(std::memory_order_seq_cst);
                --depth;
                break;
            }
        return out;
    }
};

// A thread's state: the fast part the inlined traced path reads (first, so a thread_fast* is a
// thread_state*), then the external correlation stacks and the internal services' user_data.
// Pushes may come from other threads (the API takes a thread id), so the stacks are guarded;
// fast.top mirrors each stack's top. A state a push made for a thread that has not made a traced
// call yet is "unattached": nothing runs when that thread exits, so the state must know its
// thread (task_fd) to be found stale.
//
// A thread attaches (its first traced call) without a lock and without malloc: a signal handler's
// traced call may be the thread's first, or interrupt the thread inside malloc or inside this
// file's locks (issue 40 item 9: a handler that attached under the thread map's lock while the
// interrupted code held it waited for itself). States are mapped pages, published on a lock-free
// list (g_pending) that whoever takes the thread map's lock next moves into the map.
struct thread_state {
    tracing::detail::thread_fast fast{};
    std::mutex mutex;
    std::vector<rocprofiler_user_data_t> stacks[max_contexts];
    internal_user_data internal;  // this thread's only: no lock
    // Guarded by g_threads_mutex once the state is in the map. A state a push made for another
    // thread is not attached until that thread's first traced call; until then task_fd (or
    // start_time) tells that thread from a later one that reuses its tid.
    bool attached = false;
    int task_fd = -1;                      // an unattached state's handle on its thread (open_task)
    std::uint64_t start_time = 0;          // its start time, where no handle could be had
    thread_state* pending_next = nullptr;  // on g_pending

    thread_state() = default;
    thread_state(const thread_state&) = delete;
    thread_state& operator=(const thread_state&) = delete;
    ~thread_state() {
        if (task_fd >= 0) ::close(task_fd);
    }
};
static_assert(offsetof(thread_state, fast) == 0);

constexpr std::size_t state_bytes = (sizeof(thread_state) + 4095) & ~std::size_t{4095};

// A new state in pages of its own (mmap: async-signal-safe, unlike malloc), or null.
thread_state* new_state(std::uint64_t tid) noexcept {
    void* mem = ::mmap(nullptr, state_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return nullptr;
    auto* s = ::new (mem) thread_state();
    s->fast.tid = tid;
    return s;
}
void free_state(thread_state* s) noexcept {
    s->~thread_state();
    ::munmap(s, state_bytes);
}

// LeakSanitizer does not look into mapped pages, so heap memory reached only from a state (its
// external correlation stacks) would be reported as leaked: what the stacks allocate is made
// invisible to it instead (a sanitizer build only; __lsan_disable is a per-thread count, no lock).
// Registering the pages as roots would take LeakSanitizer's lock in attach, which a signal
// handler's attach can interrupt.
#if ENCORE_LSAN
struct lsan_unseen {
    lsan_unseen() noexcept { __lsan_disable(); }
    ~lsan_unseen() { __lsan_enable(); }
    lsan_unseen(const lsan_unseen&) = delete;
    lsan_unseen& operator=(const lsan_unseen&) = delete;
};
#else
struct lsan_unseen {
    lsan_unseen() noexcept {}  // NOLINT(modernize-use-equals-default): a const local needs it user-provided
};
#endif

// Where a thread goes when not even a page can be had for its state: shared, never destroyed
// (its ids and nesting are then approximate; better than the abort a failed allocation meant).
union no_memory_holder {
    thread_state state;
    no_memory_holder() : state() {}
    ~no_memory_holder() {}
} g_no_memory;
thread_state& g_no_memory_state = g_no_memory.state;

// Guards the map, and every use of a state by a thread other than its own (a push or pop onto
// another thread's stacks holds it throughout, so that thread cannot free its state meanwhile).
std::mutex g_threads_mutex;
std::unordered_map<std::uint64_t, thread_state*>& threads() {
    static auto* m = new std::unordered_map<std::uint64_t, thread_state*>();  // never destroyed: used from thread exit
    return *m;
}
// States attached since the map was last brought up to date (Treiber stack: pushed with a CAS by
// attaching threads, taken whole by drain_pending under g_threads_mutex).
std::atomic<thread_state*> g_pending{nullptr};
// Unattached states in the map (guarded by g_threads_mutex; read without it as a hint by attach).
std::atomic<std::uint32_t> g_unattached{0};

std::uint64_t gettid_now() noexcept { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

// When thread `tid` of this process started (clock ticks since boot, /proc/self/task/<tid>/stat
// field 22), or 0 if it cannot be read (no such thread, /proc not mounted).
std::uint64_t task_start_time(std::uint64_t tid) noexcept {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%llu/stat", static_cast<unsigned long long>(tid));
    std::FILE* f = std::fopen(path, "re");
    if (f == nullptr) return 0;
    char buf[1024];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    // The command name (field 2) may hold spaces and parentheses: fields go on after the last ')'.
    const char* p = std::strrchr(buf, ')');
    if (p == nullptr) return 0;
    for (int field = 2; field < 22 && *p != '\0'; ++p)
        if (*p == ' ') ++field;
    return std::strtoull(p, nullptr, 10);
}

// A handle on thread `tid` itself, not on its number: a /proc/self/task/<tid> directory opened
// now keeps naming that thread, and lookups under it fail once it has exited, even after a new
// thread got the same tid. -1 if it cannot be opened (no fd free, no /proc).
int open_task(std::uint64_t tid) noexcept {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%llu", static_cast<unsigned long long>(tid));
    return ::open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

// Whether the thread a state a push made for has exited (its tid may now be another thread's).
bool pushed_for_exited_thread(const thread_state& st) noexcept {
    if (st.attached) return false;
    if (st.task_fd >= 0) return ::faccessat(st.task_fd, "stat", F_OK, 0) != 0;
    // No handle: the start time tells threads apart unless both started in one clock tick.
    return st.start_time != 0 && task_start_time(st.fast.tid) != st.start_time;
}

// Open task handles (guarded by g_threads_mutex): each costs an fd for as long as its thread
// makes no traced call, so past a bound the states of exited threads are swept first, and past
// it still new ones fall back to the start time.
constexpr std::size_t max_task_handles = 256;
std::size_t g_task_handles = 0;

void drop_task_handle(thread_state& st) noexcept {
    if (st.task_fd < 0) return;
    ::close(st.task_fd);
    st.task_fd = -1;
    --g_task_handles;
}

// An unattached state leaves the map (its entry is erased or replaced by the caller) and is freed.
void forget_unattached(thread_state* st) noexcept {
    drop_task_handle(*st);
    g_unattached.fetch_sub(1, std::memory_order_relaxed);
    free_state(st);
}

void sweep_exited(std::unordered_map<std::uint64_t, thread_state*>& m) noexcept {
    for (auto it = m.begin(); it != m.end();) {
        if (pushed_for_exited_thread(*it->second)) {
            forget_unattached(it->second);
            it = m.erase(it);
        } else {
            ++it;
        }
    }
}

// What pushes made for thread s before its first traced call (`pushed`, found in the map when s
// was drained) goes under what s pushed itself since, each context's stack in order.
void take_pushed(thread_state& s, thread_state& pushed) noexcept {
    std::lock_guard lk(s.mutex);
    for (std::size_t c = 0; c < max_contexts; ++c) {
        auto& from = pushed.stacks[c];
        if (from.empty()) continue;
        auto& to = s.stacks[c];
        try {
            const lsan_unseen unseen;
            to.insert(to.begin(), from.begin(), from.end());
        } catch (...) {
            continue;  // no memory: those ids are lost, the thread's own stay
        }
        s.fast.top[c].store(to.back().value, std::memory_order_release);
    }
}

// Moves the states attached since the last drain into the map (under g_threads_mutex). A state
// a push made for the same thread meanwhile gives it its ids and goes; one for an earlier thread
// with that tid, which exited, just goes.
void drain_pending(std::unordered_map<std::uint64_t, thread_state*>& m) noexcept {
    for (thread_state* s = g_pending.exchange(nullptr, std::memory_order_acquire); s != nullptr;) {
        thread_state* const next = s->pending_next;
        s->pending_next = nullptr;
        if (auto it = m.find(s->fast.tid); it == m.end()) {
            try {
                m.emplace(s->fast.tid, s);
            } catch (...) {
                // No memory for the entry: pushes naming this thread from other threads do not
                // find it; its own calls are unaffected.
            }
        } else if (it->second != s) {
            thread_state* const old = it->second;
            if (!old->attached) {
                if (!pushed_for_exited_thread(*old)) take_pushed(*s, *old);
                forget_unattached(old);
            }
            // (An attached one of the same tid is an exited thread's that its exit hook frees.)
            it->second = s;
        }
        s = next;
    }
}

enum class lookup { find, for_push };

// The state of thread `tid` (another thread's: the caller holds g_threads_mutex throughout its
// use): found, or created for a push before that thread's first traced call. A state a push made
// for a thread that has since exited without a traced call is dropped when found, so a later
// thread with the same tid starts clean. Null when none (find) or out of memory.
thread_state* state_for_tid(std::uint64_t tid, lookup how) noexcept {
    auto& m = threads();
    drain_pending(m);
    if (auto it = m.find(tid); it != m.end()) {
        if (!pushed_for_exited_thread(*it->second)) return it->second;
        forget_unattached(it->second);
        m.erase(it);
    }
    if (how == lookup::find) return nullptr;
    thread_state* s = new_state(tid);
    if (s == nullptr) return nullptr;
    if (g_task_handles >= max_task_handles) sweep_exited(m);
    if (g_task_handles < max_task_handles) s->task_fd = open_task(tid);
    if (s->task_fd >= 0)
        ++g_task_handles;
    else
        s->start_time = task_start_time(tid);
    try {
        m.emplace(tid, s);
    } catch (...) {
        drop_task_handle(*s);
        free_state(s);
        return nullptr;
    }
    g_unattached.fetch_add(1, std::memory_order_relaxed);
    return s;
}

// A thread's exit hook: a pthread key destructor, so the thread's C++ thread_local destructors
// (the program's, a runtime's: they make HSA/HIP calls) trace with the state still in place
// (glibc runs key destructors after them; exit_safe_local.hpp). A traced call after it (a later
// key destructor, a signal handler) attaches the thread again, and glibc's next round frees that
// state too. The main thread's state lives until the process ends (no key destructors at exit()).
void detach_state(void* p) noexcept {
    auto* const s = static_cast<thread_state*>(p);
    {
        const counted_lock lk(g_threads_mutex);
        auto& m = threads();
        drain_pending(m);
        // Erase only our own entry: the tid may already name a newer thread's state.
        if (auto it = m.find(s->fast.tid); it != m.end() && it->second == s) m.erase(it);
    }
    if (tracing::detail::t_thread == &s->fast) tracing::detail::t_thread = nullptr;
    std::atomic_signal_fence(std::memory_order_seq_cst);  // a handler from here on attaches anew
    free_state(s);
}
// Made at load, before any traced call can need it: a key made later (on first use) could be
// made inside a signal handler, and one past the first 32 makes pthread_setspecific allocate.
struct exit_hook {
    pthread_key_t key{};
    bool ok = false;
    exit_hook() noexcept { ok = ::pthread_key_create(&key, &detach_state) == 0; }
} g_exit_hook;

// A state another thread's push made for this thread before its first traced call, adopted so
// that the call sees those ids at once. Needs the map, so only when such states exist and its
// lock is free: never waited for (the code a signal handler interrupted may hold it). Otherwise
// drain_pending merges the two later. unordered_map::find does not allocate.
thread_state* adopt_pushed(std::uint64_t tid) noexcept {
    if (g_unattached.load(std::memory_order_relaxed) == 0) return nullptr;
    ++t_core_locks;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    thread_state* found = nullptr;
    if (g_threads_mutex.try_lock()) {
        auto& m = threads();
        // Only a handle proves the state is this thread's (the start-time check reads /proc with
        // stdio, which a signal handler must not).
        if (auto it = m.find(tid); it != m.end() && !it->second->attached && it->second->task_fd >= 0 &&
                                   ::faccessat(it->second->task_fd, "stat", F_OK, 0) == 0) {
            found = it->second;
            found->attached = true;
            drop_task_handle(*found);
            g_unattached.fetch_sub(1, std::memory_order_relaxed);
        }
        g_threads_mutex.unlock();
    }
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --t_core_locks;
    return found;
}

// This thread's state, made on its first traced call (or adopted from a push). Async-signal-safe:
// no malloc, no lock waited for (pthread_setspecific of a key made at load does not allocate).
[[gnu::noinline]] thread_state* attach_self() noexcept {
    const std::uint64_t tid = gettid_now();
    thread_state* s = adopt_pushed(tid);
    if (s == nullptr) {
        s = new_state(tid);
        if (s == nullptr) {
            tracing::detail::t_thread = &g_no_memory_state.fast;
            return &g_no_memory_state;
        }
        s->attached = true;
        thread_state* head = g_pending.load(std::memory_order_relaxed);
        do {
            s->pending_next = head;
        } while (!g_pending.compare_exchange_weak(head, s, std::memory_order_release, std::memory_order_relaxed));
    }
    // No key (out of keys at load): the state is never freed.
    if (g_exit_hook.ok) ::pthread_setspecific(g_exit_hook.key, s);
    tracing::detail::t_thread = &s->fast;
    return s;
}

// This thread's state. Valid on this thread until its exit hook runs.
thread_state* self() noexcept {
    if (tracing::detail::t_thread != nullptr) [[likely]]
        return reinterpret_cast<thread_state*>(tracing::detail::t_thread);
    return attach_self();
}

// fork(): the child has one thread, a copy of the forking one. A lock another thread held at the
// fork would stay locked in the child for good, so every lock of the configuration and thread
// paths is taken around the fork (outermost first: the order their users nest them in), and
// the child's thread gets its own tid in its records and in the thread map.
void fork_prepare() noexcept {
    lock_registration_for_fork();
    ++t_core_locks;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    g_mutex.lock();
    g_threads_mutex.lock();
    lock_warnings_for_fork();
}

void fork_parent() noexcept {
    unlock_warnings_after_fork();
    g_threads_mutex.unlock();
    g_mutex.unlock();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --t_core_locks;
    unlock_registration_after_fork();
}

// In the child every lock is made anew rather than unlocked: only this thread exists, and a
// lock that records its owner (the recursive registration lock) names the parent's tid.
void fork_child() noexcept {
    reset_warnings_lock_in_child();
    tracing::detail::guarded_read_after_fork_child();
    auto& m = threads();
    thread_state* const mine = tracing::detail::t_thread != nullptr && tracing::detail::t_thread != &g_no_memory_state.fast
                                   ? reinterpret_cast<thread_state*>(tracing::detail::t_thread)
                                   : nullptr;
    // The other threads' states (in the map, or attached since the last drain) name threads that
    // do not exist here; their locks may be held for good. Never freed (a leak per fork), so no
    // locked mutex is destroyed.
    g_pending.store(nullptr, std::memory_order_relaxed);
    m.clear();
    g_task_handles = 0;  // the orphans' stay open, uncounted
    g_unattached.store(0, std::memory_order_relaxed);
    if (mine != nullptr) {
        // Its stack lock may have been held by a pusher on another thread at the fork.
        ::new (&mine->mutex) std::mutex();
        mine->fast.tid = gettid_now();
        mine->start_time = 0;
        mine->pending_next = nullptr;
        try {
            m.emplace(mine->fast.tid, mine);
        } catch (...) {
            // The state stays this thread's (t_thread); pushes naming the tid find it through self().
        }
    }
    ::new (&g_threads_mutex) std::mutex();
    ::new (&g_mutex) std::mutex();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --t_core_locks;  // taken in fork_prepare, in the parent's copy of this thread
    reset_registration_lock_in_child();
}

[[gnu::constructor]] void install_fork_handlers() { ::pthread_atfork(&fork_prepare, &fork_parent, &fork_child); }

bool thread_exists(std::uint64_t tid) noexcept {
    if (tid == 0 || tid > static_cast<std::uint64_t>(INT32_MAX)) return false;
    const std::string path = "/proc/self/task/" + std::to_string(tid);
    return ::access(path.c_str(), F_OK) == 0;
}

// Brackets a change of subscriber masks for seqlock readers (subscriptions_generation, core.hpp):
// odd while the masks change. Held under g_mutex, so writers never overlap.
struct masks_change {
    masks_change() noexcept { tracing::detail::subscriptions_generation.fetch_add(1, std::memory_order_acq_rel); }
    ~masks_change() { tracing::detail::subscriptions_generation.fetch_add(1, std::memory_order_release); }
    masks_change(const masks_change&) = delete;
    masks_change& operator=(const masks_change&) = delete;
};

void set_subscriptions(std::uint32_t c, bool on) noexcept {
    const masks_change change;
    const std::uint64_t bit = std::uint64_t{1} << c;
    const context& ctx = g_contexts[c];
    for (std::size_t k = 0; k < kind_count; ++k) {
        const auto& svc = ctx.services[k];
        if (!svc.configured) continue;
        for (std::size_t o = 0; o < max_ops_per_kind; ++o) {
            if (!svc.ops.test(o)) continue;
            // The subscriber mask, release: the context's slots and services were written
            // before (tracing/detail/core.hpp).
            if (on)
                subscribers[k][o].fetch_or(bit, std::memory_order_release);
            else
                subscribers[k][o].fetch_and(~bit, std::memory_order_release);
        }
    }
}

}  // namespace

// ---- several services on one kind -----------------------------------------------------------

// A tool's callback and internal services on one kind of one context (HIP_RUNTIME_API's buffer
// kinds, plain and _EXT, are two internal services of one source kind).
struct service_set {
    static constexpr std::uint32_t max_internal = max_internal_services;
    tracing::detail::callback_slot tool{};  // unset when the tool has none on the kind
    std::bitset<max_ops_per_kind> tool_ops;
    std::uint32_t internal_count = 0;
    tracing::detail::callback_slot internal[max_internal];
    std::bitset<max_ops_per_kind> internal_ops[max_internal];
};

namespace {

// The slot of a kind with several services. Each sees only its own operations. The internal
// services' work nests inside the tool's: they run after the tool's callback at ENTER and before
// it at EXIT, so their timestamps cover the call, not the tool's callbacks.
void set_call(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t* ud, void* data) {
    const auto& set = *static_cast<const service_set*>(data);
    const auto op = static_cast<std::size_t>(r->operation);
    if (op >= max_ops_per_kind) return;
    // The internal services' user_data is the thread's (thread_state::internal). At EXIT each gets
    // a copy of its value on this frame, which a signal handler's traced call cannot overwrite.
    const auto internal = [&] {
        internal_user_data& ud_of = self()->internal;
        for (std::uint32_t i = 0; i < set.internal_count; ++i) {
            if (!set.internal_ops[i].test(op)) continue;
            if (r->phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
                set.internal[i].invoke(*r, ud_of.enter(*r, i));
            } else {
                rocprofiler_user_data_t v = ud_of.take(*r, i);
                set.internal[i].invoke(*r, &v);
            }
        }
    };
    const bool tool = set.tool.set() && set.tool_ops.test(op);
    if (r->phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        internal();
        if (tool) set.tool.call(*r, ud);
    } else {
        if (tool) set.tool.call(*r, ud);
        internal();
    }
}

// Whether a kind may take one more service of `owner`: one tool callback, two internal services.
bool has_room(const callback_service& svc, service_owner owner) noexcept {
    if (!svc.configured) return true;
    const bool tool = owner == service_owner::tool;
    if (svc.set == nullptr) return !tool || svc.owner != service_owner::tool;
    return tool ? !svc.set->tool.set() : svc.set->internal_count < service_set::max_internal;
}

// Adds `cb` (subscribed to `ops`, of `owner`, which has_room allowed) to a kind that has a
// service already: the slot becomes the set's. False when out of memory.
bool add_to_set(callback_service& svc, tracing::detail::callback_slot& slot, tracing::detail::callback_slot cb,
                const std::bitset<max_ops_per_kind>& ops, service_owner owner) noexcept {
    if (svc.set == nullptr) {
        auto* set = new (std::nothrow) service_set{};
        if (set == nullptr) return false;
        if (svc.owner == service_owner::tool) {
            set->tool = slot;
            set->tool_ops = svc.ops;
        } else {
            set->internal[0] = slot;
            set->internal_ops[0] = svc.ops;
            set->internal_count = 1;
        }
        svc.set = set;
    }
    service_set& set = *svc.set;
    if (owner == service_owner::tool) {
        set.tool = cb;
        set.tool_ops = ops;
    } else {
        set.internal[set.internal_count] = cb;
        set.internal_ops[set.internal_count++] = ops;
    }
    svc.ops |= ops;
    // Written before the context's new bits are published (below, or at its start).
    slot = {nullptr, &set_call, &set};
    return true;
}

}  // namespace

// ---- configuration --------------------------------------------------------------------------

bool configuration_open() noexcept { return g_config_open.load(std::memory_order_acquire); }

void set_configuration_open(bool open, std::uint32_t client) noexcept {
    const counted_lock lk(g_mutex);
    g_config_client = client;
    g_config_open.store(open, std::memory_order_release);
    g_config_generation.fetch_add(1, std::memory_order_acq_rel);
}

bool kind_configured(kind k) noexcept {
    const auto ki = static_cast<std::size_t>(k);
    if (ki >= kind_count) return false;
    // generation << 1 | answer, per kind; 0: never computed.
    static std::atomic<std::uint64_t> cached[kind_count];
    const std::uint64_t generation = g_config_generation.load(std::memory_order_acquire);
    const std::uint64_t c = cached[ki].load(std::memory_order_acquire);
    if (c >> 1 == generation && !configuration_open()) return (c & 1) != 0;
    // The generation is read before the answer is computed: a change in between bumps it, and the
    // stored pair is older than the next reader's generation (recomputed then).
    const bool any = configured_operations(k).any();
    cached[ki].store(generation << 1 | (any ? 1 : 0), std::memory_order_release);
    return any;
}

context* find_context(rocprofiler_context_id_t id) noexcept {
    if (id.handle >= g_context_count.load(std::memory_order_acquire)) return nullptr;
    return &g_contexts[id.handle];
}

rocprofiler_status_t create_context(rocprofiler_context_id_t* out) noexcept {
    if (out == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    const counted_lock lk(g_mutex);
    if (!g_config_open.load(std::memory_order_relaxed)) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    const auto n = g_context_count.load(std::memory_order_relaxed);
    if (n >= max_contexts) return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    context& c = g_contexts[n];
    c.client = g_config_client;
    c.valid.store(true, std::memory_order_relaxed);
    g_context_count.store(n + 1, std::memory_order_release);
    out->handle = n;
    return ROCPROFILER_STATUS_SUCCESS;
}

// Async-signal-safe apart from one case (docs/c-api.md, "Signal handlers"): a signal handler that
// interrupted its thread inside one of libencore's counted locks (core_lock.hpp) gets
// CONTEXT_ERROR instead of waiting for g_mutex, which that code may hold or be waiting behind (a
// handler toggling tracing on a timer deadlocked here: issue 40 item 11). Otherwise the lock is
// free or held by another thread for a few stores, and the rest is atomics.
rocprofiler_status_t start_context(rocprofiler_context_id_t id) noexcept {
    if (t_core_locks != 0) return ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;
    const counted_lock lk(g_mutex);
    context* c = find_context(id);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (!c->valid.load(std::memory_order_relaxed)) return ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID;
    if (c->active.load(std::memory_order_relaxed)) return ROCPROFILER_STATUS_SUCCESS;
    c->active.store(true, std::memory_order_relaxed);
    set_subscriptions(static_cast<std::uint32_t>(id.handle), true);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t stop_context(rocprofiler_context_id_t id) noexcept {
    if (t_core_locks != 0) return ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;  // as start_context
    const counted_lock lk(g_mutex);
    context* c = find_context(id);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (!c->active.load(std::memory_order_relaxed)) return ROCPROFILER_STATUS_SUCCESS;
    set_subscriptions(static_cast<std::uint32_t>(id.handle), false);
    c->active.store(false, std::memory_order_relaxed);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t configure_callback_service(rocprofiler_context_id_t id, rocprofiler_callback_tracing_kind_t k,
                                                const rocprofiler_tracing_operation_t* ops, unsigned long count,
                                                tracing::detail::callback_slot cb, service_owner owner) noexcept {
    const counted_lock lk(g_mutex);
    if (!g_config_open.load(std::memory_order_relaxed)) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    context* c = find_context(id);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    const kind_info* info = find_kind(k);
    if (info == nullptr) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (!cb.set() || (ops != nullptr && count == 0)) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    // Every valid kind configures, produced in this process or not (the reference's rule): a tool
    // that stops on any error status must start. What nothing produced is said at finalization
    // (warn_unproduced_kinds).
    auto& svc = c->services[static_cast<std::size_t>(k)];
    if (!has_room(svc, owner)) return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
    // Kernel replay serializes the agent and owns its memory for the loop: one context per
    // process may drive it (the seed's rule).
    // Range replay likewise: a range runs one plan (one pass count, one user_data).
    if (k == ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY || k == ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY) {
        const auto n = g_context_count.load(std::memory_order_relaxed);
        for (std::uint32_t j = 0; j < n; ++j)
            if (g_contexts[j].services[static_cast<std::size_t>(k)].configured)
                return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
    }
    std::bitset<max_ops_per_kind> selected;
    // A kind whose operations this process does not know (a backend that registers them when it
    // loads, or no operations in encore yet) takes any id below the table bound, as the
    // reference checks only its bound: the operations a backend registers later then fire.
    const bool ops_known = info->op_count != 0;
    const auto first = ops_known ? info->first_op : op_id{0};
    const auto last = ops_known ? first + static_cast<op_id>(info->op_count) : static_cast<op_id>(max_ops_per_kind);
    if (ops == nullptr) {
        for (op_id o = first; o < last; ++o) selected.set(static_cast<std::size_t>(o));
    } else {
        for (unsigned long i = 0; i < count; ++i) {
            if (ops[i] < first || ops[i] >= last) return ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
            selected.set(static_cast<std::size_t>(ops[i]));
        }
    }
    auto& slot = tracing::detail::slots[static_cast<std::size_t>(k)][id.handle];
    if (svc.configured) {
        if (!add_to_set(svc, slot, cb, selected, owner)) return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    } else {
        svc.ops = selected;
        svc.configured = true;
        svc.owner = owner;
        slot = cb;
    }
    // A context started before this service was added must subscribe it too.
    if (c->active.load(std::memory_order_relaxed)) {
        const masks_change change;
        const std::uint64_t bit = std::uint64_t{1} << id.handle;
        for (std::size_t o = 0; o < max_ops_per_kind; ++o)
            if (selected.test(o)) subscribers[static_cast<std::size_t>(k)][o].fetch_or(bit, std::memory_order_release);
    }
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t configure_external_request(rocprofiler_context_id_t id,
                                                const rocprofiler_external_correlation_id_request_kind_t* kinds,
                                                unsigned long count, rocprofiler_external_correlation_id_request_cb_t cb,
                                                void* data) noexcept {
    const counted_lock lk(g_mutex);
    if (!g_config_open.load(std::memory_order_relaxed)) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    context* c = find_context(id);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (cb == nullptr || (kinds != nullptr && count == 0)) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (c->external_request.configured) return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
    std::bitset<ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST> selected;
    if (kinds == nullptr) {
        selected.set();
        selected.reset(ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE);
    } else {
        for (unsigned long i = 0; i < count; ++i) {
            if (kinds[i] <= ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE ||
                kinds[i] >= ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST)
                return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
            selected.set(static_cast<std::size_t>(kinds[i]));
        }
    }
    c->external_request.kinds = selected;
    c->external_request.callback = cb;
    c->external_request.data = data;
    c->external_request.configured = true;
    tracing::detail::request_contexts.fetch_or(std::uint64_t{1} << id.handle, std::memory_order_release);
    return ROCPROFILER_STATUS_SUCCESS;
}

void invalidate_client_contexts(std::uint32_t client) noexcept {
    const counted_lock lk(g_mutex);
    const auto n = g_context_count.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n; ++i) {
        context& c = g_contexts[i];
        if (c.client != client) continue;
        if (c.active.load(std::memory_order_relaxed)) set_subscriptions(i, false);
        c.active.store(false, std::memory_order_relaxed);
        c.valid.store(false, std::memory_order_relaxed);
    }
    g_config_generation.fetch_add(1, std::memory_order_acq_rel);
}

std::bitset<kind_count> configured_kinds() noexcept {
    const counted_lock lk(g_mutex);
    std::bitset<kind_count> out;
    const auto n = g_context_count.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::size_t k = 1; k < kind_count; ++k)
            if (g_contexts[i].services[k].configured) out.set(k);
    return out;
}

void stop_all_contexts() noexcept {
    const counted_lock lk(g_mutex);
    const auto n = g_context_count.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n; ++i) {
        if (g_contexts[i].active.load(std::memory_order_relaxed)) set_subscriptions(i, false);
        g_contexts[i].active.store(false, std::memory_order_relaxed);
    }
}

void reset_registry_for_testing() noexcept {
    const counted_lock lk(g_mutex);
    {
        const masks_change change;
        for (auto& row : subscribers)
            for (auto& m : row) m.store(0, std::memory_order_relaxed);
    }
    g_config_generation.fetch_add(1, std::memory_order_acq_rel);
    for (auto& c : g_contexts) {
        c.valid.store(false, std::memory_order_relaxed);
        c.client = 0;
        for (auto& s : c.services) {
            delete s.set;
            s = callback_service{};
        }
        c.external_request = external_request_service{};
    }
    for (auto& row : tracing::detail::slots)
        for (auto& slot : row) slot = {};
    tracing::detail::request_contexts.store(0, std::memory_order_relaxed);
    g_context_count.store(0, std::memory_order_release);
    g_config_open.store(false, std::memory_order_release);
    const counted_lock tl(g_threads_mutex);
    drain_pending(threads());
    for (auto& [tid, ts] : threads()) {
        std::lock_guard sl(ts->mutex);
        for (std::size_t i = 0; i < max_contexts; ++i) {
            ts->stacks[i].clear();
            ts->fast.top[i].store(0, std::memory_order_relaxed);
        }
    }
}

// ---- threads and external correlation ids ------------------------------------------------

std::uint64_t this_thread_id() noexcept { return self()->fast.tid; }

namespace {
rocprofiler_status_t push_onto(thread_state& ts, rocprofiler_context_id_t ctx, rocprofiler_user_data_t v) noexcept {
    std::lock_guard lk(ts.mutex);
    auto& stack = ts.stacks[ctx.handle];
    try {
        const lsan_unseen unseen;
        stack.push_back(v);
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    ts.fast.top[ctx.handle].store(v.value, std::memory_order_release);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t pop_from(thread_state& ts, rocprofiler_context_id_t ctx, rocprofiler_user_data_t* out) noexcept {
    std::lock_guard lk(ts.mutex);
    auto& stack = ts.stacks[ctx.handle];
    if (stack.empty()) return ROCPROFILER_STATUS_ERROR;
    if (out != nullptr) *out = stack.back();
    stack.pop_back();
    ts.fast.top[ctx.handle].store(stack.empty() ? 0 : stack.back().value, std::memory_order_release);
    return ROCPROFILER_STATUS_SUCCESS;
}
}  // namespace

// A push or pop acts on this thread's own state (valid while it runs), or on another thread's
// under g_threads_mutex, which that thread's exit hook takes before it frees its state.
rocprofiler_status_t push_external(rocprofiler_context_id_t ctx, rocprofiler_thread_id_t tid,
                                   rocprofiler_user_data_t v) noexcept {
    if (find_context(ctx) == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    thread_state* const me = self();
    if (tid == me->fast.tid) return push_onto(*me, ctx, v);
    const counted_lock lk(g_threads_mutex);
    thread_state* ts = state_for_tid(tid, lookup::find);
    if (ts == nullptr) {
        if (!thread_exists(tid)) return ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND;
        ts = state_for_tid(tid, lookup::for_push);
        if (ts == nullptr) return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    return push_onto(*ts, ctx, v);
}

rocprofiler_status_t pop_external(rocprofiler_context_id_t ctx, rocprofiler_thread_id_t tid,
                                  rocprofiler_user_data_t* out) noexcept {
    if (find_context(ctx) == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    thread_state* const me = self();
    if (tid == me->fast.tid) return pop_from(*me, ctx, out);
    const counted_lock lk(g_threads_mutex);
    thread_state* const ts = state_for_tid(tid, lookup::find);
    if (ts == nullptr) return thread_exists(tid) ? ROCPROFILER_STATUS_ERROR : ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND;
    return pop_from(*ts, ctx, out);
}

}  // namespace encore::core

// ---- the cold parts of the traced path (the rest is inlined in encore/tracing/wrapper.hpp) ----

namespace encore::tracing::detail {

thread_fast* attach_thread() noexcept { return &core::self()->fast; }

// The tool boundary of every callback (wrapper.hpp, buffer.cpp, replay.hpp, request_external
// below): here, beside the contexts it disables, so that none of its callers calls up into
// registration.cpp (the tools' names come from tool_table.hpp).
void callback_threw(std::uint64_t c, std::uint32_t k) noexcept {
    const core::context* ctx = core::find_context(rocprofiler_context_id_t{c});
    const std::uint32_t client = ctx != nullptr ? ctx->client : 0;
    // Disabled first: whatever happens to the report, no callback of this tool runs again.
    if (ctx != nullptr) core::invalidate_client_contexts(client);
    try {
        if (!core::first_time("callback threw, client " + std::to_string(client))) return;
        const std::string name = core::client_name(client);
        const core::kind_info* info = core::find_kind(static_cast<rocprofiler_callback_tracing_kind_t>(k));
        core::warn("tool %s threw %s from its %s callback (context %llu); its contexts are stopped and disabled, "
                   "the program goes on",
                   name.c_str(), core::current_exception_text().c_str(),
                   info != nullptr && info->name != nullptr ? info->name : "?", static_cast<unsigned long long>(c));
    } catch (...) {
        // No memory for the report: the tool is disabled all the same.
    }
}

void nesting_exceeded() noexcept {
    static core::warn_once deep;
    deep("traced calls nested more than %u deep on one thread (a callback calling what it traces, recursively?): "
         "deeper calls run untraced",
         max_nesting);
}

// next_id before end_id: a signal handler's traced call in between takes an id past the old end
// and a block of its own, so ids stay unique and increase along the thread (blocks only grow).
std::uint64_t refill_ids(thread_fast* t) noexcept {
    const auto block = core::g_next_id_block.fetch_add(1, std::memory_order_relaxed);
    const std::uint64_t first = block * core::id_block;
    t->next_id = first + 1;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    t->end_id = first + core::id_block;
    return first;
}

void enter_many(many_state& s, std::uint64_t mask, thread_fast* t, std::uint64_t kind_op, std::uint64_t internal,
                std::uint64_t ancestor, void* payload) {
    const auto ki = static_cast<std::uint32_t>(kind_op);
    const auto k = static_cast<kind>(ki);
    const auto op = static_cast<op_id>(kind_op >> 32);
    const std::uint64_t with_request = mask & request_contexts.load(std::memory_order_relaxed);
    s.requested = 0;
    for (std::uint64_t m = mask; m != 0; m &= m - 1) {
        const auto c = static_cast<unsigned>(std::countr_zero(m));
        std::uint64_t external = t->top[c].load(std::memory_order_relaxed);
        // Contexts whose external id came from a request callback keep it for EXIT.
        if ((with_request >> c) & 1u) {
            if (request_external(t, c, k, op, internal, external)) {
                s.requested |= std::uint64_t{1} << c;
                s.requested_value[c] = external;
            }
        }
        s.user_data[c].value = 0;
        const callback_slot& slot = slots[ki][c];
        rocprofiler_callback_tracing_record_t record;
        record_init(record, c, t->tid, internal, external, ancestor, kind_op, payload);
        slot.call(record, &s.user_data[c]);
    }
}

void exit_many(many_state& s, std::uint64_t mask, thread_fast* t, std::uint64_t kind_op, std::uint64_t internal,
               std::uint64_t ancestor, void* payload) {
    const auto ki = static_cast<std::uint32_t>(kind_op);
    for (std::uint64_t m = mask; m != 0; m &= m - 1) {
        const auto c = static_cast<unsigned>(std::countr_zero(m));
        // Re-read: a push during ENTER is what EXIT sees (the seed's rule).
        const std::uint64_t external = ((s.requested >> c) & 1u) ? s.requested_value[c]
                                                                 : t->top[c].load(std::memory_order_relaxed);
        const callback_slot& slot = slots[ki][c];
        rocprofiler_callback_tracing_record_t record;
        record_init(record, c, t->tid, internal, external, ancestor, kind_op, payload, ROCPROFILER_CALLBACK_PHASE_EXIT);
        slot.call(record, &s.user_data[c]);
    }
}

bool request_external(thread_fast* t, unsigned c, kind k, op_id op, std::uint64_t internal,
                      std::uint64_t& external) noexcept {
    const core::context& ctx = core::g_contexts[c];
    const auto rk = tracing::request_kind_of(k);
    if (!ctx.external_request.configured || rk == ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE ||
        !ctx.external_request.kinds.test(rk))
        return false;
    rocprofiler_user_data_t v{.value = external};
    try {
        if (ctx.external_request.callback(t->tid, rocprofiler_context_id_t{c}, rk, op, internal, &v,
                                          ctx.external_request.data) != 0)
            return false;
    } catch (...) {
        callback_threw(c, static_cast<std::uint32_t>(k));
        return false;
    }
    external = v.value;
    return true;
}

}  // namespace encore::tracing::detail

namespace encore {

std::bitset<max_ops_per_kind> configured_operations(kind k) noexcept {
    std::bitset<max_ops_per_kind> out;
    const auto ki = static_cast<std::size_t>(k);
    if (ki >= kind_count) return out;
    const core::counted_lock lk(core::g_mutex);
    const auto n = core::g_context_count.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto& c = core::g_contexts[i];
        if (!c.valid.load(std::memory_order_relaxed)) continue;
        if (c.services[ki].configured) out |= c.services[ki].ops;
    }
    return out;
}

}  // namespace encore
