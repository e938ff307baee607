// src/cuda/real.hpp — the real CUDA driver: found and loaded once (real.cpp, which also points the
// forwarded exports at it), its functions by name, and the table of those libencore-cuda calls
// for its own work (records, replay, initialization): never through encore's traced exports.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace encore::cuda {

/// The real driver's function `name`, or null (also when there is no driver).
void* find_original(const char* name) noexcept;
/// Points the driver's exports encore does not trace (forward_exports.inc, and the ops this
/// build's cuda.h lacks) at the real functions; called when the library loads.
void bind_forwarded_exports() noexcept;
/// Where the jump of forwarded export `name` (forward_exports.inc) goes, or of op `op` when this
/// build's cuda.h lacks it: the slot, bound to the driver's function (exec_hooks.cpp points a few
/// elsewhere, at load); null for another name or op, or one the driver does not have.
void** forward_slot(std::string_view name) noexcept;
void** unavailable_slot(std::size_t op) noexcept;
/// Points `slot` (one of the above, not null) at `hook` and returns the function it jumped to, for
/// the hook to call; cuGetProcAddress then hands `hook` out in that function's place (hook_for).
/// At load only (before any call through the slot). Null, and the slot left as it is, past the
/// room for hooks (16: the exports exec_hooks.cpp and profiler_hooks.cpp take, at most 11).
void* hook_slot(void** slot, void* hook) noexcept;
/// The hook a slot bound to the driver's function `real` was pointed at (hook_slot), else null.
void* hook_for(void* real) noexcept;

template <class F>
F real_fn(const char* name) noexcept {
    void* p = find_original(name);
    F f = nullptr;
    std::memcpy(&f, &p, sizeof(f));  // object -> function pointer (POSIX dlsym)
    return f;
}

struct real_driver {
    CUresult (*driver_get_version)(int*) = real_fn<decltype(driver_get_version)>("cuDriverGetVersion");
    CUresult (*ctx_get_current)(CUcontext*) = real_fn<decltype(ctx_get_current)>("cuCtxGetCurrent");
    CUresult (*ctx_set_current)(CUcontext) = real_fn<decltype(ctx_set_current)>("cuCtxSetCurrent");
    CUresult (*ctx_get_device)(CUdevice*) = real_fn<decltype(ctx_get_device)>("cuCtxGetDevice");
    CUresult (*ctx_synchronize)() = real_fn<decltype(ctx_synchronize)>("cuCtxSynchronize");
    CUresult (*primary_state)(CUdevice, unsigned*, int*) = real_fn<decltype(primary_state)>("cuDevicePrimaryCtxGetState");
    CUresult (*primary_retain)(CUcontext*, CUdevice) = real_fn<decltype(primary_retain)>("cuDevicePrimaryCtxRetain");
    CUresult (*primary_release)(CUdevice) = real_fn<decltype(primary_release)>("cuDevicePrimaryCtxRelease_v2");
    CUresult (*event_create)(CUevent*, unsigned) = real_fn<decltype(event_create)>("cuEventCreate");
    CUresult (*event_record)(CUevent, CUstream) = real_fn<decltype(event_record)>("cuEventRecord");
    CUresult (*event_query)(CUevent) = real_fn<decltype(event_query)>("cuEventQuery");
    CUresult (*event_elapsed)(float*, CUevent, CUevent) = real_fn<decltype(event_elapsed)>("cuEventElapsedTime");
    CUresult (*stream_create)(CUstream*, unsigned) = real_fn<decltype(stream_create)>("cuStreamCreate");
    CUresult (*stream_is_capturing)(CUstream, CUstreamCaptureStatus*) = real_fn<decltype(stream_is_capturing)>(
        "cuStreamIsCapturing");
    // The stream's process-unique id (CUDA 12.0+; declared here: CUDA 11's cuda.h lacks it).
    CUresult (*stream_get_id)(CUstream, unsigned long long*) = real_fn<decltype(stream_get_id)>("cuStreamGetId");
    CUresult (*pointer_attribute)(void*, CUpointer_attribute,
                                  CUdeviceptr) = real_fn<decltype(pointer_attribute)>("cuPointerGetAttribute");
    CUresult (*mem_alloc)(CUdeviceptr*, size_t) = real_fn<decltype(mem_alloc)>("cuMemAlloc_v2");
    CUresult (*mem_free)(CUdeviceptr) = real_fn<decltype(mem_free)>("cuMemFree_v2");
    CUresult (*mem_alloc_host)(void**, size_t) = real_fn<decltype(mem_alloc_host)>("cuMemAllocHost_v2");
    CUresult (*mem_get_info)(size_t*, size_t*) = real_fn<decltype(mem_get_info)>("cuMemGetInfo_v2");
    CUresult (*mem_get_address_range)(CUdeviceptr*, size_t*,
                                      CUdeviceptr) = real_fn<decltype(mem_get_address_range)>("cuMemGetAddressRange_v2");
    CUresult (*dtod)(CUdeviceptr, CUdeviceptr, size_t) = real_fn<decltype(dtod)>("cuMemcpyDtoD_v2");
    CUresult (*dtoh)(void*, CUdeviceptr, size_t) = real_fn<decltype(dtoh)>("cuMemcpyDtoH_v2");
    CUresult (*htod)(CUdeviceptr, const void*, size_t) = real_fn<decltype(htod)>("cuMemcpyHtoD_v2");
    CUresult (*memset_d8)(CUdeviceptr, unsigned char, size_t) = real_fn<decltype(memset_d8)>("cuMemsetD8_v2");
    // Replay's L2 flush (--cache-control all): the L2's size, a write over a scratch buffer on
    // the pass's stream, and the persisting lines' reset (CUDA 11.0+; absent: skipped).
    CUresult (*device_get_attribute)(int*, CUdevice_attribute,
                                     CUdevice) = real_fn<decltype(device_get_attribute)>("cuDeviceGetAttribute");
    CUresult (*memset_d32_async)(CUdeviceptr, unsigned, size_t,
                                 CUstream) = real_fn<decltype(memset_d32_async)>("cuMemsetD32Async");
    CUresult (*ctx_reset_persisting_l2)() = real_fn<decltype(ctx_reset_persisting_l2)>("cuCtxResetPersistingL2Cache");
    CUresult (*module_load_data)(CUmodule*, const void*) = real_fn<decltype(module_load_data)>("cuModuleLoadData");
    CUresult (*module_get_function)(CUfunction*, CUmodule,
                                    const char*) = real_fn<decltype(module_get_function)>("cuModuleGetFunction");
    CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void**, void**) = real_fn<decltype(launch_kernel)>("cuLaunchKernel");
    /// What timing launches and copies with events needs.
    [[nodiscard]] bool timing() const noexcept {
        return ctx_get_current && ctx_set_current && event_create && event_record && event_query && event_elapsed &&
               stream_create;
    }
};

/// The table, filled at first use (after the driver was found).
inline const real_driver& real() noexcept {
    static const real_driver d;
    return d;
}

/// The calling thread's current context, or null.
inline CUcontext current_context() noexcept {
    CUcontext c = nullptr;
    if (real().ctx_get_current == nullptr || real().ctx_get_current(&c) != CUDA_SUCCESS) return nullptr;
    return c;
}

/// The current context's device ordinal (0 when there is none).
inline std::uint64_t current_device() noexcept {
    CUdevice d = 0;
    if (real().ctx_get_device == nullptr || real().ctx_get_device(&d) != CUDA_SUCCESS) return 0;
    return static_cast<std::uint64_t>(d);
}

}  // namespace encore::cuda
