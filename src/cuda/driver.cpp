// src/cuda/driver.cpp — the real driver, cuGetProcAddress, the forwarded exports, and encore's
// initialization as seen from CUDA (see driver.hpp).
#include "driver.hpp"
#include "real.hpp"

#include "core/kinds.hpp"
#include "core/registration.hpp"
#include "core/registry.hpp"
#include "core/warn.hpp"
#include "backend/events.hpp"

#include <encore/tracing/tool.hpp>

#include <dlfcn.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

// cuda.h maps cuGetProcAddress to the 5-argument cuGetProcAddress_v2; the driver also exports
// the 4-argument original under the plain name. Both are defined below under their symbol names.
#undef cuGetProcAddress

// cuGetProcAddress_v2's last parameter's type (CUDA 12.0); built against an older cuda.h the
// export keeps its ABI (a pointer to an enum) under a stand-in type.
#if CUDA_VERSION >= 12000
using encore_proc_query_result = CUdriverProcAddressQueryResult;
#else
using encore_proc_query_result = int;
#endif

using encore::domains::cuda_driver;

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

#define ENCORE_CUDA_FORWARD(i, name)                                                                          \
    asm(".text\n.globl " #name "\n.type " #name ", @function\n" #name ":\n\tjmp *encore_cuda_forward_table+8*" #i \
        "(%rip)\n.size " #name ", .-" #name "\n");
#include "forward_exports.inc"
#undef ENCORE_CUDA_FORWARD

namespace encore::cuda {
namespace {

// ---- cuGetProcAddress ---------------------------------------------------------------------------
using getproc_v1_t = CUresult (*)(const char*, void**, int, cuuint64_t);
using getproc_v2_t = CUresult (*)(const char*, void**, int, cuuint64_t, encore_proc_query_result*);

// Op I's wrapper; null for an op without a prototype in this build (never handed out).
template <std::size_t I>
constexpr void* wrapper_call() {
    if constexpr (cuda_driver::op_at<I>::available) return reinterpret_cast<void*>(&tracing::wrapper<cuda_driver, I>::call);
    else return nullptr;
}
template <std::size_t... I>
constexpr std::array<void*, sizeof...(I)> wrapper_calls(std::index_sequence<I...>) {
    return {wrapper_call<I>()...};
}
const std::array<void*, cuda_driver::size> g_calls = wrapper_calls(std::make_index_sequence<cuda_driver::size>{});
// Whether op I has a prototype in this build (constant: usable from the load constructor).
constexpr auto g_available = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, sizeof...(I)>{cuda_driver::op_at<I>::available...};
}(std::make_index_sequence<cuda_driver::size>{});

// Gives op I's wrapper the real function the driver handed out, while it still holds the lazy
// resolver (the same real function either way).
template <std::size_t I>
void set_next_one(void* real) noexcept {
    if constexpr (cuda_driver::op_at<I>::available) {  // else: never handed out (not in addresses().ops)
        using W = tracing::wrapper<cuda_driver, I>;
        auto f = W::next.load(std::memory_order_acquire);
        if (f != tracing::initial_next<cuda_driver, I>::value) return;
        decltype(f) r = nullptr;
        std::memcpy(&r, &real, sizeof(r));
        W::next.compare_exchange_strong(f, route<I>(r), std::memory_order_acq_rel);
    } else {
        (void)real;
    }
}
template <std::size_t... I>
constexpr std::array<void (*)(void*) noexcept, sizeof...(I)> setters(std::index_sequence<I...>) {
    return {&set_next_one<I>...};
}
constexpr auto g_set_next = setters(std::make_index_sequence<cuda_driver::size>{});


struct address_map {
    std::unordered_map<void*, std::size_t> ops;  // the real driver's exported function -> op
    void* getproc_v1 = nullptr;
    void* getproc_v2 = nullptr;
};

const address_map& addresses() {
    static const address_map m = [] {
        address_map out;
        void* h = driver();
        if (h == nullptr) return out;
        for (std::size_t i = 0; i < cuda_driver::size; ++i)
            if (g_available[i])
                if (void* p = ::dlsym(h, cuda_driver::c_names[i])) out.ops.emplace(p, i);
        out.getproc_v1 = ::dlsym(h, "cuGetProcAddress");
        out.getproc_v2 = ::dlsym(h, "cuGetProcAddress_v2");
        return out;
    }();
    return m;
}

// What the program gets for a function the driver handed out: encore's wrapper when the address
// is one of the driver's exported functions encore has a prototype for (the export's name fixes
// the ABI), else the real pointer.
void* substitute(void* real);

}  // namespace

}  // namespace encore::cuda

extern "C" ENCORE_EXPORT CUresult encore_getproc_v1(const char* symbol, void** pfn, int version, cuuint64_t flags) __asm__("cuGetProcAddress");
extern "C" ENCORE_EXPORT CUresult encore_getproc_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                                    encore_proc_query_result* status) __asm__("cuGetProcAddress_v2");
/// Lets encore tell itself apart from the real driver when searching for it.
extern "C" {
ENCORE_EXPORT int encore_cuda_forwarding_driver = 1;
}

namespace encore::cuda {
namespace {
/// Either cuGetProcAddress: the driver's (`which`), then encore's wrapper for what it handed out.
template <class F, class... A>
CUresult getproc(void* address_map::*which, const char* symbol, void** pfn, A... rest) noexcept {
    (void)init::ensure();
    void* p = addresses().*which;
    if (p == nullptr) return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
    F real = nullptr;
    std::memcpy(&real, &p, sizeof(real));
    const CUresult r = real(symbol, pfn, rest...);
    if (r == CUDA_SUCCESS && pfn != nullptr && *pfn != nullptr) *pfn = substitute(*pfn);
    return r;
}
}  // namespace
}  // namespace encore::cuda

extern "C" CUresult encore_getproc_v1(const char* symbol, void** pfn, int version, cuuint64_t flags) {
    using namespace encore::cuda;
    return getproc<getproc_v1_t>(&address_map::getproc_v1, symbol, pfn, version, flags);
}

extern "C" CUresult encore_getproc_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                      encore_proc_query_result* status) {
    using namespace encore::cuda;
    return getproc<getproc_v2_t>(&address_map::getproc_v2, symbol, pfn, version, flags, status);
}

namespace encore::cuda {
namespace {

void* substitute(void* real) {
    const auto& a = addresses();
    if (real == a.getproc_v1) return reinterpret_cast<void*>(&encore_getproc_v1);
    if (real == a.getproc_v2) return reinterpret_cast<void*>(&encore_getproc_v2);
    const auto it = a.ops.find(real);
    if (it == a.ops.end()) return real;  // not an export encore has a prototype for: untraced
    // Choosing the target (the replay layer or not) needs the tools' final configuration: until
    // then the op keeps its lazy resolver, which finds the same function by name.
    if (init::done()) g_set_next[it->second](real);
    return g_calls[it->second];
}

// ---- initialization ---------------------------------------------------------------------------
void deliver_runtime_initialization() noexcept {
    backend::deliver_runtime_initialization(ROCPROFILER_RUNTIME_INITIALIZATION_CUDA, [] {
        int version = 0;
        if (real().driver_get_version == nullptr || real().driver_get_version(&version) != CUDA_SUCCESS) version = 0;
        return static_cast<std::uint64_t>(version);
    });
}

constinit const core::kind_info g_kind_info = core::api_kind_info<cuda_driver>();

// At load: the kinds this library produces and the CUDA kind's names and argument iteration
// (before any tool configures), the real driver, and the forwarded exports' targets.
[[gnu::constructor]] void load() {
    core::register_kind_info(kind::cuda_driver_api, &g_kind_info);
    core::set_kind_produced(kind::cuda_driver_api, true);
    core::set_kind_produced(kind::runtime_initialization, true);
    core::set_kind_produced(kind::kernel_replay, true);
    core::set_kind_produced(kind::kernel_dispatch, true);
    core::set_kind_produced(kind::memory_copy, true);
    core::set_kind_produced(kind::memory_allocation, true);
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

}  // namespace

void* find_original(const char* name) noexcept {
    void* h = driver();
    return h != nullptr ? ::dlsym(h, name) : nullptr;
}

void on_configured() noexcept { deliver_runtime_initialization(); }

}  // namespace encore::cuda
