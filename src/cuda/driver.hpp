// src/cuda/driver.hpp — libencore-cuda: encore's forwarding CUDA driver. The prelude of the export
// files tools/gen_exports.py generates: the policy that ties encore's wrappers to the real driver
// (real.hpp) and to the per-op layers (ops.hpp).
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
// library dlopen()s by path (ENCORE_CUDA_DRIVER, else the usual driver directories: real.cpp).
// The driver's other exports (older ABI versions, cuGetExportTable, ...) jump to the real ones
// untouched (forward_exports.inc).
//
// Files, each calling only those below it:
//   driver      this prelude, cuGetProcAddress, initialization (the load constructor)
//   ops         the per-op layers: what each traced export with a role does
//   roles       which ops launch, copy, allocate, free, ... (a compile-time table)
//   replay      one replayed launch (KERNEL_REPLAY)
//   records     KERNEL_DISPATCH, MEMORY_COPY, MEMORY_ALLOCATION records
//   tracker     device memory per context, and the gates replay holds contexts by
//   calls       launches and copies normalized (what ops hands to records and replay)
//   real        the real driver: loading it, its functions, the forwarded exports
//
// Why not interpose dlsym or use CUPTI: a preloaded dlsym cannot preserve RTLD_NEXT semantics
// for other callers, and CUPTI's callback API costs ~95 ns per call (issue 8's measurement);
// a forwarding library costs one relaxed load and an indirect jump when no context wants a call.
#pragma once

#include "ops.hpp"
#include "real.hpp"

#include "backend/exports.hpp"
#include "backend/interposer.hpp"

#include <encore/domains/cuda_driver.hpp>
#include <encore/tracing/wrapper.hpp>

#include <cstddef>

namespace encore::cuda {

/// The driver's part of encore's initialization, once tools are configured (RUNTIME_INITIALIZATION).
void on_configured() noexcept;

/// libencore-cuda's policy for encore::backend::backend_init and encore::backend::lazy (backend/interposer.hpp).
struct policy {
    static constexpr const char* library = "libencore-cuda";
    static constexpr const char* runtime = "the CUDA driver";
    static void* find_original(const char* name) noexcept { return cuda::find_original(name); }
    template <class D, std::size_t I, class R, class... A>
    static R (*original())(A...) {
        return encore::backend::by_name<policy, D, I, R, A...>();
    }
    static void on_configured() noexcept { cuda::on_configured(); }
    template <class R>
    static R missing_result() noexcept {
        return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
    }
    template <class D, std::size_t I, class R, class... A>
    static R (*route(R (*real)(A...)))(A...) {
        return cuda::route<I>(real);
    }
};
using init = encore::backend::backend_init<policy>;

}  // namespace encore::cuda

namespace encore::tracing {
template <std::size_t I>
struct initial_next<domains::cuda_driver, I> {
    static constexpr auto value = &encore::backend::lazy<domains::cuda_driver, I, cuda::policy>::first_call;
};
}  // namespace encore::tracing
