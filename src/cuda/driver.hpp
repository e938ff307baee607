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

#include "backend/exports.hpp"
#include "backend/interposer.hpp"
#include "real.hpp"

#include <encore/domains/cuda_driver.hpp>
#include <encore/tracing/wrapper.hpp>

#include <atomic>
#include <cstring>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace encore::cuda {

/// The driver's part of encore's initialization, once tools are configured (RUNTIME_INITIALIZATION).
void on_configured() noexcept;

// ---- layers between a wrapper and the driver (records.cpp, replay.cpp) -------------------------
/// A call to the driver, kept for the duration of the layer's call: invoking it forwards the
/// program's arguments to the real function (again, for each replay pass).
struct thunk {
    CUresult (*fn)(const void*) = nullptr;
    const void* self = nullptr;
    CUresult operator()() const noexcept { return fn(self); }
    template <class L>
    static thunk of(const L& l) noexcept {
        return {[](const void* p) -> CUresult { return (*static_cast<const L*>(p))(); }, &l};
    }
};

/// The stream work submitted with `s` runs on: a per-thread (_ptsz/_ptds) export's stream 0 is
/// the calling thread's default stream.
inline CUstream work_stream(CUstream s, bool per_thread) noexcept {
    return s == nullptr && per_thread ? CU_STREAM_PER_THREAD : s;
}

/// One kernel launch (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel, and their
/// per-thread-stream variants), normalized.
struct launch_call {
    CUfunction f;
    unsigned grid[3];   // in blocks
    unsigned block[3];  // in threads
    unsigned shared;
    CUstream stream;
    bool per_thread;  // a _ptsz export: stream 0 means the calling thread's default stream
    thunk submit;
    [[nodiscard]] CUstream work_stream() const noexcept { return cuda::work_stream(stream, per_thread); }
};

/// Where one side of a copy is, when the call says (2-D/3-D descriptors' memory types).
enum class copy_side : unsigned char { by_address, host, device };

/// One copy (the 1-D cuMemcpy* and the 2-D/3-D descriptor forms), normalized. direction 0:
/// classify each side from `src_side`/`dst_side`, asking the driver about the address where
/// those say by_address (unified addressing).
struct copy_call {
    op_id direction;
    copy_side src_side, dst_side;
    CUdeviceptr dst, src;  // the first byte copied on each side (2-D/3-D: base + offsets)
    std::size_t bytes;
    CUstream stream;
    bool per_thread;  // a _ptds/_ptsz export
    bool async;       // returns before the copy completes (EXIT comes from the completion thread)
    thunk submit;
    [[nodiscard]] CUstream work_stream() const noexcept { return cuda::work_stream(stream, per_thread); }
};

template <class T>
CUdeviceptr address(T v) noexcept {
    if constexpr (std::is_pointer_v<T>) return reinterpret_cast<CUdeviceptr>(v);
    else return static_cast<CUdeviceptr>(v);
}

/// One side of a 2-D/3-D descriptor: where it is and the address of its first byte (`offset`:
/// the X/Y/Z offsets in bytes; an array's side is its handle, offsets not applied).
inline void describe_side(CUmemorytype type, const void* host, CUdeviceptr device, CUarray array, std::size_t offset,
                          copy_side& side, CUdeviceptr& at) noexcept {
    switch (type) {
        case CU_MEMORYTYPE_HOST: side = copy_side::host, at = address(host) + offset; break;
        case CU_MEMORYTYPE_DEVICE: side = copy_side::device, at = device + offset; break;
        case CU_MEMORYTYPE_ARRAY: side = copy_side::device, at = address(array); break;
        default: side = copy_side::by_address, at = device + offset; break;  // UNIFIED
    }
}
/// The copy a 2-D descriptor asks for: direction from the memory types, bytes = width x height.
inline void describe(copy_call& c, const CUDA_MEMCPY2D& d) noexcept {
    describe_side(d.srcMemoryType, d.srcHost, d.srcDevice, d.srcArray, d.srcY * d.srcPitch + d.srcXInBytes,
                  c.src_side, c.src);
    describe_side(d.dstMemoryType, d.dstHost, d.dstDevice, d.dstArray, d.dstY * d.dstPitch + d.dstXInBytes,
                  c.dst_side, c.dst);
    c.bytes = d.WidthInBytes * d.Height;
}
/// The same for a 3-D descriptor: bytes = width x height x depth.
inline void describe(copy_call& c, const CUDA_MEMCPY3D& d) noexcept {
    describe_side(d.srcMemoryType, d.srcHost, d.srcDevice, d.srcArray,
                  (d.srcZ * d.srcHeight + d.srcY) * d.srcPitch + d.srcXInBytes, c.src_side, c.src);
    describe_side(d.dstMemoryType, d.dstHost, d.dstDevice, d.dstArray,
                  (d.dstZ * d.dstHeight + d.dstY) * d.dstPitch + d.dstXInBytes, c.dst_side, c.dst);
    c.bytes = d.WidthInBytes * d.Height * d.Depth;
}

namespace records {
/// What the configured services ask of op roles (fixed once tools are initialized).
bool dispatches_configured() noexcept;
bool copies_configured() noexcept;
bool allocations_configured() noexcept;
/// A launch: KERNEL_DISPATCH records (ENQUEUE on this thread, COMPLETE with GPU times from the
/// completion thread) around `c.submit()` when a context wants them. dispatch_id 0: a new one.
CUresult launch(const launch_call& c, std::uint64_t dispatch_id = 0) noexcept;
/// A replay pass of launch `c`: its records, COMPLETE delivered on this thread before returning
/// (the pass has completed then). Contexts limited to `contexts`.
CUresult launch_pass(const launch_call& c, std::uint64_t dispatch_id, std::uint64_t contexts, bool& completed,
                     std::uint64_t timeout_ns) noexcept;
std::uint64_t next_dispatch_id() noexcept;
/// The dispatch info of launch `c` on `device` (KERNEL_DISPATCH and KERNEL_REPLAY payloads).
rocprofiler_kernel_dispatch_info_t dispatch_info(const launch_call& c, std::uint64_t device, std::uint64_t id) noexcept;
/// A copy: MEMORY_COPY ENTER here, EXIT with GPU times from the completion thread.
CUresult copy(const copy_call& c) noexcept;
/// MEMORY_ALLOCATION records around an allocation / free (ENTER and EXIT on this thread).
/// `out` is read at EXIT; `size_at_exit` gives the size then (pitched allocations).
CUresult allocate(op_id op, CUdeviceptr* out, std::size_t size, thunk call, const std::size_t* size_at_exit = nullptr,
                  bool managed = false) noexcept;
CUresult deallocate(op_id op, CUdeviceptr p, thunk call, bool vmm = false) noexcept;
/// Context destruction (cuCtxDestroy: `ctx`; a primary context's release or reset: `device`):
/// its pending COMPLETE/EXIT records go out first, and what encore kept of it is forgotten when
/// the context is gone (a later context may get the same handle).
CUresult teardown(CUcontext ctx, CUdevice device, bool reset, thunk call) noexcept;
}  // namespace records

// ---- replay's layer (replay.cpp) ----------------------------------------------------------------
namespace replay {
/// Whether a KERNEL_REPLAY service is configured (fixed once tools are initialized).
bool enabled() noexcept;
/// The allocation tracker (device memory of each context; managed and VMM memory mark their
/// context, whose launches are then declined).
void on_alloc(CUdeviceptr p, std::size_t size, bool managed) noexcept;
void on_free(CUdeviceptr p) noexcept;
void on_vmm_map() noexcept;
/// A module variable's address handed to the program (cuModuleGetGlobal, cuLibraryGetGlobal):
/// covered like an allocation until its module (`owner`) is unloaded.
void on_global(CUdeviceptr p, std::size_t size, const void* owner) noexcept;
void on_unload(const void* owner) noexcept;
/// The context is being destroyed: its allocations, gate and snapshot memory are forgotten.
void forget_context(CUcontext c) noexcept;
/// The size of a tracked allocation (0: unknown).
std::size_t size_of(CUdeviceptr p) noexcept;
/// A launch, replayed when the replay service asks for it.
CUresult launch(const launch_call& c) noexcept;
/// Work submitted to a context's GPU (launches, copies, memsets, graph launches, frees): held off
/// while a replay owns the context (not on the replaying thread itself).
class work_hold {
public:
    work_hold() noexcept;  // the current context's
    explicit work_hold(CUcontext c) noexcept;
    ~work_hold();
    work_hold(const work_hold&) = delete;
    work_hold& operator=(const work_hold&) = delete;

private:
    void* gate_ = nullptr;  // the context's gate, held shared (gates live as long as the process)
};
void on_graph_launch() noexcept;
}  // namespace replay

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
                    return res;
                };
                return records::allocate(ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, out, std::get<2>(t) * std::get<3>(t),
                                         thunk::of(pitched), &at_exit);
            } else {
                return records::allocate(ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, out, std::get<1>(t),
                                         thunk::of(forward), nullptr, managed);
            }
        } else if constexpr (r == role::free) {
            return records::deallocate(ROCPROFILER_MEMORY_ALLOCATION_FREE, std::get<0>(t), thunk::of(forward));
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
                if (res == CUDA_SUCCESS) replay::on_vmm_map();
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
                    replay::work_hold hold;
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
            replay::work_hold hold;
            return records::copy(c);
        } else if constexpr (r == role::other_work) {
            replay::work_hold hold;
            return f(a...);
        } else if constexpr (r == role::graph) {
            replay::on_graph_launch();
            replay::work_hold hold;
            return f(a...);
        } else if constexpr (r == role::global) {
            // (dptr, bytes, module or library, name); managed variables mark their context. The
            // CUDA runtime asks for the address only (bytes null): the size is asked for here.
            std::size_t bytes = 0;
            std::size_t* size_out = std::get<1>(t) != nullptr ? std::get<1>(t) : &bytes;
            const R res = f(std::get<0>(t), size_out, std::get<2>(t), std::get<3>(t));
            if (res == CUDA_SUCCESS && std::get<0>(t) != nullptr && *size_out != 0) {
                if constexpr (starts("cuLibraryGetManaged")) replay::on_alloc(*std::get<0>(t), *size_out, true);
                else replay::on_global(*std::get<0>(t), *size_out, std::get<2>(t));
            }
            return res;
        } else if constexpr (r == role::unload) {
            replay::work_hold hold;
            const R res = f(a...);
            if (res == CUDA_SUCCESS) replay::on_unload(std::get<0>(t));
            return res;
        } else if constexpr (r == role::teardown) {
            if constexpr (starts("cuCtxDestroy")) return records::teardown(std::get<0>(t), 0, false, thunk::of(forward));
            else return records::teardown(nullptr, std::get<0>(t), starts("cuDevicePrimaryCtxReset"), thunk::of(forward));
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
