// The agents the runtime presents (one CPU, ENCORE_SIM_GPU_AGENTS GPUs) and their memory pools:
// created by hsa_init, destroyed by the last hsa_shut_down; lookups from handles.
#include "sim_internal.hpp"

#include <encore/sim/sim.h>

#include <cstdio>
#include <cstdlib>

namespace encore::sim {

namespace {

// Runtime-wide state is never destroyed (see "leaky" in sim_internal.hpp).
auto& g_agent_storage = leaky<std::vector<std::unique_ptr<Agent>>>();
auto& g_agents = leaky<std::vector<Agent*>>();
uint32_t g_threads_per_agent = 1;
uint64_t g_scratch_limit = 1ull << 30;

int env_int(const char* name, int dflt, int lo, int hi) {
    const char* v = getenv(name);
    if (!v || !*v) return dflt;
    char* end = nullptr;
    long x = strtol(v, &end, 10);
    if (*end != '\0' || x < lo || x > hi) {
        report("ignoring %s=%s (expected %d..%d)", name, v, lo, hi);
        return dflt;
    }
    return static_cast<int>(x);
}

constexpr size_t kDeviceMemory = 16ull << 30;  // reported size of each GPU's "VRAM"
constexpr size_t kSystemMemory = 64ull << 30;
constexpr const char* kCpuName = "encore-sim-cpu";
constexpr const char* kGpuName = "encore-sim-gpu";
// Agent handles: this base plus the node. Odd high bits, so that a handle taken for an address
// (or an address for a handle) shows at once.
constexpr uint64_t kAgentHandleBase = 0x5e5a000000000000ull;

int gpu_agent_count() { return env_int("ENCORE_SIM_GPU_AGENTS", 1, 1, 16); }

}  // namespace

uint64_t scratch_limit() { return g_scratch_limit; }

void create_agents() {
    int ngpu = gpu_agent_count();
    g_threads_per_agent = static_cast<uint32_t>(env_int("ENCORE_SIM_THREADS_PER_AGENT", 1, 1, 256));
    g_scratch_limit = static_cast<uint64_t>(env_int("ENCORE_SIM_SCRATCH_LIMIT_MB", 1024, 1, 1 << 20)) << 20;
    auto cpu = std::make_unique<Agent>();
    cpu->type = HSA_DEVICE_TYPE_CPU;
    cpu->node = 0;
    cpu->name = kCpuName;
    {
        auto p = std::make_unique<Pool>();
        p->owner = cpu.get();
        p->global_flags = HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT;
        p->kernarg = true;
        p->size = kSystemMemory;
        p->label = "system fine-grained/kernarg";
        cpu->pools.push_back(std::move(p));
        p = std::make_unique<Pool>();
        p->owner = cpu.get();
        p->global_flags = HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;
        p->size = kSystemMemory;
        p->label = "system coarse-grained";
        cpu->pools.push_back(std::move(p));
    }
    g_agents.push_back(cpu.get());
    g_agent_storage.push_back(std::move(cpu));
    for (int i = 0; i < ngpu; ++i) {
        auto g = std::make_unique<Agent>();
        g->type = HSA_DEVICE_TYPE_GPU;
        g->node = static_cast<uint32_t>(i + 1);
        g->gpu_index = static_cast<uint32_t>(i);
        g->name = kGpuName;
        auto add = [&](uint32_t flags, bool kernarg, bool local, size_t size, const char* label) {
            auto p = std::make_unique<Pool>();
            p->owner = g.get();
            p->global_flags = flags;
            p->kernarg = kernarg;
            p->device_local = local;
            p->size = size;
            p->label = label;
            g->pools.push_back(std::move(p));
        };
        add(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, false, true, kDeviceMemory, "device coarse-grained");
        add(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED, false, false, kSystemMemory, "fine-grained");
        add(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT, true, false,
            kSystemMemory, "kernarg");
        if (g_threads_per_agent > 1) g->workers = std::make_unique<WorkerPool>(g_threads_per_agent - 1);
        g_agents.push_back(g.get());
        g_agent_storage.push_back(std::move(g));
    }
}

void destroy_agents() {
    g_agents.clear();
    g_agent_storage.clear();
}

const std::vector<Agent*>& agents() { return g_agents; }
uint32_t threads_per_agent() { return g_threads_per_agent; }

hsa_agent_t agent_handle_of_node(uint32_t node) { return {kAgentHandleBase + node}; }

Agent* agent_from_handle(hsa_agent_t a) {
    for (Agent* ag : g_agents)
        if (ag->handle().handle == a.handle) return ag;
    return nullptr;
}

size_t topology(encore_sim_topology_agent_t* out, size_t capacity) {
    // What create_agents makes: one CPU (node 0), then the GPUs (nodes 1..n).
    const size_t n = 1 + static_cast<size_t>(gpu_agent_count());
    for (size_t i = 0; out != nullptr && i < n && i < capacity; ++i) {
        encore_sim_topology_agent_t& t = out[i];
        t = encore_sim_topology_agent_t{};
        t.node = static_cast<uint32_t>(i);
        t.agent = agent_handle_of_node(t.node);
        t.type = i == 0 ? HSA_DEVICE_TYPE_CPU : HSA_DEVICE_TYPE_GPU;
        std::snprintf(t.name, sizeof t.name, "%s", i == 0 ? kCpuName : kGpuName);
    }
    return n;
}

Pool* pool_from_handle(uint64_t handle) {
    for (Agent* ag : g_agents)
        for (auto& p : ag->pools)
            if (reinterpret_cast<uint64_t>(p.get()) == handle) return p.get();
    return nullptr;
}

}  // namespace encore::sim
