// Memory: pools and regions (host memory), allocation map, pointer info, copies.
#include "sim_internal.hpp"

#include <encore/sim/sim.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace encore::sim {
namespace {

constexpr size_t kGranule = 4096;
constexpr hsa_status_t kInvalidPool = static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);

struct Allocation {
    size_t size = 0;
    Pool* pool = nullptr;  // null for registered / locked host memory
    Agent* owner = nullptr;
    hsa_amd_pointer_type_t type = HSA_EXT_POINTER_TYPE_HSA;
    std::vector<hsa_agent_t> access;
    void* userdata = nullptr;
    bool owned = true;  // runtime frees the storage
    std::vector<std::pair<hsa_amd_deallocation_callback_t, void*>> dealloc_callbacks;
};

auto& g_mem_mu = leaky<std::mutex>();
auto& g_allocs = leaky<std::map<uintptr_t, Allocation>>();

// Returns the allocation containing p (g_mem_mu held).
std::map<uintptr_t, Allocation>::iterator find_alloc(const void* p) {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    auto it = g_allocs.upper_bound(a);
    if (it == g_allocs.begin()) return g_allocs.end();
    --it;
    if (a >= it->first + std::max<size_t>(it->second.size, 1)) return g_allocs.end();
    return it;
}

std::vector<hsa_agent_t> default_access(Pool* pool) {
    std::vector<hsa_agent_t> v;
    if (!pool) {
        for (Agent* a : agents()) v.push_back(a->handle());
        return v;
    }
    if (pool->device_local) {
        v.push_back(pool->owner->handle());  // others need hsa_amd_agents_allow_access
    } else {
        for (Agent* a : agents()) v.push_back(a->handle());
    }
    return v;
}

hsa_status_t allocate(Pool* pool, size_t size, void** ptr) {
    if (size == 0 || !ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (size > pool->size) return HSA_STATUS_ERROR_INVALID_ALLOCATION;
    size_t rounded = (size + kGranule - 1) / kGranule * kGranule;
    void* p = std::aligned_alloc(kGranule, rounded);
    if (!p) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    Allocation a;
    a.size = size;
    a.pool = pool;
    a.owner = pool->owner;
    a.access = default_access(pool);
    std::lock_guard<std::mutex> lk(g_mem_mu);
    g_allocs[reinterpret_cast<uintptr_t>(p)] = std::move(a);
    *ptr = p;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t release(void* ptr) {
    if (!ptr) return HSA_STATUS_SUCCESS;  // like free(NULL)
    std::unique_lock<std::mutex> lk(g_mem_mu);
    auto it = g_allocs.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == g_allocs.end() || !it->second.pool) return HSA_STATUS_ERROR_INVALID_ALLOCATION;
    auto callbacks = std::move(it->second.dealloc_callbacks);
    g_allocs.erase(it);
    lk.unlock();
    for (auto& [cb, data] : callbacks) cb(ptr, data);  // before the memory goes away
    std::free(ptr);
    return HSA_STATUS_SUCCESS;
}

Agent* agent_or_null(hsa_agent_t a) { return agent_from_handle(a); }

// ---- pools -----------------------------------------------------------------------------------
hsa_status_t impl_iterate_pools(hsa_agent_t agent, hsa_status_t (*cb)(hsa_amd_memory_pool_t, void*), void* data) {
    SIM_REQUIRE_INIT();
    Agent* a = agent_or_null(agent);
    if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    for (auto& p : a->pools) {
        hsa_status_t s = cb(hsa_amd_memory_pool_t{reinterpret_cast<uint64_t>(p.get())}, data);
        if (s != HSA_STATUS_SUCCESS) return s;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_pool_get_info(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    Pool* p = pool_from_handle(pool.handle);
    if (!p) return kInvalidPool;
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    switch (attribute) {
        case HSA_AMD_MEMORY_POOL_INFO_SEGMENT: *static_cast<hsa_amd_segment_t*>(value) = p->segment; break;
        case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS: *static_cast<uint32_t*>(value) = p->global_flags; break;
        case HSA_AMD_MEMORY_POOL_INFO_SIZE: *static_cast<size_t*>(value) = p->size; break;
        case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: *static_cast<bool*>(value) = true; break;
        case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE: *static_cast<size_t*>(value) = kGranule; break;
        case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT: *static_cast<size_t*>(value) = kGranule; break;
        case HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL: *static_cast<bool*>(value) = !p->device_local; break;
        case HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE: *static_cast<size_t*>(value) = p->size; break;
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_agent_pool_get_info(hsa_agent_t agent, hsa_amd_memory_pool_t pool,
                                      hsa_amd_agent_memory_pool_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    Agent* a = agent_or_null(agent);
    if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
    Pool* p = pool_from_handle(pool.handle);
    if (!p) return kInvalidPool;
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    const bool same = p->owner == a;
    switch (attribute) {
        case HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS:
            *static_cast<hsa_amd_memory_pool_access_t*>(value) = same || !p->device_local
                                                                     ? HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT
                                                                     : HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT;
            break;
        case HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS: *static_cast<uint32_t*>(value) = same ? 0 : 1; break;
        case HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO: {
            auto* li = static_cast<hsa_amd_memory_pool_link_info_t*>(value);
            memset(li, 0, sizeof *li);
            li->link_type = HSA_AMD_LINK_INFO_TYPE_PCIE;
            li->numa_distance = same ? 10 : 20;
            break;
        }
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_pool_allocate(hsa_amd_memory_pool_t pool, size_t size, uint32_t flags, void** ptr) {
    SIM_REQUIRE_INIT();
    Pool* p = pool_from_handle(pool.handle);
    if (!p) return kInvalidPool;
    (void)flags;
    return allocate(p, size, ptr);
}

hsa_status_t impl_pool_free(void* ptr) {
    SIM_REQUIRE_INIT();
    return release(ptr);
}

hsa_status_t impl_agents_allow_access(uint32_t num_agents, const hsa_agent_t* list, const uint32_t* flags,
                                      const void* ptr) {
    SIM_REQUIRE_INIT();
    (void)flags;
    if (num_agents == 0 || !list || !ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < num_agents; ++i)
        if (!agent_or_null(list[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
    std::lock_guard<std::mutex> lk(g_mem_mu);
    auto it = find_alloc(ptr);
    if (it == g_allocs.end()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < num_agents; ++i) {
        auto& acc = it->second.access;
        if (std::none_of(acc.begin(), acc.end(), [&](hsa_agent_t a) { return a.handle == list[i].handle; }))
            acc.push_back(list[i]);
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_pool_can_migrate(hsa_amd_memory_pool_t src, hsa_amd_memory_pool_t dst, bool* result) {
    SIM_REQUIRE_INIT();
    if (!pool_from_handle(src.handle) || !pool_from_handle(dst.handle)) return kInvalidPool;
    if (!result) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *result = false;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_pointer_info(const void* ptr, hsa_amd_pointer_info_t* info, void* (*alloc)(size_t),
                               uint32_t* num_accessible, hsa_agent_t** accessible) {
    SIM_REQUIRE_INIT();
    if (!info || info->size < offsetof(hsa_amd_pointer_info_t, agentBaseAddress))
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if ((num_accessible == nullptr) != (accessible == nullptr) || (accessible && !alloc))
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    hsa_amd_pointer_info_t out{};
    out.size = std::min<uint32_t>(info->size, sizeof(hsa_amd_pointer_info_t));
    std::vector<hsa_agent_t> acc;
    {
        std::lock_guard<std::mutex> lk(g_mem_mu);
        auto it = find_alloc(ptr);
        if (it == g_allocs.end()) {
            out.type = HSA_EXT_POINTER_TYPE_UNKNOWN;
        } else {
            const Allocation& a = it->second;
            out.type = a.type;
            out.agentBaseAddress = reinterpret_cast<void*>(it->first);
            out.hostBaseAddress = reinterpret_cast<void*>(it->first);
            out.sizeInBytes = a.size;
            out.userData = a.userdata;
            out.agentOwner = a.owner ? a.owner->handle() : agents().front()->handle();
            out.global_flags = a.pool ? a.pool->global_flags
                                      : static_cast<uint32_t>(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
            acc = a.access;
        }
    }
    memcpy(info, &out, out.size);
    if (accessible) {
        *num_accessible = static_cast<uint32_t>(acc.size());
        *accessible = nullptr;
        if (!acc.empty()) {
            auto* arr = static_cast<hsa_agent_t*>(alloc(acc.size() * sizeof(hsa_agent_t)));
            if (!arr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
            std::copy(acc.begin(), acc.end(), arr);
            *accessible = arr;
        }
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_pointer_info_set_userdata(const void* ptr, void* userdata) {
    SIM_REQUIRE_INIT();
    std::lock_guard<std::mutex> lk(g_mem_mu);
    auto it = g_allocs.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == g_allocs.end()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    it->second.userdata = userdata;
    return HSA_STATUS_SUCCESS;
}

// Host memory the program locks or registers shows up in pointer info as LOCKED, owned by the
// CPU agent, unless it is already inside a tracked allocation (g_mem_mu held).
void track_host_memory(void* ptr, size_t size) {
    if (find_alloc(ptr) != g_allocs.end()) return;
    Allocation a;
    a.size = size;
    a.type = HSA_EXT_POINTER_TYPE_LOCKED;
    a.owner = agents().front();
    a.owned = false;
    a.access = default_access(nullptr);
    g_allocs[reinterpret_cast<uintptr_t>(ptr)] = std::move(a);
}

hsa_status_t impl_memory_lock(void* host_ptr, size_t size, hsa_agent_t* agents_, int num_agent, void** agent_ptr) {
    SIM_REQUIRE_INIT();
    if (!host_ptr || size == 0 || !agent_ptr || num_agent < 0 || (num_agent > 0 && !agents_))
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < num_agent; ++i)
        if (!agent_or_null(agents_[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
    std::lock_guard<std::mutex> lk(g_mem_mu);
    track_host_memory(host_ptr, size);
    *agent_ptr = host_ptr;  // one address space
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_memory_lock_to_pool(void* host_ptr, size_t size, hsa_agent_t* agents_, int num_agent,
                                      hsa_amd_memory_pool_t pool, uint32_t flags, void** agent_ptr) {
    SIM_REQUIRE_INIT();
    (void)flags;
    if (!pool_from_handle(pool.handle)) return kInvalidPool;
    return impl_memory_lock(host_ptr, size, agents_, num_agent, agent_ptr);
}

hsa_status_t impl_memory_unlock(void* host_ptr) {
    SIM_REQUIRE_INIT();
    std::lock_guard<std::mutex> lk(g_mem_mu);
    auto it = g_allocs.find(reinterpret_cast<uintptr_t>(host_ptr));
    if (it != g_allocs.end() && it->second.type == HSA_EXT_POINTER_TYPE_LOCKED) g_allocs.erase(it);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_memory_fill(void* ptr, uint32_t value, size_t count) {
    SIM_REQUIRE_INIT();
    if (!ptr || (reinterpret_cast<uintptr_t>(ptr) & 3)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    uint32_t* p = static_cast<uint32_t*>(ptr);
    std::fill(p, p + count, value);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_coherency_get_type(hsa_agent_t agent, hsa_amd_coherency_type_t* type) {
    SIM_REQUIRE_INIT();
    if (!agent_or_null(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!type) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *type = HSA_AMD_COHERENCY_TYPE_COHERENT;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_coherency_set_type(hsa_agent_t agent, hsa_amd_coherency_type_t type) {
    SIM_REQUIRE_INIT();
    if (!agent_or_null(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (type != HSA_AMD_COHERENCY_TYPE_COHERENT && type != HSA_AMD_COHERENCY_TYPE_NONCOHERENT)
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_register_dealloc_cb(void* ptr, hsa_amd_deallocation_callback_t cb, void* data) {
    SIM_REQUIRE_INIT();
    if (!ptr || !cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard<std::mutex> lk(g_mem_mu);
    auto it = g_allocs.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == g_allocs.end() || !it->second.pool) return HSA_STATUS_ERROR_INVALID_ALLOCATION;
    it->second.dealloc_callbacks.emplace_back(cb, data);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_deregister_dealloc_cb(void* ptr, hsa_amd_deallocation_callback_t cb) {
    SIM_REQUIRE_INIT();
    if (!ptr || !cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard<std::mutex> lk(g_mem_mu);
    auto it = g_allocs.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == g_allocs.end() || !it->second.pool) return HSA_STATUS_ERROR_INVALID_ALLOCATION;
    auto& v = it->second.dealloc_callbacks;
    auto f = std::find_if(v.begin(), v.end(), [&](const auto& e) { return e.first == cb; });
    if (f == v.end()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    v.erase(f);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_register_system_event_handler(hsa_amd_system_event_callback_t cb, void* data) {
    SIM_REQUIRE_INIT();
    (void)data;
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    // Accepted; the simulator raises no system events (no GPU memory faults / HW exceptions).
    return HSA_STATUS_SUCCESS;
}

// ---- regions (the same objects as pools) -------------------------------------------------------
hsa_status_t impl_iterate_regions(hsa_agent_t agent, hsa_status_t (*cb)(hsa_region_t, void*), void* data) {
    SIM_REQUIRE_INIT();
    Agent* a = agent_or_null(agent);
    if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    for (auto& p : a->pools) {
        hsa_status_t s = cb(hsa_region_t{reinterpret_cast<uint64_t>(p.get())}, data);
        if (s != HSA_STATUS_SUCCESS) return s;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_region_get_info(hsa_region_t region, hsa_region_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    Pool* p = pool_from_handle(region.handle);
    if (!p) return HSA_STATUS_ERROR_INVALID_REGION;
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    switch (static_cast<int>(attribute)) {
        case HSA_REGION_INFO_SEGMENT: *static_cast<hsa_region_segment_t*>(value) = HSA_REGION_SEGMENT_GLOBAL; break;
        case HSA_REGION_INFO_GLOBAL_FLAGS: {
            uint32_t f = 0;
            if (p->global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) f |= HSA_REGION_GLOBAL_FLAG_KERNARG;
            if (p->global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED)
                f |= HSA_REGION_GLOBAL_FLAG_FINE_GRAINED;
            if (p->global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)
                f |= HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED;
            *static_cast<uint32_t*>(value) = f;
            break;
        }
        case HSA_REGION_INFO_SIZE: *static_cast<size_t*>(value) = p->size; break;
        case HSA_REGION_INFO_ALLOC_MAX_SIZE: *static_cast<size_t*>(value) = p->size; break;
        case HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE: *static_cast<uint32_t*>(value) = 0; break;
        case HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED: *static_cast<bool*>(value) = true; break;
        case HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE: *static_cast<size_t*>(value) = kGranule; break;
        case HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT: *static_cast<size_t*>(value) = kGranule; break;
        case HSA_AMD_REGION_INFO_HOST_ACCESSIBLE: *static_cast<bool*>(value) = true; break;
        case HSA_AMD_REGION_INFO_BASE: *static_cast<void**>(value) = nullptr; break;
        case HSA_AMD_REGION_INFO_BUS_WIDTH: *static_cast<uint32_t*>(value) = 64; break;
        case HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY: *static_cast<uint32_t*>(value) = 1000; break;
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_memory_allocate(hsa_region_t region, size_t size, void** ptr) {
    SIM_REQUIRE_INIT();
    Pool* p = pool_from_handle(region.handle);
    if (!p) return HSA_STATUS_ERROR_INVALID_REGION;
    return allocate(p, size, ptr);
}

hsa_status_t impl_memory_free(void* ptr) {
    SIM_REQUIRE_INIT();
    return release(ptr);
}

hsa_status_t impl_memory_register(void* ptr, size_t size) {
    SIM_REQUIRE_INIT();
    if (!ptr && size != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (size == 0 && ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (!ptr) return HSA_STATUS_SUCCESS;
    std::lock_guard<std::mutex> lk(g_mem_mu);
    track_host_memory(ptr, size);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_memory_deregister(void* ptr, size_t) {
    SIM_REQUIRE_INIT();
    std::lock_guard<std::mutex> lk(g_mem_mu);
    auto it = g_allocs.find(reinterpret_cast<uintptr_t>(ptr));
    if (it != g_allocs.end() && !it->second.owned) g_allocs.erase(it);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_memory_assign_agent(void* ptr, hsa_agent_t agent, hsa_access_permission_t) {
    SIM_REQUIRE_INIT();
    if (!agent_or_null(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (!ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_memory_copy(void* dst, const void* src, size_t size) {
    SIM_REQUIRE_INIT();
    if (!dst || !src) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (size) memmove(dst, src, size);
    return HSA_STATUS_SUCCESS;
}

// ---- async copies ------------------------------------------------------------------------------
struct CopyJob {
    void* dst;
    const void* src;
    size_t size;
    std::vector<SignalRef> deps;
    SignalRef completion;
    // Rectangular copies (hsa_amd_memory_async_copy_rect); size is then unused.
    bool rect = false;
    hsa_pitched_ptr_t rdst{}, rsrc{};
    hsa_dim3_t dst_off{}, src_off{}, range{};
};

void rect_copy(const CopyJob& j) {
    for (uint32_t z = 0; z < j.range.z; ++z)
        for (uint32_t y = 0; y < j.range.y; ++y) {
            char* d = static_cast<char*>(j.rdst.base) + (j.dst_off.z + z) * j.rdst.slice +
                      (j.dst_off.y + y) * j.rdst.pitch + j.dst_off.x;
            const char* s = static_cast<const char*>(j.rsrc.base) + (j.src_off.z + z) * j.rsrc.slice +
                            (j.src_off.y + y) * j.rsrc.pitch + j.src_off.x;
            memmove(d, s, j.range.x);
        }
}

struct CopyEngine {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<CopyJob> jobs;
    bool stop = false;
    std::thread thread;
    std::atomic<bool> profiling{false};

    void loop() {
        std::unique_lock<std::mutex> lk(mu);
        for (;;) {
            cv.wait(lk, [&] { return stop || !jobs.empty(); });
            if (jobs.empty()) return;  // stop requested and drained
            CopyJob job = std::move(jobs.front());
            jobs.pop_front();
            lk.unlock();
            bool ready = true;
            for (auto& d : job.deps) {
                while (signal_wait(*d, HSA_SIGNAL_CONDITION_LT, 1, 100'000'000, HSA_WAIT_STATE_BLOCKED) >= 1) {
                    if (stop_requested() || d->dead.load()) {
                        ready = false;  // shutting down / dependency destroyed: drop the copy
                        break;
                    }
                }
                if (!ready) break;
            }
            if (!ready) {
                lk.lock();
                continue;
            }
            const uint64_t t0 = now_ticks();
            if (job.rect)
                rect_copy(job);
            else if (job.size)
                memmove(job.dst, job.src, job.size);
            const uint64_t t1 = now_ticks();
            if (job.completion) {
                job.completion->start_ts.store(t0, std::memory_order_relaxed);
                job.completion->end_ts.store(t1, std::memory_order_relaxed);
                job.completion->value.fetch_sub(1, std::memory_order_seq_cst);
                signal_notify(*job.completion);
            }
            lk.lock();
        }
    }
    bool stop_requested() {
        std::lock_guard<std::mutex> lk(mu);
        return stop;
    }
};

auto& g_copy_mu = leaky<std::mutex>();
CopyEngine* g_copy = nullptr;
bool g_copy_profiling = false;

CopyEngine* copy_engine() {
    std::lock_guard<std::mutex> lk(g_copy_mu);
    if (!g_copy) {
        g_copy = new CopyEngine();
        g_copy->thread = std::thread([e = g_copy] { e->loop(); });
    }
    return g_copy;
}

// Resolves the dependency and completion signals of a copy and hands it to the copy thread.
hsa_status_t submit_copy(CopyJob job, uint32_t num_deps, const hsa_signal_t* deps, hsa_signal_t completion) {
    for (uint32_t i = 0; i < num_deps; ++i) {
        SignalRef d = signal_lookup(deps[i]);
        if (!d) return HSA_STATUS_ERROR_INVALID_SIGNAL;
        job.deps.push_back(std::move(d));
    }
    job.completion = signal_lookup(completion);
    if (!job.completion) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    CopyEngine* e = copy_engine();
    {
        std::lock_guard<std::mutex> lk(e->mu);
        e->jobs.push_back(std::move(job));
    }
    e->cv.notify_one();
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_async_copy(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size,
                             uint32_t num_deps, const hsa_signal_t* deps, hsa_signal_t completion) {
    SIM_REQUIRE_INIT();
    if (!dst || !src || (num_deps > 0 && !deps)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (!agent_or_null(dst_agent) || !agent_or_null(src_agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    CopyJob job{dst, src, size, {}, nullptr};
    return submit_copy(std::move(job), num_deps, deps, completion);
}

hsa_status_t impl_async_copy_rect(const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset,
                                  const hsa_pitched_ptr_t* src, const hsa_dim3_t* src_offset, const hsa_dim3_t* range,
                                  hsa_agent_t copy_agent, hsa_amd_copy_direction_t dir, uint32_t num_deps,
                                  const hsa_signal_t* deps, hsa_signal_t completion) {
    SIM_REQUIRE_INIT();
    if (!dst || !src || !dst_offset || !src_offset || !range || !dst->base || !src->base || (num_deps > 0 && !deps) ||
        dir < hsaHostToHost || dir > hsaDeviceToDevice)
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    Agent* a = agent_or_null(copy_agent);
    if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (a->type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_ERROR_INVALID_AGENT;  // as ROCr: no CPU
    // ROCr requires 4-byte aligned pitches/slices and rows that fit the pitch.
    if ((dst->pitch | dst->slice | src->pitch | src->slice) & 3) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if ((range->y > 1 || range->z > 1) && (dst_offset->x + range->x > dst->pitch || src_offset->x + range->x > src->pitch))
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    CopyJob job{nullptr, nullptr, 0, {}, nullptr};
    job.rect = true;
    job.rdst = *dst;
    job.rsrc = *src;
    job.dst_off = *dst_offset;
    job.src_off = *src_offset;
    job.range = *range;
    return submit_copy(std::move(job), num_deps, deps, completion);
}

hsa_status_t impl_copy_profiling_enable(bool enable) {
    SIM_REQUIRE_INIT();
    std::lock_guard<std::mutex> lk(g_copy_mu);
    g_copy_profiling = enable;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_get_async_copy_time(hsa_signal_t signal, hsa_amd_profiling_async_copy_time_t* t) {
    SIM_REQUIRE_INIT();
    if (!t) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    SignalRef s = signal_lookup(signal);
    if (!s) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    t->start = s->start_ts.load(std::memory_order_relaxed);
    t->end = s->end_ts.load(std::memory_order_relaxed);
    return HSA_STATUS_SUCCESS;
}

}  // namespace

void copies_shutdown() {
    CopyEngine* e;
    {
        std::lock_guard<std::mutex> lk(g_copy_mu);
        e = g_copy;
        g_copy = nullptr;
    }
    if (!e) return;
    {
        std::lock_guard<std::mutex> lk(e->mu);
        e->stop = true;
    }
    e->cv.notify_all();
    wake_any_waiters();
    e->thread.join();
    delete e;
}

void memory_shutdown() {
    std::lock_guard<std::mutex> lk(g_mem_mu);
    for (auto& [base, a] : g_allocs)
        if (a.owned && a.pool) std::free(reinterpret_cast<void*>(base));
    g_allocs.clear();
}

void install_memory(HsaApiTable& t) {
    CoreApiTable& c = *t.core_;
    AmdExtTable& a = *t.amd_ext_;
    c.hsa_agent_iterate_regions_fn = impl_iterate_regions;
    c.hsa_region_get_info_fn = impl_region_get_info;
    c.hsa_memory_allocate_fn = impl_memory_allocate;
    c.hsa_memory_free_fn = impl_memory_free;
    c.hsa_memory_register_fn = impl_memory_register;
    c.hsa_memory_deregister_fn = impl_memory_deregister;
    c.hsa_memory_assign_agent_fn = impl_memory_assign_agent;
    c.hsa_memory_copy_fn = impl_memory_copy;
    a.hsa_amd_agent_iterate_memory_pools_fn = impl_iterate_pools;
    a.hsa_amd_memory_pool_get_info_fn = impl_pool_get_info;
    a.hsa_amd_agent_memory_pool_get_info_fn = impl_agent_pool_get_info;
    a.hsa_amd_memory_pool_allocate_fn = impl_pool_allocate;
    a.hsa_amd_memory_pool_free_fn = impl_pool_free;
    a.hsa_amd_agents_allow_access_fn = impl_agents_allow_access;
    a.hsa_amd_memory_pool_can_migrate_fn = impl_pool_can_migrate;
    a.hsa_amd_pointer_info_fn = impl_pointer_info;
    a.hsa_amd_pointer_info_set_userdata_fn = impl_pointer_info_set_userdata;
    a.hsa_amd_memory_lock_fn = impl_memory_lock;
    a.hsa_amd_memory_lock_to_pool_fn = impl_memory_lock_to_pool;
    a.hsa_amd_memory_unlock_fn = impl_memory_unlock;
    a.hsa_amd_memory_fill_fn = impl_memory_fill;
    a.hsa_amd_coherency_get_type_fn = impl_coherency_get_type;
    a.hsa_amd_coherency_set_type_fn = impl_coherency_set_type;
    a.hsa_amd_memory_async_copy_fn = impl_async_copy;
    a.hsa_amd_memory_async_copy_rect_fn = impl_async_copy_rect;
    a.hsa_amd_register_deallocation_callback_fn = impl_register_dealloc_cb;
    a.hsa_amd_deregister_deallocation_callback_fn = impl_deregister_dealloc_cb;
    a.hsa_amd_register_system_event_handler_fn = impl_register_system_event_handler;
    a.hsa_amd_profiling_async_copy_enable_fn = impl_copy_profiling_enable;
    a.hsa_amd_profiling_get_async_copy_time_fn = impl_get_async_copy_time;
}

}  // namespace encore::sim

extern "C" ENCORE_SIM_EXPORT hsa_status_t encore_sim_pointer_pool(const void* ptr, hsa_amd_memory_pool_t* pool,
                                                                  void** base, size_t* size) {
    using namespace encore::sim;
    if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
    if (!pool) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard<std::mutex> lk(g_mem_mu);
    auto it = find_alloc(ptr);
    if (it == g_allocs.end() || !it->second.pool) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    pool->handle = reinterpret_cast<uint64_t>(it->second.pool);
    if (base) *base = reinterpret_cast<void*>(it->first);
    if (size) *size = it->second.size;
    return HSA_STATUS_SUCCESS;
}
