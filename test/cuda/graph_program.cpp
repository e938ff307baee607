// test/cuda/graph_program.cpp — the program kernel replay of CUDA graph nodes is tested on
// (check_graph_frontend.py), on the fake driver. Three graphs, each instantiated and its graph
// destroyed before its exec is launched:
//   - "main": triple(x) and bump(c) captured, then a memset node (m = 0x01020304), a memcpy node
//     (w = x, device to device) and a child graph node (an empty node, add_to(z, x), add_to(z, m),
//     bump(c)), launched 3 times: every kernel reads what the previous launch left, so a replayed
//     pass that did not start from its inputs, or a node run twice, changes the result;
//   - "host": bump(c2) and a host node (host_calls += 1), launched twice: declined (host node);
//   - "updated": twice(y), the exec changed after instantiation (cuGraphNodeSetEnabled), launched
//     twice: declined.
// Prints its results and "graph_program: ok" when they are what one run of each graph launch
// gives: replayed or not, the output must be the same.
#include "fake_driver.h"

#include "check_call.hpp"

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <vector>

constexpr const char* check_program = "graph_program";  // for CHECK (check_call.hpp)

namespace {

// x[i] = 3 x[i] + 1; params: unsigned* x, unsigned n.
void triple(const unsigned[3], const unsigned[3], void** p) {
    auto* x = *static_cast<unsigned**>(p[0]);
    const unsigned n = *static_cast<unsigned*>(p[1]);
    for (unsigned i = 0; i < n; ++i) x[i] = 3 * x[i] + 1;
}
// dst[i] += src[i]; params: unsigned* dst, const unsigned* src, unsigned n.
void add_to(const unsigned[3], const unsigned[3], void** p) {
    auto* dst = *static_cast<unsigned**>(p[0]);
    const auto* src = *static_cast<const unsigned**>(p[1]);
    const unsigned n = *static_cast<unsigned*>(p[2]);
    for (unsigned i = 0; i < n; ++i) dst[i] += src[i];
}
// c[0] += 1; params: unsigned* c.
void bump(const unsigned[3], const unsigned[3], void** p) { ++**static_cast<unsigned**>(p[0]); }
// x[i] *= 2; params: unsigned* x, unsigned n.
void twice(const unsigned[3], const unsigned[3], void** p) {
    auto* x = *static_cast<unsigned**>(p[0]);
    const unsigned n = *static_cast<unsigned*>(p[1]);
    for (unsigned i = 0; i < n; ++i) x[i] *= 2;
}
constexpr unsigned ptr_u32[] = {8, 4, 0};
constexpr unsigned ptr_ptr_u32[] = {8, 8, 4, 0};
constexpr unsigned ptr_only[] = {8, 0};
const fake_cuda_module g_module = {4,
                                   {{"triple", &triple, ptr_u32},
                                    {"add_to", &add_to, ptr_ptr_u32},
                                    {"bump", &bump, ptr_only},
                                    {"twice", &twice, ptr_u32}}};

void host_node(void* calls) { ++*static_cast<unsigned*>(calls); }

std::uint64_t sum(const std::vector<unsigned>& v) {
    std::uint64_t s = 0;
    for (unsigned i = 0; i < v.size(); ++i) s = s * 31 + v[i];
    return s;
}

}  // namespace

int main() {
    CUdevice dev;
    CUcontext ctx;
    CHECK(open_device0(dev, ctx));
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, &g_module));
    CUfunction ftriple, fadd, fbump, ftwice;
    CHECK(cuModuleGetFunction(&ftriple, mod, "triple"));
    CHECK(cuModuleGetFunction(&fadd, mod, "add_to"));
    CHECK(cuModuleGetFunction(&fbump, mod, "bump"));
    CHECK(cuModuleGetFunction(&ftwice, mod, "twice"));
    CUstream stream;
    CHECK(cuStreamCreate(&stream, 0));
    unsigned n = 256;
    const std::size_t bytes = n * 4;
    std::vector<unsigned> x(n), y(n), zero(n, 0);
    for (unsigned i = 0; i < n; ++i) x[i] = i % 7, y[i] = i % 5 + 1;
    CUdeviceptr dx, dz, dw, dm, dy, dc, dc2;
    for (CUdeviceptr* p : {&dx, &dz, &dw, &dm, &dy}) CHECK(cuMemAlloc(p, bytes));
    CHECK(cuMemAlloc(&dc, 256));
    CHECK(cuMemAlloc(&dc2, 256));
    CHECK(cuMemcpyHtoD(dx, x.data(), bytes));
    CHECK(cuMemcpyHtoD(dy, y.data(), bytes));
    for (CUdeviceptr p : {dz, dw, dm}) CHECK(cuMemcpyHtoD(p, zero.data(), bytes));
    CHECK(cuMemcpyHtoD(dc, zero.data(), 4));
    CHECK(cuMemcpyHtoD(dc2, zero.data(), 4));

    // "main": two captured kernels, a memset, a memcpy and a child graph.
    CUgraph child, main_graph;
    {
        void* add_x[] = {&dz, &dx, &n};
        void* add_m[] = {&dz, &dm, &n};
        void* count[] = {&dc};
        CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
        CHECK(cuLaunchKernel(fadd, 1, 1, 1, 64, 1, 1, 0, stream, add_x, nullptr));
        CHECK(cuLaunchKernel(fadd, 1, 1, 1, 64, 1, 1, 0, stream, add_m, nullptr));
        CHECK(cuLaunchKernel(fbump, 1, 1, 1, 1, 1, 1, 0, stream, count, nullptr));
        CHECK(cuStreamEndCapture(stream, &child));
    }
    {
        void* tri[] = {&dx, &n};
        void* count[] = {&dc};
        CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
        CHECK(cuLaunchKernel(ftriple, 1, 1, 1, 64, 1, 1, 0, stream, tri, nullptr));
        CHECK(cuLaunchKernel(fbump, 1, 1, 1, 1, 1, 1, 0, stream, count, nullptr));
        CHECK(cuStreamEndCapture(stream, &main_graph));
    }
    CUgraphNode node;
    CUDA_MEMSET_NODE_PARAMS set{};
    set.dst = dm, set.value = 0x01020304u, set.elementSize = 4, set.width = n, set.height = 1;
    CHECK(cuGraphAddMemsetNode(&node, main_graph, nullptr, 0, &set, ctx));
    CUDA_MEMCPY3D copy{};
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE, copy.srcDevice = dx;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE, copy.dstDevice = dw;
    copy.WidthInBytes = bytes, copy.Height = 1, copy.Depth = 1;
    CHECK(cuGraphAddMemcpyNode(&node, main_graph, nullptr, 0, &copy, ctx));
    CUgraph child_with_empty;  // an empty node first, then the captured kernels
    CHECK(cuGraphCreate(&child_with_empty, 0));
    CHECK(cuGraphAddEmptyNode(&node, child_with_empty, nullptr, 0));
    CHECK(cuGraphAddChildGraphNode(&node, child_with_empty, nullptr, 0, child));
    CHECK(cuGraphAddChildGraphNode(&node, main_graph, nullptr, 0, child_with_empty));
    CUgraphExec main_exec;
    CHECK(cuGraphInstantiateWithFlags(&main_exec, main_graph, 0));
    CHECK(cuGraphDestroy(main_graph));
    CHECK(cuGraphDestroy(child_with_empty));
    CHECK(cuGraphDestroy(child));

    // "host": a kernel and a host node.
    unsigned host_calls = 0;
    CUgraph host_graph;
    {
        void* count[] = {&dc2};
        CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
        CHECK(cuLaunchKernel(fbump, 1, 1, 1, 1, 1, 1, 0, stream, count, nullptr));
        CHECK(cuStreamEndCapture(stream, &host_graph));
    }
    CUDA_HOST_NODE_PARAMS host{};
    host.fn = &host_node, host.userData = &host_calls;
    CHECK(cuGraphAddHostNode(&node, host_graph, nullptr, 0, &host));
    CUgraphExec host_exec;
    CHECK(cuGraphInstantiateWithFlags(&host_exec, host_graph, 0));
    CHECK(cuGraphDestroy(host_graph));

    // "updated": one kernel, the exec changed after instantiation.
    CUgraph updated_graph;
    {
        void* dbl[] = {&dy, &n};
        CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
        CHECK(cuLaunchKernel(ftwice, 1, 1, 1, 64, 1, 1, 0, stream, dbl, nullptr));
        CHECK(cuStreamEndCapture(stream, &updated_graph));
    }
    std::size_t count = 1;
    CHECK(cuGraphGetNodes(updated_graph, &node, &count));
    CUgraphExec updated_exec;
    CHECK(cuGraphInstantiateWithFlags(&updated_exec, updated_graph, 0));
    CHECK(cuGraphNodeSetEnabled(updated_exec, node, 1));
    CHECK(cuGraphDestroy(updated_graph));

    for (int k = 0; k < 3; ++k) CHECK(cuGraphLaunch(main_exec, stream));
    for (int k = 0; k < 2; ++k) CHECK(cuGraphLaunch(host_exec, stream));
    for (int k = 0; k < 2; ++k) CHECK(cuGraphLaunch(updated_exec, stream));
    CHECK(cuStreamSynchronize(stream));

    std::vector<unsigned> ox(n), oz(n), ow(n), om(n), oy(n);
    unsigned c = 0, c2 = 0;
    CHECK(cuMemcpyDtoH(ox.data(), dx, bytes));
    CHECK(cuMemcpyDtoH(oz.data(), dz, bytes));
    CHECK(cuMemcpyDtoH(ow.data(), dw, bytes));
    CHECK(cuMemcpyDtoH(om.data(), dm, bytes));
    CHECK(cuMemcpyDtoH(oy.data(), dy, bytes));
    CHECK(cuMemcpyDtoH(&c, dc, 4));
    CHECK(cuMemcpyDtoH(&c2, dc2, 4));
    for (CUgraphExec e : {main_exec, host_exec, updated_exec}) CHECK(cuGraphExecDestroy(e));
    for (CUdeviceptr p : {dx, dz, dw, dm, dy, dc, dc2}) CHECK(cuMemFree(p));
    CHECK(cuStreamDestroy(stream));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));

    // The same on the host, each graph launch once.
    std::vector<unsigned> wx = x, wz(n, 0), ww(n, 0), wm(n, 0), wy = y;
    for (int k = 0; k < 3; ++k)
        for (unsigned i = 0; i < n; ++i) {
            wx[i] = 3 * wx[i] + 1;
            wm[i] = 0x01020304u;
            ww[i] = wx[i];
            wz[i] += wx[i] + wm[i];
        }
    for (unsigned i = 0; i < n; ++i) wy[i] *= 4;
    const bool ok = ox == wx && oz == wz && ow == ww && om == wm && oy == wy && c == 6 && c2 == 2 && host_calls == 2;
    std::printf("graph_program: x=%llu z=%llu w=%llu m=%llu y=%llu c=%u c2=%u host_calls=%u\n",
                static_cast<unsigned long long>(sum(ox)), static_cast<unsigned long long>(sum(oz)),
                static_cast<unsigned long long>(sum(ow)), static_cast<unsigned long long>(sum(om)),
                static_cast<unsigned long long>(sum(oy)), c, c2, host_calls);
    std::printf("graph_program: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
