// benchmarks/cuda/two_gpu.cu — the program of the two-GPU run (run_two_gpu.sh), one thread per GPU.
//   two_gpu rate  GPU 1 launches short kernels back to back for ~3 s; meanwhile GPU 0, with
//                 GIB GiB allocated (tracked), launches once a kernel that encore's tool replays
//                 (two_gpu_tool.cpp: 512-thread blocks, 10 passes), about 1 s after GPU 1 started.
//   two_gpu copies  the control for rate, without encore: GPU 1 as in rate; GPU 0 instead moves
//                 what a host-shadow full_copy replay of GIB GiB moves (one pinned allocation,
//                 one copy to the host, 10 copies back), so the driver's and the hardware's share
//                 of any slowdown shows apart from encore's.
//   two_gpu both  both GPUs launch a replayed kernel at the same moment (a barrier), each with
//                 GIB GiB tracked.
// Each checks its results: the replayed kernel's effect is that of one launch; GPU 1's counter
// equals its launches. rate and copies also print GPU 1's launch intervals (host time between
// consecutive launches) inside GPU 0's busy window and outside it. GIB: the environment's
// TWO_GPU_GIB (default 6 for rate and copies, 1 for both).
#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

__global__ void replayed(unsigned* p, size_t n, unsigned v) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] += v;
}
__global__ void tick(unsigned long long* counter) {
    if (threadIdx.x == 0) atomicAdd(counter, 1ull);
}

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
std::atomic<std::int64_t> g_busy_begin{0}, g_busy_end{0};  // GPU 0's window (rate: the replayed launch)

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
    const std::int64_t begin = now_ns();
    replayed<<<1024, 512>>>(w, n, 1);
    if (!ok(cudaDeviceSynchronize(), "replayed kernel", dev)) return false;
    if (dev == 0) {
        g_busy_begin = begin;
        g_busy_end = now_ns();
    }
    std::vector<unsigned> h(n);
    if (!ok(cudaMemcpy(h.data(), w, n * sizeof(unsigned), cudaMemcpyDeviceToHost), "cudaMemcpy", dev)) return false;
    size_t wrong = 0;
    for (unsigned x : h) wrong += x != 1;
    for (void* b : blocks) cudaFree(b);
    cudaFree(w);
    std::printf("two_gpu: GPU %d replayed kernel: %zu of %zu elements wrong\n", dev, wrong, n);
    return wrong == 0;
}

/// What a host-shadow full_copy replay of GIB GiB asks of the driver, without encore: one pinned
/// allocation, the footprint copied to it, then copied back 10 times.
bool copies_like_replay(size_t gib) {
    if (!ok(cudaSetDevice(0), "cudaSetDevice", 0)) return false;
    const size_t bytes = gib << 30;
    void* d = nullptr;
    if (!ok(cudaMalloc(&d, bytes), "cudaMalloc", 0)) return false;
    cudaMemset(d, 1, bytes);
    cudaDeviceSynchronize();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    g_busy_begin = now_ns();
    void* h = nullptr;
    bool good = ok(cudaMallocHost(&h, bytes), "cudaMallocHost", 0) &&
                ok(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H", 0);
    for (int pass = 0; good && pass < 10; ++pass)
        good = ok(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D", 0);
    g_busy_end = now_ns();
    if (h != nullptr) cudaFreeHost(h);
    cudaFree(d);
    return good;
}

void print_intervals(const std::vector<std::int64_t>& t) {
    const std::int64_t b = g_busy_begin, e = g_busy_end;
    std::vector<double> gap[2];
    for (size_t i = 1; i < t.size(); ++i) {
        const bool in = t[i - 1] >= b && t[i] <= e, out = t[i] < b || t[i - 1] > e;
        if (in || out) gap[in ? 1 : 0].push_back((t[i] - t[i - 1]) / 1e3);
    }
    for (int in = 1; in >= 0; --in) {
        auto& v = gap[in];
        std::sort(v.begin(), v.end());
        if (v.empty()) {
            std::printf("two_gpu: GPU 1 intervals %s: none\n", in ? "inside " : "outside");
            continue;
        }
        std::printf("two_gpu: GPU 1 intervals %s n=%zu p10=%.2f median=%.2f p90=%.2f max=%.1f us\n",
                    in ? "inside " : "outside", v.size(), v[v.size() / 10], v[v.size() / 2], v[v.size() * 9 / 10],
                    v.back());
    }
    std::printf("two_gpu: GPU 0 busy window %.1f ms\n", (e - b) / 1e6);
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
    const bool copies = std::strcmp(mode, "copies") == 0;
    const bool rate = copies || std::strcmp(mode, "rate") == 0;
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
    std::vector<std::int64_t> launch_times;  // GPU 1's thread: when each launch returned
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
        launch_times.reserve(4'000'000);
        while (!stop.load(std::memory_order_relaxed)) {
            tick<<<1, 32, 0, s>>>(counter);
            ++n;
            if (launch_times.size() < launch_times.capacity()) launch_times.push_back(now_ns());
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
        ok0 = copies ? copies_like_replay(gib)
                     : replay_once(0, gib, [] { std::this_thread::sleep_for(std::chrono::seconds(1)); });
        std::this_thread::sleep_for(std::chrono::seconds(1));
        stop = true;
    });
    t0.join();
    t1.join();
    print_intervals(launch_times);
    std::printf("two_gpu: %s %s (%llu launches on GPU 1)\n", mode, ok0 && ok1 ? "ok" : "WRONG", launched.load());
    return ok0 && ok1 ? 0 : 1;
}
