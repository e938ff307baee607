// src/backend/events.cpp — see events.hpp.
#include "backend/events.hpp"

#include <cstdlib>

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
    for (std::uint64_t m = mask; m != 0; m &= m - 1) {
        const auto c = static_cast<unsigned>(__builtin_ctzll(m));
        e.external[c] = t->top[c].load(std::memory_order_relaxed);
        e.user_data[c].value = 0;
    }
}

// Freed heap events kept for the thread's next ones. An event is ~1.1 KB (every context's
// user_data and external id), above glibc's per-thread cache (chunks up to 1032 bytes), so each
// one went to the arena: on an H200 host `malloc` was 7.5 % of a CUPTI-timed launch's samples
// against 2 % in a plain CUPTI subscriber (benchmarks/RESULTS.md). A dispatch's event is freed
// where it was made (CUPTI-timed records are reaped by the launching thread), so the cache holds
// what is in flight between two CUPTI deliveries (10 ms: ~2 000 launches on that host); at most
// `cap` events (4.4 MB) a thread, freed at its exit. Off under AddressSanitizer, which should see
// every free.
struct event_cache {
    static constexpr std::size_t cap = 4096;
    std::size_t n = 0;
    void** items = nullptr;  // `cap` slots, made at the thread's first free (most threads free none)
    ~event_cache();
};
constinit thread_local bool t_cache_gone = false;  // after the thread's cache was destroyed
thread_local event_cache t_cache;
event_cache::~event_cache() {
    t_cache_gone = true;
    while (n != 0) ::operator delete(items[--n]);
    std::free(items);
}
#if defined(__SANITIZE_ADDRESS__)
constexpr bool cache_events = false;
#elif defined(__has_feature)
#    if __has_feature(address_sanitizer)
constexpr bool cache_events = false;
#    else
constexpr bool cache_events = true;
#    endif
#else
constexpr bool cache_events = true;
#endif

void* cached_event() noexcept {
    if (!cache_events || t_cache_gone) return nullptr;
    event_cache& c = t_cache;
    return c.n != 0 ? c.items[--c.n] : nullptr;
}

}  // namespace

void* event::operator new(std::size_t bytes) {
    if (void* p = bytes == sizeof(event) ? cached_event() : nullptr) return p;
    return ::operator new(bytes);
}

void* event::operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
    if (void* p = bytes == sizeof(event) ? cached_event() : nullptr) return p;
    return ::operator new(bytes, std::nothrow);
}

void event::operator delete(void* p) noexcept {
    if (p == nullptr) return;
    if (cache_events && !t_cache_gone) {
        event_cache& c = t_cache;
        if (c.items == nullptr) c.items = static_cast<void**>(std::malloc(event_cache::cap * sizeof(void*)));
        if (c.items != nullptr && c.n < event_cache::cap) {
            c.items[c.n++] = p;
            return;
        }
    }
    ::operator delete(p);
}

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
