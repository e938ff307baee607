// benchmarks/cuda/cupti_costs.cu — what CUPTI's range profiler costs per counted launch, call by
// call, on the GPU at hand (no encore: CUPTI's public API alone, the same calls
// src/cuda/counters.cpp makes). Experiments, each printing every call's host time:
//   E1  one-pass set A, per launch: counter data init + SetConfig + Start/launch/Stop + decode
//   E2  set A, SetConfig once, then Start/launch/Stop + decode per launch
//   E3  set A, one Start, 6 launches (6 auto ranges), Stop, decode
//   E4  a new profiler object, the 10-metric set AB that needs 2 passes, CUPTI's user replay
//       (Start/launch/Stop per pass on one SetConfig) for 3 "dispatches"
//   E5  the same object set back to A in place (what encore avoids: NaN values on an H200)
//   E6  AB with 3 ranges per pass
//   E7  a new object, set B alone (one pass): whether pass 0's cost is B's counters' or any pass 0's
//   E8  a new object, AB in user ranges (Push/PopRange around the launch) instead of auto ranges
//   E9  a new object, AB with CUPTI's own kernel replay (it saves and restores memory itself)
// Build and run on the GPU machine (CUDA 13):
//   nvcc -O2 -arch=sm_90 -I$CUDA/extras/CUPTI/include -L$CUDA/extras/CUPTI/lib64 \
//       -o cupti_costs benchmarks/cuda/cupti_costs.cu -lcupti -lcuda
//   LD_LIBRARY_PATH=$CUDA/extras/CUPTI/lib64 ./cupti_costs [GiB to hold]
// Figures of the H200 run: docs/counters.md ("Where the time goes").
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <cmath>
#include <cstdlib>

#define P(T, v)                   \
    T v;                          \
    std::memset(&v, 0, sizeof v); \
    v.structSize = T##_STRUCT_SIZE
static double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static double t_last;
#define C(call)                                                               \
    do {                                                                      \
        double a = now_ms();                                                  \
        CUptiResult r_ = call;                                                \
        double b = now_ms();                                                  \
        t_last = b - a;                                                       \
        if (r_ != CUPTI_SUCCESS) {                                            \
            const char* s;                                                    \
            cuptiGetResultString(r_, &s);                                     \
            std::printf("  %-28s rc=%d %s (%.2f ms)\n", #call, r_, s, b - a); \
        } else if (verbose)                                                   \
            std::printf("  %-28s %.2f ms\n", #call, b - a);                   \
    } while (0)
static bool verbose = true;

__global__ void stream(float* __restrict__ o, const float* __restrict__ i, size_t n) {
    for (size_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += size_t(gridDim.x) * blockDim.x)
        o[k] = i[k] * 2.f + 1.f;
}

struct cfg {
    std::vector<const char*> names;
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<uint8_t> image;
    size_t passes = 0;
};
static std::string chip;
static cfg make(std::vector<const char*> names) {
    cfg c;
    c.names = names;
    P(CUpti_Profiler_Host_Initialize_Params, hi);
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.c_str();
    C(cuptiProfilerHostInitialize(&hi));
    c.host = hi.pHostObject;
    P(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
    add.pHostObject = c.host;
    add.ppMetricNames = c.names.data();
    add.numMetrics = c.names.size();
    C(cuptiProfilerHostConfigAddMetrics(&add));
    P(CUpti_Profiler_Host_GetConfigImageSize_Params, sz);
    sz.pHostObject = c.host;
    C(cuptiProfilerHostGetConfigImageSize(&sz));
    c.image.resize(sz.configImageSize);
    P(CUpti_Profiler_Host_GetConfigImage_Params, im);
    im.pHostObject = c.host;
    im.configImageSize = c.image.size();
    im.pConfigImage = c.image.data();
    C(cuptiProfilerHostGetConfigImage(&im));
    P(CUpti_Profiler_Host_GetNumOfPasses_Params, np);
    np.configImageSize = c.image.size();
    np.pConfigImage = c.image.data();
    C(cuptiProfilerHostGetNumOfPasses(&np));
    c.passes = np.numOfPasses;
    std::printf("config of %zu metrics: %zu passes\n", c.names.size(), c.passes);
    return c;
}

static CUpti_RangeProfiler_Object* obj;
static CUcontext ctx;
static float *d_in, *d_out;
static size_t N = size_t(64) << 20;
static void launch() {
    stream<<<1056, 256>>>(d_out, d_in, N);
    cudaDeviceSynchronize();
}

static std::vector<uint8_t> image_for(cfg& c, size_t ranges) {
    P(CUpti_RangeProfiler_GetCounterDataSize_Params, s);
    s.pRangeProfilerObject = obj;
    s.pMetricNames = c.names.data();
    s.numMetrics = c.names.size();
    s.maxNumOfRanges = ranges;
    s.maxNumRangeTreeNodes = ranges;
    C(cuptiRangeProfilerGetCounterDataSize(&s));
    return std::vector<uint8_t>(s.counterDataSize);
}
static void init(std::vector<uint8_t>& d) {
    P(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, i);
    i.pRangeProfilerObject = obj;
    i.counterDataSize = d.size();
    i.pCounterData = d.data();
    C(cuptiRangeProfilerCounterDataImageInitialize(&i));
}
static CUpti_ProfilerRange range_mode = CUPTI_AutoRange;
static CUpti_ProfilerReplayMode replay_mode = CUPTI_UserReplay;
static void setcfg(cfg& c, std::vector<uint8_t>& d, size_t ranges) {
    P(CUpti_RangeProfiler_SetConfig_Params, s);
    s.pRangeProfilerObject = obj;
    s.configSize = c.image.size();
    s.pConfig = c.image.data();
    s.counterDataImageSize = d.size();
    s.pCounterDataImage = d.data();
    s.range = range_mode;
    s.replayMode = replay_mode;
    s.maxRangesPerPass = ranges;
    s.numNestingLevels = 1;
    s.minNestingLevel = 1;
    s.passIndex = 0;
    s.targetNestingLevel = 1;
    C(cuptiRangeProfilerSetConfig(&s));
}
static double t_start, t_stop;
static bool startstop(int kernels) {
    P(CUpti_RangeProfiler_Start_Params, st);
    st.pRangeProfilerObject = obj;
    C(cuptiRangeProfilerStart(&st));
    t_start = t_last;
    for (int k = 0; k < kernels; ++k) {
        if (range_mode == CUPTI_UserRange) {
            P(CUpti_RangeProfiler_PushRange_Params, pu);
            pu.pRangeProfilerObject = obj;
            pu.pRangeName = "r";
            C(cuptiRangeProfilerPushRange(&pu));
        }
        launch();
        if (range_mode == CUPTI_UserRange) {
            P(CUpti_RangeProfiler_PopRange_Params, po);
            po.pRangeProfilerObject = obj;
            C(cuptiRangeProfilerPopRange(&po));
        }
    }
    P(CUpti_RangeProfiler_Stop_Params, sp);
    sp.pRangeProfilerObject = obj;
    C(cuptiRangeProfilerStop(&sp));
    t_stop = t_last;
    std::printf("  stop: passIndex %zu allSubmitted %d  (start %.2f ms, stop %.2f ms)\n", sp.passIndex,
                sp.isAllPassSubmitted, t_start, t_stop);
    return sp.isAllPassSubmitted;
}
static void decode_eval(cfg& c, std::vector<uint8_t>& d, size_t ranges) {
    P(CUpti_RangeProfiler_DecodeData_Params, dd);
    dd.pRangeProfilerObject = obj;
    C(cuptiRangeProfilerDecodeData(&dd));
    if (dd.numOfRangeDropped) std::printf("  dropped %zu\n", dd.numOfRangeDropped);
    std::vector<double> v(c.names.size());
    for (size_t r = 0; r < ranges; ++r) {
        P(CUpti_Profiler_Host_EvaluateToGpuValues_Params, e);
        e.pHostObject = c.host;
        e.pCounterDataImage = d.data();
        e.counterDataImageSize = d.size();
        e.rangeIndex = r;
        e.ppMetricNames = c.names.data();
        e.numMetrics = c.names.size();
        e.pMetricValues = v.data();
        C(cuptiProfilerHostEvaluateToGpuValues(&e));
        std::printf("  range %zu:", r);
        for (size_t i = 0; i < v.size(); ++i) std::printf(" %s=%.6g", c.names[i], v[i]);
        std::printf("\n");
    }
}
static void enable() {
    P(CUpti_RangeProfiler_Enable_Params, e);
    e.ctx = ctx;
    C(cuptiRangeProfilerEnable(&e));
    obj = e.pRangeProfilerObject;
}
static void disable() {
    P(CUpti_RangeProfiler_Disable_Params, d);
    d.pRangeProfilerObject = obj;
    C(cuptiRangeProfilerDisable(&d));
    obj = nullptr;
}

/// One "dispatch": counter data init + SetConfig, Start/`kernels` launches/Stop until CUPTI says
/// every pass was submitted (at most `max_passes`), decode and evaluate. The passes it ran.
static int dispatch(cfg& c, std::vector<uint8_t>& d, size_t kernels, int max_passes) {
    init(d);
    setcfg(c, d, kernels);
    int p = 1;
    while (!startstop(static_cast<int>(kernels)) && p < max_passes) ++p;
    decode_eval(c, d, kernels);
    return p;
}

int main(int argc, char** argv) {
    cudaMalloc(&d_in, N * 4);
    cudaMalloc(&d_out, N * 4);
    cudaMemset(d_in, 0, N * 4);
    if (argc > 1) {
        size_t big = size_t(std::atoi(argv[1])) << 30;
        void* b;
        cudaMalloc(&b, big);
        cudaMemset(b, 1, big);
        std::printf("holding %zu GiB\n", big >> 30);
    }
    launch();
    cuCtxGetCurrent(&ctx);
    P(CUpti_Profiler_Initialize_Params, pi);
    C(cuptiProfilerInitialize(&pi));
    P(CUpti_Device_GetChipName_Params, cn);
    cn.deviceIndex = 0;
    C(cuptiDeviceGetChipName(&cn));
    chip = cn.pChipName;
    std::printf("chip %s\n", chip.c_str());
    cfg A = make({"sm__inst_executed.sum", "smsp__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
                  "gpu__time_duration.sum"});
    cfg B = make({"lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum",
                  "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "smsp__cycles_active.avg",
                  "sm__pipe_fma_cycles_active.avg"});
    cfg AB = make({"sm__inst_executed.sum", "smsp__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
                   "gpu__time_duration.sum", "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum",
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "smsp__cycles_active.avg",
                   "sm__pipe_fma_cycles_active.avg"});
    enable();
    std::printf("=== E1: set A, per launch: init + SetConfig + Start/Stop + decode (x4)\n");
    {
        auto d = image_for(A, 1);
        for (int i = 0; i < 4; ++i) {
            double t0 = now_ms();
            dispatch(A, d, 1, 1);
            std::printf(" E1 launch %d total %.2f ms\n", i, now_ms() - t0);
        }
    }
    std::printf("=== E2: set A, SetConfig once, then Start/Stop + decode per launch (x4, no re-init)\n");
    {
        auto d = image_for(A, 1);
        init(d);
        setcfg(A, d, 1);
        for (int i = 0; i < 4; ++i) {
            double t0 = now_ms();
            startstop(1);
            decode_eval(A, d, 1);
            std::printf(" E2 launch %d total %.2f ms\n", i, now_ms() - t0);
        }
    }
    std::printf("=== E3: set A, one Start, 6 launches (6 auto ranges), Stop, decode\n");
    {
        auto d = image_for(A, 6);
        init(d);
        setcfg(A, d, 6);
        double t0 = now_ms();
        startstop(6);
        decode_eval(A, d, 6);
        std::printf(" E3 total %.2f ms\n", now_ms() - t0);
    }
    std::printf("=== E4: new object, AB multi-pass config, user replay passes (x3 dispatches)\n");
    disable();
    {
        double t0 = now_ms();
        enable();
        std::printf(" enable %.2f\n", now_ms() - t0);
    }
    {
        auto d = image_for(AB, 1);
        for (int i = 0; i < 3; ++i) {
            double t0 = now_ms();
            const int p = dispatch(AB, d, 1, 9);
            std::printf(" E4 dispatch %d (%d passes) total %.2f ms\n", i, p, now_ms() - t0);
        }
    }
    std::printf("=== E5: same object, back to set A (in-place reconfig) x2\n");
    {
        auto d = image_for(A, 1);
        for (int i = 0; i < 2; ++i) {  // one Start/Stop each, whatever CUPTI says of its passes
            double t0 = now_ms();
            dispatch(A, d, 1, 1);
            std::printf(" E5 launch %d total %.2f ms\n", i, now_ms() - t0);
        }
    }
    std::printf("=== E6: AB multi-pass with 3 ranges per pass (3 launches per pass)\n");
    {
        auto d = image_for(AB, 3);
        double t0 = now_ms();
        const int p = dispatch(AB, d, 3, 9);
        std::printf(" E6 (%d passes) total %.2f ms\n", p, now_ms() - t0);
    }
    // E7-E9: each on a new object, four dispatches (the first pays the object's first Start).
    struct variant {
        const char* what;
        cfg* c;
        CUpti_ProfilerRange range;
        CUpti_ProfilerReplayMode replay;
    };
    const variant variants[] = {{"E7: set B alone (one pass)", &B, CUPTI_AutoRange, CUPTI_UserReplay},
                                {"E8: AB in user ranges", &AB, CUPTI_UserRange, CUPTI_UserReplay},
                                {"E9: AB with CUPTI's kernel replay", &AB, CUPTI_AutoRange, CUPTI_KernelReplay}};
    for (const variant& v : variants) {
        std::printf("=== %s, a new object, 4 dispatches\n", v.what);
        disable();
        enable();
        range_mode = v.range;
        replay_mode = v.replay;
        auto d = image_for(*v.c, 1);
        for (int i = 0; i < 4; ++i) {
            double t0 = now_ms();
            const int p = dispatch(*v.c, d, 1, 9);
            std::printf(" %.2s dispatch %d (%d passes) total %.2f ms\n", v.what, i, p, now_ms() - t0);
        }
    }
    disable();
    return 0;
}
