// benchmarks/cuda/two_gpu.cu — the program of the two-GPU run (run_two_gpu.sh), one thread per GPU.
//   two_gpu rate  GPU 1 launches short kernels back to back for ~3 s; meanwhile GPU 0, with
//                 GIB GiB allocated (tracked), launches once a kernel that encore's tool replays
//                 (two_gpu_tool.cpp: 512-thread blocks, 10 passes), about 1 s after GPU 1 started.
//   two_gpu both  both GPUs launch a replayed kernel at the same moment (a barrier), each with
//                 GIB GiB tracked.
// Each checks its results: the replayed kernel's effect is that of one launch; GPU 1's counter
// equals its launches. GIB: the environment's TWO_GPU_GIB (default 6 for rate, 1 for both).
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

__global__ void replayed(unsigned* p, size_t n, unsigned v) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] += v;
}
__global__ void tick(unsigned long long* counter) {
    if (threadIdx.x == 0) atomicAdd(counter, 1ull);
}

namespace {

bool ok(cudaError_t e, const char* what, int dev) {
    if (e == cudaSuccess) return true;
    std::printf("two_gpu: GPU %d: %s: %s\n", dev, what, cudaGetErrorString(e));
    return false;
}

/// GIB GiB of tracked memory plus a 64 MiB buffer the replayed kernel adds 1 to; `before` runs
/// after that setup, right before the launch. True if, after the launch, every element is 1 (one
/// launch's effect, whatever the passes).
template <class Before>
bool replay_once(int dev, size_t gib, Before before) {
    if (!ok(cudaSetDevice(dev), "cudaSetDevice", dev)) return false;
    std::vector<void*> blocks;
    for (size_t i = 0; i < gib; ++i) {
        void* b = nullptr;
        if (!ok(cudaMalloc(&b, 1ull << 30), "cudaMalloc", dev)) return false;
        cudaMemset(b, int(i), 1ull << 30);
        blocks.push_back(b);
    }
    const size_t n = (64ull << 20) / sizeof(unsigned);
    unsigned* w = nullptr;
    if (!ok(cudaMalloc(&w, n * sizeof(unsigned)), "cudaMalloc", dev)) return false;
    cudaMemset(w, 0, n * sizeof(unsigned));
    if (!ok(cudaDeviceSynchronize(), "setup", dev)) return false;
    before();
    replayed<<<1024, 512>>>(w, n, 1);
    if (!ok(cudaDeviceSynchronize(), "replayed kernel", dev)) return false;
    std::vector<unsigned> h(n);
    if (!ok(cudaMemcpy(h.data(), w, n * sizeof(unsigned), cudaMemcpyDeviceToHost), "cudaMemcpy", dev)) return false;
    size_t wrong = 0;
    for (unsigned x : h) wrong += x != 1;
    for (void* b : blocks) cudaFree(b);
    cudaFree(w);
    std::printf("two_gpu: GPU %d replayed kernel: %zu of %zu elements wrong\n", dev, wrong, n);
    return wrong == 0;
}

}  // namespace

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "rate";
    int devices = 0;
    if (!ok(cudaGetDeviceCount(&devices), "cudaGetDeviceCount", -1)) return 1;
    if (devices < 2) {
        std::printf("two_gpu: needs two GPUs, found %d\n", devices);
        return 1;
    }
    const bool rate = std::strcmp(mode, "rate") == 0;
    const char* g = std::getenv("TWO_GPU_GIB");
    const size_t gib = g != nullptr ? std::strtoull(g, nullptr, 10) : (rate ? 6 : 1);
    std::atomic<bool> ok0{false}, ok1{false};

    if (!rate) {
        std::barrier<> start(2);
        const auto run = [&](int dev, std::atomic<bool>& result) {
            bool arrived = false;
            result = replay_once(dev, gib, [&] {
                arrived = true;
                start.arrive_and_wait();
            });
            if (!arrived) start.arrive_and_drop();  // failed in setup: do not hold the other GPU
        };
        std::thread t0([&] { run(0, ok0); });
        std::thread t1([&] { run(1, ok1); });
        t0.join();
        t1.join();
        std::printf("two_gpu: both %s\n", ok0 && ok1 ? "ok" : "WRONG");
        return ok0 && ok1 ? 0 : 1;
    }

    // rate: GPU 1's launch stream runs from before GPU 0's replay until after it.
    std::atomic<bool> stop{false}, started{false};
    std::atomic<unsigned long long> launched{0};
    std::thread t1([&] {
        unsigned long long* counter = nullptr;
        cudaStream_t s;
        if (!ok(cudaSetDevice(1), "cudaSetDevice", 1) || !ok(cudaMalloc(&counter, sizeof(*counter)), "cudaMalloc", 1) ||
            !ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate", 1)) {
            started = true;  // failed: GPU 0 need not wait
            return;
        }
        cudaMemset(counter, 0, sizeof(*counter));
        cudaDeviceSynchronize();
        started = true;
        unsigned long long n = 0;
        while (!stop.load(std::memory_order_relaxed)) {
            tick<<<1, 32, 0, s>>>(counter);
            ++n;
        }
        unsigned long long h = 0;
        cudaStreamSynchronize(s);
        cudaMemcpy(&h, counter, sizeof(h), cudaMemcpyDeviceToHost);
        launched = n;
        ok1 = ok(cudaGetLastError(), "launches", 1) && h == n;
        std::printf("two_gpu: GPU 1 launched %llu short kernels, counter %llu\n", n, h);
    });
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::thread t0([&] {
        // Setup first (GPU 1 is running already), then 1 s of GPU 1 alone, the replayed launch,
        // and 1 s more of GPU 1 alone.
        ok0 = replay_once(0, gib, [] { std::this_thread::sleep_for(std::chrono::seconds(1)); });
        std::this_thread::sleep_for(std::chrono::seconds(1));
        stop = true;
    });
    t0.join();
    t1.join();
    std::printf("two_gpu: rate %s (%llu launches on GPU 1)\n", ok0 && ok1 ? "ok" : "WRONG", launched.load());
    return ok0 && ok1 ? 0 : 1;
}
