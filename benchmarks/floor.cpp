// benchmarks/floor.cpp — a lower bound for bench_tracing's (c): the least a wrapper can do to
// deliver the seed's ENTER and EXIT records for one call to one callback, written by hand for
// hsa_signal_load_relaxed's signature. Not a tracer: one operation, one context, no filters,
// no contexts starting or stopping, no external-id requests, no second thread's ids kept apart
// by blocks, the thread's state assumed to exist after the first call. What it keeps is what a
// record needs: the enabled test, the thread's state through an initial-exec TLS pointer, an
// internal id, the ancestor, the external id read at ENTER and again at EXIT, user_data, a
// payload with the argument and the return value, the 64-byte record and two indirect calls.
// Built as its own shared library with libencore's flags, so it pays what libencore's wrappers
// pay for living in one (GOT loads). See RESULTS.md.
#include <encore/tracing/detail/core.hpp>
#include <rocprofiler-sdk/callback_tracing.h>

#include <hsa/hsa.h>

#include <atomic>
#include <cstdint>

namespace {

struct floor_thread {
    std::uint64_t next_id = 1, current = 0, tid = 1, top = 0;
};
floor_thread g_main_thread;
__attribute__((tls_model("initial-exec"))) constinit thread_local floor_thread* t_floor = nullptr;

struct floor_payload {
    std::uint64_t size;
    hsa_signal_t signal;
    hsa_signal_value_t retval;
};

}  // namespace

extern "C" {
// The tracing state a real wrapper would look up per (kind, op) and context.
__attribute__((visibility("default"))) std::atomic<bool> encore_floor_enabled{false};
__attribute__((visibility("default"))) rocprofiler_callback_tracing_cb_t encore_floor_by_value = nullptr;
__attribute__((visibility("default"))) encore_callback_tracing_ptr_cb_t encore_floor_by_address = nullptr;
__attribute__((visibility("default"))) void* encore_floor_data = nullptr;
__attribute__((visibility("default"))) hsa_signal_value_t (*encore_floor_next)(hsa_signal_t) = nullptr;
}

namespace {

template <bool ByAddress>
[[gnu::noinline]] hsa_signal_value_t floor_traced(hsa_signal_t s) {
    floor_thread* t = t_floor;
    if (t == nullptr) [[unlikely]]
        t = t_floor = &g_main_thread;
    const std::uint64_t internal = t->next_id++;
    const std::uint64_t ancestor = t->current;
    t->current = internal;
    floor_payload payload{sizeof(floor_payload), s, 0};
    rocprofiler_user_data_t user_data{.value = 0};
    // The record built as encore builds it (four 16-byte halves: a by-value callback's argument
    // is copied from it with 16-byte loads, which 8-byte field stores would make wait on store
    // forwarding, ~10 ns). 39: hsa_signal_load_relaxed's op id, a label only here.
    rocprofiler_callback_tracing_record_t r;
    constexpr std::uint64_t kind_op = ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API | (std::uint64_t{39} << 32);
    encore::tracing::detail::record_init(r, 0, t->tid, internal, t->top, ancestor, kind_op, &payload);
    if constexpr (ByAddress)
        encore_floor_by_address(&r, &user_data, encore_floor_data);
    else
        encore_floor_by_value(r, &user_data, encore_floor_data);
    payload.retval = encore_floor_next(s);
    encore::tracing::detail::record_exit(r, internal, t->top, &payload);
    if constexpr (ByAddress)
        encore_floor_by_address(&r, &user_data, encore_floor_data);
    else
        encore_floor_by_value(r, &user_data, encore_floor_data);
    t->current = ancestor;
    return payload.retval;
}

template <bool ByAddress>
hsa_signal_value_t floor_call(hsa_signal_t s) {
    if (!encore_floor_enabled.load(std::memory_order_acquire)) [[likely]]
        return encore_floor_next(s);
    return floor_traced<ByAddress>(s);
}

}  // namespace

extern "C" {
__attribute__((visibility("default"))) hsa_signal_value_t encore_floor_call_by_value(hsa_signal_t s) {
    return floor_call<false>(s);
}
__attribute__((visibility("default"))) hsa_signal_value_t encore_floor_call_by_address(hsa_signal_t s) {
    return floor_call<true>(s);
}
}
