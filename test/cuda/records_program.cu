// test/cuda/records_program.cu — a CUDA runtime program whose launches, copies and allocations
// the records checks of benchmarks/cuda/run_gpu.sh count (ENCORE_CUDA_TOOL_MODE=records):
// launches on two streams and the default stream, a cooperative launch, a cudaLaunchKernelEx
// launch, a launch captured into a graph (recorded, not run: no dispatch record) and the graph's
// launch, copies in each direction (synchronous and asynchronous; 1-D, 2-D and 3-D), device,
// pinned host and stream-ordered allocations. Prints the counts the tool must report, then "ok" when the results are right.
#include <cooperative_groups.h>

#include <cstdio>
#include <vector>

__global__ void add(int n, float a, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a;
}

__global__ void busy(int n, float* y, long long spin) {
    // Long enough that its GPU time is well above the timer's resolution.
    long long t0 = clock64();
    while (clock64() - t0 < spin) {
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += 1.0f;
}

int main() {
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    int launches = 0, h2d = 0, d2h = 0, d2d = 0, allocs = 0, frees = 0;
    unsigned long long bytes_h2d = 0, bytes_d2h = 0, bytes_d2d = 0;
    float *a = nullptr, *b = nullptr, *c = nullptr, *pinned = nullptr;
    cudaStream_t s1, s2;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess ||
        cudaMalloc(&c, bytes) != cudaSuccess || cudaMallocHost(&pinned, bytes) != cudaSuccess) {
        std::printf("records_program: allocation failed\n");
        return 1;
    }
    allocs += 4;  // the pinned host one too (its records carry the host agent)
    std::vector<float> h(n, 1.0f);
    cudaMemcpy(a, h.data(), bytes, cudaMemcpyHostToDevice), ++h2d, bytes_h2d += bytes;
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), ++d2d, bytes_d2d += bytes;
    for (int i = 0; i < n; ++i) pinned[i] = 2.0f;
    cudaMemcpyAsync(c, pinned, bytes, cudaMemcpyHostToDevice, s2), ++h2d, bytes_h2d += bytes;
    cudaStreamSynchronize(s2);

    for (int k = 0; k < 20; ++k) add<<<(n + 255) / 256, 256, 0, s1>>>(n, 1.0f, a), ++launches;
    for (int k = 0; k < 20; ++k) add<<<(n + 255) / 256, 256, 0, s2>>>(n, 1.0f, b), ++launches;
    busy<<<(n + 255) / 256, 256>>>(n, c, 2'000'000), ++launches;  // legacy default stream

    float one = 1.0f;
    void* cargs[] = {(void*)&n, (void*)&one, (void*)&c};
    // On the legacy stream: ordered after busy, which writes the same memory.
    if (cudaLaunchCooperativeKernel((void*)add, dim3(16), dim3(256), cargs, 0, 0) == cudaSuccess) ++launches;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((n + 255) / 256);
    cfg.blockDim = dim3(256);
    cfg.stream = s2;
    if (cudaLaunchKernelEx(&cfg, add, n, 1.0f, b) == cudaSuccess) ++launches;

    // Stream-ordered allocation.
    float* tmp = nullptr;
    if (cudaMallocAsync(&tmp, bytes, s1) == cudaSuccess) {
        ++allocs;
        add<<<(n + 255) / 256, 256, 0, s1>>>(n, 1.0f, tmp), ++launches;
        cudaFreeAsync(tmp, s1), ++frees;
    }

    // A graph: the captured launch is not a dispatch; the graph's launch runs it (untraced as a
    // dispatch: graphs are not intercepted kernel by kernel).
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamBeginCapture(s2, cudaStreamCaptureModeThreadLocal);
    add<<<(n + 255) / 256, 256, 0, s2>>>(n, 1.0f, b);
    cudaStreamEndCapture(s2, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphLaunch(exec, s2);
    cudaDeviceSynchronize();

    // 2-D and 3-D copies (cuMemcpy2D*/3D* underneath): bytes = width x height (x depth). Each
    // copies values onto equal values (a row read back into place; b holds one value), so the
    // results below are unchanged.
    std::vector<float> rows(64 * 16);
    bool copies_ok = true;
    copies_ok &= cudaMemcpy2D(rows.data(), 64 * sizeof(float), a, 128 * sizeof(float), 64 * sizeof(float), 16,
                              cudaMemcpyDeviceToHost) == cudaSuccess,
        ++d2h, bytes_d2h += 64 * sizeof(float) * 16;
    copies_ok &= cudaMemcpy2DAsync(a, 128 * sizeof(float), rows.data(), 64 * sizeof(float), 64 * sizeof(float), 16,
                                   cudaMemcpyHostToDevice, s1) == cudaSuccess,
        ++h2d, bytes_h2d += 64 * sizeof(float) * 16;
    cudaStreamSynchronize(s1);
    cudaMemcpy3DParms p3 = {};
    p3.srcPtr = make_cudaPitchedPtr(b, 256 * sizeof(float), 256, 8);
    p3.dstPtr = make_cudaPitchedPtr(b, 256 * sizeof(float), 256, 8);
    p3.srcPos = make_cudaPos(0, 0, 0);
    p3.dstPos = make_cudaPos(0, 0, 4);  // slices 4-5: no overlap with the source; b holds one value throughout
    p3.extent = make_cudaExtent(32 * sizeof(float), 4, 2);
    p3.kind = cudaMemcpyDeviceToDevice;
    copies_ok &= cudaMemcpy3D(&p3) == cudaSuccess, ++d2d, bytes_d2d += 32 * sizeof(float) * 4 * 2;

    cudaMemcpy(h.data(), a, bytes, cudaMemcpyDeviceToHost), ++d2h, bytes_d2h += bytes;
    bool ok = copies_ok && h[0] == 21.0f && h[n - 1] == 21.0f;
    cudaMemcpy(h.data(), b, bytes, cudaMemcpyDeviceToHost), ++d2h, bytes_d2h += bytes;
    ok = ok && h[0] == 23.0f && h[n - 1] == 23.0f;  // 1 + 20 + Ex + graph
    cudaMemcpyAsync(pinned, c, bytes, cudaMemcpyDeviceToHost, s1), ++d2h, bytes_d2h += bytes;
    cudaStreamSynchronize(s1);
    ok = ok && pinned[0] == 3.0f + 1.0f && pinned[n - 1] == 3.0f;  // busy everywhere, cooperative on the first 4096

    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaFree(a), cudaFree(b), cudaFree(c), frees += 3;
    cudaFreeHost(pinned), ++frees;
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    std::printf("records_program: launches=%d h2d=%d d2h=%d d2d=%d bytes_h2d=%llu bytes_d2h=%llu bytes_d2d=%llu "
                "allocs=%d frees=%d %s\n",
                launches, h2d, d2h, d2d, bytes_h2d, bytes_d2h, bytes_d2d, allocs, frees, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
