// src/core/counting.cpp — counters and the dispatch counting service (counting.hpp): the
// counter catalogue, the counter sources the backends register, configs, the contexts' services
// (their state: counting_state.hpp), and the values and records of one measured dispatch. The C
// API of counters.h, counter_config.h, dispatch_counting_service.h and device_counting_service.h
// is counting_api.cpp's.
//
// All state is fixed-size and lock-free to read: a dispatch (its begin on the submitting thread,
// its complete on the completion thread) never takes a lock or allocates. Creating a config may
// happen at any time (tools create them lazily, from the dispatch callback), so configs are slots
// published by a release store of the count; nothing is ever freed (a destroyed config's slot
// stays, marked dead).
#include "counting_state.hpp"

#include "buffer.hpp"
#include "registry.hpp"
#include "warn.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace encore::core::counting {
namespace detail {
namespace {

constexpr std::uint32_t max_counter_id = 0xffff;
constexpr std::size_t max_catalogues = 64;
catalogue* g_catalogues[max_catalogues];
std::atomic<std::size_t> g_catalogue_count{0};
std::uint32_t g_next_id = counter_count + 1;  // under g_source_mutex

source_slot g_sources[max_sources];
std::atomic<std::size_t> g_source_count{0};
std::mutex g_source_mutex;

}  // namespace

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

const source_slot* find_slot(std::uint64_t agent) noexcept {
    const std::size_t n = g_source_count.load(std::memory_order_acquire);  // pairs with register_source
    for (std::size_t i = 0; i < n; ++i)
        if (g_sources[i].builtin.agent == agent) return &g_sources[i];
    return nullptr;
}

config_slot g_configs[max_configs];
std::atomic<std::size_t> g_config_count{0};
std::mutex g_config_mutex;

config_slot* find_config(std::uint64_t handle) noexcept {
    if (handle == 0 || handle > g_config_count.load(std::memory_order_acquire)) return nullptr;  // pairs with create
    config_slot& c = g_configs[handle - 1];
    return c.alive.load(std::memory_order_acquire) ? &c : nullptr;
}

service g_services[tracing::max_contexts];
std::atomic<std::uint64_t> g_configured{0};

}  // namespace detail

using namespace detail;

namespace {

/// The software runtime's source of `agent` (null: none, or a backend's catalogue).
const source* find_source(std::uint64_t agent) noexcept {
    const source_slot* s = find_slot(agent);
    return s != nullptr && s->cat == nullptr ? &s->builtin : nullptr;
}

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
