// src/core/kinds.cpp — kind id -> names, operations and argument iteration; which kinds this
// process produces. Folds over encore/tracing/kinds.hpp's kind list.
#include "kinds.hpp"

#include <encore/domains/events.hpp>

#include <atomic>

namespace encore::core {
namespace {

// Kinds whose operations are events: their names are libencore's (encore/domains/events.hpp).
const kind_registration<domains::code_object, domains::scratch_memory, domains::kernel_dispatch, domains::memory_copy,
                        domains::memory_allocation, domains::runtime_initialization, domains::hip_stream,
                        domains::hip_graph, domains::hip_event, domains::kernel_replay>
    registered_events;

// What a kind is before (or without) a registration: its name, no operations.
constexpr std::array<kind_info, kind_count> g_names_only = [] {
    std::array<kind_info, kind_count> out{};
    for (std::size_t i = 1; i < kind_count; ++i) out[i].name = tracing::kind_name(static_cast<kind>(i));
    return out;
}();

// kind -> its registered kind_info (kind_registration). Written at a library's load, read by the
// C API's queries: release/acquire, so a reader that sees the pointer sees the info it points at.
constinit std::atomic<const kind_info*> g_registered[kind_count] = {};

// The produced_by:: bits of the libraries present in this process. libencore itself is always
// present (the HSA API wrappers it installs over a runtime's table).
constinit std::atomic<std::uint32_t> g_present{tracing::produced_by::core};

}  // namespace

const kind_info* find_kind(rocprofiler_callback_tracing_kind_t k) noexcept {
    if (k <= ROCPROFILER_CALLBACK_TRACING_NONE || k >= ROCPROFILER_CALLBACK_TRACING_LAST) return nullptr;
    const auto i = static_cast<std::size_t>(k);
    const kind_info* registered = g_registered[i].load(std::memory_order_acquire);
    return registered != nullptr ? registered : &g_names_only[i];
}

bool kind_produced(kind k) noexcept {
    return (tracing::producers_of(k) & g_present.load(std::memory_order_acquire)) != 0;
}

void register_kind_info(kind k, const kind_info* info) noexcept {
    const auto i = static_cast<std::size_t>(k);
    if (i > 0 && i < kind_count) g_registered[i].store(info, std::memory_order_release);
}

void add_producer(std::uint32_t produced_by) noexcept { g_present.fetch_or(produced_by, std::memory_order_acq_rel); }

namespace {
std::atomic<std::uint32_t> g_attached{0};  // produced_by:: bits of backends attached to their runtime now
}

bool attach_backend(std::uint32_t produced_by) noexcept {
    return (g_attached.fetch_or(produced_by, std::memory_order_acq_rel) & produced_by) == 0;
}

void detach_backend(std::uint32_t produced_by) noexcept {
    g_attached.fetch_and(~produced_by, std::memory_order_acq_rel);
}

}  // namespace encore::core
