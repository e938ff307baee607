// src/core/counting.hpp — the dispatch counting service, backend-neutral part (counting.cpp).
//
// libencore owns the counter ids, the configs and the contexts' counting services. Two kinds of
// counter source:
//   - the software runtime's (register_source(source)): libencore's own five counters, whose
//     values libencore computes from the dispatch's geometry and measured times;
//   - a backend's own catalogue (register_source(agent, catalogue&)): the backend lists its
//     counters, says which sets fit one pass, and measures the values itself (CUDA: CUPTI's
//     metrics, src/cuda/counters.cpp).
// Per kernel dispatch (or replay pass) on such an agent:
//
//   core::counting::session s;
//   if (core::counting::begin(s, info, contexts))         // dispatch callbacks: configs
//       ...submit, wait for completion...
//   core::counting::complete(s, info, {start, end, ...});  // software runtime: values, records
//   core::counting::complete(s, info, start, end, vals);   // own catalogue: the backend's values
//
// begin runs on the submitting thread (the tool's dispatch callback may keep thread state, as the
// reference's kernel-replay samples do); complete on whichever thread sees the completion.
//
// Counter ids (docs/counters.md): 1..5 are the software runtime's; each catalogue gets the next
// free block of ids, as large as its capacity, when it is first registered, so ids are unique
// across catalogues; agents registered with the same catalogue object share its ids (as the
// reference's agents of one architecture share counter ids). Ids fit in 16 bits (the instance
// id keeps the counter there).
#pragma once

#include <encore/tracing/detail/core.hpp>
#include <rocprofiler-sdk/dispatch_counting_service.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace encore::core::counting {

/// An agent whose dispatches a backend measures. `ticks_per_second`: the frequency of the clock
/// the backend's start/end ticks are in.
struct source {
    std::uint64_t agent = 0;
    std::uint32_t wave_size = 0;
    std::uint64_t ticks_per_second = 0;
};
/// Registered when the backend loads, before tools are initialized; later duplicates are ignored.
ENCORE_API void register_source(const source& s) noexcept;

/// One counter of a catalogue, as rocprofiler_query_counter_info reports it (strings owned by
/// the catalogue, alive as long as the process).
struct counter_desc {
    const char* name = "";
    const char* description = "";
    const char* block = "";
};

/// A backend's own counters. Indices are positions in the catalogue (0-based); the counter id of
/// index i is first_id() + i. A catalogue may grow (find() of a valid name not listed yet) up to
/// its capacity; size() is read with acquire, so a grown entry is described before it is seen.
/// Never destroyed once registered (ids stay valid for the process).
class catalogue {
public:
    virtual std::size_t size() const noexcept = 0;
    virtual std::size_t capacity() const noexcept = 0;
    virtual counter_desc describe(std::size_t index) const noexcept = 0;
    /// How many passes the hardware needs to collect these counters (distinct indices,
    /// ascending) together; 0: they cannot be collected at all (the library refused them).
    virtual std::size_t passes(const std::uint32_t* index, std::size_t n) noexcept = 0;
    /// The index of the counter named `name` (added when the backend knows it valid), or -1.
    virtual std::int64_t find(const char* name) noexcept = 0;
    std::uint32_t first_id() const noexcept { return first_id_; }

protected:
    ~catalogue() = default;

private:
    friend bool register_source(std::uint64_t, catalogue&) noexcept;
    std::uint32_t first_id_ = 0;
};
/// `agent` counts with `cat` (before tools are initialized, or later: a tool then sees the agent's
/// counters from then on). false: no id block left, too many sources, or the agent has one.
ENCORE_API bool register_source(std::uint64_t agent, catalogue& cat) noexcept;
/// The catalogue of `agent` (null: none, or the software runtime's built-in counters).
ENCORE_API catalogue* catalogue_of(std::uint64_t agent) noexcept;

/// Whether some context configured the callback dispatch counting service (fixed once
/// configuration is locked): the backend intercepts dispatches for it.
ENCORE_API bool configured() noexcept;
/// Whether a context with the service is active now (one relaxed load: the ordinary path's test).
ENCORE_API bool active() noexcept;

/// One dispatch's counting between begin and complete: which contexts count it, with which
/// config (a config's counters never change and its slot is never reused: destroying it
/// meanwhile changes nothing), the user_data their dispatch callback left and the correlation.
/// Lives in the backend's dispatch record.
struct session {
    std::uint64_t mask = 0;
    std::uint64_t internal = 0;
    std::uint32_t config[tracing::max_contexts];
    std::uint64_t external[tracing::max_contexts];
    rocprofiler_user_data_t user_data[tracing::max_contexts];
};

/// Asks the dispatch callback of every active counting context in `contexts` for a config for
/// this dispatch. false (`s.mask` 0) when none counts it, or the agent is no counter source.
ENCORE_API bool begin(session& s, const rocprofiler_kernel_dispatch_info_t& info, std::uint64_t contexts) noexcept;

/// What the backend measured of the dispatch: its start and end in the source's clock, and in
/// encore's (rocprofiler_get_timestamp) nanoseconds. `timed` false: the runtime gave no times
/// (the time counters are then 0).
struct measurement {
    bool timed = false;
    std::uint64_t start_ticks = 0, end_ticks = 0;
    rocprofiler_timestamp_t start_ns = 0, end_ns = 0;
};

/// The dispatch completed: every counting context of `s` gets its records.
ENCORE_API void complete(const session& s, const rocprofiler_kernel_dispatch_info_t& info, const measurement& m) noexcept;

/// Own catalogues: the counters the contexts of `s` asked for, as catalogue indices, each once,
/// ascending (what the pass must collect). Empty for the software runtime's counters.
ENCORE_API std::vector<std::uint32_t> wanted(const session& s, const rocprofiler_kernel_dispatch_info_t& info);
/// Passes the session's configs were made for: more than 1 only when every counting context gave
/// a multi-pass config (encore_create_multipass_counter_config), which then asks the backend to
/// collect the union over that many replay passes of the dispatch with the library's own schedule
/// (a context that gave a one-pass config expects values from each pass alone).
ENCORE_API std::size_t passes_of(const session& s) noexcept;
/// Own catalogues: the dispatch completed with these values (value[i] of catalogue index
/// index[i], ascending); a counter a context asked for that is not among them (not collected) is
/// left out of its records. Times in encore's clock (0: unknown).
struct values {
    const std::uint32_t* index = nullptr;
    const double* value = nullptr;
    std::size_t n = 0;
};
ENCORE_API void complete(const session& s, const rocprofiler_kernel_dispatch_info_t& info,
                         rocprofiler_timestamp_t start_ns, rocprofiler_timestamp_t end_ns, const values& v) noexcept;

/// Test suites only.
ENCORE_API void reset_for_testing() noexcept;

}  // namespace encore::core::counting
