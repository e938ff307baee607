// Runtime core: API table, init/shut_down with tool loading, system/agent/ISA info.
#include "sim_internal.hpp"
#include "slots.inc"

#include <encore/sim/sim.h>

#include <dlfcn.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <type_traits>

namespace encore::sim {

// ---- time / futex / report ---------------------------------------------------------------
uint64_t now_ticks() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));

void futex_wait(std::atomic<uint32_t>* addr, uint32_t expected, int64_t timeout_ns) {
  timespec ts{};
  timespec* pts = nullptr;
  if (timeout_ns >= 0) {
    ts.tv_sec = static_cast<time_t>(timeout_ns / 1000000000);
    ts.tv_nsec = static_cast<long>(timeout_ns % 1000000000);
    pts = &ts;
  }
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), FUTEX_WAIT_PRIVATE, expected, pts, nullptr,
          0);
}

void futex_wake_all(std::atomic<uint32_t>* addr) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
          nullptr, 0);
}

void report(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "[encore-sim] %s\n", buf);
}

std::atomic<bool> g_initialized{false};

uint64_t next_handle() {
  static std::atomic<uint64_t> next{1};
  return 0x5e0000000000ull + next.fetch_add(1, std::memory_order_relaxed) * 64;
}

// ---- API table -----------------------------------------------------------------------------
namespace {

template <typename F>
struct Stub;
template <typename R, typename... A>
struct Stub<R (*)(A...)> {
  static R fn(A...) {
    if constexpr (std::is_same_v<R, hsa_status_t>) {
      return initialized() ? HSA_STATUS_ERROR : HSA_STATUS_ERROR_NOT_INITIALIZED;
    } else if constexpr (!std::is_void_v<R>) {
      return R{};
    }
  }
};

struct TableHolder {
  HsaApiTableContainer c;
  TableHolder() { reset(); }
  void reset() {
    HsaApiTableContainer fresh;
    c.root.version = fresh.root.version;
    c.core.version = fresh.core.version;
    c.amd_ext.version = fresh.amd_ext.version;
    c.finalizer_ext.version = fresh.finalizer_ext.version;
    c.image_ext.version = fresh.image_ext.version;
    c.root.core_ = &c.core;
    c.root.amd_ext_ = &c.amd_ext;
    c.root.finalizer_ext_ = &c.finalizer_ext;
    c.root.image_ext_ = &c.image_ext;
    HsaApiTable& t = c.root;
#define SIM_FILL_STUB(member, Type, name) \
  t.member->name##_fn = &Stub<decltype(Type::name##_fn)>::fn;
    ENCORE_SIM_API_SLOTS(SIM_FILL_STUB)
#undef SIM_FILL_STUB
    install_core(t);
    install_signals(t);
    install_memory(t);
    install_queues(t);
    install_loader(t);
  }
};

TableHolder& holder() {
  static TableHolder h;
  return h;
}

// Names of slots still holding their stub after installation.
std::vector<const char*> unimplemented_slots() {
  std::vector<const char*> out;
  TableHolder fresh;
  HsaApiTable& t = fresh.c.root;
#define SIM_CHECK_STUB(member, Type, name) \
  if (t.member->name##_fn == &Stub<decltype(Type::name##_fn)>::fn) out.push_back(#name);
  ENCORE_SIM_API_SLOTS(SIM_CHECK_STUB)
#undef SIM_CHECK_STUB
  return out;
}

}  // namespace

HsaApiTable& api_table() { return holder().c.root; }

// ---- agents ------------------------------------------------------------------------------
namespace {

struct Isa {
  const char* name = "amdgcn-amd-amdhsa--encoresim";
};
Isa g_isa;
struct Cache {
  const char* name;
  uint8_t level;
  uint32_t size;
};
const Cache g_caches[] = {{"L1", 1, 16 * 1024}, {"L2", 2, 4 * 1024 * 1024}};

// Runtime-wide state is never destroyed (see "leaky" in sim_internal.hpp).
auto& g_agent_storage = leaky<std::vector<std::unique_ptr<Agent>>>();
auto& g_agents = leaky<std::vector<Agent*>>();
uint32_t g_threads_per_agent = 1;

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

constexpr size_t kDeviceMemory = 16ull << 30;   // reported size of each GPU's "VRAM"
constexpr size_t kSystemMemory = 64ull << 30;

void create_agents() {
  int ngpu = env_int("ENCORE_SIM_GPU_AGENTS", 1, 1, 16);
  g_threads_per_agent = static_cast<uint32_t>(env_int("ENCORE_SIM_THREADS_PER_AGENT", 1, 1, 256));
  auto cpu = std::make_unique<Agent>();
  cpu->type = HSA_DEVICE_TYPE_CPU;
  cpu->node = 0;
  cpu->name = "encore-sim-cpu";
  {
    auto p = std::make_unique<Pool>();
    p->owner = cpu.get();
    p->global_flags = HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED |
                      HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT;
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
    g->name = "encore-sim-gpu";
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
    add(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, false, true, kDeviceMemory,
        "device coarse-grained");
    add(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED, false, false, kSystemMemory,
        "fine-grained");
    add(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT,
        true, false, kSystemMemory, "kernarg");
    if (g_threads_per_agent > 1) g->workers = std::make_unique<WorkerPool>(g_threads_per_agent - 1);
    g_agents.push_back(g.get());
    g_agent_storage.push_back(std::move(g));
  }
}

void destroy_agents() {
  g_agents.clear();
  g_agent_storage.clear();
}

}  // namespace

const std::vector<Agent*>& agents() { return g_agents; }
uint32_t threads_per_agent() { return g_threads_per_agent; }

Agent* agent_from_handle(hsa_agent_t a) {
  for (Agent* ag : g_agents)
    if (reinterpret_cast<uint64_t>(ag) == a.handle) return ag;
  return nullptr;
}

Pool* pool_from_handle(uint64_t handle) {
  for (Agent* ag : g_agents)
    for (auto& p : ag->pools)
      if (reinterpret_cast<uint64_t>(p.get()) == handle) return p.get();
  return nullptr;
}

// ---- worker pool -------------------------------------------------------------------------
WorkerPool::WorkerPool(uint32_t nthreads) {
  for (uint32_t i = 0; i < nthreads; ++i) threads_.emplace_back([this, i] { loop(i + 1); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::run(Job& job) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    jobs_.push_back(&job);
  }
  cv_.notify_all();
  for (uint64_t i; (i = job.next.fetch_add(1, std::memory_order_relaxed)) < job.total;) {
    job.fn(job.ctx, i, 0);
    job.done.fetch_add(1, std::memory_order_acq_rel);
  }
  std::unique_lock<std::mutex> lk(mu_);
  for (auto it = jobs_.begin(); it != jobs_.end(); ++it)
    if (*it == &job) {
      jobs_.erase(it);
      break;
    }
  done_cv_.wait(lk, [&] {
    return job.active == 0 && job.done.load(std::memory_order_acquire) == job.total;
  });
}

void WorkerPool::loop(uint32_t index) {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return stop_ || !jobs_.empty(); });
    if (stop_) return;
    Job* job = jobs_.front();
    if (job->next.load(std::memory_order_relaxed) >= job->total) {
      jobs_.pop_front();
      continue;
    }
    ++job->active;
    lk.unlock();
    for (uint64_t i; (i = job->next.fetch_add(1, std::memory_order_relaxed)) < job->total;) {
      job->fn(job->ctx, i, index);
      job->done.fetch_add(1, std::memory_order_acq_rel);
    }
    lk.lock();
    --job->active;
    if (job->active == 0) done_cv_.notify_all();
  }
}

// ---- init / shut_down / tools ------------------------------------------------------------
namespace {

auto& g_init_mu = leaky<std::recursive_mutex>();
int g_refcount = 0;
struct Tool {
  std::string path;
  void* handle;
};
auto& g_tools = leaky<std::vector<Tool>>();

std::vector<std::string> split_tools(const char* env) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = env;; ++p) {
    if (*p == '\0' || *p == ' ' || *p == ':' || *p == '\t' || *p == '\n') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      if (*p == '\0') break;
    } else {
      cur += *p;
    }
  }
  return out;
}

void load_tools() {
  const char* env = getenv("HSA_TOOLS_LIB");
  if (!env || !*env) return;
  std::vector<std::string> failed;
  for (const std::string& lib : split_tools(env)) {
    void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* err = dlerror();
      report("failed to load tool library %s: %s", lib.c_str(), err ? err : "unknown error");
      failed.push_back(lib);
      continue;
    }
    using OnLoadFn = bool (*)(HsaApiTable*, uint64_t, uint64_t, const char* const*);
    auto on_load = reinterpret_cast<OnLoadFn>(dlsym(h, "OnLoad"));
    if (on_load) {
      std::vector<const char*> names;
      for (auto& f : failed) names.push_back(f.c_str());
      names.push_back(nullptr);
      auto& c = holder().c;
      const CoreApiTable core = c.core;
      const AmdExtTable amd = c.amd_ext;
      const FinalizerExtTable fin = c.finalizer_ext;
      const ImageExtTable img = c.image_ext;
      if (!on_load(&api_table(), 1, failed.size(), names.data())) {
        // As ROCr: the tool is counted as failed and closed without calling its OnUnload.
        // Unlike ROCr, slots it replaced are restored (they would point into unmapped code).
        report("tool library %s: OnLoad returned false; unloading it", lib.c_str());
        c.core = core;
        c.amd_ext = amd;
        c.finalizer_ext = fin;
        c.image_ext = img;
        dlclose(h);
        failed.push_back(lib);
        continue;
      }
    }
    g_tools.push_back({lib, h});
  }
}

void unload_tools() {
  using OnUnloadFn = void (*)();
  for (auto it = g_tools.rbegin(); it != g_tools.rend(); ++it)
    if (auto un = reinterpret_cast<OnUnloadFn>(dlsym(it->handle, "OnUnload"))) un();
  for (auto it = g_tools.rbegin(); it != g_tools.rend(); ++it) dlclose(it->handle);
  g_tools.clear();
}

hsa_status_t impl_init() {
  std::lock_guard<std::recursive_mutex> lk(g_init_mu);
  if (g_refcount == INT_MAX) return HSA_STATUS_ERROR_REFCOUNT_OVERFLOW;
  if (g_refcount++ > 0) return HSA_STATUS_SUCCESS;
  create_agents();
  signals_startup();
  g_initialized.store(true, std::memory_order_release);
  load_tools();  // tools may call back into the (initialized) runtime
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_shut_down() {
  std::lock_guard<std::recursive_mutex> lk(g_init_mu);
  if (g_refcount == 0) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (g_refcount > 1) {
    --g_refcount;
    return HSA_STATUS_SUCCESS;
  }
  unload_tools();  // OnUnload may still call the runtime
  g_refcount = 0;
  g_initialized.store(false, std::memory_order_release);
  queues_shutdown();
  copies_shutdown();
  signals_shutdown();
  loader_shutdown();
  memory_shutdown();
  destroy_agents();
  holder().reset();  // tools' replacements die with them
  return HSA_STATUS_SUCCESS;
}

// ---- system info ---------------------------------------------------------------------------
hsa_status_t impl_system_get_info(hsa_system_info_t attribute, void* value) {
  SIM_REQUIRE_INIT();
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (static_cast<int>(attribute)) {
    case HSA_SYSTEM_INFO_VERSION_MAJOR: *static_cast<uint16_t*>(value) = 1; break;
    case HSA_SYSTEM_INFO_VERSION_MINOR: *static_cast<uint16_t*>(value) = 1; break;
    case HSA_SYSTEM_INFO_TIMESTAMP: *static_cast<uint64_t*>(value) = now_ticks(); break;
    case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY:
      *static_cast<uint64_t*>(value) = kTimestampFrequency;
      break;
    case HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT: *static_cast<uint64_t*>(value) = UINT64_MAX; break;
    case HSA_SYSTEM_INFO_ENDIANNESS:
      *static_cast<hsa_endianness_t*>(value) = HSA_ENDIANNESS_LITTLE;
      break;
    case HSA_SYSTEM_INFO_MACHINE_MODEL:
      *static_cast<hsa_machine_model_t*>(value) = HSA_MACHINE_MODEL_LARGE;
      break;
    case HSA_SYSTEM_INFO_EXTENSIONS: {
      uint8_t* bits = static_cast<uint8_t*>(value);
      memset(bits, 0, 128);
      bits[HSA_EXTENSION_AMD_LOADER / 8] |= static_cast<uint8_t>(1u << (HSA_EXTENSION_AMD_LOADER % 8));
      break;
    }
    case HSA_AMD_SYSTEM_INFO_BUILD_VERSION:
      *static_cast<const char**>(value) = "encore-sim 1.5.0";
      break;
    case HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED: *static_cast<bool*>(value) = false; break;
    case HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT: *static_cast<bool*>(value) = false; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

bool loader_ext_version_ok(uint16_t major, uint16_t minor) { return major == 1 && minor <= 3; }

hsa_status_t impl_system_extension_supported(uint16_t extension, uint16_t major, uint16_t minor,
                                             bool* result) {
  SIM_REQUIRE_INIT();
  if (!result || extension > HSA_EXTENSION_AMD_AQLPROFILE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = extension == HSA_EXTENSION_AMD_LOADER && loader_ext_version_ok(major, minor);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_system_major_extension_supported(uint16_t extension, uint16_t major,
                                                   uint16_t* minor, bool* result) {
  SIM_REQUIRE_INIT();
  if (!result || !minor || extension > HSA_EXTENSION_AMD_AQLPROFILE)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = extension == HSA_EXTENSION_AMD_LOADER && major == 1;
  if (*result) *minor = 3;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t copy_loader_table(size_t length, void* table) {
  const auto& src = loader_extension_table();
  memcpy(table, &src, std::min(length, sizeof src));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_system_get_extension_table(uint16_t extension, uint16_t major, uint16_t minor,
                                             void* table) {
  SIM_REQUIRE_INIT();
  if (!table) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (extension != HSA_EXTENSION_AMD_LOADER || !loader_ext_version_ok(major, minor))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  size_t len = minor == 0   ? sizeof(hsa_ven_amd_loader_1_00_pfn_t)
               : minor == 1 ? sizeof(hsa_ven_amd_loader_1_01_pfn_t)
               : minor == 2 ? sizeof(hsa_ven_amd_loader_1_02_pfn_t)
                            : sizeof(hsa_ven_amd_loader_1_03_pfn_t);
  return copy_loader_table(len, table);
}

hsa_status_t impl_system_get_major_extension_table(uint16_t extension, uint16_t major,
                                                   size_t length, void* table) {
  SIM_REQUIRE_INIT();
  if (!table || length == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (extension != HSA_EXTENSION_AMD_LOADER || major != 1) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return copy_loader_table(length, table);
}

hsa_status_t impl_extension_get_name(uint16_t extension, const char** name) {
  SIM_REQUIRE_INIT();
  if (!name) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (extension) {
    case HSA_EXTENSION_FINALIZER: *name = "HSA_EXTENSION_FINALIZER"; break;
    case HSA_EXTENSION_IMAGES: *name = "HSA_EXTENSION_IMAGES"; break;
    case HSA_EXTENSION_PERFORMANCE_COUNTERS: *name = "HSA_EXTENSION_PERFORMANCE_COUNTERS"; break;
    case HSA_EXTENSION_PROFILING_EVENTS: *name = "HSA_EXTENSION_PROFILING_EVENTS"; break;
    case HSA_EXTENSION_AMD_PROFILER: *name = "HSA_EXTENSION_AMD_PROFILER"; break;
    case HSA_EXTENSION_AMD_LOADER: *name = "HSA_EXTENSION_AMD_LOADER"; break;
    case HSA_EXTENSION_AMD_AQLPROFILE: *name = "HSA_EXTENSION_AMD_AQLPROFILE"; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
  SIM_REQUIRE_INIT();
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (Agent* a : agents()) {
    hsa_status_t s = callback(a->handle(), data);
    if (s != HSA_STATUS_SUCCESS) return s;
  }
  return HSA_STATUS_SUCCESS;
}

void copy_name(void* value, const std::string& s) {
  char* out = static_cast<char*>(value);
  memset(out, 0, 64);
  memcpy(out, s.data(), std::min<size_t>(s.size(), 63));
}

hsa_status_t impl_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  SIM_REQUIRE_INIT();
  Agent* a = agent_from_handle(agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const bool gpu = a->type == HSA_DEVICE_TYPE_GPU;
  switch (static_cast<int>(attribute)) {
    case HSA_AGENT_INFO_NAME: copy_name(value, a->name); break;
    case HSA_AGENT_INFO_VENDOR_NAME: copy_name(value, gpu ? "AMD" : "CPU"); break;
    case HSA_AGENT_INFO_FEATURE:
      *static_cast<hsa_agent_feature_t*>(value) =
          gpu ? HSA_AGENT_FEATURE_KERNEL_DISPATCH : static_cast<hsa_agent_feature_t>(0);
      break;
    case HSA_AGENT_INFO_MACHINE_MODEL:
      *static_cast<hsa_machine_model_t*>(value) = HSA_MACHINE_MODEL_LARGE;
      break;
    case HSA_AGENT_INFO_PROFILE:
      *static_cast<hsa_profile_t*>(value) = gpu ? HSA_PROFILE_BASE : HSA_PROFILE_FULL;
      break;
    case HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
      *static_cast<hsa_default_float_rounding_mode_t*>(value) =
          HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
      break;
    case HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES:
      *static_cast<hsa_default_float_rounding_mode_t*>(value) =
          HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
      break;
    case HSA_AGENT_INFO_FAST_F16_OPERATION: *static_cast<bool*>(value) = false; break;
    case HSA_AGENT_INFO_WAVEFRONT_SIZE: *static_cast<uint32_t*>(value) = gpu ? 64 : 0; break;
    case HSA_AGENT_INFO_WORKGROUP_MAX_DIM: {
      uint16_t* d = static_cast<uint16_t*>(value);
      d[0] = d[1] = d[2] = gpu ? 1024 : 0;
      break;
    }
    case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE: *static_cast<uint32_t*>(value) = gpu ? 1024 : 0; break;
    case HSA_AGENT_INFO_GRID_MAX_DIM: {
      hsa_dim3_t* d = static_cast<hsa_dim3_t*>(value);
      d->x = d->y = d->z = gpu ? UINT32_MAX : 0;
      break;
    }
    case HSA_AGENT_INFO_GRID_MAX_SIZE: *static_cast<uint32_t*>(value) = gpu ? UINT32_MAX : 0; break;
    case HSA_AGENT_INFO_FBARRIER_MAX_SIZE: *static_cast<uint32_t*>(value) = gpu ? 32 : 0; break;
    case HSA_AGENT_INFO_QUEUES_MAX: *static_cast<uint32_t*>(value) = gpu ? 128 : 0; break;
    case HSA_AGENT_INFO_QUEUE_MIN_SIZE: *static_cast<uint32_t*>(value) = gpu ? 64 : 0; break;
    case HSA_AGENT_INFO_QUEUE_MAX_SIZE: *static_cast<uint32_t*>(value) = gpu ? 131072 : 0; break;
    case HSA_AGENT_INFO_QUEUE_TYPE:
      *static_cast<hsa_queue_type32_t*>(value) = HSA_QUEUE_TYPE_MULTI;
      break;
    case HSA_AGENT_INFO_NODE: *static_cast<uint32_t*>(value) = a->node; break;
    case HSA_AGENT_INFO_DEVICE: *static_cast<hsa_device_type_t*>(value) = a->type; break;
    case HSA_AGENT_INFO_CACHE_SIZE: {
      uint32_t* c = static_cast<uint32_t*>(value);
      c[0] = g_caches[0].size;
      c[1] = g_caches[1].size;
      c[2] = c[3] = 0;
      break;
    }
    case HSA_AGENT_INFO_ISA:
      static_cast<hsa_isa_t*>(value)->handle = gpu ? reinterpret_cast<uint64_t>(&g_isa) : 0;
      break;
    case HSA_AGENT_INFO_EXTENSIONS: {
      uint8_t* bits = static_cast<uint8_t*>(value);
      memset(bits, 0, 128);
      break;
    }
    case HSA_AGENT_INFO_VERSION_MAJOR: *static_cast<uint16_t*>(value) = 1; break;
    case HSA_AGENT_INFO_VERSION_MINOR: *static_cast<uint16_t*>(value) = 1; break;
    case HSA_AMD_AGENT_INFO_CHIP_ID: *static_cast<uint32_t*>(value) = gpu ? 0x5eed : 0; break;
    case HSA_AMD_AGENT_INFO_CACHELINE_SIZE: *static_cast<uint32_t*>(value) = 64; break;
    case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
      *static_cast<uint32_t*>(value) = gpu ? threads_per_agent() : std::thread::hardware_concurrency();
      break;
    case HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY: *static_cast<uint32_t*>(value) = 1000; break;
    case HSA_AMD_AGENT_INFO_DRIVER_NODE_ID: *static_cast<uint32_t*>(value) = a->node; break;
    case HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS: *static_cast<uint32_t*>(value) = 0; break;
    case HSA_AMD_AGENT_INFO_BDFID: *static_cast<uint32_t*>(value) = a->node << 8; break;
    case HSA_AMD_AGENT_INFO_MEMORY_WIDTH: *static_cast<uint32_t*>(value) = 64; break;
    case HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY: *static_cast<uint32_t*>(value) = 1000; break;
    case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
      copy_name(value, gpu ? "encore-sim software GPU" : "encore-sim host CPU");
      break;
    case HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU: *static_cast<uint32_t*>(value) = gpu ? 40 : 0; break;
    case HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU: *static_cast<uint32_t*>(value) = gpu ? 4 : 0; break;
    case HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES: *static_cast<uint32_t*>(value) = gpu ? 1 : 0; break;
    case HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE:
      *static_cast<uint32_t*>(value) = gpu ? 1 : 0;
      break;
    case HSA_AMD_AGENT_INFO_DOMAIN: *static_cast<uint32_t*>(value) = 0; break;
    case HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES: *static_cast<bool*>(value) = false; break;
    case HSA_AMD_AGENT_INFO_UUID: {
      char buf[32];
      if (gpu)
        snprintf(buf, sizeof buf, "GPU-5e0c0000%08x", a->gpu_index);
      else
        snprintf(buf, sizeof buf, "CPU-XX");
      memset(value, 0, 21);
      memcpy(value, buf, std::min<size_t>(strlen(buf), 20));
      break;
    }
    case HSA_AMD_AGENT_INFO_ASIC_REVISION: *static_cast<uint32_t*>(value) = 0; break;
    case HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS: *static_cast<bool*>(value) = true; break;
    case HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT:
      *static_cast<uint32_t*>(value) = gpu ? threads_per_agent() : 0;
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_agent_extension_supported(uint16_t extension, hsa_agent_t agent, uint16_t,
                                            uint16_t, bool* result) {
  SIM_REQUIRE_INIT();
  if (!agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!result || extension > HSA_EXTENSION_AMD_AQLPROFILE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_agent_major_extension_supported(uint16_t extension, hsa_agent_t agent, uint16_t,
                                                  uint16_t* minor, bool* result) {
  SIM_REQUIRE_INIT();
  if (!agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!result || !minor || extension > HSA_EXTENSION_AMD_AQLPROFILE)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_agent_get_exception_policies(hsa_agent_t agent, hsa_profile_t profile,
                                               uint16_t* mask) {
  SIM_REQUIRE_INIT();
  if (!agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!mask || (profile != HSA_PROFILE_BASE && profile != HSA_PROFILE_FULL))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *mask = 0;
  return HSA_STATUS_SUCCESS;
}

// ---- ISA / caches / wavefronts -------------------------------------------------------------
bool valid_isa(hsa_isa_t isa) { return isa.handle == reinterpret_cast<uint64_t>(&g_isa); }

hsa_status_t impl_agent_iterate_isas(hsa_agent_t agent, hsa_status_t (*cb)(hsa_isa_t, void*),
                                     void* data) {
  SIM_REQUIRE_INIT();
  Agent* a = agent_from_handle(agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (a->type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
  return cb(hsa_isa_t{reinterpret_cast<uint64_t>(&g_isa)}, data);
}

hsa_status_t impl_isa_from_name(const char* name, hsa_isa_t* isa) {
  SIM_REQUIRE_INIT();
  if (!name || !isa) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (strcmp(name, g_isa.name) != 0) return HSA_STATUS_ERROR_INVALID_ISA_NAME;
  isa->handle = reinterpret_cast<uint64_t>(&g_isa);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute, void* value) {
  SIM_REQUIRE_INIT();
  if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (attribute) {
    case HSA_ISA_INFO_NAME_LENGTH:
      *static_cast<uint32_t*>(value) = static_cast<uint32_t>(strlen(g_isa.name) + 1);
      break;
    case HSA_ISA_INFO_NAME: memcpy(value, g_isa.name, strlen(g_isa.name) + 1); break;
    case HSA_ISA_INFO_MACHINE_MODELS: {
      bool* b = static_cast<bool*>(value);
      b[HSA_MACHINE_MODEL_SMALL] = false;
      b[HSA_MACHINE_MODEL_LARGE] = true;
      break;
    }
    case HSA_ISA_INFO_PROFILES: {
      bool* b = static_cast<bool*>(value);
      b[HSA_PROFILE_BASE] = true;
      b[HSA_PROFILE_FULL] = false;
      break;
    }
    case HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES:
    case HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: {
      bool* b = static_cast<bool*>(value);
      b[HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT] = false;
      b[HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO] = false;
      b[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR] = true;
      break;
    }
    case HSA_ISA_INFO_FAST_F16_OPERATION: *static_cast<bool*>(value) = false; break;
    case HSA_ISA_INFO_WORKGROUP_MAX_DIM: {
      uint16_t* d = static_cast<uint16_t*>(value);
      d[0] = d[1] = d[2] = 1024;
      break;
    }
    case HSA_ISA_INFO_WORKGROUP_MAX_SIZE: *static_cast<uint32_t*>(value) = 1024; break;
    case HSA_ISA_INFO_GRID_MAX_DIM: {
      hsa_dim3_t* d = static_cast<hsa_dim3_t*>(value);
      d->x = d->y = d->z = UINT32_MAX;
      break;
    }
    case HSA_ISA_INFO_GRID_MAX_SIZE: *static_cast<uint64_t*>(value) = UINT32_MAX; break;
    case HSA_ISA_INFO_FBARRIER_MAX_SIZE: *static_cast<uint32_t*>(value) = 32; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_isa_get_info(hsa_isa_t isa, hsa_isa_info_t attribute, uint32_t index,
                               void* value) {
  SIM_REQUIRE_INIT();
  if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (attribute) {
    case HSA_ISA_INFO_CALL_CONVENTION_COUNT: *static_cast<uint32_t*>(value) = 1; return HSA_STATUS_SUCCESS;
    case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE:
      if (index != 0) return HSA_STATUS_ERROR_INVALID_INDEX;
      *static_cast<uint32_t*>(value) = 64;
      return HSA_STATUS_SUCCESS;
    case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT:
      if (index != 0) return HSA_STATUS_ERROR_INVALID_INDEX;
      *static_cast<uint32_t*>(value) = 40;
      return HSA_STATUS_SUCCESS;
    default: return impl_isa_get_info_alt(isa, attribute, value);
  }
}

hsa_status_t impl_isa_compatible(hsa_isa_t code_isa, hsa_isa_t agent_isa, bool* result) {
  SIM_REQUIRE_INIT();
  if (!valid_isa(code_isa) || !valid_isa(agent_isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!result) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = true;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_isa_get_exception_policies(hsa_isa_t isa, hsa_profile_t profile, uint16_t* mask) {
  SIM_REQUIRE_INIT();
  if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!mask || (profile != HSA_PROFILE_BASE && profile != HSA_PROFILE_FULL))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *mask = 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_isa_get_round_method(hsa_isa_t isa, hsa_fp_type_t, hsa_flush_mode_t,
                                       hsa_round_method_t* method) {
  SIM_REQUIRE_INIT();
  if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!method) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *method = HSA_ROUND_METHOD_SINGLE;
  return HSA_STATUS_SUCCESS;
}

constexpr uint64_t kWavefrontHandle = 0x57a7e64;
hsa_status_t impl_isa_iterate_wavefronts(hsa_isa_t isa, hsa_status_t (*cb)(hsa_wavefront_t, void*),
                                         void* data) {
  SIM_REQUIRE_INIT();
  if (!valid_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return cb(hsa_wavefront_t{kWavefrontHandle}, data);
}

hsa_status_t impl_wavefront_get_info(hsa_wavefront_t wf, hsa_wavefront_info_t attribute,
                                     void* value) {
  SIM_REQUIRE_INIT();
  if (wf.handle != kWavefrontHandle) return HSA_STATUS_ERROR_INVALID_WAVEFRONT;
  if (!value || attribute != HSA_WAVEFRONT_INFO_SIZE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *static_cast<uint32_t*>(value) = 64;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_agent_iterate_caches(hsa_agent_t agent, hsa_status_t (*cb)(hsa_cache_t, void*),
                                       void* data) {
  SIM_REQUIRE_INIT();
  if (!agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (const Cache& c : g_caches) {
    hsa_status_t s = cb(hsa_cache_t{reinterpret_cast<uint64_t>(&c)}, data);
    if (s != HSA_STATUS_SUCCESS) return s;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_cache_get_info(hsa_cache_t cache, hsa_cache_info_t attribute, void* value) {
  SIM_REQUIRE_INIT();
  const Cache* c = nullptr;
  for (const Cache& x : g_caches)
    if (reinterpret_cast<uint64_t>(&x) == cache.handle) c = &x;
  if (!c) return HSA_STATUS_ERROR_INVALID_CACHE;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (attribute) {
    case HSA_CACHE_INFO_NAME_LENGTH:
      *static_cast<uint32_t*>(value) = static_cast<uint32_t>(strlen(c->name));
      break;
    case HSA_CACHE_INFO_NAME: memcpy(value, c->name, strlen(c->name) + 1); break;
    case HSA_CACHE_INFO_LEVEL: *static_cast<uint8_t*>(value) = c->level; break;
    case HSA_CACHE_INFO_SIZE: *static_cast<uint32_t*>(value) = c->size; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

// ---- status strings --------------------------------------------------------------------------
const char* status_text(hsa_status_t s) {
  switch (static_cast<int>(s)) {
    case HSA_STATUS_SUCCESS: return "HSA_STATUS_SUCCESS: The function has been executed successfully.";
    case HSA_STATUS_INFO_BREAK: return "HSA_STATUS_INFO_BREAK: A traversal over a list of elements has been interrupted by the application before completing.";
    case HSA_STATUS_ERROR: return "HSA_STATUS_ERROR: A generic error has occurred.";
    case HSA_STATUS_ERROR_INVALID_ARGUMENT: return "HSA_STATUS_ERROR_INVALID_ARGUMENT: One of the actual arguments does not meet a precondition stated in the documentation of the corresponding formal argument.";
    case HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: return "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: The requested queue creation is not valid.";
    case HSA_STATUS_ERROR_INVALID_ALLOCATION: return "HSA_STATUS_ERROR_INVALID_ALLOCATION: The requested allocation is not valid.";
    case HSA_STATUS_ERROR_INVALID_AGENT: return "HSA_STATUS_ERROR_INVALID_AGENT: The agent is invalid.";
    case HSA_STATUS_ERROR_INVALID_REGION: return "HSA_STATUS_ERROR_INVALID_REGION: The memory region is invalid.";
    case HSA_STATUS_ERROR_INVALID_SIGNAL: return "HSA_STATUS_ERROR_INVALID_SIGNAL: The signal is invalid.";
    case HSA_STATUS_ERROR_INVALID_QUEUE: return "HSA_STATUS_ERROR_INVALID_QUEUE: The queue is invalid.";
    case HSA_STATUS_ERROR_OUT_OF_RESOURCES: return "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.";
    case HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: return "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: The AQL packet is malformed.";
    case HSA_STATUS_ERROR_RESOURCE_FREE: return "HSA_STATUS_ERROR_RESOURCE_FREE: An error has been detected while releasing a resource.";
    case HSA_STATUS_ERROR_NOT_INITIALIZED: return "HSA_STATUS_ERROR_NOT_INITIALIZED: An API other than hsa_init has been invoked while the reference count of the HSA runtime is zero.";
    case HSA_STATUS_ERROR_REFCOUNT_OVERFLOW: return "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW: The maximum reference count for the object has been reached.";
    case HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: return "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: The arguments passed to a functions are not compatible.";
    case HSA_STATUS_ERROR_INVALID_INDEX: return "HSA_STATUS_ERROR_INVALID_INDEX: The index is invalid.";
    case HSA_STATUS_ERROR_INVALID_ISA: return "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid.";
    case HSA_STATUS_ERROR_INVALID_ISA_NAME: return "HSA_STATUS_ERROR_INVALID_ISA_NAME: The instruction set architecture name is invalid.";
    case HSA_STATUS_ERROR_INVALID_CODE_OBJECT: return "HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid.";
    case HSA_STATUS_ERROR_INVALID_EXECUTABLE: return "HSA_STATUS_ERROR_INVALID_EXECUTABLE: The executable is invalid.";
    case HSA_STATUS_ERROR_FROZEN_EXECUTABLE: return "HSA_STATUS_ERROR_FROZEN_EXECUTABLE: The executable is frozen.";
    case HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: return "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: There is no symbol with the given name.";
    case HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED: return "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED: The variable is already defined.";
    case HSA_STATUS_ERROR_VARIABLE_UNDEFINED: return "HSA_STATUS_ERROR_VARIABLE_UNDEFINED: The variable is undefined.";
    case HSA_STATUS_ERROR_EXCEPTION: return "HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception.";
    case HSA_STATUS_ERROR_INVALID_CODE_SYMBOL: return "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL: The code object symbol is invalid.";
    case HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL: return "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL: The executable symbol is invalid.";
    case HSA_STATUS_ERROR_INVALID_FILE: return "HSA_STATUS_ERROR_INVALID_FILE: The file descriptor is invalid.";
    case HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER: return "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER: The code object reader is invalid.";
    case HSA_STATUS_ERROR_INVALID_CACHE: return "HSA_STATUS_ERROR_INVALID_CACHE: The cache is invalid.";
    case HSA_STATUS_ERROR_INVALID_WAVEFRONT: return "HSA_STATUS_ERROR_INVALID_WAVEFRONT: The wavefront is invalid.";
    case HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP: return "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP: The signal group is invalid.";
    case HSA_STATUS_ERROR_INVALID_RUNTIME_STATE: return "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE: The HSA runtime is not in the configuration state.";
    case HSA_STATUS_ERROR_FATAL: return "HSA_STATUS_ERROR_FATAL: Queue processing has incurred a fatal error.";
    case HSA_STATUS_ERROR_INVALID_MEMORY_POOL: return "HSA_STATUS_ERROR_INVALID_MEMORY_POOL: The memory pool is invalid.";
    case HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: return "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address.";
    case HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: return "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent executed an illegal shader instruction.";
    case HSA_STATUS_ERROR_MEMORY_FAULT: return "HSA_STATUS_ERROR_MEMORY_FAULT: The agent attempted to access an inaccessible address.";
    default: return nullptr;
  }
}

hsa_status_t impl_status_string(hsa_status_t status, const char** str) {
  // Like ROCr, usable before hsa_init.
  if (!str) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const char* s = status_text(status);
  if (!s) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *str = s;
  return HSA_STATUS_SUCCESS;
}

}  // namespace

void install_core(HsaApiTable& t) {
  CoreApiTable& c = *t.core_;
  c.hsa_init_fn = impl_init;
  c.hsa_shut_down_fn = impl_shut_down;
  c.hsa_system_get_info_fn = impl_system_get_info;
  c.hsa_system_extension_supported_fn = impl_system_extension_supported;
  c.hsa_system_major_extension_supported_fn = impl_system_major_extension_supported;
  c.hsa_system_get_extension_table_fn = impl_system_get_extension_table;
  c.hsa_system_get_major_extension_table_fn = impl_system_get_major_extension_table;
  c.hsa_extension_get_name_fn = impl_extension_get_name;
  c.hsa_iterate_agents_fn = impl_iterate_agents;
  c.hsa_agent_get_info_fn = impl_agent_get_info;
  c.hsa_agent_extension_supported_fn = impl_agent_extension_supported;
  c.hsa_agent_major_extension_supported_fn = impl_agent_major_extension_supported;
  c.hsa_agent_get_exception_policies_fn = impl_agent_get_exception_policies;
  c.hsa_agent_iterate_isas_fn = impl_agent_iterate_isas;
  c.hsa_isa_from_name_fn = impl_isa_from_name;
  c.hsa_isa_get_info_fn = impl_isa_get_info;
  c.hsa_isa_get_info_alt_fn = impl_isa_get_info_alt;
  c.hsa_isa_compatible_fn = impl_isa_compatible;
  c.hsa_isa_get_exception_policies_fn = impl_isa_get_exception_policies;
  c.hsa_isa_get_round_method_fn = impl_isa_get_round_method;
  c.hsa_isa_iterate_wavefronts_fn = impl_isa_iterate_wavefronts;
  c.hsa_wavefront_get_info_fn = impl_wavefront_get_info;
  c.hsa_agent_iterate_caches_fn = impl_agent_iterate_caches;
  c.hsa_cache_get_info_fn = impl_cache_get_info;
  c.hsa_status_string_fn = impl_status_string;
}

}  // namespace encore::sim

// ---- encore-sim extensions -----------------------------------------------------------------
extern "C" {
ENCORE_SIM_EXPORT int encore_sim_is_simulator(void) { return 1; }

// Exported by ROCr outside the API table; images are not supported by the simulator.
ENCORE_SIM_EXPORT hsa_status_t hsa_amd_image_get_info_max_dim(hsa_agent_t agent, hsa_agent_info_t,
                                                              void* value) {
  if (!encore::sim::initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!encore::sim::agent_from_handle(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_ERROR;
}

ENCORE_SIM_EXPORT uint32_t encore_sim_unimplemented_count(void) {
  return static_cast<uint32_t>(encore::sim::unimplemented_slots().size());
}

ENCORE_SIM_EXPORT const char* encore_sim_unimplemented_name(uint32_t index) {
  auto v = encore::sim::unimplemented_slots();
  return index < v.size() ? v[index] : nullptr;
}
}
