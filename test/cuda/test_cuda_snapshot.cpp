// test/cuda/test_cuda_snapshot.cpp — changed_chunks' chunked snapshot on the fake driver, its
// kernels run by the fake's host stand-ins (fake_chunks.cpp, ENCORE_FAKE_CUDA_CHUNK_KERNELS=1):
// the first snapshot of a layout classifies (all-zero chunks keep no copy: the shadow of 128 MiB
// of zeros takes well under 128 MiB), later ones of the same layout are incremental (only chunks
// whose hash changed are copied), and each stays exact when memory changes between dispatches:
//   - the host writes a chunk that has a copy, and a zero chunk (which then needs one);
//   - a kernel writes a zero chunk (the restore writes zeros back);
//   - a buffer is freed and another allocated (the layout changes, or, at the same address, only
//     the contents: the hashes catch it);
// with every pass of a launch starting from the same memory (checksums) and the final memory
// equal to the same program unreplayed; then a kernel whose writes depend on the pass (the
// write-set fallback, pass_dependent below). Passes: 3, or TEST_PASSES. The program is its own tool.
//   test_cuda_snapshot          (ENCORE_CUDA_REPLAY_SHADOW=device|host chooses the shadow)
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"
#include "fake_driver.h"

#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <cuda.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using test_support::expect;
#define CHECK(x) expect((x) == CUDA_SUCCESS, #x)

struct replay_stats {
    int configs = 0, declined = 0, passes = 0, differ = 0;
    std::string reason;
    std::vector<std::uint64_t> sums;
} g_r;
rocprofiler_context_id_t g_replay{};

// TEST_PASSES (default 3): with 5, the restores before passes 2 and 3 copy back only the chunks
// the first pass wrote (no hashing); the first restore and the one before the last hash all.
std::uint64_t pass_count() {
    const char* v = std::getenv("TEST_PASSES");
    return v != nullptr ? std::strtoull(v, nullptr, 10) : 3;
}
std::uint64_t three_passes(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return pass_count(); }

void on_replay(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    const bool enter = r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && enter) {
        ++g_r.configs;
        g_r.sums.clear();
        p->replay_pass_count = &three_passes;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG) {
        if (p->decline_reason != nullptr) {
            ++g_r.declined;
            g_r.reason = p->decline_reason;
        }
        for (auto s : g_r.sums) g_r.differ += s != g_r.sums.front() ? 1 : 0;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS && enter) {
        ++g_r.passes;
        std::uint64_t sum = 0;
        expect(encore_kernel_replay_checksum(&sum) == ROCPROFILER_STATUS_SUCCESS, "checksum at PASS ENTER");
        g_r.sums.push_back(sum);
    }
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    encore_kernel_replay_options_t o{};
    o.size = sizeof(o);
    o.policy = ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS;
    if (rocprofiler_create_context(&g_replay) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(g_replay, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                       &on_replay, nullptr) != ROCPROFILER_STATUS_SUCCESS ||
        encore_configure_kernel_replay_options(g_replay, &o) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_replay) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

// ---- host "kernels" (fake_driver.h) ------------------------------------------------------------
template <class T>
T* arg_ptr(void** params, int i) {
    return reinterpret_cast<T*>(*static_cast<CUdeviceptr*>(params[i]));
}
// add: p[i] += v for i < n (params: p, n, v)
void add(const unsigned[3], const unsigned[3], void** params) {
    unsigned* p = arg_ptr<unsigned>(params, 0);
    const unsigned n = *static_cast<unsigned*>(params[1]), v = *static_cast<unsigned*>(params[2]);
    for (unsigned i = 0; i < n; ++i) p[i] += v;
}
// sum: d[0] += s[0] + ... + s[n - 1] (params: d, s, n): reads s, writes one word
void sum(const unsigned[3], const unsigned[3], void** params) {
    unsigned* d = arg_ptr<unsigned>(params, 0);
    const unsigned* s = arg_ptr<const unsigned>(params, 1);
    const unsigned n = *static_cast<unsigned*>(params[2]);
    unsigned t = 0;
    for (unsigned i = 0; i < n; ++i) t += s[i];
    d[0] += t;
}
// hop: d[k * stride] += 1 with k = (*host)++ (params: d, host, stride): a kernel whose writes
// depend on the pass, through host memory no snapshot covers; each pass writes another chunk.
void hop(const unsigned[3], const unsigned[3], void** params) {
    unsigned* d = arg_ptr<unsigned>(params, 0);
    unsigned* host = *static_cast<unsigned**>(params[1]);
    const unsigned stride = *static_cast<unsigned*>(params[2]);
    d[(*host)++ * stride] += 1;
}
const fake_cuda_module g_module = {3, {{"add", &add}, {"sum", &sum}, {"hop", &hop}}};

CUfunction g_add = nullptr, g_sum = nullptr, g_hop = nullptr;
CUstream g_s = nullptr;

void launch_add(CUdeviceptr p, unsigned n, unsigned v) {
    void* params[] = {&p, &n, &v};
    CHECK(cuLaunchKernel(g_add, 1, 1, 1, 1, 1, 1, 0, g_s, params, nullptr));
}
void launch_sum(CUdeviceptr d, CUdeviceptr s, unsigned n) {
    void* params[] = {&d, &s, &n};
    CHECK(cuLaunchKernel(g_sum, 1, 1, 1, 1, 1, 1, 0, g_s, params, nullptr));
}

constexpr std::size_t chunk = 64 * 1024;          // changed_chunks' smallest chunk on CUDA
constexpr std::size_t a_bytes = 4 * chunk + 100;  // a short last chunk
constexpr std::size_t b_bytes = 128ull << 20;     // zeros, mostly
constexpr std::size_t w = sizeof(unsigned);

std::size_t free_bytes() {
    std::size_t f = 0, t = 0;
    CHECK(cuMemGetInfo(&f, &t));
    return f;
}

struct result {
    std::vector<unsigned> a, b, c;
    std::size_t shadow = 0;  // device memory the first replayed launch kept (replayed run)
    bool operator==(const result& o) const { return a == o.a && b == o.b && c == o.c; }
};

void put(CUdeviceptr p, const std::vector<unsigned>& v) { CHECK(cuMemcpyHtoD(p, v.data(), v.size() * w)); }
std::vector<unsigned> get(CUdeviceptr p, std::size_t bytes) {
    std::vector<unsigned> v(bytes / w);
    CHECK(cuMemcpyDtoH(v.data(), p, v.size() * w));
    return v;
}

result program() {
    result out;
    CUdeviceptr a = 0, b = 0, c = 0;
    CHECK(cuMemAlloc(&a, a_bytes));
    CHECK(cuMemAlloc(&b, b_bytes));
    CHECK(cuMemAlloc(&c, 256));
    std::vector<unsigned> va(a_bytes / w);
    for (std::size_t i = 0; i < va.size(); ++i) va[i] = static_cast<unsigned>(i * 7 + 1);
    put(a, va);
    put(b, std::vector<unsigned>(b_bytes / w, 0));
    put(c, std::vector<unsigned>(256 / w, 0));
    const std::size_t before = free_bytes();
    // 1: the first snapshot of this layout (a's chunks copied, b's and c's zero)
    launch_add(a, static_cast<unsigned>(a_bytes / w), 1);
    CHECK(cuStreamSynchronize(g_s));
    out.shadow = before - free_bytes();
    // Between dispatches: the host writes a chunk with a copy (a's second) and a zero one (b's third).
    put(a + chunk + 64, {11, 12, 13});
    put(b + 3 * chunk + 8, {5, 6, 7, 8});
    // 2: incremental; reads b's third chunk, writes c
    launch_sum(c, b + 3 * chunk, static_cast<unsigned>(chunk / w));
    // 3: writes b's fifth chunk (zero at the snapshot: restored to zeros)
    launch_add(b + 5 * chunk, static_cast<unsigned>(chunk / w), 2);
    // 4: reads a (the host's write must be in the snapshot, or the restore would undo it)
    launch_sum(c + 4, a, static_cast<unsigned>(a_bytes / w));
    CHECK(cuStreamSynchronize(g_s));
    // a freed, another buffer allocated (a new layout, or new contents at the same address)
    CHECK(cuMemFree(a));
    CHECK(cuMemAlloc(&a, a_bytes));
    for (auto& x : va) x = x * 3 + 2;
    put(a, va);
    // 5: reads the new a; 6: writes every chunk of b
    launch_sum(c + 8, a, static_cast<unsigned>(a_bytes / w));
    launch_add(b, static_cast<unsigned>(b_bytes / w), 1);
    CHECK(cuStreamSynchronize(g_s));
    out.a = get(a, a_bytes);
    out.b = get(b, b_bytes);
    out.c = get(c, 256);
    CHECK(cuMemFree(a));
    CHECK(cuMemFree(b));
    CHECK(cuMemFree(c));
    return out;
}

// The write-set fallback: a launch of hop, replayed. The first restore learns that pass 0 wrote
// chunk 0; pass 1 writes chunk 1 instead, which the write-set restores (from 5 passes) do not put
// back, and the hashed restore before the last pass finds it outside the write set (warned) and
// restores everything. So the last pass, the one whose results the program keeps, starts from
// the launch's memory: the program sees only its write (chunk N-1 += 1), none of the others.
void pass_dependent(std::uint64_t passes) {
    const int differ_before = g_r.differ;
    CUdeviceptr d = 0;
    const std::size_t bytes = (passes + 1) * chunk;
    CHECK(cuMemAlloc(&d, bytes));
    std::vector<unsigned> init(bytes / w);
    for (std::size_t i = 0; i < init.size(); ++i) init[i] = static_cast<unsigned>(i % 1000 + 7);
    put(d, init);
    static unsigned hops = 0;
    unsigned* host = &hops;
    unsigned stride = static_cast<unsigned>(chunk / w);
    void* params[] = {&d, &host, &stride};
    CHECK(cuLaunchKernel(g_hop, 1, 1, 1, 1, 1, 1, 0, g_s, params, nullptr));
    CHECK(cuStreamSynchronize(g_s));
    expect(hops == passes, "hop ran once per pass (" + std::to_string(hops) + ")");
    std::vector<unsigned> want = init;
    want[(passes - 1) * stride] += 1;
    expect(get(d, bytes) == want, "only the last pass's write is left: the passes between were undone");
    // Passes after the first start from other memory until the fallback (the checksums say so,
    // from pass 2 on when the restores before it copy the write set only).
    if (passes >= 5) expect(g_r.differ > differ_before, "the checksums saw the passes start from other memory");
    CHECK(cuMemFree(d));
}

using calls_fn = unsigned long long (*)(const char*);

}  // namespace

ENCORE_TEST_TOOL("test-cuda-snapshot", &tool_init, nullptr)

int main() {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    CUmodule mod = nullptr;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuStreamCreate(&g_s, 0));
    CHECK(cuModuleLoadData(&mod, &g_module));
    CHECK(cuModuleGetFunction(&g_add, mod, "add"));
    CHECK(cuModuleGetFunction(&g_sum, mod, "sum"));
    CHECK(cuModuleGetFunction(&g_hop, mod, "hop"));
    // The fake's count of its chunk kernels' runs.
    void* fake = dlopen(std::getenv("ENCORE_CUDA_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    auto calls = fake != nullptr ? reinterpret_cast<calls_fn>(dlsym(fake, "fake_chunk_kernel_calls")) : nullptr;
    expect(calls != nullptr, "the fake driver counts its chunk kernels");
    if (calls == nullptr) return 1;

    const result replayed = program();
    expect(g_r.configs == 6 && g_r.declined == 0, "6 launches offered, none declined: " + g_r.reason);
    const std::uint64_t n = pass_count();
    expect(g_r.passes == static_cast<int>(6 * n),
           std::to_string(n) + " passes each (" + std::to_string(g_r.passes) + ")");
    expect(g_r.differ == 0, "every pass of a launch starts from the same memory (checksums)");
    const unsigned long long classified = calls("encore_classify_chunks"), updated = calls("encore_snapshot_chunks");
    expect(classified >= 1 && classified <= 2 && classified + updated == 6,
           "the first snapshot of a layout classifies, later ones are incremental (classify " +
               std::to_string(classified) + ", incremental " + std::to_string(updated) + ")");
    expect(updated >= 4, "launches 2, 3, 4 and 6 snapshot incrementally");
    // Hashed restores: the first (it finds the write set) and the one before the last pass; the
    // ones between copy the write set back without hashing.
    expect(calls("encore_restore_chunks") == 12,
           "two hashed restores per launch (" + std::to_string(calls("encore_restore_chunks")) + ")");
    const char* shadow = std::getenv("ENCORE_CUDA_REPLAY_SHADOW");
    if (shadow == nullptr || std::strcmp(shadow, "host") != 0) {
        // Sparse: a's 5 chunks, the table, room for a quarter more (at least 64 MiB): not 128 MiB.
        expect(replayed.shadow > a_bytes && replayed.shadow < b_bytes,
               "zero chunks keep no copy: " + std::to_string(replayed.shadow >> 10) + " KiB kept for " +
                   std::to_string((a_bytes + b_bytes) >> 10) + " KiB covered");
    }
    pass_dependent(n);
    expect(rocprofiler_stop_context(g_replay) == ROCPROFILER_STATUS_SUCCESS, "stop the replay context");
    const result plain = program();
    expect(replayed == plain, "final memory equals an unreplayed run");
    // And the arithmetic: b's fifth chunk got 2, then everything 1; c[0] the host's 5+6+7+8.
    bool right = plain.c[0] == 26 && plain.b[5 * chunk / w] == 3 && plain.b[0] == 1 && plain.b[3 * chunk / w + 2] == 6;
    expect(right, "and the host's arithmetic");
    CHECK(cuModuleUnload(mod));
    CHECK(cuStreamDestroy(g_s));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    return test_support::finish();
}
