// benchmarks/cuda/programs/graph_nodes_check.cu — kernel replay of CUDA graph nodes on a real
// driver, for what the fake driver's test (test/cuda/graph_program.cpp) can only imitate: a
// kernel node's launch attributes and an exec changed through an export encore has no typed
// wrapper for. Hopper or later (thread block clusters); built by prebuild_gpu.sh trace:
//   nvcc -arch=sm_90 -o build-gpu-trace/graph_nodes_check benchmarks/cuda/programs/graph_nodes_check.cu -lcuda
// Run bare and under `encore-replay --backend cuda -n 3 --verify`: the output must be the same.
//   - "cluster": where(a) captured from cudaLaunchKernelEx with cluster dimensions (2, 1, 1), a
//     size given at run time (not compiled in), launched twice. Each block writes the size of the
//     cluster it ran in: a replayed node launched without its attribute writes 1.
//   - "v1 update": where(b) captured and instantiated, then the exec updated to where(c) with
//     cuGraphExecUpdate's v1 ABI (from cuGetProcAddress, as a program built with CUDA 11 gets it),
//     launched twice: c is written, b is not. Replay following the instantiated plan would write b.
// Prints what a plain captured node's launch attributes read (encore carries those not all zeros;
// libencore-cuda's graph_nodes.cpp), what each buffer holds and "graph_nodes_check: ok" when it is
// what one run gives.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

__global__ void where(unsigned* out) {
    if (threadIdx.x == 0) out[blockIdx.x] = cg::this_cluster().num_blocks();
}

#define CHECK(x)                                                                         \
    do {                                                                                 \
        const auto r_ = (x);                                                             \
        if (static_cast<int>(r_) != 0) {                                                 \
            std::printf("graph_nodes_check: %s failed: %d\n", #x, static_cast<int>(r_)); \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

namespace {
constexpr unsigned blocks = 8;
// cuGraphExecUpdate before CUDA 12.0: the node that failed and why.
using exec_update_v1 = CUresult (*)(CUgraphExec, CUgraph, CUgraphNode*, CUgraphExecUpdateResult*);

int capture(cudaStream_t s, unsigned* out, bool cluster, cudaGraph_t& g) {
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute attr{};
    cfg.gridDim = dim3(blocks), cfg.blockDim = dim3(32), cfg.stream = s;
    if (cluster) {
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = 2, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
        cfg.attrs = &attr, cfg.numAttrs = 1;
    }
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaLaunchKernelEx(&cfg, where, out));
    CHECK(cudaStreamEndCapture(s, &g));
    return 0;
}
}  // namespace

int main() {
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    unsigned* d = nullptr;
    CHECK(cudaMalloc(&d, 3 * blocks * sizeof(unsigned)));
    CHECK(cudaMemset(d, 0, 3 * blocks * sizeof(unsigned)));
    unsigned *a = d, *b = d + blocks, *c = d + 2 * blocks;

    cudaGraph_t ga, gb, gc;
    cudaGraphExec_t ea, eb;
    if (capture(s, a, true, ga) != 0 || capture(s, b, false, gb) != 0 || capture(s, c, false, gc) != 0) return 1;
    {  // the attributes of a node nothing set any on (b's), as the driver reads them
        cudaGraphNode_t node;
        std::size_t one = 1;
        CHECK(cudaGraphGetNodes(gb, &node, &one));
        for (const int id : {1, 2, 4, 5, 8, 9, 10, 11, 13, 16}) {
            CUkernelNodeAttrValue v{};
            const CUresult r = cuGraphKernelNodeGetAttribute(reinterpret_cast<CUgraphNode>(node),
                                                             static_cast<CUkernelNodeAttrID>(id), &v);
            const auto* bytes = reinterpret_cast<const unsigned char*>(&v);
            std::printf("graph_nodes_check: plain node attribute %d: result %d, bytes", id, static_cast<int>(r));
            for (int i = 0; i < 16; ++i) std::printf(" %02x", bytes[i]);
            std::printf("\n");
        }
    }
    CHECK(cudaGraphInstantiate(&ea, ga, 0));
    CHECK(cudaGraphInstantiate(&eb, gb, 0));
    void* fn = nullptr;
    CUdriverProcAddressQueryResult found{};
    CHECK(cuGetProcAddress("cuGraphExecUpdate", &fn, 11080, CU_GET_PROC_ADDRESS_DEFAULT, &found));
    if (fn == nullptr) return std::printf("graph_nodes_check: no v1 cuGraphExecUpdate\n"), 1;
    CUgraphNode error_node = nullptr;
    CUgraphExecUpdateResult result{};
    CHECK(reinterpret_cast<exec_update_v1>(fn)(eb, gc, &error_node, &result));
    for (int k = 0; k < 2; ++k) {
        CHECK(cudaGraphLaunch(ea, s));
        CHECK(cudaGraphLaunch(eb, s));
    }
    CHECK(cudaStreamSynchronize(s));

    std::vector<unsigned> h(3 * blocks);
    CHECK(cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (const char* name : {"a", "b", "c"}) {
        const unsigned i = static_cast<unsigned>(name[0] - 'a');
        std::printf("graph_nodes_check: %s =", name);
        for (unsigned j = 0; j < blocks; ++j) {
            const unsigned v = h[i * blocks + j];
            std::printf(" %u", v);
            ok = ok && v == (i == 0 ? 2u : i == 1 ? 0u : 1u);  // a: clusters of 2; b: never run; c: no cluster
        }
        std::printf("\n");
    }
    CHECK(cudaGraphExecDestroy(ea));
    CHECK(cudaGraphExecDestroy(eb));
    for (cudaGraph_t g : {ga, gb, gc}) CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(d));
    std::printf("graph_nodes_check: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
