// Internal declarations of the encore software HSA runtime (libhsa-runtime64.so.1).
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <hsa/amd_hsa_queue.h>
#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ven_amd_loader.h>
#pragma GCC diagnostic pop

#include <encore/sim/kernel.h>
#include <encore/sim/sim.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <rocprofiler-sdk/hsa/scratch_memory_id.h>  // hsa_amd_tool_event and its events

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#define ENCORE_SIM_EXPORT __attribute__((visibility("default")))

namespace encore::sim {

// ---- API table (init.cpp) --------------------------------------------------------------
// ROCr's tools table (ROCm >= 6.2, not in the 5.2 headers): the runtime calls these slots at its
// scratch events and a tool replaces them; the runtime's own do nothing. Layout and version as
// ROCr's (HSA_TOOLS_API_TABLE_MAJOR_VERSION 1).
struct ToolsApiTable {
    ApiTableVersion version;
    hsa_amd_tool_event hsa_amd_tool_scratch_event_alloc_start_fn;
    hsa_amd_tool_event hsa_amd_tool_scratch_event_alloc_end_fn;
    hsa_amd_tool_event hsa_amd_tool_scratch_event_free_start_fn;
    hsa_amd_tool_event hsa_amd_tool_scratch_event_free_end_fn;
    hsa_amd_tool_event hsa_amd_tool_scratch_event_async_reclaim_start_fn;
    hsa_amd_tool_event hsa_amd_tool_scratch_event_async_reclaim_end_fn;
};
// The root table as ROCr >= 6.2 lays it out: the 5.2 members, then tools_ and pc_sampling_ext_
// (null: no PC sampling). version.minor_id is this struct's size, so a tool that checks
// offsetof(HsaApiTable, tools_) < minor_id finds the tools table, one built against 5.2 headers
// sees the table it knows.
struct ApiRoot {
    HsaApiTable base;
    ToolsApiTable* tools_;
    void* pc_sampling_ext_;
};
static_assert(offsetof(ApiRoot, tools_) == sizeof(HsaApiTable), "tools_ follows the 5.2 members");
HsaApiTable& api_table();
// The tables behind api_table(); init.cpp saves and restores them around a tool's OnLoad.
HsaApiTableContainer& api_table_container();
// The tools table api_table()'s root points at (tools_table.cpp); reset with the API table.
ToolsApiTable& tools_table();
void tools_table_reset();
// Scratch memory all queues together may hold (ENCORE_SIM_SCRATCH_LIMIT_MB, read at hsa_init;
// queues.cpp).
uint64_t scratch_limit();
// Stubs in every slot, then the runtime's own functions (tools' replacements are dropped).
void api_table_reset();
// Names of slots still holding their stub after installation.
std::vector<const char*> unimplemented_slots();

// ---- time (util.cpp) -------------------------------------------------------------------
// The system timestamp domain: CLOCK_MONOTONIC nanoseconds; frequency 1 GHz.
constexpr uint64_t kTimestampFrequency = 1000000000ull;
uint64_t now_ticks();

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

// ---- futex (util.cpp) ------------------------------------------------------------------
void futex_wait(std::atomic<uint32_t>* addr, uint32_t expected, int64_t timeout_ns);
void futex_wake_all(std::atomic<uint32_t>* addr);

// ---- runtime state (util.cpp: g_initialized, next_handle, report) ----------------------
// Global registries are allocated once and never destroyed: a program may exit without
// hsa_shut_down while runtime threads still run (and look things up); destroying a map or a
// std::thread under them at exit would crash or call std::terminate.
template <typename T>
T& leaky() {
    return *new T();
}

extern std::atomic<bool> g_initialized;
inline bool initialized() { return g_initialized.load(std::memory_order_acquire); }
// Process-unique, never reused handle values (stale handles are detected, not aliased).
uint64_t next_handle();
void report(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

struct Agent;
// The handle of the agent of node `node` (agents.cpp): a constant, never an address.
hsa_agent_t agent_handle_of_node(uint32_t node);

struct Pool {
    Agent* owner = nullptr;
    hsa_amd_segment_t segment = HSA_AMD_SEGMENT_GLOBAL;
    uint32_t global_flags = 0;  // hsa_amd_memory_pool_global_flag_t bits
    bool kernarg = false;
    bool device_local = false;  // coarse-grained "VRAM"
    size_t size = 0;
    const char* label = "";
};

struct WorkerPool;

struct Agent {
    hsa_device_type_t type = HSA_DEVICE_TYPE_GPU;
    uint32_t node = 0;       // 0 = CPU, 1..N GPU
    uint32_t gpu_index = 0;  // 0-based among GPU agents
    std::string name;
    std::vector<std::unique_ptr<Pool>> pools;
    std::unique_ptr<WorkerPool> workers;
    std::atomic<uint32_t> queue_count{0};
    // From the node, not the address: encore_sim_topology tells the handles before hsa_init
    // creates the agents (profilers ask for agents then), and they stay the same across
    // hsa_shut_down / hsa_init.
    hsa_agent_t handle() const { return agent_handle_of_node(node); }
};

// ---- signals (signals.cpp) -------------------------------------------------------------
struct Queue;
struct Signal {
    std::atomic<int64_t> value{0};
    std::atomic<uint32_t> epoch{0};    // bumped and futex-woken when a sleeping waiter may proceed
    std::atomic<uint32_t> waiters{0};  // == wait_conds.size(); read without the lock
    struct WaitCond {
        hsa_signal_condition_t cond;
        int64_t value;
        bool any_change;  // wake on every modification (doorbells)
    };
    std::mutex wait_mu;
    std::vector<WaitCond> wait_conds;   // conditions of the threads sleeping on `epoch`
    std::atomic<uint64_t> start_ts{0};  // profiling: dispatch / copy start
    std::atomic<uint64_t> end_ts{0};
    std::atomic<bool> dead{false};
    // Async handlers registered on this signal: only their signals wake the handler thread (as
    // with ROCr, whose event thread waits on the registered signals' events alone).
    std::atomic<uint32_t> async_watchers{0};
    // Set when this is an intercept queue's doorbell: every change of its value runs
    // on_doorbell(doorbell_of) (queues.cpp's intercept_doorbell). A pointer, so that signals.cpp,
    // which queues.cpp calls, does not call back up into it (docs/architecture.md).
    Queue* doorbell_of = nullptr;
    void (*on_doorbell)(Queue*) = nullptr;
    bool internal = false;  // queue doorbells: not destroyable by the program
    uint64_t handle = 0;
};
using SignalRef = std::shared_ptr<Signal>;

SignalRef signal_lookup(hsa_signal_t s);
hsa_signal_t signal_create_internal(int64_t initial, SignalRef* out);
void signal_destroy_internal(hsa_signal_t s);
// Registers / removes a thread that is about to sleep on s.epoch.
void signal_add_waiter(Signal& s, const Signal::WaitCond& w);
void signal_remove_waiter(Signal& s, const Signal::WaitCond& w);
// Called after every modification of a signal's value.
void signal_notify(Signal& s);
bool signal_condition_met(int64_t v, hsa_signal_condition_t cond, int64_t cmp);
// Single-signal wait. Returns the last observed value.
int64_t signal_wait(Signal& s, hsa_signal_condition_t cond, int64_t cmp, uint64_t timeout_ticks, hsa_wait_state_t hint);
// Global "some signal changed" epoch for multi-signal waits.
extern std::atomic<uint32_t> g_any_epoch;
extern std::atomic<uint32_t> g_any_waiters;
void wake_any_waiters();

void signals_startup();
void signals_shutdown();

// ---- memory (memory.cpp) ---------------------------------------------------------------
// Frees every allocation of the runtime (at last shut_down).
void memory_shutdown();
void copies_shutdown();

// ---- queues (queues.cpp) ---------------------------------------------------------------
void queues_shutdown();
void intercept_doorbell(Queue* q);

// ---- loader (loader.cpp) ---------------------------------------------------------------
void loader_shutdown();
struct KernelRef {
    encore_sim_kernel_fn fn = nullptr;
    uint32_t group_segment_size = 0;
    uint32_t private_segment_size = 0;
    uint32_t gpu_index = 0;
    std::shared_ptr<void> keep_alive;  // holds the code object loaded while it runs
};
bool kernel_lookup(uint64_t kernel_object, KernelRef* out);

// ---- agents (agents.cpp) ---------------------------------------------------------------
// hsa_init creates the agents and their pools; the last hsa_shut_down destroys them.
void create_agents();
void destroy_agents();
const std::vector<Agent*>& agents();
Agent* agent_from_handle(hsa_agent_t a);
// encore_sim_topology (include/encore/sim/sim.h): the agents create_agents makes, without making them.
size_t topology(encore_sim_topology_agent_s* out, size_t capacity);
Pool* pool_from_handle(uint64_t handle);
uint32_t threads_per_agent();

// Per-agent worker pool used to spread the work-groups of a dispatch (workers.cpp).
struct WorkerPool {
    struct Job {
        void (*fn)(void* ctx, uint64_t index, uint32_t worker) = nullptr;
        void* ctx = nullptr;
        uint64_t total = 0;
        std::atomic<uint64_t> next{0};
        std::atomic<uint64_t> done{0};
        uint32_t active = 0;  // guarded by WorkerPool::mu
    };
    explicit WorkerPool(uint32_t nthreads);
    ~WorkerPool();
    void run(Job& job);  // the calling thread participates
    uint32_t size() const { return static_cast<uint32_t>(threads_.size()) + 1; }

private:
    void loop(uint32_t index);
    std::mutex mu_;
    std::condition_variable cv_;
    std::condition_variable done_cv_;
    std::deque<Job*> jobs_;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

// ---- ISA / caches (isa.cpp) ------------------------------------------------------------
// The ISA of every GPU agent (its address is the hsa_isa_t handle) and the caches every agent
// reports.
struct Isa {
    const char* name = "amdgcn-amd-amdhsa--encoresim";
};
extern Isa g_isa;
struct Cache {
    const char* name;
    uint8_t level;
    uint32_t size;
};
extern const Cache g_caches[2];

// Called by every impl function that needs the runtime.
#define SIM_REQUIRE_INIT()                                                          \
    do {                                                                            \
        if (!::encore::sim::initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED; \
    } while (0)

// Installs the implemented functions of each module into the table (init.cpp calls them).
void install_init(HsaApiTable& t);
void install_system_info(HsaApiTable& t);
void install_agent_info(HsaApiTable& t);
void install_isa(HsaApiTable& t);
void install_status_strings(HsaApiTable& t);
void install_signals(HsaApiTable& t);
void install_memory(HsaApiTable& t);
void install_queues(HsaApiTable& t);
void install_loader(HsaApiTable& t);
// The loader extension table (hsa_ven_amd_loader 1.03).
const hsa_ven_amd_loader_1_03_pfn_t& loader_extension_table();

}  // namespace encore::sim
