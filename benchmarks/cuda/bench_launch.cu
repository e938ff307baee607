// benchmarks/cuda/bench_launch.cu — launch cost of an empty kernel, for KERNEL_DISPATCH tracing
// overhead on CUDA (benchmarks/cuda/run_gpu.sh runs it bare, under encore with no context, and
// with dispatch records). 7 rounds of 20000 launches on one stream; per round the host time per
// launch (submission) and per launch until the stream completed; medians printed.
// BENCH_EVENTS=1: the program itself records a timing event before and after each launch (what
// encore's dispatch timing adds to the driver's work), to separate that from encore's own cost;
// BENCH_EVENTS=2: also asks whether the stream is capturing a graph, as encore does per launch.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void empty() {}

int main() {
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
    std::vector<double> submit, total;
    for (int r = 0; r < 7; ++r) {
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
        cudaStreamSynchronize(s);
        const auto t2 = std::chrono::steady_clock::now();
        submit.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
        total.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count() / n);
    }
    std::sort(submit.begin(), submit.end());
    std::sort(total.begin(), total.end());
    std::printf("bench_launch: submit median=%.3f us (min %.3f max %.3f); until complete median=%.3f us per launch\n",
                submit[3], submit[0], submit[6], total[3]);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
