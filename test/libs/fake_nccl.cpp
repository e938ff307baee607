// test/libs/fake_nccl.cpp — a stand-in NCCL (built as libnccl.so.2 in the test suite: no NCCL or
// RCCL package exists here), which libencore-rccl forwards to. Every function records what it was
// called with (fake_log.hpp) and returns a value of its own, so a test sees that encore passed
// the arguments through and the results back unchanged:
//   return code   (its RCCL_API op id + 1) modulo ncclNumResults (ncclSuccess for some, e.g.
//                 ncclGetVersion, whose version encore reports; a failure for others)
//   out-params    fixed values (version 21903, comm 0xc0110000 + n, count 7, device 3, rank 5...)
//   strings       "fake-nccl: ..." texts
// encore_test_fake_nccl_log() returns the calls so far; ncclBcast (which RCCL_API does not list)
// is here too, to check that a function encore does not export reaches the library untraced.
// ncclCommInitAll calls ncclGroupStart and ncclGroupEnd through its exports, as NCCL's does.
#include "fake_log.hpp"

#include <rocprofiler-sdk/rccl/api_id.h>
#include <rocprofiler-sdk/rccl/details/rccl.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

#define FAKE extern "C" __attribute__((visibility("default")))

namespace {
std::mutex g_mutex;
std::string g_log;
std::uintptr_t g_next_comm = 0xc0110000;

template <class... A>
ncclResult_t record(rocprofiler_rccl_api_id_t id, const char* name, const A&... a) {
    std::lock_guard lk(g_mutex);
    g_log += fake_log::call(name, a...);
    return static_cast<ncclResult_t>((static_cast<int>(id) + 1) % ncclNumResults);
}
#define RECORD(NAME, ...) record(ROCPROFILER_RCCL_API_ID_##NAME, #NAME, __VA_ARGS__)
#define RECORD0(NAME) record(ROCPROFILER_RCCL_API_ID_##NAME, #NAME)

ncclComm_t new_comm() {
    std::lock_guard lk(g_mutex);
    g_next_comm += 0x10;
    return reinterpret_cast<ncclComm_t>(g_next_comm);
}
}  // namespace

FAKE const char* encore_test_fake_nccl_log() {
    static thread_local std::string copy;
    std::lock_guard lk(g_mutex);
    copy = g_log;
    return copy.c_str();
}
FAKE void encore_test_fake_nccl_reset() {
    std::lock_guard lk(g_mutex);
    g_log.clear();
}

FAKE ncclResult_t ncclAllGather(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t c, hipStream_t st) {
    return RECORD(ncclAllGather, s, r, n, t, c, st);
}
FAKE ncclResult_t ncclAllReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c,
                                hipStream_t st) {
    return RECORD(ncclAllReduce, s, r, n, t, op, c, st);
}
FAKE ncclResult_t ncclAllToAll(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t c, hipStream_t st) {
    return RECORD(ncclAllToAll, s, r, n, t, c, st);
}
FAKE ncclResult_t ncclAllToAllv(const void* s, const size_t sc[], const size_t sd[], void* r, const size_t rc[],
                                const size_t rd[], ncclDataType_t t, ncclComm_t c, hipStream_t st) {
    return RECORD(ncclAllToAllv, s, sc, sd, r, rc, rd, t, c, st);
}
FAKE ncclResult_t ncclBroadcast(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t c,
                                hipStream_t st) {
    return RECORD(ncclBroadcast, s, r, n, t, root, c, st);
}
FAKE ncclResult_t ncclBcast(void* b, size_t n, ncclDataType_t t, int root, ncclComm_t c, hipStream_t st) {
    std::lock_guard lk(g_mutex);
    g_log += fake_log::call("ncclBcast", b, n, t, root, c, st);
    return ncclSuccess;
}
FAKE ncclResult_t ncclGather(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t c, hipStream_t st) {
    return RECORD(ncclGather, s, r, n, t, root, c, st);
}
FAKE ncclResult_t ncclReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, int root, ncclComm_t c,
                             hipStream_t st) {
    return RECORD(ncclReduce, s, r, n, t, op, root, c, st);
}
FAKE ncclResult_t ncclReduceScatter(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c,
                                    hipStream_t st) {
    return RECORD(ncclReduceScatter, s, r, n, t, op, c, st);
}
FAKE ncclResult_t ncclScatter(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t c, hipStream_t st) {
    return RECORD(ncclScatter, s, r, n, t, root, c, st);
}
FAKE ncclResult_t ncclSend(const void* s, size_t n, ncclDataType_t t, int peer, ncclComm_t c, hipStream_t st) {
    return RECORD(ncclSend, s, n, t, peer, c, st);
}
FAKE ncclResult_t ncclRecv(void* r, size_t n, ncclDataType_t t, int peer, ncclComm_t c, hipStream_t st) {
    return RECORD(ncclRecv, r, n, t, peer, c, st);
}
FAKE ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t* op, void* scalar, ncclDataType_t t, ncclScalarResidence_t res,
                                           ncclComm_t c) {
    if (op != nullptr) *op = static_cast<ncclRedOp_t>(ncclNumOps + 2);
    return RECORD(ncclRedOpCreatePreMulSum, op, scalar, t, res, c);
}
FAKE ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t c) { return RECORD(ncclRedOpDestroy, op, c); }
FAKE ncclResult_t ncclGroupStart(void) { return RECORD0(ncclGroupStart); }
FAKE ncclResult_t ncclGroupEnd(void) { return RECORD0(ncclGroupEnd); }
FAKE ncclResult_t ncclGetVersion(int* v) {
    if (v != nullptr) *v = 21903;
    return RECORD(ncclGetVersion, v);
}
FAKE ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
    if (id != nullptr) std::memset(id->internal, 'F', sizeof id->internal);
    return RECORD(ncclGetUniqueId, id);
}
FAKE ncclResult_t ncclCommInitRank(ncclComm_t* c, int nranks, ncclUniqueId id, int rank) {
    if (c != nullptr) *c = new_comm();
    return RECORD(ncclCommInitRank, c, nranks, id, rank);
}
FAKE ncclResult_t ncclCommInitAll(ncclComm_t* c, int ndev, const int* devs) {
    // As NCCL's does: a group around the ranks' initialization, through the library's own
    // exports (the PLT: an interposer preloaded ahead of the library sees these calls too).
    (void)ncclGroupStart();
    for (int i = 0; c != nullptr && i < ndev; ++i) c[i] = new_comm();
    (void)ncclGroupEnd();
    return RECORD(ncclCommInitAll, c, ndev, devs);
}
FAKE ncclResult_t ncclCommInitRankConfig(ncclComm_t* c, int nranks, ncclUniqueId id, int rank, ncclConfig_t* cfg) {
    if (c != nullptr) *c = new_comm();
    return RECORD(ncclCommInitRankConfig, c, nranks, id, rank, cfg);
}
FAKE ncclResult_t ncclCommFinalize(ncclComm_t c) { return RECORD(ncclCommFinalize, c); }
FAKE ncclResult_t ncclCommDestroy(ncclComm_t c) { return RECORD(ncclCommDestroy, c); }
FAKE ncclResult_t ncclCommAbort(ncclComm_t c) { return RECORD(ncclCommAbort, c); }
FAKE ncclResult_t ncclCommSplit(ncclComm_t c, int color, int key, ncclComm_t* nc, ncclConfig_t* cfg) {
    if (nc != nullptr) *nc = new_comm();
    return RECORD(ncclCommSplit, c, color, key, nc, cfg);
}
FAKE const char* ncclGetErrorString(ncclResult_t code) {
    static const char* const text[] = {"fake-nccl: success",  "fake-nccl: cuda error",       "fake-nccl: system error",
                                       "fake-nccl: internal", "fake-nccl: invalid argument", "fake-nccl: invalid usage",
                                       "fake-nccl: remote",   "fake-nccl: in progress"};
    (void)RECORD(ncclGetErrorString, code);
    const int i = static_cast<int>(code);
    return i >= 0 && i < ncclNumResults ? text[i] : "fake-nccl: unknown code";
}
FAKE const char* ncclGetLastError(ncclComm_t c) {
    (void)RECORD(ncclGetLastError, c);
    return "fake-nccl: the last error";
}
FAKE ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t* e) {
    if (e != nullptr) *e = ncclRemoteError;
    return RECORD(ncclCommGetAsyncError, c, e);
}
FAKE ncclResult_t ncclCommCount(const ncclComm_t c, int* n) {
    if (n != nullptr) *n = 7;
    return RECORD(ncclCommCount, c, n);
}
FAKE ncclResult_t ncclCommCuDevice(const ncclComm_t c, int* d) {
    if (d != nullptr) *d = 3;
    return RECORD(ncclCommCuDevice, c, d);
}
FAKE ncclResult_t ncclCommUserRank(const ncclComm_t c, int* r) {
    if (r != nullptr) *r = 5;
    return RECORD(ncclCommUserRank, c, r);
}
FAKE ncclResult_t ncclMemAlloc(void** p, size_t n) {
    static char arena[64];
    if (p != nullptr) *p = arena;
    return RECORD(ncclMemAlloc, p, n);
}
FAKE ncclResult_t ncclMemFree(void* p) { return RECORD(ncclMemFree, p); }
FAKE ncclResult_t mscclLoadAlgo(const char* path, mscclAlgoHandle_t* h, int rank) {
    if (h != nullptr) *h = 42;
    return RECORD(mscclLoadAlgo, path, h, rank);
}
FAKE ncclResult_t mscclRunAlgo(const void* s, const size_t sc[], const size_t sd[], void* r, const size_t rc[],
                               const size_t rd[], size_t n, ncclDataType_t t, int root, int peer, ncclRedOp_t op,
                               mscclAlgoHandle_t h, ncclComm_t c, hipStream_t st) {
    return RECORD(mscclRunAlgo, s, sc, sd, r, rc, rd, n, t, root, peer, op, h, c, st);
}
FAKE ncclResult_t mscclUnloadAlgo(mscclAlgoHandle_t h) { return RECORD(mscclUnloadAlgo, h); }
FAKE ncclResult_t ncclCommRegister(const ncclComm_t c, void* b, size_t n, void** h) {
    if (h != nullptr) *h = b;
    return RECORD(ncclCommRegister, c, b, n, h);
}
FAKE ncclResult_t ncclCommDeregister(const ncclComm_t c, void* h) { return RECORD(ncclCommDeregister, c, h); }
