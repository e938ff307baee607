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

// Default visibility: libencore (built with hidden visibility) and a tool both see one `next`
// per operation, whichever of them instantiated it.
template <class Domain, std::size_t I, class R, class... A>
struct ENCORE_API wrapper<Domain, I, R(A...)> {
    using op = typename Domain::template op_at<I>;
    static constexpr std::size_t kind_index = static_cast<std::size_t>(Domain::id);

    /// The function the wrapper forwards to (the runtime's original). Set by install().
    static inline R (*next)(A...) = nullptr;

    static R call(A... a) {
        const std::uint64_t mask = detail::subscribers[kind_index][I].load(std::memory_order_relaxed);
        if (mask == 0) [[likely]]
            return next(a...);
        return traced(mask, a...);
    }

    [[gnu::noinline]] static R traced(std::uint64_t, A... a) {
        check_fits<Domain, I>();
        // Acquire re-load: pairs with the release that published this mask (context start), so
        // the contexts' services that enter() reads are visible. (A fence after the relaxed load
        // would do, but ThreadSanitizer does not model fences.) On x86 this is a plain load.
        const std::uint64_t mask = detail::subscribers[kind_index][I].load(std::memory_order_acquire);
        if (mask == 0) return next(a...);  // the last context stopped in between
        payload_t<Domain> payload;
        payload.size = sizeof(payload);
        ::new (static_cast<void*>(&payload.args)) api::captured_args<op>(std::in_place, a...);
        detail::call_frame frame;
        frame.k = Domain::id;
        frame.op = static_cast<op_id>(I);
        frame.kind_op = static_cast<std::uint32_t>(Domain::id) | (std::uint64_t{I} << 32);
        frame.mask = mask;
        detail::enter(frame, &payload);
        if constexpr (std::is_void_v<R>) {
            next(a...);
            detail::exit(frame, &payload);
        } else {
            R r = next(a...);
            std::memcpy(static_cast<void*>(&payload.retval), &r, sizeof(R));
            detail::exit(frame, &payload);
            return r;
        }
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
        wrapper<Domain, I>::next = slot;
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
        slot = wrapper<Domain, I>::next;
        ++n;
    });
    return n;
}

}  // namespace encore::tracing
