// src/cuda/records_allocations.cpp — MEMORY_ALLOCATION records around CUDA's allocations and
// frees (records.hpp): ENTER and EXIT on the calling thread, host timestamps, the size of a free
// looked up before the memory is gone (tracker.hpp).
#include "records_state.hpp"

#include "real.hpp"
#include "tracker.hpp"

#include "core/clock.hpp"

namespace encore::cuda::records {

using detail::event;
using detail::host_agent;

namespace {
/// An allocation record's agent: pinned host memory gets MEMORY_COPY's host agent.
std::uint64_t agent_of(memory_of of) noexcept { return of == memory_of::host ? host_agent : current_device(); }
}  // namespace

CUresult allocate(op_id op, CUdeviceptr* out, std::size_t size, thunk call, const std::size_t* size_at_exit,
                  memory_of of) noexcept {
    auto ev = event::capture(kind::memory_allocation, op);
    rocprofiler_callback_tracing_memory_allocation_data_t p{};
    p.size = sizeof(p);
    if (ev) {
        p.agent_id.handle = agent_of(of);
        p.allocation_size = size;
        p.start_timestamp = core::now_ns();
        ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
    }
    const CUresult r = call();
    if (ev) {
        p.end_timestamp = core::now_ns();
        if (r == CUDA_SUCCESS && out != nullptr) p.address.value = *out;
        p.allocation_size = size_at_exit != nullptr ? *size_at_exit : size;
        ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
    }
    return r;
}

CUresult deallocate(op_id op, CUdeviceptr ptr, thunk call, memory_of of) noexcept {
    // A null pointer frees nothing (cudaFree(0) is the CUDA runtime's idiom for making the
    // context): no record, so every FREE a tool sees matches an allocation. The driver call
    // itself is still traced as an API call.
    if (ptr == 0) return call();
    auto ev = event::capture(kind::memory_allocation, op);
    rocprofiler_callback_tracing_memory_allocation_data_t p{};
    p.size = sizeof(p);
    if (ev) {
        p.agent_id.handle = agent_of(of);
        p.address.value = ptr;
        switch (of) {
            case memory_of::device:
                // Memory allocated before encore's layers were in place (or through an op
                // without one): the driver still knows its size until the free.
                p.allocation_size = tracker::size_of(ptr);
                if (p.allocation_size == 0) p.allocation_size = tracker::driver_size_of(ptr);
                break;
            case memory_of::vmm: p.allocation_size = tracker::vmm_size_of(ptr); break;
            case memory_of::host: p.allocation_size = tracker::host_size_of(reinterpret_cast<const void*>(ptr)); break;
        }
        p.start_timestamp = core::now_ns();
        ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
    }
    const CUresult r = call();
    if (ev) {
        p.end_timestamp = core::now_ns();
        ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
    }
    return r;
}

}  // namespace encore::cuda::records
