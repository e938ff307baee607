// src/cuda/real.cpp — finding and loading the real driver (ENCORE_CUDA_DRIVER, else the usual
// driver directories; never this library itself), and the driver's exports encore forwards
// untraced: trampolines through tables filled from it when the library loads (see real.hpp).
#include "real.hpp"

#include "graph_nodes.hpp"
#include "roles.hpp"

#include "backend/exports.hpp"
#include "core/warn.hpp"

#include <encore/domains/cuda_driver.hpp>

#include <dlfcn.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>

using encore::domains::cuda_driver;

/// Lets encore tell itself apart from the real driver when searching for it.
extern "C" {
ENCORE_EXPORT int encore_cuda_forwarding_driver = 1;
}

namespace encore::cuda {
namespace {

// ---- the real driver ---------------------------------------------------------------------------
constexpr const char* driver_paths[] = {
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1",
    "/usr/lib/wsl/lib/libcuda.so.1",          "/usr/lib/libcuda.so.1",
};

void* open_driver() noexcept {
    auto try_open = [](const char* path) -> void* {
        void* h = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h == nullptr) return nullptr;
        // Never ourselves (a path that leads back to this library).
        if (::dlsym(h, "encore_cuda_forwarding_driver") != nullptr) {
            ::dlclose(h);
            return nullptr;
        }
        return h;
    };
    if (const char* p = std::getenv("ENCORE_CUDA_DRIVER"); p != nullptr && *p != '\0') {
        if (void* h = try_open(p)) return h;
        core::warn("libencore-cuda: cannot load ENCORE_CUDA_DRIVER=%s: %s", p, ::dlerror());
    }
    for (const char* p : driver_paths)
        if (void* h = try_open(p)) return h;
    core::warn("libencore-cuda: the CUDA driver (libcuda.so.1) was not found; set ENCORE_CUDA_DRIVER");
    return nullptr;
}

void* driver() noexcept {
    static void* const h = open_driver();
    return h;
}

// ---- forwarded exports ------------------------------------------------------------------------
constexpr const char* forward_names[] = {
#define ENCORE_CUDA_FORWARD(i, name) #name,
#include "forward_exports.inc"
#undef ENCORE_CUDA_FORWARD
};
constexpr std::size_t forward_count = sizeof(forward_names) / sizeof(forward_names[0]);

// Whether op I has a prototype in this build (constant: usable from the load constructor).
constexpr auto g_available = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, sizeof...(I)>{cuda_driver::op_at<I>::available...};
}
(std::make_index_sequence<cuda_driver::size>{});

extern "C" CUresult encore_cuda_missing() { return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED; }

// ---- exports that change a graph exec, without a typed wrapper --------------------------------
// An exec changed after instantiation must have its plan declined (graph_nodes::on_update), or
// kernel replay would launch its nodes as they were instantiated: another kernel, or the old
// arguments. The typed graph_update ops do that in their role layer (ops.hpp). Two kinds of
// export make the same change without a typed wrapper: the v1 ABIs that programs built with CUDA
// 11 call (in forward_exports.inc; CUDA 12's cuda.h maps both names to _v2), and the graph_update
// ops this build's cuda.h lacks (api::unavailable: a build against CUDA 11.8's header). Their jumps
// go through a hook instead, which declines the plan (whatever the call's result, as the role
// layer does) and then calls the driver. It does not trace the call: these have no op id.
constexpr std::string_view v1_exec_changes[] = {"cuGraphExecUpdate", "cuGraphExecKernelNodeSetParams"};
constexpr std::size_t graph_update_ops = [] {
    std::size_t n = 0;
    for (const auto& r : roles) n += r.role == role::graph_update ? 1 : 0;
    return n;
}();
constexpr std::size_t exec_hook_slots = 12;
static_assert(graph_update_ops + std::size(v1_exec_changes) <= exec_hook_slots,
              "real.cpp: more exports change a graph exec than there are hooks (exec_hook_slots)");

// The driver's function each hook calls; written at load only (bind_forwarded_exports).
std::array<void*, exec_hook_slots> g_exec_hook_real{};
std::size_t g_exec_hooks = 0;

// Every export hooked here takes the exec first and at most six integer or pointer arguments in
// all (cuGraphExecUpdate v1 has the most: exec, graph, error node, result), so passing six
// registers on reaches the driver exactly as the program called it.
using six_args = CUresult (*)(std::uintptr_t, std::uintptr_t, std::uintptr_t, std::uintptr_t, std::uintptr_t,
                              std::uintptr_t);
template <std::size_t K>
CUresult exec_change_hook(std::uintptr_t exec, std::uintptr_t a1, std::uintptr_t a2, std::uintptr_t a3,
                          std::uintptr_t a4, std::uintptr_t a5) {
    graph_nodes::on_update(reinterpret_cast<CUgraphExec>(exec));
    six_args f = nullptr;
    std::memcpy(&f, &g_exec_hook_real[K], sizeof(f));
    return f(exec, a1, a2, a3, a4, a5);
}
constexpr auto g_exec_hook_fns = []<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<six_args, sizeof...(K)>{&exec_change_hook<K>...};
}
(std::make_index_sequence<exec_hook_slots>{});

// What an export bound to the driver's `real` jumps to: a new hook when it changes an exec (and
// the driver has it), else `real`.
void* bind_export(void* real, bool changes_exec) noexcept {
    if (!changes_exec || real == reinterpret_cast<void*>(&encore_cuda_missing)) return real;
    const std::size_t k = g_exec_hooks++;  // within the slots: the static_assert above
    g_exec_hook_real[k] = real;
    return reinterpret_cast<void*>(g_exec_hook_fns[k]);
}

bool is_v1_exec_change(std::string_view name) noexcept {
    for (const std::string_view n : v1_exec_changes)
        if (n == name) return true;
    return false;
}

}  // namespace
}  // namespace encore::cuda

// The trampolines jump through this table; filled when the library loads, before any program
// code can call them (a dependency's constructors run first).
extern "C" {
__attribute__((visibility("hidden"))) void* encore_cuda_forward_table[encore::cuda::forward_count];
// The same for the ops this build's cuda.h lacks (api::unavailable: ENCORE_EXPORT_UNAVAILABLE in
// the generated exports), by op id; the other entries stay null.
__attribute__((visibility("hidden"))) void* encore_unavailable_exports[cuda_driver::size];
}

#define ENCORE_CUDA_FORWARD(i, name)                                                                              \
    asm(".text\n.globl " #name "\n.type " #name ", @function\n" #name ":\n\tjmp *encore_cuda_forward_table+8*" #i \
        "(%rip)\n.size " #name ", .-" #name "\n");
#include "forward_exports.inc"
#undef ENCORE_CUDA_FORWARD

namespace encore::cuda {

void* find_original(const char* name) noexcept {
    void* h = driver();
    return h != nullptr ? ::dlsym(h, name) : nullptr;
}

void bind_forwarded_exports() noexcept {
    void* h = driver();
    for (std::size_t i = 0; i < forward_count; ++i) {
        void* p = h != nullptr ? ::dlsym(h, forward_names[i]) : nullptr;
        encore_cuda_forward_table[i] = bind_export(p != nullptr ? p : reinterpret_cast<void*>(&encore_cuda_missing),
                                                   is_v1_exec_change(forward_names[i]));
    }
    for (std::size_t i = 0; i < cuda_driver::size; ++i) {
        if (g_available[i]) continue;  // has a wrapper: not a trampoline
        void* p = h != nullptr ? ::dlsym(h, cuda_driver::c_names[i]) : nullptr;
        encore_unavailable_exports[i] = bind_export(p != nullptr ? p : reinterpret_cast<void*>(&encore_cuda_missing),
                                                    roles[i].role == role::graph_update);
    }
}

void* exec_change_hook(void* real) noexcept {
    if (real == nullptr) return nullptr;
    for (std::size_t k = 0; k < g_exec_hooks; ++k)
        if (g_exec_hook_real[k] == real) return reinterpret_cast<void*>(g_exec_hook_fns[k]);
    return nullptr;
}

}  // namespace encore::cuda
