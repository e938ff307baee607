// src/hsa/replay_memory_regions.cpp — the table of covered memory (replay_memory_state.hpp) and
// what fills it: the runtime's allocations and frees, frozen executables' writable variables.
// Calls replay_memory_write_tracking.cpp (a freed region gives back its write-protection slot).
#include "replay_memory.hpp"
#include "replay_memory_state.hpp"

#include "runtime.hpp"

#include "core/range_replay.hpp"

#include <range/v3/algorithm/sort.hpp>
#include <range/v3/algorithm/unique.hpp>
#include <range/v3/range/conversion.hpp>
#include <hsa/hsa_ext_amd.h>

#include <mutex>

namespace encore::hsa::replay_memory {

using namespace detail;

namespace {

std::atomic<bool> g_enabled{false};

std::uint64_t owner_of(const void* p) noexcept {
    hsa_amd_pointer_info_t info{};
    info.size = sizeof(info);
    if (runtime().amd.hsa_amd_pointer_info_fn == nullptr ||
        runtime().amd.hsa_amd_pointer_info_fn(const_cast<void*>(p), &info, nullptr, nullptr, nullptr) !=
            HSA_STATUS_SUCCESS ||
        info.type != HSA_EXT_POINTER_TYPE_HSA)
        return 0;
    return info.agentOwner.handle;
}

bool is_gpu(std::uint64_t agent) noexcept {
    hsa_device_type_t t{};
    return agent != 0 &&
           runtime().core.hsa_agent_get_info_fn(hsa_agent_t{agent}, HSA_AGENT_INFO_DEVICE, &t) == HSA_STATUS_SUCCESS &&
           t == HSA_DEVICE_TYPE_GPU;
}

// Out of memory: not covered (a replay then may see accumulated values). A range already
// tracked (the same variable seen twice) is kept.
void insert(std::uintptr_t base, std::size_t size, std::uint64_t agent, std::uint64_t exe) noexcept {
    const auto lk = live().lock();
    (void)live().insert(base, size, agent, [exe](region& r) { r.executable = exe; });
}

struct variable_walk {
    hsa_executable_t exe;
};

hsa_status_t on_symbol(hsa_executable_t, hsa_agent_t agent, hsa_executable_symbol_t sym, void* data) {
    const auto& rt = runtime();
    hsa_symbol_kind_t kind{};
    if (rt.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) != HSA_STATUS_SUCCESS ||
        kind != HSA_SYMBOL_KIND_VARIABLE)
        return HSA_STATUS_SUCCESS;
    bool is_const = true;
    std::uint64_t addr = 0;
    std::uint32_t size = 0;
    if (rt.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST, &is_const) !=
            HSA_STATUS_SUCCESS ||
        rt.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &addr) !=
            HSA_STATUS_SUCCESS ||
        rt.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE, &size) !=
            HSA_STATUS_SUCCESS)
        return HSA_STATUS_SUCCESS;
    // Const and empty variables cannot change; the reference also skips > 1 GiB.
    if (is_const || size == 0 || addr == 0 || size > (1u << 30)) return HSA_STATUS_SUCCESS;
    insert(static_cast<std::uintptr_t>(addr), size, agent.handle, static_cast<variable_walk*>(data)->exe.handle);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t on_agent(hsa_agent_t agent, void* data) {
    if (is_gpu(agent.handle))
        (void)runtime().core.hsa_executable_iterate_agent_symbols_fn(static_cast<variable_walk*>(data)->exe, agent,
                                                                     &on_symbol, data);
    return HSA_STATUS_SUCCESS;
}

}  // namespace

void enable() noexcept { g_enabled.store(true, std::memory_order_release); }
bool enabled() noexcept { return g_enabled.load(std::memory_order_acquire); }

// Covered memory allocated or freed while a range is open: its start snapshot no longer
// describes what the passes would touch (and a freed region cannot be put back).
void declined_by_allocation() noexcept {
    if (!core::range_replay::any_open()) return;
    static constexpr core::range_replay::decline_reason why{
        ROCPROFILER_RANGE_REPLAY_STATUS_ALLOCATION_CHANGED_IN_RANGE,
        "device memory allocated or freed while a range was open: the range is not replayed"};
    core::range_replay::decline_all(why);
}

void detail::forget(region& r) noexcept {
    release_slot(r);
    if (r.kept) kept_bytes().fetch_sub(r.size, std::memory_order_relaxed);
    r.kept.reset();
    r.kept_tracked = false;
}

void on_allocate(void* base, std::size_t size, bool coarse_grained, bool kernarg) noexcept {
    if (!enabled() || base == nullptr || size == 0 || !coarse_grained || kernarg) return;
    const std::uint64_t agent = owner_of(base);
    if (!is_gpu(agent)) return;  // host memory is never covered
    insert(reinterpret_cast<std::uintptr_t>(base), size, agent, 0);
    declined_by_allocation();
}

void on_free(void* base) noexcept {
    if (!enabled()) return;
    auto lk = live().lock();
    if (region* r = live().find(reinterpret_cast<std::uintptr_t>(base)); r != nullptr && r->executable == 0) {
        live().erase(*r, forget);  // its write-protection slot and kept copy go with it
        lk.unlock();
        declined_by_allocation();
    }
}

void on_executable_frozen(hsa_executable_t exe) noexcept {
    if (!enabled()) return;
    variable_walk w{exe};
    (void)runtime().core.hsa_iterate_agents_fn(&on_agent, &w);
}

void on_executable_destroyed(hsa_executable_t exe) noexcept {
    if (!enabled()) return;
    const auto lk = live().lock();
    (void)live().erase_if([&](const region& r) { return r.executable == exe.handle; }, forget);
}

std::vector<std::uint64_t> agents_of(hsa_executable_t exe) noexcept {
    std::vector<std::uint64_t> out;
    if (!enabled()) return out;
    const auto lk = live().lock_shared();
    try {
        out = live().where([&](const region& r) { return r.executable == exe.handle; }) |
              ranges::views::transform(&region::device) | ranges::to<std::vector>();
    } catch (...) {
        return {};
    }
    ranges::sort(out);
    out.erase(ranges::unique(out), out.end());
    return out;
}

std::uint64_t footprint(std::uint64_t agent) noexcept {
    const auto lk = live().lock_shared();
    return backend::bytes_of(live().of_device(agent));
}

}  // namespace encore::hsa::replay_memory
