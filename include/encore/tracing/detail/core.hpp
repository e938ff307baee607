// encore/tracing/detail/core.hpp — the boundary between generated wrappers (headers) and the
// compiled core (src/core). Tools never spell anything here.
//
// All mutable tracing state is defined in src/core/registry.cpp. The traced path is inlined into
// each generated wrapper and reads only what is declared here:
//   subscribers[kind][op]   which contexts want the call (one relaxed load when none do)
//   slots[kind][context]    each context's callback for the kind
//   t_thread                this thread's correlation state
// Everything rare (first call on a thread, a new block of ids, external-id request services)
// is a call into the core.
#pragma once

#include <encore/api/kind.hpp>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/fwd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#define ENCORE_API __attribute__((visibility("default")))

namespace encore::tracing {

/// The most contexts a process may create; a context is one bit of a 64-bit subscriber mask.
inline constexpr std::size_t max_contexts = 64;

namespace detail {

/// subscribers[kind][op]: bit c is set while context c is active and has a callback service on
/// (kind, op). Written by the core under its configuration mutex with release order (context
/// start/stop, finalization); read relaxed by wrappers to decide, then with acquire before the
/// context's slot is read.
extern ENCORE_API std::atomic<std::uint64_t> subscribers[kind_count][max_ops_per_kind];

/// A context's callback for one kind. Written while configuration is open, before the context's
/// bits are published in `subscribers`; never changed afterwards.
struct callback_slot {
    rocprofiler_callback_tracing_cb_t callback;
    void* data;
};
extern ENCORE_API callback_slot slots[kind_count][max_contexts];

/// Bit c: context c has an external correlation id request service (a rare path).
extern ENCORE_API std::atomic<std::uint64_t> request_contexts;

/// The part of a thread's state the traced path uses. Owned by the core.
struct thread_fast {
    std::uint64_t next_id;  // next internal correlation id of this thread's block
    std::uint64_t end_id;   // end of the block
    std::uint64_t current;  // internal id of the innermost traced call on this thread, 0 if none
    std::uint64_t tid;
    // Top of each context's external correlation stack for this thread (0 when empty). Written
    // by push/pop (any thread, under the core's lock, release); read relaxed by this thread.
    std::atomic<std::uint64_t> top[max_contexts];
};

/// This thread's state, or null before its first traced call. initial-exec: one load from the
/// thread pointer (a __tls_get_addr call otherwise). It takes 8 bytes of the static TLS surplus
/// glibc keeps for libraries loaded later with dlopen (HSA_TOOLS_LIB loads encore so).
extern ENCORE_API __attribute__((tls_model("initial-exec"))) thread_local thread_fast* t_thread;

/// Creates this thread's state (first traced call on the thread).
ENCORE_API thread_fast* attach_thread() noexcept;
/// Gives the thread a new block of internal ids and returns the first.
ENCORE_API std::uint64_t refill_ids(thread_fast* t) noexcept;
/// Runs context c's external correlation id request callback, if it has one for kind k.
/// Returns true and sets `external` when the callback supplied the value.
ENCORE_API bool request_external(thread_fast* t, unsigned c, kind k, op_id op, std::uint64_t internal,
                                 std::uint64_t& external) noexcept;

[[gnu::always_inline]] inline thread_fast* this_thread() noexcept {
    thread_fast* t = t_thread;
    if (t == nullptr) [[unlikely]]
        t = attach_thread();
    return t;
}

[[gnu::always_inline]] inline std::uint64_t next_id(thread_fast* t) noexcept {
    if (t->next_id == t->end_id) [[unlikely]]
        return refill_ids(t);
    return t->next_id++;
}

/// Copies n bytes from src into dst without faulting: false if any byte is unreadable.
ENCORE_API bool guarded_read(void* dst, const void* src, std::size_t n) noexcept;
/// Reads a NUL-terminated string of at most max bytes; returns the length read, or -1 if the
/// first byte is unreadable. `truncated` is set when no NUL was found within max (or before an
/// unreadable page).
ENCORE_API long guarded_read_string(char* dst, const char* src, std::size_t max, bool& truncated) noexcept;

}  // namespace detail
}  // namespace encore::tracing
