// test/cuda/range_program.cpp — the program `encore-replay --range step --backend cuda` is tested
// on (check_range_frontend.py), on the fake driver: three NVTX ranges named "step", each a
// read-modify-write kernel, a kernel that adds, and a CUDA graph of both (captured once, before
// the steps), one range named "other" that is never replayed, and the graph launched once outside
// any range. Each step's kernels read what
// the previous step left, so a pass that did not start from the step's inputs, or an end state
// that is not pass 0's, changes the result. Prints its result and "range_program: ok" when it is
// what one run of each step gives: replayed or not, the output must be the same.
#include "fake_driver.h"
#include "nvtx_client.hpp"

#include "check_call.hpp"

#include <cuda.h>

#include <cstdio>
#include <vector>

constexpr const char* check_program = "range_program";  // for CHECK (check_call.hpp)

namespace {

// x[i] = 3 x[i] + 1; params: unsigned* x, unsigned n.
void triple(const unsigned[3], const unsigned[3], void** p) {
    auto* x = *static_cast<unsigned**>(p[0]);
    const unsigned n = *static_cast<unsigned*>(p[1]);
    for (unsigned i = 0; i < n; ++i) x[i] = 3 * x[i] + 1;
}
// x[i] += i; params: unsigned* x, unsigned n.
void add_index(const unsigned[3], const unsigned[3], void** p) {
    auto* x = *static_cast<unsigned**>(p[0]);
    const unsigned n = *static_cast<unsigned*>(p[1]);
    for (unsigned i = 0; i < n; ++i) x[i] += i;
}
constexpr unsigned ptr_u32[] = {8, 4, 0};
const fake_cuda_module g_module = {2, {{"triple", &triple, ptr_u32}, {"add_index", &add_index, ptr_u32}}};

}  // namespace

int main() {
    CUdevice dev;
    CUcontext ctx;
    CHECK(open_device0(dev, ctx));
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, &g_module));
    CUfunction ftriple, fadd;
    CHECK(cuModuleGetFunction(&ftriple, mod, "triple"));
    CHECK(cuModuleGetFunction(&fadd, mod, "add_index"));
    CUstream stream;
    CHECK(cuStreamCreate(&stream, 0));
    unsigned n = 512;
    CUdeviceptr dx;
    CHECK(cuMemAlloc(&dx, n * 4));
    std::vector<unsigned> x(n);
    for (unsigned i = 0; i < n; ++i) x[i] = i % 7;
    CHECK(cuMemcpyHtoD(dx, x.data(), n * 4));
    void* params[] = {&dx, &n};
    CUgraph graph;
    CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(cuLaunchKernel(ftriple, 1, 1, 1, 64, 1, 1, 0, stream, params, nullptr));
    CHECK(cuLaunchKernel(fadd, 1, 1, 1, 64, 1, 1, 0, stream, params, nullptr));
    CHECK(cuStreamEndCapture(stream, &graph));
    CUgraphExec exec;
    CHECK(cuGraphInstantiateWithFlags(&exec, graph, 0));
    for (int step = 0; step < 3; ++step) {
        nvtxRangePushA("step");
        CHECK(cuLaunchKernel(ftriple, 1, 1, 1, 64, 1, 1, 0, stream, params, nullptr));
        CHECK(cuLaunchKernel(fadd, 1, 1, 1, 64, 1, 1, 0, stream, params, nullptr));
        CHECK(cuGraphLaunch(exec, stream));
        nvtxRangePop();
    }
    nvtxRangePushA("other");
    CHECK(cuLaunchKernel(fadd, 1, 1, 1, 64, 1, 1, 0, stream, params, nullptr));
    nvtxRangePop();
    CHECK(cuGraphLaunch(exec, stream));  // outside any range: under --range a range of its own
    CHECK(cuStreamSynchronize(stream));
    std::vector<unsigned> out(n);
    CHECK(cuMemcpyDtoH(out.data(), dx, n * 4));
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(graph));
    CHECK(cuMemFree(dx));
    CHECK(cuStreamDestroy(stream));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    // The same arithmetic on the host: each step (triple, add) twice, one add, then the graph.
    bool ok = true;
    unsigned long long sum = 0;
    for (unsigned i = 0; i < n; ++i) {
        unsigned want = i % 7;
        for (int k = 0; k < 6; ++k) want = 3 * want + 1 + i;
        want += i;
        want = 3 * want + 1 + i;
        ok = ok && out[i] == want;
        sum += out[i];
    }
    std::printf("range_program: sum=%llu\n", sum);
    std::printf("range_program: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
