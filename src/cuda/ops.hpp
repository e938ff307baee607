// src/cuda/ops.hpp — the per-op layers: what a traced export with a role does beyond the generic
// wrapper (read its arguments, route to records, replay and the tracker), and route<I>, which
// puts op I's layer between its wrapper and the driver when a configured service needs it.
#pragma once

#include "calls.hpp"
#include "records.hpp"
#include "replay.hpp"
#include "tracker.hpp"

#include <encore/domains/cuda_driver.hpp>

#include <atomic>
#include <optional>
#include <string_view>
#include <tuple>

namespace encore::cuda {

/// Context destruction (cuCtxDestroy: `ctx`; a primary context's release or reset: `device`):
/// its pending COMPLETE/EXIT records go out first, and what encore kept of it is forgotten when
/// the context is gone (a later context may get the same handle).
CUresult teardown(CUcontext ctx, CUdevice device, bool reset, thunk call) noexcept;

enum class role {
    none,
    launch,
    alloc,          // cuMemAlloc_v2, cuMemAllocPitch_v2, cuMemAllocManaged, stream-ordered allocations
    free,           // cuMemFree_v2, cuMemFreeAsync
    vmm,            // cuMemCreate / cuMemRelease (VMEM records), cuMemMap (declines replay)
    copy,           // 1-D, 2-D and 3-D copies: records and the replay gate
    other_work,     // array, 3-D peer and batched copies, memsets: the replay gate only
    graph,          // cuGraphLaunch: the replay gate; graphs' kernels are never replayed
    teardown,       // context destruction: pending records first
    global,         // module variables: covered by replay (cuModuleGetGlobal, cuLibraryGetGlobal)
    unload,         // their module's unload
};

template <std::size_t I>
constexpr role role_of() noexcept {
    constexpr std::string_view n = domains::cuda_driver::names[I];
    constexpr auto base = n.ends_with("_ptsz") || n.ends_with("_ptds") ? n.substr(0, n.size() - 5) : n;
    if constexpr (base == "cuLaunchKernel" || base == "cuLaunchKernelEx" || base == "cuLaunchCooperativeKernel")
        return role::launch;
    else if constexpr (base == "cuMemAlloc_v2" || base == "cuMemAllocPitch_v2" || base == "cuMemAllocManaged" ||
                       base == "cuMemAllocAsync" || base == "cuMemAllocFromPoolAsync")
        return role::alloc;
    else if constexpr (base == "cuMemFree_v2" || base == "cuMemFreeAsync")
        return role::free;
    else if constexpr (base == "cuMemCreate" || base == "cuMemRelease" || base == "cuMemMap")
        return role::vmm;
    else if constexpr (base == "cuMemcpy" || base == "cuMemcpyAsync" || base == "cuMemcpyPeer" ||
                       base == "cuMemcpyPeerAsync" || base == "cuMemcpyHtoD_v2" || base == "cuMemcpyDtoH_v2" ||
                       base == "cuMemcpyDtoD_v2" || base == "cuMemcpyHtoDAsync_v2" || base == "cuMemcpyDtoHAsync_v2" ||
                       base == "cuMemcpyDtoDAsync_v2" || base == "cuMemcpy2D_v2" || base == "cuMemcpy2DUnaligned_v2" ||
                       base == "cuMemcpy2DAsync_v2" || base == "cuMemcpy3D_v2" || base == "cuMemcpy3DAsync_v2")
        return role::copy;
    else if constexpr (base.starts_with("cuMemcpy") || base.starts_with("cuMemset"))
        return role::other_work;
    else if constexpr (base == "cuGraphLaunch")
        return role::graph;
    else if constexpr (base == "cuModuleGetGlobal_v2" || base == "cuLibraryGetGlobal" || base == "cuLibraryGetManaged")
        return role::global;
    else if constexpr (base == "cuModuleUnload" || base == "cuLibraryUnload")
        return role::unload;
    else if constexpr (base == "cuCtxDestroy_v2" || base == "cuDevicePrimaryCtxRelease_v2" ||
                       base == "cuDevicePrimaryCtxReset_v2")
        return role::teardown;
    else
        return role::none;
}

/// Whether op I gets a layer, given the configured services (asked once per op).
template <std::size_t I>
bool layered() noexcept {
    constexpr role r = role_of<I>();
    if constexpr (r == role::none) {
        return false;
    } else {
        const bool replay = replay::enabled();
        switch (r) {
            case role::launch: return replay || records::dispatches_configured();
            case role::alloc:
            case role::free: return replay || records::allocations_configured();
            case role::vmm: return replay || records::allocations_configured();
            case role::copy: return replay || records::copies_configured();
            case role::other_work:
            case role::graph:
            case role::global:
            case role::unload: return replay;
            case role::teardown: return replay || records::dispatches_configured() || records::copies_configured();
            default: return false;
        }
    }
}

template <std::size_t I, class F = typename domains::cuda_driver::op_at<I>::function_type>
struct layer;
template <std::size_t I, class R, class... A>
struct layer<I, R(A...)> {
    static inline std::atomic<R (*)(A...)> real{nullptr};
    static constexpr std::string_view name = domains::cuda_driver::names[I];
    static constexpr bool per_thread = name.ends_with("_ptsz") || name.ends_with("_ptds");
    static constexpr bool starts(std::string_view p) noexcept { return name.starts_with(p); }

    static R call(A... a) {
        R (*f)(A...) = real.load(std::memory_order_acquire);
        auto t = std::tuple<A...>(a...);
        const auto forward = [&] { return f(a...); };
        constexpr role r = role_of<I>();
        if constexpr (r == role::launch) {
            launch_call c{};
            c.per_thread = per_thread;
            c.submit = thunk::of(forward);
            if constexpr (starts("cuLaunchKernelEx")) {
                const CUlaunchConfig* cfg = std::get<0>(t);
                if (cfg == nullptr) return f(a...);  // the driver's error
                c.f = std::get<1>(t);
                c.grid[0] = cfg->gridDimX, c.grid[1] = cfg->gridDimY, c.grid[2] = cfg->gridDimZ;
                c.block[0] = cfg->blockDimX, c.block[1] = cfg->blockDimY, c.block[2] = cfg->blockDimZ;
                c.shared = cfg->sharedMemBytes;
                c.stream = cfg->hStream;
            } else {
                c.f = std::get<0>(t);
                c.grid[0] = std::get<1>(t), c.grid[1] = std::get<2>(t), c.grid[2] = std::get<3>(t);
                c.block[0] = std::get<4>(t), c.block[1] = std::get<5>(t), c.block[2] = std::get<6>(t);
                c.shared = std::get<7>(t);
                c.stream = std::get<8>(t);
            }
            return replay::enabled() ? replay::launch(c) : records::launch(c);
        } else if constexpr (r == role::alloc) {
            CUdeviceptr* out = std::get<0>(t);
            const bool managed = starts("cuMemAllocManaged");
            if constexpr (starts("cuMemAllocPitch")) {
                // (dptr, pitch, width, height, element size): the size is pitch * height at EXIT.
                std::size_t at_exit = 0;
                const auto pitched = [&] {
                    const R res = f(a...);
                    if (res == CUDA_SUCCESS && std::get<1>(t) != nullptr) at_exit = *std::get<1>(t) * std::get<3>(t);
                    if (res == CUDA_SUCCESS && out != nullptr) tracker::on_alloc(*out, at_exit, false);
                    return res;
                };
                return records::allocate(ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, out, std::get<2>(t) * std::get<3>(t),
                                         thunk::of(pitched), &at_exit);
            } else {
                const auto tracked = [&] {
                    const R res = f(a...);
                    if (res == CUDA_SUCCESS && out != nullptr) tracker::on_alloc(*out, std::get<1>(t), managed);
                    return res;
                };
                return records::allocate(ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, out, std::get<1>(t),
                                         thunk::of(tracked));
            }
        } else if constexpr (r == role::free) {
            // Not while a replay on this context may snapshot or restore the memory.
            std::optional<tracker::work_hold> hold;
            if (replay::enabled()) hold.emplace();
            const auto untracked = [&] {
                const R res = f(a...);
                if (res == CUDA_SUCCESS) tracker::on_free(std::get<0>(t));
                return res;
            };
            return records::deallocate(ROCPROFILER_MEMORY_ALLOCATION_FREE, std::get<0>(t), thunk::of(untracked));
        } else if constexpr (r == role::vmm) {
            if constexpr (starts("cuMemCreate")) {
                // The allocation is a handle until mapped: its record's address is the handle.
                static_assert(sizeof(*std::get<0>(t)) == sizeof(CUdeviceptr));
                return records::allocate(ROCPROFILER_MEMORY_ALLOCATION_VMEM_ALLOCATE,
                                         reinterpret_cast<CUdeviceptr*>(std::get<0>(t)), std::get<1>(t),
                                         thunk::of(forward));
            } else if constexpr (starts("cuMemRelease")) {
                return records::deallocate(ROCPROFILER_MEMORY_ALLOCATION_VMEM_FREE,
                                           static_cast<CUdeviceptr>(std::get<0>(t)), thunk::of(forward), true);
            } else {
                const R res = f(a...);
                if (res == CUDA_SUCCESS) tracker::on_vmm_map();
                return res;
            }
        } else if constexpr (r == role::copy) {
            copy_call c{};
            c.per_thread = per_thread;
            c.async = name.find("Async") != std::string_view::npos;
            c.submit = thunk::of(forward);
            if constexpr (starts("cuMemcpy2D") || starts("cuMemcpy3D")) {  // (descriptor[, stream])
                const auto* d = std::get<0>(t);
                if constexpr (sizeof...(A) == 2) c.stream = std::get<1>(t);
                if (d == nullptr) {  // the driver's error, untraced as a copy
                    tracker::work_hold hold;
                    return f(a...);
                }
                describe(c, *d);
            } else if constexpr (starts("cuMemcpyPeer")) {  // (dst, dstCtx, src, srcCtx, bytes[, stream])
                c.direction = ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE;
                c.dst = std::get<0>(t), c.src = std::get<2>(t), c.bytes = std::get<4>(t);
                if constexpr (sizeof...(A) == 6) c.stream = std::get<5>(t);
            } else {
                if constexpr (starts("cuMemcpyHtoD")) c.direction = ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE;
                else if constexpr (starts("cuMemcpyDtoH")) c.direction = ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST;
                else if constexpr (starts("cuMemcpyDtoD")) c.direction = ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE;
                else c.direction = 0;  // cuMemcpy / cuMemcpyAsync: unified addressing
                c.dst = address(std::get<0>(t));
                c.src = address(std::get<1>(t));
                c.bytes = std::get<2>(t);
                if constexpr (sizeof...(A) == 4) c.stream = std::get<3>(t);
            }
            if (!replay::enabled()) return records::copy(c);
            tracker::work_hold hold;
            return records::copy(c);
        } else if constexpr (r == role::other_work) {
            tracker::work_hold hold;
            return f(a...);
        } else if constexpr (r == role::graph) {
            replay::on_graph_launch();
            tracker::work_hold hold;
            return f(a...);
        } else if constexpr (r == role::global) {
            // (dptr, bytes, module or library, name); managed variables mark their context. The
            // CUDA runtime asks for the address only (bytes null): the size is asked for here.
            std::size_t bytes = 0;
            std::size_t* size_out = std::get<1>(t) != nullptr ? std::get<1>(t) : &bytes;
            const R res = f(std::get<0>(t), size_out, std::get<2>(t), std::get<3>(t));
            if (res == CUDA_SUCCESS && std::get<0>(t) != nullptr && *size_out != 0) {
                if constexpr (starts("cuLibraryGetManaged")) tracker::on_alloc(*std::get<0>(t), *size_out, true);
                else tracker::on_global(*std::get<0>(t), *size_out, std::get<2>(t));
            }
            return res;
        } else if constexpr (r == role::unload) {
            tracker::work_hold hold;
            const R res = f(a...);
            if (res == CUDA_SUCCESS) tracker::on_unload(std::get<0>(t));
            return res;
        } else if constexpr (r == role::teardown) {
            if constexpr (starts("cuCtxDestroy")) return teardown(std::get<0>(t), 0, false, thunk::of(forward));
            else return teardown(nullptr, std::get<0>(t), starts("cuDevicePrimaryCtxReset"), thunk::of(forward));
        } else {
            return f(a...);
        }
    }
};

/// What op I's wrapper forwards to: the driver's function, or a layer over it.
template <std::size_t I, class R, class... A>
R (*route(R (*real)(A...)))(A...) {
    if constexpr (role_of<I>() != role::none) {
        if (layered<I>()) {
            layer<I>::real.store(real, std::memory_order_release);
            return &layer<I>::call;
        }
    }
    return real;
}

}  // namespace encore::cuda
