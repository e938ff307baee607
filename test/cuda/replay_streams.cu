// test/cuda/replay_streams.cu — replay on one stream while other streams of the same GPU run.
// Thread 1 launches a stateful kernel (acc: y += x) 5 times on its stream; the tool replays only
// kernels named "acc" (ENCORE_CUDA_REPLAY_KERNEL=acc). Thread 2 meanwhile launches 400 short
// kernels (tick: an atomic counter) on another stream, never replayed; they wait while a replay
// owns the GPU and run between replays. Prints "replay_streams: ... ok" when y equals 5 runs of
// acc and the counter equals 400 runs of tick.
#include <cstdio>
#include <thread>
#include <vector>

__global__ void acc(int n, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i];
}
__global__ void tick(unsigned* c) {
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(c, 1u);
}

int main() {
    const int n = 4 << 20, accs = 5, ticks = 400;
    float *x, *y;
    unsigned* c;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMalloc(&c, sizeof(unsigned));
    std::vector<float> hx(n), hy(n, 0.0f);
    for (int i = 0; i < n; ++i) hx[i] = float(i % 13);
    cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(c, 0, sizeof(unsigned));
    cudaDeviceSynchronize();
    std::thread t1([&] {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        for (int k = 0; k < accs; ++k) acc<<<(n + 255) / 256, 256, 0, s>>>(n, x, y);
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
    });
    std::thread t2([&] {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        for (int k = 0; k < ticks; ++k) tick<<<1, 32, 0, s>>>(c);
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
    });
    t1.join();
    t2.join();
    unsigned hc = 0;
    cudaMemcpy(&hc, c, sizeof(hc), cudaMemcpyDeviceToHost);
    cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
    bool ok = hc == unsigned(ticks);
    for (int i = 0; i < n && ok; ++i) ok = hy[i] == accs * hx[i];
    std::printf("replay_streams: counter=%u %s\n", hc, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
