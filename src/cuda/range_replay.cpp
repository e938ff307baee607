// src/cuda/range_replay.cpp — range replay on CUDA (core/range_replay.hpp): cuda_range, the
// core::range_replay::recording of one range on one context and stream.
//
// Recording: the first launch of the range's thread (before it runs) takes the context
// exclusively, drains it (cuCtxSynchronize), snapshots its tracked memory (snapshot.hpp, slot
// range_start) and lets it go again; each launch is kept with copies of its arguments (sizes from
// cuFuncGetParamInfo / cuKernelGetParamInfo, CUDA 12.4+; the `extra` form's buffer with its
// size), each graph launch as its exec, each memset (cuMemset*) as a copy of the call (its
// arguments are values). At end the context is held exclusively for all the passes
// (other threads' launches, copies and frees on it wait at its gate), pass 0 is waited for, and
// what it left is snapshotted too (slot range_end); each pass restores the start, then relaunches
// every entry in order on the range's stream, each waited for (bounded by the replay timeout);
// after the last pass what pass 0 left is restored, so the program sees an unreplayed run.
//
// The passes use the application's own stream, not a private one: it is idle then (the context is
// drained and held), and relaunching there keeps its priority, its ordering with the legacy
// stream and the per-thread default stream's semantics as the program had them.
//
// A graph launch outside an open range, with the service configured, is a range of its own: the
// wrapper calls rocprofiler_range_replay_begin(exec handle) before it and _end after it.
#include "range_replay.hpp"

#include "graph_nodes.hpp"
#include "real.hpp"
#include "records.hpp"
#include "snapshot.hpp"
#include "tracker.hpp"

#include "core/range_replay.hpp"
#include "core/replay.hpp"

#include <rocprofiler-sdk/experimental/range_replay.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace encore::cuda::range {
namespace {

namespace rr = core::range_replay;

// The reasons, each a static object the core hands to the tool (the first one wins).
constexpr rr::decline_reason multi_queue{ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_QUEUE,
                                         "a range that launches into a second stream is not replayed"};
constexpr rr::decline_reason multi_agent{ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_AGENT,
                                         "a range that launches on a second CUDA context is not replayed"};
constexpr rr::decline_reason concurrent{ROCPROFILER_RANGE_REPLAY_STATUS_CONCURRENT_DISPATCH,
                                        "another thread launched, copied or set memory on a range's device while it "
                                        "was open: the range is not replayed"};
constexpr rr::decline_reason second_range{ROCPROFILER_RANGE_REPLAY_STATUS_CONCURRENT_DISPATCH,
                                          "another thread's range is recording on the same CUDA context: this range is "
                                          "not replayed"};
constexpr rr::decline_reason unknown_kernarg{ROCPROFILER_RANGE_REPLAY_STATUS_UNKNOWN_KERNARG_SIZE,
                                             "a range launched a kernel whose parameter sizes the driver does not give "
                                             "(cuFuncGetParamInfo / cuKernelGetParamInfo, CUDA 12.4+) or whose `extra` "
                                             "has no buffer and size: the range is not replayed"};
constexpr rr::decline_reason copy_in_range{ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE,
                                           "a range copied into or out of device memory (a host read would see a "
                                           "later pass's values): the range is not replayed"};
constexpr rr::decline_reason memory_changed{ROCPROFILER_RANGE_REPLAY_STATUS_ALLOCATION_CHANGED_IN_RANGE,
                                            "device memory was allocated, freed, mapped or unmapped while a range was "
                                            "open: the range is not replayed"};
constexpr rr::decline_reason uncovered{ROCPROFILER_RANGE_REPLAY_STATUS_SNAPSHOT_FAILED,
                                       "the range's context has managed memory (cuMemAllocManaged) or memory "
                                       "imported from another process, which replay does not cover: the range is not "
                                       "replayed"};
constexpr rr::decline_reason capturing{ROCPROFILER_RANGE_REPLAY_STATUS_UNSUPPORTED_QUEUE_PATH,
                                       "a range launched into a stream that is capturing a graph (recorded, not run): "
                                       "the range is not replayed"};
constexpr rr::decline_reason launch_failed{ROCPROFILER_RANGE_REPLAY_STATUS_UNSUPPORTED_QUEUE_PATH,
                                           "a launch of the range failed (the driver's error to the program): the "
                                           "range is not replayed"};
constexpr rr::decline_reason too_large{ROCPROFILER_RANGE_REPLAY_STATUS_PROGRAM_TOO_LARGE,
                                       "a range of more than 65536 launches is not replayed"};
constexpr rr::decline_reason snapshot_failed{ROCPROFILER_RANGE_REPLAY_STATUS_SNAPSHOT_FAILED,
                                             "the range's start snapshot could not be taken (budget, memory, a copy, "
                                             "or draining the context failed): the range is not replayed"};
constexpr rr::decline_reason staging_failed{ROCPROFILER_RANGE_REPLAY_STATUS_STAGING_FAILED,
                                            "host memory for a launch's arguments, or the snapshot of what the range "
                                            "left, could not be had: the range is not replayed"};
constexpr rr::decline_reason timed_out{ENCORE_RANGE_REPLAY_STATUS_TIMED_OUT,
                                       "timed out waiting for the range's CUDA context (ENCORE_REPLAY_TIMEOUT_MS): the "
                                       "range is not replayed"};
constexpr rr::decline_reason pass_stuck{ENCORE_RANGE_REPLAY_STATUS_TIMED_OUT,
                                        "a launch of a range's pass did not complete within ENCORE_REPLAY_TIMEOUT_MS: "
                                        "no further passes"};
constexpr rr::decline_reason pass_failed{ROCPROFILER_RANGE_REPLAY_STATUS_STAGING_FAILED,
                                         "a launch of a range's pass failed: no further passes"};

constexpr std::size_t max_entries = 65536;

// ---- the driver functions only range replay calls (absent: the feature that needs one declines) --
using coop_launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   CUstream, void**);
using ex_launch_t = CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**);
struct range_driver {
    coop_launch_t launch_cooperative = real_fn<coop_launch_t>("cuLaunchCooperativeKernel");
    ex_launch_t launch_ex = real_fn<ex_launch_t>("cuLaunchKernelEx");
    CUresult (*graph_launch)(CUgraphExec, CUstream) = real_fn<decltype(graph_launch)>("cuGraphLaunch");
    CUresult (*event_destroy)(CUevent) = real_fn<decltype(event_destroy)>("cuEventDestroy_v2");
};
const range_driver& drv() noexcept {
    static const range_driver d;
    return d;
}

// ---- graphs: a graph entry's dispatches are its exec's kernel nodes (graph_nodes.hpp), else 1 -----
std::uint64_t dispatches_of(CUgraphExec exec) noexcept {
    const std::uint64_t n = graph_nodes::kernel_nodes(exec);
    return n != 0 ? n : 1;
}

// ---- ranges bound to a context (their snapshot slots are the context's, one range at a time) ----
std::mutex g_claim_mutex;
auto* g_claimed = new std::set<CUcontext>;  // guarded; never destroyed

bool claim(CUcontext c) noexcept {
    std::lock_guard lk(g_claim_mutex);
    try {
        return g_claimed->insert(c).second;
    } catch (...) {
        return false;
    }
}
void unclaim(CUcontext c) noexcept {
    std::lock_guard lk(g_claim_mutex);
    g_claimed->erase(c);
}

// ---- one recorded entry -------------------------------------------------------------------------
struct entry {
    launch_call call{};                // a kernel: what its records say; submit is rebound to relaunch()
    CUgraphExec exec = nullptr;        // a graph launch (call unused)
    std::function<CUresult()> memset;  // a memset, re-issued with the program's arguments
    std::uint64_t dispatch_id = 0;
    std::uint64_t dispatches = 1;
    graph_nodes::kernel_args args;  // copied at the launch, bound again before the passes
    bool ex = false;                // cuLaunchKernelEx: config and attrs are its copies
    CUlaunchConfig config{};
    std::vector<CUlaunchAttribute> attrs;

    /// The launch again with the kept arguments, on the entry's stream.
    static CUresult relaunch(const void* self) {
        const auto& e = *static_cast<const entry*>(self);
        const launch_call& c = e.call;
        void** params = e.args.params();
        void** extra = e.args.extra();
        if (e.ex) {
            if (drv().launch_ex == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
            CUlaunchConfig cfg = e.config;
            cfg.hStream = c.work_stream();
            cfg.attrs = const_cast<CUlaunchAttribute*>(e.attrs.data());
            return drv().launch_ex(&cfg, c.f, params, extra);
        }
        if (c.cooperative) {
            if (drv().launch_cooperative == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
            return drv().launch_cooperative(c.f, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2],
                                            c.shared, c.work_stream(), params);
        }
        return real().launch_kernel(c.f, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2], c.shared,
                                    c.work_stream(), params, extra);
    }
};

/// Copies what a launch's arguments point at into `e`; a reason when it cannot.
const rr::decline_reason* keep_arguments(entry& e) noexcept {
    const launch_call& c = e.call;
    try {
        // Nothing to copy when neither form is given (a kernel without parameters).
        if ((c.params != nullptr || c.extra != nullptr) &&
            graph_nodes::copy_args(c.f, c.params, c.extra, e.args) != graph_nodes::args_copied::ok)
            return &unknown_kernarg;
        if (c.config != nullptr) {
            e.ex = true;
            e.config = *c.config;
            if (c.config->numAttrs != 0 && c.config->attrs != nullptr)
                e.attrs.assign(c.config->attrs, c.config->attrs + c.config->numAttrs);
        }
    } catch (...) {
        return &staging_failed;
    }
    // The program's, gone after the call: the copies above stand for them.
    e.call.params = nullptr;
    e.call.extra = nullptr;
    e.call.config = nullptr;
    return nullptr;
}

/// Waits for what was submitted to `s` so far, at most `timeout_ns`; false when it did not end.
bool wait_stream(CUstream s, std::uint64_t timeout_ns) noexcept {
    CUevent ev = nullptr;
    if (real().event_create == nullptr || real().event_create(&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
        return false;
    if (real().event_record(ev, s) != CUDA_SUCCESS) {
        if (drv().event_destroy != nullptr) drv().event_destroy(ev);
        return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
    CUresult r;
    while ((r = real().event_query(ev)) == CUDA_ERROR_NOT_READY) {
        if (std::chrono::steady_clock::now() >= deadline) return false;  // the event stays: its stream may end it
        std::this_thread::yield();
    }
    if (drv().event_destroy != nullptr) drv().event_destroy(ev);
    return r == CUDA_SUCCESS;
}

class cuda_range final : public rr::recording {
public:
    cuda_range(CUcontext ctx, std::uint64_t device, CUstream stream) noexcept
        : ctx_(ctx), device_(device), stream_(stream) {}
    ~cuda_range() override { finish(); }

    encore_replay_snapshot_policy_t default_policy() const noexcept override {
        return ENCORE_REPLAY_SNAPSHOT_FULL_COPY;
    }

    // The start snapshot, before the range's first launch runs: the context drained, then copied.
    const rr::decline_reason* start(const core::replay::options& opt) noexcept override {
        opt_ = opt;
        flush_l2_ = snapshot::flush_l2_setting();
        if (!claim(ctx_)) return &second_range;
        claimed_ = true;
        switch (snapshot::obstacle_in(ctx_, stream_)) {
            case snapshot::obstacle::managed:
            case snapshot::obstacle::imported: return &uncovered;
            case snapshot::obstacle::capturing: return &capturing;
            case snapshot::obstacle::none: break;
        }
        if (!exclusive_.acquire(ctx_, std::chrono::nanoseconds(opt_.wait_timeout_ns))) return &timed_out;
        core::replay::memory_stats st;
        const char* why = real().ctx_synchronize() != CUDA_SUCCESS
                              ? "drain"
                              : start_.take(ctx_, snapshot::slot::range_start, opt_, st);
        exclusive_.release();
        if (why != nullptr) return &snapshot_failed;
        snapshot_bytes_ = st.bytes;
        return nullptr;
    }

    const rr::decline_reason* add_kernel(const launch_call& c, std::uint64_t dispatch_id) noexcept {
        std::lock_guard lk(add_mutex_);
        if (entries_.size() >= max_entries) return &too_large;
        if (snapshot::obstacle_in(ctx_, c.work_stream()) == snapshot::obstacle::capturing) return &capturing;
        try {
            entries_.emplace_back();
        } catch (...) {
            return &staging_failed;
        }
        entry& e = entries_.back();
        e.call = c;
        e.dispatch_id = dispatch_id;
        if (const rr::decline_reason* d = keep_arguments(e); d != nullptr) {
            entries_.pop_back();
            return d;
        }
        dispatches_ += 1;
        return nullptr;
    }

    const rr::decline_reason* add_memset(std::function<CUresult()>& redo) noexcept {
        std::lock_guard lk(add_mutex_);
        if (entries_.size() >= max_entries) return &too_large;
        try {
            entries_.emplace_back();
        } catch (...) {
            return &staging_failed;
        }
        entries_.back().memset = std::move(redo);
        return nullptr;
    }

    const rr::decline_reason* add_graph(CUgraphExec exec) noexcept {
        std::lock_guard lk(add_mutex_);
        if (entries_.size() >= max_entries) return &too_large;
        if (snapshot::obstacle_in(ctx_, stream_) == snapshot::obstacle::capturing) return &capturing;
        try {
            entries_.emplace_back();
        } catch (...) {
            return &staging_failed;
        }
        entries_.back().exec = exec;
        entries_.back().dispatches = dispatches_of(exec);
        dispatches_ += entries_.back().dispatches;
        return nullptr;
    }

    [[nodiscard]] CUcontext context() const noexcept { return ctx_; }
    [[nodiscard]] CUstream stream() const noexcept { return stream_; }
    [[nodiscard]] std::uint64_t agent() const noexcept override { return device_; }
    [[nodiscard]] std::uint64_t dispatch_count() const noexcept override {
        std::lock_guard lk(add_mutex_);
        return dispatches_;
    }
    [[nodiscard]] std::uint64_t snapshot_bytes() const noexcept override { return snapshot_bytes_; }

    const rr::decline_reason* prepare() noexcept override {
        if (!exclusive_.acquire(ctx_, std::chrono::nanoseconds(opt_.wait_timeout_ns))) return &timed_out;
        core::replay::memory_stats st;
        // Pass 0 complete (every stream of the context), its COMPLETE records delivered (before
        // any pass's), then what it left.
        if (real().ctx_synchronize() != CUDA_SUCCESS) return &timed_out;
        records::drain(ctx_);
        if (!start_.intact()) return &memory_changed;
        if (final_.take(ctx_, snapshot::slot::range_end, opt_, st) != nullptr) return &staging_failed;
        for (entry& e : entries_) {
            try {
                e.args.bind();
            } catch (...) {
                return &staging_failed;
            }
            e.call.submit = thunk{&entry::relaunch, &e};
        }
        return nullptr;
    }

    bool restore_start() noexcept override {
        core::replay::memory_stats st;
        return start_.restore(st);
    }
    bool restore_final() noexcept override {
        core::replay::memory_stats st;
        return final_.restore(st);
    }
    std::uint64_t diverging_from_start() noexcept override { return start_.differing_regions(); }
    std::uint64_t diverging_from_final() noexcept override { return final_.differing_regions(); }

    const rr::decline_reason* run_pass(std::uint64_t, std::uint64_t contexts) noexcept override {
        if (flush_l2_ && !start_.flush_l2(stream_)) flush_l2_ = false;  // warned once; the passes go on warm
        for (const entry& e : entries_) {
            if (e.memset) {
                if (e.memset() != CUDA_SUCCESS) return &pass_failed;
                if (!wait_stream(stream_, opt_.wait_timeout_ns)) return &pass_stuck;
                continue;
            }
            if (e.exec != nullptr) {
                if (drv().graph_launch == nullptr || drv().graph_launch(e.exec, stream_) != CUDA_SUCCESS)
                    return &pass_failed;
                if (!wait_stream(stream_, opt_.wait_timeout_ns)) return &pass_stuck;
                continue;
            }
            bool completed = false;
            if (records::launch_pass(e.call, e.dispatch_id, contexts, completed, opt_.wait_timeout_ns) != CUDA_SUCCESS)
                return &pass_failed;
            if (!completed) return &pass_stuck;
        }
        return nullptr;
    }

    void finish() noexcept override {
        start_.release();
        final_.release();
        exclusive_.release();
        if (claimed_) unclaim(ctx_);
        claimed_ = false;
    }

private:
    CUcontext ctx_;
    std::uint64_t device_;
    CUstream stream_;
    core::replay::options opt_{};
    tracker::exclusive_use exclusive_;
    snapshot::memory start_, final_;
    // Guards entries_ and dispatches_ while the range records: with ENCORE_RANGE_REPLAY_THREADS=
    // context another thread adds to it too (under the core's lock, rr::with_range_on). From
    // prepare() on only the range's thread uses them (the range is out of the core's registry).
    mutable std::mutex add_mutex_;
    std::vector<entry> entries_;
    std::uint64_t dispatches_ = 0;
    std::uint64_t snapshot_bytes_ = 0;
    bool claimed_ = false;
    bool flush_l2_ = false;
};

/// Adds to the calling thread's recording (made at its first entry) with `add`, or declines.
template <class Add>
void record(CUcontext ctx, CUstream stream, Add&& add) noexcept {
    rr::recording* current = rr::current();
    auto* rec = dynamic_cast<cuda_range*>(current);
    if (current != nullptr && rec == nullptr) return rr::decline(multi_agent);  // another backend's (HSA)
    if (rec == nullptr) {
        auto r = std::unique_ptr<cuda_range>(new (std::nothrow) cuda_range(ctx, current_device(), stream));
        if (!r) return rr::decline(staging_failed);
        // Bound to its device before the snapshot: another thread's launch from now on declines
        // the range (or joins it), never slips in unrecorded after the snapshot.
        rec = r.get();
        rr::attach(std::move(r));
        if (const rr::decline_reason* d = rr::start(*rec); d != nullptr) return rr::decline(*d);
    } else if (rec->context() != ctx) {
        return rr::decline(multi_agent);
    } else if (rec->stream() != stream) {
        return rr::decline(multi_queue);
    }
    if (const rr::decline_reason* d = add(*rec); d != nullptr) rr::decline(*d);
}

/// Work on the current context by a thread whose range is not the one recording: every other
/// range on the device cannot be replayed (its snapshot no longer holds what its passes need).
void another_thread_worked() noexcept { rr::decline_agent(current_device(), concurrent); }

/// ENCORE_RANGE_REPLAY_THREADS=context: launches, memsets and graph launches of other threads on
/// a range's context join the range (PyTorch's autograd launches a step's backward kernels from
/// its own device thread); thread (the default): they decline it.
bool threads_join() noexcept {
    static const bool join = [] {
        const char* v = std::getenv("ENCORE_RANGE_REPLAY_THREADS");
        if (v == nullptr || *v == '\0' || std::strcmp(v, "thread") == 0) return false;
        if (std::strcmp(v, "context") == 0) return true;
        core::replay::warn_once("ENCORE_RANGE_REPLAY_THREADS is neither thread nor context: thread is used");
        return false;
    }();
    return join;
}

/// Another thread's work (`add` records it) on a range's context: joins the range there when
/// threads join (true), else declines every range on the device (false).
template <class Add>
bool join_or_decline(CUcontext ctx, CUstream stream, Add&& add) noexcept {
    struct job {
        CUcontext ctx;
        CUstream stream;
        Add& add;
    } j{ctx, stream, add};
    const auto run = [](rr::recording& r, void* data) -> const rr::decline_reason* {
        auto& jb = *static_cast<job*>(data);
        auto* rec = dynamic_cast<cuda_range*>(&r);
        if (rec == nullptr || rec->context() != jb.ctx) return &concurrent;
        if (rec->stream() != jb.stream) return &multi_queue;
        return jb.add(*rec);
    };
    if (threads_join() && rr::with_range_on(current_device(), run, &j)) return true;
    another_thread_worked();
    return false;
}

}  // namespace

bool configured() noexcept { return rr::service_configured(); }

bool launch(const launch_call& c, CUresult& r) noexcept {
    if (!rr::any_open()) return false;
    const CUcontext ctx = current_context();
    if (ctx == nullptr) return false;
    const std::uint64_t id = records::next_dispatch_id();
    if (!rr::open_here()) {
        if (!join_or_decline(ctx, c.work_stream(), [&](cuda_range& rec) { return rec.add_kernel(c, id); }))
            return false;
        // Joined: pass 0's launch, never kernel-replayed on its own.
        tracker::work_hold hold(ctx);
        r = records::launch(c, id);
        return true;
    }
    // A thread with an open range launches the ordinary way, replayed range or not: its launches
    // are pass 0 (never kernel-replayed one by one), recorded while the range records.
    if (rr::recording_here()) record(ctx, c.work_stream(), [&](cuda_range& rec) { return rec.add_kernel(c, id); });
    tracker::work_hold hold(ctx);
    r = records::launch(c, id);
    if (r != CUDA_SUCCESS) rr::decline(launch_failed);
    return true;
}

CUresult graph_launch(CUgraphExec exec, CUstream s, bool per_thread, thunk call) noexcept {
    const CUstream stream = work_stream(s, per_thread);
    const CUcontext ctx = current_context();
    const auto launch_held = [&] {
        tracker::work_hold hold(ctx);
        return call();
    };
    if (ctx == nullptr) return call();
    if (rr::open_here()) {
        if (rr::recording_here()) record(ctx, stream, [&](cuda_range& rec) { return rec.add_graph(exec); });
        const CUresult r = launch_held();
        if (r != CUDA_SUCCESS) rr::decline(launch_failed);
        return r;
    }
    if (rr::any_open() && join_or_decline(ctx, stream, [&](cuda_range& rec) { return rec.add_graph(exec); }))
        return launch_held();  // joined another thread's range
    // From a replay callback, or without the service: once.
    if (!rr::service_configured() || rr::closing_here() || core::replay::in_replay()) return launch_held();
    // A range of its own, named by the exec's handle. Not SUCCESS: no range (the service's context
    // is stopped, or this is a RANGE_REPLAY callback); the launch runs once.
    if (rocprofiler_range_replay_begin(reinterpret_cast<std::uint64_t>(exec)) != ROCPROFILER_STATUS_SUCCESS)
        return launch_held();
    if (rr::recording_here()) record(ctx, stream, [&](cuda_range& rec) { return rec.add_graph(exec); });
    const CUresult r = launch_held();
    if (r != CUDA_SUCCESS) rr::decline(launch_failed);
    (void)rocprofiler_range_replay_end();
    return r;
}

void on_instantiate(CUgraphExec exec, CUgraph graph) noexcept { graph_nodes::on_instantiate(exec, graph); }

namespace {
/// Whether one side of a copy is host memory (`by_address`: asked of the driver; pageable host
/// memory is unknown to it).
bool host_side(copy_side side, CUdeviceptr at) noexcept {
    if (side != copy_side::by_address) return side == copy_side::host;
    unsigned type = 0;
    return real().pointer_attribute == nullptr ||
           real().pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, at) != CUDA_SUCCESS ||
           type == CU_MEMORYTYPE_HOST;
}
}  // namespace

copy_kind classify(const copy_call& c) noexcept {
    switch (c.direction) {
        case ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE: return copy_kind::device_from_device;
        case ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE: return copy_kind::device_from_host;
        case ROCPROFILER_MEMORY_COPY_NONE:
            if (host_side(c.dst_side, c.dst)) return copy_kind::other;
            return host_side(c.src_side, c.src) ? copy_kind::device_from_host : copy_kind::device_from_device;
        default: return copy_kind::other;
    }
}

void on_copy(const copy_call* c) noexcept {
    if (!rr::any_open()) return;
    if (c != nullptr) {
        // Only a host-to-host copy leaves device memory alone.
        if (c->direction == ROCPROFILER_MEMORY_COPY_HOST_TO_HOST ||
            (c->direction == ROCPROFILER_MEMORY_COPY_NONE && host_side(c->src_side, c->src) &&
             host_side(c->dst_side, c->dst)))
            return;
    }
    if (rr::open_here())
        rr::decline(copy_in_range);
    else
        another_thread_worked();
}

bool any_open() noexcept { return rr::any_open(); }

CUresult memset_call(CUstream stream, std::function<CUresult()> redo) noexcept {
    return copy_call_in_range(stream, redo, thunk::of(redo));
}

CUresult copy_call_in_range(CUstream stream, std::function<CUresult()> redo, thunk own) noexcept {
    const CUcontext ctx = current_context();
    if (ctx != nullptr && rr::open_here()) {
        if (rr::recording_here()) {
            // Issued now as the program asked; the copy of the call is the entry.
            std::function<CUresult()> again;
            try {
                again = redo;
            } catch (...) {
                rr::decline(staging_failed);
            }
            if (again) record(ctx, stream, [&](cuda_range& rec) { return rec.add_memset(again); });
        }
    } else if (ctx != nullptr) {
        std::function<CUresult()> again;
        try {
            again = redo;
        } catch (...) {
        }
        (void)join_or_decline(ctx, stream, [&](cuda_range& rec) -> const rr::decline_reason* {
            return again ? rec.add_memset(again) : &staging_failed;
        });
    }
    tracker::work_hold hold(ctx);
    const CUresult r = own();
    if (r != CUDA_SUCCESS && rr::open_here()) rr::decline(launch_failed);
    return r;
}

void on_memory_change() noexcept {
    if (!rr::any_open()) return;
    // The snapshot's coverage changed under the thread's own range and every range on the device.
    rr::decline(memory_changed);
    rr::decline_agent(current_device(), memory_changed);
}

}  // namespace encore::cuda::range
