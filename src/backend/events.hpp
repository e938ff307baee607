// src/backend/events.hpp — delivering records of event kinds (dispatches, copies, allocations, code
// objects, runtime initialization) to the contexts that subscribed to them.
//
//   auto ev = encore::backend::event::capture(kind::memory_allocation, ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE);
//   if (ev) { ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &payload); ...; ev->deliver(EXIT, &payload); }
//
// capture() reads the subscriber masks once (contexts are captured then: stopping one later still
// delivers the rest of the event) and takes the thread's correlation: the enclosing traced call's
// internal id when there is one (the API call that caused the event), else a new id.
#pragma once

#include <encore/api/kind.hpp>
#include <encore/tracing/detail/core.hpp>
#include <rocprofiler-sdk/callback_tracing.h>

#include <memory>
#include <optional>

namespace encore::backend {

struct event {
    kind k;
    op_id op;
    std::uint64_t mask;      // contexts that get this event's records
    std::uint64_t internal;  // correlation ids
    std::uint64_t ancestor;
    std::uint64_t tid;  // the thread that caused the event
    std::uint64_t external[tracing::max_contexts];
    rocprofiler_user_data_t user_data[tracing::max_contexts];

    /// The contexts subscribed to (k, op) right now and this thread's correlation, or nothing
    /// when no active context wants the event (the common, cheap case: one relaxed load).
    [[nodiscard]] static std::optional<event> capture(kind k, op_id op) noexcept;
    /// Same on the heap, for events completed on another thread (a copy's completion).
    [[nodiscard]] static std::unique_ptr<event> capture_heap(kind k, op_id op) noexcept;
    /// The contexts of `mask` (the caller read it: for a dispatch, the ENQUEUE and COMPLETE
    /// subscribers as of one moment, subscribed_pair) and this thread's correlation, on the
    /// heap; null when `mask` is 0.
    [[nodiscard]] static std::unique_ptr<event> capture_heap_for(kind k, op_id op, std::uint64_t mask) noexcept;
    /// Same into storage the caller keeps (pooled dispatch records: nothing allocated per
    /// event); false, and `out` unused, when `mask` is 0.
    [[nodiscard]] static bool capture_into_for(event& out, kind k, op_id op, std::uint64_t mask) noexcept;

    /// Runs the callbacks of every captured context for operation `as_op` (default: the captured
    /// one) with each context's user_data, which persists across phases of this event.
    void deliver(rocprofiler_callback_phase_t phase, void* payload, op_id as_op = -1) noexcept;
    /// Same for the contexts in `subset` only (e.g. those subscribed to one of two operations).
    void deliver_to(std::uint64_t subset, op_id as_op, rocprofiler_callback_phase_t phase, void* payload,
                    rocprofiler_user_data_t* user_data_override = nullptr) noexcept;
};

/// The RUNTIME_INITIALIZATION record of one runtime (phase NONE) for the contexts subscribed to
/// its operation. version() (the runtime's own version number) is asked only when one is, since
/// asking may call into the runtime.
template <class Version>
void deliver_runtime_initialization(rocprofiler_runtime_initialization_operation_t runtime, Version&& version) noexcept {
    auto e = event::capture(kind::runtime_initialization, runtime);
    if (!e) return;
    rocprofiler_callback_tracing_runtime_initialization_data_t payload{sizeof(payload), version(), 0};
    e->deliver(ROCPROFILER_CALLBACK_PHASE_NONE, &payload);
}

/// Contexts subscribed to (k, op) now: the subscriber mask, acquire (a caller may go on to read
/// the contexts' slots; tracing/detail/core.hpp).
[[nodiscard]] inline std::uint64_t subscribed(kind k, op_id op) noexcept {
    return tracing::detail::subscribers[static_cast<std::size_t>(k)][static_cast<std::size_t>(op)].load(
        std::memory_order_acquire);
}

/// The subscriber masks of two operations of kind k as of one moment: no context start or stop
/// falls between them (a seqlock read over subscriptions_generation, tracing/detail/core.hpp).
/// Two separate loads could see a context started between them in the second only: a dispatch
/// with a COMPLETE and no ENQUEUE, or the reverse.
struct mask_pair {
    std::uint64_t first, second;
};
[[nodiscard]] inline mask_pair subscribed_pair(kind k, op_id a, op_id b) noexcept {
    const auto& generation = tracing::detail::subscriptions_generation;
    for (;;) {
        const std::uint64_t g = generation.load(std::memory_order_acquire);
        if ((g & 1u) != 0) {
            // A start or stop is changing masks (under the core's lock, a few hundred stores).
#if defined(__SSE2__)
            _mm_pause();
#endif
            continue;
        }
        // No fence: the masks are acquire loads of release writes made after the generation
        // turned odd, so if either saw a change in progress the load below sees that odd value
        // or a later one (and ThreadSanitizer does not model fences: GCC refuses them there).
        const mask_pair m{subscribed(k, a), subscribed(k, b)};
        if (generation.load(std::memory_order_relaxed) == g) return m;
    }
}

}  // namespace encore::backend
