// src/core/counting_state.hpp — the state the dispatch counting service's two files share (private
// to them): the counter catalogue, the counter sources, the configs and the contexts' services,
// all fixed-size and lock-free to read (counting.cpp defines them and runs the dispatches through
// them; counting_api.cpp, the C API, creates configs and services). counting_api.cpp calls
// counting.cpp, never the other way.
#pragma once

#include "counting.hpp"

#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/dispatch_profile.h>

#include <atomic>
#include <cstdint>
#include <mutex>

// Hidden: libencore's exports stay what they were when these were file-local.
#pragma GCC visibility push(hidden)

namespace encore::core::counting::detail {

// ---- the catalogue ----------------------------------------------------------------------------
// What a counter source counts for every dispatch. Ids are positions + 1 (0 is no counter); the
// meaning of each on the software runtime is docs/counters.md's.
enum class counter : std::uint32_t { sq_waves = 1, threadgroups, grbm_count, grbm_gui_active, busy_ns, last };
constexpr std::uint32_t counter_count = static_cast<std::uint32_t>(counter::last) - 1;

struct counter_def {
    const char* name;
    const char* description;
    const char* block;
};
inline constexpr counter_def g_defs[counter_count] = {
    {"SQ_WAVES",
     "Waves the dispatch launched: per workgroup, its work-items divided by the agent's wavefront size, "
     "rounded up (a partial workgroup launches fewer)",
     "SQ"},
    {"SPI_CSN_NUM_THREADGROUPS", "Workgroups (threadgroups) the dispatch launched", "SPI"},
    {"GRBM_COUNT",
     "Free-running clock ticks over the dispatch's counting window (its start to its end), in the "
     "runtime's timestamp clock",
     "GRBM"},
    {"GRBM_GUI_ACTIVE", "Ticks the agent was busy with the dispatch, in the runtime's timestamp clock", "GRBM"},
    {"ENCORE_KERNEL_BUSY_NS", "The dispatch's busy time in nanoseconds (GRBM_GUI_ACTIVE at the clock's frequency)",
     "ENCORE"},
};

// One dimension, one position: the software runtime counts each dispatch as a whole. The
// instance id keeps the counter in its top 16 bits and the position in the low 48, the layout
// the reference's records use, so a tool decoding ids by hand gets the same answer.
constexpr int counter_shift = 48;
constexpr std::uint64_t position_mask = (std::uint64_t{1} << counter_shift) - 1;
constexpr rocprofiler_counter_dimension_id_t instance_dimension = 0;

constexpr rocprofiler_counter_instance_id_t instance_id(std::uint32_t counter_handle) noexcept {
    return static_cast<rocprofiler_counter_instance_id_t>(counter_handle) << counter_shift;
}

// ---- catalogues: the backends' own counters -----------------------------------------------------
// Each registered catalogue owns the ids [first_id, first_id + capacity), handed out in order of
// registration after the software runtime's; an id is at most 0xffff (the instance id's top 16
// bits). Never unregistered: ids stay valid for the process.
/// What a counter id names: one of libencore's counters (def), or index `index` of `cat`.
struct counter_ref {
    const counter_def* def = nullptr;
    catalogue* cat = nullptr;
    std::uint32_t index = 0;
    explicit operator bool() const noexcept { return def != nullptr || cat != nullptr; }
};

/// The counter id `handle` names; false when none.
counter_ref find_counter(std::uint64_t handle) noexcept;

// ---- sources ----------------------------------------------------------------------------------
constexpr std::size_t max_sources = 64;
struct source_slot {
    source builtin;            // the software runtime's (cat null)
    catalogue* cat = nullptr;  // a backend's own
};

/// The counter source of `agent`, or null.
const source_slot* find_slot(std::uint64_t agent) noexcept;
/// Whether `ref` is a counter `agent` can count.
inline bool counts(const source_slot& s, const counter_ref& ref) noexcept {
    return s.cat != nullptr ? ref.cat == s.cat : ref.def != nullptr;
}

// ---- configs ----------------------------------------------------------------------------------
// A config's counters are fixed when it is created: ids, distinct and ascending, in an array
// that is never freed (a destroyed config's slot stays, so a session that copied its handle
// still reads them).
struct config_slot {
    std::atomic<std::uint64_t> agent{0};
    std::atomic<const std::uint32_t*> ids{nullptr};
    std::atomic<std::uint32_t> count{0};
    // Passes the counter library needs for the set: 1, or more for a config made by
    // encore_create_multipass_counter_config (collected over that many replay passes).
    std::atomic<std::uint32_t> passes{1};
    std::atomic<bool> alive{false};
};
constexpr std::size_t max_configs = 4096;
extern config_slot g_configs[max_configs];
extern std::atomic<std::size_t> g_config_count;
extern std::mutex g_config_mutex;  // creation and destruction

/// The live config `handle`, or null.
config_slot* find_config(std::uint64_t handle) noexcept;

// ---- services ---------------------------------------------------------------------------------
struct service {
    rocprofiler_dispatch_counting_service_cb_t dispatch = nullptr;
    void* dispatch_args = nullptr;
    rocprofiler_dispatch_counting_record_cb_t record = nullptr;
    void* record_args = nullptr;
    // Configured under the 2024 names (dispatch_profile.h): the callbacks take the older data
    // struct, with a full correlation id. One of the two pairs is set.
    rocprofiler_profile_counting_dispatch_callback_t legacy_dispatch = nullptr;
    rocprofiler_profile_counting_record_callback_t legacy_record = nullptr;
    // The buffered service: records go into this buffer (a header record, then one record per
    // counter value) instead of to a record callback.
    bool buffered = false;
    rocprofiler_buffer_id_t buffer{0};
};
// Written while configuration is open, read-only afterwards (like the registry's services).
extern service g_services[tracing::max_contexts];
extern std::atomic<std::uint64_t> g_configured;  // bit c: context c has the service

}  // namespace encore::core::counting::detail

#pragma GCC visibility pop
