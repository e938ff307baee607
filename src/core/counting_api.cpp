// src/core/counting_api.cpp — the C API of counters and the dispatch counting service: counters.h
// (the catalogue, counter info and dimensions), counter_config.h, dispatch_counting_service.h,
// dispatch_profile.h, device_counting_service.h (not implemented) and encore/counters.h (counters
// by name, pass scheduling). It reads and creates counting.cpp's state (counting_state.hpp);
// the dispatches never come here.
#include "counting_state.hpp"

#include "buffer.hpp"
#include "registry.hpp"
#include "enum_bits.hpp"

#include <encore/tracing/agents.hpp>
#include <rocprofiler-sdk/device_counting_service.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <type_traits>
#include <vector>

using namespace encore;
using core::bits_of;
using namespace encore::core::counting;
using namespace encore::core::counting::detail;

namespace {

const char* const instance_dimension_name = "DIMENSION_INSTANCE";

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

}  // namespace

// ---- the C API --------------------------------------------------------------------------------
namespace {


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
