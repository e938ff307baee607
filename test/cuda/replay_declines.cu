// test/cuda/replay_declines.cu — launches kernel replay must decline (run once, with the reason
// warned once): a launch while the context has managed memory, a launch into a stream that is
// capturing a graph. A graph launch of the captured kernel is replayed node by node (docs/cuda.md),
// as are launches before and after (managed memory freed). Prints "replay_declines: value=4 ok" when every
// launch ran exactly once in effect.
#include <cstdio>

__global__ void inc(unsigned* p) {
    if (threadIdx.x == 0 && blockIdx.x == 0) *p += 1;
}

int main() {
    unsigned* v = nullptr;
    cudaMalloc(&v, sizeof(unsigned));
    cudaMemset(v, 0, sizeof(unsigned));
    cudaDeviceSynchronize();
    inc<<<1, 32>>>(v);  // replayed
    unsigned* managed = nullptr;
    cudaMallocManaged(&managed, 1 << 20);
    inc<<<1, 32>>>(v);  // declined: managed memory in the context
    cudaDeviceSynchronize();
    cudaFree(managed);
    inc<<<1, 32>>>(v);  // replayed again
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaGraph_t g;
    cudaGraphExec_t e;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    inc<<<1, 32, 0, s>>>(v);  // declined: recorded into the graph, not run
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&e, g, 0);
    cudaGraphLaunch(e, s);  // its kernel node replayed: runs once in effect
    cudaStreamSynchronize(s);
    unsigned h = 0;
    cudaMemcpy(&h, v, sizeof(h), cudaMemcpyDeviceToHost);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    cudaFree(v);
    std::printf("replay_declines: value=%u %s\n", h, h == 4 ? "ok" : "WRONG");
    return h == 4 ? 0 : 1;
}
