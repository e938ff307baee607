// src/cuda/gate.hpp — the per-context replay gate (gate.cpp): work submitted to a context's GPU
// holds it shared; a replay holds it exclusively while it snapshots, runs its passes and restores.
// Over the backend kit's per-device gate keyed by context pointer (backend/device_gate.hpp).
#pragma once

#include <cuda.h>

#include <chrono>

namespace encore::backend {
class device_gate;
}

namespace encore::cuda::tracker {

/// Work submitted to a context's GPU (launches, copies, memsets, graph launches, frees): held off
/// while a replay owns the context (not on the replaying thread itself). Finding the context's
/// gate takes no lock.
class work_hold {
public:
    work_hold() noexcept;  // the current context's
    explicit work_hold(CUcontext c) noexcept;
    ~work_hold();
    work_hold(const work_hold&) = delete;
    work_hold& operator=(const work_hold&) = delete;

private:
    backend::device_gate* gate_ = nullptr;  // the context's gate, held shared (gates live as long as the process)
};

/// A replay's exclusive use of its context: work_holds on it (other threads') wait meanwhile.
class exclusive_use {
public:
    /// Waits until no work is held on `c`, at most `limit`; false when it timed out.
    bool acquire(CUcontext c, std::chrono::nanoseconds limit) noexcept;
    /// Gives it back (nothing when not held).
    void release() noexcept;

private:
    CUcontext ctx_ = nullptr;  // held exclusively by this object's thread
};

}  // namespace encore::cuda::tracker
