// src/cuda/tracker.hpp — what replay needs to know of each context: the device memory it holds
// (allocations and module variables the program obtained), what replay cannot cover there
// (managed memory, VMM mappings), and the gate that keeps other work off it while it replays.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <vector>

namespace encore::cuda::tracker {

/// An allocation of the current context (`managed`: cuMemAllocManaged or a managed variable,
/// which marks its context: replay declines there).
void on_alloc(CUdeviceptr p, std::size_t size, bool managed) noexcept;
void on_free(CUdeviceptr p) noexcept;
/// cuMemMap was used in the current context (mappings are not tracked: replay declines there).
void on_vmm_map() noexcept;
/// A module variable's address handed to the program (cuModuleGetGlobal, cuLibraryGetGlobal):
/// covered like an allocation until its module (`owner`) is unloaded.
void on_global(CUdeviceptr p, std::size_t size, const void* owner) noexcept;
void on_unload(const void* owner) noexcept;
/// The size of a tracked allocation (0: unknown).
std::size_t size_of(CUdeviceptr p) noexcept;

/// What context c holds that replay cannot cover.
struct uncovered {
    bool managed = false;  // live managed allocations
    bool vmm = false;      // VMM mappings
};
uncovered uncovered_in(CUcontext c) noexcept;

/// The device memory of context c replay covers (its allocations and module variables), by address.
struct range {
    CUdeviceptr base;
    std::size_t size;
};
std::vector<range> covered(CUcontext c);

/// The context is being destroyed: what was tracked of it is forgotten.
void forget(CUcontext c) noexcept;

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

/// A replay's exclusive use of its context: work_holds on it (other threads') wait meanwhile.
class exclusive_use {
public:
    /// Waits until no work is held on `c`, at most `limit`; false when it timed out.
    bool acquire(CUcontext c, std::chrono::nanoseconds limit) noexcept;
    /// Gives it back (nothing when not held).
    void release() noexcept;

private:
    void* gate_ = nullptr;
    CUcontext ctx_ = nullptr;
};

}  // namespace encore::cuda::tracker
