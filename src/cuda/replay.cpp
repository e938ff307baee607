// src/cuda/replay.cpp — KERNEL_REPLAY on CUDA: the backend under core::replay's flow.
//
// While a replay service exists (cuda::replay::enabled):
//   - cuMemAlloc_v2 / cuMemFree_v2 (and pitched, stream-ordered allocations) feed the allocation
//     tracker (tracker.hpp: device memory of each context), as do the module variables whose
//     addresses the program obtained (cuModuleGetGlobal, cuLibraryGetGlobal: the CUDA runtime
//     calls them for cudaMemcpyToSymbol, cudaGetSymbolAddress, ...). A __device__ variable the
//     host never touched is not covered: the driver offers no way to list a module's variables;
//   - every launch (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel, _ptsz) holds
//     its context's reader/writer gate shared while it is submitted; a replayed launch holds it
//     exclusively, drains the context (cuCtxSynchronize: every stream), snapshots the context's
//     tracked memory, runs each pass and waits for it (its end event, bounded by the replay
//     timeout), restores between passes, and releases. Other contexts (GPUs) are never blocked.
// Snapshot, restore and checksum: snapshot.cpp (a device-side shadow or pinned host memory, kept
// per context; full_copy or changed_chunks; hashes per chunk on the device).
// Cache control (ENCORE_CUDA_REPLAY_CACHE_CONTROL=all): before every pass a write over a scratch
// buffer of twice the L2's size, on the pass's stream, evicts what the snapshot, the restore
// and the previous pass left in the L2, so that every pass starts cold (Nsight Compute's
// default). none (the default): passes see whatever the L2 holds.
// VMM mappings (cuMemMap) are covered where the context's device may read and write them
// (cuMemSetAccess), one region per mapping. Declined (run once, warned once with the reason):
// launches into a stream that is capturing a graph, contexts with managed memory
// (cuMemAllocManaged) or memory imported from another process (cuMemPoolImportPointer,
// cuIpcOpenMemHandle), which the tracker does not cover. Kernels launched through graphs
// (cuGraphLaunch) come here one kernel node at a time while the service is active (ops.cpp
// launches a graph node by node from the plan graph_nodes.cpp made at instantiation), else the
// graph runs whole; range replay replays a graph launch as a whole (range_replay.cpp).
// Memory changes that would make the snapshot wrong (frees, unmaps, access changes) wait for the
// replay through the context's gate; only the replaying thread itself (a tool's replay callback)
// gets past it: a region it freed or unmapped is not restored, and the next pass is the last.
// Copies, memsets, graph launches and frees on a context wait while a replay owns it.
// All internal driver calls go to the real driver (find_original), never through encore's
// exports.
#include "replay.hpp"

#include "counters.hpp"
#include "range_replay.hpp"
#include "real.hpp"
#include "records.hpp"
#include "snapshot.hpp"
#include "tracker.hpp"

#include "core/range_replay.hpp"
#include "core/replay.hpp"

#include <chrono>

namespace encore::cuda::replay {
namespace {

class launch_replay final : public core::replay::dispatch_backend {
public:
    launch_replay(const launch_call& c, CUcontext ctx, std::uint64_t dispatch_id)
        : call_(c), ctx_(ctx), dispatch_id_(dispatch_id) {}

    CUresult result() const noexcept { return result_; }

    void run_once() noexcept override {
        tracker::work_hold hold(ctx_);
        if (counters::configured() && counters::launch(call_, dispatch_id_, result_)) return;
        result_ = records::launch(call_, dispatch_id_);
    }

    // changed_chunks (snapshot.cpp: a sparse, incremental shadow; restores hash and rewrite what
    // changed): on an H100, GPT-2's loop (1.1 GB covered) 0.40 ms snapshot and 0.39 ms restore
    // against full_copy's 0.94 and 0.93; JAX's default preallocation (64 GB mapped) 20 ms against
    // seconds in a host shadow. Where encore's kernels do not load it is full_copy.
    encore_replay_snapshot_policy_t default_policy() const noexcept override {
        return ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS;
    }

    const char* acquire(const core::replay::options& opt) noexcept override {
        opt_ = opt;
        flush_l2_ = snapshot::flush_l2_setting();
        switch (snapshot::obstacle_in(ctx_, call_.work_stream())) {
            case snapshot::obstacle::managed:
                return "the context has managed memory (cuMemAllocManaged), which replay does not cover: the launch "
                       "runs once";
            case snapshot::obstacle::imported:
                return "the context has memory imported from another process (cuMemPoolImportPointer, "
                       "cuIpcOpenMemHandle), which replay does not cover: the launch runs once";
            case snapshot::obstacle::capturing:
                return "the stream is capturing a graph (the launch is recorded, not run): not replayed";
            case snapshot::obstacle::none: break;
        }
        if (!exclusive_.acquire(ctx_, std::chrono::nanoseconds(opt_.wait_timeout_ns)))
            return "timed out waiting for exclusive use of the context: the launch runs once";
        // Drain: every stream of the context (the submitting one and its siblings).
        if (real().ctx_synchronize == nullptr || real().ctx_synchronize() != CUDA_SUCCESS) {
            release();
            return "draining the context (cuCtxSynchronize) failed: the launch runs once";
        }
        return nullptr;
    }

    const char* snapshot(core::replay::memory_stats& out) noexcept override {
        const char* why = mem_.take(ctx_, snapshot::slot::kernel_replay, opt_, out);
        if (why != nullptr) release();
        return why;
    }

    const char* run_pass(std::uint64_t, std::uint64_t contexts) noexcept override {
        // Memory gone since the snapshot: this pass still runs (the rest was restored, so the
        // launch takes effect once, as the program asked), and it is the last.
        const bool intact = mem_.intact();
        if (flush_l2_ && !mem_.flush_l2(call_.work_stream())) flush_l2_ = false;  // warned once; the passes go on warm
        bool completed = false;
        result_ = counters::configured()
                      ? counters::launch_pass(call_, dispatch_id_, contexts, completed, opt_.wait_timeout_ns)
                      : records::launch_pass(call_, dispatch_id_, contexts, completed, opt_.wait_timeout_ns);
        if (result_ != CUDA_SUCCESS) return "a pass's launch failed: no further passes";
        if (!completed)
            return "a pass did not complete within the wait bound (ENCORE_REPLAY_TIMEOUT_MS): no further passes";
        if (!intact)
            return "memory in the snapshot was freed, unmapped or lost its access during the replay (by a replay "
                   "callback): no further passes";
        return nullptr;
    }

    bool restore(core::replay::memory_stats& out, std::uint64_t pass, std::uint64_t passes) noexcept override {
        return mem_.restore(out, pass, passes);
    }
    void finish() noexcept override { release(); }
    bool checksum(std::uint64_t& out) noexcept override { return mem_.checksum(out); }

private:
    void release() noexcept {
        mem_.release();  // its memory stays in the context's cache
        exclusive_.release();
    }

    launch_call call_;
    CUcontext ctx_;
    std::uint64_t dispatch_id_;
    core::replay::options opt_{};
    tracker::exclusive_use exclusive_;
    snapshot::memory mem_;
    bool flush_l2_ = false;
    CUresult result_ = CUDA_SUCCESS;
};

}  // namespace

bool enabled() noexcept {
    // Asked when an op's target is chosen (once per op, after tools are initialized). Range
    // replay needs the same layers (the tracker, the gates, launches seen).
    return core::replay::service_configured() || range::configured();
}

void forget(CUcontext c) noexcept {
    snapshot::forget(c);
    counters::forget(c);
}

CUresult launch(const launch_call& c) noexcept {
    if (CUresult r{}; range::launch(c, r)) return r;  // the calling thread's range records it
    const CUcontext ctx = current_context();
    // A launch from a range's PASS callbacks neither: that thread holds the context exclusively.
    const bool nested = core::replay::in_replay() || core::range_replay::closing_here();
    if (nested && core::replay::service_active())
        core::replay::warn_once("a launch from a replay callback runs once (nested replays are declined)");
    if (!core::replay::service_active() || ctx == nullptr || nested) {
        tracker::work_hold hold(ctx);
        if (CUresult r; counters::configured() && !nested && counters::launch(c, 0, r)) return r;
        return records::launch(c);
    }
    if (counters::configured()) counters::prepare();  // the tool's CONFIG ENTER may ask for the counters
    const std::uint64_t id = records::next_dispatch_id();
    launch_replay b(c, ctx, id);
    const rocprofiler_kernel_dispatch_info_t info = records::dispatch_info(c, current_device(), id);
    // The whole sequence shares the launch call's correlation id (the wrapper's).
    core::replay::replay_dispatch(info, b);
    return b.result();
}

}  // namespace encore::cuda::replay
