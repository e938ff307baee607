// src/core/agents.cpp — rocprofiler_query_available_agents and encore::agents().
//
// The agent table is written once (register_agent_provider, from the HSA backend's OnLoad) and
// published through an atomic pointer; it, its strings and its arrays are never freed, so the
// pointers a tool received stay valid through finalization at exit. Asked before that on the
// software runtime, a provisional table from the runtime's topology is published first (the same
// agents and ids, fewer fields filled: docs/c-api.md#agents), and the registered one replaces it.
#include "agents.hpp"

#include <encore/tracing/agents.hpp>
#include <rocprofiler-sdk/agent.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

namespace encore::core {
namespace {

struct agent_table {
    bool provisional = false;  // from the topology before the runtime registered its agents
    std::vector<rocprofiler_agent_v0_t> agents;
    std::vector<const void*> pointers;  // what the C callback receives
    std::vector<char*> strings;         // owned copies, never freed
    // Owned copies of each agent's arrays (one vector per agent and array), never freed.
    std::vector<std::vector<rocprofiler_agent_mem_bank_t>> mem_banks;
    std::vector<std::vector<rocprofiler_agent_cache_t>> caches;
    std::vector<std::vector<rocprofiler_agent_io_link_t>> io_links;
};

std::mutex g_register_mutex;
std::atomic<const agent_table*> g_table{nullptr};
// The preview the runtime's table replaced (register_agent_provider), kept here: a tool may still
// hold its pointers, and a global keeps it reachable (LeakSanitizer would report it otherwise).
const agent_table* g_replaced_preview = nullptr;  // guarded by g_register_mutex

const char* own(agent_table& t, const char* s) {
    if (s == nullptr) s = "";
    const std::size_t n = std::strlen(s);
    char* copy = new char[n + 1];
    std::memcpy(copy, s, n + 1);
    t.strings.push_back(copy);
    return copy;
}

// The provider's array of `count` entries as one of ours (null when empty). Its buffer stays where
// it is when `store` grows: a vector that moves keeps its buffer.
template <class T>
const T* own(std::vector<std::vector<T>>& store, const T* items, std::uint32_t& count) {
    if (items == nullptr) count = 0;
    if (count == 0) return nullptr;
    store.emplace_back(items, items + count);
    return store.back().data();
}

// encore_sim_topology_agent_t of include/encore/sim/sim.h, spelt without the HSA headers
// (libencore does not use them): hsa_agent_t is one uint64_t, hsa_device_type_t an int enum.
struct sim_topology_agent {
    std::uint64_t agent;
    std::uint32_t type;  // 0 CPU, 1 GPU (HSA_DEVICE_TYPE_*)
    std::uint32_t node;
    char name[64];
};
using sim_topology_fn = std::size_t (*)(sim_topology_agent*, std::size_t);

// The agents before any runtime registered its own (a tool asking in its initialize, before
// hsa_init: Caliper does): the software runtime tells them without initializing
// (encore_sim_topology), with the handles its agents will have, so the ids are those the
// runtime's table gives after hsa_init. Null when no such runtime is in the process.
agent_table* preview_table() {
    auto topology = reinterpret_cast<sim_topology_fn>(::dlsym(RTLD_DEFAULT, "encore_sim_topology"));
    if (topology == nullptr) return nullptr;
    std::vector<sim_topology_agent> found(topology(nullptr, 0));
    found.resize(std::min(found.size(), topology(found.data(), found.size())));
    auto t = std::make_unique<agent_table>();
    t->provisional = true;
    std::int32_t gpu_index = 0;
    for (std::size_t i = 0; i < found.size(); ++i) {
        const auto& f = found[i];
        rocprofiler_agent_v0_t a{};
        a.size = sizeof(a);
        a.id.handle = f.agent;
        a.type = f.type == 1 ? ROCPROFILER_AGENT_TYPE_GPU : ROCPROFILER_AGENT_TYPE_CPU;
        a.node_id = f.node;
        a.logical_node_id = static_cast<std::int32_t>(i);  // as the runtime's table counts them
        a.logical_node_type_id = a.type == ROCPROFILER_AGENT_TYPE_GPU ? gpu_index++ : 0;
        char name[sizeof f.name + 1] = {};
        std::memcpy(name, f.name, sizeof f.name);
        a.name = own(*t, name);
        a.product_name = own(*t, name);
        a.model_name = own(*t, "");
        a.vendor_name = own(*t, "");
        a.uuid_string = own(*t, "");
        t->agents.push_back(a);
    }
    for (const auto& a : t->agents) t->pointers.push_back(&a);
    return t.release();
}

// The table to answer from: the runtime's, else (once) the preview. Null when neither exists.
const agent_table* current_table() noexcept {
    if (const agent_table* t = g_table.load(std::memory_order_acquire); t != nullptr) return t;
    std::lock_guard lk(g_register_mutex);
    if (const agent_table* t = g_table.load(std::memory_order_acquire); t != nullptr) return t;
    try {
        if (agent_table* t = preview_table(); t != nullptr) {
            g_table.store(t, std::memory_order_release);  // never freed: tools keep its pointers
            return t;
        }
    } catch (...) {
        // Out of memory: no preview; the query says HSA_NOT_LOADED.
    }
    return nullptr;
}

}  // namespace

void register_agent_provider(agent_provider provider) noexcept {
    if (provider == nullptr) return;
    std::lock_guard lk(g_register_mutex);
    // A preview (before hsa_init) gives way to the runtime's full description, the same agents
    // with the same ids; the preview stays allocated (a tool may hold its pointers).
    if (const agent_table* t = g_table.load(std::memory_order_acquire); t != nullptr && !t->provisional) return;
    try {
        auto* t = new agent_table;
        std::size_t n = provider(nullptr, 0);
        for (int attempt = 0; attempt < 4; ++attempt) {
            t->agents.assign(n, rocprofiler_agent_v0_t{});
            const std::size_t got = provider(t->agents.data(), t->agents.size());
            if (got <= t->agents.size()) {
                t->agents.resize(got);
                break;
            }
            n = got;
        }
        for (auto& a : t->agents) {
            a.size = sizeof(rocprofiler_agent_v0_t);
            a.name = own(*t, a.name);
            a.vendor_name = own(*t, a.vendor_name);
            a.product_name = own(*t, a.product_name);
            a.model_name = own(*t, a.model_name);
            a.uuid_string = own(*t, a.uuid_string);
            a.mem_banks = own(t->mem_banks, a.mem_banks, a.mem_banks_count);
            a.caches = own(t->caches, a.caches, a.caches_count);
            a.io_links = own(t->io_links, a.io_links, a.io_links_count);
        }
        for (const auto& a : t->agents) t->pointers.push_back(&a);
        if (const agent_table* old = g_table.load(std::memory_order_acquire); old != nullptr) g_replaced_preview = old;
        g_table.store(t, std::memory_order_release);  // never freed (see above)
    } catch (...) {
        // Out of memory while enumerating: the agents stay unknown (queries say HSA_NOT_LOADED).
    }
}

}  // namespace encore::core

namespace encore {

std::span<const rocprofiler_agent_v0_t> agents() noexcept {
    const core::agent_table* t = core::current_table();
    if (t == nullptr) return {};
    return {t->agents.data(), t->agents.size()};
}

rocprofiler_status_t query_agents(std::span<const rocprofiler_agent_v0_t>& out) noexcept {
    const core::agent_table* t = core::current_table();
    if (t == nullptr) {
        out = {};
        return ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED;
    }
    out = {t->agents.data(), t->agents.size()};
    return ROCPROFILER_STATUS_SUCCESS;
}

}  // namespace encore

extern "C" rocprofiler_status_t rocprofiler_query_available_agents(rocprofiler_agent_version_t version,
                                                                   rocprofiler_query_available_agents_cb_t callback,
                                                                   size_t agent_size, void* user_data) noexcept {
    // `version` may be any integer: compared as one (loading a value outside the enum's range
    // as rocprofiler_agent_version_t is undefined behaviour in C++).
    std::underlying_type_t<rocprofiler_agent_version_t> v = 0;
    std::memcpy(&v, &version, sizeof(v));
    if (v != ROCPROFILER_AGENT_INFO_VERSION_0 || callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (agent_size > sizeof(rocprofiler_agent_v0_t)) return ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI;
    // Before hsa_init on the software runtime: its topology (current_table). On ROCr before
    // hsa_init: HSA_NOT_LOADED (docs/c-api.md#agents).
    const encore::core::agent_table* t = encore::core::current_table();
    if (t == nullptr) return ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED;
    // The callback gets its own array of pointers: it may not write through ours.
    std::vector<const void*> pointers;
    try {
        pointers = t->pointers;
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    return callback(version, pointers.data(), pointers.size(), user_data);
}
