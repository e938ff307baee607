// src/core/counting.cpp — counters and the dispatch counting service (counting.hpp): the
// counter catalogue, the counter sources the backends register, configs, the contexts' services,
// the values of one measured dispatch, and the C API of counters.h, counter_config.h,
// dispatch_counting_service.h and device_counting_service.h.
//
// All state is fixed-size and lock-free to read: a dispatch (its begin on the submitting thread,
// its complete on the completion thread) never takes a lock or allocates. Creating a config may
// happen at any time (tools create them lazily, from the dispatch callback), so configs are slots
// published by a release store of the count; nothing is ever freed (a destroyed config's slot
// stays, marked dead).
#include "counting.hpp"

#include "buffer.hpp"
#include "registry.hpp"
#include "warn.hpp"

#include <encore/tracing/agents.hpp>
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/device_counting_service.h>
#include <rocprofiler-sdk/dispatch_profile.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <type_traits>

namespace encore::core::counting {
namespace {

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
constexpr counter_def g_defs[counter_count] = {
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
const char* const instance_dimension_name = "DIMENSION_INSTANCE";

constexpr rocprofiler_counter_instance_id_t instance_id(std::uint32_t counter_handle) noexcept {
    return static_cast<rocprofiler_counter_instance_id_t>(counter_handle) << counter_shift;
}

// The static arrays rocprofiler_counter_info_v1_t points into.
struct counter_layout {
    rocprofiler_counter_record_dimension_info_t dimension;
    const rocprofiler_counter_record_dimension_info_t* dimensions[1];
    rocprofiler_counter_dimension_info_t position;
    const rocprofiler_counter_dimension_info_t* positions[1];
    rocprofiler_counter_record_dimension_instance_info_t instance;
    const rocprofiler_counter_record_dimension_instance_info_t* instances[1];
};
void build_layout(counter_layout& l, std::uint32_t handle) noexcept {
    l.dimension = {instance_dimension_name, 1, instance_dimension};
    l.dimensions[0] = &l.dimension;
    l.position = {sizeof(l.position), instance_dimension_name, 0};
    l.positions[0] = &l.position;
    l.instance = {sizeof(l.instance), instance_id(handle), handle, 1, l.positions};
    l.instances[0] = &l.instance;
}

/// The layout of counter `handle` (an existing counter): static for libencore's counters; for a
/// catalogue's, made at the first query and kept for the process (the info points into it).
/// Null when out of memory.
counter_layout* layout_of(std::uint32_t handle) noexcept {
    static counter_layout builtin[counter_count];
    static std::once_flag once;
    if (handle <= counter_count) {
        std::call_once(once, [] {
            for (std::uint32_t i = 0; i < counter_count; ++i) build_layout(builtin[i], i + 1);
        });
        return &builtin[handle - 1];
    }
    static std::mutex m;
    static auto* made = new std::map<std::uint32_t, counter_layout*>;  // never destroyed: infos point here
    std::lock_guard lk(m);
    try {
        counter_layout*& l = (*made)[handle];
        if (l == nullptr) {
            l = new counter_layout;
            build_layout(*l, handle);
        }
        return l;
    } catch (...) {
        return nullptr;
    }
}

// ---- catalogues: the backends' own counters -----------------------------------------------------
// Each registered catalogue owns the ids [first_id, first_id + capacity), handed out in order of
// registration after the software runtime's; an id is at most 0xffff (the instance id's top 16
// bits). Never unregistered: ids stay valid for the process.
constexpr std::uint32_t max_counter_id = 0xffff;
constexpr std::size_t max_catalogues = 64;
catalogue* g_catalogues[max_catalogues];
std::atomic<std::size_t> g_catalogue_count{0};
std::uint32_t g_next_id = counter_count + 1;  // under g_source_mutex

/// What a counter id names: one of libencore's counters (def), or index `index` of `cat`.
struct counter_ref {
    const counter_def* def = nullptr;
    catalogue* cat = nullptr;
    std::uint32_t index = 0;
    explicit operator bool() const noexcept { return def != nullptr || cat != nullptr; }
};

counter_ref find_counter(std::uint64_t handle) noexcept {
    if (handle >= 1 && handle <= counter_count) return {&g_defs[handle - 1], nullptr, 0};
    const std::size_t n = g_catalogue_count.load(std::memory_order_acquire);  // pairs with register_source
    for (std::size_t i = 0; i < n; ++i) {
        catalogue* c = g_catalogues[i];
        if (handle >= c->first_id() && handle - c->first_id() < c->size())
            return {nullptr, c, static_cast<std::uint32_t>(handle - c->first_id())};
    }
    return {};
}

// ---- sources ----------------------------------------------------------------------------------
constexpr std::size_t max_sources = 64;
struct source_slot {
    source builtin;            // the software runtime's (cat null)
    catalogue* cat = nullptr;  // a backend's own
};
source_slot g_sources[max_sources];
std::atomic<std::size_t> g_source_count{0};
std::mutex g_source_mutex;

const source_slot* find_slot(std::uint64_t agent) noexcept {
    const std::size_t n = g_source_count.load(std::memory_order_acquire);  // pairs with register_source
    for (std::size_t i = 0; i < n; ++i)
        if (g_sources[i].builtin.agent == agent) return &g_sources[i];
    return nullptr;
}
/// The software runtime's source of `agent` (null: none, or a backend's catalogue).
const source* find_source(std::uint64_t agent) noexcept {
    const source_slot* s = find_slot(agent);
    return s != nullptr && s->cat == nullptr ? &s->builtin : nullptr;
}
/// Whether `ref` is a counter `agent` can count.
bool counts(const source_slot& s, const counter_ref& ref) noexcept {
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
config_slot g_configs[max_configs];
std::atomic<std::size_t> g_config_count{0};
std::mutex g_config_mutex;  // creation and destruction

config_slot* find_config(std::uint64_t handle) noexcept {
    if (handle == 0 || handle > g_config_count.load(std::memory_order_acquire)) return nullptr;  // pairs with create
    config_slot& c = g_configs[handle - 1];
    return c.alive.load(std::memory_order_acquire) ? &c : nullptr;
}

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
service g_services[tracing::max_contexts];
std::atomic<std::uint64_t> g_configured{0};  // bit c: context c has the service

// ---- values -----------------------------------------------------------------------------------
struct geometry {
    std::uint64_t workgroups = 0, waves = 0;
};

// Workgroups and waves of a dispatch, partial workgroups included: along each dimension there
// are grid / wg full groups and, when wg does not divide grid, one partial group of grid % wg
// work-items; a workgroup is any combination of full or partial along the three dimensions, and
// launches ceil(its work-items / wave size) waves. 8 combinations, no loop over workgroups.
// A size of 0 (a dimension the packet does not use) counts as 1, as the packet processor reads it.
geometry count_geometry(const rocprofiler_dim3_t& grid_in, const rocprofiler_dim3_t& wg_in,
                        std::uint32_t wave_size) noexcept {
    const std::uint64_t grid[3] = {grid_in.x ? grid_in.x : 1u, grid_in.y ? grid_in.y : 1u, grid_in.z ? grid_in.z : 1u};
    const std::uint64_t wg[3] = {wg_in.x ? wg_in.x : 1u, wg_in.y ? wg_in.y : 1u, wg_in.z ? wg_in.z : 1u};
    std::uint64_t groups[3][2], items[3][2];  // [dimension][0: full, 1: partial]
    for (int i = 0; i < 3; ++i) {
        groups[i][0] = grid[i] / wg[i];
        items[i][0] = wg[i];
        groups[i][1] = grid[i] % wg[i] != 0 ? 1 : 0;
        items[i][1] = grid[i] % wg[i];
    }
    geometry g;
    for (unsigned combo = 0; combo < 8; ++combo) {
        std::uint64_t n = 1, size = 1;
        for (int i = 0; i < 3; ++i) {
            const unsigned which = (combo >> i) & 1u;
            n *= groups[i][which];
            size *= items[i][which];
        }
        if (n == 0) continue;
        g.workgroups += n;
        if (wave_size != 0) g.waves += n * ((size + wave_size - 1) / wave_size);
    }
    return g;
}

double value_of(counter c, const geometry& g, const source& src, const measurement& m) noexcept {
    const std::uint64_t ticks = m.timed && m.end_ticks > m.start_ticks ? m.end_ticks - m.start_ticks : 0;
    switch (c) {
        case counter::sq_waves: return static_cast<double>(g.waves);
        case counter::threadgroups: return static_cast<double>(g.workgroups);
        // The software runtime's agent runs the dispatch from its start to its end without idling
        // (docs/counters.md), so the free-running count and the busy count of the window agree.
        case counter::grbm_count:
        case counter::grbm_gui_active: return static_cast<double>(ticks);
        case counter::busy_ns:
            return src.ticks_per_second != 0
                       ? static_cast<double>(ticks) * 1e9 / static_cast<double>(src.ticks_per_second)
                       : 0.0;
        case counter::last: break;
    }
    return 0.0;
}

// The 2024 form of the dispatch data (dispatch_profile.h).
rocprofiler_profile_counting_dispatch_data_t legacy_of(const rocprofiler_dispatch_counting_service_data_t& d) noexcept {
    rocprofiler_profile_counting_dispatch_data_t out{};
    out.size = sizeof(out);
    out.correlation_id.internal = d.correlation_id.internal;
    out.correlation_id.external = d.correlation_id.external;
    out.start_timestamp = d.start_timestamp;
    out.end_timestamp = d.end_timestamp;
    out.dispatch_info = d.dispatch_info;
    return out;
}

// The buffered service's records of one dispatch, as the reference lays them out: a header
// (PROFILE_COUNTING_DISPATCH_HEADER: the 2024 struct under the 2024 names, else the current one)
// and then one VALUE record per counter value, in the COUNTERS category. The records of one
// dispatch are written by one thread, so they stay together and in order in its ring.
template <class Header>
void emit_buffered(const service& svc, const Header& header, const rocprofiler_counter_record_t* records,
                   std::size_t n) noexcept {
    // Whole or not at all: a header whose values a full DISCARD ring cut short announced values
    // the tool never got (issue 40 item 16: 5 announced, 2 delivered).
    if (!core::buffer_group_fits(svc.buffer, sizeof(header), sizeof(rocprofiler_counter_record_t), n)) return;
    (void)core::buffer_emit(svc.buffer, ROCPROFILER_BUFFER_CATEGORY_COUNTERS,
                            ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER, &header, sizeof(header));
    for (std::size_t i = 0; i < n; ++i)
        (void)core::buffer_emit(svc.buffer, ROCPROFILER_BUFFER_CATEGORY_COUNTERS, ROCPROFILER_COUNTER_RECORD_VALUE,
                                &records[i], sizeof(records[i]));
}

// The one place a dispatch's records leave encore: to the record callback, or into the buffer of
// the buffered service.
void deliver(unsigned c, const rocprofiler_dispatch_counting_service_data_t& data,
             rocprofiler_counter_record_t* records, std::size_t n, rocprofiler_user_data_t user_data) noexcept {
    const service& svc = g_services[c];
    if (svc.buffered) {
        // The header of the form the service was configured in; both have the same members.
        auto emit = [&](const auto& d, auto header) {
            header.size = sizeof(header);
            header.num_records = n;
            header.correlation_id = d.correlation_id;
            header.start_timestamp = d.start_timestamp;
            header.end_timestamp = d.end_timestamp;
            header.dispatch_info = d.dispatch_info;
            emit_buffered(svc, header, records, n);
        };
        if (svc.legacy_dispatch != nullptr)
            emit(legacy_of(data), rocprofiler_profile_counting_dispatch_record_t{});
        else
            emit(data, rocprofiler_dispatch_counting_service_record_t{});
        return;
    }
    try {
        if (svc.legacy_record != nullptr)
            svc.legacy_record(legacy_of(data), records, n, user_data, svc.record_args);
        else
            svc.record(data, records, n, user_data, svc.record_args);
    } catch (...) {
        tracing::detail::callback_threw(c, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH);
    }
}

rocprofiler_dispatch_counting_service_data_t data_of(const rocprofiler_kernel_dispatch_info_t& info,
                                                     std::uint64_t internal, std::uint64_t external) noexcept {
    rocprofiler_dispatch_counting_service_data_t d{};
    d.size = sizeof(d);
    d.correlation_id.internal = internal;
    d.correlation_id.external.value = external;
    d.dispatch_info = info;
    return d;
}

}  // namespace

void register_source(const source& s) noexcept {
    std::lock_guard lk(g_source_mutex);
    const std::size_t n = g_source_count.load(std::memory_order_relaxed);
    if (s.agent == 0 || n == max_sources || find_slot(s.agent) != nullptr) return;
    g_sources[n] = {s, nullptr};
    g_source_count.store(n + 1, std::memory_order_release);  // pairs with find_slot
}

bool register_source(std::uint64_t agent, catalogue& cat) noexcept {
    std::lock_guard lk(g_source_mutex);
    const std::size_t n = g_source_count.load(std::memory_order_relaxed);
    // Agent 0 is valid here: a CUDA device's agent id is its ordinal.
    if (n == max_sources || find_slot(agent) != nullptr) return false;
    bool known = false;
    const std::size_t cats = g_catalogue_count.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < cats; ++i) known = known || g_catalogues[i] == &cat;
    if (!known) {
        // Its block of ids: all of its capacity, so that a catalogue that grows keeps its ids
        // contiguous and never meets the next one's.
        const std::size_t cap = cat.capacity();
        if (cats == max_catalogues || cap == 0 || cap > max_counter_id + 1u - g_next_id) return false;
        cat.first_id_ = g_next_id;
        g_next_id += static_cast<std::uint32_t>(cap);
        g_catalogues[cats] = &cat;
        g_catalogue_count.store(cats + 1, std::memory_order_release);  // pairs with find_counter
    }
    g_sources[n] = {source{agent, 0, 0}, &cat};
    g_source_count.store(n + 1, std::memory_order_release);  // pairs with find_slot
    return true;
}

catalogue* catalogue_of(std::uint64_t agent) noexcept {
    const source_slot* s = find_slot(agent);
    return s != nullptr ? s->cat : nullptr;
}

bool configured() noexcept { return g_configured.load(std::memory_order_acquire) != 0; }

bool active() noexcept {
    for (std::uint64_t m = g_configured.load(std::memory_order_relaxed); m != 0; m &= m - 1) {
        const context* c = find_context({static_cast<std::uint64_t>(__builtin_ctzll(m))});
        if (c != nullptr && c->active.load(std::memory_order_relaxed)) return true;
    }
    return false;
}

bool begin(session& s, const rocprofiler_kernel_dispatch_info_t& info, std::uint64_t contexts) noexcept {
    s.mask = 0;
    const std::uint64_t candidates = g_configured.load(std::memory_order_acquire) & contexts;
    if (candidates == 0 || find_slot(info.agent_id.handle) == nullptr) return false;
    auto* t = tracing::detail::this_thread();
    // The call that submitted the dispatch (the doorbell store, or the replay's submitting call).
    s.internal = t->current != 0 ? t->current : tracing::detail::next_id(t);
    for (std::uint64_t m = candidates; m != 0; m &= m - 1) {
        const auto c = static_cast<unsigned>(__builtin_ctzll(m));
        const context* ctx = find_context({c});
        if (ctx == nullptr || !ctx->active.load(std::memory_order_acquire)) continue;
        const service& svc = g_services[c];
        const std::uint64_t external = t->top[c].load(std::memory_order_relaxed);
        rocprofiler_counter_config_id_t cfg{0};
        rocprofiler_user_data_t ud{};
        try {
            const auto data = data_of(info, s.internal, external);
            if (svc.legacy_dispatch != nullptr)
                svc.legacy_dispatch(legacy_of(data), &cfg, &ud, svc.dispatch_args);
            else
                svc.dispatch(data, &cfg, &ud, svc.dispatch_args);
        } catch (...) {
            tracing::detail::callback_threw(c, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH);
            continue;
        }
        if (cfg.handle == 0) continue;  // the tool's "do not count this one"
        const config_slot* slot = find_config(cfg.handle);
        if (slot == nullptr) {
            static warn_once unknown;
            unknown("a dispatch counting callback returned a config that does not exist (or was destroyed): "
                    "that dispatch is not counted");
            continue;
        }
        if (slot->agent.load(std::memory_order_relaxed) != info.agent_id.handle) {
            static warn_once other_agent;
            other_agent("a dispatch counting callback returned a config of another agent: that dispatch is not counted");
            continue;
        }
        s.config[c] = static_cast<std::uint32_t>(cfg.handle);
        s.external[c] = external;
        s.user_data[c] = ud;
        s.mask |= std::uint64_t{1} << c;
    }
    return s.mask != 0;
}

void complete(const session& s, const rocprofiler_kernel_dispatch_info_t& info, const measurement& m) noexcept {
    if (s.mask == 0) return;
    const source* src = find_source(info.agent_id.handle);
    if (src == nullptr) return;
    const geometry g = count_geometry(info.grid_size, info.workgroup_size, src->wave_size);
    for (std::uint64_t mask = s.mask; mask != 0; mask &= mask - 1) {
        const auto c = static_cast<unsigned>(__builtin_ctzll(mask));
        const config_slot& cfg = g_configs[s.config[c] - 1];
        const std::uint32_t* ids = cfg.ids.load(std::memory_order_relaxed);
        const std::uint32_t count = cfg.count.load(std::memory_order_relaxed);
        rocprofiler_counter_record_t records[counter_count];
        std::size_t n = 0;
        for (std::uint32_t k = 0; k < count && n < counter_count; ++k) {
            const std::uint32_t i = ids[k];  // a config of this agent: one of libencore's counters
            records[n++] = {instance_id(i), value_of(static_cast<counter>(i), g, *src, m), info.dispatch_id,
                            s.user_data[c], info.agent_id};
        }
        auto data = data_of(info, s.internal, s.external[c]);
        data.start_timestamp = m.start_ns;
        data.end_timestamp = m.end_ns;
        deliver(c, data, records, n, s.user_data[c]);
    }
}

std::vector<std::uint32_t> wanted(const session& s, const rocprofiler_kernel_dispatch_info_t& info) {
    std::vector<std::uint32_t> out;
    catalogue* cat = catalogue_of(info.agent_id.handle);
    if (cat == nullptr) return out;
    for (std::uint64_t mask = s.mask; mask != 0; mask &= mask - 1) {
        const config_slot& cfg = g_configs[s.config[__builtin_ctzll(mask)] - 1];
        const std::uint32_t* ids = cfg.ids.load(std::memory_order_relaxed);
        for (std::uint32_t k = 0, n = cfg.count.load(std::memory_order_relaxed); k < n; ++k)
            out.push_back(ids[k] - cat->first_id());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::size_t passes_of(const session& s) noexcept {
    std::size_t most = 0;
    bool every = s.mask != 0;
    for (std::uint64_t mask = s.mask; mask != 0; mask &= mask - 1) {
        const std::uint32_t p = g_configs[s.config[__builtin_ctzll(mask)] - 1].passes.load(std::memory_order_relaxed);
        every = every && p > 1;
        most = std::max<std::size_t>(most, p);
    }
    return every ? most : 1;
}

void complete(const session& s, const rocprofiler_kernel_dispatch_info_t& info, rocprofiler_timestamp_t start_ns,
              rocprofiler_timestamp_t end_ns, const values& v) noexcept {
    if (s.mask == 0) return;
    catalogue* cat = catalogue_of(info.agent_id.handle);
    if (cat == nullptr) return;
    try {
        std::vector<rocprofiler_counter_record_t> records;
        for (std::uint64_t mask = s.mask; mask != 0; mask &= mask - 1) {
            const auto c = static_cast<unsigned>(__builtin_ctzll(mask));
            const config_slot& cfg = g_configs[s.config[c] - 1];
            const std::uint32_t* ids = cfg.ids.load(std::memory_order_relaxed);
            records.clear();
            // Both lists ascend: one merge.
            std::size_t j = 0;
            for (std::uint32_t k = 0, n = cfg.count.load(std::memory_order_relaxed); k < n; ++k) {
                const std::uint32_t index = ids[k] - cat->first_id();
                while (j < v.n && v.index[j] < index) ++j;
                if (j == v.n || v.index[j] != index) continue;  // not collected
                records.push_back({instance_id(ids[k]), v.value[j], info.dispatch_id, s.user_data[c], info.agent_id});
            }
            auto data = data_of(info, s.internal, s.external[c]);
            data.start_timestamp = start_ns;
            data.end_timestamp = end_ns;
            deliver(c, data, records.data(), records.size(), s.user_data[c]);
        }
    } catch (...) {
        static warn_once oom;
        oom("out of memory delivering a dispatch's counter records: they are lost");
    }
}

void reset_for_testing() noexcept {
    g_configured.store(0, std::memory_order_relaxed);
    for (auto& svc : g_services) svc = {};
    std::lock_guard lk(g_config_mutex);
    for (auto& c : g_configs) {
        c.alive.store(false, std::memory_order_relaxed);
        delete[] c.ids.exchange(nullptr, std::memory_order_relaxed);  // no session outlives a test's reset
        c.count.store(0, std::memory_order_relaxed);
        c.passes.store(1, std::memory_order_relaxed);
    }
    g_config_count.store(0, std::memory_order_release);
}

}  // namespace encore::core::counting

// ---- the C API --------------------------------------------------------------------------------
using namespace encore;
using namespace encore::core::counting;

namespace {

// An enum from a C caller, read as its bits before it is compared (c_api.cpp says why).
template <class E>
std::underlying_type_t<E> bits_of(const E& e) noexcept {
    std::underlying_type_t<E> v;
    std::memcpy(&v, &e, sizeof(v));
    return v;
}

// An agent of the runtime's list, or one a backend registered as a counter source without
// listing agents (CUDA: a device ordinal, the agent id of its KERNEL_DISPATCH records).
bool agent_exists(rocprofiler_agent_id_t id) noexcept {
    return encore::find_agent(id) != nullptr || catalogue_of(id.handle) != nullptr;
}

template <class Info>
void fill_common(Info& out, std::uint64_t handle, const counter_ref& ref) noexcept {
    counter_desc d;
    if (ref.def != nullptr)
        d = {ref.def->name, ref.def->description, ref.def->block};
    else
        d = ref.cat->describe(ref.index);
    out.id.handle = handle;
    out.name = d.name;
    out.description = d.description;
    out.block = d.block;
    out.expression = "";
    out.is_constant = 0;
    out.is_derived = 0;
}

// Both configure functions (the current names and the 2024 ones): `svc` holds one callback pair.
rocprofiler_status_t configure_service(rocprofiler_context_id_t context_id, bool callbacks_set,
                                       const service& svc) noexcept {
    static std::mutex configure_mutex;
    std::lock_guard lk(configure_mutex);
    if (!core::configuration_open()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    if (core::find_context(context_id) == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (!callbacks_set) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (svc.buffered) {
        // The buffer must exist and belong to the context the service is configured on, as the
        // reference requires.
        rocprofiler_context_id_t owner{0};
        if (!core::buffer_context(svc.buffer, owner)) return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
        if (owner.handle != context_id.handle) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    }
    const std::uint64_t bit = std::uint64_t{1} << context_id.handle;
    if ((g_configured.load(std::memory_order_relaxed) & bit) != 0)
        return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
    g_services[context_id.handle] = svc;
    g_configured.fetch_or(bit, std::memory_order_release);  // pairs with begin's acquire
    return ROCPROFILER_STATUS_SUCCESS;
}

/// rocprofiler_create_counter_config, and with `passes` (non-null) encore's multi-pass configs:
/// a set needing several passes is then accepted and *passes says how many.
rocprofiler_status_t create_config(rocprofiler_agent_id_t agent_id, const rocprofiler_counter_id_t* counters_list,
                                   size_t counters_count, rocprofiler_counter_config_id_t* config_id,
                                   size_t* multipass) noexcept {
    if (config_id == nullptr || (counters_list == nullptr && counters_count != 0))
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    const source_slot* src = find_slot(agent_id.handle);
    if (src == nullptr) return ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED;
    try {
        std::vector<std::uint32_t> ids;
        ids.reserve(counters_count);
        for (size_t i = 0; i < counters_count; ++i) {
            const counter_ref ref = find_counter(counters_list[i].handle);
            if (!ref) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
            // Another catalogue's counter (another chip's metric): not this agent's.
            if (!counts(*src, ref)) return ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT;
            ids.push_back(static_cast<std::uint32_t>(counters_list[i].handle));
        }
        std::lock_guard lk(g_config_mutex);
        if (config_id->handle != 0) {  // a base config: its counters join the new one
            const config_slot* base = find_config(config_id->handle);
            if (base == nullptr) return ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND;
            if (base->agent.load(std::memory_order_relaxed) != agent_id.handle)
                return ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH;
            const std::uint32_t* b = base->ids.load(std::memory_order_relaxed);
            ids.insert(ids.end(), b, b + base->count.load(std::memory_order_relaxed));
        }
        // A counter listed twice is counted once.
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        if (ids.empty()) return ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS;
        std::uint32_t set_passes = 1;  // the software runtime counts everything in one
        if (src->cat != nullptr) {
            // One config is collected in one pass (as the reference's configs are): a set the
            // hardware cannot count together is refused here, not at the dispatch.
            std::vector<std::uint32_t> index(ids);
            for (auto& x : index) x -= src->cat->first_id();
            const std::size_t passes = src->cat->passes(index.data(), index.size());
            if (passes == 0) return ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT;
            if (passes > 1 && multipass == nullptr) return ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT;
            // Past what a config's pass counter holds: no library schedules that many.
            if (passes > UINT32_MAX) return ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT;
            set_passes = static_cast<std::uint32_t>(passes);
        }
        const std::size_t n = g_config_count.load(std::memory_order_relaxed);
        if (n == max_configs) return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
        auto* kept = new std::uint32_t[ids.size()];  // never freed: config_slot says why
        std::copy(ids.begin(), ids.end(), kept);
        config_slot& c = g_configs[n];
        c.agent.store(agent_id.handle, std::memory_order_relaxed);
        c.ids.store(kept, std::memory_order_relaxed);
        c.count.store(static_cast<std::uint32_t>(ids.size()), std::memory_order_relaxed);
        c.passes.store(set_passes, std::memory_order_relaxed);
        c.alive.store(true, std::memory_order_relaxed);
        g_config_count.store(n + 1, std::memory_order_release);  // pairs with find_config
        config_id->handle = n + 1;
        if (multipass != nullptr) *multipass = set_passes;
        return ROCPROFILER_STATUS_SUCCESS;
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    }
}

}  // namespace

extern "C" {

rocprofiler_status_t rocprofiler_iterate_agent_supported_counters(rocprofiler_agent_id_t agent_id,
                                                                  rocprofiler_available_counters_cb_t cb,
                                                                  void* user_data) noexcept {
    if (cb == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    // An agent without a counter source has none: the callback still runs, with 0 counters, so a
    // tool sees the agent answered.
    const source_slot* src = find_slot(agent_id.handle);
    try {
        std::vector<rocprofiler_counter_id_t> ids;
        if (src != nullptr && src->cat != nullptr) {
            const std::size_t n = src->cat->size();
            ids.resize(n);
            for (std::size_t i = 0; i < n; ++i) ids[i].handle = src->cat->first_id() + i;
        } else if (src != nullptr) {
            ids.resize(counter_count);
            for (std::size_t i = 0; i < counter_count; ++i) ids[i].handle = i + 1;
        }
        return cb(agent_id, ids.data(), ids.size(), user_data);
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR;
    }
}

rocprofiler_status_t rocprofiler_query_counter_info(rocprofiler_counter_id_t counter_id,
                                                    rocprofiler_counter_info_version_id_t version, void* info) noexcept {
    if (info == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    const counter_ref ref = find_counter(counter_id.handle);
    if (!ref) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    switch (bits_of(version)) {
        case ROCPROFILER_COUNTER_INFO_VERSION_0: {
            auto* out = static_cast<rocprofiler_counter_info_v0_t*>(info);
            *out = {};
            fill_common(*out, counter_id.handle, ref);
            return ROCPROFILER_STATUS_SUCCESS;
        }
        case ROCPROFILER_COUNTER_INFO_VERSION_1: {
            auto* out = static_cast<rocprofiler_counter_info_v1_t*>(info);
            // The caller states the size it allocated; one older than this struct cannot hold it.
            if (out->size != 0 && out->size < sizeof(rocprofiler_counter_info_v1_t))
                return ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI;
            counter_layout* l = layout_of(static_cast<std::uint32_t>(counter_id.handle));
            if (l == nullptr) return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
            *out = {};
            out->size = sizeof(*out);
            fill_common(*out, counter_id.handle, ref);
            out->dimensions_count = 1;
            out->dimensions = l->dimensions;
            out->dimensions_instances_count = 1;
            out->dimensions_instances = l->instances;
            return ROCPROFILER_STATUS_SUCCESS;
        }
        default: return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    }
}

rocprofiler_status_t rocprofiler_query_counter_instance_count(rocprofiler_agent_id_t agent_id,
                                                              rocprofiler_counter_id_t counter_id,
                                                              size_t* instance_count) noexcept {
    if (instance_count == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    const counter_ref ref = find_counter(counter_id.handle);
    if (!ref) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    const source_slot* src = find_slot(agent_id.handle);
    if (src == nullptr || !counts(*src, ref)) return ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT;
    *instance_count = 1;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_iterate_counter_dimensions(rocprofiler_counter_id_t id,
                                                            rocprofiler_available_dimensions_cb_t info_cb,
                                                            void* user_data) noexcept {
    if (info_cb == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!find_counter(id.handle)) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    counter_layout* l = layout_of(static_cast<std::uint32_t>(id.handle));
    if (l == nullptr) return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    try {
        return info_cb(id, &l->dimension, 1, user_data);
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR;
    }
}

rocprofiler_status_t rocprofiler_query_record_counter_id(rocprofiler_counter_instance_id_t id,
                                                         rocprofiler_counter_id_t* counter_id) noexcept {
    if (counter_id == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    const std::uint64_t handle = id >> counter_shift;
    if (!find_counter(handle)) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    counter_id->handle = handle;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_query_record_dimension_position(rocprofiler_counter_instance_id_t id,
                                                                 rocprofiler_counter_dimension_id_t dim,
                                                                 size_t* pos) noexcept {
    if (pos == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!find_counter(id >> counter_shift)) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    if (dim != instance_dimension) return ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND;
    *pos = static_cast<size_t>(id & position_mask);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_create_counter(const char* name, size_t, const char* expr, size_t, const char*, size_t,
                                                rocprofiler_agent_id_t, rocprofiler_counter_id_t* counter_id) noexcept {
    if (name == nullptr || expr == nullptr || counter_id == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;  // no expression evaluator: docs/counters.md
}

rocprofiler_status_t rocprofiler_create_counter_config(rocprofiler_agent_id_t agent_id,
                                                       rocprofiler_counter_id_t* counters_list, size_t counters_count,
                                                       rocprofiler_counter_config_id_t* config_id) noexcept {
    return create_config(agent_id, counters_list, counters_count, config_id, nullptr);
}

rocprofiler_status_t encore_create_multipass_counter_config(rocprofiler_agent_id_t agent_id,
                                                            const rocprofiler_counter_id_t* counters, size_t count,
                                                            rocprofiler_counter_config_id_t* config_id,
                                                            size_t* passes) noexcept {
    if (passes == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    return create_config(agent_id, counters, count, config_id, passes);
}

rocprofiler_status_t rocprofiler_destroy_counter_config(rocprofiler_counter_config_id_t config_id) noexcept {
    std::lock_guard lk(g_config_mutex);
    config_slot* c = find_config(config_id.handle);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND;
    c->alive.store(false, std::memory_order_release);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_configure_callback_dispatch_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_dispatch_counting_service_cb_t dispatch_callback,
    void* dispatch_callback_args, rocprofiler_dispatch_counting_record_cb_t record_callback,
    void* record_callback_args) noexcept {
    const bool set = dispatch_callback != nullptr && record_callback != nullptr;
    return configure_service(context_id, set,
                             {dispatch_callback, dispatch_callback_args, record_callback, record_callback_args});
}

rocprofiler_status_t rocprofiler_configure_callback_dispatch_profile_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_profile_counting_dispatch_callback_t dispatch_callback,
    void* dispatch_callback_args, rocprofiler_profile_counting_record_callback_t record_callback,
    void* record_callback_args) noexcept {
    const bool set = dispatch_callback != nullptr && record_callback != nullptr;
    return configure_service(context_id, set,
                             {nullptr, dispatch_callback_args, nullptr, record_callback_args, dispatch_callback,
                              record_callback});
}

rocprofiler_status_t rocprofiler_configure_buffered_dispatch_profile_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_id_t buffer_id,
    rocprofiler_profile_counting_dispatch_callback_t callback, void* callback_data_args) noexcept {
    service svc{nullptr, callback_data_args, nullptr, nullptr, callback, nullptr};
    svc.buffered = true;
    svc.buffer = buffer_id;
    return configure_service(context_id, callback != nullptr, svc);
}

rocprofiler_status_t rocprofiler_configure_buffer_dispatch_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_id_t buffer_id,
    rocprofiler_dispatch_counting_service_cb_t callback, void* callback_data_args) noexcept {
    service svc{callback, callback_data_args, nullptr, nullptr};
    svc.buffered = true;
    svc.buffer = buffer_id;
    return configure_service(context_id, callback != nullptr, svc);
}

rocprofiler_status_t rocprofiler_configure_device_counting_service(rocprofiler_context_id_t, rocprofiler_buffer_id_t,
                                                                   rocprofiler_agent_id_t,
                                                                   rocprofiler_device_counting_service_cb_t,
                                                                   void*) noexcept {
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;  // per-dispatch counting only: docs/counters.md
}

rocprofiler_status_t rocprofiler_sample_device_counting_service(rocprofiler_context_id_t, rocprofiler_user_data_t,
                                                                rocprofiler_counter_flag_t,
                                                                rocprofiler_counter_record_t*, size_t*) noexcept {
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
}

}  // extern "C"

// ---- encore/counters.h: counters by name, pass scheduling -----------------------------------------
namespace {

/// The agent's counters `ids` as its catalogue's indices (libencore's counters: their ids), after
/// the checks every function of encore/counters.h makes.
rocprofiler_status_t indices_of(rocprofiler_agent_id_t agent_id, const rocprofiler_counter_id_t* ids, size_t n,
                                const source_slot*& src, std::vector<std::uint32_t>& out) {
    if (ids == nullptr || n == 0) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    src = find_slot(agent_id.handle);
    if (src == nullptr) return ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED;
    out.clear();
    for (size_t i = 0; i < n; ++i) {
        const counter_ref ref = find_counter(ids[i].handle);
        if (!ref) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
        if (!counts(*src, ref)) return ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT;
        out.push_back(ref.cat != nullptr ? ref.index : static_cast<std::uint32_t>(ids[i].handle));
    }
    return ROCPROFILER_STATUS_SUCCESS;
}

/// Passes a set needs: the catalogue's answer (indices sorted and distinct, as it expects); the
/// software runtime counts everything in one.
std::size_t passes_of(const source_slot& src, std::vector<std::uint32_t> set) {
    if (src.cat == nullptr) return 1;
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    return src.cat->passes(set.data(), set.size());
}

}  // namespace

extern "C" {

rocprofiler_status_t encore_counter_find_by_name(rocprofiler_agent_id_t agent_id, const char* name,
                                                 rocprofiler_counter_id_t* counter_id) noexcept {
    if (name == nullptr || counter_id == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!agent_exists(agent_id)) return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND;
    const source_slot* src = find_slot(agent_id.handle);
    if (src == nullptr) return ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED;
    if (src->cat == nullptr) {
        for (std::uint32_t i = 0; i < counter_count; ++i)
            if (std::strcmp(g_defs[i].name, name) == 0) {
                counter_id->handle = i + 1;
                return ROCPROFILER_STATUS_SUCCESS;
            }
        return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    }
    const std::int64_t index = src->cat->find(name);
    if (index < 0) return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND;
    counter_id->handle = src->cat->first_id() + static_cast<std::uint64_t>(index);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t encore_counter_pass_count(rocprofiler_agent_id_t agent_id, const rocprofiler_counter_id_t* counters,
                                               size_t count, size_t* passes) noexcept {
    if (passes == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    try {
        const source_slot* src = nullptr;
        std::vector<std::uint32_t> index;
        if (const auto st = indices_of(agent_id, counters, count, src, index); st != ROCPROFILER_STATUS_SUCCESS)
            return st;
        const std::size_t n = passes_of(*src, std::move(index));
        if (n == 0) return ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT;
        *passes = n;
        return ROCPROFILER_STATUS_SUCCESS;
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    }
}

rocprofiler_status_t encore_counter_schedule_passes(rocprofiler_agent_id_t agent_id,
                                                    const rocprofiler_counter_id_t* counters, size_t count,
                                                    size_t* group_of, size_t* groups) noexcept {
    if (group_of == nullptr || groups == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    try {
        const source_slot* src = nullptr;
        std::vector<std::uint32_t> index;
        if (const auto st = indices_of(agent_id, counters, count, src, index); st != ROCPROFILER_STATUS_SUCCESS)
            return st;
        // Greedy first fit: each counter joins the first group it fits with (one library query
        // per group tried), else opens a new one. A counter that alone needs several passes
        // cannot be in any one-pass group.
        std::vector<std::vector<std::uint32_t>> sets;
        bool too_big = false;
        for (size_t i = 0; i < count; ++i) {
            group_of[i] = SIZE_MAX;
            const auto first = std::find(index.begin(), index.begin() + static_cast<std::ptrdiff_t>(i), index[i]);
            if (first != index.begin() + static_cast<std::ptrdiff_t>(i)) {  // listed twice: its first group
                group_of[i] = group_of[first - index.begin()];
                continue;
            }
            for (size_t g = 0; g < sets.size() && group_of[i] == SIZE_MAX; ++g) {
                auto candidate = sets[g];
                candidate.push_back(index[i]);
                if (passes_of(*src, candidate) == 1) {
                    sets[g] = std::move(candidate);
                    group_of[i] = g;
                }
            }
            if (group_of[i] != SIZE_MAX) continue;
            const std::size_t alone = passes_of(*src, {index[i]});
            if (alone == 0) return ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT;
            if (alone > 1) {
                too_big = true;
                continue;
            }
            group_of[i] = sets.size();
            sets.push_back({index[i]});
        }
        *groups = sets.size();
        return too_big ? ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT : ROCPROFILER_STATUS_SUCCESS;
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    }
}

}  // extern "C"
