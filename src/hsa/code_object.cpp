// src/hsa/code_object.cpp — CODE_OBJECT records and kernel ids.
//
// When some context configured CODE_OBJECT or KERNEL_DISPATCH (dispatch records carry kernel
// ids), the table slots hsa_executable_freeze and hsa_executable_destroy are replaced:
//   - after a successful freeze, each code object loaded into the executable (the AMD loader
//     extension lists them) gets a code_object_id (process-wide counter from 1) and a LOAD record
//     (phase LOAD), followed by one DEVICE_KERNEL_SYMBOL_REGISTER record (phase LOAD) per kernel
//     symbol of the executable on that code object's agent, with a kernel_id (process-wide
//     counter from 1) that kernel_id_of() maps back from the kernel object;
//   - before the runtime destroys the executable, the same records again with phase UNLOAD (for
//     each code object: its symbols, then the code object), each context getting the user_data
//     its LOAD callback left; then encore forgets them (strings stay valid until then).
// Records go only to CODE_OBJECT subscribers (event::capture). Code-object events of all
// threads are delivered under one (recursive) mutex, so an executable's LOAD records always
// precede its UNLOAD records.
#include "code_object.hpp"

#include "replay_gate.hpp"
#include "replay_memory.hpp"
#include "runtime.hpp"

#include "backend/events.hpp"
#include "backend/slot_hook.hpp"
#include "core/buffer.hpp"
#include "core/range_replay.hpp"
#include "core/warn.hpp"

#include <encore/tracing/tool.hpp>
#include <rocprofiler-sdk/callback_tracing.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace encore::hsa {

using backend::event;
using backend::subscribed;
namespace {

using symbol_payload = rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;
using load_payload = rocprofiler_callback_tracing_code_object_load_data_t;

struct symbol_rec {
    std::string name;  // kernel_name points here
    symbol_payload payload{};
    rocprofiler_user_data_t ud[tracing::max_contexts]{};  // what each context's LOAD left
};

struct code_object_rec {
    hsa_agent_t agent{};
    std::string uri;  // payload.uri points here
    load_payload payload{};
    rocprofiler_user_data_t ud[tracing::max_contexts]{};
    std::vector<std::unique_ptr<symbol_rec>> symbols;
};

using executable_rec = std::vector<std::unique_ptr<code_object_rec>>;

struct state {
    std::recursive_mutex delivery;  // freeze/destroy record processing, callbacks included
    std::shared_mutex ids_mutex;    // guards executables and kernel_ids
    std::unordered_map<std::uint64_t, executable_rec> executables;  // by executable handle
    std::unordered_map<std::uint64_t, std::uint64_t> kernel_ids;    // kernel object -> kernel id
    // Bumped (under ids_mutex held exclusively) on every change of kernel_ids: kernel_id_of's
    // per-thread cache is valid while it is unchanged.
    std::atomic<std::uint64_t> ids_generation{1};
    std::atomic<std::uint64_t> next_code_object{1}, next_kernel{1};
};

// Never destroyed (hooks may run on runtime threads until the process ends); emptied when the
// runtime unloads encore, so nothing is left allocated once the library is closed.
state& g() {
    alignas(state) static unsigned char storage[sizeof(state)];
    static state* s = new (storage) state;
    return *s;
}

hsa_ven_amd_loader_1_01_pfn_t g_loader{};  // written in install (before any hook runs)

template <class T>
bool co_info(hsa_loaded_code_object_t co, hsa_ven_amd_loader_loaded_code_object_info_t attr, T& out) {
    return g_loader.hsa_ven_amd_loader_loaded_code_object_get_info(co, attr, &out) == HSA_STATUS_SUCCESS;
}

hsa_status_t on_code_object(hsa_executable_t, hsa_loaded_code_object_t co, void* data) {
    auto* out = static_cast<executable_rec*>(data);
    try {
        auto rec = std::make_unique<code_object_rec>();
        auto& p = rec->payload;
        p.size = sizeof(p);
        (void)co_info(co, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT, rec->agent);
        p.agent_id.handle = rec->agent.handle;
        p.hsa_agent = rec->agent;
        std::uint32_t uri_length = 0;
        if (co_info(co, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH, uri_length) && uri_length > 0) {
            rec->uri.resize(uri_length);
            if (g_loader.hsa_ven_amd_loader_loaded_code_object_get_info(
                    co, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI, rec->uri.data()) != HSA_STATUS_SUCCESS)
                rec->uri.clear();
        }
        (void)co_info(co, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE, p.load_base);
        (void)co_info(co, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE, p.load_size);
        (void)co_info(co, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA, p.load_delta);
        std::uint32_t storage = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_NONE;
        (void)co_info(co, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE, storage);
        if (storage == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE) {
            p.storage_type = ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_FILE;
            int fd = -1;
            (void)co_info(co, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE, fd);
            p.storage_file = fd;
        } else if (storage == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY) {
            p.storage_type = ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY;
            (void)co_info(co, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE, p.memory_base);
            (void)co_info(co, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE, p.memory_size);
        } else {
            p.storage_type = ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_NONE;
        }
        p.code_object_id = g().next_code_object.fetch_add(1, std::memory_order_relaxed);
        out->push_back(std::move(rec));
    } catch (...) {
        // out of memory: this code object goes unreported
    }
    return HSA_STATUS_SUCCESS;
}

struct symbol_walk {
    executable_rec* cos;
};

template <class T>
bool symbol_info(hsa_executable_symbol_t s, hsa_executable_symbol_info_t attr, T& out) {
    return runtime().core.hsa_executable_symbol_get_info_fn(s, attr, &out) == HSA_STATUS_SUCCESS;
}

hsa_status_t on_symbol(hsa_executable_t, hsa_agent_t agent, hsa_executable_symbol_t sym, void* data) {
    auto* w = static_cast<symbol_walk*>(data);
    hsa_symbol_kind_t type{};
    if (!symbol_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, type) || type != HSA_SYMBOL_KIND_KERNEL)
        return HSA_STATUS_SUCCESS;
    try {
        auto rec = std::make_unique<symbol_rec>();
        auto& p = rec->payload;
        p.size = sizeof(p);
        std::uint32_t name_length = 0;
        if (symbol_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, name_length) && name_length > 0) {
            rec->name.resize(name_length);
            if (runtime().core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME,
                                                                 rec->name.data()) != HSA_STATUS_SUCCESS)
                rec->name.clear();
        }
        (void)symbol_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, p.kernel_object);
        (void)symbol_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, p.kernarg_segment_size);
        (void)symbol_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT, p.kernarg_segment_alignment);
        (void)symbol_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, p.group_segment_size);
        (void)symbol_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, p.private_segment_size);
        // The symbol belongs to the code object of its agent whose loaded image holds its kernel
        // descriptor, else to that agent's first code object.
        code_object_rec* owner = nullptr;
        for (auto& co : *w->cos) {
            if (co->agent.handle != agent.handle) continue;
            if (owner == nullptr) owner = co.get();
            if (p.kernel_object >= co->payload.load_base &&
                p.kernel_object - co->payload.load_base < co->payload.load_size) {
                owner = co.get();
                break;
            }
        }
        if (owner == nullptr) return HSA_STATUS_SUCCESS;
        p.code_object_id = owner->payload.code_object_id;
        p.kernel_id = g().next_kernel.fetch_add(1, std::memory_order_relaxed);
        owner->symbols.push_back(std::move(rec));
    } catch (...) {
    }
    return HSA_STATUS_SUCCESS;
}

// LOAD/UNLOAD of one record to the CODE_OBJECT subscribers of `op`; `ud` keeps each context's
// user_data from LOAD to UNLOAD.
void deliver(op_id op, rocprofiler_callback_phase_t phase, void* payload, rocprofiler_user_data_t* ud) noexcept {
    auto ev = event::capture(kind::code_object, op);
    if (!ev) return;
    ev->deliver_to(ev->mask, op, phase, payload, ud);
}

void load(hsa_executable_t exe) noexcept {
    auto& s = g();
    std::lock_guard dl(s.delivery);
    {
        // Reported already: report_loaded_code_objects and the freeze hook may both see a
        // freeze that completed while tracing was being installed.
        std::shared_lock lk(s.ids_mutex);
        if (s.executables.count(exe.handle) != 0) return;
    }
    executable_rec cos;
    if (g_loader.hsa_ven_amd_loader_executable_iterate_loaded_code_objects(exe, &on_code_object, &cos) !=
            HSA_STATUS_SUCCESS &&
        cos.empty())
        return;
    // Kernel symbols, once per agent.
    symbol_walk w{&cos};
    std::vector<std::uint64_t> agents_done;
    for (auto& co : cos) {
        bool done = false;
        for (auto a : agents_done) done = done || a == co->agent.handle;
        if (done) continue;
        try {
            agents_done.push_back(co->agent.handle);
        } catch (...) {
        }
        (void)runtime().core.hsa_executable_iterate_agent_symbols_fn(exe, co->agent, &on_symbol, &w);
    }
    for (auto& co : cos) {
        co->payload.uri = co->uri.c_str();
        for (auto& sym : co->symbols) sym->payload.kernel_name = sym->name.c_str();
    }
    // Known to kernel_id_of from now on.
    executable_rec* kept = nullptr;
    try {
        std::unique_lock lk(s.ids_mutex);
        for (auto& co : cos)
            for (auto& sym : co->symbols) s.kernel_ids[sym->payload.kernel_object] = sym->payload.kernel_id;
        s.ids_generation.fetch_add(1, std::memory_order_release);
        auto& slot = s.executables[exe.handle];
        for (auto& co : cos) slot.push_back(std::move(co));
        kept = &slot;
    } catch (...) {
        return;  // out of memory: neither recorded nor reported
    }
    // Records live in s.executables until the executable is destroyed, which takes s.delivery.
    for (auto& co : *kept) {
        deliver(ROCPROFILER_CODE_OBJECT_LOAD, ROCPROFILER_CALLBACK_PHASE_LOAD, &co->payload, co->ud);
        for (auto& sym : co->symbols)
            deliver(ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER, ROCPROFILER_CALLBACK_PHASE_LOAD,
                    &sym->payload, sym->ud);
    }
}

void unload(hsa_executable_t exe) noexcept {
    // Buffered records first (dispatches of this executable's kernels among them), so they reach
    // the tool before its UNLOAD callbacks; outside s.delivery, which a buffer callback may need.
    core::flush_all_buffers();
    auto& s = g();
    std::lock_guard dl(s.delivery);
    executable_rec cos;
    {
        std::unique_lock lk(s.ids_mutex);
        auto it = s.executables.find(exe.handle);
        if (it == s.executables.end()) return;
        cos.swap(it->second);
        s.executables.erase(it);
    }
    // Kernel ids stay known to kernel_id_of while the UNLOAD records are delivered.
    for (auto& co : cos) {
        for (auto& sym : co->symbols)
            deliver(ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER, ROCPROFILER_CALLBACK_PHASE_UNLOAD,
                    &sym->payload, sym->ud);
        deliver(ROCPROFILER_CODE_OBJECT_LOAD, ROCPROFILER_CALLBACK_PHASE_UNLOAD, &co->payload, co->ud);
    }
    std::unique_lock lk(s.ids_mutex);
    for (auto& co : cos)
        for (auto& sym : co->symbols) {
            auto it = s.kernel_ids.find(sym->payload.kernel_object);
            if (it != s.kernel_ids.end() && it->second == sym->payload.kernel_id) s.kernel_ids.erase(it);
        }
    s.ids_generation.fetch_add(1, std::memory_order_release);
}

hsa_status_t executable_freeze(hsa_executable_t exe, const char* options) noexcept {
    const hsa_status_t status = runtime().core.hsa_executable_freeze_fn(exe, options);
    if (status == HSA_STATUS_SUCCESS) {
        replay_memory::on_executable_frozen(exe);  // module variables a replay covers
        load(exe);
    }
    return status;
}

hsa_status_t executable_destroy(hsa_executable_t exe) noexcept {
    // An open range may have recorded dispatches of its kernels: a pass would re-dispatch code
    // that no longer exists (issue 40 item 4: each such range stalled until the pass timeout).
    if (core::range_replay::any_open()) {
        static constexpr core::range_replay::decline_reason why{
            ENCORE_RANGE_REPLAY_STATUS_EXECUTABLE_DESTROYED,
            "an executable was destroyed (hsa_executable_destroy) while a range was open: the range is not replayed"};
        core::range_replay::decline_all(why);
    }
    unload(exe);
    // Its module variables are not destroyed while a replay on their agent may snapshot or
    // restore them (agents in ascending order, like every multi-agent hold).
    std::vector<std::unique_ptr<replay_gate::shared_hold>> holds;
    try {
        for (std::uint64_t a : replay_memory::agents_of(exe))
            holds.push_back(std::make_unique<replay_gate::shared_hold>(a));
    } catch (...) {
    }
    replay_memory::on_executable_destroyed(exe);
    return runtime().core.hsa_executable_destroy_fn(exe);
}

}  // namespace

std::uint64_t kernel_id_of(std::uint64_t kernel_object) noexcept {
    // Called for every traced dispatch, mostly with the kernel of the one before: a one-entry
    // cache per thread spares the shared lock (its cache line is written by every thread).
    struct cached {
        std::uint64_t generation = 0, kernel_object = 0, id = 0;
    };
    thread_local cached c;
    auto& s = g();
    if (c.kernel_object == kernel_object && c.generation == s.ids_generation.load(std::memory_order_acquire))
        return c.id;
    std::shared_lock lk(s.ids_mutex);
    const auto it = s.kernel_ids.find(kernel_object);
    c = {s.ids_generation.load(std::memory_order_relaxed), kernel_object, it != s.kernel_ids.end() ? it->second : 0};
    return c.id;
}

bool kernarg_size_of(std::uint64_t kernel_object, std::uint64_t& size) noexcept {
    // A range replay records each dispatch's arguments once (range_replay.cpp): a linear walk is
    // fine there and keeps the per-dispatch lookup above free of a second map.
    auto& s = g();
    std::shared_lock lk(s.ids_mutex);
    for (const auto& [handle, cos] : s.executables)
        for (const auto& co : cos)
            for (const auto& sym : co->symbols)
                if (sym->payload.kernel_object == kernel_object) {
                    size = sym->payload.kernarg_segment_size;
                    return true;
                }
    return false;
}

bool install_code_object_tracing(::HsaApiTable& table) noexcept {
    if (!configured_operations(kind::code_object).any() && !configured_operations(kind::kernel_dispatch).any() &&
        !replay_memory::enabled())
        return false;
    if (table.core_ == nullptr || runtime().core.hsa_system_get_major_extension_table_fn == nullptr) return false;
    if (runtime().core.hsa_system_get_major_extension_table_fn(HSA_EXTENSION_AMD_LOADER, 1, sizeof(g_loader),
                                                               &g_loader) != HSA_STATUS_SUCCESS ||
        g_loader.hsa_ven_amd_loader_executable_iterate_loaded_code_objects == nullptr ||
        g_loader.hsa_ven_amd_loader_loaded_code_object_get_info == nullptr) {
        core::warn("the HSA runtime has no loader extension; code objects are not traced");
        return false;
    }
    (void)g();  // before any hook can run
    return backend::hook<&CoreApiTable::hsa_executable_freeze_fn>(table.core_, &executable_freeze) &&
           backend::hook<&CoreApiTable::hsa_executable_destroy_fn>(table.core_, &executable_destroy);
}

void report_loaded_code_objects() noexcept {
    // Version 1.03 of the loader extension lists executables; a runtime that has no such table
    // answers an error and the executables frozen before stay unreported (docs/c-api.md#late-tools).
    hsa_ven_amd_loader_1_03_pfn_t loader{};
    if (runtime().core.hsa_system_get_major_extension_table_fn == nullptr ||
        runtime().core.hsa_executable_get_info_fn == nullptr ||
        runtime().core.hsa_system_get_major_extension_table_fn(HSA_EXTENSION_AMD_LOADER, 1, sizeof(loader), &loader) !=
            HSA_STATUS_SUCCESS ||
        loader.hsa_ven_amd_loader_iterate_executables == nullptr)
        return;
    std::vector<hsa_executable_t> frozen;
    auto collect = [](hsa_executable_t exe, void* data) -> hsa_status_t {
        hsa_executable_state_t state{};
        if (runtime().core.hsa_executable_get_info_fn(exe, HSA_EXECUTABLE_INFO_STATE, &state) == HSA_STATUS_SUCCESS &&
            state == HSA_EXECUTABLE_STATE_FROZEN) {
            try {
                static_cast<std::vector<hsa_executable_t>*>(data)->push_back(exe);
            } catch (...) {
                return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
            }
        }
        return HSA_STATUS_SUCCESS;
    };
    // Outside the loader's iteration: load() calls back into the loader.
    (void)loader.hsa_ven_amd_loader_iterate_executables(collect, &frozen);
    // Not handed to replay_memory: a replay configured late covers what comes after it only.
    for (auto exe : frozen) load(exe);
}

void uninstall_code_object_tracing(::HsaApiTable& table) noexcept {
    if (table.core_ == nullptr) return;
    backend::unhook<&CoreApiTable::hsa_executable_freeze_fn>(table.core_, &executable_freeze,
                                                             runtime().core.hsa_executable_freeze_fn);
    backend::unhook<&CoreApiTable::hsa_executable_destroy_fn>(table.core_, &executable_destroy,
                                                              runtime().core.hsa_executable_destroy_fn);
    // The runtime is shutting down and destroys the executables still alive itself: they are
    // unloaded now (UNLOAD records), then everything encore kept goes.
    auto& s = g();
    std::lock_guard dl(s.delivery);
    std::vector<std::uint64_t> alive;
    {
        std::shared_lock lk(s.ids_mutex);
        try {
            for (auto& [handle, cos] : s.executables) alive.push_back(handle);
        } catch (...) {
        }
    }
    for (auto h : alive) unload(hsa_executable_t{h});
    std::unique_lock lk(s.ids_mutex);
    decltype(s.executables)().swap(s.executables);
    decltype(s.kernel_ids)().swap(s.kernel_ids);
    s.ids_generation.fetch_add(1, std::memory_order_release);
}

}  // namespace encore::hsa
