// encore/tracing/detail/core.hpp — the boundary between generated wrappers (headers) and the
// compiled core (src/core). Tools never spell anything here.
//
// All mutable tracing state is defined in src/core/registry.cpp. The traced path is inlined into
// each generated wrapper and reads only what is declared here:
//   subscribers[kind][op]   which contexts want the call (one load when none do)
//   slots[kind][context]    each context's callback for the kind
//   t_thread                this thread's correlation state
// Everything rare (first call on a thread, a new block of ids, several contexts on one call,
// external-id request services) is a call into the core.
#pragma once

#include <encore/api/kind.hpp>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/fwd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

#define ENCORE_API __attribute__((visibility("default")))

namespace encore::tracing {

/// The most contexts a process may create; a context is one bit of a 64-bit subscriber mask.
inline constexpr std::size_t max_contexts = 64;

namespace detail {

/// subscribers[kind][op], the subscriber masks. A subscriber mask has bit c set while context c
/// is active and wants (kind, op): the core changes it with release after writing the context's
/// slots, and a reader loads it with acquire before it reads a slot (relaxed where the answer is
/// only a hint). The core writes them under its configuration mutex (context start/stop,
/// finalization).
extern ENCORE_API std::atomic<std::uint64_t> subscribers[kind_count][max_ops_per_kind];

/// A context's callback for one kind, in one of two forms: the seed's (`by_value`: the record
/// copied into the call's argument area, 64 bytes per ENTER and per EXIT) or encore's
/// (`by_address`: a pointer to the caller's record). At most one is set; neither when the context
/// has no service on the kind. Written while configuration is open, before the context's bits are
/// published in `subscribers`; never changed afterwards.
struct callback_slot {
    rocprofiler_callback_tracing_cb_t by_value;
    encore_callback_tracing_ptr_cb_t by_address;
    void* data;

    [[nodiscard]] bool set() const noexcept { return by_value != nullptr || by_address != nullptr; }
    /// Calls the form the caller already tested for.
    template <bool ByAddress>
    [[gnu::always_inline]] void invoke_as(const rocprofiler_callback_tracing_record_t& r,
                                          rocprofiler_user_data_t* user_data) const {
        if constexpr (ByAddress)
            by_address(&r, user_data, data);
        else
            by_value(r, user_data, data);
    }
    /// Calls whichever form is set (a slot never changes form while it is in use).
    [[gnu::always_inline]] void invoke(const rocprofiler_callback_tracing_record_t& r,
                                       rocprofiler_user_data_t* user_data) const {
        if (by_address != nullptr)
            invoke_as<true>(r, user_data);
        else
            invoke_as<false>(r, user_data);
    }
    /// invoke_as / invoke with the tool boundary: an exception from the callback stops at it
    /// (callback_threw). The try block costs nothing until something throws.
    template <bool ByAddress>
    [[gnu::always_inline]] void call_as(const rocprofiler_callback_tracing_record_t& r,
                                        rocprofiler_user_data_t* user_data) const noexcept;
    [[gnu::always_inline]] void call(const rocprofiler_callback_tracing_record_t& r,
                                     rocprofiler_user_data_t* user_data) const noexcept;
};
extern ENCORE_API callback_slot slots[kind_count][max_contexts];

/// Bit c: context c has an external correlation id request service (a rare path).
extern ENCORE_API std::atomic<std::uint64_t> request_contexts;

/// The same three objects under hidden names, for code compiled into libencore itself (the HSA
/// wrappers): reached PC-relative instead of through a GOT load. `here` names whichever set the
/// current library should use; both name one object each (src/core/registry.cpp).
namespace in_core {
#if defined(ENCORE_BUILDING_CORE)
extern __attribute__((visibility("hidden"))) std::atomic<std::uint64_t> subscribers[kind_count][max_ops_per_kind];
extern __attribute__((visibility("hidden"))) callback_slot slots[kind_count][max_contexts];
extern __attribute__((visibility("hidden"))) std::atomic<std::uint64_t> request_contexts;
#endif
}  // namespace in_core
#if defined(ENCORE_BUILDING_CORE)
namespace here = in_core;
#else
namespace here = ::encore::tracing::detail;
#endif

/// The part of a thread's state the traced path uses. Owned by the core.
struct thread_fast {
    std::uint64_t next_id;  // next internal correlation id of this thread's block
    std::uint64_t end_id;   // end of the block
    std::uint64_t current;  // internal id of the innermost traced call on this thread, 0 if none
    std::uint64_t tid;
    // Traced calls in progress on this thread (nested: a callback or the runtime itself making
    // traced calls). Past max_nesting a call runs untraced, so a callback that calls what it
    // traces recursively ends instead of overflowing the stack.
    std::uint32_t depth;
    std::uint32_t reserved;
    // Top of each context's external correlation stack for this thread (0 when empty). Written
    // by push/pop (any thread, under the core's lock, release); read relaxed by this thread.
    std::atomic<std::uint64_t> top[max_contexts];
};

/// How deep traced calls may nest on one thread; deeper ones run untraced (warned once). Real
/// nesting is a few levels (a HIP call making HSA calls, a callback making one traced call).
inline constexpr std::uint32_t max_nesting = 64;

/// This thread's state, or null before its first traced call. initial-exec: one load from the
/// thread pointer (a __tls_get_addr call otherwise). It takes 8 bytes of the static TLS surplus
/// glibc keeps for libraries loaded later with dlopen (HSA_TOOLS_LIB loads encore so).
/// constinit: without it every reader tests for a TLS init function (_ZTH, a GOT load and a
/// branch per traced call), since an extern thread_local might have a dynamic initializer.
extern ENCORE_API __attribute__((tls_model("initial-exec"))) constinit thread_local thread_fast* t_thread;

/// Incremented (to odd) before and (to even) after the core changes subscriber masks: a backend
/// that needs two masks of one kind as of one moment (a dispatch's ENQUEUE and COMPLETE) reads
/// them as a seqlock reader (backend/events.hpp: subscribed_pair).
extern ENCORE_API std::atomic<std::uint64_t> subscriptions_generation;

/// Called from the catch block around a tool's callback (context c, kind k): reports the
/// exception once per tool and stops and disables the tool's contexts; the program goes on.
ENCORE_API void callback_threw(std::uint64_t c, std::uint32_t k) noexcept;
/// A traced call nested deeper than max_nesting: warns once.
[[gnu::cold]] ENCORE_API void nesting_exceeded() noexcept;

template <bool ByAddress>
inline void callback_slot::call_as(const rocprofiler_callback_tracing_record_t& r,
                                   rocprofiler_user_data_t* user_data) const noexcept {
    try {
        invoke_as<ByAddress>(r, user_data);
    } catch (...) {
        callback_threw(r.context_id.handle, static_cast<std::uint32_t>(r.kind));
    }
}
inline void callback_slot::call(const rocprofiler_callback_tracing_record_t& r,
                                rocprofiler_user_data_t* user_data) const noexcept {
    try {
        invoke(r, user_data);
    } catch (...) {
        callback_threw(r.context_id.handle, static_cast<std::uint32_t>(r.kind));
    }
}

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

/// The id is taken in one instruction: a signal handler's traced call may interrupt this thread
/// between any two, and a load and a store apart gave both calls one id. x86: xadd without a lock
/// prefix (the line is this thread's; a signal arrives between instructions, never inside one).
/// The block's end is read before the id is taken: read after, a handler's call that came between
/// and moved the thread to a new block made the block's first id look valid to this call, which
/// the handler's call had also been given (test_hostile_core's stepped case). Read before, an id
/// of a newer block lies past the old end and refills (a block wasted, never an id twice).
[[gnu::always_inline]] inline std::uint64_t next_id(thread_fast* t) noexcept {
    std::uint64_t id = 1;
    std::uint64_t end;
#if defined(__x86_64__)
    // One asm statement keeps the load before the xadd.
    asm volatile("movq %[end_id], %[end]\n\txaddq %[id], %[next]"
                 : [id] "+r"(id), [next] "+m"(t->next_id), [end] "=&r"(end)
                 : [end_id] "m"(t->end_id));
#else
    end = __atomic_load_n(&t->end_id, __ATOMIC_RELAXED);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    id = __atomic_fetch_add(&t->next_id, 1, __ATOMIC_RELAXED);
#endif
    if (id >= end) [[unlikely]]
        return refill_ids(t);
    return id;
}

/// The record a callback gets, written as four 16-byte stores in record order: built with
/// narrower stores and then copied into the by-value argument with 16-byte loads, the copy waits
/// on store forwarding (measured at ~10 ns per callback); a callback that copies the record
/// (most tools) reads it the same way. `phase` ENTER unless given; record_exit turns an ENTER
/// record into the EXIT one by rewriting two halves.
[[gnu::always_inline]] inline void record_init(
    rocprofiler_callback_tracing_record_t& rec, std::uint64_t c, std::uint64_t tid, std::uint64_t internal,
    std::uint64_t external, std::uint64_t ancestor, std::uint64_t kind_op, void* payload,
    rocprofiler_callback_phase_t phase = ROCPROFILER_CALLBACK_PHASE_ENTER) noexcept {
    static_assert(sizeof(rec) == 64 && offsetof(rocprofiler_callback_tracing_record_t, payload) == 56, "record layout");
#if defined(__SSE2__)
    auto* v = reinterpret_cast<__m128i*>(&rec);
    _mm_storeu_si128(v + 0, _mm_set_epi64x(static_cast<long long>(tid), static_cast<long long>(c)));
    _mm_storeu_si128(v + 1, _mm_set_epi64x(static_cast<long long>(external), static_cast<long long>(internal)));
    _mm_storeu_si128(v + 2, _mm_set_epi64x(static_cast<long long>(kind_op), static_cast<long long>(ancestor)));
    _mm_storeu_si128(v + 3, _mm_set_epi64x(static_cast<long long>(reinterpret_cast<std::uintptr_t>(payload)), phase));
#else
    const std::uint64_t words[8] = {c,
                                    tid,
                                    internal,
                                    external,
                                    ancestor,
                                    kind_op,
                                    static_cast<std::uint64_t>(phase),
                                    reinterpret_cast<std::uintptr_t>(payload)};
    std::memcpy(&rec, words, sizeof(rec));
#endif
}

/// record_init for a callback that gets the record's address: it reads fields, so plain 8-byte
/// stores (fewer instructions than assembling 16-byte halves) forward to its loads.
[[gnu::always_inline]] inline void record_init_fields(rocprofiler_callback_tracing_record_t& rec, std::uint64_t c,
                                                      std::uint64_t tid, std::uint64_t internal, std::uint64_t external,
                                                      std::uint64_t ancestor, std::uint64_t kind_op,
                                                      void* payload) noexcept {
    rec.context_id.handle = c;
    rec.thread_id = tid;
    rec.correlation_id.internal = internal;
    rec.correlation_id.external.value = external;
    rec.correlation_id.ancestor = ancestor;
    std::memcpy(&rec.kind, &kind_op, sizeof(kind_op));
    rec.phase = ROCPROFILER_CALLBACK_PHASE_ENTER;
    rec.payload = payload;
}

/// The EXIT record of one made by record_init: only the correlation half (external id) and the
/// phase half differ, each rewritten whole for the reason above.
[[gnu::always_inline]] inline void record_exit(rocprofiler_callback_tracing_record_t& rec, std::uint64_t internal,
                                               std::uint64_t external, void* payload) noexcept {
#if defined(__SSE2__)
    auto* v = reinterpret_cast<__m128i*>(&rec);
    _mm_storeu_si128(v + 1, _mm_set_epi64x(static_cast<long long>(external), static_cast<long long>(internal)));
    _mm_storeu_si128(v + 3, _mm_set_epi64x(static_cast<long long>(reinterpret_cast<std::uintptr_t>(payload)),
                                           ROCPROFILER_CALLBACK_PHASE_EXIT));
#else
    (void)internal;
    (void)payload;
    rec.correlation_id.external.value = external;
    rec.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
#endif
}

/// What a traced call with several contexts (or an external-id request service) keeps from
/// ENTER to EXIT: each context's user_data, and the external ids a request callback supplied.
struct many_state {
    std::uint64_t requested = 0;  // bit c: requested_value[c] is context c's external id
    std::uint64_t requested_value[max_contexts];
    rocprofiler_user_data_t user_data[max_contexts];
};
/// ENTER and EXIT to every context of `mask` (the wrapper's path for all but one context with
/// no request service). `kind_op` is the record's kind | operation << 32.
ENCORE_API void enter_many(many_state& s, std::uint64_t mask, thread_fast* t, std::uint64_t kind_op,
                           std::uint64_t internal, std::uint64_t ancestor, void* payload);
ENCORE_API void exit_many(many_state& s, std::uint64_t mask, thread_fast* t, std::uint64_t kind_op,
                          std::uint64_t internal, std::uint64_t ancestor, void* payload);

/// Copies n bytes from src into dst without faulting: false if any byte is unreadable.
ENCORE_API bool guarded_read(void* dst, const void* src, std::size_t n) noexcept;
/// Reads a NUL-terminated string of at most max bytes; returns the length read, or -1 if the
/// first byte is unreadable. `truncated` is set when no NUL was found within max (or before an
/// unreadable page).
ENCORE_API long guarded_read_string(char* dst, const char* src, std::size_t max, bool& truncated) noexcept;

}  // namespace detail
}  // namespace encore::tracing
