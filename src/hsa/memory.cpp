// src/hsa/memory.cpp — MEMORY_ALLOCATION and MEMORY_COPY records.
//
// When some context configured MEMORY_ALLOCATION, the table slots hsa_amd_memory_pool_allocate /
// hsa_amd_memory_pool_free and hsa_memory_allocate / hsa_memory_free are replaced:
//   - ALLOCATE: ENTER before the runtime's call, EXIT after it with the address (0 when the call
//     failed), the requested size, the agent that owns the pool / region, and start/end times;
//   - FREE: ENTER/EXIT with the address and the size and agent remembered from its allocation
//     (0 and 0 for an address encore did not see allocated).
// When some context configured MEMORY_COPY, hsa_memory_copy (synchronous: ENTER, call, EXIT)
// and hsa_amd_memory_async_copy are replaced. An async copy is submitted with encore's own
// completion signal; when it completes, an async handler delivers EXIT with the copy's start/end
// times, then decrements the program's completion signal by 1 (so the program sees the copy done
// only after EXIT), then destroys encore's signal. The operation is the copy's direction, from
// hsa_amd_pointer_info of each side: memory the runtime knows (HSA or LOCKED) whose owner is a
// GPU agent is "device", anything else "host".
// While a replay service exists the copies and hsa_amd_memory_fill touching device memory are
// gated (replay_gate: they wait while a replay owns the agent), and those a range's thread makes
// into its agent's memory are entries of the range's log (range_log.hpp), re-issued by its passes;
// a copy to the host, a rectangular copy, or one involving a second agent declines the range.
//
// Arguments and statuses always pass through unchanged; every call goes to the runtime's own
// functions (runtime()), never through the exported hsa_* symbols.
#include "memory.hpp"

#include "range_log.hpp"
#include "replay_gate.hpp"
#include "replay_memory.hpp"
#include "runtime.hpp"

#include "backend/drain.hpp"
#include "backend/events.hpp"
#include "backend/slot_hook.hpp"
#include "core/range_replay.hpp"
#include "core/clock.hpp"
#include "core/warn.hpp"

#include <encore/tracing/tool.hpp>
#include <rocprofiler-sdk/callback_tracing.h>

#include <time.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>

namespace encore::hsa {

using backend::event;
using backend::subscribed;
namespace {

// ---- agents, pools and regions ------------------------------------------------------------------
// Built at first need by walking the runtime's agents (they do not change while it runs).
struct topology {
    std::unordered_map<std::uint64_t, std::uint64_t> pool_owner;    // pool handle -> agent handle
    std::unordered_map<std::uint64_t, std::uint64_t> region_owner;  // region handle -> agent handle
    std::unordered_map<std::uint64_t, hsa_device_type_t> agent_type;
    std::uint64_t first_cpu = 0;
};

std::mutex g_topology_mutex;
topology* g_topology = nullptr;  // guarded by g_topology_mutex; built once, freed at unload

struct walk_state {
    topology* t;
    std::uint64_t agent;
};

hsa_status_t on_pool(hsa_amd_memory_pool_t pool, void* data) {
    auto* w = static_cast<walk_state*>(data);
    w->t->pool_owner[pool.handle] = w->agent;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t on_region(hsa_region_t region, void* data) {
    auto* w = static_cast<walk_state*>(data);
    w->t->region_owner[region.handle] = w->agent;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t on_agent(hsa_agent_t agent, void* data) {
    auto* t = static_cast<topology*>(data);
    const auto& rt = runtime();
    hsa_device_type_t type = HSA_DEVICE_TYPE_CPU;
    if (rt.core.hsa_agent_get_info_fn != nullptr &&
        rt.core.hsa_agent_get_info_fn(agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS) {
        t->agent_type[agent.handle] = type;
        if (type == HSA_DEVICE_TYPE_CPU && t->first_cpu == 0) t->first_cpu = agent.handle;
    }
    walk_state w{t, agent.handle};
    if (rt.amd.hsa_amd_agent_iterate_memory_pools_fn != nullptr)
        (void)rt.amd.hsa_amd_agent_iterate_memory_pools_fn(agent, &on_pool, &w);
    if (rt.core.hsa_agent_iterate_regions_fn != nullptr)
        (void)rt.core.hsa_agent_iterate_regions_fn(agent, &on_region, &w);
    return HSA_STATUS_SUCCESS;
}

// Under g_topology_mutex.
const topology* topology_locked() noexcept {
    if (g_topology != nullptr) return g_topology;
    auto* t = new (std::nothrow) topology;
    if (t == nullptr) return nullptr;
    try {
        if (runtime().core.hsa_iterate_agents_fn != nullptr) (void)runtime().core.hsa_iterate_agents_fn(&on_agent, t);
    } catch (...) {
        // allocation failure while walking: keep what was found
    }
    g_topology = t;
    return t;
}

// The agent owning a pool or region (0 when unknown); `which` selects the map.
template <class Map>
std::uint64_t owner_in(Map topology::*which, std::uint64_t handle) noexcept {
    std::lock_guard lk(g_topology_mutex);
    const topology* t = topology_locked();
    if (t == nullptr) return 0;
    const auto& m = t->*which;
    const auto it = m.find(handle);
    return it != m.end() ? it->second : 0;
}

std::uint64_t pool_owner(std::uint64_t pool) noexcept { return owner_in(&topology::pool_owner, pool); }
std::uint64_t region_owner(std::uint64_t region) noexcept { return owner_in(&topology::region_owner, region); }

// ---- allocations ------------------------------------------------------------------------------
struct allocation {
    std::uint64_t size;
    std::uint64_t agent;
};
std::mutex g_allocations_mutex;
std::unordered_map<std::uintptr_t, allocation>* g_allocations = nullptr;  // guarded; freed at unload

void remember(const void* p, std::uint64_t size, std::uint64_t agent) noexcept {
    std::lock_guard lk(g_allocations_mutex);
    try {
        if (g_allocations == nullptr) g_allocations = new std::unordered_map<std::uintptr_t, allocation>;
        (*g_allocations)[reinterpret_cast<std::uintptr_t>(p)] = allocation{size, agent};
    } catch (...) {
        // out of memory: the free of this address reports size 0
    }
}

// Takes the allocation out of the map (before the runtime frees it: once freed, another thread
// may get the same address back and remember it).
allocation forget(const void* p, bool& found) noexcept {
    std::lock_guard lk(g_allocations_mutex);
    found = false;
    if (g_allocations == nullptr) return {0, 0};
    const auto it = g_allocations->find(reinterpret_cast<std::uintptr_t>(p));
    if (it == g_allocations->end()) return {0, 0};
    found = true;
    const allocation a = it->second;
    g_allocations->erase(it);
    return a;
}

void restore(const void* p, const allocation& a) noexcept {
    std::lock_guard lk(g_allocations_mutex);
    try {
        if (g_allocations != nullptr) g_allocations->try_emplace(reinterpret_cast<std::uintptr_t>(p), a);
    } catch (...) {
    }
}

// Which memory a kernel replay covers: coarse-grained, not kernarg (flags of the pool / region).
struct grain {
    bool coarse = false;
    bool kernarg = false;
};
grain pool_grain(hsa_amd_memory_pool_t pool) noexcept {
    std::uint32_t flags = 0;
    hsa_amd_segment_t seg{};
    const auto& rt = runtime();
    if (rt.amd.hsa_amd_memory_pool_get_info_fn(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg) != HSA_STATUS_SUCCESS ||
        seg != HSA_AMD_SEGMENT_GLOBAL ||
        rt.amd.hsa_amd_memory_pool_get_info_fn(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) != HSA_STATUS_SUCCESS)
        return {};
    return {(flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) != 0,
            (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) != 0};
}
grain region_grain(hsa_region_t region) noexcept {
    std::uint32_t flags = 0;
    hsa_region_segment_t seg{};
    const auto& rt = runtime();
    if (rt.core.hsa_region_get_info_fn(region, HSA_REGION_INFO_SEGMENT, &seg) != HSA_STATUS_SUCCESS ||
        seg != HSA_REGION_SEGMENT_GLOBAL ||
        rt.core.hsa_region_get_info_fn(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags) != HSA_STATUS_SUCCESS)
        return {};
    return {(flags & HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED) != 0, (flags & HSA_REGION_GLOBAL_FLAG_KERNARG) != 0};
}

template <class Call>
hsa_status_t traced_allocate(std::uint64_t agent, std::size_t size, void** ptr, grain g, Call&& call) noexcept {
    auto ev = event::capture(kind::memory_allocation, ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE);
    rocprofiler_callback_tracing_memory_allocation_data_t p{};
    p.size = sizeof(p);
    p.agent_id.handle = agent;
    p.allocation_size = size;
    if (ev) ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
    const std::uint64_t start = ev ? core::now_ns() : 0;
    const hsa_status_t s = call();
    void* addr = s == HSA_STATUS_SUCCESS && ptr != nullptr ? *ptr : nullptr;
    if (addr != nullptr) {
        remember(addr, size, agent);
        replay_memory::on_allocate(addr, size, g.coarse, g.kernarg);
    }
    if (ev) {
        p.start_timestamp = start;
        p.end_timestamp = core::now_ns();
        p.address.ptr = addr;
        ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
    }
    return s;
}

template <class Call>
hsa_status_t traced_free(void* ptr, Call&& call) noexcept {
    bool found = false;
    const allocation a = forget(ptr, found);
    // Memory of an agent is not freed while a replay there may snapshot, restore or checksum it
    // (the covered set stays the same for every pass); it leaves replay coverage before the
    // runtime can hand the address to someone else.
    replay_gate::shared_hold hold(a.agent);
    replay_memory::on_free(ptr);
    auto ev = event::capture(kind::memory_allocation, ROCPROFILER_MEMORY_ALLOCATION_FREE);
    rocprofiler_callback_tracing_memory_allocation_data_t p{};
    p.size = sizeof(p);
    p.agent_id.handle = a.agent;
    p.address.ptr = ptr;
    p.allocation_size = a.size;
    if (ev) ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
    const std::uint64_t start = ev ? core::now_ns() : 0;
    const hsa_status_t s = call();
    if (s != HSA_STATUS_SUCCESS && found) restore(ptr, a);  // the runtime kept it
    if (ev) {
        p.start_timestamp = start;
        p.end_timestamp = core::now_ns();
        ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
    }
    return s;
}

hsa_status_t pool_allocate(hsa_amd_memory_pool_t pool, size_t size, uint32_t flags, void** ptr) noexcept {
    const grain g = replay_memory::enabled() ? pool_grain(pool) : grain{};
    return traced_allocate(pool_owner(pool.handle), size, ptr, g,
                           [&] { return runtime().amd.hsa_amd_memory_pool_allocate_fn(pool, size, flags, ptr); });
}

hsa_status_t pool_free(void* ptr) noexcept {
    return traced_free(ptr, [&] { return runtime().amd.hsa_amd_memory_pool_free_fn(ptr); });
}

hsa_status_t memory_allocate(hsa_region_t region, size_t size, void** ptr) noexcept {
    const grain g = replay_memory::enabled() ? region_grain(region) : grain{};
    return traced_allocate(region_owner(region.handle), size, ptr, g,
                           [&] { return runtime().core.hsa_memory_allocate_fn(region, size, ptr); });
}

hsa_status_t memory_free(void* ptr) noexcept {
    return traced_free(ptr, [&] { return runtime().core.hsa_memory_free_fn(ptr); });
}

// ---- copies -------------------------------------------------------------------------------------
struct side {
    bool device;
    std::uint64_t agent;  // owner agent; the first CPU agent for memory the runtime does not know
};

side classify(const void* ptr) noexcept {
    const auto& rt = runtime();
    std::uint64_t cpu = 0;
    hsa_amd_pointer_info_t info{};
    info.size = sizeof(info);
    const bool known = rt.amd.hsa_amd_pointer_info_fn != nullptr &&
                       rt.amd.hsa_amd_pointer_info_fn(ptr, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS &&
                       (info.type == HSA_EXT_POINTER_TYPE_HSA || info.type == HSA_EXT_POINTER_TYPE_LOCKED) &&
                       info.agentOwner.handle != 0;
    std::lock_guard lk(g_topology_mutex);
    const topology* t = topology_locked();
    if (t != nullptr) cpu = t->first_cpu;
    if (!known || t == nullptr) return {false, cpu};
    const auto it = t->agent_type.find(info.agentOwner.handle);
    return {it != t->agent_type.end() && it->second == HSA_DEVICE_TYPE_GPU, info.agentOwner.handle};
}

op_id direction(const side& src, const side& dst) noexcept {
    return ROCPROFILER_MEMORY_COPY_HOST_TO_HOST + (src.device ? 2 : 0) + (dst.device ? 1 : 0);
}

hsa_status_t traced_memory_copy(void* dst, const void* src, size_t size, const side& s, const side& d) noexcept;

namespace rr = core::range_replay;

constexpr rr::decline_reason to_host{ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE,
                                     "a range copied device memory to the host (the host would act on values its "
                                     "passes cannot show it): the range is not replayed"};
constexpr rr::decline_reason rect_copy{ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE,
                                       "a range made a rectangular copy (hsa_amd_memory_async_copy_rect) into or out "
                                       "of device memory, which its passes do not re-issue: the range is not replayed"};
constexpr rr::decline_reason other_agent{ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_AGENT,
                                         "a range copied into or filled memory of an agent other than its dispatches' "
                                         "(or copied between two agents): the range is not replayed"};
constexpr rr::decline_reason other_thread{ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE,
                                          "another thread copied into or out of, or filled, a range's agent's memory "
                                          "while the range was open: the range is not replayed"};
constexpr rr::decline_reason copy_refused{ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE,
                                          "a copy or fill of a range failed (the runtime's status went to the "
                                          "program): the range is not replayed"};

// A copy or fill touching device memory (`gpu_src` / `gpu_dst`: the agents of its device sides, 0
// for host memory) while some range may be open. Another thread's ranges on those agents are
// declined (their snapshots no longer hold what their passes need). On a thread whose range
// records, `c` (null: a form the passes cannot re-issue) becomes an entry of its log, to be
// re-issued in every pass; true then, so that a call the runtime refuses declines the range.
// Before the range's first dispatch there is no log yet and nothing to record: the start snapshot,
// taken at that dispatch once the agent's copies completed, holds what the copy or fill wrote.
bool note_range_work(std::uint64_t gpu_src, std::uint64_t gpu_dst, const range_copy* c) noexcept {
    if (!rr::any_open() || (gpu_src == 0 && gpu_dst == 0)) return false;
    for (const std::uint64_t a : {gpu_src, gpu_dst})
        if (a != 0) rr::decline_agent(a, other_thread);
    if (!rr::recording_here()) return false;
    if (c == nullptr) {
        rr::decline(rect_copy);
        return false;
    }
    if (gpu_dst == 0) {
        rr::decline(to_host);
        return false;
    }
    rr::recording* const current = rr::current();
    if (current == nullptr) return false;
    auto* log = dynamic_cast<range_log*>(current);  // null: libencore-cuda's range (a second agent)
    if (log == nullptr || gpu_dst != log->agent() || (gpu_src != 0 && gpu_src != gpu_dst)) {
        rr::decline(other_agent);
        return false;
    }
    if (const rr::decline_reason* d = log->add(*c); d != nullptr) {
        rr::decline(*d);
        return false;
    }
    return true;
}

bool copies_wanted() noexcept {
    for (op_id op = ROCPROFILER_MEMORY_COPY_HOST_TO_HOST; op < ROCPROFILER_MEMORY_COPY_LAST; ++op)
        if (subscribed(kind::memory_copy, op) != 0) return true;
    return false;
}

hsa_status_t memory_copy(void* dst, const void* src, size_t size) noexcept {
    if (replay_gate::enabled()) {
        // A synchronous copy into or out of an agent's memory never overlaps a replay there.
        const side s = classify(src), d = classify(dst);
        const range_copy entry{range_copy::form::copy, dst, src, !s.device, size};
        const bool recorded = note_range_work(s.device ? s.agent : 0, d.device ? d.agent : 0, &entry);
        replay_gate::shared_hold hold(s.device ? s.agent : 0, d.device ? d.agent : 0);
        const hsa_status_t status = traced_memory_copy(dst, src, size, s, d);
        if (recorded && status != HSA_STATUS_SUCCESS) rr::decline(copy_refused);
        return status;
    }
    if (!copies_wanted()) return runtime().core.hsa_memory_copy_fn(dst, src, size);
    return traced_memory_copy(dst, src, size, classify(src), classify(dst));
}

hsa_status_t traced_memory_copy(void* dst, const void* src, size_t size, const side& s, const side& d) noexcept {
    if (!copies_wanted()) return runtime().core.hsa_memory_copy_fn(dst, src, size);
    auto ev = event::capture(kind::memory_copy, direction(s, d));
    if (!ev) return runtime().core.hsa_memory_copy_fn(dst, src, size);
    rocprofiler_callback_tracing_memory_copy_data_t p{};
    p.size = sizeof(p);
    p.dst_agent_id.handle = d.agent;
    p.src_agent_id.handle = s.agent;
    p.bytes = size;
    p.dst_address.ptr = dst;
    p.src_address.ptr = src;
    ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
    const std::uint64_t start = core::now_ns();
    const hsa_status_t status = runtime().core.hsa_memory_copy_fn(dst, src, size);
    p.start_timestamp = start;
    p.end_timestamp = core::now_ns();
    ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
    return status;
}

// Async copies whose EXIT has not been delivered yet: the unload waits for them (the runtime
// calls OnUnload before it stops its handler thread, then closes the library).
std::atomic<std::int64_t> g_copies_in_flight{0};

// One async copy between its submission (ENTER) and its completion (EXIT).
struct copy_record {
    std::unique_ptr<event> ev;
    rocprofiler_callback_tracing_memory_copy_data_t payload;
    hsa_signal_t app;   // the program's completion signal
    hsa_signal_t mine;  // encore's, given to the runtime
    std::uint64_t submit_ns;
    std::uint64_t gpu[2];  // agents counted in their replay gates until the copy completes
};

void complete_copy(copy_record* raw) noexcept {
    std::unique_ptr<copy_record> r(raw);
    const auto& rt = runtime();
    hsa_amd_profiling_async_copy_time_t t{};
    if (rt.amd.hsa_amd_profiling_get_async_copy_time_fn != nullptr &&
        rt.amd.hsa_amd_profiling_get_async_copy_time_fn(r->mine, &t) == HSA_STATUS_SUCCESS && t.end != 0 &&
        t.start <= t.end) {
        r->payload.start_timestamp = to_encore_ns(t.start);
        r->payload.end_timestamp = to_encore_ns(t.end);
    } else {
        r->payload.start_timestamp = r->submit_ns;
        r->payload.end_timestamp = core::now_ns();
    }
    if (r->ev) {
        const replay_gate::completion_scope in_handler;  // a drain waits for these callbacks
        r->ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &r->payload);
    }
    // The replay gates' counts before the program's signal, as for a dispatch (retire in
    // dispatch_records.cpp): a program that waits for its copy and at once submits a replayed
    // dispatch finds the drain done.
    for (std::uint64_t a : r->gpu) replay_gate::finished(a);
    // Only now does the program see its copy done.
    rt.core.hsa_signal_subtract_screlease_fn(r->app, 1);
    rt.core.hsa_signal_destroy_fn(r->mine);
    r.reset();
    g_copies_in_flight.fetch_sub(1, std::memory_order_release);
}

bool on_copy_done(hsa_signal_value_t, void* arg) {
    complete_copy(static_cast<copy_record*>(arg));
    return false;  // one-shot
}

/// One asynchronous copy between ENTER (here) and EXIT (when it completes). `call(signal)`
/// submits it with that completion signal; `s`/`d` are its sides, `dir` its direction; `entry` what
/// an open range on this thread records of it (null: a copy its passes cannot re-issue).
template <class Call>
hsa_status_t traced_async(Call&& call, const side& s, const side& d, op_id dir, void* dst, const void* src,
                          std::uint64_t bytes, std::uint64_t dst_agent, std::uint64_t src_agent,
                          hsa_signal_t completion_signal, const range_copy* entry) noexcept {
    const auto& rt = runtime();
    const bool gated = replay_gate::enabled();
    const std::uint64_t gpu_a = s.device ? s.agent : 0, gpu_b = d.device ? d.agent : 0;
    const bool recorded = gated && note_range_work(gpu_a, gpu_b, entry);
    const auto refused = [&](hsa_status_t status) {
        if (recorded && status != HSA_STATUS_SUCCESS) rr::decline(copy_refused);
        return status;
    };
    std::unique_ptr<copy_record> r(new (std::nothrow) copy_record{});
    if (r == nullptr) return refused(call(completion_signal));
    r->ev = event::capture_heap(kind::memory_copy, dir);
    if (!r->ev && !gated) return call(completion_signal);
    replay_gate::shared_hold hold(gpu_a, gpu_b);
    if (gated) {
        r->gpu[0] = gpu_a;
        r->gpu[1] = gpu_b != gpu_a ? gpu_b : 0;
    }
    auto& p = r->payload;
    p.size = sizeof(p);
    p.dst_agent_id.handle = dst_agent;
    p.src_agent_id.handle = src_agent;
    p.bytes = bytes;
    p.dst_address.ptr = dst;
    p.src_address.ptr = src;
    r->app = completion_signal;
    if (r->ev) r->ev->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
    r->submit_ns = core::now_ns();

    // Without a signal of its own (or without a program signal to forward to: the runtime rejects
    // the call then), the copy is submitted as is and EXIT follows the submission.
    if (completion_signal.handle == 0 || rt.core.hsa_signal_create_fn(1, 0, nullptr, &r->mine) != HSA_STATUS_SUCCESS) {
        const hsa_status_t status = refused(call(completion_signal));
        p.start_timestamp = r->submit_ns;
        p.end_timestamp = core::now_ns();
        if (r->ev) r->ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
        return status;
    }
    const hsa_status_t status = refused(call(r->mine));
    if (status != HSA_STATUS_SUCCESS) {
        // Not submitted: EXIT now, and encore's signal goes away.
        rt.core.hsa_signal_destroy_fn(r->mine);
        p.start_timestamp = r->submit_ns;
        p.end_timestamp = core::now_ns();
        if (r->ev) r->ev->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
        return status;
    }
    copy_record* raw = r.release();
    const hsa_signal_t mine = raw->mine;
    g_copies_in_flight.fetch_add(1, std::memory_order_relaxed);
    for (std::uint64_t a : raw->gpu) replay_gate::started(a);
    if (rt.amd.hsa_amd_signal_async_handler_fn(mine, HSA_SIGNAL_CONDITION_LT, 1, &on_copy_done, raw) !=
        HSA_STATUS_SUCCESS) {
        // Cannot watch the copy: wait for it here so the program's signal still fires.
        static core::warn_once unwatched;
        unwatched("cannot watch an async copy's completion; waiting for it on the caller");
        while (rt.core.hsa_signal_wait_scacquire_fn(mine, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                                    HSA_WAIT_STATE_BLOCKED) >= 1) {
        }
        complete_copy(raw);
    }
    return status;
}

hsa_status_t async_copy(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size,
                        uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
                        hsa_signal_t completion_signal) noexcept {
    auto call = [&](hsa_signal_t completion) {
        return runtime().amd.hsa_amd_memory_async_copy_fn(dst, dst_agent, src, src_agent, size, num_dep_signals,
                                                          dep_signals, completion);
    };
    // While a replay service exists, a copy touching an agent waits for a replay in progress
    // there, and a replay waits for the copy to complete (the seed's open async-copy race).
    if (!copies_wanted() && !replay_gate::enabled()) return call(completion_signal);
    const side s = classify(src), d = classify(dst);
    const range_copy entry{range_copy::form::async_copy, dst, src, !s.device, size, 0, dst_agent, src_agent};
    return traced_async(call, s, d, direction(s, d), dst, src, size, dst_agent.handle, src_agent.handle,
                        completion_signal, &entry);
}

/// A rectangular copy: `dir` says which sides are device memory; bytes = x * y * z of the range
/// (x in bytes); the addresses are those of the first byte copied (base + offsets).
hsa_status_t async_copy_rect(const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset, const hsa_pitched_ptr_t* src,
                             const hsa_dim3_t* src_offset, const hsa_dim3_t* range, hsa_agent_t copy_agent,
                             hsa_amd_copy_direction_t dir, uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
                             hsa_signal_t completion_signal) noexcept {
    auto call = [&](hsa_signal_t completion) {
        return runtime().amd.hsa_amd_memory_async_copy_rect_fn(dst, dst_offset, src, src_offset, range, copy_agent, dir,
                                                               num_dep_signals, dep_signals, completion);
    };
    // Arguments the runtime rejects are its to report (nothing to describe).
    if ((!copies_wanted() && !replay_gate::enabled()) || dst == nullptr || src == nullptr || dst_offset == nullptr ||
        src_offset == nullptr || range == nullptr)
        return call(completion_signal);
    const auto first = [](const hsa_pitched_ptr_t& p, const hsa_dim3_t& o) {
        return static_cast<char*>(p.base) + std::size_t{o.z} * p.slice + std::size_t{o.y} * p.pitch + o.x;
    };
    void* const to = first(*dst, *dst_offset);
    const void* const from = first(*src, *src_offset);
    // The direction is the caller's; the agents those of the memory (the copy agent for device
    // memory the runtime does not know).
    const auto side_of = [&](const void* p, bool device) {
        const side known = classify(p);
        return side{device, device && !known.device ? copy_agent.handle : known.agent};
    };
    const side s = side_of(from, dir == hsaDeviceToHost || dir == hsaDeviceToDevice);
    const side d = side_of(to, dir == hsaHostToDevice || dir == hsaDeviceToDevice);
    const std::uint64_t bytes = std::uint64_t{range->x} * range->y * range->z;
    return traced_async(call, s, d, direction(s, d), to, from, bytes, d.agent, s.agent, completion_signal, nullptr);
}

/// hsa_amd_memory_fill (synchronous; `count` 32-bit words), replaced while a replay service exists:
/// a fill into an agent's memory waits while a replay owns the agent, and is an entry of the
/// calling thread's range. No record of its own: the reference has no kind for fills (the
/// HSA_AMD_EXT_API kind traces the call).
hsa_status_t memory_fill(void* ptr, uint32_t value, size_t count) noexcept {
    const side d = classify(ptr);
    if (!d.device) return runtime().amd.hsa_amd_memory_fill_fn(ptr, value, count);
    const range_copy entry{range_copy::form::fill, ptr, nullptr, false, count, value};
    const bool recorded = note_range_work(0, d.agent, &entry);
    replay_gate::shared_hold hold(d.agent);
    const hsa_status_t status = runtime().amd.hsa_amd_memory_fill_fn(ptr, value, count);
    if (recorded && status != HSA_STATUS_SUCCESS) rr::decline(copy_refused);
    return status;
}

}  // namespace

bool install_memory_tracing(::HsaApiTable& table) noexcept {
    if (table.core_ == nullptr || table.amd_ext_ == nullptr) return false;
    using backend::hook;
    bool any = false;
    if (configured_operations(kind::memory_allocation).any() || replay_memory::enabled()) {
        any |= hook<&AmdExtTable::hsa_amd_memory_pool_allocate_fn>(table.amd_ext_, &pool_allocate);
        any |= hook<&AmdExtTable::hsa_amd_memory_pool_free_fn>(table.amd_ext_, &pool_free);
        any |= hook<&CoreApiTable::hsa_memory_allocate_fn>(table.core_, &memory_allocate);
        any |= hook<&CoreApiTable::hsa_memory_free_fn>(table.core_, &memory_free);
    }
    if (configured_operations(kind::memory_copy).any() || replay_gate::enabled()) {
        // Copy times come from the runtime (left enabled at unload: the setting is process-wide).
        if (runtime().amd.hsa_amd_profiling_async_copy_enable_fn != nullptr)
            (void)runtime().amd.hsa_amd_profiling_async_copy_enable_fn(true);
        any |= hook<&CoreApiTable::hsa_memory_copy_fn>(table.core_, &memory_copy);
        any |= hook<&AmdExtTable::hsa_amd_memory_async_copy_fn>(table.amd_ext_, &async_copy);
        any |= hook<&AmdExtTable::hsa_amd_memory_async_copy_rect_fn>(table.amd_ext_, &async_copy_rect);
    }
    if (replay_gate::enabled()) any |= hook<&AmdExtTable::hsa_amd_memory_fill_fn>(table.amd_ext_, &memory_fill);
    return any;
}

void uninstall_memory_tracing(::HsaApiTable& table) noexcept {
    // Let the async copies still in flight deliver their EXIT and signal the program (bounded:
    // a copy that never ends, e.g. waiting on a dependency, must not hang the program's exit).
    backend::drain(g_copies_in_flight, std::chrono::seconds(10),
                   "async copies did not complete before the HSA runtime unloaded; their EXIT records are lost");
    if (table.core_ == nullptr || table.amd_ext_ == nullptr) return;
    const auto& rt = runtime();
    using backend::unhook;
    unhook<&AmdExtTable::hsa_amd_memory_pool_allocate_fn>(table.amd_ext_, &pool_allocate,
                                                          rt.amd.hsa_amd_memory_pool_allocate_fn);
    unhook<&AmdExtTable::hsa_amd_memory_pool_free_fn>(table.amd_ext_, &pool_free, rt.amd.hsa_amd_memory_pool_free_fn);
    unhook<&CoreApiTable::hsa_memory_allocate_fn>(table.core_, &memory_allocate, rt.core.hsa_memory_allocate_fn);
    unhook<&CoreApiTable::hsa_memory_free_fn>(table.core_, &memory_free, rt.core.hsa_memory_free_fn);
    unhook<&CoreApiTable::hsa_memory_copy_fn>(table.core_, &memory_copy, rt.core.hsa_memory_copy_fn);
    unhook<&AmdExtTable::hsa_amd_memory_async_copy_fn>(table.amd_ext_, &async_copy, rt.amd.hsa_amd_memory_async_copy_fn);
    unhook<&AmdExtTable::hsa_amd_memory_async_copy_rect_fn>(table.amd_ext_, &async_copy_rect,
                                                            rt.amd.hsa_amd_memory_async_copy_rect_fn);
    unhook<&AmdExtTable::hsa_amd_memory_fill_fn>(table.amd_ext_, &memory_fill, rt.amd.hsa_amd_memory_fill_fn);
    // Nothing left allocated once the runtime closes the library (the maps are plain pointers, not
    // objects with destructors: a program that exits without hsa_shut_down keeps them valid).
    {
        std::lock_guard lk(g_topology_mutex);
        delete g_topology;
        g_topology = nullptr;
    }
    std::lock_guard lk(g_allocations_mutex);
    delete g_allocations;
    g_allocations = nullptr;
}

}  // namespace encore::hsa
