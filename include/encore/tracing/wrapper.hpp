// encore/tracing/wrapper.hpp — the enter/exit wrapper of every operation, and installing it.
//
//   CoreApiTable& table = ...;                         // the runtime's table
//   encore::tracing::install<encore::domains::hsa_core>(table, [](encore::op_id) { return true; });
//   ...
//   encore::tracing::uninstall<encore::domains::hsa_core>(table);
//
// wrapper<D, I>::call has exactly the signature of operation I. When no active context wants
// (D, I) it costs one atomic load (acquire: a plain load on x86) and a tail call to the original;
// otherwise it copies the arguments into the kind's payload on the stack, runs ENTER callbacks,
// calls the original, stores the return value and runs EXIT callbacks. Nothing on this path
// allocates. One context (the usual case) is handled inline; several go through the core
// (detail::enter_many).
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

// Default visibility: libencore and a tool both see one `next` per operation, whichever of them
// instantiated it. (In a library built with hidden visibility whose domains are hidden, such as
// libencore-hip, the instantiations are hidden too, and `next` is that library's own.)
template <class Domain, std::size_t I, class R, class... A>
struct ENCORE_API wrapper<Domain, I, R(A...)> {
    using op = typename Domain::template op_at<I>;
    static constexpr std::size_t kind_index = static_cast<std::size_t>(Domain::id);

    /// The function the wrapper forwards to (the runtime's original). Set by install(), or by a
    /// backend's resolver (initial_next). Atomic because a lazy resolver may store it while
    /// another thread calls through it; relaxed loads are plain loads.
    static inline std::atomic<R (*)(A...)> next{initial_next<Domain, I>::value};

    [[gnu::always_inline]] static R call(A... a) {
        // The subscriber mask, acquire: traced() reads the contexts' slots (detail/core.hpp). On
        // x86 it is the same plain load as a relaxed one. (A relaxed load and a fence in
        // traced() would do too, but ThreadSanitizer does not model fences.)
        const std::uint64_t mask = detail::here::subscribers[kind_index][I].load(std::memory_order_acquire);
        if (mask == 0) [[likely]]
            return next.load(std::memory_order_relaxed)(a...);
        return traced(a..., mask);
    }

    /// `mask`: the contexts that get this call's ENTER and EXIT (non-zero). EXIT goes to them
    /// even if one stopped in between. `mask` comes last so the arguments stay in the registers
    /// they came in (first, each would move one register down on the way here).
    /// Hidden: each library that instantiates the wrapper calls its own copy directly (a
    /// default-visibility template member is interposable, so call() reached it through the PLT:
    /// one more indirect jump per traced call). Nothing compares its address, and the state it
    /// reads (`next`, the core's arrays) stays shared.
    [[gnu::noinline, gnu::visibility("hidden")]] static R traced(A... a, std::uint64_t mask) {
        check_fits<Domain, I>();
        payload_t<Domain> payload;
        payload.size = sizeof(payload);
        ::new (static_cast<void*>(&payload.args)) api::captured_args<op>(std::in_place, a...);

        detail::thread_fast* const t = detail::this_thread();
        if (t->depth >= detail::max_nesting) [[unlikely]] {
            detail::nesting_exceeded();
            return next.load(std::memory_order_relaxed)(a...);
        }
        const std::uint64_t internal = detail::next_id(t);
        // The enclosing call is this thread's current one again however this call ends (an
        // exception from the original included): see nesting.
        const nesting scope(t, t->current);
        const std::uint64_t ancestor = scope.ancestor;
        t->current = internal;

        // One context and no external-id request service: the usual case, kept to what it needs
        // (no loops, no per-context arrays): every instruction here is paid on each traced call.
        // The callback's form is tested once, not at ENTER and again at EXIT.
        // Written request-first: GCC then folds both tests into one branch, ((mask - 1) |
        // requests) & mask; in the other order it emits two, and the by-address call measured
        // ~2 ns slower per call (benchmarks/RESULTS.md).
        if ((mask & detail::here::request_contexts.load(std::memory_order_relaxed)) == 0 && (mask & (mask - 1)) == 0)
            [[likely]] {
            const auto c = static_cast<std::uint64_t>(__builtin_ctzll(mask));
            const detail::callback_slot& slot = detail::here::slots[kind_index][c];
            if (slot.by_address != nullptr) return traced_one<true>(payload, t, c, slot, internal, ancestor, a...);
            return traced_one<false>(payload, t, c, slot, internal, ancestor, a...);
        }

        detail::many_state state;
        detail::enter_many(state, mask, t, kind_op, internal, ancestor, &payload);
        return forward(
            payload, [&] { detail::exit_many(state, mask, t, kind_op, internal, ancestor, &payload); }, a...);
    }

private:
    /// One traced call's place on its thread: depth and current call while it runs, both put
    /// back when it ends (on every path, so a later call never names this one as its ancestor).
    struct nesting {
        detail::thread_fast* t;
        std::uint64_t ancestor;
        [[gnu::always_inline]] nesting(detail::thread_fast* th, std::uint64_t current) noexcept
            : t(th), ancestor(current) {
            ++t->depth;
        }
        [[gnu::always_inline]] ~nesting() {
            t->current = ancestor;
            --t->depth;
        }
        nesting(const nesting&) = delete;
        nesting& operator=(const nesting&) = delete;
    };

    /// ENTER, the original and EXIT for one context whose callback takes the record by address
    /// (ByAddress) or by value.
    template <bool ByAddress>
    [[gnu::always_inline]] static R traced_one(payload_t<Domain>& payload, detail::thread_fast* t, std::uint64_t c,
                                               const detail::callback_slot& slot, std::uint64_t internal,
                                               std::uint64_t ancestor, A... a) {
        rocprofiler_user_data_t user_data{.value = 0};
        // Built once; EXIT rewrites only the halves that differ (external id, phase).
        rocprofiler_callback_tracing_record_t record;
        const std::uint64_t external = t->top[c].load(std::memory_order_relaxed);
        if constexpr (ByAddress)
            detail::record_init_fields(record, c, t->tid, internal, external, ancestor, kind_op, &payload);
        else
            detail::record_init(record, c, t->tid, internal, external, ancestor, kind_op, &payload);
        // The tool boundary: an exception from the callback stops here (the tool is disabled;
        // EXIT still goes to it, as to any context stopped between ENTER and EXIT).
        slot.call_as<ByAddress>(record, &user_data);
        const auto leave = [&] {
            // Re-read: a push during ENTER is what EXIT sees (the seed's rule).
            const std::uint64_t external_now = t->top[c].load(std::memory_order_relaxed);
            if constexpr (ByAddress) {
                record.correlation_id.external.value = external_now;
                record.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
            } else {
                detail::record_exit(record, internal, external_now, &payload);
            }
            slot.call_as<ByAddress>(record, &user_data);
        };
        return forward(payload, leave, a...);
    }

    // Kind and operation are constants here: packed as the record's kind/operation pair.
    static constexpr std::uint64_t kind_op = static_cast<std::uint32_t>(Domain::id) |
                                             (static_cast<std::uint64_t>(I) << 32);

    /// Calls the original, stores its return value in the payload, runs `leave` (the EXIT
    /// callbacks) and returns the value.
    template <class Leave>
    [[gnu::always_inline]] static R forward(payload_t<Domain>& payload, const Leave& leave, A... a) {
        if constexpr (std::is_void_v<R>) {
            next.load(std::memory_order_relaxed)(a...);
            leave();
        } else {
            R r = next.load(std::memory_order_relaxed)(a...);
            std::memcpy(static_cast<void*>(&payload.retval), &r, sizeof(R));
            leave();
            return r;
        }
    }
};

/// Replaces every slot of `table` for which wants(op_id) is true with its wrapper, saving the
/// original in wrapper<D, I>::next. Slots past the size the runtime reports
/// (table.version.minor_id) and null slots are left alone. Returns how many slots were replaced.
template <class Domain, class Pred>
requires Domain::has_table ENCORE_API std::size_t install(typename Domain::table_type& table, Pred&& wants) {
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
requires Domain::has_table ENCORE_API std::size_t uninstall(typename Domain::table_type& table) {
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
