// benchmarks/cuda/launch_calls.cu — what each call encore's CUPTI-timed KERNEL_DISPATCH path makes
// per launch costs on the GPU at hand, with and without a CUPTI activity subscriber in the process
// (issue 20: where a CUPTI-timed launch's cost over a plain CUPTI subscriber goes). No encore:
// the driver's and CUPTI's public API alone. Each case is a loop of N calls on one created stream,
// interleaved with empty-kernel launches (one launch, then K of the call) so that the call meets
// the driver in the state a launch leaves it; the figure is (loop time - the launches alone) / calls.
//   cuCtxGetCurrent        records.cpp's current_context(), once per launch
//   cuStreamIsCapturing    records.cpp's capturing(), once per launch
//   cuptiGetContextId      cupti::context_key (cached by encore; for scale)
//   cuptiGetStreamIdEx     cupti::stream_key (a created stream's, kept while cuStreamGetId agrees)
//   cuStreamGetId          the driver's own stream id (CUDA 12.0+), for comparison
//   clock_gettime BOOTTIME core::now_ns
// Build and run on the GPU machine (prebuild_gpu.sh builds it as build-gpu/launch_calls):
//   nvcc -O2 -o launch_calls benchmarks/cuda/launch_calls.cu -lcupti -lcuda
//   ./launch_calls            (no CUPTI activity)     BENCH_CUPTI_ACTIVITY=1 ./launch_calls
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *size = 4u << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *max_records = 0;
}
static void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) { std::free(buffer); }

__global__ void empty() {}

static double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main() {
    const char* mode = std::getenv("BENCH_CUPTI_ACTIVITY");
    const bool cupti = mode != nullptr && mode[0] == '1';
    if (cupti && (cuptiActivityRegisterCallbacks(&buffer_requested, &buffer_completed) != CUPTI_SUCCESS ||
                  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)) {
        std::printf("launch_calls: cannot subscribe CUPTI activity records\n");
        return 1;
    }
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    empty<<<1, 32, 0, s>>>();
    cudaStreamSynchronize(s);
    CUcontext ctx = nullptr;
    cuCtxGetCurrent(&ctx);
    const CUstream cs = reinterpret_cast<CUstream>(s);
    constexpr int launches = 20000, per_launch = 4;
    volatile unsigned long long sink = 0;
    struct call_case {
        const char* name;
        void (*call)(CUcontext, CUstream, volatile unsigned long long&);
    };
    const call_case cases[] = {
        {"none (launches alone)", [](CUcontext, CUstream, volatile unsigned long long&) {}},
        {"cuCtxGetCurrent",
         [](CUcontext, CUstream, volatile unsigned long long& k) {
             CUcontext c;
             cuCtxGetCurrent(&c);
             k += reinterpret_cast<unsigned long long>(c);
         }},
        {"cuStreamIsCapturing",
         [](CUcontext, CUstream st, volatile unsigned long long& k) {
             CUstreamCaptureStatus cap;
             cuStreamIsCapturing(st, &cap);
             k += cap;
         }},
        {"cuptiGetContextId",
         [](CUcontext c, CUstream, volatile unsigned long long& k) {
             uint32_t id = 0;
             cuptiGetContextId(c, &id);
             k += id;
         }},
        {"cuptiGetStreamIdEx",
         [](CUcontext c, CUstream st, volatile unsigned long long& k) {
             uint32_t id = 0;
             cuptiGetStreamIdEx(c, st, 0, &id);
             k += id;
         }},
        {"cuStreamGetId",
         [](CUcontext, CUstream st, volatile unsigned long long& k) {
             unsigned long long id = 0;
             cuStreamGetId(st, &id);
             k += id;
         }},
        {"clock_gettime(BOOTTIME)",
         [](CUcontext, CUstream, volatile unsigned long long& k) {
             timespec t;
             clock_gettime(CLOCK_BOOTTIME, &t);
             k += static_cast<unsigned long long>(t.tv_nsec);
         }},
    };
    // Rounds taking turns over the cases; per case the median round.
    constexpr int rounds = 7;
    std::vector<std::vector<double>> per_launch_us(std::size(cases));
    for (int r = 0; r < rounds; ++r) {
        for (std::size_t c = 0; c < std::size(cases); ++c) {
            const double t0 = now_us();
            for (int i = 0; i < launches; ++i) {
                empty<<<1, 32, 0, s>>>();
                for (int j = 0; j < per_launch; ++j) cases[c].call(ctx, cs, sink);
            }
            const double t1 = now_us();
            cudaStreamSynchronize(s);
            per_launch_us[c].push_back((t1 - t0) / launches);
        }
    }
    std::vector<double> med(std::size(cases));
    for (std::size_t c = 0; c < std::size(cases); ++c) {
        auto& v = per_launch_us[c];
        std::sort(v.begin(), v.end());
        med[c] = v[rounds / 2];
    }
    std::printf("launch_calls (%s CUPTI activity): launch alone %.3f us; per call (median of %d rounds, %d calls "
                "after each of %d launches):\n",
                cupti ? "with" : "without", med[0], rounds, per_launch, launches);
    for (std::size_t c = 1; c < std::size(cases); ++c)
        std::printf("  %-26s %8.1f ns\n", cases[c].name, (med[c] - med[0]) * 1000.0 / per_launch);
    if (cupti) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
