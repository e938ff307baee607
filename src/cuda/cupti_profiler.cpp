// src/cuda/cupti_profiler.cpp — CUPTI's profiler host API (cupti_profiler.hpp).
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
// config image: it is the config a counted launch runs with (over CUPTI's passes when the set
// needs several: a multi-pass config, counters.cpp) and the host object that evaluates its
// counter data.
#include "cupti_profiler.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace encore::cuda::cupti_profiler {
namespace {

std::atomic<library*> g_lib{nullptr};

template <class F>
void bind_one(void* h, F& f, const char* name) noexcept {
    void* p = ::dlsym(h, name);
    std::memcpy(&f, &p, sizeof(f));
}

void drop_host(CUpti_Profiler_Host_Object*& host) noexcept {
    if (host == nullptr) return;
    auto p = ENCORE_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = host;
    (void)call("cuptiProfilerHostDeinitialize", bound()->f.host_deinitialize, p);
    host = nullptr;
}

CUpti_Profiler_Host_Object* new_host(const std::string& chip) noexcept {
    auto p = ENCORE_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    return call("cuptiProfilerHostInitialize", bound()->f.host_initialize, p) == CUPTI_SUCCESS ? p.pHostObject : nullptr;
}

/// Builds g's host object and config image and counts its passes (g.passes 0 on failure).
void make_group(group& g, const std::string& chip) noexcept {
    const profiler_functions& f = bound()->f;
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
    // A set of several passes keeps its image and host object too: a multi-pass config counts it
    // with CUPTI's own schedule over that many replay passes (counters.cpp).
    g.passes = passes.numOfPasses;
}

}  // namespace

library* bind(void* h, const std::string& path) noexcept {
    if (library* l = g_lib.load(std::memory_order_acquire)) return l;
    auto* l = new (std::nothrow) library;
    if (l == nullptr) return nullptr;
    l->path = path;
    const char* dbg = std::getenv("ENCORE_CUPTI_PROFILER_DEBUG");
    l->debug = dbg != nullptr && *dbg != '\0' && std::strcmp(dbg, "0") != 0;
    profiler_functions& f = l->f;
    bind_one(h, l->result_string, "cuptiGetResultString");
    bind_one(h, f.initialize, "cuptiProfilerInitialize");
    bind_one(h, f.deinitialize, "cuptiProfilerDeInitialize");
    bind_one(h, f.chip_name, "cuptiDeviceGetChipName");
    bind_one(h, f.device_supported, "cuptiProfilerDeviceSupported");
    bind_one(h, f.host_initialize, "cuptiProfilerHostInitialize");
    bind_one(h, f.host_deinitialize, "cuptiProfilerHostDeinitialize");
    bind_one(h, f.base_metrics, "cuptiProfilerHostGetBaseMetrics");
    bind_one(h, f.sub_metrics, "cuptiProfilerHostGetSubMetrics");
    bind_one(h, f.metric_properties, "cuptiProfilerHostGetMetricProperties");
    bind_one(h, f.evaluate, "cuptiProfilerHostEvaluateToGpuValues");
    bind_one(h, f.config_add, "cuptiProfilerHostConfigAddMetrics");
    bind_one(h, f.config_image_size, "cuptiProfilerHostGetConfigImageSize");
    bind_one(h, f.config_image, "cuptiProfilerHostGetConfigImage");
    bind_one(h, f.passes, "cuptiProfilerHostGetNumOfPasses");
    bind_one(h, f.enable, "cuptiRangeProfilerEnable");
    bind_one(h, f.disable, "cuptiRangeProfilerDisable");
    bind_one(h, f.set_config, "cuptiRangeProfilerSetConfig");
    bind_one(h, f.start, "cuptiRangeProfilerStart");
    bind_one(h, f.stop, "cuptiRangeProfilerStop");
    bind_one(h, f.push_range, "cuptiRangeProfilerPushRange");
    bind_one(h, f.pop_range, "cuptiRangeProfilerPopRange");
    bind_one(h, f.decode, "cuptiRangeProfilerDecodeData");
    bind_one(h, f.counter_data_size, "cuptiRangeProfilerGetCounterDataSize");
    bind_one(h, f.counter_data_init, "cuptiRangeProfilerCounterDataImageInitialize");
    bind_one(h, f.counter_data_info, "cuptiRangeProfilerGetCounterDataInfo");
    if (f.initialize == nullptr || f.chip_name == nullptr || f.host_initialize == nullptr ||
        f.host_deinitialize == nullptr || f.base_metrics == nullptr || f.config_add == nullptr ||
        f.config_image == nullptr || f.config_image_size == nullptr || f.passes == nullptr || f.evaluate == nullptr ||
        f.enable == nullptr || f.set_config == nullptr || f.start == nullptr || f.stop == nullptr ||
        f.push_range == nullptr || f.pop_range == nullptr || f.decode == nullptr || f.counter_data_size == nullptr ||
        f.counter_data_init == nullptr) {
        delete l;
        return nullptr;
    }
    g_lib.store(l, std::memory_order_release);
    return l;
}

library* bound() noexcept { return g_lib.load(std::memory_order_acquire); }

const char* text_of(CUptiResult r) noexcept {
    const library* l = bound();
    const char* t = nullptr;
    if (l == nullptr || l->result_string == nullptr || l->result_string(r, &t) != CUPTI_SUCCESS) return "";
    return t != nullptr ? t : "";
}

bool chip_catalogue::list() noexcept {
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
            if (call("cuptiProfilerHostGetBaseMetrics", bound()->f.base_metrics, p) != CUPTI_SUCCESS) continue;
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


core::counting::counter_desc chip_catalogue::describe(std::size_t index) const noexcept {
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
                call("cuptiProfilerHostGetMetricProperties", bound()->f.metric_properties, p) == CUPTI_SUCCESS) {
                e.description = p.pDescription != nullptr ? p.pDescription : "";
                e.block = p.pHwUnit != nullptr ? p.pHwUnit : "";
            }
            if (e.block.empty()) e.block = e.name.substr(0, e.name.find("__"));
        } catch (...) {
        }
    }
    return {e.name.c_str(), e.description.c_str(), e.block.c_str()};
}

std::size_t chip_catalogue::passes(const std::uint32_t* index, std::size_t n) noexcept {
    const std::shared_ptr<group> g = group_of(index, n);
    return g ? g->passes : 0;
}

std::int64_t chip_catalogue::find(const char* name) noexcept {
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

std::shared_ptr<group> chip_catalogue::group_of(const std::uint32_t* index, std::size_t n) noexcept {
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

}  // namespace encore::cuda::cupti_profiler
