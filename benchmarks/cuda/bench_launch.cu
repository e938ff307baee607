// benchmarks/cuda/bench_launch.cu — launch cost of an empty kernel, for KERNEL_DISPATCH tracing
// overhead on CUDA (benchmarks/cuda/run_gpu.sh runs it bare, under encore with no context, and
// with dispatch records). 7 rounds of 20000 launches on one stream; per round the host time per
// launch (submission) and per launch until the stream completed; medians printed, with the
// launching thread's CPU time per launch during submission (cpu_median=: what a busy shared host's
// preemptions add to wall time is not in it, so cases differing by less than the wall-time spread
// of rounds can still be told apart).
// BENCH_EVENTS=1: the program itself records a timing event before and after each launch (what
// encore's dispatch timing adds to the driver's work), to separate that from encore's own cost;
// BENCH_EVENTS=2: also asks whether the stream is capturing a graph, as encore does per launch.
// BENCH_CUPTI_ACTIVITY=1 (a binary built with -DBENCH_WITH_CUPTI and -lcupti): the program itself
// subscribes CUPTI's CONCURRENT_KERNEL activity records, as a CUPTI user does, with a consumer
// that counts them (4 MiB buffers, as encore's CUPTI source uses; BENCH_CUPTI_FLUSH_MS sets a
// flush period, default none: CUPTI delivers full buffers); it prints how many it got, which
// must be every launch. Two of encore's CUPTI settings, to tell their cost from encore's own work:
// BENCH_CUPTI_SHARED_BUFFER=1 turns CUPTI's per-thread activity buffers off (one buffer for all
// threads, as encore's stream-order pairing needs); BENCH_CUPTI_CLOCK=1 registers a timestamp
// callback reading CLOCK_BOOTTIME (encore's clock).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#ifdef BENCH_WITH_CUPTI
#    include "cupti_kernel_records.hpp"

static uint64_t CUPTIAPI boottime_ns() {
    timespec t{};
    clock_gettime(CLOCK_BOOTTIME, &t);
    return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

static bool env_on(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && v[0] == '1';
}

static bool subscribe_cupti() {
    if (env_on("BENCH_CUPTI_SHARED_BUFFER")) {
        uint8_t off = 0;
        size_t size = sizeof off;
        if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &off) != CUPTI_SUCCESS)
            return false;
    }
    if (env_on("BENCH_CUPTI_CLOCK") && cuptiActivityRegisterTimestampCallback(&boottime_ns) != CUPTI_SUCCESS)
        return false;
    if (!cupti_bench::subscribe_kernels()) return false;
    if (const char* ms = std::getenv("BENCH_CUPTI_FLUSH_MS")) cuptiActivityFlushPeriod(std::atoi(ms));
    return true;
}
#endif

__global__ void empty() {}

int main() {
    const char* cupti_mode = std::getenv("BENCH_CUPTI_ACTIVITY");
    const bool cupti = cupti_mode != nullptr && cupti_mode[0] == '1';
#ifdef BENCH_WITH_CUPTI
    if (cupti && !subscribe_cupti()) {
        std::printf("bench_launch: cannot subscribe CUPTI activity records\n");
        return 1;
    }
#else
    if (cupti) {
        std::printf("bench_launch: built without CUPTI (-DBENCH_WITH_CUPTI -lcupti)\n");
        return 1;
    }
#endif
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    empty<<<1, 32, 0, s>>>();
    cudaStreamSynchronize(s);
    const int n = 20000;
    const char* ev_mode = std::getenv("BENCH_EVENTS");
    const bool events = ev_mode != nullptr;
    const bool capture_check = events && ev_mode[0] == '2';
    std::vector<cudaEvent_t> ev(events ? 2 * n : 0);
    for (auto& e : ev) cudaEventCreate(&e);
    std::vector<double> submit, total, cpu;
    const auto thread_cpu_us = [] {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
    };
    for (int r = 0; r < 7; ++r) {
        const double c0 = thread_cpu_us();
        const auto t0 = std::chrono::steady_clock::now();
        if (events) {
            for (int i = 0; i < n; ++i) {
                cudaStreamCaptureStatus st;
                if (capture_check && cudaStreamIsCapturing(s, &st) != cudaSuccess) return 1;
                cudaEventRecord(ev[2 * i], s);
                empty<<<1, 32, 0, s>>>();
                cudaEventRecord(ev[2 * i + 1], s);
            }
        } else {
            for (int i = 0; i < n; ++i) empty<<<1, 32, 0, s>>>();
        }
        const auto t1 = std::chrono::steady_clock::now();
        cpu.push_back((thread_cpu_us() - c0) / n);
        cudaStreamSynchronize(s);
        const auto t2 = std::chrono::steady_clock::now();
        submit.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
        total.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count() / n);
    }
#ifdef BENCH_WITH_CUPTI
    if (cupti) {
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        std::printf("bench_launch: cupti kernel records=%lu of %d launches\n", cupti_bench::kernel_records.load(),
                    1 + 7 * n);
    }
#endif
    std::sort(submit.begin(), submit.end());
    std::sort(total.begin(), total.end());
    std::sort(cpu.begin(), cpu.end());
    std::printf("bench_launch: submit median=%.3f us (min %.3f max %.3f); until complete median=%.3f us per launch; "
                "launching thread cpu_median=%.3f us\n",
                submit[3], submit[0], submit[6], total[3], cpu[3]);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
