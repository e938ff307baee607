// src/cuda/records.cpp — KERNEL_DISPATCH, MEMORY_COPY and MEMORY_ALLOCATION records on CUDA.
//
// Launches and copies are timed with CUDA events recorded around them on their stream (two
// cuEventRecord calls; no extra work on the GPU's critical path, unlike timestamp kernels). One
// completion thread per process waits for the end events in submission order and delivers
// COMPLETE (dispatches) and EXIT (asynchronous copies) with the GPU's start and end times, on
// encore's clock (CLOCK_BOOTTIME ns): each context has a base event whose host time is measured
// when it is recorded on an idle private stream (the midpoint of the record call and the first
// completed query; the half-width of that window is the error bound, see docs/cuda.md), and an
// event's time is the base's plus cuEventElapsedTime(base, event). The base is renewed every
// second: elapsed times are floats in milliseconds, which keep sub-microsecond precision only
// over short spans.
//
// Kernel launches have a second, cheaper timing source: CUPTI's activity records (cupti.cpp),
// used when asked (ENCORE_CUDA_DISPATCH_TIMING=auto|cupti; events by default). Then a launch is
// not bracketed by events: its pending COMPLETE waits in a map under a key of encore's own, which
// is queued on the launch's stream for stream-order pairing (or pushed as CUPTI's external
// correlation id around the launch, ENCORE_CUPTI_PAIRING=external); CUPTI's delivery thread hands
// the key back with the kernel's times and delivers the COMPLETE. While CUPTI times launches,
// every launch encore sees queues an entry on its stream (a placeholder when it wants no times),
// so that the stream's kernel records stay in step. Replay passes and copies keep events (a
// pass's COMPLETE must be delivered before PASS EXIT, which events give without a flush).
//
// What is not timed: launches into a stream that is capturing a graph (they do not run then:
// no dispatch records at all), and launches the driver rejected (COMPLETE at once, zero times).
// Every driver call here goes to the real driver, never through encore's traced exports.
//
// This file: launches and copies on the launching thread, with the helpers their path inlines.
// The state they stand on is records_state.cpp's, their delivery records_delivery.cpp's;
// allocations are records_allocations.cpp's (records_state.hpp says who calls whom).
#include "records_state.hpp"

#include "cupti.hpp"
#include "real.hpp"

#include "core/clock.hpp"
#include "core/registry.hpp"
#include "core/warn.hpp"

#include <encore/tracing/tool.hpp>

namespace encore::cuda::records {

using namespace detail;

namespace {

using backend::subscribed;

/// Hands a timed record to the completion thread (started at the first), which delivers it when
/// its end event completed. Inlined into launch and copy, as it was before the completion thread
/// moved to records_delivery.cpp (GCC 12 no longer does so by itself).
[[gnu::always_inline]] inline void enqueue(record_ptr p) noexcept {
    p->t->queued.fetch_add(1, std::memory_order_relaxed);
    std::unique_lock lk(g_queue_mutex);
    if (!g_worker_started) {
        if (start_worker()) {
            g_worker_started = true;
            drain_at_exit();
        } else {
            lk.unlock();
            core::warn("libencore-cuda: cannot start the completion thread; records are delivered late");
            complete(*p);  // delivered here, waiting for the GPU
            return;
        }
    }
    try {
        g_queue->push_back(std::move(p));
    } catch (...) {
        lk.unlock();
        complete(*p);
        return;
    }
    lk.unlock();
    g_queue_cv.notify_one();
}

std::atomic<std::uint64_t> g_dispatch_id{0};

// CUPTI-timed launches: the putting side of the table of waiting launches (records_state.hpp).
std::atomic<std::uint64_t> g_cupti_key{0};

/// Puts launch `p` under `key` (key < busy). false: no room (no memory for the overflow).
bool put_pending(std::uint64_t key, pending* p) noexcept {
    cupti_slot& s = g_slots[key & (cupti_slots - 1)];
    // The slots of the keys after this one (mostly the next launches'): a slot's line was last
    // written by CUPTI's thread (take_pending), a table's turn ago.
    __builtin_prefetch(&g_slots[(key + 8) & (cupti_slots - 1)], 1, 3);
    std::uint64_t expected = 0;
    if (s.key.compare_exchange_strong(expected, key | busy, std::memory_order_acquire, std::memory_order_relaxed)) {
        s.p = p;
        s.key.store(key, std::memory_order_release);
    } else {
        try {
            std::lock_guard lk(g_cupti_mutex);
            g_cupti_overflow->emplace(key, p);
            g_overflow_n.fetch_add(1, std::memory_order_release);
        } catch (...) {
            return false;
        }
    }
    g_cupti_put.fetch_add(1, std::memory_order_relaxed);
    return true;
}

/// A CUPTI stream key kept by a thread: valid for context timing state `t` of generation `gen`,
/// stream handle `stream` while the driver's id of that stream is `id`, known to be so while no
/// cuStreamDestroy ran since stream epoch `epoch` (created_stream_key). Trivially destructible, so
/// launches from thread_local destructors can use one.
struct kept_stream_key {
    const context_timing* t = nullptr;
    std::uint64_t gen = 0;
    CUstream stream = nullptr;
    unsigned long long id = 0;
    std::uint64_t key = 0;
    std::uint64_t epoch = 1;  // odd: none (g_stream_epoch is even between destroys)
};

// Bumped before and after each cuStreamDestroy (destroy_stream): odd while one runs. A created
// stream's kept key is used without asking the driver while the epoch is the even value it was
// last confirmed at. Aligned, it starts a line; the launch counters defined beside it share that
// line, which the launching threads write anyway.
alignas(64) std::atomic<std::uint64_t> g_stream_epoch{0};

/// `k`'s key if it is still that of (t, s, id), else CUPTI's, kept in `k` (`ctx_key`: the
/// context's key; `per_thread`: `s` is null and names the calling thread's default stream).
std::uint64_t kept_or_asked(kept_stream_key& k, context_timing& t, std::uint64_t ctx_key, CUstream s,
                            unsigned long long id, bool per_thread) noexcept {
    const std::uint64_t gen = g_generation.load(std::memory_order_acquire);
    if (k.t != &t || k.gen != gen || k.stream != s || k.id != id || k.key == 0)
        k = {&t, gen, s, id, cupti::stream_key(ctx_key, t.ctx, s, per_thread), k.epoch};
    return k.key;
}

/// CUPTI's key of created stream `s` of context `t` (`ctx_key`: the context's), kept per thread
/// for the streams it launched on last. Asking CUPTI (cuptiGetStreamIdEx) costs 0.12 to 0.22 us
/// per call on an H200 host: a kept key is used while the handle names the stream it was kept
/// for. A handle can be reused for a new stream after cuStreamDestroy, and a stale key would queue
/// the launch where its record never comes. While no cuStreamDestroy ran since the key was last
/// confirmed (the stream epoch, which destroy_stream moves), the handle is the same stream and
/// the key is used as it is; after one, the driver's own stream id (cuStreamGetId, CUDA 12.0+)
/// confirms it again, once. Asking the driver at every launch cost 0.13 to 0.2 us of a launch on
/// an H200 under CUPTI (benchmarks/RESULTS.md). Without cuStreamGetId, CUPTI is asked after every
/// destroy.
std::uint64_t created_stream_key(context_timing& t, std::uint64_t ctx_key, CUstream s) noexcept {
    static thread_local kept_stream_key kept[8];  // direct-mapped by handle
    kept_stream_key& k = kept[(reinterpret_cast<std::uintptr_t>(s) >> 4) & 7];
    const std::uint64_t epoch = g_stream_epoch.load(std::memory_order_acquire);
    if (k.epoch == epoch && k.t == &t && k.stream == s && k.key != 0 &&
        k.gen == g_generation.load(std::memory_order_acquire))
        return k.key;
    unsigned long long id = 0;
    if (real().stream_get_id == nullptr || real().stream_get_id(s, &id) != CUDA_SUCCESS || id == 0)
        k.key = 0;  // nothing can confirm the kept key: CUPTI is asked again
    const std::uint64_t key = kept_or_asked(k, t, ctx_key, s, id, false);
    // Trusted from now until the next destroy when confirmed while none ran (an odd epoch, or one
    // that moved meanwhile, is not kept).
    k.epoch = (epoch & 1) == 0 && g_stream_epoch.load(std::memory_order_acquire) == epoch ? epoch : 1;
    return key;
}

/// CUPTI's stream key of launch `c`'s stream (`t`: the current context's timing state); 0 when
/// CUPTI cannot name it. The context's and its legacy default stream's keys are kept in `t`, the
/// per-thread default stream's per thread, a created stream's as created_stream_key says.
std::uint64_t cupti_stream_of(context_timing& t, const launch_call& c) noexcept {
    std::uint64_t ctx_key = t.cupti_context.load(std::memory_order_relaxed);
    if (ctx_key == 0) {
        ctx_key = cupti::context_key(t.ctx);
        if (ctx_key == 0) return 0;
        t.cupti_context.store(ctx_key, std::memory_order_relaxed);
    }
    CUstream s = c.stream;
    bool per_thread = c.per_thread;
    if (s == CU_STREAM_LEGACY) s = nullptr, per_thread = false;
    if (s == CU_STREAM_PER_THREAD) s = nullptr, per_thread = true;
    if (s != nullptr) return created_stream_key(t, ctx_key, s);
    if (!per_thread) {
        std::uint64_t k = t.cupti_legacy.load(std::memory_order_relaxed);
        if (k == 0) {
            k = cupti::stream_key(ctx_key, t.ctx, nullptr, false);
            t.cupti_legacy.store(k, std::memory_order_relaxed);
        }
        return k;
    }
    // The calling thread's default stream: its key for the context last asked about.
    static thread_local kept_stream_key last;
    return kept_or_asked(last, t, ctx_key, nullptr, 0, true);
}

/// Whether launches queue entries for CUPTI's stream-order pairing now.
bool cupti_queueing() noexcept;

/// Submits launch `c` with a placeholder queued on its stream (CUPTI times launches in stream
/// order and this one's kernel record is not wanted: it must still be consumed in order).
CUresult submit_placeholder(const launch_call& c) noexcept {
    const CUcontext ctx = current_context();
    if (ctx == nullptr) return c.submit();
    context_timing* t = nullptr;
    try {
        t = timing_of(ctx);
    } catch (...) {
        return c.submit();
    }
    cupti::queued_launch q(cupti_stream_of(*t, c), 0, c.grid, c.block);
    const CUresult r = c.submit();
    if (r != CUDA_SUCCESS) q.rejected();
    return r;
}

/// Launch `c` with its COMPLETE timed by CUPTI; false (nothing done, `owned` kept) when it cannot
/// be set up. `owned->t` is the launch's context's timing state.
bool launch_cupti(record_ptr& owned, const launch_call& c, std::uint64_t enqueue_mask, CUresult& r) noexcept {
    pending* p = owned.get();
    const bool external = cupti::method() == cupti::pairing::external;
    // A stream CUPTI cannot name is timed with events (its kernel record is ignored as not ours).
    const std::uint64_t ids = external ? 0 : cupti_stream_of(*p->t, c);
    if (!external && ids == 0) return false;
    const std::uint64_t key = g_cupti_key.fetch_add(1, std::memory_order_relaxed) + 1;
    if (!put_pending(key, p)) return false;  // no memory for the overflow: timed with events
    (void)owned.release();                   // the table's now, until taken
    p->t->queued.fetch_add(1, std::memory_order_relaxed);
    drain_at_exit();
    if ((key & (pairing_check - 1)) == 0) check_cupti_pairing();
    bool pushed = false;
    if (external) {
        pushed = cupti::push(key);
        r = c.submit();
        if (pushed) cupti::pop();
    } else {
        cupti::queued_launch q(ids, key, c.grid, c.block);
        r = c.submit();
        pushed = q.queued();
        if (r != CUDA_SUCCESS) q.rejected();
    }
    p->ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_EXIT, &p->dispatch);
    if (r != CUDA_SUCCESS || !pushed) {
        // No kernel record will come: COMPLETE now, without GPU times (unless CUPTI took it).
        if (pending* const mine = take_pending(key)) {
            finish_cupti(mine);
            return true;
        }
    }
    if (p->arrivals.fetch_add(1, std::memory_order_acq_rel) == 1) finish_cupti(p);
    return true;
}

bool capturing(CUstream s) noexcept {
    if (real().stream_is_capturing == nullptr) return false;
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    return real().stream_is_capturing(s, &st) == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE;
}

void fill_dispatch(rocprofiler_callback_tracing_kernel_dispatch_data_t& p, const launch_call& c, std::uint64_t device,
                   std::uint64_t id) noexcept {
    p.size = sizeof(p);
    p.dispatch_info = dispatch_info(c, device, id);
}

/// Submits `submit` on stream `s` between two pooled events of context `ctx` (null: untimed).
/// Whether both events were recorded around a successful submission; `r`: the submission's result.
bool submit_timed(pending& p, CUcontext ctx, CUstream s, const thunk& submit, CUresult& r) noexcept {
    bool started = false;
    if (ctx != nullptr) {
        p.t = timing_of(ctx);
        started = take_events(*p.t, p.start, p.end) && real().event_record(p.start, s) == CUDA_SUCCESS;
    }
    r = submit();
    return started && r == CUDA_SUCCESS && real().event_record(p.end, s) == CUDA_SUCCESS;
}

bool is_device_memory(CUdeviceptr p) noexcept {
    unsigned type = 0;
    if (real().pointer_attribute == nullptr ||
        real().pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS)
        return false;  // pageable host memory is unknown to the driver
    return type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED;
}

/// Whether launches are timed by CUPTI: decided at the first launch that wants a COMPLETE, so a
/// process whose tools want none never loads CUPTI.
bool cupti_timing() noexcept {
    static const bool on = [] {
        const bool a = real().timing() && cupti::active(&on_cupti_times, &on_cupti_batch);
        g_cupti_timing.store(a, std::memory_order_release);
        // Registered (again, if copies registered it before) after whatever CUPTI registered
        // while initializing: the exit drain, which flushes CUPTI, runs before CUPTI's own
        // teardown. A second drain_all finds nothing pending.
        if (a) (void)std::atexit(drain_all);
        return a;
    }();
    return on && !g_cupti_off.load(std::memory_order_relaxed);
}

bool cupti_queueing() noexcept {
    return g_cupti_timing.load(std::memory_order_acquire) && !g_cupti_off.load(std::memory_order_relaxed) &&
           cupti::method() == cupti::pairing::stream;
}
}  // namespace

bool dispatches_configured() noexcept { return core::kind_configured(kind::kernel_dispatch); }
bool copies_configured() noexcept { return core::kind_configured(kind::memory_copy); }
bool allocations_configured() noexcept { return core::kind_configured(kind::memory_allocation); }

std::uint64_t next_dispatch_id() noexcept { return g_dispatch_id.fetch_add(1, std::memory_order_relaxed) + 1; }

CUresult destroy_stream(thunk call) noexcept {
    // Odd from before the driver frees the handle until after it returned: a thread that creates a
    // stream meanwhile and gets the same handle confirms its key with the driver (created_stream_key).
    g_stream_epoch.fetch_add(1, std::memory_order_acq_rel);
    const CUresult r = call();
    g_stream_epoch.fetch_add(1, std::memory_order_acq_rel);
    return r;
}

rocprofiler_kernel_dispatch_info_t dispatch_info(const launch_call& c, std::uint64_t device, std::uint64_t id) noexcept {
    rocprofiler_kernel_dispatch_info_t info{};
    info.size = sizeof(info);
    info.agent_id.handle = device;
    info.queue_id.handle = reinterpret_cast<std::uint64_t>(c.work_stream());
    info.kernel_id = reinterpret_cast<std::uint64_t>(c.f);
    info.dispatch_id = id;
    info.private_segment_size = 0;
    info.group_segment_size = c.shared;
    info.workgroup_size = {c.block[0], c.block[1], c.block[2]};
    info.grid_size = {c.grid[0] * c.block[0], c.grid[1] * c.block[1], c.grid[2] * c.block[2]};
    return info;
}

CUresult launch(const launch_call& c, std::uint64_t dispatch_id) noexcept {
    // Both as of one moment (backend::subscribed_pair): every COMPLETE has its ENQUEUE.
    const auto [enqueue_mask, complete_mask] = backend::subscribed_pair(kind::kernel_dispatch,
                                                                        ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                                                        ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
    const CUstream s = c.work_stream();
    if ((enqueue_mask | complete_mask) == 0) {
        if (cupti_queueing() && !capturing(s)) return submit_placeholder(c);
        return c.submit();
    }
    if (capturing(s)) return c.submit();  // recorded into a graph, not run now
    record_ptr p(take_record());
    if (p && event::capture_into_for(p->captured, kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                     enqueue_mask | complete_mask))
        p->ev = &p->captured;
    if (!p || p->ev == nullptr) return cupti_queueing() ? submit_placeholder(c) : c.submit();
    p->mask = complete_mask & p->ev->mask;
    // The context once, its device from the timing state (one driver call per launch fewer: with
    // CUPTI's API records on, each of encore's own driver calls costs a record too).
    const CUcontext ctx = current_context();
    std::uint64_t device = 0;
    if (ctx != nullptr) {
        try {
            p->t = timing_of(ctx);
            device = static_cast<std::uint64_t>(p->t->device);
        } catch (...) {
            device = current_device();
        }
    }
    fill_dispatch(p->dispatch, c, device, dispatch_id != 0 ? dispatch_id : next_dispatch_id());
    p->ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_ENTER, &p->dispatch);
    CUresult r;
    if (p->mask != 0 && p->t && cupti_timing() && launch_cupti(p, c, enqueue_mask, r)) return r;
    bool timed = false;
    if (p->mask == 0 && cupti_queueing()) {
        r = submit_placeholder(c);  // no COMPLETE wanted: no events either
    } else {
        timed = submit_timed(*p, p->mask != 0 && real().timing() ? ctx : nullptr, s, c.submit, r);
    }
    p->ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_EXIT, &p->dispatch);
    if (p->mask == 0) {
        if (p->t && p->start != nullptr) give_back(*p->t, p->start, p->end);
        return r;
    }
    if (!timed) {
        // Rejected by the driver (or no timing): COMPLETE now, without GPU times.
        if (p->t && p->start != nullptr) give_back(*p->t, p->start, p->end);
        p->t = nullptr;
        deliver(*p, false);
        return r;
    }
    enqueue(std::move(p));
    return r;
}

CUresult launch_pass(const launch_call& c, std::uint64_t dispatch_id, std::uint64_t contexts, bool& completed,
                     std::uint64_t timeout_ns) noexcept {
    completed = false;
    const auto both = backend::subscribed_pair(kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                               ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
    const std::uint64_t enqueue_mask = both.first & contexts;
    const std::uint64_t complete_mask = both.second & contexts;
    const CUstream s = c.work_stream();
    const CUcontext ctx = current_context();
    if (ctx == nullptr || !real().timing()) return CUDA_ERROR_INVALID_CONTEXT;
    pending p;
    try {
        p.t = timing_of(ctx);
    } catch (...) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if ((enqueue_mask | complete_mask) != 0) {
        if (event::capture_into_for(p.captured, kind::kernel_dispatch, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                    enqueue_mask | complete_mask))
            p.ev = &p.captured;
        if (p.ev) {
            p.mask = complete_mask & p.ev->mask;
            fill_dispatch(p.dispatch, c, static_cast<std::uint64_t>(p.t->device), dispatch_id);
            p.ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_ENTER,
                             &p.dispatch);
        }
    }
    // The pass is waited for through its end event, bounded: a kernel that never ends must not
    // hang the replay.
    if (!take_events(*p.t, p.start, p.end)) return CUDA_ERROR_OUT_OF_MEMORY;
    const bool started = real().event_record(p.start, s) == CUDA_SUCCESS;
    // Timed with events; with CUPTI pairing in stream order, its kernel record is consumed in order.
    const CUresult r = cupti_queueing() ? submit_placeholder(c) : c.submit();
    const bool ended = r == CUDA_SUCCESS && real().event_record(p.end, s) == CUDA_SUCCESS;
    if (p.ev)
        p.ev->deliver_to(enqueue_mask, ROCPROFILER_KERNEL_DISPATCH_ENQUEUE, ROCPROFILER_CALLBACK_PHASE_EXIT, &p.dispatch);
    completed = ended && wait_event(p.end, core::now_ns() + timeout_ns, true);
    if (p.ev && p.mask != 0) deliver(p, completed && started);
    // An event still pending on a stuck kernel is not reused (its stream may yet complete it).
    if (completed) give_back(*p.t, p.start, p.end);
    return r;
}

CUresult copy(const copy_call& c) noexcept {
    op_id dir = c.direction;
    std::uint64_t mask = 0;
    for (op_id op = ROCPROFILER_MEMORY_COPY_HOST_TO_HOST; op < ROCPROFILER_MEMORY_COPY_LAST; ++op)
        mask |= subscribed(kind::memory_copy, op);
    if (mask == 0) return c.submit();
    bool src_dev = dir == ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST || dir == ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE;
    bool dst_dev = dir == ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE || dir == ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE;
    if (dir == 0) {
        const auto on_device = [](copy_side side, CUdeviceptr at) {
            return side == copy_side::by_address ? is_device_memory(at) : side == copy_side::device;
        };
        src_dev = on_device(c.src_side, c.src);
        dst_dev = on_device(c.dst_side, c.dst);
        dir = ROCPROFILER_MEMORY_COPY_HOST_TO_HOST + (src_dev ? 2 : 0) + (dst_dev ? 1 : 0);
    }
    const CUstream s = c.work_stream();
    if (capturing(s)) return c.submit();
    record_ptr p(take_record());
    if (p && event::capture_into_for(p->captured, kind::memory_copy, dir, subscribed(kind::memory_copy, dir)))
        p->ev = &p->captured;
    if (!p || p->ev == nullptr) return c.submit();
    p->k = kind::memory_copy;
    const std::uint64_t device = current_device();
    p->copy.size = sizeof(p->copy);
    p->copy.dst_agent_id.handle = dst_dev ? device : host_agent;
    p->copy.src_agent_id.handle = src_dev ? device : host_agent;
    p->copy.bytes = c.bytes;
    p->copy.dst_address.value = c.dst;
    p->copy.src_address.value = c.src;
    p->ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p->copy);
    CUresult r;
    const bool timed = submit_timed(*p, real().timing() ? current_context() : nullptr, s, c.submit, r);
    if (!timed || !c.async) {
        // A synchronous copy's EXIT comes on this thread, like HSA's hsa_memory_copy: the copy
        // has completed then (some return before the DMA ends: its end event is waited for).
        const bool ok = timed && wait_event(p->end, 0, true);
        if (p->t && p->start != nullptr) {
            if (ok) (void)times_of(*p->t, p->start, p->end, p->copy.start_timestamp, p->copy.end_timestamp);
            give_back(*p->t, p->start, p->end);
        }
        p->ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p->copy);
        return r;
    }
    enqueue(std::move(p));
    return r;
}

}  // namespace encore::cuda::records
