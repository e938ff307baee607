// src/cuda/records.hpp — KERNEL_DISPATCH, MEMORY_COPY and MEMORY_ALLOCATION records around the
// driver calls the per-op layers (ops.hpp) hand over, GPU-timed with CUDA events (records.cpp,
// records_delivery.cpp, records_state.cpp, records_allocations.cpp: records_state.hpp says which
// holds what).
#pragma once

#include "calls.hpp"

#include <rocprofiler-sdk/callback_tracing.h>

#include <cstdint>

namespace encore::cuda::records {

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
/// What an allocation record is of: its agent and, for a free, where its size comes from.
enum class memory_of : unsigned char {
    device,  // the current device; a free's size: the tracked allocation's, else the driver's
    vmm,     // a cuMemCreate handle (its "address"); a release's size: the handle's at creation
    host,    // pinned host memory (agent UINT64_MAX); a free's size: the tracked allocation's
};
/// MEMORY_ALLOCATION records around an allocation / free (ENTER and EXIT on this thread).
/// `out` is read at EXIT; `size_at_exit` gives the size then (pitched allocations). A free's
/// size is looked up at ENTER (tracker.hpp), before the memory is gone.
CUresult allocate(op_id op, CUdeviceptr* out, std::size_t size, thunk call, const std::size_t* size_at_exit = nullptr,
                  memory_of of = memory_of::device) noexcept;
CUresult deallocate(op_id op, CUdeviceptr p, thunk call, memory_of of = memory_of::device) noexcept;
/// Waits (bounded: 10 s) until the pending COMPLETE/EXIT records of context c are delivered.
void drain(CUcontext c) noexcept;
/// The context is gone: its timing state is forgotten (a later context may get the same handle).
void forget(CUcontext c) noexcept;
/// cuStreamDestroy (`call` forwards it): a later stream may get the destroyed one's handle, so
/// the CUPTI stream keys launches kept by handle are checked again (stream_epoch, records.cpp).
CUresult destroy_stream(thunk call) noexcept;

}  // namespace encore::cuda::records
