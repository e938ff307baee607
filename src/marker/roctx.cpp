// src/marker/roctx.cpp — the roctx functions' own behaviour (what runs with or without a tool).
#include "roctx.hpp"

#include "core/exit_safe_local.hpp"
#include "core/registration.hpp"
#include "core/registry.hpp"
#include "backend/events.hpp"

#include <rocprofiler-sdk/marker/api_id.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace encore::roctx {
namespace {

// Open push/pop ranges of this thread. Only the depth is kept: the records carry the messages
// and a tool pairs a pop with its push (the innermost open one). initial-exec: one load from the
// thread pointer instead of a __tls_get_addr call (4 bytes of glibc's static TLS surplus when
// the library is dlopen'ed).
__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;
// Process-wide range ids (roctxRangeStartA); never 0, so 0 can mean "no range".
std::atomic<roctx_range_id_t> g_next_range{1};

[[gnu::constructor]] void declare_kinds() { core::add_producer(tracing::produced_by::marker); }

// ---- MARKER_CORE_RANGE_API ---------------------------------------------------------------------
// A range is one record pair: ENTER at the push/start, EXIT at the matching pop/stop, with the
// correlation, contexts and user_data captured at the opening call (a context stopped in
// between still gets the EXIT of what it saw open). These records come from the implementations
// below, i.e. under the MARKER_CORE_API wrapper when both kinds are traced.

using range_domain = domains::marker_core_range;
constexpr op_id op_mark = ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA;
constexpr op_id op_thread_range = ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA;
constexpr op_id op_process_range = ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA;
constexpr op_id op_thread_id = ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxGetThreadId;

bool range_wanted(op_id op) noexcept { return backend::subscribed(kind::marker_core_range_api, op) != 0; }

/// The range's own correlation: a new internal id whose ancestor is the enclosing traced call
/// (e.g. the roctxRangePushA record of MARKER_CORE_API), as the reference constructs one per range.
std::optional<backend::event> capture_range(op_id op) noexcept {
    auto e = backend::event::capture(kind::marker_core_range_api, op);
    if (e) {
        auto* t = tracing::detail::this_thread();
        e->ancestor = t->current;
        e->internal = t->current != 0 ? tracing::detail::next_id(t) : e->internal;
    }
    return e;
}

template <std::size_t I, class... A>
rocprofiler_callback_tracing_marker_api_data_t range_payload(A... a) noexcept {
    return tracing::make_payload<range_domain, I>(a...);
}

struct open_range {
    backend::event ev;
    std::string message;  // a copy: the caller's string may be gone by the pop/stop
    bool null_message;
    int level;  // thread ranges: the push's nesting level (its return value)
    // Both range operations take one message; the return value (valid at EXIT) is the push's
    // level (int) or the range id (roctx_range_id_t), stored as that type.
    rocprofiler_callback_tracing_marker_api_data_t payload(std::uint64_t retval) const noexcept {
        const char* m = null_message ? nullptr : message.c_str();
        auto p = range_payload<static_cast<std::size_t>(op_thread_range)>(m);
        if (ev.op == op_thread_range)
            p.retval.int32_t_retval = static_cast<std::int32_t>(retval);
        else
            p.retval.roctx_range_id_t_retval = retval;
        return p;
    }
};

// Traced thread ranges still open on this thread, innermost last. A push made while nothing
// traced the kind has no entry: a pop closes the top entry only when its level is the one
// being closed (so tracing started or stopped mid-range never pairs a pop with the wrong push).
// t_traced_open mirrors the vector's size so an untraced pop reads one initial-exec word.
// The vector is an exit_safe_local: ranges pushed and popped by the thread's thread_local
// destructors (which run after a plain thread_local vector would be gone) are still paired.
__attribute__((tls_model("initial-exec"))) thread_local int t_traced_open = 0;
struct open_stack {
    std::vector<std::unique_ptr<open_range>> ranges;
    ~open_stack() { t_traced_open = 0; }  // ranges still open at thread exit get no EXIT
};

// Traced process ranges by id; g_process_open counts them so an untraced stop takes no lock
// (relaxed: a stop racing with its own start is a program error; the mutex orders the rest).
std::mutex g_process_mutex;
std::atomic<std::size_t> g_process_open{0};
std::unordered_map<roctx_range_id_t, std::unique_ptr<open_range>>& process_ranges() {
    static auto* m = new std::unordered_map<roctx_range_id_t, std::unique_ptr<open_range>>;  // never destroyed
    return *m;
}

// Longest message a range keeps; a message without a NUL within it (or before an unreadable
// page) is cut there.
constexpr std::size_t max_message = 64 * 1024;

// The caller's message copied without trusting the pointer (the program may pass a dangling or
// unterminated one and expect roctx to survive it, as roctxMarkA does): an unreadable one is
// kept as "<invalid pointer 0x...>", the way argument printing shows it.
void copy_message(std::string& out, const char* message) {
    out.resize(max_message + 1);
    bool truncated = false;
    const long n = tracing::detail::guarded_read_string(out.data(), message, max_message, truncated);
    if (n < 0) {
        char text[48];
        std::snprintf(text, sizeof text, "<invalid pointer %p>", static_cast<const void*>(message));
        out = text;
        return;
    }
    out.resize(static_cast<std::size_t>(n));
    out.shrink_to_fit();
}

std::unique_ptr<open_range> begin_range(op_id op, const char* message) noexcept {
    auto e = capture_range(op);
    if (!e) return nullptr;
    std::unique_ptr<open_range> r(new (std::nothrow) open_range{*e, {}, message == nullptr, 0});
    if (r == nullptr) return nullptr;
    if (message != nullptr) {
        try {
            copy_message(r->message, message);
        } catch (...) {
            return nullptr;  // out of memory: this range goes unrecorded
        }
    }
    auto p = r->payload(0);
    r->ev.deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
    return r;
}

void end_range(open_range& r, std::uint64_t retval) noexcept {
    auto p = r.payload(retval);
    r.ev.deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
}

}  // namespace

void mark(const char* message) {
    if (!range_wanted(op_mark)) [[likely]]
        return;
    if (auto e = capture_range(op_mark)) {
        auto p = range_payload<static_cast<std::size_t>(op_mark)>(message);
        e->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
        e->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
    }
}

int range_push(const char* message) {
    const int level = t_depth++;
    if (range_wanted(op_thread_range)) [[unlikely]] {
        open_stack* const open = core::exit_safe_local<open_stack>::get();
        if (auto r = open != nullptr ? begin_range(op_thread_range, message) : nullptr) {
            r->level = level;
            try {
                open->ranges.push_back(std::move(r));
                ++t_traced_open;
            } catch (...) {
                // out of memory: the ENTER went out, its EXIT cannot; nothing else to do
            }
        }
    }
    return level;
}

int range_pop() {
    if (t_depth == 0) return -1;  // unbalanced: nothing to close, no record
    const int level = --t_depth;
    if (t_traced_open != 0) [[unlikely]] {
        // t_traced_open != 0: this thread's stack exists and holds that many ranges.
        auto& open = core::exit_safe_local<open_stack>::get()->ranges;
        if (open.back()->level != level) return level;
        std::unique_ptr<open_range> r = std::move(open.back());
        open.pop_back();
        --t_traced_open;
        end_range(*r, static_cast<std::uint64_t>(level));
    }
    return level;
}

roctx_range_id_t range_start(const char* message) {
    const roctx_range_id_t id = g_next_range.fetch_add(1, std::memory_order_relaxed);
    if (range_wanted(op_process_range)) [[unlikely]] {
        if (auto r = begin_range(op_process_range, message)) {
            std::lock_guard lk(g_process_mutex);
            try {
                process_ranges().emplace(id, std::move(r));
                g_process_open.fetch_add(1, std::memory_order_relaxed);
            } catch (...) {
            }
        }
    }
    return id;
}

void range_stop(roctx_range_id_t id) {
    if (g_process_open.load(std::memory_order_relaxed) == 0) [[likely]]
        return;
    std::unique_ptr<open_range> r;
    {
        std::lock_guard lk(g_process_mutex);
        auto it = process_ranges().find(id);
        if (it == process_ranges().end()) return;  // unknown, already stopped, or started untraced
        r = std::move(it->second);
        process_ranges().erase(it);
        g_process_open.fetch_sub(1, std::memory_order_relaxed);
    }
    // The record's thread is the one that started the range (the reference does the same).
    end_range(*r, id);
}

int get_thread_id(roctx_thread_id_t* tid) {
    auto e = range_wanted(op_thread_id) ? capture_range(op_thread_id) : std::nullopt;
    auto p = e ? range_payload<static_cast<std::size_t>(op_thread_id)>(tid)
               : rocprofiler_callback_tracing_marker_api_data_t{};
    if (e) e->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
    int r = 0;
    if (tid == nullptr)
        r = -1;
    else
        *tid = static_cast<roctx_thread_id_t>(::syscall(SYS_gettid));
    if (e) {
        p.retval.int32_t_retval = r;
        e->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
    }
    return r;
}

int profiler_pause(roctx_thread_id_t) { return 0; }
int profiler_resume(roctx_thread_id_t) { return 0; }

int name_os_thread(const char* name) { return name == nullptr ? -1 : 0; }
int name_hsa_agent(const char* name, const hsa_agent_s*) { return name == nullptr ? -1 : 0; }
int name_hip_device(const char* name, int) { return name == nullptr ? -1 : 0; }
int name_hip_stream(const char* name, const ihipStream_t*) { return name == nullptr ? -1 : 0; }

void on_configured() noexcept {
    // version: libencore-roctx's own interface version (1); there is no runtime below it.
    backend::deliver_runtime_initialization(ROCPROFILER_RUNTIME_INITIALIZATION_MARKER, [] { return std::uint64_t{1}; });
}

}  // namespace encore::roctx
