// test/cuda/frontend_program.cpp — the program encore-trace's CUDA front end is tested on
// (check_frontend.py), on the fake driver: a driver-API workload (allocations, copies each way,
// launches of two kernels, one with a mangled C++ name) annotated with NVTX ranges and marks
// (push/pop, start/end, a domain range with a registered message, a wide-string range, marks);
// the two scale launches between cuProfilerStart and cuProfilerStop (encore-trace
// --selected-regions traces only those). Prints "frontend_program: ok" when the kernels' results
// are right and the profiler calls reached the driver.
#include "fake_driver.h"
#include "nvtx_client.hpp"

#include "check_call.hpp"

#include <cuda.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr const char* check_program = "frontend_program";  // for CHECK (check_call.hpp)

// cudaProfiler.h's (CUDA 11.8's Debian package, which CI builds against, has cuda.h alone).
extern "C" CUresult cuProfilerStart();
extern "C" CUresult cuProfilerStop();

namespace {

// c[i] = a[i] + b[i]; params: float* c, const float* a, const float* b, int n.
void vector_add(const unsigned[3], const unsigned[3], void** p) {
    auto* c = *static_cast<float**>(p[0]);
    const auto* a = *static_cast<const float**>(p[1]);
    const auto* b = *static_cast<const float**>(p[2]);
    const int n = *static_cast<int*>(p[3]);
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
// x[i] *= s; params: float* x, float s, int n.
void scale(const unsigned[3], const unsigned[3], void** p) {
    auto* x = *static_cast<float**>(p[0]);
    const float s = *static_cast<float*>(p[1]);
    const int n = *static_cast<int*>(p[2]);
    for (int i = 0; i < n; ++i) x[i] *= s;
}
// The names a compiler gives them: vector_add(float*, float const*, float const*, int) mangled,
// scale as extern "C".
const fake_cuda_module g_module = {2, {{"_Z10vector_addPfPKfS1_i", &vector_add}, {"scale", &scale}}};

}  // namespace

int main() {
    nvtxRangePushA("setup");
    CUdevice dev;
    CUcontext ctx;
    CHECK(open_device0(dev, ctx));
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, &g_module));
    CUfunction add, scl;
    CHECK(cuModuleGetFunction(&add, mod, "_Z10vector_addPfPKfS1_i"));
    CHECK(cuModuleGetFunction(&scl, mod, "scale"));
    int n = 1024;
    const std::size_t bytes = n * sizeof(float);
    std::vector<float> a(n), b(n), c(n, 0);
    for (int i = 0; i < n; ++i) a[i] = static_cast<float>(i), b[i] = static_cast<float>(2 * i);
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, bytes));
    CHECK(cuMemAlloc(&db, bytes));
    CHECK(cuMemAlloc(&dc, 2 * bytes));
    CHECK(cuMemcpyHtoD(da, a.data(), bytes));
    CHECK(cuMemcpyHtoD(db, b.data(), bytes));
    nvtxRangePop();

    const nvtxDomainHandle_t domain = nvtxDomainCreateA("frontend");
    nvtxEventAttributes_t attr{};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    attr.message.registered = nvtxDomainRegisterStringA(domain, "registered range");
    const nvtxRangeId_t epoch = nvtxRangeStartA("epoch");
    for (int step = 0; step < 3; ++step) {
        nvtxRangePushA("step");
        void* add_params[] = {&dc, &da, &db, &n};
        CHECK(cuLaunchKernel(add, 4, 1, 1, 256, 1, 1, 0, nullptr, add_params, nullptr));
        nvtxMarkA("launched");
        nvtxRangePop();
    }
    nvtxRangeEnd(epoch);
    nvtxDomainRangePushEx(domain, &attr);
    // The fake driver's flag says whether the profiler calls reached it (through encore's hooks
    // when encore-trace --selected-regions made them roctx's control too).
    const char* driver = std::getenv("ENCORE_CUDA_DRIVER");
    void* fake = driver != nullptr ? ::dlopen(driver, RTLD_NOW) : nullptr;
    const auto profiling = fake != nullptr ? reinterpret_cast<int (*)()>(::dlsym(fake, "fake_cuda_profiling")) : nullptr;
    CHECK(cuProfilerStart());
    bool profiled = profiling != nullptr && profiling() == 1;
    float s = 0.5f;
    for (int k = 0; k < 2; ++k) {
        void* scale_params[] = {&dc, &s, &n};
        CHECK(cuLaunchKernel(scl, 4, 1, 1, 256, 1, 1, 0, nullptr, scale_params, nullptr));
    }
    CHECK(cuProfilerStop());
    profiled = profiled && profiling() == 0;
    nvtxDomainRangePop(domain);
    nvtxRangePushW(L"wide \u00fc");
    CHECK(cuMemcpyDtoH(c.data(), dc, bytes));
    nvtxRangePop();
    nvtxEventAttributes_t mark{};
    mark.version = NVTX_VERSION;
    mark.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    mark.messageType = NVTX_MESSAGE_TYPE_ASCII;
    mark.message.ascii = "copied back";
    nvtxMarkEx(&mark);
    nvtxDomainMarkEx(domain, &mark);
    CHECK(cuMemFree(da));
    CHECK(cuMemFree(db));
    CHECK(cuMemFree(dc));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && c[i] == 0.75f * static_cast<float>(i);  // (i + 2i) / 4
    if (!profiled) std::printf("frontend_program: cuProfilerStart/Stop did not reach the driver\n");
    ok = ok && profiled;
    std::printf("frontend_program: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
