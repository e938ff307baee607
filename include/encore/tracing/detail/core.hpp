// encore/tracing/detail/core.hpp — the boundary between generated wrappers (headers) and the
// compiled core (src/core). Tools never spell anything here.
//
// All mutable tracing state lives in src/core/registry.cpp; a wrapper touches it through
// `subscribers` (one relaxed load on every call) and, only when that is non-zero, through
// enter()/exit().
#pragma once

#include <encore/api/kind.hpp>
#include <rocprofiler-sdk/fwd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#define ENCORE_API __attribute__((visibility("default")))
// Exported, but calls from inside libencore (where the wrappers are instantiated) bind directly,
// not through the PLT. Functions only: protected data would break copy relocations.
#define ENCORE_API_PROTECTED __attribute__((visibility("protected")))

namespace encore::tracing {

/// The most contexts a process may create; a context is one bit of a 64-bit subscriber mask.
inline constexpr std::size_t max_contexts = 64;

namespace detail {

/// subscribers[kind][op]: bit c is set while context c is active and has a callback service on
/// (kind, op). Written by the core under its configuration mutex with release order (context
/// start/stop, finalization); read with relaxed order by wrappers, which pair it with an acquire
/// fence on the traced path before reading the context's service.
extern ENCORE_API std::atomic<std::uint64_t> subscribers[kind_count][max_ops_per_kind];

/// State of one traced call between its ENTER and EXIT callbacks; lives on the wrapper's stack.
struct call_frame {
    kind k;
    op_id op;
    // k | op << 32, written by the wrapper as one 8-byte constant: the core reads both at once,
    // and a wide read of two narrow stores would stall on store forwarding.
    std::uint64_t kind_op;
    std::uint64_t mask;                  // contexts captured at ENTER; EXIT goes to the same ones
    std::uint64_t internal_id;           // correlation id of this call
    std::uint64_t ancestor_id;           // the enclosing traced call on this thread, or 0
    void* thread;                        // the core's per-thread state
    std::uint64_t requested;             // contexts whose external id came from a request callback
    rocprofiler_user_data_t user_data[max_contexts];  // only entries of `mask` are used
    rocprofiler_user_data_t external[max_contexts];   // only entries of `requested` are used
};

/// Assigns correlation ids and runs the ENTER callbacks of every context in f.mask.
ENCORE_API_PROTECTED void enter(call_frame& f, void* payload) noexcept;
/// Runs the EXIT callbacks and restores the thread's enclosing correlation id.
ENCORE_API_PROTECTED void exit(call_frame& f, void* payload) noexcept;

/// Copies n bytes from src into dst without faulting: false if any byte is unreadable.
ENCORE_API bool guarded_read(void* dst, const void* src, std::size_t n) noexcept;
/// Reads a NUL-terminated string of at most max bytes; returns the length read, or -1 if the
/// first byte is unreadable. `truncated` is set when no NUL was found within max (or before an
/// unreadable page).
ENCORE_API long guarded_read_string(char* dst, const char* src, std::size_t max, bool& truncated) noexcept;

}  // namespace detail
}  // namespace encore::tracing
