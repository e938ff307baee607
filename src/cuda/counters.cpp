// src/cuda/counters.cpp — NVIDIA GPUs' hardware counters through CUPTI's profiling API (see
// counters.hpp, docs/counters.md "NVIDIA GPUs").
//
// The catalogue of each device's chip and the metric sets' config images: cupti_profiler.cpp.
//
// Counting one launch: on its context's range profiler object (cuptiRangeProfilerEnable, once per
// context), a counter data image for one range, SetConfig with the auto range (one range per
// kernel) and user replay (encore's replay passes are CUPTI's passes), Start, the launch, its
// completion, Stop, DecodeData, and EvaluateToGpuValues. A multi-pass config (several CUPTI
// passes: encore_create_multipass_counter_config) runs Start/launch/Stop once per replay pass of
// the dispatch on one SetConfig, and decodes after the last: on an H200 its later passes' Start
// cost ~1.7 ms where a new profiler object per metric set (the one-pass groups' way) cost
// ~180 ms (docs/counters.md, benchmarks/cuda/cupti_costs.cu). The profiler
// counts everything the context's streams run inside the range, so a counted launch runs alone:
// the context is drained before it (a replay has drained it already) and waited for after it,
// and counted launches of all contexts take one lock (counting serializes, as Nsight Compute's).
//
// ENCORE_CUPTI_PROFILER_DEBUG=1 prints every CUPTI profiling call and its result on stderr.
#include "counters.hpp"

#include "cupti.hpp"
#include "cupti_profiler.hpp"
#include "real.hpp"
#include "records.hpp"
#include "snapshot.hpp"

#include "core/clock.hpp"
#include "core/counting.hpp"
#include "core/warn.hpp"

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
using cupti_profiler::call;
using cupti_profiler::chip_catalogue;
using cupti_profiler::group;
using cupti_profiler::library;
using cupti_profiler::text_of;

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
        std::string path;
        void* h = cupti::open_library(path);
        if (h == nullptr) {
            core::warn("libencore-cuda: CUPTI (libcupti.so) was not found (set ENCORE_CUPTI_LIBRARY or CUDA_HOME): "
                       "CUDA devices have no hardware counters");
            return nullptr;
        }
        library* l = cupti_profiler::bind(h, path);
        if (l == nullptr) {
            core::warn("libencore-cuda: %s has no range profiler (CUDA 12.6 or later's CUPTI is needed): CUDA devices "
                       "have no hardware counters",
                       path.c_str());
            return nullptr;
        }
        if (l->debug) std::fprintf(stderr, "[encore] cupti-profiler: using %s\n", path.c_str());
        const profiler_functions& f = l->f;
        auto p = ENCORE_PARAMS(CUpti_Profiler_Initialize_Params);
        if (const CUptiResult r = call("cuptiProfilerInitialize", f.initialize, p); r != CUPTI_SUCCESS) {
            core::warn("libencore-cuda: CUPTI (%s) cannot profile: cuptiProfilerInitialize returned %d %s%s: CUDA "
                       "devices have no hardware counters",
                       l->path.c_str(), static_cast<int>(r), text_of(r),
                       r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                           ? " (the driver restricts profiling to administrators: NVreg_RestrictProfilingToAdminUsers=0, "
                             "or run as root)"
                           : "");
            return nullptr;
        }
        return l;
    }();
    return lib;
}

// Set while this thread counts a launch or sets CUPTI up: a launch CUPTI itself makes meanwhile
// (through encore's libcuda.so.1) runs plainly instead of waiting for what this thread holds.
thread_local bool t_counting = false;
struct counting_scope {
    counting_scope() noexcept { t_counting = true; }
    ~counting_scope() { t_counting = false; }
    counting_scope(const counting_scope&) = delete;
    counting_scope& operator=(const counting_scope&) = delete;
};

// ---- sources --------------------------------------------------------------------------------------
std::map<std::uint64_t, chip_catalogue*>* g_device_catalogue = nullptr;  // device -> its chip's; never freed

/// Every device becomes a counter source (once per process, at the first counted launch).
void register_devices() noexcept {
    static std::once_flag once;
    if (t_counting) return;
    std::call_once(once, [] {
        counting_scope scope;
        if (load() == nullptr) return;
        static auto* by_chip = new std::map<std::string, chip_catalogue*>;  // never freed: ids stay valid
        g_device_catalogue = new std::map<std::uint64_t, chip_catalogue*>;
        auto count_fn = real_fn<CUresult (*)(int*)>("cuDeviceGetCount");
        int n = 0;
        if (count_fn == nullptr || count_fn(&n) != CUDA_SUCCESS) n = 0;
        for (int d = 0; d < n; ++d) {
            if (cupti_profiler::bound()->f.device_supported != nullptr) {
                auto s = ENCORE_PARAMS(CUpti_Profiler_DeviceSupported_Params);
                s.cuDevice = d;
                s.api = CUPTI_PROFILER_RANGE_PROFILING;
                if (call("cuptiProfilerDeviceSupported", cupti_profiler::bound()->f.device_supported, s) == CUPTI_SUCCESS &&
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
            if (call("cuptiDeviceGetChipName", cupti_profiler::bound()->f.chip_name, c) != CUPTI_SUCCESS ||
                c.pChipName == nullptr) {
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
std::vector<CUpti_RangeProfiler_Object*>* g_retired = new std::vector<CUpti_RangeProfiler_Object*>;  // forget()'s
// Counter data images by profiler object and metric set, kept (re-initialized at each use):
// CUPTI's size query costs 2.5-3 ms a call on an H200 host, once per counted pass otherwise.
// Groups live as long as their catalogue (forever), so their addresses are stable keys.
auto* g_images = new std::map<std::pair<CUpti_RangeProfiler_Object*, const group*>, std::vector<std::uint8_t>>;


CUpti_RangeProfiler_Object* profiler_of(CUcontext ctx) noexcept {
    try {
        auto& obj = (*g_objects)[ctx];
        if (obj == nullptr) {
            auto p = ENCORE_PARAMS(CUpti_RangeProfiler_Enable_Params);
            p.ctx = ctx;
            const CUptiResult r = call("cuptiRangeProfilerEnable", cupti_profiler::bound()->f.enable, p);
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

// Per profiler object: the metric set it was last configured with, and a multi-pass set under way.
//
// The set: on an H200 (CUDA 13's CUPTI) an
// object that had run one config evaluated every metric of any other config as NaN, and of its
// first one too once it went back to it (benchmarks/cuda/metrics_vs_ncu.sh, two groups): so an
// object is disabled and a new one enabled when the set changes (ENCORE_CUPTI_PROFILER_SWITCH=keep:
// reconfigured in place, for comparison). A second object on one context is refused by CUPTI
// (its Start returned INVALID_PARAMETER on the H200), so the sets cannot each keep their own.
//
// The passes: CUPTI's user replay counts pass k of a multi-pass config at the k-th Start/Stop
// after SetConfig, so the passes of one dispatch run back to back (the replay's passes) and only
// the last one's Stop says all were submitted. `done`: the passes of `set` run so far for
// `dispatch` (0: none under way).
struct object_state {
    const group* set = nullptr;
    std::uint64_t dispatch = 0;
    std::size_t done = 0;
    bool broken = false;  // a Start or Stop failed (warned): CUPTI's pass state is unknown
};
auto* g_state = new std::map<CUpti_RangeProfiler_Object*, object_state>;

bool reenable_on_switch() noexcept {
    static const bool on = [] {
        const char* v = std::getenv("ENCORE_CUPTI_PROFILER_SWITCH");
        return v == nullptr || std::strcmp(v, "keep") != 0;
    }();
    return on;
}

/// ctx's profiler object, ready for metric set `g` (g_counting held): a new object when the one
/// there last ran another set, or left a multi-pass set unfinished (`abandon`: CUPTI's pass
/// index is then mid-way, and a SetConfig there is not something encore has seen work). Null when
/// none can be had (warned once).
CUpti_RangeProfiler_Object* profiler_for(CUcontext ctx, const group& g, bool abandon = false) noexcept {
    CUpti_RangeProfiler_Object* obj = profiler_of(ctx);
    if (obj == nullptr) return nullptr;
    try {
        object_state& st = (*g_state)[obj];
        if (!abandon && (st.set == nullptr || st.set == &g || !reenable_on_switch())) {
            if (st.set != &g) st = {};  // nothing is under way: an unfinished set was abandoned
            st.set = &g;
            return obj;
        }
        g_state->erase(obj);
        for (auto im = g_images->begin(); im != g_images->end();)
            im = im->first.first == obj ? g_images->erase(im) : std::next(im);
        g_objects->erase(ctx);
        auto d = ENCORE_PARAMS(CUpti_RangeProfiler_Disable_Params);
        d.pRangeProfilerObject = obj;
        if (const CUptiResult r = call("cuptiRangeProfilerDisable", cupti_profiler::bound()->f.disable, d);
            r != CUPTI_SUCCESS) {
            static core::warn_once failed;
            failed("libencore-cuda: cuptiRangeProfilerDisable returned %d %s: the next metric set is configured on "
                   "the same profiler object (its values may be missing)",
                   static_cast<int>(r), text_of(r));
            (*g_objects)[ctx] = obj;
            (*g_state)[obj].set = &g;
            return obj;
        }
        obj = profiler_of(ctx);
        if (obj != nullptr) (*g_state)[obj].set = &g;
        return obj;
    } catch (...) {
        return obj;
    }
}

void failed_step(const char* step, CUptiResult r) noexcept {
    static core::warn_once once;
    once("libencore-cuda: counting a launch failed: %s returned %d %s (set ENCORE_CUPTI_PROFILER_DEBUG=1 for every "
         "call); such launches get no counter values",
         step, static_cast<int>(r), text_of(r));
}

void abandoned(const group& g, std::size_t done) noexcept {
    static core::warn_once once;
    once("libencore-cuda: a dispatch counted with a multi-pass config ran %zu of the %zu passes its counters need "
         "(counted outside replay, or its replay stopped early): it gets no counter values",
         done, g.passes);
}

/// Runs `run` (the launch, waited for) inside one range of `g`'s config on ctx's profiler and
/// evaluates the range into `out` (g.names' order). false: no values (warned once), or, for a set
/// of several passes (`g.passes` > 1, CUPTI's multi-pass user replay), none yet: this was pass k
/// of dispatch `dispatch`, and the values come with its last pass.
template <class Run>
bool collect(CUcontext ctx, const group& g, std::uint64_t dispatch, std::vector<double>& out, Run&& run) noexcept {
    const profiler_functions& f = cupti_profiler::bound()->f;
    // Pass k > 0 of this dispatch's multi-pass set goes on where pass k-1 left CUPTI; anything
    // else first ends (abandons) a set left unfinished on the object.
    bool next_pass = false, abandon = false;
    if (const auto it = g_objects->find(ctx); it != g_objects->end()) {
        const auto st = g_state->find(it->second);
        if (st != g_state->end() && (st->second.done != 0 || st->second.broken)) {
            next_pass = !st->second.broken && st->second.set == &g && st->second.dispatch == dispatch;
            if (!next_pass) {
                if (!st->second.broken) abandoned(*st->second.set, st->second.done);
                abandon = true;
            }
        }
    }
    CUpti_RangeProfiler_Object* obj = profiler_for(ctx, g, abandon);
    if (obj == nullptr) {
        run();
        return false;
    }
    std::vector<std::uint8_t>* image = nullptr;
    object_state* state = nullptr;
    try {
        image = &(*g_images)[{obj, &g}];
        state = &(*g_state)[obj];  // profiler_for made it
    } catch (...) {
        run();
        return false;
    }
    object_state& pr = *state;
    std::vector<std::uint8_t>& data = *image;
    CUptiResult r = CUPTI_SUCCESS;
    if (data.empty()) {
        auto size = ENCORE_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
        size.pRangeProfilerObject = obj;
        size.pMetricNames = const_cast<const char**>(g.names.data());
        size.numMetrics = g.names.size();
        size.maxNumOfRanges = 1;
        size.maxNumRangeTreeNodes = 1;
        r = call("cuptiRangeProfilerGetCounterDataSize", f.counter_data_size, size);
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
    // One range per kernel, from its start to its end (AutoRange), as Nsight Compute's kernel
    // replay measures: a user range around the launch call would also span the launch's host
    // side (gpu__time_duration 2-5x the kernel's on an H200).
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_UserReplay;
    set.maxRangesPerPass = 1;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    // What ran before (the L2 flush of --cache-control all, a restore) is done before the range
    // opens: only the launch is in it.
    if (real().ctx_synchronize != nullptr) (void)real().ctx_synchronize();
    if (!next_pass) {  // a multi-pass set's later passes keep the image and config of its first
        const char* step = "cuptiRangeProfilerCounterDataImageInitialize";
        r = call(step, f.counter_data_init, init);
        if (r == CUPTI_SUCCESS) r = call(step = "cuptiRangeProfilerSetConfig", f.set_config, set);
        if (r != CUPTI_SUCCESS) {
            run();
            failed_step(step, r);
            return false;
        }
    }
    auto start = ENCORE_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = obj;
    if ((r = call("cuptiRangeProfilerStart", f.start, start)) != CUPTI_SUCCESS) {
        run();
        failed_step("cuptiRangeProfilerStart", r);
        pr.broken = true;  // the next count begins on a new object
        return false;
    }
    const bool ran = run();
    auto stop = ENCORE_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = obj;
    // Always: the profiler must not stay started.
    if ((r = call("cuptiRangeProfilerStop", f.stop, stop)) != CUPTI_SUCCESS) {
        failed_step("cuptiRangeProfilerStop", r);
        pr.broken = true;
        return false;
    }
    if (stop.isAllPassSubmitted == 0) {
        if (g.passes > 1 && pr.done + 1 < g.passes) {  // pass k of several: the values come with the last
            pr.dispatch = dispatch;
            ++pr.done;
            return false;
        }
        static core::warn_once more;
        more("libencore-cuda: CUPTI wanted more passes than its pass count said (cuptiRangeProfilerStop): that "
             "launch gets no counter values");
        pr.broken = true;
        return false;
    }
    pr.done = 0;
    if (!ran) return false;
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
    if (cupti_profiler::bound()->debug)
        for (std::size_t i = 0; i < g.names.size(); ++i)
            std::fprintf(stderr, "[encore] cupti-profiler: value %s = %.17g\n", g.names[i], out[i]);
    return true;
}

// ---- cache control for a launch counted outside replay ---------------------------------------------
// ENCORE_CUDA_REPLAY_CACHE_CONTROL=all (encore-replay --cache-control all): a launch counted
// outside replay (one group of metrics: the dispatch runs once) starts with the L2 flushed as
// replay's passes do (snapshot::flush_l2), so that its counters (dram bytes) are of a cold cache too.
void flush_l2(CUcontext ctx, CUstream s) noexcept {
    static const bool on = snapshot::flush_l2_setting();
    if (on) (void)snapshot::flush_l2(ctx, s);  // warned once when it cannot
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
    if (g && (g->passes == 0 || (g->passes > 1 && core::counting::passes_of(s) <= 1))) {
        static core::warn_once split;
        split("libencore-cuda: the counting contexts together asked for counters that need more than one pass: those "
              "launches get no counter values (give each context a one-pass config, or one context, or multi-pass "
              "configs: encore_create_multipass_counter_config)");
        g.reset();
    }
    std::vector<double> values;
    const rocprofiler_timestamp_t t0 = core::now_ns();
    const bool ok = g && collect(ctx, *g, info.dispatch_id, values, run);
    if (!g) run();
    const rocprofiler_timestamp_t t1 = core::now_ns();
    core::counting::values v;
    if (ok) v = {want.data(), values.data(), want.size()};
    core::counting::complete(s, info, t0, t1, v);
}

}  // namespace

bool configured() noexcept { return core::counting::configured(); }

void forget(CUcontext c) noexcept {
    std::lock_guard lk(g_counting);
    const auto it = g_objects->find(c);
    if (it == g_objects->end()) return;
    g_state->erase(it->second);
    for (auto im = g_images->begin(); im != g_images->end();)
        im = im->first.first == it->second ? g_images->erase(im) : std::next(im);
    // Not disabled: its context is gone, and CUPTI's Disable wants a live one. Kept (never used
    // again) rather than dropped, as CUPTI owns it.
    try {
        g_retired->push_back(it->second);
    } catch (...) {
    }
    g_objects->erase(it);
}

void prepare() noexcept {
    if (core::counting::active()) register_devices();
}

bool launch(const launch_call& c, std::uint64_t dispatch_id, CUresult& r) noexcept {
    if (t_counting || !core::counting::active()) return false;
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
    counting_scope scope;
    // Alone on the context: what ran before is done (collect() waits for it), and the range ends
    // after the launch did.
    flush_l2(ctx, c.work_stream());
    count(s, info, ctx, [&] {
        r = records::launch(c, id);
        return r == CUDA_SUCCESS && real().ctx_synchronize != nullptr && real().ctx_synchronize() == CUDA_SUCCESS;
    });
    return true;
}

CUresult launch_pass(const launch_call& c, std::uint64_t dispatch_id, std::uint64_t contexts, bool& completed,
                     std::uint64_t timeout_ns) noexcept {
    const CUcontext ctx = current_context();
    if (t_counting || !core::counting::active() || ctx == nullptr)
        return records::launch_pass(c, dispatch_id, contexts, completed, timeout_ns);
    register_devices();
    const rocprofiler_kernel_dispatch_info_t info = records::dispatch_info(c, current_device(), dispatch_id);
    core::counting::session s;
    if (g_device_catalogue == nullptr || !core::counting::begin(s, info, contexts))
        return records::launch_pass(c, dispatch_id, contexts, completed, timeout_ns);
    // The replay holds the context exclusively and drained it: the pass is alone in the range.
    std::lock_guard lk(g_counting);
    counting_scope scope;
    CUresult r = CUDA_SUCCESS;
    count(s, info, ctx, [&] {
        r = records::launch_pass(c, dispatch_id, contexts, completed, timeout_ns);
        return r == CUDA_SUCCESS && completed;
    });
    return r;
}

}  // namespace encore::cuda::counters
