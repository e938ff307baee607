// src/backend/events.cpp — see events.hpp.
#include "backend/events.hpp"

namespace encore::backend {
namespace {

void fill(event& e, kind k, op_id op, std::uint64_t mask) noexcept {
    auto* t = tracing::detail::this_thread();
    e.k = k;
    e.op = op;
    e.mask = mask;
    // The enclosing traced call (the API call that caused this event) is its correlation.
    e.internal = t->current != 0 ? t->current : tracing::detail::next_id(t);
    e.ancestor = 0;
    e.tid = t->tid;
    // The contexts with the external correlation id request service (the bit the traced API path
    // tests too): only they are asked, so an event costs the others no call into libencore.
    const std::uint64_t with_request = mask & tracing::detail::request_contexts.load(std::memory_order_relaxed);
    for (std::uint64_t m = mask; m != 0; m &= m - 1) {
        const auto c = static_cast<unsigned>(__builtin_ctzll(m));
        e.external[c] = t->top[c].load(std::memory_order_relaxed);
        // A context with the external correlation id request service for this kind is asked,
        // here where the event is made (a dispatch's ENQUEUE, on the launching thread), as the
        // reference asks it: Caliper attributes kernels to its regions this way. A callback that
        // declines (non-zero) leaves the stack's value.
        std::uint64_t requested = e.external[c];
        if (((with_request >> c) & 1u) != 0 && tracing::detail::request_external(t, c, k, op, e.internal, requested))
            e.external[c] = requested;
        e.user_data[c].value = 0;
    }
}

}  // namespace

std::optional<event> event::capture(kind k, op_id op) noexcept {
    const std::uint64_t mask = subscribed(k, op);
    if (mask == 0) return std::nullopt;
    std::optional<event> e{std::in_place};
    fill(*e, k, op, mask);
    return e;
}

std::unique_ptr<event> event::capture_heap(kind k, op_id op) noexcept {
    return capture_heap_for(k, op, subscribed(k, op));
}

std::unique_ptr<event> event::capture_heap_for(kind k, op_id op, std::uint64_t mask) noexcept {
    if (mask == 0) return nullptr;
    std::unique_ptr<event> e(new (std::nothrow) event);
    if (e) fill(*e, k, op, mask);
    return e;
}

bool event::capture_into_for(event& out, kind k, op_id op, std::uint64_t mask) noexcept {
    if (mask == 0) return false;
    fill(out, k, op, mask);
    return true;
}

void event::deliver_to(std::uint64_t subset, op_id as_op, rocprofiler_callback_phase_t phase, void* payload,
                       rocprofiler_user_data_t* user_data_override) noexcept {
    const auto ki = static_cast<std::size_t>(k);
    for (std::uint64_t m = subset & mask; m != 0; m &= m - 1) {
        const auto c = static_cast<unsigned>(__builtin_ctzll(m));
        const auto& slot = tracing::detail::slots[ki][c];
        if (!slot.set()) continue;
        rocprofiler_user_data_t* ud = user_data_override != nullptr ? &user_data_override[c] : &user_data[c];
        slot.call(rocprofiler_callback_tracing_record_t{rocprofiler_context_id_t{c}, tid,
                                                        rocprofiler_correlation_id_t{
                                                            internal, {.value = external[c]}, ancestor},
                                                        static_cast<rocprofiler_callback_tracing_kind_t>(k), as_op,
                                                        phase, payload},
                  ud);
    }
}

void event::deliver(rocprofiler_callback_phase_t phase, void* payload, op_id as_op) noexcept {
    deliver_to(mask, as_op < 0 ? op : as_op, phase, payload);
}

}  // namespace encore::backend
