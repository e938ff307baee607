// benchmarks/cuda/bench_replay.cu — replay cost on CUDA (run with encore's replay tool): 8 GiB of
// device memory allocated (tracked), one kernel writing 64 MiB, launched 3 times.
//   bench_replay [MIB]   MIB of tracked memory besides the 64 MiB written (default 8192): the
//                        verification run (run_gpu.sh) compares the checksum per pass with a
//                        changed_chunks restore of the same footprint.
#include <cstdio>
#include <cstdlib>

__global__ void write64(unsigned* p, size_t n, unsigned v) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] += v;
}

int main(int argc, char** argv) {
    const size_t big = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 8192ull) << 20;
    const size_t n = (64ull << 20) / sizeof(unsigned);
    unsigned *a = nullptr, *w = nullptr;
    if (cudaMalloc(&a, big) != cudaSuccess || cudaMalloc(&w, n * sizeof(unsigned)) != cudaSuccess) {
        std::printf("bench_replay: cudaMalloc failed\n");
        return 1;
    }
    cudaMemset(a, 0, big);
    cudaMemset(w, 0, n * sizeof(unsigned));
    cudaDeviceSynchronize();  // the memsets are done: each replay's drain finds nothing in flight
    for (int k = 0; k < 3; ++k) write64<<<1024, 256>>>(w, n, 1);
    cudaDeviceSynchronize();
    unsigned h = 0;
    cudaMemcpy(&h, w + 12345, sizeof(h), cudaMemcpyDeviceToHost);
    std::printf("bench_replay: value=%u %s\n", h, h == 3 ? "ok" : "WRONG");
    return h == 3 ? 0 : 1;
}
