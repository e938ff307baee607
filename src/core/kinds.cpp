// src/core/kinds.cpp — kind id -> names, operations and argument iteration; which kinds this
// process produces. Folds over encore/tracing/kinds.hpp's kind list.
#include "kinds.hpp"
#include "warn.hpp"

#include <encore/domains/events.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace encore::core {
namespace {

// Kinds whose operations are events: their names are libencore's (encore/domains/events.hpp).
const kind_registration<domains::code_object, domains::scratch_memory, domains::kernel_dispatch, domains::memory_copy,
                        domains::memory_allocation, domains::runtime_initialization, domains::hip_stream,
                        domains::hip_graph, domains::hip_event, domains::kernel_replay, domains::range_replay>
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

rocprofiler_status_t operation_name(const kind_info& k, rocprofiler_tracing_operation_t op, const char** name,
                                    uint64_t* name_len) noexcept {
    if (k.op_names == nullptr) return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    const auto i = static_cast<std::int64_t>(op) - k.first_op;
    if (i < 0 || i >= static_cast<std::int64_t>(k.op_count)) return ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
    const char* n = k.op_names[i];
    if (name != nullptr) *name = n;
    if (name_len != nullptr) *name_len = std::strlen(n);
    return ROCPROFILER_STATUS_SUCCESS;
}

bool kind_produced(kind k) noexcept {
    return (tracing::producers_of(k) & g_present.load(std::memory_order_acquire)) != 0;
}

namespace {

// The sentence for kind k, built once per kind: finalization may run in a process short of
// memory, so the text lives in static storage (kinds are few, their producers fixed).
struct reason_text {
    char text[768] = {};
};
reason_text g_reasons[kind_count];

}  // namespace

namespace {

// libencore-hsa's reason when HSA_TOOLS_LIB already names it (encore-trace sets it): the runtime
// loads its tools at hsa_init, so a program that never started the runtime (a HIP program on a
// machine where ROCm 5.2's HIP cannot, an OpenMP program) never loaded it. Advice to set the
// variable would be wrong there.
constexpr const char* hsa_not_started =
    "the program never started the HSA runtime (hsa_init), which loads libencore-hsa from HSA_TOOLS_LIB";

const char* missing_reason(std::size_t producer_bit) noexcept {
    if (producer_bit == 1) {  // produced_by::hsa
        const char* tools = std::getenv("HSA_TOOLS_LIB");
        if (tools != nullptr && std::strstr(tools, "libencore-hsa") != nullptr) return hsa_not_started;
    }
    return tracing::producer_table[producer_bit].missing;
}
static_assert(tracing::produced_by::hsa == 1u << 1, "missing_reason's bit for libencore-hsa");

}  // namespace

const char* why_not_produced(kind k) noexcept {
    const auto i = static_cast<std::size_t>(k);
    if (i == 0 || i >= kind_count || kind_produced(k)) return nullptr;
    const std::uint32_t producers = tracing::producers_of(k);
    if (producers == tracing::produced_by::nothing) return "nothing in encore produces it yet";
    char* out = g_reasons[i].text;
    const std::size_t cap = sizeof g_reasons[i].text;
    std::size_t used = 0;
    for (std::size_t b = 0; b < tracing::produced_by::count; ++b) {
        if ((producers & (1u << b)) == 0) continue;
        const int n = std::snprintf(out + used, cap - used, "%s%s", used == 0 ? "" : "; and ", missing_reason(b));
        if (n < 0 || static_cast<std::size_t>(n) >= cap - used) break;  // truncated: the first reasons stand
        used += static_cast<std::size_t>(n);
    }
    return out;
}

void warn_unproduced_kinds(const std::bitset<kind_count>& configured) noexcept {
    // One line per reason: a tool that configures the four event kinds of a backend that is not in
    // the process hears it once ("KERNEL_DISPATCH, MEMORY_COPY, ... were configured ..."), not
    // four times. Kinds are few, so the grouping is a quadratic pass over static storage.
    const char* why[kind_count] = {};
    for (std::size_t i = 1; i < kind_count; ++i)
        if (configured.test(i)) why[i] = why_not_produced(static_cast<kind>(i));
    for (std::size_t i = 1; i < kind_count; ++i) {
        if (why[i] == nullptr) continue;
        char names[512];
        std::size_t used = 0, count = 0;
        for (std::size_t j = i; j < kind_count; ++j) {
            if (why[j] == nullptr || (j != i && std::strcmp(why[j], why[i]) != 0)) continue;
            const int n = std::snprintf(names + used, sizeof names - used, "%s%s", count == 0 ? "" : ", ",
                                        tracing::kind_name(static_cast<kind>(j)));
            if (n > 0 && static_cast<std::size_t>(n) < sizeof names - used) used += static_cast<std::size_t>(n);
            ++count;
            if (j != i) why[j] = nullptr;
        }
        warn("%s %s configured but produced nothing: %s", names, count == 1 ? "was" : "were", why[i]);
        why[i] = nullptr;
    }
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
