// test/cuda/replay_stateful.cu — stateful kernels for kernel replay on CUDA: y += a*x over a
// 64 MiB buffer, a counter and an atomic append, all in cudaMalloc memory; 3 launches each,
// then one cudaLaunchKernelEx and one cooperative launch (11 launches); bump also counts its
// launches in a __device__ variable.
// Prints "replay_stateful: ok" when the final memory equals what one run of each launch leaves.
#include <cstdio>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
__device__ unsigned g_bumps;  // a module variable: covered once the host took its address
__global__ void bump(unsigned* c, int n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) g_bumps += 1;
    if (int(blockIdx.x * blockDim.x + threadIdx.x) < n) atomicAdd(c, 1u);
}
__global__ void append(unsigned* out, unsigned* index, unsigned value, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < n) out[atomicAdd(index, 1u)] = value + g;
}

int main() {
    const int n = 16 << 20, m = 1000, iters = 3;
    std::vector<float> hx(n), hy(n, 1.0f);
    for (int i = 0; i < n; ++i) hx[i] = float(i % 17) * 0.5f;
    float *x, *y;
    unsigned *c, *out, *index;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMalloc(&c, sizeof(unsigned));
    cudaMalloc(&out, (iters + 1) * m * sizeof(unsigned));
    cudaMalloc(&index, sizeof(unsigned));
    cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(c, 0, sizeof(unsigned));
    cudaMemset(index, 0, sizeof(unsigned));
    const unsigned zero = 0;
    cudaMemcpyToSymbol(g_bumps, &zero, sizeof(zero));
    for (int k = 0; k < iters; ++k) {
        saxpy<<<(n + 255) / 256, 256>>>(n, 0.25f, x, y);
        bump<<<(n + 255) / 256, 256>>>(c, n / 2);
        append<<<(m + 99) / 100, 100>>>(out, index, 1000u * k, m);
    }
    // One launch through cudaLaunchKernelEx (cuLaunchKernelEx) and one cooperative launch
    // (cuLaunchCooperativeKernel): replayed like <<<>>> launches.
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((n + 255) / 256);
    cfg.blockDim = dim3(256);
    cudaLaunchKernelEx(&cfg, bump, c, n / 2);
    unsigned value = 1000u * iters;
    int mm = m;
    void* args[] = {&out, &index, &value, &mm};
    cudaLaunchCooperativeKernel((void*)append, dim3((m + 99) / 100), dim3(100), args, 0, 0);
    cudaDeviceSynchronize();
    cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
    unsigned hc = 0, hi = 0;
    cudaMemcpy(&hc, c, sizeof(hc), cudaMemcpyDeviceToHost);
    cudaMemcpy(&hi, index, sizeof(hi), cudaMemcpyDeviceToHost);
    std::vector<unsigned> ho(hi <= unsigned((iters + 1) * m) ? hi : 0);
    if (!ho.empty()) cudaMemcpy(ho.data(), out, hi * sizeof(unsigned), cudaMemcpyDeviceToHost);
    unsigned bumps = 0;
    cudaMemcpyFromSymbol(&bumps, g_bumps, sizeof(bumps));
    bool ok = hc == unsigned((iters + 1) * (n / 2)) && hi == unsigned((iters + 1) * m) && bumps == unsigned(iters + 1);
    for (int i = 0; i < n && ok; ++i) ok = hy[i] == 1.0f + iters * 0.25f * hx[i];
    unsigned long long sum = 0, ref = 0;
    for (unsigned v : ho) sum += v;
    for (int k = 0; k < iters + 1; ++k)
        for (int g = 0; g < m; ++g) ref += 1000ull * k + g;
    ok = ok && sum == ref;
    std::printf("replay_stateful: counter=%u appended=%u module variable=%u %s\n", hc, hi, bumps, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
