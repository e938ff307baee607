// test/hip/fake_hip.cpp — a stand-in HIP runtime whose stream, event and graph calls succeed,
// loaded by libencore-hip through ENCORE_HIP_LIBRARY: the success paths of HIP_STREAM /
// HIP_EVENT / HIP_GRAPH records, which the real runtime never takes without a GPU.
#include <hip/hip_runtime_api.h>

#include <cstdint>

namespace {
std::uintptr_t g_next = 0x10000;
template <class T>
T fresh() {
    g_next += 0x100;
    return reinterpret_cast<T>(g_next);
}
}  // namespace

extern "C" {
__attribute__((visibility("default"))) hipError_t hipStreamCreate(hipStream_t* s) {
    if (s == nullptr) return hipErrorInvalidValue;
    *s = fresh<hipStream_t>();
    return hipSuccess;
}
__attribute__((visibility("default"))) hipError_t hipStreamDestroy(hipStream_t s) {
    return s == nullptr ? hipErrorInvalidHandle : hipSuccess;
}
__attribute__((visibility("default"))) hipError_t hipStreamQuery(hipStream_t) { return hipSuccess; }
__attribute__((visibility("default"))) hipError_t hipEventRecord(hipEvent_t, hipStream_t) { return hipSuccess; }
__attribute__((visibility("default"))) hipError_t hipStreamWaitEvent(hipStream_t, hipEvent_t, unsigned int) {
    return hipSuccess;
}
__attribute__((visibility("default"))) hipError_t hipGraphInstantiate(hipGraphExec_t* e, hipGraph_t, hipGraphNode_t*,
                                                                      char*, size_t) {
    if (e == nullptr) return hipErrorInvalidValue;
    *e = fresh<hipGraphExec_t>();
    return hipSuccess;
}
__attribute__((visibility("default"))) hipError_t hipGraphLaunch(hipGraphExec_t, hipStream_t) { return hipSuccess; }
__attribute__((visibility("default"))) hipError_t hipGraphExecDestroy(hipGraphExec_t e) {
    return e == nullptr ? hipErrorInvalidValue : hipSuccess;
}
__attribute__((visibility("default"))) hipError_t hipRuntimeGetVersion(int* v) {
    *v = 12345;
    return hipSuccess;
}
}
