// src/cuda/tracker.hpp — what replay needs to know of each context: the device memory it holds
// (allocations, module variables the program obtained, VMM mappings it may access), what replay
// cannot cover there (managed memory, memory imported from another process), the sizes that
// MEMORY_ALLOCATION's FREE records report. The gate that keeps other work off a context while it
// replays is gate.hpp.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gate.hpp"  // work_hold, exclusive_use: the per-context gate (gate.cpp)

namespace encore::cuda::tracker {

/// What an allocation is to replay.
enum class memory : unsigned char {
    device,    // covered
    managed,   // cuMemAllocManaged or a managed variable: marks its context (replay declines there)
    imported,  // cuMemPoolImportPointer, cuIpcOpenMemHandle: another process's memory, marks it likewise
};
/// An allocation of the current context.
void on_alloc(CUdeviceptr p, std::size_t size, memory kind) noexcept;
void on_free(CUdeviceptr p) noexcept;
/// A module variable's address handed to the program (cuModuleGetGlobal, cuLibraryGetGlobal):
/// covered like an allocation until its module (`owner`) is unloaded.
void on_global(CUdeviceptr p, std::size_t size, const void* owner) noexcept;
void on_unload(const void* owner) noexcept;
/// The size of a tracked allocation (0: unknown).
std::size_t size_of(CUdeviceptr p) noexcept;
/// The size of the driver's allocation starting at p, asked of the driver (cuMemGetAddressRange):
/// for memory encore did not see allocated. 0 when p is not the start of one.
std::size_t driver_size_of(CUdeviceptr p) noexcept;

// ---- VMM (cuMemCreate / cuMemMap / cuMemSetAccess) and pinned host memory (vmm.cpp) ------------
// A mapping is process-wide (a virtual address range, not a context's): replay covers it on a
// context whose device was granted read-write access to it (cuMemSetAccess), since the snapshot
// and restore copies run on that device; a range mapped but not (yet) accessible there cannot be
// touched by the device's kernels and is not covered.
void on_vmm_create(CUmemGenericAllocationHandle h, std::size_t size) noexcept;
void on_vmm_release(CUmemGenericAllocationHandle h) noexcept;
/// The size the handle was created with (0: unknown).
std::size_t vmm_size_of(CUmemGenericAllocationHandle h) noexcept;
/// A reserved virtual address range (cuMemAddressReserve / cuMemAddressFree): adjacent mappings
/// inside one are covered as one range (one copy each way instead of one per mapping).
void on_vmm_reserve(CUdeviceptr p, std::size_t size) noexcept;
void on_vmm_address_free(CUdeviceptr p) noexcept;
void on_vmm_map(CUdeviceptr p, std::size_t size, std::size_t offset, CUmemGenericAllocationHandle h) noexcept;
/// Access of [p, p + size) for the devices in `desc` (devices 0..63; others are not covered).
void on_vmm_access(CUdeviceptr p, std::size_t size, const CUmemAccessDesc* desc, std::size_t count) noexcept;
/// [p, p + size) unmapped: mappings inside it are dropped, ones straddling its ends are cut.
void on_vmm_unmap(CUdeviceptr p, std::size_t size) noexcept;
/// Pinned host allocations (cuMemAllocHost, cuMemHostAlloc): never covered, their sizes only.
void on_host_alloc(const void* p, std::size_t size) noexcept;
void on_host_free(const void* p) noexcept;
std::size_t host_size_of(const void* p) noexcept;

/// What context c holds that replay cannot cover.
struct uncovered {
    bool managed = false;   // live managed allocations
    bool imported = false;  // live pointers imported from another process's pool
};
uncovered uncovered_in(CUcontext c) noexcept;

/// The device memory of context c (on device ordinal `device`) replay covers, by address: its
/// allocations and module variables, and the VMM mappings `device` may read and write (adjacent
/// mappings in one reserved range as one range; else one range per mapping).
struct range {
    CUdeviceptr base;
    std::size_t size;
    friend bool operator==(const range&, const range&) = default;
};
std::vector<range> covered(CUcontext c, std::uint64_t device);
/// A count of the changes that may shrink what covered() returns (frees, unloads, unmaps, access
/// taken away, ...), in any context: while it has not moved, earlier covered() ranges still hold.
/// vmm.cpp, which tracker.cpp calls and which counts in it too.
std::uint64_t shrinks() noexcept;
void note_shrink() noexcept;
/// The VMM part of covered(): mappings `device` may read and write (vmm.cpp).
void add_vmm_ranges(std::uint64_t device, std::vector<range>& out);

/// The context is being destroyed: what was tracked of it is forgotten.
void forget(CUcontext c) noexcept;

}  // namespace encore::cuda::tracker
