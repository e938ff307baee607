// src/cuda/ops.cpp — the per-op layers' out-of-line parts (see ops.hpp): which layers the configured
// services need, and context teardown (records drained first, the context forgotten everywhere after).
#include "ops.hpp"

#include "kernels.hpp"
#include "real.hpp"

namespace encore::cuda {
namespace {

/// The device's primary context if it exists now (retained and released again: no net change).
CUcontext primary_context(CUdevice device) noexcept {
    const auto& d = real();
    unsigned flags = 0;
    int active = 0;
    if (d.primary_state == nullptr || d.primary_retain == nullptr || d.primary_release == nullptr ||
        d.primary_state(device, &flags, &active) != CUDA_SUCCESS || active == 0)
        return nullptr;
    CUcontext c = nullptr;
    if (d.primary_retain(&c, device) != CUDA_SUCCESS) return nullptr;
    (void)d.primary_release(device);
    return c;
}

}  // namespace

bool layered(role r) noexcept {
    const wanted_by w = services_of(r);
    return (w.replay && replay::enabled()) ||
           (w.dispatches && (records::dispatches_configured() || counters::configured())) ||
           (w.copies && records::copies_configured()) || (w.allocations && records::allocations_configured()) ||
           (w.kernel_symbols && kernels::configured());
}

CUresult teardown(CUcontext ctx, CUdevice device, bool reset, thunk call) noexcept {
    // cuCtxDestroy names its context; a primary context release/reset names its device.
    const CUcontext c = ctx != nullptr ? ctx : primary_context(device);
    if (c != nullptr) records::drain(c);
    const CUresult r = call();
    if (c == nullptr || r != CUDA_SUCCESS) return r;
    bool gone = ctx != nullptr || reset;
    if (!gone) {
        unsigned flags = 0;
        int active = 1;
        gone = real().primary_state != nullptr && real().primary_state(device, &flags, &active) == CUDA_SUCCESS &&
               active == 0;
    }
    if (gone) {  // a later context may get the same handle
        tracker::forget(c);
        replay::forget(c);
        records::forget(c);
    }
    return r;
}

}  // namespace encore::cuda
