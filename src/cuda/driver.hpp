// src/cuda/driver.hpp — libencore-cuda: encore's forwarding CUDA driver (prelude of the export
// files tools/gen_exports.py generates).
//
// Mechanism. The library is built as libcuda.so.1 and found ahead of the real driver
// (LD_LIBRARY_PATH, set by the launcher), so every way a program reaches the driver lands here:
//   - programs linked against the driver (driver API) bind its exported symbols to encore's;
//   - the CUDA runtime, static (nvcc's default) or shared, dlopen()s "libcuda.so.1", dlsym()s
//     cuGetProcAddress (4- and 5-argument versions) and cuInit from it, then fetches every
//     other function through cuGetProcAddress: encore's returns its wrapper for each function
//     the real one hands out, when the address proves which exported function (so which ABI
//     version) it is, and the real pointer otherwise.
// Each traced export is generated from the CUDA_DRIVER_API declaration (cuda_driver_ops.inc) and
// forwards through encore's wrapper (encore/tracing/wrapper.hpp) to the real driver, which this
// library dlopen()s by path (ENCORE_CUDA_DRIVER, else the usual driver directories). The
// driver's other exports (older ABI versions, cuGetExportTable, ...) jump to the real ones
// untouched (forward_exports.inc).
//
// Why not interpose dlsym or use CUPTI: a preloaded dlsym cannot preserve RTLD_NEXT semantics
// for other callers, and CUPTI's callback API costs ~95 ns per call (issue 8's measurement);
// a forwarding library costs one relaxed load and an indirect jump when no context wants a call.
#pragma once

#include "../core/exports.hpp"

#include <encore/domains/cuda_driver.hpp>
#include <encore/tracing/wrapper.hpp>

#include <atomic>
#include <cstring>
#include <string_view>
#include <tuple>

namespace encore::cuda {

enum class init_result {
    done_before,       // initialization had already run
    done_now,          // this call ran encore's tool initialization
    in_progress_here,  // called from a tool's initialization on this thread
};
/// Runs encore's initialization (once) and the driver's part of it (RUNTIME_INITIALIZATION).
init_result ensure_initialized() noexcept;
/// The real driver's function `name`, or null.
void* find_original(const char* name) noexcept;
void report_missing(const char* name) noexcept;

// ---- replay's layer (replay.cpp) ----------------------------------------------------------------
namespace replay {
/// Whether a KERNEL_REPLAY service is configured (fixed once tools are initialized).
bool enabled() noexcept;
void on_alloc(CUdeviceptr p, std::size_t size) noexcept;
void on_free(CUdeviceptr p) noexcept;
using launch_fn = CUresult (*)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                               unsigned int, unsigned int, CUstream, void**, void**);
CUresult launch(launch_fn real, CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                unsigned int by, unsigned int bz, unsigned int shared, CUstream stream, void** params, void** extra);
}  // namespace replay

/// Ops that get a layer between the wrapper and the driver while a replay service exists: the
/// allocation tracker (alloc/free) and the replay gate (launches).
template <std::size_t I>
constexpr int layer_role() noexcept {
    constexpr std::string_view n = domains::cuda_driver::names[I];
    if (n == "cuMemAlloc_v2") return 1;
    if (n == "cuMemFree_v2") return 2;
    if (n == "cuLaunchKernel" || n == "cuLaunchKernel_ptsz") return 3;
    return 0;
}

template <std::size_t I, class F = typename domains::cuda_driver::op_at<I>::function_type>
struct layer;
template <std::size_t I, class R, class... A>
struct layer<I, R(A...)> {
    static inline std::atomic<R (*)(A...)> real{nullptr};
    static R call(A... a) {
        R (*f)(A...) = real.load(std::memory_order_acquire);
        constexpr int role = layer_role<I>();
        if constexpr (role == 1) {
            const R r = f(a...);
            auto args = std::tuple<A...>(a...);
            if (r == CUDA_SUCCESS && std::get<0>(args) != nullptr) replay::on_alloc(*std::get<0>(args), std::get<1>(args));
            return r;
        } else if constexpr (role == 2) {
            replay::on_free(std::get<0>(std::tuple<A...>(a...)));
            return f(a...);
        } else if constexpr (role == 3) {
            return replay::launch(f, a...);
        } else {
            return f(a...);
        }
    }
};

/// What op I's wrapper forwards to: the driver's function, or replay's layer over it.
template <std::size_t I, class R, class... A>
R (*route(R (*real)(A...)))(A...) {
    if constexpr (layer_role<I>() != 0) {
        if (replay::enabled()) {
            layer<I>::real.store(real, std::memory_order_release);
            return &layer<I>::call;
        }
    }
    return real;
}

template <class D, std::size_t I, class F = typename D::template op_at<I>::function_type>
struct lazy;

template <class D, std::size_t I, class R, class... A>
struct lazy<D, I, R(A...)> {
    /// What wrapper<D, I>::next holds until the op's first call (or until cuGetProcAddress
    /// handed out the op and set it).
    static R first_call(A... a) {
        using op = typename D::template op_at<I>;
        const init_result s = ensure_initialized();
        R (*real)(A...) = nullptr;
        void* p = find_original(op::c_name());
        std::memcpy(&real, &p, sizeof(real));
        if (real == nullptr) {
            report_missing(op::c_name());
            return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
        }
        if (s != init_result::in_progress_here) real = route<I>(real);  // final configuration known
        tracing::wrapper<D, I>::next.store(real, std::memory_order_release);
        // This call started the tools: go through the wrapper again so it is traced like any
        // later call (the wrapper checked its subscribers before any context existed). Any other
        // first call was already traced by the wrapper that called this resolver.
        return s == init_result::done_now ? tracing::wrapper<D, I>::call(a...) : real(a...);
    }
};

}  // namespace encore::cuda

namespace encore::tracing {
template <std::size_t I>
struct initial_next<domains::cuda_driver, I> {
    static constexpr auto value = &cuda::lazy<domains::cuda_driver, I>::first_call;
};
}  // namespace encore::tracing

namespace encore::exports {
template <class D, std::size_t I, class... A>
[[gnu::always_inline]] inline auto forward(A... a) {
    return tracing::wrapper<D, I>::call(a...);
}
}  // namespace encore::exports
