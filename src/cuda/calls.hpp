// src/cuda/calls.hpp — launches and copies normalized: what the per-op layers (ops.hpp) read from
// a driver call's arguments and hand to records and replay, with the call itself as a thunk.
#pragma once

#include <encore/api/kind.hpp>

#include <cuda.h>

#include <cstddef>
#include <cstring>
#include <vector>
#include <type_traits>

namespace encore::cuda {

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
    // The arguments as the program passed them (range replay copies what they point at).
    void** params = nullptr;                 // kernelParams
    void** extra = nullptr;                  // extra (cuLaunchKernel, cuLaunchKernelEx)
    const CUlaunchConfig* config = nullptr;  // cuLaunchKernelEx's
    bool cooperative = false;                // cuLaunchCooperativeKernel
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
    if constexpr (std::is_pointer_v<T>)
        return reinterpret_cast<CUdeviceptr>(v);
    else
        return static_cast<CUdeviceptr>(v);
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
    describe_side(d.srcMemoryType, d.srcHost, d.srcDevice, d.srcArray, d.srcY * d.srcPitch + d.srcXInBytes, c.src_side,
                  c.src);
    describe_side(d.dstMemoryType, d.dstHost, d.dstDevice, d.dstArray, d.dstY * d.dstPitch + d.dstXInBytes, c.dst_side,
                  c.dst);
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

/// A 2-D/3-D copy from host memory made to read `rows` instead: the region it reads, copied there
/// densely (rows of WidthInBytes), and the descriptor pointed at it (range replay re-issues such a
/// copy after the program may have reused its buffer). Throws std::bad_alloc.
inline void stage_rows(CUDA_MEMCPY2D& d, std::vector<unsigned char>& rows) {
    rows.resize(d.WidthInBytes * d.Height);
    for (std::size_t r = 0; r < d.Height; ++r)
        std::memcpy(rows.data() + r * d.WidthInBytes,
                    static_cast<const unsigned char*>(d.srcHost) + (d.srcY + r) * d.srcPitch + d.srcXInBytes,
                    d.WidthInBytes);
    d.srcHost = rows.data();
    d.srcPitch = d.WidthInBytes;
    d.srcXInBytes = 0;
    d.srcY = 0;
}
inline void stage_rows(CUDA_MEMCPY3D& d, std::vector<unsigned char>& rows) {
    rows.resize(d.WidthInBytes * d.Height * d.Depth);
    for (std::size_t z = 0; z < d.Depth; ++z)
        for (std::size_t y = 0; y < d.Height; ++y)
            std::memcpy(rows.data() + (z * d.Height + y) * d.WidthInBytes,
                        static_cast<const unsigned char*>(d.srcHost) +
                            ((d.srcZ + z) * d.srcHeight + d.srcY + y) * d.srcPitch + d.srcXInBytes,
                        d.WidthInBytes);
    d.srcHost = rows.data();
    d.srcPitch = d.WidthInBytes;
    d.srcHeight = d.Height;
    d.srcXInBytes = 0;
    d.srcY = 0;
    d.srcZ = 0;
}

}  // namespace encore::cuda
