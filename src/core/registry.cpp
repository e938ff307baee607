// src/core/registry.cpp — contexts, callback services, subscriber masks, correlation ids and
// the ENTER/EXIT dispatch of traced calls. All mutable tracing state of encore lives here.
#include "registry.hpp"
#include "buffer.hpp"
#include "exit_safe_local.hpp"
#include "registration.hpp"
#include "replay.hpp"
#include "warn.hpp"

#include <encore/tracing/tool.hpp>

#include <encore/tracing/detail/core.hpp>
#include <encore/tracing/kinds.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
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

// ---- per-thread state -----------------------------------------------------------------------

// Internal correlation ids are handed to threads in blocks so that a traced call takes no
// shared atomic: ids are unique process-wide and increase along each thread.
constexpr std::uint64_t id_block = 1u << 12;
std::atomic<std::uint64_t> g_next_id_block{1};

// A thread's state: the fast part the inlined traced path reads (first, so a thread_fast* is a
// thread_state*), then the external correlation stacks. Pushes may come from other threads (the
// API takes a thread id), so the stacks are guarded; fast.top mirrors each stack's top.
// A state a push made for a thread that has not made a traced call yet is "unattached": nothing
// runs when that thread exits, so the state must know its thread (task_fd) to be found stale.
struct thread_state {
    tracing::detail::thread_fast fast{};
    std::mutex mutex;
    std::vector<rocprofiler_user_data_t> stacks[max_contexts];
    // Guarded by g_threads_mutex. A state a push made for another thread is not attached until
    // that thread's first traced call; until then task_fd (or start_time) tells that thread
    // from a later one that reuses its tid.
    bool attached = false;
    int task_fd = -1;              // an unattached state's handle on its thread (open_task)
    std::uint64_t start_time = 0;  // its start time, where no handle could be had

    thread_state() = default;
    thread_state(const thread_state&) = delete;
    thread_state& operator=(const thread_state&) = delete;
    ~thread_state() {
        if (task_fd >= 0) ::close(task_fd);
    }
};
static_assert(offsetof(thread_state, fast) == 0);

std::mutex g_threads_mutex;
std::unordered_map<std::uint64_t, std::shared_ptr<thread_state>>& threads() {
    static auto* m = new std::unordered_map<std::uint64_t, std::shared_ptr<thread_state>>();  // never destroyed: used from thread exit
    return *m;
}

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

enum class lookup { find, attach, for_push };

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

void sweep_exited(std::unordered_map<std::uint64_t, std::shared_ptr<thread_state>>& m) noexcept {
    for (auto it = m.begin(); it != m.end();) {
        if (pushed_for_exited_thread(*it->second)) {
            drop_task_handle(*it->second);
            it = m.erase(it);
        } else {
            ++it;
        }
    }
}

// The state of thread `tid`: found, or created (attach: by the thread itself; for_push: by a
// push from another thread). A state a push made for a thread that has since exited without a
// traced call is dropped when found, so a later thread with the same tid starts clean.
std::shared_ptr<thread_state> state_for_tid(std::uint64_t tid, lookup how) {
    std::lock_guard lk(g_threads_mutex);
    auto& m = threads();
    if (auto it = m.find(tid); it != m.end()) {
        thread_state& st = *it->second;
        if (!pushed_for_exited_thread(st)) {
            if (how == lookup::attach) {
                st.attached = true;
                drop_task_handle(st);  // the thread's own exit hook takes over (thread_owner)
            }
            return it->second;
        }
        drop_task_handle(st);
        m.erase(it);  // a pusher holding it keeps its copy alive; nobody finds it again
    }
    if (how == lookup::find) return nullptr;
    auto s = std::make_shared<thread_state>();
    s->fast.tid = tid;
    s->attached = how == lookup::attach;
    if (!s->attached) {
        if (g_task_handles >= max_task_handles) sweep_exited(m);
        if (g_task_handles < max_task_handles) s->task_fd = open_task(tid);
        if (s->task_fd >= 0)
            ++g_task_handles;
        else
            s->start_time = task_start_time(tid);
    }
    m.emplace(tid, s);
    return s;
}

// Who frees a thread's state when it exits: an exit_safe_local, so the thread's C++
// thread_local destructors (the program's, a runtime's: they make HSA/HIP calls) trace with it
// still in place. A call after it is dropped attaches the thread again (exit_safe_local.hpp).
// The main thread's state lives until the process ends (no key destructors run at exit()).
struct thread_owner {
    std::shared_ptr<thread_state> state;
    ~thread_owner() {
        if (!state) return;
        {
            std::lock_guard lk(g_threads_mutex);
            auto& m = threads();
            // Erase only our own entry: the tid may already name a newer thread's state.
            if (auto it = m.find(state->fast.tid); it != m.end() && it->second == state) m.erase(it);
        }
        if (tracing::detail::t_thread == &state->fast) tracing::detail::t_thread = nullptr;
        // A pusher on another thread may still hold the state; it goes with the last copy.
    }
};

// This thread's state, created on first use (or found, if a push from another thread made it).
// Valid on this thread until its thread_owner is dropped.
thread_state* self() noexcept {
    if (tracing::detail::t_thread != nullptr) [[likely]]
        return reinterpret_cast<thread_state*>(tracing::detail::t_thread);
    std::shared_ptr<thread_state> s = state_for_tid(gettid_now(), lookup::attach);
    // Out of memory for the owner: the map's reference keeps the state, never freed.
    if (thread_owner* o = exit_safe_local<thread_owner>::get()) o->state = s;
    tracing::detail::t_thread = &s->fast;
    return s.get();
}

// fork(): the child has one thread, a copy of the forking one. A lock another thread held at the
// fork would stay locked in the child for good, so every lock of the configuration and thread
// paths is taken around the fork (outermost first: the order their users nest them in), and
// the child's thread gets its own tid in its records and in the thread map.
void fork_prepare() noexcept {
    lock_registration_for_fork();
    g_mutex.lock();
    g_threads_mutex.lock();
    lock_warnings_for_fork();
}

void fork_parent() noexcept {
    unlock_warnings_after_fork();
    g_threads_mutex.unlock();
    g_mutex.unlock();
    unlock_registration_after_fork();
}

// In the child every lock is made anew rather than unlocked: only this thread exists, and a
// lock that records its owner (the recursive registration lock) names the parent's tid.
void fork_child() noexcept {
    reset_warnings_lock_in_child();
    tracing::detail::guarded_read_after_fork_child();
    auto& m = threads();
    std::shared_ptr<thread_state> mine;
    if (tracing::detail::t_thread != nullptr) {
        if (auto it = m.find(tracing::detail::t_thread->tid); it != m.end()) mine = it->second;
    }
    // The other threads' states name threads that do not exist here; their locks may be held
    // for good. Kept, never freed (a leak per fork), so no locked mutex is destroyed.
    static auto* orphans = new std::vector<std::shared_ptr<thread_state>>();
    for (auto& [tid, st] : m)
        if (st != mine) {
            try {
                orphans->push_back(std::move(st));
            } catch (...) {
                (void)new std::shared_ptr<thread_state>(std::move(st));  // still never destroyed
            }
        }
    m.clear();
    g_task_handles = 0;  // the orphans' stay open, uncounted
    if (mine) {
        // Its stack lock may have been held by a pusher on another thread at the fork.
        ::new (&mine->mutex) std::mutex();
        mine->fast.tid = gettid_now();
        mine->start_time = 0;
        try {
            m.emplace(mine->fast.tid, mine);
        } catch (...) {
            // The state stays this thread's (t_thread); pushes naming the tid find it through self().
        }
    }
    ::new (&g_threads_mutex) std::mutex();
    ::new (&g_mutex) std::mutex();
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
    static constexpr std::uint32_t max_internal = 2;
    tracing::detail::callback_slot tool{};  // unset when the tool has none on the kind
    std::bitset<max_ops_per_kind> tool_ops;
    std::uint32_t internal_count = 0;
    tracing::detail::callback_slot internal[max_internal];
    std::bitset<max_ops_per_kind> internal_ops[max_internal];
};

namespace {

// An internal service's user_data, kept per thread: the record's own user_data is the tool's (it
// may write it at ENTER and read it at EXIT). An entry lives from a call's ENTER to its EXIT,
// found again by (context, service, internal correlation id); nesting is bounded by max_nesting,
// so the stack only fills if EXITs go missing (a thread that unwound through a traced call):
// then its older half is forgotten.
struct internal_user_data {
    struct entry {
        std::uint64_t key, id;
        rocprofiler_user_data_t value;
    };
    static constexpr std::uint32_t capacity = 128;
    entry stack[capacity];
    std::uint32_t depth = 0;
    rocprofiler_user_data_t scratch{};  // an EXIT's copy, or a record without phases

    rocprofiler_user_data_t* at(const rocprofiler_callback_tracing_record_t& r, std::uint32_t service) noexcept {
        const std::uint64_t key = r.context_id.handle * service_set::max_internal + service;
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
            if (depth == capacity) {
                static warn_once lost;
                lost("a traced call's EXIT never came: a buffer record's start time is lost");
                std::copy(stack + capacity / 2, stack + capacity, stack);
                depth = capacity / 2;
            }
            stack[depth] = {key, r.correlation_id.internal, {}};
            return &stack[depth++].value;
        }
        scratch = {};
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT)
            for (std::uint32_t i = depth; i-- > 0;)
                if (stack[i].key == key && stack[i].id == r.correlation_id.internal) {
                    scratch = stack[i].value;
                    std::copy(stack + i + 1, stack + depth, stack + i);
                    --depth;
                    break;
                }
        return &scratch;
    }
};
// On the heap (exit_safe_local: one pointer of TLS): libencore's TLS block is static (its
// initial-exec t_thread), and a few KiB more would not fit glibc's surplus when a runtime
// dlopens encore.
rocprofiler_user_data_t* internal_ud(const rocprofiler_callback_tracing_record_t& r, std::uint32_t service) noexcept {
    static rocprofiler_user_data_t no_memory{};
    internal_user_data* u = exit_safe_local<internal_user_data>::get();
    if (u == nullptr) {
        no_memory = {};
        return &no_memory;
    }
    return u->at(r, service);
}

// The slot of a kind with several services. Each sees only its own operations. The internal
// services' work nests inside the tool's: they run after the tool's callback at ENTER and before
// it at EXIT, so their timestamps cover the call, not the tool's callbacks.
void set_call(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t* ud, void* data) {
    const auto& set = *static_cast<const service_set*>(data);
    const auto op = static_cast<std::size_t>(r->operation);
    if (op >= max_ops_per_kind) return;
    const auto internal = [&] {
        for (std::uint32_t i = 0; i < set.internal_count; ++i)
            if (set.internal_ops[i].test(op)) set.internal[i].invoke(*r, internal_ud(*r, i));
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
    std::lock_guard lk(g_mutex);
    g_config_client = client;
    g_config_open.store(open, std::memory_order_release);
}

context* find_context(rocprofiler_context_id_t id) noexcept {
    if (id.handle >= g_context_count.load(std::memory_order_acquire)) return nullptr;
    return &g_contexts[id.handle];
}

rocprofiler_status_t create_context(rocprofiler_context_id_t* out) noexcept {
    if (out == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard lk(g_mutex);
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

rocprofiler_status_t start_context(rocprofiler_context_id_t id) noexcept {
    std::lock_guard lk(g_mutex);
    context* c = find_context(id);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (!c->valid.load(std::memory_order_relaxed)) return ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID;
    if (c->active.load(std::memory_order_relaxed)) return ROCPROFILER_STATUS_SUCCESS;
    c->active.store(true, std::memory_order_relaxed);
    set_subscriptions(static_cast<std::uint32_t>(id.handle), true);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t stop_context(rocprofiler_context_id_t id) noexcept {
    std::lock_guard lk(g_mutex);
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
    std::lock_guard lk(g_mutex);
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
    std::lock_guard lk(g_mutex);
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
    std::lock_guard lk(g_mutex);
    const auto n = g_context_count.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n; ++i) {
        context& c = g_contexts[i];
        if (c.client != client) continue;
        if (c.active.load(std::memory_order_relaxed)) set_subscriptions(i, false);
        c.active.store(false, std::memory_order_relaxed);
        c.valid.store(false, std::memory_order_relaxed);
    }
}

std::bitset<kind_count> configured_kinds() noexcept {
    std::lock_guard lk(g_mutex);
    std::bitset<kind_count> out;
    const auto n = g_context_count.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::size_t k = 1; k < kind_count; ++k)
            if (g_contexts[i].services[k].configured) out.set(k);
    return out;
}

void stop_all_contexts() noexcept {
    std::lock_guard lk(g_mutex);
    const auto n = g_context_count.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n; ++i) {
        if (g_contexts[i].active.load(std::memory_order_relaxed)) set_subscriptions(i, false);
        g_contexts[i].active.store(false, std::memory_order_relaxed);
    }
}

void reset_for_testing() noexcept {
    stop_all_contexts();
    buffers_reset_for_testing();
    buffer_services_reset_for_testing();
    replay::reset_for_testing();
    std::lock_guard lk(g_mutex);
    {
        const masks_change change;
        for (auto& row : subscribers)
            for (auto& m : row) m.store(0, std::memory_order_relaxed);
    }
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
    std::lock_guard tl(g_threads_mutex);
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
// The state a push or pop on `tid` acts on: this thread's own (valid while it runs), or another
// thread's, kept alive by `hold` in case that thread exits meanwhile. Null if that thread has none.
thread_state* state_of(std::uint64_t tid, std::shared_ptr<thread_state>& hold) noexcept {
    thread_state* const me = self();
    if (tid == me->fast.tid) return me;
    hold = state_for_tid(tid, lookup::find);
    return hold.get();
}
}  // namespace

rocprofiler_status_t push_external(rocprofiler_context_id_t ctx, rocprofiler_thread_id_t tid,
                                   rocprofiler_user_data_t v) noexcept {
    if (find_context(ctx) == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    std::shared_ptr<thread_state> hold;
    thread_state* ts = state_of(tid, hold);
    if (ts == nullptr) {
        if (!thread_exists(tid)) return ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND;
        hold = state_for_tid(tid, lookup::for_push);
        ts = hold.get();
    }
    std::lock_guard lk(ts->mutex);
    auto& stack = ts->stacks[ctx.handle];
    try {
        stack.push_back(v);
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    ts->fast.top[ctx.handle].store(v.value, std::memory_order_release);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t pop_external(rocprofiler_context_id_t ctx, rocprofiler_thread_id_t tid,
                                  rocprofiler_user_data_t* out) noexcept {
    if (find_context(ctx) == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    std::shared_ptr<thread_state> hold;
    thread_state* const ts = state_of(tid, hold);
    if (ts == nullptr) return thread_exists(tid) ? ROCPROFILER_STATUS_ERROR : ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND;
    std::lock_guard lk(ts->mutex);
    auto& stack = ts->stacks[ctx.handle];
    if (stack.empty()) return ROCPROFILER_STATUS_ERROR;
    if (out != nullptr) *out = stack.back();
    stack.pop_back();
    ts->fast.top[ctx.handle].store(stack.empty() ? 0 : stack.back().value, std::memory_order_release);
    return ROCPROFILER_STATUS_SUCCESS;
}

}  // namespace encore::core

// ---- the cold parts of the traced path (the rest is inlined in encore/tracing/wrapper.hpp) ----

namespace encore::tracing::detail {

thread_fast* attach_thread() noexcept { return &core::self()->fast; }

std::uint64_t refill_ids(thread_fast* t) noexcept {
    const auto block = core::g_next_id_block.fetch_add(1, std::memory_order_relaxed);
    t->next_id = block * core::id_block;
    t->end_id = t->next_id + core::id_block;
    return t->next_id++;
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
    std::lock_guard lk(core::g_mutex);
    const auto n = core::g_context_count.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto& c = core::g_contexts[i];
        if (!c.valid.load(std::memory_order_relaxed)) continue;
        if (c.services[ki].configured) out |= c.services[ki].ops;
    }
    return out;
}

}  // namespace encore
