// test/cuda/fake_cupti_profiler.cpp — a fake of CUPTI's profiling API (the profiler host API and
// the range profiler, as CUDA 13's libcupti has them) for the GPU-free tests of libencore-cuda's
// counter source (src/cuda/counters.cpp), loaded through ENCORE_CUPTI_LIBRARY=<path>. It watches
// the fake driver's launches (fake_driver.cpp's launch observers) as the real CUPTI watches the GPU.
//
// The "hardware": chip FAKE100 (every device), whose metrics are these base names —
//   counters:   sm__inst_executed, smsp__inst_executed, sm__warps_launched, dram__bytes_read,
//               dram__bytes_write, gpu__time_duration, sm__cycles_elapsed, lts__t_sectors
//   throughput: sm__throughput
// — valid with the rollups .sum .avg .min .max (counters; also .sum.per_second) and
// .avg.pct_of_peak_sustained_elapsed (the throughput). The pass rule: a pass counts at most two
// distinct base metrics (any rollups of one base metric share its counter), and lts__t_sectors
// alone needs two passes. So {sm__inst_executed.sum, sm__inst_executed.max, dram__bytes_read.sum}
// fits one pass and {sm__inst_executed.sum, sm__warps_launched.sum, sm__cycles_elapsed.max} needs two.
//
// Ranges: CUPTI_UserRange (PushRange to PopRange) or CUPTI_AutoRange (what encore uses: the
// kernels between Start and Stop, one range, as encore launches one kernel there).
// Values of one range (one kernel launched inside it): threads = the grid's and block's product,
// warps = ceil(threads / 32) per block; sm__inst_executed.sum = smsp__inst_executed.sum =
// 10 x warps; sm__warps_launched.sum = warps; dram__bytes_read.sum = what the kernel reported with
// fake_cupti_profiler_report_bytes() during the range, else 4 x threads; dram__bytes_write.sum =
// 4 x threads; gpu__time_duration.sum = the kernel's host run time in ns; sm__cycles_elapsed.sum =
// 1.5 x that; lts__t_sectors.sum = threads / 8; .avg, .min and .max are .sum / 4 (four "SMs");
// .per_second is .sum over the duration in seconds; sm__throughput... is 50.
//
// Knobs (environment): FAKE_CUPTI_PROFILER_FAIL=initialize (cuptiProfilerInitialize returns
// CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, as without profiling permission), =enable
// (cuptiRangeProfilerEnable does), =decode (cuptiRangeProfilerDecodeData fails), =unsupported
// (cuptiProfilerDeviceSupported reports vGPU profiling disabled), =chip (no chip name).
// An object set with a second, different config evaluates every range it measures from then on as
// NaN (what CUDA 13's CUPTI did on an H200; encore enables a new object per metric set change).
// User replay of a config of several passes, as CUPTI's: each Start/Stop after SetConfig is the
// next pass (Stop returns the next pass index, and isAllPassSubmitted after the last); the
// distinct base metrics of the config, in the order of their first name, are counted two per
// pass (base i in pass i / 2; lts__t_sectors in the last), and a metric's value is computed from
// what ran in its pass, so a pass that saw other inputs gives other values. Data decoded before
// every pass ran evaluates as NaN.
// fake_cupti_profiler_counts() gives the counts tests check.
#include "cuda/cupti_profiler_api.hpp"

#include <cuda.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#define FAKE_API extern "C" __attribute__((visibility("default")))

using namespace encore::cuda::cupti_api;

struct encore::cuda::cupti_api::CUpti_Profiler_Host_Object {
    std::string chip;
    std::vector<std::string> metrics;  // accumulated by ConfigAddMetrics, as CUPTI's
};
struct encore::cuda::cupti_api::CUpti_RangeProfiler_Object {
    void* ctx = nullptr;
    const std::uint8_t* config = nullptr;
    std::size_t config_size = 0;
    std::uint8_t* data = nullptr;
    std::size_t data_size = 0;
    bool configured = false, started = false, in_range = false, ranged = false;
    bool automatic = false;  // CUPTI_AutoRange: each kernel between Start and Stop is a range
    // The first config it was set with, and whether another one followed: as CUDA 13's CUPTI on an
    // H200, an object reconfigured with another metric set evaluates every later range as NaN.
    std::vector<std::uint8_t> first_config;
    bool switched = false;
    // User replay: the config's pass count, the pass the next Start/Stop counts, and what each
    // pass measured (its kernels' geometry and time).
    std::size_t passes = 1, pass = 0;
    struct measured {
        bool ranged = false;
        std::uint64_t threads = 0, warps = 0, duration_ns = 0;
        double reported_bytes = -1;
    };
    std::vector<measured> done;
};

namespace {

constexpr const char* chip_name = "FAKE100";
constexpr const char* counters[] = {"sm__inst_executed",  "smsp__inst_executed", "sm__warps_launched",
                                    "dram__bytes_read",   "dram__bytes_write",   "gpu__time_duration",
                                    "sm__cycles_elapsed", "lts__t_sectors"};
constexpr const char* throughputs[] = {"sm__throughput"};
constexpr const char* counter_rollups[] = {".sum", ".avg", ".min", ".max", ".sum.per_second", ".avg.per_second"};
constexpr const char* throughput_suffix = ".avg.pct_of_peak_sustained_elapsed";

bool knob(const char* value) {
    const char* v = std::getenv("FAKE_CUPTI_PROFILER_FAIL");
    return v != nullptr && std::strcmp(v, value) == 0;
}

/// A valid metric's base name and suffix; false for a name the chip does not have.
bool parse(const std::string& name, std::string& base, std::string& suffix) {
    const std::size_t dot = name.find('.');
    if (dot == std::string::npos) return false;
    base = name.substr(0, dot);
    suffix = name.substr(dot);
    for (const char* c : counters)
        if (base == c)
            return std::any_of(std::begin(counter_rollups), std::end(counter_rollups),
                               [&](const char* r) { return suffix == r; });
    for (const char* t : throughputs)
        if (base == t) return suffix == throughput_suffix;
    return false;
}

/// The pass rule (above): passes for a set of metric names (0: one is not valid).
std::size_t passes_for(const std::vector<std::string>& names) {
    std::map<std::string, std::set<std::string>> bases_of_unit;
    bool lts = false;
    for (const auto& n : names) {
        std::string base, suffix;
        if (!parse(n, base, suffix)) return 0;
        bases_of_unit[base.substr(0, base.find("__"))].insert(base);
        lts = lts || base == "lts__t_sectors";
    }
    std::size_t bases = 0;
    for (const auto& [unit, of_unit] : bases_of_unit) bases += of_unit.size();
    const std::size_t passes = (bases + 1) / 2;
    return lts ? std::max<std::size_t>(passes, 2) : passes;
}

// A config image: a magic line, then the names, one per line.
constexpr char config_magic[] = "FAKE-CUPTI-CONFIG\n";
std::string image_of(const std::vector<std::string>& names) {
    std::string s = config_magic;
    for (const auto& n : names) s += n + "\n";
    return s;
}
bool names_of(const std::uint8_t* image, std::size_t size, std::vector<std::string>& out) {
    const std::string s(reinterpret_cast<const char*>(image), size);
    if (s.rfind(config_magic, 0) != 0) return false;
    out.clear();
    std::size_t at = sizeof(config_magic) - 1;
    while (at < s.size()) {
        const std::size_t end = s.find('\n', at);
        if (end == std::string::npos) return false;
        out.push_back(s.substr(at, end - at));
        at = end + 1;
    }
    return true;
}

// A counter data image: what one range measured, per pass of its config.
constexpr std::size_t max_passes = 8;
struct pass_data {
    std::uint64_t threads, warps, duration_ns;
    double reported_bytes;  // < 0: the kernel reported none
};
struct counter_data {
    char magic[8];
    std::uint64_t ranges;  // decoded ranges (0 or 1)
    std::uint64_t threads, warps, duration_ns;
    double reported_bytes;   // < 0: the kernel reported none
    std::uint64_t poisoned;  // measured by an object reconfigured with another set: NaN values
    std::uint64_t passes;    // of the config; `pass` holds each one's measurement
    std::uint64_t complete;  // every pass ran before the decode
    pass_data pass[max_passes];
};
constexpr char data_magic[8] = {'F', 'A', 'K', 'E', 'C', 'D', 'I', '\0'};

// The range being measured (one counted launch at a time, as encore counts them).
std::mutex g_mutex;
counter_data g_live{};
bool g_live_open = false;
std::chrono::steady_clock::time_point g_kernel_start;
std::atomic<unsigned long> g_ranges{0}, g_enables{0}, g_set_configs{0}, g_evaluations{0};
thread_local unsigned t_grid[3], t_block[3];

void observe_shape(CUstream, const unsigned grid[3], const unsigned block[3]) {
    std::memcpy(t_grid, grid, sizeof(t_grid));
    std::memcpy(t_block, block, sizeof(t_block));
}
void observe(int phase) {
    std::lock_guard lk(g_mutex);
    if (!g_live_open) return;
    if (phase == 1) {
        g_kernel_start = std::chrono::steady_clock::now();
        const std::uint64_t block = std::uint64_t{t_block[0]} * t_block[1] * t_block[2];
        const std::uint64_t blocks = std::uint64_t{t_grid[0]} * t_grid[1] * t_grid[2];
        g_live.threads += block * blocks;
        g_live.warps += blocks * ((block + 31) / 32);
    } else if (phase == 2) {
        g_live.duration_ns += static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - g_kernel_start).count());
    }
}

bool watch_driver() {
    const char* path = std::getenv("ENCORE_CUDA_DRIVER");
    void* h = path != nullptr ? ::dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    void* set = h != nullptr ? ::dlsym(h, "fake_cuda_set_launch_observer") : nullptr;
    void* set_shape = h != nullptr ? ::dlsym(h, "fake_cuda_set_launch_shape_observer") : nullptr;
    if (set == nullptr || set_shape == nullptr) return false;
    void (*set_shape_observer)(void (*)(CUstream, const unsigned*, const unsigned*)) = nullptr;
    std::memcpy(&set_shape_observer, &set_shape, sizeof(set_shape));
    set_shape_observer(&observe_shape);
    void (*set_observer)(void (*)(int)) = nullptr;
    std::memcpy(&set_observer, &set, sizeof(set));
    set_observer(&observe);
    return true;
}

double value_of(const std::string& name, const pass_data& d) {
    std::string base, suffix;
    if (!parse(name, base, suffix)) return 0;
    if (base == "sm__throughput") return 50.0;
    double sum = 0;
    if (base == "sm__inst_executed" || base == "smsp__inst_executed") sum = 10.0 * static_cast<double>(d.warps);
    if (base == "sm__warps_launched") sum = static_cast<double>(d.warps);
    if (base == "dram__bytes_read")
        sum = d.reported_bytes >= 0 ? d.reported_bytes : 4.0 * static_cast<double>(d.threads);
    if (base == "dram__bytes_write") sum = 4.0 * static_cast<double>(d.threads);
    if (base == "gpu__time_duration") sum = static_cast<double>(d.duration_ns);
    if (base == "sm__cycles_elapsed") sum = 1.5 * static_cast<double>(d.duration_ns);
    if (base == "lts__t_sectors") sum = std::floor(static_cast<double>(d.threads) / 8.0);
    if (suffix == ".sum") return sum;
    if (suffix == ".sum.per_second") return d.duration_ns != 0 ? sum * 1e9 / static_cast<double>(d.duration_ns) : 0;
    return sum / 4.0;
}

/// The pass of a config (its metric names, `passes` passes) that counts metric `name` (see above).
std::size_t pass_of(const std::string& name, const std::vector<std::string>& config, std::size_t passes) {
    std::string base, suffix;
    if (!parse(name, base, suffix) || passes <= 1) return 0;
    if (base == "lts__t_sectors") return passes - 1;
    std::vector<std::string> order;
    for (const auto& n : config) {
        std::string b, x;
        if (parse(n, b, x) && std::find(order.begin(), order.end(), b) == order.end()) order.push_back(b);
    }
    const auto at = static_cast<std::size_t>(std::find(order.begin(), order.end(), base) - order.begin());
    return std::min(at / 2, passes - 1);
}

std::vector<const char*>& listed(CUpti_MetricType type) {
    static std::vector<const char*> c(std::begin(counters), std::end(counters));
    static std::vector<const char*> t(std::begin(throughputs), std::end(throughputs));
    static std::vector<const char*> none;
    return type == CUPTI_METRIC_TYPE_COUNTER ? c : type == CUPTI_METRIC_TYPE_THROUGHPUT ? t : none;
}

template <class P>
bool sized(const P* p, std::size_t size) {
    return p != nullptr && p->structSize >= size;
}

std::mutex g_names_mutex;
std::set<std::string>* g_names = new std::set<std::string>;  // strings handed out (never freed, as CUPTI's)
const char* keep(const std::string& s) {
    std::lock_guard lk(g_names_mutex);
    return g_names->insert(s).first->c_str();
}

}  // namespace

FAKE_API void fake_cupti_profiler_report_bytes(double bytes) {
    std::lock_guard lk(g_mutex);
    if (g_live_open) g_live.reported_bytes = std::max(0.0, g_live.reported_bytes) + bytes;
}

struct fake_cupti_profiler_counts_t {
    unsigned long ranges, enables, set_configs, evaluations;
};
FAKE_API fake_cupti_profiler_counts_t fake_cupti_profiler_counts() {
    return {g_ranges.load(), g_enables.load(), g_set_configs.load(), g_evaluations.load()};
}

namespace {
// FAKE_CUDA_REPORT=1 (as the fake driver's report): the counts on stderr at exit, so that a
// front-end check can see how many profiler objects and configs a run took.
struct exit_report {
    ~exit_report() {
        const char* v = std::getenv("FAKE_CUDA_REPORT");
        if (v == nullptr || *v == '\0') return;
        std::fprintf(stderr, "fake_cupti_profiler: enables=%lu set_configs=%lu ranges=%lu evaluations=%lu\n",
                     g_enables.load(), g_set_configs.load(), g_ranges.load(), g_evaluations.load());
    }
} g_exit_report;
}  // namespace

FAKE_API CUptiResult cuptiGetResultString(CUptiResult r, const char** s) {
    if (s == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
    *s = r == CUPTI_SUCCESS                         ? "CUPTI_SUCCESS"
         : r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
         : r == CUPTI_ERROR_INVALID_PARAMETER       ? "CUPTI_ERROR_INVALID_PARAMETER"
                                                    : "CUPTI_ERROR_UNKNOWN";
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params* p) {
    if (!sized(p, CUpti_Profiler_Initialize_Params_STRUCT_SIZE)) return CUPTI_ERROR_INVALID_PARAMETER;
    return knob("initialize") ? CUPTI_ERROR_INSUFFICIENT_PRIVILEGES : CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params* p) {
    return sized(p, CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE) ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}
FAKE_API CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* p) {
    if (!sized(p, CUpti_Device_GetChipName_Params_STRUCT_SIZE)) return CUPTI_ERROR_INVALID_PARAMETER;
    if (knob("chip")) return CUPTI_ERROR_NOT_SUPPORTED;
    p->pChipName = chip_name;
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params* p) {
    if (!sized(p, CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE)) return CUPTI_ERROR_INVALID_PARAMETER;
    const auto yes = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    p->architecture = p->sli = p->confidentialCompute = p->cmp = p->wsl = yes;
    p->vGpu = knob("unsupported") ? CUPTI_PROFILER_CONFIGURATION_DISABLED : yes;
    p->isSupported = p->vGpu == yes ? yes : CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED;
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* p) {
    if (!sized(p, CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE) || p->pChipName == nullptr ||
        p->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (std::strcmp(p->pChipName, chip_name) != 0)
        return static_cast<CUptiResult>(46);  // CUPTI_ERROR_INVALID_CHIP_NAME
    p->pHostObject = new CUpti_Profiler_Host_Object{p->pChipName, {}};
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params* p) {
    if (!sized(p, CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE) || p->pHostObject == nullptr)
        return CUPTI_ERROR_INVALID_PARAMETER;
    delete p->pHostObject;
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiProfilerHostGetBaseMetrics(CUpti_Profiler_Host_GetBaseMetrics_Params* p) {
    if (!sized(p, CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE) || p->pHostObject == nullptr)
        return CUPTI_ERROR_INVALID_PARAMETER;
    auto& v = listed(p->metricType);
    p->ppMetricNames = v.data();
    p->numMetrics = v.size();
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params* p) {
    if (!sized(p, CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE) || p->pHostObject == nullptr ||
        p->pMetricName == nullptr)
        return CUPTI_ERROR_INVALID_PARAMETER;
    std::string base, suffix;
    if (!parse(p->pMetricName, base, suffix)) return CUPTI_ERROR_INVALID_PARAMETER;
    p->pDescription = keep("fake " + base);
    p->pHwUnit = keep(base.substr(0, base.find("__")));
    p->pDimUnit = "";
    p->metricType = base == "sm__throughput" ? CUPTI_METRIC_TYPE_THROUGHPUT : CUPTI_METRIC_TYPE_COUNTER;
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) {
    if (!sized(p, CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE) || p->pHostObject == nullptr ||
        p->ppMetricNames == nullptr)
        return CUPTI_ERROR_INVALID_PARAMETER;
    std::string base, suffix;
    for (std::size_t i = 0; i < p->numMetrics; ++i)
        if (p->ppMetricNames[i] == nullptr || !parse(p->ppMetricNames[i], base, suffix))
            return CUPTI_ERROR_INVALID_PARAMETER;
    for (std::size_t i = 0; i < p->numMetrics; ++i) p->pHostObject->metrics.emplace_back(p->ppMetricNames[i]);
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* p) {
    if (!sized(p, CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE) || p->pHostObject == nullptr)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->configImageSize = image_of(p->pHostObject->metrics).size();
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params* p) {
    if (!sized(p, CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE) || p->pHostObject == nullptr ||
        p->pConfigImage == nullptr)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const std::string image = image_of(p->pHostObject->metrics);
    if (p->configImageSize < image.size()) return CUPTI_ERROR_INVALID_PARAMETER;
    std::memcpy(p->pConfigImage, image.data(), image.size());
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* p) {
    std::vector<std::string> names;
    if (!sized(p, CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE) || p->pConfigImage == nullptr ||
        !names_of(p->pConfigImage, p->configImageSize, names))
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->numOfPasses = passes_for(names);
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
    if (!sized(p, CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE) || p->pHostObject == nullptr ||
        p->pCounterDataImage == nullptr || p->counterDataImageSize < sizeof(counter_data) ||
        p->ppMetricNames == nullptr || p->pMetricValues == nullptr)
        return CUPTI_ERROR_INVALID_PARAMETER;
    counter_data d;
    std::memcpy(&d, p->pCounterDataImage, sizeof(d));
    if (std::memcmp(d.magic, data_magic, sizeof(data_magic)) != 0 || p->rangeIndex >= d.ranges)
        return CUPTI_ERROR_INVALID_PARAMETER;
    for (std::size_t i = 0; i < p->numMetrics; ++i) {
        const std::size_t pass = pass_of(p->ppMetricNames[i], p->pHostObject->metrics, d.passes);
        p->pMetricValues[i] = d.poisoned != 0 || d.complete == 0 || pass >= max_passes
                                  ? std::nan("")
                                  : value_of(p->ppMetricNames[i], d.pass[pass]);
    }
    g_evaluations.fetch_add(1);
    return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params* p) {
    if (!sized(p, CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE) || p->ctx == nullptr)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (knob("enable")) return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
    if (!watch_driver()) return CUPTI_ERROR_NOT_INITIALIZED;
    p->pRangeProfilerObject = new CUpti_RangeProfiler_Object;
    p->pRangeProfilerObject->ctx = p->ctx;
    g_enables.fetch_add(1);
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params* p) {
    if (!sized(p, CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE) || p->pRangeProfilerObject == nullptr)
        return CUPTI_ERROR_INVALID_PARAMETER;
    delete p->pRangeProfilerObject;
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* p) {
    if (!sized(p, CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE) || p->pRangeProfilerObject == nullptr ||
        p->maxNumOfRanges == 0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->counterDataSize = sizeof(counter_data);
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiRangeProfilerCounterDataImageInitialize(
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params* p) {
    if (!sized(p, CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE) || p->pCounterData == nullptr ||
        p->counterDataSize < sizeof(counter_data))
        return CUPTI_ERROR_INVALID_PARAMETER;
    counter_data d{};
    std::memcpy(d.magic, data_magic, sizeof(data_magic));
    d.reported_bytes = -1;
    std::memcpy(p->pCounterData, &d, sizeof(d));
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params* p) {
    std::vector<std::string> names;
    if (!sized(p, CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE) || p->pRangeProfilerObject == nullptr ||
        p->pConfig == nullptr || !names_of(p->pConfig, p->configSize, names) || p->pCounterDataImage == nullptr ||
        p->counterDataImageSize < sizeof(counter_data) || (p->range != CUPTI_UserRange && p->range != CUPTI_AutoRange) ||
        p->replayMode != CUPTI_UserReplay || p->pRangeProfilerObject->started)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const std::size_t passes = passes_for(names);
    if (passes == 0 || passes > max_passes || p->passIndex >= passes) return CUPTI_ERROR_INVALID_PARAMETER;
    auto* o = p->pRangeProfilerObject;
    o->passes = passes;
    o->pass = p->passIndex;
    o->done.assign(passes, {});
    if (o->first_config.empty())
        o->first_config.assign(p->pConfig, p->pConfig + p->configSize);
    else if (o->first_config.size() != p->configSize ||
             !std::equal(o->first_config.begin(), o->first_config.end(), p->pConfig))
        o->switched = true;
    o->config = p->pConfig;
    o->config_size = p->configSize;
    o->data = p->pCounterDataImage;
    o->data_size = p->counterDataImageSize;
    o->configured = true;
    o->automatic = p->range == CUPTI_AutoRange;
    g_set_configs.fetch_add(1);
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params* p) {
    if (!sized(p, CUpti_RangeProfiler_Start_Params_STRUCT_SIZE) || p->pRangeProfilerObject == nullptr ||
        !p->pRangeProfilerObject->configured || p->pRangeProfilerObject->started)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->pRangeProfilerObject->started = true;
    p->pRangeProfilerObject->ranged = false;
    if (p->pRangeProfilerObject->automatic) {  // the kernels from here to Stop (one range: encore launches one)
        std::lock_guard lk(g_mutex);
        g_live = {};
        g_live.reported_bytes = -1;
        g_live_open = true;
    }
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiRangeProfilerPushRange(CUpti_RangeProfiler_PushRange_Params* p) {
    if (!sized(p, CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE) || p->pRangeProfilerObject == nullptr ||
        !p->pRangeProfilerObject->started || p->pRangeProfilerObject->in_range || p->pRangeProfilerObject->automatic)
        return CUPTI_ERROR_INVALID_PARAMETER;
    std::lock_guard lk(g_mutex);
    g_live = {};
    g_live.reported_bytes = -1;
    g_live_open = true;
    p->pRangeProfilerObject->in_range = true;
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiRangeProfilerPopRange(CUpti_RangeProfiler_PopRange_Params* p) {
    if (!sized(p, CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE) || p->pRangeProfilerObject == nullptr ||
        !p->pRangeProfilerObject->in_range)
        return CUPTI_ERROR_INVALID_PARAMETER;
    std::lock_guard lk(g_mutex);
    g_live_open = false;
    p->pRangeProfilerObject->in_range = false;
    p->pRangeProfilerObject->ranged = true;
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params* p) {
    if (!sized(p, CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE) || p->pRangeProfilerObject == nullptr ||
        !p->pRangeProfilerObject->started)
        return CUPTI_ERROR_INVALID_PARAMETER;
    auto* o = p->pRangeProfilerObject;
    o->started = false;
    {
        std::lock_guard lk(g_mutex);
        if (o->automatic) {
            g_live_open = false;
            o->ranged = g_live.threads != 0;  // a range only if a kernel ran
        }
        if (o->pass < o->done.size())
            o->done[o->pass] = {o->ranged, g_live.threads, g_live.warps, g_live.duration_ns, g_live.reported_bytes};
    }
    // User replay: this was pass o->pass; all are submitted after the last.
    const bool last = o->pass + 1 >= o->passes;
    p->isAllPassSubmitted = last ? 1 : 0;
    p->passIndex = last ? 0 : o->pass + 1;
    o->pass = p->passIndex;
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params* p) {
    if (!sized(p, CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE) || p->pRangeProfilerObject == nullptr ||
        p->pRangeProfilerObject->started || p->pRangeProfilerObject->data == nullptr)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (knob("decode")) return CUPTI_ERROR_UNKNOWN;
    auto* o = p->pRangeProfilerObject;
    std::lock_guard lk(g_mutex);
    counter_data d{};
    std::memcpy(d.magic, data_magic, sizeof(data_magic));
    d.threads = g_live.threads;
    d.warps = g_live.warps;
    d.duration_ns = g_live.duration_ns;
    d.reported_bytes = g_live.reported_bytes;
    d.passes = o->passes;
    // Every pass ran (the pass index wrapped to 0 after the last) and each measured a kernel.
    bool all = o->pass == 0 && !o->done.empty();
    for (std::size_t k = 0; k < o->done.size() && k < max_passes; ++k) {
        const auto& m = o->done[k];
        d.pass[k] = {m.threads, m.warps, m.duration_ns, m.reported_bytes};
        all = all && m.ranged;
    }
    d.complete = all ? 1 : 0;
    d.ranges = o->ranged ? 1 : 0;
    d.poisoned = o->switched ? 1 : 0;
    std::memcpy(o->data, &d, sizeof(d));
    p->numOfRangeDropped = 0;
    if (o->ranged) g_ranges.fetch_add(1);
    return CUPTI_SUCCESS;
}
FAKE_API CUptiResult cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* p) {
    if (!sized(p, CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE) || p->pCounterDataImage == nullptr ||
        p->counterDataImageSize < sizeof(counter_data))
        return CUPTI_ERROR_INVALID_PARAMETER;
    counter_data d;
    std::memcpy(&d, p->pCounterDataImage, sizeof(d));
    p->numTotalRanges = d.ranges;
    return CUPTI_SUCCESS;
}
