// src/cuda/counters.cpp — NVIDIA GPUs' hardware counters through CUPTI's profiling API (see
// counters.hpp, docs/counters.md "NVIDIA GPUs").
//
// The catalogue of a chip (one per chip name, shared by the devices of that chip, so they share
// counter ids): CUPTI's base metrics of the chip (cuptiProfilerHostGetBaseMetrics), listed with
// the suffixes that make a collectable metric — counters with each rollup (.sum .avg .min .max),
// ratios as .ratio and .pct, throughputs as .avg.pct_of_peak_sustained_elapsed — and any other
// valid metric name (a submetric such as .sum.per_second) added when a tool asks for it by name
// (encore_counter_find_by_name), up to 4096 of them. Descriptions come from
// cuptiProfilerHostGetMetricProperties when first asked.
//
// Which counters fit one pass: a host object gets the metrics (ConfigAddMetrics), makes the
// config image, and cuptiProfilerHostGetNumOfPasses says how many passes it needs. Each distinct
// metric set gets its own host object (ConfigAddMetrics accumulates into one), kept with its
// config image when the set fits one pass: it is the config a counted launch runs with and the
// host object that evaluates its counter data.
//
// Counting one launch: on its context's range profiler object (cuptiRangeProfilerEnable, once per
// context), a counter data image for one range, SetConfig with the user range and user replay
// (encore's replay passes are the passes, so a one-pass config only), Start, PushRange, the
// launch, its completion, PopRange, Stop, DecodeData, and EvaluateToGpuValues. The profiler
// counts everything the context's streams run inside the range, so a counted launch runs alone:
// the context is drained before it (a replay has drained it already) and waited for after it,
// and counted launches of all contexts take one lock (counting serializes, as Nsight Compute's).
//
// ENCORE_CUPTI_PROFILER_DEBUG=1 prints every CUPTI profiling call and its result on stderr.
#include "counters.hpp"

#include "cupti.hpp"
#include "cupti_profiler_api.hpp"
#include "real.hpp"
#include "records.hpp"

#include "core/clock.hpp"
#include "core/counting.hpp"
#include "core/warn.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace encore::cuda::counters {
namespace {

using namespace cupti_api;

// ---- the library --------------------------------------------------------------------------------
struct library {
    profiler_functions f;
    functions::result_string_fn result_string = nullptr;
    std::string path;
    bool debug = false;
};
library* g_lib = nullptr;  // set once by load(); never freed (CUPTI's objects outlive everything)

const char* text_of(CUptiResult r) noexcept {
    const char* t = nullptr;
    if (g_lib == nullptr || g_lib->result_string == nullptr || g_lib->result_string(r, &t) != CUPTI_SUCCESS) return "";
    return t != nullptr ? t : "";
}

/// One profiling call: logged with ENCORE_CUPTI_PROFILER_DEBUG; a missing function is NOT_SUPPORTED.
template <class P>
CUptiResult call(const char* name, CUptiResult (*f)(P*), P& p) noexcept {
    const CUptiResult r = f != nullptr ? f(&p) : CUPTI_ERROR_NOT_SUPPORTED;
    if (g_lib != nullptr && g_lib->debug)
        std::fprintf(stderr, "[encore] cupti-profiler: %s%s -> %d %s\n", name, f == nullptr ? " (missing)" : "",
                     static_cast<int>(r), text_of(r));
    return r;
}

template <class P>
P params(std::size_t size) noexcept {
    P p{};
    p.structSize = size;
    return p;
}
#define ENCORE_PARAMS(T) params<T>(T##_STRUCT_SIZE)

template <class F>
void bind(void* h, F& f, const char* name) noexcept {
    void* p = ::dlsym(h, name);
    std::memcpy(&f, &p, sizeof(f));
}

/// Loads CUPTI and initializes its profiler: null (warned once, with the reason) when counting is
/// not possible in this process.
library* load() noexcept {
    static library* const lib = []() -> library* {
        const char* timing = std::getenv("ENCORE_CUDA_DISPATCH_TIMING");
        if (timing != nullptr && (std::strcmp(timing, "cupti") == 0 || std::strcmp(timing, "auto") == 0)) {
            // CUPTI's activity records (dispatch times) and its range profiler in one process are
            // not something encore has verified on hardware: refused together, not half-working.
            core::warn("libencore-cuda: hardware counters are not collected while CUPTI times dispatches "
                       "(ENCORE_CUDA_DISPATCH_TIMING=%s); use ENCORE_CUDA_DISPATCH_TIMING=events with counters",
                       timing);
            return nullptr;
        }
        auto* l = new (std::nothrow) library;
        if (l == nullptr) return nullptr;
        const char* dbg = std::getenv("ENCORE_CUPTI_PROFILER_DEBUG");
        l->debug = dbg != nullptr && *dbg != '\0' && std::strcmp(dbg, "0") != 0;
        void* h = cupti::open_library(l->path);
        if (h == nullptr) {
            core::warn("libencore-cuda: CUPTI (libcupti.so) was not found (set ENCORE_CUPTI_LIBRARY or CUDA_HOME): "
                       "CUDA devices have no hardware counters");
            delete l;
            return nullptr;
        }
        profiler_functions& f = l->f;
        bind(h, l->result_string, "cuptiGetResultString");
        bind(h, f.initialize, "cuptiProfilerInitialize");
        bind(h, f.deinitialize, "cuptiProfilerDeInitialize");
        bind(h, f.chip_name, "cuptiDeviceGetChipName");
        bind(h, f.device_supported, "cuptiProfilerDeviceSupported");
        bind(h, f.host_initialize, "cuptiProfilerHostInitialize");
        bind(h, f.host_deinitialize, "cuptiProfilerHostDeinitialize");
        bind(h, f.base_metrics, "cuptiProfilerHostGetBaseMetrics");
        bind(h, f.sub_metrics, "cuptiProfilerHostGetSubMetrics");
        bind(h, f.metric_properties, "cuptiProfilerHostGetMetricProperties");
        bind(h, f.evaluate, "cuptiProfilerHostEvaluateToGpuValues");
        bind(h, f.config_add, "cuptiProfilerHostConfigAddMetrics");
        bind(h, f.config_image_size, "cuptiProfilerHostGetConfigImageSize");
        bind(h, f.config_image, "cuptiProfilerHostGetConfigImage");
        bind(h, f.passes, "cuptiProfilerHostGetNumOfPasses");
        bind(h, f.enable, "cuptiRangeProfilerEnable");
        bind(h, f.disable, "cuptiRangeProfilerDisable");
        bind(h, f.set_config, "cuptiRangeProfilerSetConfig");
        bind(h, f.start, "cuptiRangeProfilerStart");
        bind(h, f.stop, "cuptiRangeProfilerStop");
        bind(h, f.push_range, "cuptiRangeProfilerPushRange");
        bind(h, f.pop_range, "cuptiRangeProfilerPopRange");
        bind(h, f.decode, "cuptiRangeProfilerDecodeData");
        bind(h, f.counter_data_size, "cuptiRangeProfilerGetCounterDataSize");
        bind(h, f.counter_data_init, "cuptiRangeProfilerCounterDataImageInitialize");
        bind(h, f.counter_data_info, "cuptiRangeProfilerGetCounterDataInfo");
        if (f.initialize == nullptr || f.chip_name == nullptr || f.host_initialize == nullptr ||
            f.base_metrics == nullptr || f.config_add == nullptr || f.config_image == nullptr ||
            f.config_image_size == nullptr || f.passes == nullptr || f.evaluate == nullptr || f.enable == nullptr ||
            f.set_config == nullptr || f.start == nullptr || f.stop == nullptr || f.push_range == nullptr ||
            f.pop_range == nullptr || f.decode == nullptr || f.counter_data_size == nullptr ||
            f.counter_data_init == nullptr) {
            core::warn("libencore-cuda: %s has no range profiler (CUDA 12.6 or later's CUPTI is needed): CUDA devices "
                       "have no hardware counters",
                       l->path.c_str());
            delete l;
            return nullptr;
        }
        g_lib = l;  // from here on, calls are logged
        auto p = ENCORE_PARAMS(CUpti_Profiler_Initialize_Params);
        if (const CUptiResult r = call("cuptiProfilerInitialize", f.initialize, p); r != CUPTI_SUCCESS) {
            core::warn("libencore-cuda: CUPTI (%s) cannot profile: cuptiProfilerInitialize returned %d %s%s: CUDA "
                       "devices have no hardware counters",
                       l->path.c_str(), static_cast<int>(r), text_of(r),
                       r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                           ? " (the driver restricts profiling to administrators: NVreg_RestrictProfilingToAdminUsers=0, "
                             "or run as root)"
                           : "");
            return nullptr;  // g_lib stays: its result strings are still needed by nobody, but it is harmless
        }
        return l;
    }();
    return lib;
}

// ---- metric sets --------------------------------------------------------------------------------
/// One metric set: its host object and config image when it fits one pass.
struct group {
    std::vector<const char*> names;  // the catalogue's strings
    std::size_t passes = 0;          // 0: CUPTI refused the set
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<std::uint8_t> image;
};

void drop_host(CUpti_Profiler_Host_Object*& host) noexcept {
    if (host == nullptr) return;
    auto p = ENCORE_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = host;
    (void)call("cuptiProfilerHostDeinitialize", g_lib->f.host_deinitialize, p);
    host = nullptr;
}

CUpti_Profiler_Host_Object* new_host(const std::string& chip) noexcept {
    auto p = ENCORE_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    return call("cuptiProfilerHostInitialize", g_lib->f.host_initialize, p) == CUPTI_SUCCESS ? p.pHostObject : nullptr;
}

/// Builds g's host object and config image and counts its passes (g.passes 0 on failure).
void make_group(group& g, const std::string& chip) noexcept {
    const profiler_functions& f = g_lib->f;
    g.host = new_host(chip);
    if (g.host == nullptr) return;
    auto add = ENCORE_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    add.pHostObject = g.host;
    add.ppMetricNames = g.names.data();
    add.numMetrics = g.names.size();
    auto size = ENCORE_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    size.pHostObject = g.host;
    if (call("cuptiProfilerHostConfigAddMetrics", f.config_add, add) != CUPTI_SUCCESS ||
        call("cuptiProfilerHostGetConfigImageSize", f.config_image_size, size) != CUPTI_SUCCESS ||
        size.configImageSize == 0)
        return drop_host(g.host);
    try {
        g.image.resize(size.configImageSize);
    } catch (...) {
        return drop_host(g.host);
    }
    auto img = ENCORE_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    img.pHostObject = g.host;
    img.configImageSize = g.image.size();
    img.pConfigImage = g.image.data();
    auto passes = ENCORE_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
    passes.configImageSize = g.image.size();
    passes.pConfigImage = g.image.data();
    if (call("cuptiProfilerHostGetConfigImage", f.config_image, img) != CUPTI_SUCCESS ||
        call("cuptiProfilerHostGetNumOfPasses", f.passes, passes) != CUPTI_SUCCESS)
        return drop_host(g.host);
    g.passes = passes.numOfPasses;
    if (g.passes != 1) {
        drop_host(g.host);  // never run: only the count is kept
        g.image.clear();
        g.image.shrink_to_fit();
    }
}

// ---- a chip's catalogue -------------------------------------------------------------------------
class chip_catalogue final : public core::counting::catalogue {
public:
    static constexpr std::size_t extra = 4096;  // names added by find()

    explicit chip_catalogue(std::string chip) : chip_(std::move(chip)) {}

    /// Lists the chip's metrics; false (nothing listed) when CUPTI cannot.
    bool list() noexcept {
        CUpti_Profiler_Host_Object* host = new_host(chip_);
        if (host == nullptr) return false;
        std::vector<std::string> names;
        try {
            const struct {
                CUpti_MetricType type;
                std::vector<const char*> suffixes;
            } kinds[] = {{CUPTI_METRIC_TYPE_COUNTER, {".sum", ".avg", ".min", ".max"}},
                         {CUPTI_METRIC_TYPE_RATIO, {".ratio", ".pct"}},
                         {CUPTI_METRIC_TYPE_THROUGHPUT, {".avg.pct_of_peak_sustained_elapsed"}}};
            for (const auto& k : kinds) {
                auto p = ENCORE_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
                p.pHostObject = host;
                p.metricType = k.type;
                if (call("cuptiProfilerHostGetBaseMetrics", g_lib->f.base_metrics, p) != CUPTI_SUCCESS) continue;
                for (std::size_t i = 0; i < p.numMetrics; ++i)
                    if (p.ppMetricNames != nullptr && p.ppMetricNames[i] != nullptr)
                        for (const char* s : k.suffixes) names.push_back(std::string(p.ppMetricNames[i]) + s);
            }
            entries_ = std::make_unique<entry[]>(names.size() + extra);
            capacity_ = names.size() + extra;
            for (std::size_t i = 0; i < names.size(); ++i) {
                entries_[i].name = std::move(names[i]);
                by_name_.emplace(entries_[i].name, i);
            }
        } catch (...) {
            drop_host(host);
            return false;
        }
        host_ = host;
        size_.store(names.size(), std::memory_order_release);  // pairs with size()
        return !names.empty();
    }

    const std::string& chip() const noexcept { return chip_; }
    std::size_t size() const noexcept override { return size_.load(std::memory_order_acquire); }
    std::size_t capacity() const noexcept override { return capacity_; }

    core::counting::counter_desc describe(std::size_t index) const noexcept override {
        std::lock_guard lk(m_);
        entry& e = entries_[index];
        if (!e.described) {
            e.described = true;
            // The base name (before the first '.') carries the properties; the unit of the
            // hardware ("sm", "dram", "gpu") is the block.
            auto p = ENCORE_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
            p.pHostObject = host_;
            p.pMetricName = e.name.c_str();
            try {
                if (host_ != nullptr &&
                    call("cuptiProfilerHostGetMetricProperties", g_lib->f.metric_properties, p) == CUPTI_SUCCESS) {
                    e.description = p.pDescription != nullptr ? p.pDescription : "";
                    e.block = p.pHwUnit != nullptr ? p.pHwUnit : "";
                }
                if (e.block.empty()) e.block = e.name.substr(0, e.name.find("__"));
            } catch (...) {
            }
        }
        return {e.name.c_str(), e.description.c_str(), e.block.c_str()};
    }

    std::size_t passes(const std::uint32_t* index, std::size_t n) noexcept override {
        const std::shared_ptr<group> g = group_of(index, n);
        return g ? g->passes : 0;
    }

    std::int64_t find(const char* name) noexcept override {
        if (name == nullptr || *name == '\0') return -1;
        std::lock_guard lk(grow_);
        try {
            {
                std::lock_guard l2(m_);
                if (auto it = by_name_.find(name); it != by_name_.end()) return static_cast<std::int64_t>(it->second);
            }
            const std::size_t n = size_.load(std::memory_order_relaxed);
            if (n == capacity_) return -1;
            // Valid when CUPTI makes a config of it alone (any pass count: a metric needing more
            // than one pass is a valid name that no one-pass config can hold).
            entry& e = entries_[n];
            e.name = name;
            group probe;
            probe.names = {e.name.c_str()};
            make_group(probe, chip_);
            const bool valid = probe.passes != 0;
            drop_host(probe.host);
            if (!valid) {
                e.name.clear();
                return -1;
            }
            {
                std::lock_guard l2(m_);
                by_name_.emplace(e.name, n);
            }
            size_.store(n + 1, std::memory_order_release);  // pairs with size()
            return static_cast<std::int64_t>(n);
        } catch (...) {
            return -1;
        }
    }

    /// The metric set of these indices (made once, kept), or null when out of memory.
    std::shared_ptr<group> group_of(const std::uint32_t* index, std::size_t n) noexcept {
        try {
            std::string key;
            for (std::size_t i = 0; i < n; ++i) key += std::to_string(index[i]) + ',';
            std::lock_guard lk(groups_m_);
            auto& g = groups_[key];
            if (!g) {
                auto made = std::make_shared<group>();
                for (std::size_t i = 0; i < n; ++i) made->names.push_back(entries_[index[i]].name.c_str());
                make_group(*made, chip_);
                g = std::move(made);
            }
            return g;
        } catch (...) {
            return nullptr;
        }
    }

    const char* name_of(std::uint32_t index) const noexcept { return entries_[index].name.c_str(); }

private:
    struct entry {
        std::string name, description, block;
        bool described = false;
    };
    std::string chip_;
    std::unique_ptr<entry[]> entries_;
    std::size_t capacity_ = 0;
    std::atomic<std::size_t> size_{0};
    mutable std::mutex m_;  // entries' descriptions, by_name_
    std::mutex grow_;       // find()'s appends, one at a time
    std::unordered_map<std::string, std::size_t> by_name_;
    CUpti_Profiler_Host_Object* host_ = nullptr;  // listing and properties
    std::mutex groups_m_;
    std::map<std::string, std::shared_ptr<group>> groups_;
};

// ---- sources --------------------------------------------------------------------------------------
std::map<std::uint64_t, chip_catalogue*>* g_device_catalogue = nullptr;  // device -> its chip's; never freed

/// Every device becomes a counter source (once per process, at the first counted launch).
void register_devices() noexcept {
    static std::once_flag once;
    std::call_once(once, [] {
        if (load() == nullptr) return;
        static auto* by_chip = new std::map<std::string, chip_catalogue*>;  // never freed: ids stay valid
        g_device_catalogue = new std::map<std::uint64_t, chip_catalogue*>;
        auto count_fn = real_fn<CUresult (*)(int*)>("cuDeviceGetCount");
        int n = 0;
        if (count_fn == nullptr || count_fn(&n) != CUDA_SUCCESS) n = 0;
        for (int d = 0; d < n; ++d) {
            if (g_lib->f.device_supported != nullptr) {
                auto s = ENCORE_PARAMS(CUpti_Profiler_DeviceSupported_Params);
                s.cuDevice = d;
                s.api = CUPTI_PROFILER_RANGE_PROFILING;
                if (call("cuptiProfilerDeviceSupported", g_lib->f.device_supported, s) == CUPTI_SUCCESS &&
                    s.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
                    core::warn("libencore-cuda: CUPTI cannot profile device %d (support levels, 1 unsupported 2 "
                               "disabled 3 supported: architecture %d, SLI %d, vGPU %d, confidential computing %d, "
                               "CMP %d, WSL %d): it has no hardware counters",
                               d, s.architecture, s.sli, s.vGpu, s.confidentialCompute, s.cmp, s.wsl);
                    continue;
                }
            }
            auto c = ENCORE_PARAMS(CUpti_Device_GetChipName_Params);
            c.deviceIndex = static_cast<std::size_t>(d);
            if (call("cuptiDeviceGetChipName", g_lib->f.chip_name, c) != CUPTI_SUCCESS || c.pChipName == nullptr) {
                core::warn("libencore-cuda: CUPTI cannot name device %d's chip: it has no hardware counters", d);
                continue;
            }
            try {
                chip_catalogue*& cat = (*by_chip)[c.pChipName];
                if (cat == nullptr) {
                    auto* made = new chip_catalogue(c.pChipName);
                    if (!made->list()) {
                        core::warn("libencore-cuda: CUPTI lists no metrics for chip %s: device %d has no hardware "
                                   "counters",
                                   c.pChipName, d);
                        by_chip->erase(c.pChipName);
                        continue;  // `made` is kept: CUPTI may hold its host object
                    }
                    cat = made;
                }
                if (core::counting::register_source(static_cast<std::uint64_t>(d), *cat))
                    (*g_device_catalogue)[static_cast<std::uint64_t>(d)] = cat;
            } catch (...) {
            }
        }
    });
}

chip_catalogue* catalogue_of(std::uint64_t device) noexcept {
    if (g_device_catalogue == nullptr) return nullptr;
    const auto it = g_device_catalogue->find(device);
    return it != g_device_catalogue->end() ? it->second : nullptr;
}

// ---- counting one launch --------------------------------------------------------------------------
std::mutex g_counting;  // one counted launch at a time, process-wide
std::map<CUcontext, CUpti_RangeProfiler_Object*>* g_objects = new std::map<CUcontext, CUpti_RangeProfiler_Object*>;

CUpti_RangeProfiler_Object* profiler_of(CUcontext ctx) noexcept {
    try {
        auto& obj = (*g_objects)[ctx];
        if (obj == nullptr) {
            auto p = ENCORE_PARAMS(CUpti_RangeProfiler_Enable_Params);
            p.ctx = ctx;
            const CUptiResult r = call("cuptiRangeProfilerEnable", g_lib->f.enable, p);
            if (r != CUPTI_SUCCESS) {
                static core::warn_once failed;
                failed("libencore-cuda: cuptiRangeProfilerEnable returned %d %s%s: launches are not counted", r,
                       text_of(r),
                       r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                           ? " (profiling is restricted to administrators: NVreg_RestrictProfilingToAdminUsers=0)"
                           : "");
                g_objects->erase(ctx);
                return nullptr;
            }
            obj = p.pRangeProfilerObject;
        }
        return obj;
    } catch (...) {
        return nullptr;
    }
}

void failed_step(const char* step, CUptiResult r) noexcept {
    static core::warn_once once;
    once("libencore-cuda: counting a launch failed: %s returned %d %s (set ENCORE_CUPTI_PROFILER_DEBUG=1 for every "
         "call); such launches get no counter values",
         step, static_cast<int>(r), text_of(r));
}

/// Runs `run` (the launch, waited for) inside one range of `g`'s config on ctx's profiler and
/// evaluates the range into `out` (g.names' order). false: no values (warned once).
template <class Run>
bool collect(CUcontext ctx, const group& g, std::vector<double>& out, Run&& run) noexcept {
    const profiler_functions& f = g_lib->f;
    CUpti_RangeProfiler_Object* obj = profiler_of(ctx);
    if (obj == nullptr) {
        run();
        return false;
    }
    std::vector<std::uint8_t> data;
    auto size = ENCORE_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    size.pRangeProfilerObject = obj;
    size.pMetricNames = const_cast<const char**>(g.names.data());
    size.numMetrics = g.names.size();
    size.maxNumOfRanges = 1;
    size.maxNumRangeTreeNodes = 1;
    CUptiResult r = call("cuptiRangeProfilerGetCounterDataSize", f.counter_data_size, size);
    if (r != CUPTI_SUCCESS) {
        run();
        failed_step("cuptiRangeProfilerGetCounterDataSize", r);
        return false;
    }
    try {
        data.resize(size.counterDataSize);
    } catch (...) {
        run();
        return false;
    }
    auto init = ENCORE_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    init.pRangeProfilerObject = obj;
    init.counterDataSize = data.size();
    init.pCounterData = data.data();
    auto set = ENCORE_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
    set.pRangeProfilerObject = obj;
    set.configSize = g.image.size();
    set.pConfig = g.image.data();
    set.counterDataImageSize = data.size();
    set.pCounterDataImage = data.data();
    set.range = CUPTI_UserRange;
    set.replayMode = CUPTI_UserReplay;
    set.maxRangesPerPass = 1;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    const char* step = "cuptiRangeProfilerCounterDataImageInitialize";
    r = call(step, f.counter_data_init, init);
    if (r == CUPTI_SUCCESS) r = call(step = "cuptiRangeProfilerSetConfig", f.set_config, set);
    if (r != CUPTI_SUCCESS) {
        run();
        failed_step(step, r);
        return false;
    }
    auto start = ENCORE_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = obj;
    if ((r = call("cuptiRangeProfilerStart", f.start, start)) != CUPTI_SUCCESS) {
        run();
        failed_step("cuptiRangeProfilerStart", r);
        return false;
    }
    auto push = ENCORE_PARAMS(CUpti_RangeProfiler_PushRange_Params);
    push.pRangeProfilerObject = obj;
    push.pRangeName = "encore";
    const CUptiResult pushed = call("cuptiRangeProfilerPushRange", f.push_range, push);
    const bool ran = run();
    auto pop = ENCORE_PARAMS(CUpti_RangeProfiler_PopRange_Params);
    pop.pRangeProfilerObject = obj;
    const CUptiResult popped = pushed == CUPTI_SUCCESS ? call("cuptiRangeProfilerPopRange", f.pop_range, pop) : pushed;
    auto stop = ENCORE_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = obj;
    const CUptiResult stopped = call("cuptiRangeProfilerStop", f.stop, stop);  // always: the profiler must not stay started
    if (pushed != CUPTI_SUCCESS || popped != CUPTI_SUCCESS || stopped != CUPTI_SUCCESS) {
        failed_step(pushed != CUPTI_SUCCESS   ? "cuptiRangeProfilerPushRange"
                    : popped != CUPTI_SUCCESS ? "cuptiRangeProfilerPopRange"
                                              : "cuptiRangeProfilerStop",
                    pushed != CUPTI_SUCCESS   ? pushed
                    : popped != CUPTI_SUCCESS ? popped
                                              : stopped);
        return false;
    }
    if (!ran) return false;
    if (stop.isAllPassSubmitted == 0) {
        static core::warn_once more;
        more("libencore-cuda: CUPTI wanted more than one pass for a one-pass config (cuptiRangeProfilerStop): that "
             "launch gets no counter values");
        return false;
    }
    auto decode = ENCORE_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    decode.pRangeProfilerObject = obj;
    if ((r = call("cuptiRangeProfilerDecodeData", f.decode, decode)) != CUPTI_SUCCESS) {
        failed_step("cuptiRangeProfilerDecodeData", r);
        return false;
    }
    if (decode.numOfRangeDropped != 0) {
        failed_step("cuptiRangeProfilerDecodeData (a range was dropped)", CUPTI_ERROR_UNKNOWN);
        return false;
    }
    try {
        out.assign(g.names.size(), 0.0);
    } catch (...) {
        return false;
    }
    auto eval = ENCORE_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    eval.pHostObject = g.host;
    eval.pCounterDataImage = data.data();
    eval.counterDataImageSize = data.size();
    eval.rangeIndex = 0;
    eval.ppMetricNames = const_cast<const char**>(g.names.data());
    eval.numMetrics = g.names.size();
    eval.pMetricValues = out.data();
    if ((r = call("cuptiProfilerHostEvaluateToGpuValues", f.evaluate, eval)) != CUPTI_SUCCESS) {
        failed_step("cuptiProfilerHostEvaluateToGpuValues", r);
        return false;
    }
    return true;
}

/// Counts one launch for session `s` (begun): runs `run` inside the range and hands the values to
/// the counting contexts (none, when collecting failed: never made-up numbers).
template <class Run>
void count(core::counting::session& s, const rocprofiler_kernel_dispatch_info_t& info, CUcontext ctx, Run&& run) noexcept {
    chip_catalogue* cat = catalogue_of(info.agent_id.handle);
    std::vector<std::uint32_t> want;
    try {
        want = core::counting::wanted(s, info);
    } catch (...) {
    }
    std::shared_ptr<group> g = cat != nullptr && !want.empty() ? cat->group_of(want.data(), want.size()) : nullptr;
    if (g && g->passes != 1) {
        static core::warn_once split;
        split("libencore-cuda: the counting contexts together asked for counters that need more than one pass: those "
              "launches get no counter values (give each context a one-pass config, or one context)");
        g.reset();
    }
    std::vector<double> values;
    const rocprofiler_timestamp_t t0 = core::now_ns();
    const bool ok = g && collect(ctx, *g, values, run);
    if (!g) run();
    const rocprofiler_timestamp_t t1 = core::now_ns();
    core::counting::values v;
    if (ok) v = {want.data(), values.data(), want.size()};
    core::counting::complete(s, info, t0, t1, v);
}

}  // namespace

bool configured() noexcept { return core::counting::configured(); }

void prepare() noexcept {
    if (core::counting::active()) register_devices();
}

bool launch(const launch_call& c, std::uint64_t dispatch_id, CUresult& r) noexcept {
    if (!core::counting::active()) return false;
    register_devices();
    const CUcontext ctx = current_context();
    if (ctx == nullptr || g_device_catalogue == nullptr) return false;
    const std::uint64_t id = dispatch_id != 0 ? dispatch_id : records::next_dispatch_id();
    const rocprofiler_kernel_dispatch_info_t info = records::dispatch_info(c, current_device(), id);
    core::counting::session s;
    if (!core::counting::begin(s, info, ~std::uint64_t{0})) {
        r = records::launch(c, id);
        return true;
    }
    std::lock_guard lk(g_counting);
    // Alone on the context: what ran before is done, and the range ends after the launch did.
    if (real().ctx_synchronize != nullptr) (void)real().ctx_synchronize();
    count(s, info, ctx, [&] {
        r = records::launch(c, id);
        return r == CUDA_SUCCESS && real().ctx_synchronize != nullptr && real().ctx_synchronize() == CUDA_SUCCESS;
    });
    return true;
}

CUresult launch_pass(const launch_call& c, std::uint64_t dispatch_id, std::uint64_t contexts, bool& completed,
                     std::uint64_t timeout_ns) noexcept {
    const CUcontext ctx = current_context();
    if (!core::counting::active() || ctx == nullptr)
        return records::launch_pass(c, dispatch_id, contexts, completed, timeout_ns);
    register_devices();
    const rocprofiler_kernel_dispatch_info_t info = records::dispatch_info(c, current_device(), dispatch_id);
    core::counting::session s;
    if (g_device_catalogue == nullptr || !core::counting::begin(s, info, contexts))
        return records::launch_pass(c, dispatch_id, contexts, completed, timeout_ns);
    // The replay holds the context exclusively and drained it: the pass is alone in the range.
    std::lock_guard lk(g_counting);
    CUresult r = CUDA_SUCCESS;
    count(s, info, ctx, [&] {
        r = records::launch_pass(c, dispatch_id, contexts, completed, timeout_ns);
        return r == CUDA_SUCCESS && completed;
    });
    return r;
}

}  // namespace encore::cuda::counters
