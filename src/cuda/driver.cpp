// src/cuda/driver.cpp — cuGetProcAddress (encore's wrappers for what the driver hands out) and
// encore's initialization as seen from CUDA: the load constructor, RUNTIME_INITIALIZATION.
#include "driver.hpp"
#include "exec_hooks.hpp"
#include "profiler_hooks.hpp"
#include "real.hpp"

#include "core/kinds.hpp"
#include "core/range_replay.hpp"
#include "core/registration.hpp"
#include "core/registry.hpp"
#include "backend/events.hpp"

#include <encore/tracing/tool.hpp>

#include <array>
#include <atomic>
#include <cstring>
#include <unordered_map>
#include <utility>

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

// ---- cuGetProcAddress ---------------------------------------------------------------------------
using getproc_v1_t = CUresult (*)(const char*, void**, int, cuuint64_t);
using getproc_v2_t = CUresult (*)(const char*, void**, int, cuuint64_t, encore_proc_query_result*);

// Op I's wrapper; null for an op without a prototype in this build (never handed out).
template <std::size_t I>
constexpr void* wrapper_call() {
    if constexpr (cuda_driver::op_at<I>::available)
        return reinterpret_cast<void*>(&tracing::wrapper<cuda_driver, I>::call);
    else
        return nullptr;
}
template <std::size_t... I>
constexpr std::array<void*, sizeof...(I)> wrapper_calls(std::index_sequence<I...>) {
    return {wrapper_call<I>()...};
}
const std::array<void*, cuda_driver::size> g_calls = wrapper_calls(std::make_index_sequence<cuda_driver::size>{});
// Whether op I has a prototype in this build.
constexpr auto g_available = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, sizeof...(I)>{cuda_driver::op_at<I>::available...};
}
(std::make_index_sequence<cuda_driver::size>{});

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
        for (std::size_t i = 0; i < cuda_driver::size; ++i)
            if (g_available[i])
                if (void* p = find_original(cuda_driver::c_names[i])) out.ops.emplace(p, i);
        out.getproc_v1 = find_original("cuGetProcAddress");
        out.getproc_v2 = find_original("cuGetProcAddress_v2");
        return out;
    }();
    return m;
}

// What the program gets for a function the driver handed out: encore's wrapper when the address
// is one of the driver's exported functions encore has a prototype for (the export's name fixes
// the ABI), the hook of one that changes a graph exec without one (exec_hooks.hpp) or of the
// profiler API when it stands for roctx's control (profiler_hooks.hpp), else the real pointer.
void* substitute(void* real);

}  // namespace

}  // namespace encore::cuda

extern "C" ENCORE_EXPORT CUresult encore_getproc_v1(const char* symbol, void** pfn, int version,
                                                    cuuint64_t flags) __asm__("cuGetProcAddress");
extern "C" ENCORE_EXPORT CUresult encore_getproc_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                                    encore_proc_query_result* status) __asm__("cuGetProcAddress_v2");

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
    if (it == a.ops.end()) {          // not an export encore has a prototype for: untraced
        void* hook = hook_for(real);  // unless a hook stands for it (exec_hooks, profiler_hooks)
        return hook != nullptr ? hook : real;
    }
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

// At load: the kinds this library produces and the CUDA kind's names and argument iteration
// (before any tool configures), the real driver, and the forwarded exports' targets.
[[gnu::constructor]] void load() {
    core::register_kind_info(kind::cuda_driver_api, &core::kind_info_of<cuda_driver>);
    core::add_producer(tracing::produced_by::cuda);
    core::range_replay::backend_available();  // ranges record on CUDA (range_replay.cpp)
    bind_forwarded_exports();
    exec_hooks::bind();
    profiler_hooks::bind();
}

}  // namespace

void on_configured() noexcept { deliver_runtime_initialization(); }

}  // namespace encore::cuda
