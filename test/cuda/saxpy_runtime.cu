// test/cuda/saxpy_runtime.cu — a CUDA runtime program (built with the static runtime, nvcc's
// default, and with -cudart shared): 10 launches of y += a*x plus a counter kernel, results
// checked on the host. Prints "saxpy: launches=11 ok" when the results are right.
#include <cstdio>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
__device__ unsigned counter;
__global__ void bump(int n) {
    if (blockIdx.x * blockDim.x + threadIdx.x < n) atomicAdd(&counter, 1u);
}

int main() {
    const int n = 1 << 20;
    std::vector<float> hx(n), hy(n, 1.0f);
    for (int i = 0; i < n; ++i) hx[i] = float(i % 17) * 0.5f;
    float *x = nullptr, *y = nullptr;
    if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) {
        std::printf("saxpy: cudaMalloc failed\n");
        return 1;
    }
    cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    for (int k = 0; k < 10; ++k) saxpy<<<(n + 255) / 256, 256>>>(n, 0.25f, x, y);
    bump<<<(n + 255) / 256, 256>>>(n / 2);
    cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
    unsigned c = 0;
    cudaMemcpyFromSymbol(&c, counter, sizeof(c));
    bool ok = c == unsigned(n / 2);
    for (int i = 0; i < n && ok; ++i) ok = hy[i] == 1.0f + 10 * 0.25f * hx[i];
    cudaFree(x);
    cudaFree(y);
    std::printf("saxpy: launches=11 %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
