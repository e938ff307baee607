// src/cuda/kernels.cpp — kernel symbol records for launched CUDA functions (kernels.hpp).
//
// The CUDA driver has no load-time list of a module's functions that the CUDA runtime's lazy
// loading would keep current, so a function is reported when it is first launched: the launch
// path checks a small per-thread cache of handles already reported (a hit costs a few loads),
// then a process-wide set under a mutex; only the first launch of a function asks the driver for
// its name (cuFuncGetName, or cuKernelGetName for the CUkernel handles the CUDA runtime launches:
// both CUDA 12.3+, looked up by name so that builds against an older cuda.h have them) and its
// attributes. A driver without either function gives no records (the tool then has only ids).
#include "kernels.hpp"

#include "real.hpp"

#include "core/exit_safe_local.hpp"
#include "backend/events.hpp"

#include <encore/tracing/tool.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace encore::cuda::kernels {
namespace {

using backend::event;
using symbol_payload = rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;
constexpr op_id register_op = ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER;

using get_name_t = CUresult (*)(const char**, void*);
using func_get_module_t = CUresult (*)(CUmodule*, CUfunction);
using func_get_attribute_t = CUresult (*)(int*, CUfunction_attribute, CUfunction);

struct driver_names {
    get_name_t func_name = real_fn<get_name_t>("cuFuncGetName");
    get_name_t kernel_name = real_fn<get_name_t>("cuKernelGetName");
    func_get_module_t func_module = real_fn<func_get_module_t>("cuFuncGetModule");
    func_get_attribute_t func_attribute = real_fn<func_get_attribute_t>("cuFuncGetAttribute");
};
const driver_names& names() noexcept {
    static const driver_names n;
    return n;
}

// Bumped by every unload: entries of an older generation (in the set and in the thread caches)
// count as not reported.
std::atomic<std::uint64_t> g_generation{1};

// Recursive: the record is delivered under it (so a function's record precedes every thread's
// first dispatch of it), and a tool's callback may launch a kernel itself on this thread.
std::recursive_mutex g_mutex;
// handle -> generation it was reported in; its name strings stay alive for the records' callbacks
// (kernel_name points into them while they run). Never destroyed: launches may come from
// thread_local destructors after static destruction.
struct reported_entry {
    std::uint64_t generation = 0;
    std::string name;
};
auto* g_reported = new std::unordered_map<CUfunction, reported_entry>;

struct thread_cache {
    static constexpr std::size_t size = 16;  // direct-mapped by handle
    std::array<CUfunction, size> f{};
    std::array<std::uint64_t, size> generation{};
};

std::size_t slot_of(CUfunction f) noexcept {
    const auto v = reinterpret_cast<std::uintptr_t>(f);
    return static_cast<std::size_t>((v >> 4) ^ (v >> 12)) % thread_cache::size;
}

/// The driver's name for a launched handle: a CUfunction's, else a CUkernel's; empty if neither.
std::string name_of(CUfunction f) noexcept {
    const char* n = nullptr;
    const auto& d = names();
    if (d.func_name != nullptr && d.func_name(&n, f) == CUDA_SUCCESS && n != nullptr) return n;
    n = nullptr;
    if (d.kernel_name != nullptr && d.kernel_name(&n, f) == CUDA_SUCCESS && n != nullptr) return n;
    return {};
}

}  // namespace

std::uint32_t attribute(CUfunction f, CUfunction_attribute a) noexcept {
    int v = 0;
    const auto& d = names();
    if (d.func_attribute == nullptr || d.func_attribute(&v, a, f) != CUDA_SUCCESS || v < 0) return 0;
    return static_cast<std::uint32_t>(v);
}

bool configured() noexcept { return configured_operations(kind::code_object)[register_op]; }

void announce(CUfunction f) noexcept {
    if (f == nullptr || backend::subscribed(kind::code_object, register_op) == 0) return;
    const std::uint64_t gen = g_generation.load(std::memory_order_acquire);
    thread_cache* const cache = core::exit_safe_local<thread_cache>::get();
    const std::size_t slot = slot_of(f);
    if (cache != nullptr && cache->f[slot] == f && cache->generation[slot] == gen) return;
    std::unique_lock lk(g_mutex);
    try {
        auto& e = (*g_reported)[f];
        if (e.generation != gen) {
            // First launch since the last unload. Under the lock, so a function's record goes out
            // once even when two threads launch it first at the same time.
            e.generation = gen;
            e.name = name_of(f);
            if (!e.name.empty()) {
                if (auto ev = event::capture(kind::code_object, register_op)) {
                    symbol_payload p{};
                    p.size = sizeof(p);
                    p.kernel_id = reinterpret_cast<std::uint64_t>(f);
                    CUmodule m = nullptr;
                    if (names().func_module != nullptr && names().func_module(&m, f) == CUDA_SUCCESS)
                        p.code_object_id = reinterpret_cast<std::uint64_t>(m);
                    p.kernel_name = e.name.c_str();
                    p.group_segment_size = attribute(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
                    p.private_segment_size = attribute(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
                    p.arch_vgpr_count = attribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS);
                    ev->deliver(ROCPROFILER_CALLBACK_PHASE_LOAD, &p);
                }
            }
        }
    } catch (...) {
        return;  // out of memory: this launch goes unnamed, a later one tries again
    }
    lk.unlock();
    if (cache != nullptr) {
        cache->f[slot] = f;
        cache->generation[slot] = gen;
    }
}

void on_unload() noexcept { g_generation.fetch_add(1, std::memory_order_acq_rel); }

}  // namespace encore::cuda::kernels
