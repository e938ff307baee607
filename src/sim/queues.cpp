// AQL queues: ring buffers, packet processor threads, kernel dispatch, barriers,
// intercept queues, dispatch profiling.
#include "sim_internal.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace encore::sim {

namespace {

constexpr uint16_t kInvalidHeader = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
constexpr uint32_t kMinQueueSize = 64;
constexpr uint32_t kMaxQueueSize = 131072;
constexpr uint32_t kMaxQueuesPerAgent = 128;

using ErrorCallback = void (*)(hsa_status_t, hsa_queue_t*, void*);
using InterceptHandler = hsa_amd_queue_intercept_handler;

std::atomic<uint64_t> g_queue_ids{0};
std::atomic<uint64_t> g_dispatch_ids{0};

uint16_t load_header(const void* slot) { return __atomic_load_n(static_cast<const uint16_t*>(slot), __ATOMIC_ACQUIRE); }
void store_header(void* slot, uint16_t h) { __atomic_store_n(static_cast<uint16_t*>(slot), h, __ATOMIC_RELEASE); }
// AQL acquire/release fences. GCC does not support atomic_thread_fence under ThreadSanitizer;
// there an acq_rel RMW on a shared atomic gives TSan-visible (and stronger) ordering.
#if defined(__SANITIZE_THREAD__)
std::atomic<uint32_t> g_fence_word{0};
void aql_fence(std::memory_order) { g_fence_word.fetch_add(0, std::memory_order_acq_rel); }
#else
void aql_fence(std::memory_order mo) { std::atomic_thread_fence(mo); }
#endif

uint8_t packet_type(uint16_t h) {
    return static_cast<uint8_t>((h >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1));
}

}  // namespace

struct Queue;

// Atomic view of one of amd_queue_t's volatile 64-bit index fields.
struct AtomicIndex {
    volatile uint64_t& v;
    uint64_t load(std::memory_order mo) const { return __atomic_load_n(&v, static_cast<int>(mo)); }
    void store(uint64_t x, std::memory_order mo) const { __atomic_store_n(&v, x, static_cast<int>(mo)); }
    uint64_t fetch_add(uint64_t x, std::memory_order mo) const {
        return __atomic_fetch_add(&v, x, static_cast<int>(mo));
    }
    bool compare_exchange_strong(uint64_t& expected, uint64_t x, std::memory_order mo) const {
        return __atomic_compare_exchange_n(&v, &expected, x, false, static_cast<int>(mo),
                                           static_cast<int>(std::memory_order_acquire));
    }
};

// Like ROCr, the hsa_queue_t handed out is the first member of an amd_queue_t, whose
// write_dispatch_id / read_dispatch_id are the queue's write and read indices (tools that
// peek at amd_queue_t see the right values). Standard layout, so hsa_queue_t* <->
// QueueHeader* is a valid conversion.
struct QueueHeader {
    amd_queue_t amd{};
    Queue* owner = nullptr;
    AtomicIndex write_index() { return {amd.write_dispatch_id}; }
    AtomicIndex read_index() { return {amd.read_dispatch_id}; }
};
static_assert(std::is_standard_layout_v<QueueHeader>);
static_assert(offsetof(QueueHeader, amd) == 0 && offsetof(amd_queue_t, hsa_queue) == 0);

struct Queue {
    QueueHeader h;
    Agent* agent = nullptr;
    SignalRef doorbell;
    void* ring = nullptr;
    uint32_t size = 0;
    ErrorCallback err_cb = nullptr;
    void* err_data = nullptr;
    hsa_queue_t* report_as = nullptr;  // queue reported to the error callback
    std::atomic<bool> stop{false};
    std::atomic<bool> errored{false};
    std::atomic<bool> inactive{false};
    std::atomic<bool> profiling{false};
    std::thread thread;
    uint32_t group_segment_size = 0;
    uint32_t private_segment_size = 0;
    bool counts_agent = true;  // false for the hardware queue behind a proxy
    // Scratch (private segment) memory this queue holds, and whether a dispatch of it runs now
    // (an idle queue's scratch may be reclaimed for another queue). Guarded by g_scratch_mu.
    uint64_t scratch_bytes = 0;
    bool dispatching = false;
    const hsa_queue_t* program_queue() const { return report_as != nullptr ? report_as : &h.amd.hsa_queue; }

    // Intercept (proxy) queues.
    bool is_proxy = false;
    std::unique_ptr<Queue> hw;
    std::mutex ic_mu;
    std::vector<std::pair<InterceptHandler, void*>> handlers;
    std::atomic<bool> ic_busy{false};
    std::atomic<uint64_t> ic_pending{0};
    uint64_t ic_next = 0;  // next proxy packet to hand to the handlers (guarded by ic_busy)

    uint8_t* slot(uint64_t index) const { return static_cast<uint8_t*>(ring) + (index & (size - 1)) * 64; }

    bool owns_doorbell = true;  // false for soft queues (the program's signal)

    ~Queue() {
        if (doorbell && owns_doorbell) signal_destroy_internal(hsa_signal_t{doorbell->handle});
        std::free(ring);
    }

    void run();
    void wait_doorbell(const uint8_t* slot);
    hsa_status_t execute(uint16_t header, const uint8_t* pkt);
    hsa_status_t dispatch(uint16_t header, const hsa_kernel_dispatch_packet_t& p);
    hsa_status_t barrier(uint16_t header, const hsa_barrier_and_packet_t& p, bool is_and);
    void complete(const SignalRef& s, uint64_t t0, uint64_t t1);
};

namespace {

QueueHeader* header_of(const hsa_queue_t* q) { return reinterpret_cast<QueueHeader*>(const_cast<hsa_queue_t*>(q)); }

auto& g_q_mu = leaky<std::mutex>();
auto& g_queues = leaky<std::unordered_map<const hsa_queue_t*, std::unique_ptr<Queue>>>();
// Queues destroyed from their own processor thread; joined at shut_down.
auto& g_zombies = leaky<std::vector<std::unique_ptr<Queue>>>();
auto& g_runtime_queue_notifiers = leaky<std::vector<std::pair<hsa_amd_runtime_queue_notifier, void*>>>();

}  // namespace

void Queue::wait_doorbell(const uint8_t* s) {
    Signal& db = *doorbell;
    const Signal::WaitCond any{HSA_SIGNAL_CONDITION_NE, 0, true};
    signal_add_waiter(db, any);
    const uint32_t e = db.epoch.load(std::memory_order_seq_cst);
    if (!stop.load(std::memory_order_seq_cst) &&
        (packet_type(load_header(s)) == HSA_PACKET_TYPE_INVALID || errored.load() || inactive.load())) {
        // The timeout only bounds the latency for programs that forget to ring the doorbell.
        futex_wait(&db.epoch, e, 10'000'000);
    }
    signal_remove_waiter(db, any);
}

void Queue::run() {
    uint64_t rd = 0;
    uint64_t idle_since = 0;  // when the processor last found no packet (0: busy)
    uint32_t spins = 0;
    while (!stop.load(std::memory_order_acquire)) {
        uint8_t* s = slot(rd);
        const uint16_t hdr = load_header(s);
        if (packet_type(hdr) == HSA_PACKET_TYPE_INVALID || errored.load() || inactive.load()) {
            // Poll for 200 us after the last packet before sleeping on the doorbell (longer than a
            // futex wake-up, so a submitter that slept while waiting finds the processor awake).
            const uint64_t now = now_ticks();
            if (idle_since == 0) idle_since = now;
            if (now - idle_since < 200'000 && !errored.load() && !inactive.load()) {
                for (int i = 0; i < 64; ++i) cpu_relax();
                if ((++spins & 255) == 0) std::this_thread::yield();  // let others run on few cores
                continue;
            }
            wait_doorbell(s);
            continue;
        }
        idle_since = 0;
        // Like a command processor: fetch the packet, release its slot, then execute it.
        alignas(64) uint8_t pkt[64];
        memcpy(pkt + 2, s + 2, 62);
        memcpy(pkt, &hdr, 2);
        store_header(s, kInvalidHeader);
        h.read_index().store(rd + 1, std::memory_order_release);
        ++rd;
        const hsa_status_t err = execute(hdr, pkt);
        if (err != HSA_STATUS_SUCCESS) {
            errored.store(true);
            if (err_cb) err_cb(err, report_as, err_data);
            // The queue stays in the error state; no packet is processed any more.
        }
    }
}

hsa_status_t Queue::execute(uint16_t hdr, const uint8_t* pkt) {
    const uint32_t acq = (hdr >> HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) & 3;
    if (acq != HSA_FENCE_SCOPE_NONE) aql_fence(std::memory_order_acquire);
    switch (packet_type(hdr)) {
        case HSA_PACKET_TYPE_KERNEL_DISPATCH: {
            hsa_kernel_dispatch_packet_t p;
            memcpy(&p, pkt, sizeof p);
            return dispatch(hdr, p);
        }
        case HSA_PACKET_TYPE_BARRIER_AND:
        case HSA_PACKET_TYPE_BARRIER_OR: {
            hsa_barrier_and_packet_t p;
            memcpy(&p, pkt, sizeof p);
            return barrier(hdr, p, packet_type(hdr) == HSA_PACKET_TYPE_BARRIER_AND);
        }
        default: return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    }
}

void Queue::complete(const SignalRef& s, uint64_t t0, uint64_t t1) {
    aql_fence(std::memory_order_release);
    if (!s) return;
    s->start_ts.store(t0, std::memory_order_relaxed);
    s->end_ts.store(t1, std::memory_order_relaxed);
    s->value.fetch_sub(1, std::memory_order_seq_cst);
    signal_notify(*s);
}

namespace {

struct DispatchCtx {
    const hsa_kernel_dispatch_packet_t* packet;
    encore_sim_kernel_fn fn;
    uint32_t dims;
    uint32_t grid[3];
    uint32_t wg[3];
    uint32_t ng[3];
    uint32_t group_bytes;
    uint32_t private_bytes;
    uint64_t dispatch_id;
    uint32_t agent_index;
};

void run_group(void* c, uint64_t flat, uint32_t worker) {
    const DispatchCtx& d = *static_cast<const DispatchCtx*>(c);
    encore_sim_workgroup_t w;
    w.abi_version = ENCORE_SIM_ABI_VERSION;
    w.dims = d.dims;
    w.group_id[0] = static_cast<uint32_t>(flat % d.ng[0]);
    w.group_id[1] = static_cast<uint32_t>((flat / d.ng[0]) % d.ng[1]);
    w.group_id[2] = static_cast<uint32_t>(flat / (static_cast<uint64_t>(d.ng[0]) * d.ng[1]));
    uint32_t items = 1;
    for (int i = 0; i < 3; ++i) {
        w.grid_size[i] = d.grid[i];
        w.workgroup_size[i] = d.wg[i];
        w.num_groups[i] = d.ng[i];
        const uint64_t start = static_cast<uint64_t>(w.group_id[i]) * d.wg[i];
        w.local_size[i] = static_cast<uint32_t>(std::min<uint64_t>(d.wg[i], d.grid[i] - start));
        items *= w.local_size[i];
    }
    thread_local std::vector<uint8_t> group_mem;
    thread_local std::vector<uint8_t> private_mem;
    w.group_segment_size = d.group_bytes;
    w.private_segment_size = d.private_bytes;
    w.group_segment = nullptr;
    w.private_segment = nullptr;
    if (d.group_bytes) {
        if (group_mem.size() < d.group_bytes) group_mem.resize(d.group_bytes);
        w.group_segment = group_mem.data();
    }
    if (d.private_bytes) {
        const size_t need = static_cast<size_t>(d.private_bytes) * items;
        if (private_mem.size() < need) private_mem.resize(need);
        w.private_segment = private_mem.data();
    }
    w.kernarg = d.packet->kernarg_address;
    w.packet = d.packet;
    w.dispatch_id = d.dispatch_id;
    w.agent_index = d.agent_index;
    w.worker_index = worker;
    d.fn(&w);
}

}  // namespace

// ---- scratch memory -------------------------------------------------------------------------------
// A model of ROCr's scratch management, reported through the tools table as ROCr reports it: a
// queue holds scratch for its dispatches that need a private segment (bytes per work-item x the
// wave size x the waves that may run at once, at most kMaxScratchSlots); a dispatch that needs
// more than its queue holds grows it (ALLOC, flags NONE). If all queues together would hold more
// than the limit, idle queues' scratch is reclaimed first (ASYNC_RECLAIM on each); a dispatch
// that needs more than the whole limit gets scratch for itself alone (ALLOC and, after it,
// FREE, flags USE_ONCE). A destroyed queue frees what it holds (FREE). The events run on the
// thread that processes the queue, START then END around the change. (The kernels' private
// memory itself is per worker thread: this is accounting, not where that memory lives.)
namespace {

constexpr uint64_t kScratchWaveSize = 64;
constexpr uint64_t kMaxScratchSlots = 2048;

std::mutex g_scratch_mu;
uint64_t g_scratch_total = 0;  // guarded by g_scratch_mu

void tool_event(hsa_amd_tool_event_kind_t kind, const hsa_queue_t* q, hsa_amd_event_scratch_alloc_flag_t flags,
                uint64_t dispatch_id = 0, size_t size = 0, size_t slots = 0) {
    const ToolsApiTable& t = tools_table();
    hsa_amd_tool_event_t e{};
    switch (kind) {
        case HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_START: {
            const hsa_amd_event_scratch_alloc_start_t ev{kind, q, flags, dispatch_id};
            e.scratch_alloc_start = &ev;
            t.hsa_amd_tool_scratch_event_alloc_start_fn(e);
            return;
        }
        case HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END: {
            const hsa_amd_event_scratch_alloc_end_t ev{kind, q, flags, dispatch_id, size, slots};
            e.scratch_alloc_end = &ev;
            t.hsa_amd_tool_scratch_event_alloc_end_fn(e);
            return;
        }
        case HSA_AMD_TOOL_EVENT_SCRATCH_FREE_START:
        case HSA_AMD_TOOL_EVENT_SCRATCH_FREE_END:
        case HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_START:
        case HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_END: {
            // The four share one layout {kind, queue, flags}.
            const hsa_amd_event_scratch_free_start_t ev{kind, q, flags};
            e.scratch_free_start = &ev;
            const auto slot = kind == HSA_AMD_TOOL_EVENT_SCRATCH_FREE_START ? t.hsa_amd_tool_scratch_event_free_start_fn
                              : kind == HSA_AMD_TOOL_EVENT_SCRATCH_FREE_END ? t.hsa_amd_tool_scratch_event_free_end_fn
                              : kind == HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_START
                                  ? t.hsa_amd_tool_scratch_event_async_reclaim_start_fn
                                  : t.hsa_amd_tool_scratch_event_async_reclaim_end_fn;
            slot(e);
            return;
        }
        default: return;
    }
}

// Scratch for a dispatch of `q` that needs `need` bytes over `slots` waves: true when it got
// scratch of its own (use once: free it after the dispatch). The accounting changes under the
// locks; the events (a tool's code, which may call the runtime) run after they are released.
bool acquire_scratch(Queue& q, uint64_t need, uint64_t slots, uint64_t dispatch_id) {
    const hsa_queue_t* self = q.program_queue();
    std::vector<const hsa_queue_t*> reclaimed;
    bool use_once = false;
    {
        std::lock_guard lk(g_scratch_mu);
        q.dispatching = true;
        if (need <= q.scratch_bytes) return false;
        const uint64_t limit = scratch_limit();
        use_once = need > limit;
        if (!use_once) {
            if (g_scratch_total - q.scratch_bytes + need > limit) {
                std::lock_guard ql(g_q_mu);
                for (auto& [handle, owner] : g_queues) {
                    Queue* o = owner->hw ? owner->hw.get() : owner.get();
                    if (o == &q || o->dispatching || o->scratch_bytes == 0) continue;
                    g_scratch_total -= o->scratch_bytes;
                    o->scratch_bytes = 0;
                    reclaimed.push_back(o->program_queue());
                    if (g_scratch_total - q.scratch_bytes + need <= limit) break;
                }
            }
            g_scratch_total += need - q.scratch_bytes;
            q.scratch_bytes = need;
        }
    }
    for (const hsa_queue_t* o : reclaimed) {
        tool_event(HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_START, o, HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_NONE);
        tool_event(HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_END, o, HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_NONE);
    }
    const auto flags = use_once ? HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_USE_ONCE : HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_NONE;
    tool_event(HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_START, self, flags, dispatch_id);
    tool_event(HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END, self, flags, dispatch_id, need, slots);
    return use_once;
}

void end_dispatch_scratch(Queue& q, bool use_once) {
    {
        std::lock_guard lk(g_scratch_mu);
        q.dispatching = false;
    }
    if (!use_once) return;
    tool_event(HSA_AMD_TOOL_EVENT_SCRATCH_FREE_START, q.program_queue(), HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_USE_ONCE);
    tool_event(HSA_AMD_TOOL_EVENT_SCRATCH_FREE_END, q.program_queue(), HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_USE_ONCE);
}

// A queue going away frees what it holds (before its handle is gone for the tool).
void free_queue_scratch(Queue& q) {
    std::unique_lock lk(g_scratch_mu);
    if (q.scratch_bytes == 0) return;
    g_scratch_total -= q.scratch_bytes;
    q.scratch_bytes = 0;
    lk.unlock();
    tool_event(HSA_AMD_TOOL_EVENT_SCRATCH_FREE_START, q.program_queue(), HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_NONE);
    tool_event(HSA_AMD_TOOL_EVENT_SCRATCH_FREE_END, q.program_queue(), HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_NONE);
}

}  // namespace

hsa_status_t Queue::dispatch(uint16_t hdr, const hsa_kernel_dispatch_packet_t& p) {
    DispatchCtx d{};
    d.dims = (p.setup >> HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) & 3;
    if (d.dims < 1 || d.dims > 3) return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    const uint32_t wg[3] = {p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z};
    const uint32_t grid[3] = {p.grid_size_x, p.grid_size_y, p.grid_size_z};
    uint64_t wg_items = 1;
    uint64_t groups = 1;
    for (uint32_t i = 0; i < 3; ++i) {
        d.wg[i] = i < d.dims ? wg[i] : 1;
        d.grid[i] = i < d.dims ? grid[i] : 1;
        if (d.wg[i] == 0 || d.grid[i] == 0) return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
        d.ng[i] = (d.grid[i] + d.wg[i] - 1) / d.wg[i];
        wg_items *= d.wg[i];
        groups *= d.ng[i];
    }
    if (wg_items > 1024) return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    KernelRef k;
    if (!kernel_lookup(p.kernel_object, &k)) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    SignalRef comp;
    if (p.completion_signal.handle != 0) {
        comp = signal_lookup(p.completion_signal);
        if (!comp) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    }
    d.packet = &p;
    d.fn = k.fn;
    d.group_bytes = std::max(p.group_segment_size, k.group_segment_size);
    d.private_bytes = std::max(p.private_segment_size, k.private_segment_size);
    d.dispatch_id = g_dispatch_ids.fetch_add(1, std::memory_order_relaxed);
    d.agent_index = agent->gpu_index;
    bool use_once = false;
    if (d.private_bytes != 0) {
        const uint64_t waves = groups * ((wg_items + kScratchWaveSize - 1) / kScratchWaveSize);
        const uint64_t slots = std::min(waves, kMaxScratchSlots);
        use_once = acquire_scratch(*this, uint64_t{d.private_bytes} * kScratchWaveSize * slots, slots, d.dispatch_id);
    }
    const uint64_t t0 = now_ticks();
    if (agent->workers && groups > 1) {
        WorkerPool::Job job;
        job.fn = run_group;
        job.ctx = &d;
        job.total = groups;
        agent->workers->run(job);
    } else {
        for (uint64_t g = 0; g < groups; ++g) run_group(&d, g, 0);
    }
    const uint64_t t1 = now_ticks();
    if (d.private_bytes != 0) end_dispatch_scratch(*this, use_once);
    (void)hdr;
    complete(comp, t0, t1);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t Queue::barrier(uint16_t hdr, const hsa_barrier_and_packet_t& p, bool is_and) {
    (void)hdr;
    std::vector<SignalRef> deps;
    for (const hsa_signal_t& s : p.dep_signal) {
        if (s.handle == 0) continue;
        SignalRef r = signal_lookup(s);
        if (!r) return HSA_STATUS_ERROR_INVALID_SIGNAL;
        deps.push_back(std::move(r));
    }
    SignalRef comp;
    if (p.completion_signal.handle != 0) {
        comp = signal_lookup(p.completion_signal);
        if (!comp) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    }
    const uint64_t t0 = now_ticks();
    auto satisfied = [&] {
        if (deps.empty()) return true;
        for (auto& d : deps) {
            const bool zero = d->value.load(std::memory_order_seq_cst) == 0;
            if (is_and && !zero) return false;
            if (!is_and && zero) return true;
        }
        return is_and;
    };
    g_any_waiters.fetch_add(1, std::memory_order_seq_cst);
    for (;;) {
        const uint32_t e = g_any_epoch.load(std::memory_order_seq_cst);
        if (satisfied() || stop.load(std::memory_order_seq_cst)) break;
        futex_wait(&g_any_epoch, e, 50'000'000);
    }
    g_any_waiters.fetch_sub(1, std::memory_order_seq_cst);
    if (stop.load()) return HSA_STATUS_SUCCESS;  // queue being destroyed: drop the packet
    complete(comp, t0, now_ticks());
    return HSA_STATUS_SUCCESS;
}

namespace {

hsa_status_t check_queue_args(Agent* a, uint32_t size, hsa_queue_type32_t type, hsa_queue_t** queue) {
    if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!queue) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (a->type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (size == 0 || (size & (size - 1)) != 0 || size < kMinQueueSize || size > kMaxQueueSize)
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (type != HSA_QUEUE_TYPE_MULTI && type != HSA_QUEUE_TYPE_SINGLE && type != HSA_QUEUE_TYPE_COOPERATIVE)
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_SUCCESS;
}

// Builds a queue (ring, doorbell); starts its packet processor unless it is a proxy.
std::unique_ptr<Queue> make_queue(Agent* a, uint32_t size, hsa_queue_type32_t type, ErrorCallback cb, void* data,
                                  bool proxy) {
    auto q = std::make_unique<Queue>();
    q->agent = a;
    q->size = size;
    q->err_cb = cb;
    q->err_data = data;
    q->is_proxy = proxy;
    q->ring = std::aligned_alloc(4096, static_cast<size_t>(size) * 64);
    if (!q->ring) return nullptr;
    for (uint32_t i = 0; i < size; ++i) {
        memset(q->slot(i), 0, 64);
        store_header(q->slot(i), kInvalidHeader);
    }
    hsa_signal_t db = signal_create_internal(0, &q->doorbell);
    q->doorbell->internal = true;
    if (proxy) {
        q->doorbell->on_doorbell = &intercept_doorbell;
        q->doorbell->doorbell_of = q.get();
    }
    q->h.owner = q.get();
    q->h.amd.hsa_queue.type = type;
    q->h.amd.hsa_queue.features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
    q->h.amd.hsa_queue.base_address = q->ring;
    q->h.amd.hsa_queue.doorbell_signal = db;
    q->h.amd.hsa_queue.size = size;
    q->h.amd.hsa_queue.reserved1 = 0;
    q->h.amd.hsa_queue.id = g_queue_ids.fetch_add(1, std::memory_order_relaxed);
    q->h.amd.max_cu_id = threads_per_agent() - 1;
    q->h.amd.max_wave_id = 39;
    q->h.amd.read_dispatch_id_field_base_byte_offset = static_cast<uint32_t>(offsetof(amd_queue_t, read_dispatch_id));
    q->h.amd.queue_properties = AMD_QUEUE_PROPERTIES_IS_PTR64;
    q->report_as = &q->h.amd.hsa_queue;
    if (!proxy) {
        Queue* raw = q.get();
        q->thread = std::thread([raw] { raw->run(); });
    }
    return q;
}

void stop_queue(Queue& q) {
    q.stop.store(true, std::memory_order_seq_cst);
    q.doorbell->epoch.fetch_add(1, std::memory_order_seq_cst);
    futex_wake_all(&q.doorbell->epoch);
    wake_any_waiters();
}

// Stops and frees a queue (and the hardware queue behind a proxy).
void retire_queue(std::unique_ptr<Queue> q) {
    if (q->hw) retire_queue(std::move(q->hw));
    stop_queue(*q);
    free_queue_scratch(*q);
    if (q->thread.joinable()) {
        if (q->thread.get_id() == std::this_thread::get_id()) {
            std::lock_guard<std::mutex> lk(g_q_mu);
            g_zombies.push_back(std::move(q));  // joined at shut_down
            return;
        }
        q->thread.join();
    }
    if (q->agent && q->counts_agent) q->agent->queue_count.fetch_sub(1);
}

// Counts a new queue against the agent's limit; false (and nothing counted) when it is full.
// release_queue_slot undoes it when creating the queue then fails.
bool reserve_queue_slot(Agent* a) {
    if (a->queue_count.fetch_add(1) >= kMaxQueuesPerAgent) {
        a->queue_count.fetch_sub(1);
        return false;
    }
    return true;
}
void release_queue_slot(Agent* a) { a->queue_count.fetch_sub(1); }

hsa_status_t impl_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type, ErrorCallback cb, void* data,
                               uint32_t private_size, uint32_t group_size, hsa_queue_t** queue) {
    SIM_REQUIRE_INIT();
    Agent* a = agent_from_handle(agent);
    if (hsa_status_t s = check_queue_args(a, size, type, queue); s != HSA_STATUS_SUCCESS) return s;
    if (!reserve_queue_slot(a)) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    auto q = make_queue(a, size, type, cb, data, false);
    if (!q) {
        release_queue_slot(a);
        return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    q->private_segment_size = private_size;
    q->group_segment_size = group_size;
    *queue = &q->h.amd.hsa_queue;
    std::lock_guard<std::mutex> lk(g_q_mu);
    g_queues.emplace(*queue, std::move(q));
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_intercept_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type, ErrorCallback cb,
                                   void* data, uint32_t private_size, uint32_t group_size, hsa_queue_t** queue) {
    SIM_REQUIRE_INIT();
    Agent* a = agent_from_handle(agent);
    if (hsa_status_t s = check_queue_args(a, size, type, queue); s != HSA_STATUS_SUCCESS) return s;
    if (!reserve_queue_slot(a)) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    auto proxy = make_queue(a, size, type, cb, data, true);
    if (!proxy) {
        release_queue_slot(a);
        return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    proxy->hw = make_queue(a, size, type, cb, data, false);
    if (!proxy->hw) {
        release_queue_slot(a);
        return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    proxy->hw->counts_agent = false;  // counted once, through the proxy
    proxy->hw->report_as = &proxy->h.amd.hsa_queue;
    proxy->private_segment_size = proxy->hw->private_segment_size = private_size;
    proxy->group_segment_size = proxy->hw->group_segment_size = group_size;
    *queue = &proxy->h.amd.hsa_queue;
    std::lock_guard<std::mutex> lk(g_q_mu);
    g_queues.emplace(*queue, std::move(proxy));
    return HSA_STATUS_SUCCESS;
}

// A soft queue: ring + the program's doorbell signal, no packet processor (the program or
// another agent consumes the packets).
hsa_status_t impl_soft_queue_create(hsa_region_t region, uint32_t size, hsa_queue_type32_t type, uint32_t features,
                                    hsa_signal_t doorbell_signal, hsa_queue_t** queue) {
    SIM_REQUIRE_INIT();
    Pool* pool = pool_from_handle(region.handle);
    if (!pool) return HSA_STATUS_ERROR_INVALID_REGION;
    if (!queue || size == 0 || (size & (size - 1)) != 0 || size > kMaxQueueSize ||
        (type != HSA_QUEUE_TYPE_MULTI && type != HSA_QUEUE_TYPE_SINGLE) || features == 0 ||
        (features & ~static_cast<uint32_t>(HSA_QUEUE_FEATURE_KERNEL_DISPATCH | HSA_QUEUE_FEATURE_AGENT_DISPATCH)))
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    SignalRef db = signal_lookup(doorbell_signal);
    if (!db) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    auto q = std::make_unique<Queue>();
    q->size = size;
    q->ring = std::aligned_alloc(4096, static_cast<size_t>(size) * 64);
    if (!q->ring) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    for (uint32_t i = 0; i < size; ++i) {
        memset(q->slot(i), 0, 64);
        store_header(q->slot(i), kInvalidHeader);
    }
    q->doorbell = std::move(db);
    q->owns_doorbell = false;
    q->counts_agent = false;
    q->h.owner = q.get();
    q->h.amd.hsa_queue.type = type;
    q->h.amd.hsa_queue.features = features;
    q->h.amd.hsa_queue.base_address = q->ring;
    q->h.amd.hsa_queue.doorbell_signal = doorbell_signal;
    q->h.amd.hsa_queue.size = size;
    q->h.amd.hsa_queue.reserved1 = 0;
    q->h.amd.hsa_queue.id = g_queue_ids.fetch_add(1, std::memory_order_relaxed);
    q->report_as = &q->h.amd.hsa_queue;
    *queue = &q->h.amd.hsa_queue;
    std::lock_guard<std::mutex> lk(g_q_mu);
    g_queues.emplace(*queue, std::move(q));
    return HSA_STATUS_SUCCESS;
}

Queue* find_queue(const hsa_queue_t* q) {
    std::lock_guard<std::mutex> lk(g_q_mu);
    auto it = g_queues.find(q);
    return it == g_queues.end() ? nullptr : it->second.get();
}

hsa_status_t impl_intercept_register(hsa_queue_t* queue, InterceptHandler handler, void* data) {
    SIM_REQUIRE_INIT();
    if (!queue) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    Queue* q = find_queue(queue);
    if (!q || !q->is_proxy) return HSA_STATUS_ERROR_INVALID_QUEUE;
    if (!handler) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard<std::mutex> lk(q->ic_mu);
    q->handlers.emplace_back(handler, data);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_queue_destroy(hsa_queue_t* queue) {
    SIM_REQUIRE_INIT();
    if (!queue) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::unique_ptr<Queue> q;
    {
        std::lock_guard<std::mutex> lk(g_q_mu);
        auto it = g_queues.find(queue);
        if (it == g_queues.end()) return HSA_STATUS_ERROR_INVALID_QUEUE;
        q = std::move(it->second);
        g_queues.erase(it);
    }
    retire_queue(std::move(q));
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_queue_inactivate(hsa_queue_t* queue) {
    SIM_REQUIRE_INIT();
    if (!queue) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    Queue* q = find_queue(queue);
    if (!q) return HSA_STATUS_ERROR_INVALID_QUEUE;
    q->inactive.store(true);
    if (q->hw) q->hw->inactive.store(true);
    return HSA_STATUS_SUCCESS;
}

// ---- index operations (no validation, like ROCr: these are on the submission hot path) --------
uint64_t load_read_index(const hsa_queue_t* q) { return header_of(q)->read_index().load(std::memory_order_acquire); }
uint64_t load_write_index(const hsa_queue_t* q) { return header_of(q)->write_index().load(std::memory_order_acquire); }
void store_write_index(const hsa_queue_t* q, uint64_t v) {
    header_of(q)->write_index().store(v, std::memory_order_release);
}
uint64_t cas_write_index(const hsa_queue_t* q, uint64_t expected, uint64_t v) {
    header_of(q)->write_index().compare_exchange_strong(expected, v, std::memory_order_acq_rel);
    return expected;
}
uint64_t add_write_index(const hsa_queue_t* q, uint64_t v) {
    return header_of(q)->write_index().fetch_add(v, std::memory_order_acq_rel);
}
void store_read_index(const hsa_queue_t* q, uint64_t v) {
    header_of(q)->read_index().store(v, std::memory_order_release);
}

// ---- intercept processing ------------------------------------------------------------------------
struct Cursor {
    Queue* q;
    size_t level;  // handlers still to run below this writer
    uint64_t user_index;
    const std::vector<std::pair<InterceptHandler, void*>>* handlers;
};
thread_local std::vector<Cursor> t_cursors;

void write_to_hw(Queue& hw, const void* pkts, uint64_t count) {
    const uint8_t* src = static_cast<const uint8_t*>(pkts);
    uint64_t last = 0;
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t idx = hw.h.write_index().fetch_add(1, std::memory_order_acq_rel);
        while (idx - hw.h.read_index().load(std::memory_order_acquire) >= hw.size) {
            if (hw.stop.load() || hw.errored.load()) return;
            std::this_thread::yield();
        }
        uint8_t* dst = hw.slot(idx);
        memcpy(dst + 2, src + i * 64 + 2, 62);
        uint16_t hdr;
        memcpy(&hdr, src + i * 64, 2);
        store_header(dst, hdr);
        last = idx;
    }
    if (count) {
        hw.doorbell->value.store(static_cast<int64_t>(last), std::memory_order_seq_cst);
        signal_notify(*hw.doorbell);
    }
}

void run_level(const Cursor& c, const void* pkts, uint64_t count);

void packet_writer(const void* pkts, uint64_t count) {
    if (t_cursors.empty()) {
        report("intercept packet writer called outside of an intercept handler; packets dropped");
        return;
    }
    const Cursor c = t_cursors.back();
    run_level(c, pkts, count);
}

void run_level(const Cursor& c, const void* pkts, uint64_t count) {
    if (c.level == 0) {
        write_to_hw(*c.q->hw, pkts, count);
        return;
    }
    // The most recently registered handler runs first; the first registered one writes to
    // the hardware queue.
    const auto& h = (*c.handlers)[c.level - 1];
    t_cursors.push_back({c.q, c.level - 1, c.user_index, c.handlers});
    h.first(pkts, count, c.user_index, h.second, packet_writer);
    t_cursors.pop_back();
}

void drain_proxy(Queue& q) {
    for (;;) {
        const uint64_t wi = q.h.write_index().load(std::memory_order_acquire);
        if (q.ic_next >= wi) return;
        std::vector<uint8_t> batch;
        uint64_t end = q.ic_next;
        while (end < wi && end - q.ic_next < q.size) {
            uint8_t* s = q.slot(end);
            const uint16_t hdr = load_header(s);
            if (packet_type(hdr) == HSA_PACKET_TYPE_INVALID) break;  // not yet published
            const size_t off = batch.size();
            batch.resize(off + 64);
            memcpy(batch.data() + off + 2, s + 2, 62);
            memcpy(batch.data() + off, &hdr, 2);
            ++end;
        }
        if (end == q.ic_next) return;  // the producer will ring again after publishing
        const uint64_t start = q.ic_next;
        for (uint64_t i = start; i < end; ++i) store_header(q.slot(i), kInvalidHeader);
        q.ic_next = end;
        q.h.read_index().store(end, std::memory_order_release);
        std::vector<std::pair<InterceptHandler, void*>> handlers;
        {
            std::lock_guard<std::mutex> lk(q.ic_mu);
            handlers = q.handlers;
        }
        Cursor c{&q, handlers.size(), start, &handlers};
        run_level(c, batch.data(), end - start);
    }
}

}  // namespace

void intercept_doorbell(Queue* qp) {
    Queue& q = *qp;
    q.ic_pending.fetch_add(1, std::memory_order_seq_cst);
    if (q.ic_busy.exchange(true, std::memory_order_seq_cst)) return;  // the active drainer loops
    for (;;) {
        q.ic_pending.store(0, std::memory_order_seq_cst);
        drain_proxy(q);
        q.ic_busy.store(false, std::memory_order_seq_cst);
        if (q.ic_pending.load(std::memory_order_seq_cst) == 0) return;
        if (q.ic_busy.exchange(true, std::memory_order_seq_cst)) return;
    }
}

void queues_shutdown() {
    std::unordered_map<const hsa_queue_t*, std::unique_ptr<Queue>> qs;
    std::vector<std::unique_ptr<Queue>> zombies;
    {
        std::lock_guard<std::mutex> lk(g_q_mu);
        qs.swap(g_queues);
        g_runtime_queue_notifiers.clear();
    }
    for (auto& [h, q] : qs) {
        retire_queue(std::move(q));
    }
    {
        std::lock_guard<std::mutex> lk(g_q_mu);
        zombies.swap(g_zombies);
    }
    for (auto& z : zombies)
        if (z->thread.joinable()) z->thread.join();
}

namespace {

// ---- profiling -------------------------------------------------------------------------------------
hsa_status_t impl_set_profiler_enabled(hsa_queue_t* queue, int enable) {
    SIM_REQUIRE_INIT();
    if (!queue) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    Queue* q = find_queue(queue);
    if (!q) return HSA_STATUS_ERROR_INVALID_QUEUE;
    for (Queue* x : {q, q->hw.get()}) {
        if (!x) continue;
        x->profiling.store(enable != 0);
        uint32_t props = __atomic_load_n(&x->h.amd.queue_properties, __ATOMIC_RELAXED);
        props = enable ? (props | AMD_QUEUE_PROPERTIES_ENABLE_PROFILING)
                       : (props & ~static_cast<uint32_t>(AMD_QUEUE_PROPERTIES_ENABLE_PROFILING));
        __atomic_store_n(&x->h.amd.queue_properties, props, __ATOMIC_RELAXED);
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal, hsa_amd_profiling_dispatch_time_t* time) {
    SIM_REQUIRE_INIT();
    if (!agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!time) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    SignalRef s = signal_lookup(signal);
    if (!s) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    time->start = s->start_ts.load(std::memory_order_relaxed);
    time->end = s->end_ts.load(std::memory_order_relaxed);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_convert_tick(hsa_agent_t agent, uint64_t agent_tick, uint64_t* system_tick) {
    SIM_REQUIRE_INIT();
    if (!agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!system_tick) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *system_tick = agent_tick;  // agents share the system timestamp domain
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_cu_set_mask(const hsa_queue_t* queue, uint32_t num_bits, const uint32_t* mask) {
    SIM_REQUIRE_INIT();
    if (!queue || (num_bits > 0 && !mask)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (!find_queue(queue)) return HSA_STATUS_ERROR_INVALID_QUEUE;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_cu_get_mask(const hsa_queue_t* queue, uint32_t num_bits, uint32_t* mask) {
    SIM_REQUIRE_INIT();
    if (!queue || !mask || num_bits == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (!find_queue(queue)) return HSA_STATUS_ERROR_INVALID_QUEUE;
    const uint32_t cus = threads_per_agent();
    for (uint32_t w = 0; w < (num_bits + 31) / 32; ++w) {
        uint32_t m = 0;
        for (uint32_t b = 0; b < 32; ++b)
            if (w * 32 + b < cus && w * 32 + b < num_bits) m |= 1u << b;
        mask[w] = m;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_set_priority(hsa_queue_t* queue, hsa_amd_queue_priority_t priority) {
    SIM_REQUIRE_INIT();
    if (!queue) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (!find_queue(queue)) return HSA_STATUS_ERROR_INVALID_QUEUE;
    if (priority < HSA_AMD_QUEUE_PRIORITY_LOW || priority > HSA_AMD_QUEUE_PRIORITY_HIGH)
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_runtime_queue_create_register(hsa_amd_runtime_queue_notifier cb, void* data) {
    SIM_REQUIRE_INIT();
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    // The simulator creates no runtime-internal queues (copies run on a host thread), so the
    // notifier is recorded but never invoked.
    std::lock_guard<std::mutex> lk(g_q_mu);
    g_runtime_queue_notifiers.emplace_back(cb, data);
    return HSA_STATUS_SUCCESS;
}

}  // namespace

void install_queues(HsaApiTable& t) {
    CoreApiTable& c = *t.core_;
    AmdExtTable& a = *t.amd_ext_;
    c.hsa_queue_create_fn = impl_queue_create;
    c.hsa_soft_queue_create_fn = impl_soft_queue_create;
    c.hsa_queue_destroy_fn = impl_queue_destroy;
    c.hsa_queue_inactivate_fn = impl_queue_inactivate;
    c.hsa_queue_load_read_index_scacquire_fn = load_read_index;
    c.hsa_queue_load_read_index_relaxed_fn = load_read_index;
    c.hsa_queue_load_write_index_scacquire_fn = load_write_index;
    c.hsa_queue_load_write_index_relaxed_fn = load_write_index;
    c.hsa_queue_store_write_index_relaxed_fn = store_write_index;
    c.hsa_queue_store_write_index_screlease_fn = store_write_index;
    c.hsa_queue_cas_write_index_scacq_screl_fn = cas_write_index;
    c.hsa_queue_cas_write_index_scacquire_fn = cas_write_index;
    c.hsa_queue_cas_write_index_relaxed_fn = cas_write_index;
    c.hsa_queue_cas_write_index_screlease_fn = cas_write_index;
    c.hsa_queue_add_write_index_scacq_screl_fn = add_write_index;
    c.hsa_queue_add_write_index_scacquire_fn = add_write_index;
    c.hsa_queue_add_write_index_relaxed_fn = add_write_index;
    c.hsa_queue_add_write_index_screlease_fn = add_write_index;
    c.hsa_queue_store_read_index_relaxed_fn = store_read_index;
    c.hsa_queue_store_read_index_screlease_fn = store_read_index;
    a.hsa_amd_queue_intercept_create_fn = impl_intercept_create;
    a.hsa_amd_queue_intercept_register_fn = impl_intercept_register;
    a.hsa_amd_runtime_queue_create_register_fn = impl_runtime_queue_create_register;
    a.hsa_amd_profiling_set_profiler_enabled_fn = impl_set_profiler_enabled;
    a.hsa_amd_profiling_get_dispatch_time_fn = impl_get_dispatch_time;
    a.hsa_amd_profiling_convert_tick_to_system_domain_fn = impl_convert_tick;
    a.hsa_amd_queue_cu_set_mask_fn = impl_cu_set_mask;
    a.hsa_amd_queue_cu_get_mask_fn = impl_cu_get_mask;
    a.hsa_amd_queue_set_priority_fn = impl_set_priority;
}

}  // namespace encore::sim
