// test/hip/fake_hip.cpp — a stand-in HIP runtime whose stream, event and graph calls succeed,
// loaded by libencore-hip through ENCORE_HIP_LIBRARY: the success paths of HIP_STREAM /
// HIP_EVENT / HIP_GRAPH records, which the real runtime never takes without a GPU.
//
// Stream callbacks (hipStreamAddCallback) are held until the stream is synchronized (or
// destroyed, or the device synchronized) and then run on a thread of their own, as HIP runs
// them on a runtime thread once the stream's earlier work is done. Two knobs for tests:
// encore_test_fake_hip_fail_add_callback(1) makes hipStreamAddCallback fail;
// encore_test_fake_hip_callback_status(e) runs callbacks with status e (a failed stream).
#include <hip/hip_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace {
std::uintptr_t g_next = 0x10000;
template <class T>
T fresh() {
    g_next += 0x100;
    return reinterpret_cast<T>(g_next);
}

struct callback {
    hipStream_t stream;
    hipStreamCallback_t fn;
    void* data;
};
std::mutex g_mutex;
std::vector<callback> g_pending;
bool g_fail_add = false;
hipError_t g_status = hipSuccess;

void run_callbacks(hipStream_t stream, bool all) {
    std::vector<callback> due;
    hipError_t status;
    {
        std::lock_guard lk(g_mutex);
        std::vector<callback> keep;
        for (const auto& c : g_pending) (all || c.stream == stream ? due : keep).push_back(c);
        g_pending.swap(keep);
        status = g_status;
    }
    if (due.empty()) return;
    std::thread([&] {
        for (const auto& c : due) c.fn(c.stream, status, c.data);
    }).join();
}
}  // namespace

extern "C" {
__attribute__((visibility("default"))) hipError_t hipStreamCreate(hipStream_t* s) {
    if (s == nullptr) return hipErrorInvalidValue;
    *s = fresh<hipStream_t>();
    return hipSuccess;
}
__attribute__((visibility("default"))) hipError_t hipStreamDestroy(hipStream_t s) {
    if (s == nullptr) return hipErrorInvalidHandle;
    run_callbacks(s, false);  // HIP finishes a stream's work before destroying it
    return hipSuccess;
}
__attribute__((visibility("default"))) hipError_t hipStreamAddCallback(hipStream_t s, hipStreamCallback_t fn,
                                                                       void* data, unsigned int flags) {
    if (fn == nullptr || flags != 0) return hipErrorInvalidValue;
    std::lock_guard lk(g_mutex);
    if (g_fail_add) return hipErrorNotSupported;
    g_pending.push_back({s, fn, data});
    return hipSuccess;
}
__attribute__((visibility("default"))) hipError_t hipStreamSynchronize(hipStream_t s) {
    run_callbacks(s, false);
    return hipSuccess;
}
__attribute__((visibility("default"))) hipError_t hipDeviceSynchronize() {
    run_callbacks(nullptr, true);
    return hipSuccess;
}
__attribute__((visibility("default"))) void encore_test_fake_hip_fail_add_callback(int fail) {
    std::lock_guard lk(g_mutex);
    g_fail_add = fail != 0;
}
__attribute__((visibility("default"))) void encore_test_fake_hip_callback_status(int status) {
    std::lock_guard lk(g_mutex);
    g_status = static_cast<hipError_t>(status);
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
