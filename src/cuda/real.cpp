// src/cuda/real.cpp — finding and loading the real driver (ENCORE_CUDA_DRIVER, else the usual
// driver directories; never this library itself), and the driver's exports encore forwards
// untraced: trampolines through tables filled from it when the library loads (see real.hpp).
#include "real.hpp"

#include "backend/exports.hpp"
#include "core/warn.hpp"

#include <encore/domains/cuda_driver.hpp>

#include <dlfcn.h>

#include <array>
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
        encore_cuda_forward_table[i] = p != nullptr ? p : reinterpret_cast<void*>(&encore_cuda_missing);
    }
    for (std::size_t i = 0; i < cuda_driver::size; ++i) {
        if (g_available[i]) continue;  // has a wrapper: not a trampoline
        void* p = h != nullptr ? ::dlsym(h, cuda_driver::c_names[i]) : nullptr;
        encore_unavailable_exports[i] = p != nullptr ? p : reinterpret_cast<void*>(&encore_cuda_missing);
    }
}

void** forward_slot(std::string_view name) noexcept {
    for (std::size_t i = 0; i < forward_count; ++i)
        if (name == forward_names[i])
            return encore_cuda_forward_table[i] != reinterpret_cast<void*>(&encore_cuda_missing)
                       ? &encore_cuda_forward_table[i]
                       : nullptr;
    return nullptr;
}

void** unavailable_slot(std::size_t op) noexcept {
    if (op >= cuda_driver::size || g_available[op] ||
        encore_unavailable_exports[op] == reinterpret_cast<void*>(&encore_cuda_missing))
        return nullptr;
    return &encore_unavailable_exports[op];
}

namespace {
// The slots pointed at hooks: {the driver's function, its hook}. Written at load only.
std::array<std::pair<void*, void*>, 16> g_hooked{};
std::size_t g_hooked_count = 0;
}  // namespace

void* hook_slot(void** slot, void* hook) noexcept {
    if (g_hooked_count == g_hooked.size()) {
        core::warn("libencore-cuda: no room to hook another driver export (real.cpp's g_hooked)");
        return nullptr;
    }
    void* real = *slot;
    g_hooked[g_hooked_count++] = {real, hook};
    *slot = hook;
    return real;
}

void* hook_for(void* real) noexcept {
    if (real == nullptr) return nullptr;
    for (std::size_t k = 0; k < g_hooked_count; ++k)
        if (g_hooked[k].first == real) return g_hooked[k].second;
    return nullptr;
}

}  // namespace encore::cuda
