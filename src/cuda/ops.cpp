// src/cuda/ops.cpp — the per-op layers' out-of-line parts (see ops.hpp): which layers the configured
// services need, context teardown (records drained first, the context forgotten everywhere after),
// and graph launches (node by node while kernel replay is active, when the exec's plan allows).
#include "ops.hpp"

#include "kernels.hpp"
#include "real.hpp"

#include "core/range_replay.hpp"
#include "core/replay.hpp"

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

/// A graph's kernel node, launched as the launch layer launches a kernel.
CUresult launch_node(const launch_call& c) {
    kernels::announce(c.f);  // its name before its first dispatch record
    return replay::launch(c);
}

/// Why a graph launch on `stream` does not go node by node while kernel replay is active or launches
/// are counted (a whole sentence), or null when it does.
const char* whole_launch(CUgraphExec exec, CUstream stream) noexcept {
    if (range::configured())
        return "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): range replay is configured "
               "too, and replays a graph launch as a whole";
    if (core::replay::in_replay() || core::range_replay::closing_here())
        return "a CUDA graph launch from a replay callback runs whole, once (nested replays are declined)";
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    if (real().stream_is_capturing != nullptr && real().stream_is_capturing(stream, &capturing) == CUDA_SUCCESS &&
        capturing != CU_STREAM_CAPTURE_STATUS_NONE)
        return "a CUDA graph launched into a stream that is capturing a graph becomes a node of that graph (recorded, "
               "not run): not kernel-replayed";
    return graph_nodes::declined(exec);
}

}  // namespace

CUresult graph_launch(CUgraphExec exec, CUstream stream, bool per_thread, thunk call) noexcept {
    // Counted launches too (a counting service without replay: each node counted as a launch).
    if ((core::replay::service_active() || counters::configured()) && current_context() != nullptr) {
        const char* why = whole_launch(exec, work_stream(stream, per_thread));
        if (CUresult r; why == nullptr && graph_nodes::launch(exec, stream, per_thread, &launch_node, r)) return r;
        if (why != nullptr) core::replay::warn_once(why);
    }
    return range::graph_launch(exec, stream, per_thread, call);
}

bool layered(role r) noexcept {
    const wanted_by w = services_of(r);
    return (w.replay && replay::enabled()) ||
           (w.dispatches && (records::dispatches_configured() || counters::configured())) ||
           (w.copies && records::copies_configured()) || (w.allocations && records::allocations_configured()) ||
           (w.kernel_symbols && kernels::configured()) || (w.counting && counters::configured());
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
