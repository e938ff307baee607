// encore/tracing/wrapper.hpp — the enter/exit wrapper of every operation, and installing it.
//
//   CoreApiTable& table = ...;                         // the runtime's table
//   encore::tracing::install<encore::domains::hsa_core>(table, [](encore::op_id) { return true; });
//   ...
//   encore::tracing::uninstall<encore::domains::hsa_core>(table);
//
// wrapper<D, I>::call has exactly the signature of operation I. When no active context wants
// (D, I) it costs one relaxed atomic load and a tail call to the original; otherwise it copies the
// arguments into the kind's payload on the stack, runs ENTER callbacks, calls the original,
// stores the return value and runs EXIT callbacks. Nothing on this path allocates.
//
// Instantiation cost: a domain's wrappers are instantiated once, in src/core (explicit
// instantiation of install/uninstall); other translation units see `extern template`.
#pragma once

#include <encore/api/domain.hpp>
#include <encore/tracing/detail/core.hpp>
#include <encore/tracing/payload.hpp>

#include <atomic>
#include <bitset>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

namespace encore::tracing {

/// The usual install() predicate: the operations set in a bitset (e.g. the union of what the
/// configured contexts asked for).
struct op_selection {
    const std::bitset<max_ops_per_kind>* ops;
    bool operator()(op_id o) const noexcept { return ops->test(static_cast<std::size_t>(o)); }
};

template <class Domain, std::size_t I, class F = typename Domain::template op_at<I>::function_type>
struct wrapper;

/// What wrapper<D, I>::next holds before install() or a backend sets it: null by default. A
/// symbol domain whose originals are looked up on first use (HIP: src/hip) specializes this to
/// a resolver. Every translation unit that instantiates wrapper<D, I> must see the same
/// specialization, so a symbol domain's wrappers are instantiated only by its backend library.
template <class Domain, std::size_t I>
struct initial_next {
    static constexpr std::nullptr_t value = nullptr;
};

// Default visibility: libencore (built with hidden visibility) and a tool both see one `next`
// per operation, whichever of them instantiated it.
template <class Domain, std::size_t I, class R, class... A>
struct ENCORE_API wrapper<Domain, I, R(A...)> {
    static_assert(offsetof(rocprofiler_callback_tracing_record_t, payload) == 56, "record layout");
    using op = typename Domain::template op_at<I>;
    static constexpr std::size_t kind_index = static_cast<std::size_t>(Domain::id);

    /// The function the wrapper forwards to (the runtime's original). Set by install(), or by a
    /// backend's resolver (initial_next). Atomic because a lazy resolver may store it while
    /// another thread calls through it; relaxed loads are plain loads.
    static inline std::atomic<R (*)(A...)> next{initial_next<Domain, I>::value};

    [[gnu::always_inline]] static R call(A... a) {
        const std::uint64_t mask = detail::subscribers[kind_index][I].load(std::memory_order_relaxed);
        if (mask == 0) [[likely]]
            return next.load(std::memory_order_relaxed)(a...);
        return traced(mask, a...);
    }

    [[gnu::noinline]] static R traced(std::uint64_t, A... a) {
        check_fits<Domain, I>();
        // Acquire re-load: pairs with the release that published this mask (context start), so
        // the contexts' slots are visible. (A fence after the relaxed load would do, but
        // ThreadSanitizer does not model fences.) On x86 this is a plain load.
        const std::uint64_t mask = detail::subscribers[kind_index][I].load(std::memory_order_acquire);
        if (mask == 0) return next.load(std::memory_order_relaxed)(a...);  // the last context stopped in between

        payload_t<Domain> payload;
        payload.size = sizeof(payload);
        ::new (static_cast<void*>(&payload.args)) api::captured_args<op>(std::in_place, a...);

        detail::thread_fast* const t = detail::this_thread();
        const std::uint64_t internal = detail::next_id(t);
        const std::uint64_t ancestor = t->current;
        t->current = internal;

        // Contexts whose external id came from a request callback keep it for EXIT.
        std::uint64_t requested = 0;
        std::uint64_t requested_value[max_contexts];
        rocprofiler_user_data_t user_data[max_contexts];
        const std::uint64_t with_request = mask & detail::request_contexts.load(std::memory_order_relaxed);

        for (std::uint64_t m = mask; m != 0; m &= m - 1) {
            const auto c = static_cast<unsigned>(__builtin_ctzll(m));
            std::uint64_t external = t->top[c].load(std::memory_order_relaxed);
            if ((with_request >> c) & 1u) [[unlikely]] {
                if (detail::request_external(t, c, Domain::id, static_cast<op_id>(I), internal, external)) {
                    requested |= std::uint64_t{1} << c;
                    requested_value[c] = external;
                }
            }
            user_data[c].value = 0;
            deliver(c, t->tid, internal, external, ancestor, ROCPROFILER_CALLBACK_PHASE_ENTER, &payload, &user_data[c]);
        }
        if constexpr (std::is_void_v<R>) {
            next.load(std::memory_order_relaxed)(a...);
            leave(mask, t, internal, ancestor, requested, requested_value, &payload, user_data);
        } else {
            R r = next.load(std::memory_order_relaxed)(a...);
            std::memcpy(static_cast<void*>(&payload.retval), &r, sizeof(R));
            leave(mask, t, internal, ancestor, requested, requested_value, &payload, user_data);
            return r;
        }
    }

private:
    // Kind and operation are constants here: packed as the record's kind/operation pair.
    static constexpr std::uint64_t kind_op =
        static_cast<std::uint32_t>(Domain::id) | (static_cast<std::uint64_t>(I) << 32);

    // The record is returned by value and passed straight to the callback, so copy elision can
    // build it in the argument slot. It is written as four 16-byte stores in record order: built
    // with narrower stores and then copied with 16-byte loads, the copy waited on store
    // forwarding (measured at ~10 ns per callback).
    [[gnu::always_inline]] static rocprofiler_callback_tracing_record_t make_record(
        unsigned c, std::uint64_t tid, std::uint64_t internal, std::uint64_t external, std::uint64_t ancestor,
        rocprofiler_callback_phase_t phase, void* payload) {
        rocprofiler_callback_tracing_record_t rec;
        static_assert(sizeof(rec) == 64);
#if defined(__SSE2__)
        auto* v = reinterpret_cast<__m128i*>(&rec);
        _mm_storeu_si128(v + 0, _mm_set_epi64x(static_cast<long long>(tid), static_cast<long long>(c)));
        _mm_storeu_si128(v + 1, _mm_set_epi64x(static_cast<long long>(external), static_cast<long long>(internal)));
        _mm_storeu_si128(v + 2, _mm_set_epi64x(static_cast<long long>(kind_op), static_cast<long long>(ancestor)));
        _mm_storeu_si128(v + 3, _mm_set_epi64x(static_cast<long long>(reinterpret_cast<std::uintptr_t>(payload)),
                                               static_cast<long long>(static_cast<std::uint32_t>(phase))));
#else
        const std::uint64_t words[8] = {c, tid, internal, external, ancestor, kind_op,
                                        static_cast<std::uint32_t>(phase), reinterpret_cast<std::uintptr_t>(payload)};
        std::memcpy(&rec, words, sizeof(rec));
#endif
        return rec;
    }

    [[gnu::always_inline]] static void deliver(unsigned c, std::uint64_t tid, std::uint64_t internal,
                                               std::uint64_t external, std::uint64_t ancestor,
                                               rocprofiler_callback_phase_t phase, void* payload,
                                               rocprofiler_user_data_t* ud) {
        const detail::callback_slot& slot = detail::slots[kind_index][c];
        slot.callback(make_record(c, tid, internal, external, ancestor, phase, payload), ud, slot.data);
    }

    [[gnu::always_inline]] static void leave(std::uint64_t mask, detail::thread_fast* t, std::uint64_t internal,
                                             std::uint64_t ancestor, std::uint64_t requested,
                                             const std::uint64_t* requested_value, void* payload,
                                             rocprofiler_user_data_t* user_data) {
        for (std::uint64_t m = mask; m != 0; m &= m - 1) {
            const auto c = static_cast<unsigned>(__builtin_ctzll(m));
            // Re-read: a push during ENTER is what EXIT sees (the seed's rule).
            const std::uint64_t external =
                ((requested >> c) & 1u) ? requested_value[c] : t->top[c].load(std::memory_order_relaxed);
            deliver(c, t->tid, internal, external, ancestor, ROCPROFILER_CALLBACK_PHASE_EXIT, payload, &user_data[c]);
        }
        t->current = ancestor;
    }
};

/// Replaces every slot of `table` for which wants(op_id) is true with its wrapper, saving the
/// original in wrapper<D, I>::next. Slots past the size the runtime reports
/// (table.version.minor_id) and null slots are left alone. Returns how many slots were replaced.
template <class Domain, class Pred>
    requires Domain::has_table
ENCORE_API std::size_t install(typename Domain::table_type& table, Pred&& wants) {
    std::size_t n = 0;
    api::for_each_op<Domain>([&](auto I) {
        using op = typename Domain::template op_at<I>;
        if (!api::slot_present<Domain, I>(table)) return;
        auto& slot = table.*op::slot;
        if (slot == nullptr || slot == &wrapper<Domain, I>::call) return;
        if (!wants(static_cast<op_id>(I()))) return;
        wrapper<Domain, I>::next.store(slot, std::memory_order_relaxed);
        slot = &wrapper<Domain, I>::call;
        ++n;
    });
    return n;
}

/// Puts back the originals saved by install(). Returns how many slots were restored.
template <class Domain>
    requires Domain::has_table
ENCORE_API std::size_t uninstall(typename Domain::table_type& table) {
    std::size_t n = 0;
    api::for_each_op<Domain>([&](auto I) {
        using op = typename Domain::template op_at<I>;
        if (!api::slot_present<Domain, I>(table)) return;
        auto& slot = table.*op::slot;
        if (slot != &wrapper<Domain, I>::call) return;
        slot = wrapper<Domain, I>::next.load(std::memory_order_relaxed);
        ++n;
    });
    return n;
}

}  // namespace encore::tracing
