// test/cuda/test_cuda_vmm.cpp — kernel replay over VMM-mapped and stream-ordered memory, and
// MEMORY_ALLOCATION records whose every FREE matches its ALLOCATE, through libencore-cuda (linked
// as libcuda.so.1) on the fake driver (fake_driver.cpp: VMM handles are memfds mapped into
// reserved host address ranges, inaccessible until cuMemSetAccess), no GPU.
//
// The program is its own tool (C API). Scenarios (argv[1]):
//   vmm_replay   3 passes per launch of stateful host kernels over VMM mappings (two adjacent
//                mappings, one handle mapped twice, a read-only one) and a cuMemAlloc buffer:
//                every pass sees identical inputs, the snapshot covers exactly the read-write
//                mappings (adjacent ones in a reserved range as one region), unmapping and remapping between launches changes what is covered,
//                the final memory equals the same launches unreplayed and the host's arithmetic
//   vmm_race     a cuMemUnmap and a cuMemFree from another thread while a launch replays wait
//                until the replay is done (its passes all saw the same input)
//   vmm_declines a replay callback that unmaps (or frees) snapshot memory ends the replay with a
//                reason, the rest restored; a context holding a pointer imported from another
//                process's pool declines with its reason
//   alloc_records MEMORY_ALLOCATION: every FREE matches an ALLOCATE of the same family (address
//                and size): device, stream-ordered, pinned host (host agent), imported, VMM
//                handles; a free of memory allocated behind encore's back gets its size from the
//                driver; mappings make no records; bad arguments are the driver's errors; the VMM
//                calls are traced with their arguments
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"
#include "fake_driver.h"

#include <encore/tracing/payload.hpp>
#include <rocprofiler-sdk/cuda/driver_api_id.h>
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using test_support::expect;
#define CHECK(x) expect((x) == CUDA_SUCCESS, #x)

std::string g_mode;
std::mutex g_mutex;

// ---- replay ------------------------------------------------------------------------------------
struct replay_stats {
    int configs = 0, declined = 0, passes = 0, differ = 0;
    std::string reason;
    std::vector<std::uint64_t> sums;        // this dispatch's checksums at PASS ENTER
    std::vector<std::uint64_t> bytes;       // each snapshot's bytes
    std::vector<std::uint64_t> regions;     // and regions
    std::vector<std::uint64_t> passes_run;  // at each CONFIG EXIT
    std::chrono::steady_clock::time_point last_exit{};
    int checksum_refused = 0;
} g_r;
rocprofiler_context_id_t g_replay{};
std::function<void(std::uint64_t)> g_on_pass_exit;  // what a test does in a PASS EXIT callback
bool g_memory_gone = false;                         // it unmapped or freed snapshot memory

std::uint64_t three_passes(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return 3; }

void on_replay(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    const bool enter = r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS && !enter && g_on_pass_exit) g_on_pass_exit(p->current_pass);
    std::lock_guard lk(g_mutex);
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && enter) {
        ++g_r.configs;
        g_r.sums.clear();
        p->replay_pass_count = &three_passes;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG) {
        if (p->decline_reason != nullptr) {
            ++g_r.declined;
            g_r.reason = p->decline_reason;
        }
        g_r.passes_run.push_back(p->passes_run);
        for (auto s : g_r.sums) g_r.differ += s != g_r.sums.front() ? 1 : 0;
        g_r.last_exit = std::chrono::steady_clock::now();
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS && enter) {
        ++g_r.passes;
        std::uint64_t sum = 0;
        const bool ok = encore_kernel_replay_checksum(&sum) == ROCPROFILER_STATUS_SUCCESS;
        // After a callback unmapped snapshot memory the checksum is refused (it reads nothing gone).
        if (!g_memory_gone) expect(ok, "checksum at PASS ENTER");
        if (ok) g_r.sums.push_back(sum);
        if (g_memory_gone) g_r.checksum_refused += ok ? 0 : 1;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_SNAPSHOT && !enter) {
        g_r.bytes.push_back(p->bytes);
        g_r.regions.push_back(p->regions);
    }
}

// ---- records -----------------------------------------------------------------------------------
struct alloc_seen {
    int op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t agent, address, size;
};
std::vector<alloc_seen> g_allocs;
std::vector<std::pair<int, std::string>> g_calls;  // driver calls at EXIT: op, arguments
rocprofiler_context_id_t g_records{};

int on_arg(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const, int32_t,
           const char*, const char* name, const char* value, int32_t, void* data) {
    auto* s = static_cast<std::string*>(data);
    *s += (n == 0 ? "" : ", ") + std::string(name) + "=" + value;
    return 0;
}

void on_record(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.kind == ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API) {
        if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
        std::string args;
        rocprofiler_iterate_callback_tracing_kind_operation_args(r, on_arg, 1, &args);
        std::lock_guard lk(g_mutex);
        g_calls.emplace_back(r.operation, args);
        return;
    }
    if (r.kind != ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION) return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_memory_allocation_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    g_allocs.push_back(alloc_seen{static_cast<int>(r.operation), r.phase, p->agent_id.handle, p->address.value,
                                  p->allocation_size});
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (g_mode == "alloc_records") {
        const rocprofiler_tracing_operation_t vmm_ops[] = {
            ROCPROFILER_CUDA_DRIVER_API_ID_cuMemCreate, ROCPROFILER_CUDA_DRIVER_API_ID_cuMemMap,
            ROCPROFILER_CUDA_DRIVER_API_ID_cuMemSetAccess, ROCPROFILER_CUDA_DRIVER_API_ID_cuMemUnmap,
            ROCPROFILER_CUDA_DRIVER_API_ID_cuMemRelease};
        if (rocprofiler_create_context(&g_records) != ROCPROFILER_STATUS_SUCCESS ||
            rocprofiler_configure_callback_tracing_service(g_records, ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION,
                                                           nullptr, 0, &on_record, nullptr) != ROCPROFILER_STATUS_SUCCESS ||
            rocprofiler_configure_callback_tracing_service(g_records, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API,
                                                           vmm_ops, 5, &on_record, nullptr) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        return rocprofiler_start_context(g_records) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    }
    if (rocprofiler_create_context(&g_replay) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(g_replay, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                       &on_replay, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_replay) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

// ---- host "kernels" (fake_driver.h) ------------------------------------------------------------
template <class T>
T* arg_ptr(void** params, int i) {
    return reinterpret_cast<T*>(*static_cast<CUdeviceptr*>(params[i]));
}
// saxpy: y[i] += a * x[i] for i < n (params: a, x, y, n)
void saxpy(const unsigned[3], const unsigned[3], void** params) {
    const float a = *static_cast<float*>(params[0]);
    const float* x = arg_ptr<const float>(params, 1);
    float* y = arg_ptr<float>(params, 2);
    const unsigned n = *static_cast<unsigned*>(params[3]);
    for (unsigned i = 0; i < n; ++i) y[i] += a * x[i];
}
// counter: c[0] += 1, the value it saw recorded (a pass's input)
std::vector<unsigned> g_seen;
void counter(const unsigned[3], const unsigned[3], void** params) {
    unsigned* c = arg_ptr<unsigned>(params, 0);
    g_seen.push_back(c[0]);
    c[0] += 1;
}
// slow: as counter, but first says it started and takes 20 ms (a replay long enough to race)
std::atomic<int> g_slow_started{0};
void slow(const unsigned[3], const unsigned[3], void** params) {
    ++g_slow_started;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    counter(nullptr, nullptr, params);
}
const fake_cuda_module g_module = {3, {{"saxpy", &saxpy}, {"counter", &counter}, {"slow", &slow}}};

struct device {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    CUstream s = nullptr;
    CUmodule mod = nullptr;
    CUfunction saxpy = nullptr, counter = nullptr, slow = nullptr;
    std::size_t gran = 0;
};
device open_device() {
    device d;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&d.dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&d.ctx, d.dev));
    CHECK(cuCtxSetCurrent(d.ctx));
    CHECK(cuStreamCreate(&d.s, 0));
    CHECK(cuModuleLoadData(&d.mod, &g_module));
    CHECK(cuModuleGetFunction(&d.saxpy, d.mod, "saxpy"));
    CHECK(cuModuleGetFunction(&d.counter, d.mod, "counter"));
    CHECK(cuModuleGetFunction(&d.slow, d.mod, "slow"));
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = d.dev;
    CHECK(cuMemGetAllocationGranularity(&d.gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    return d;
}
void close_device(device& d) {
    CHECK(cuStreamDestroy(d.s));
    CHECK(cuModuleUnload(d.mod));
    CHECK(cuDevicePrimaryCtxRelease(d.dev));
}

CUmemGenericAllocationHandle create(const device& d, std::size_t size) {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = d.dev;
    CUmemGenericAllocationHandle h = 0;
    CHECK(cuMemCreate(&h, size, &prop, 0));
    return h;
}
void set_access(const device& d, CUdeviceptr p, std::size_t size, CUmemAccess_flags flags) {
    CUmemAccessDesc a{};
    a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.location.id = d.dev;
    a.flags = flags;
    CHECK(cuMemSetAccess(p, size, &a, 1));
}

void launch_saxpy(const device& d, float a, CUdeviceptr x, CUdeviceptr y, unsigned n) {
    void* params[] = {&a, &x, &y, &n};
    CHECK(cuLaunchKernel(d.saxpy, 1, 1, 1, 1, 1, 1, 0, d.s, params, nullptr));
}
void launch_counter(const device& d, CUfunction f, CUdeviceptr c) {
    void* params[] = {&c};
    CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, d.s, params, nullptr));
}

// ---- vmm_replay ---------------------------------------------------------------------------------
struct vmm_result {
    std::vector<float> y, alias;
    std::vector<unsigned> counters;
    std::vector<std::uint64_t> bytes;  // snapshot bytes of each launch (replayed run only)
    bool operator==(const vmm_result& o) const { return y == o.y && alias == o.alias && counters == o.counters; }
};

/// One run of the program: the layout is
///   va + [0, g)      handle A (x, then the counter at its end), read-write
///   va + [g, 2g)     handle B (y), read-write (adjacent to A's mapping)
///   va + [2g, 3g)    handle A again: aliases [0, g), read-only
///   dc               a cuMemAlloc'd counter
/// then B is unmapped and handle C mapped in its place (y starts over from C's contents).
vmm_result vmm_program(const device& d) {
    const std::size_t g = d.gran;
    const unsigned n = static_cast<unsigned>(g / sizeof(float) / 2);
    vmm_result out;
    CUdeviceptr va = 0, dc = 0;
    CHECK(cuMemAddressReserve(&va, 4 * g, 0, 0, 0));
    const CUmemGenericAllocationHandle ha = create(d, g), hb = create(d, g), hc = create(d, g);
    CHECK(cuMemMap(va, g, 0, ha, 0));
    CHECK(cuMemMap(va + g, g, 0, hb, 0));
    CHECK(cuMemMap(va + 2 * g, g, 0, ha, 0));
    CHECK(cuMemAlloc(&dc, sizeof(unsigned)));
    const unsigned zero = 0;
    CHECK(cuMemcpyHtoD(dc, &zero, sizeof(zero)));
    // Mapped but not accessible yet: not covered (only dc is).
    launch_counter(d, d.counter, dc);
    set_access(d, va, 2 * g, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);  // A and B in one call
    set_access(d, va + 2 * g, g, CU_MEM_ACCESS_FLAGS_PROT_READ);
    std::vector<float> x(n), y(n);
    for (unsigned i = 0; i < n; ++i) x[i] = float(i % 89), y[i] = float(i % 7);
    CHECK(cuMemcpyHtoD(va, x.data(), n * sizeof(float)));
    CHECK(cuMemcpyHtoD(va + g, y.data(), n * sizeof(float)));
    const CUdeviceptr vc = va + g - sizeof(unsigned);  // a counter inside A's mapping
    CHECK(cuMemcpyHtoD(vc, &zero, sizeof(zero)));
    for (int i = 0; i < 3; ++i) {
        launch_saxpy(d, 0.25f, va, va + g, n);
        launch_counter(d, d.counter, vc);
    }
    // B unmapped, C mapped at its address: y continues from C's (zeroed) contents.
    CHECK(cuMemUnmap(va + g, g));
    CHECK(cuMemMap(va + g, g, 0, hc, 0));
    set_access(d, va + g, g, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    std::vector<float> zeros(n, 0.0f);
    CHECK(cuMemcpyHtoD(va + g, zeros.data(), n * sizeof(float)));
    launch_saxpy(d, 2.0f, va, va + g, n);
    launch_counter(d, d.counter, dc);
    CHECK(cuStreamSynchronize(d.s));

    out.y.resize(n);
    out.alias.resize(n);
    CHECK(cuMemcpyDtoH(out.y.data(), va + g, n * sizeof(float)));
    // The read-only alias of A is not readable by copies in the fake (it checks read-write):
    // read it on the host, where it is mapped readable (the fake's "device" memory is host memory).
    std::memcpy(out.alias.data(), reinterpret_cast<const void*>(va + 2 * g), n * sizeof(float));
    unsigned c1 = 0, c2 = 0;
    CHECK(cuMemcpyDtoH(&c1, vc, sizeof(c1)));
    CHECK(cuMemcpyDtoH(&c2, dc, sizeof(c2)));
    out.counters = {c1, c2};
    // One unmap over the two adjacent read-write mappings, then the alias.
    CHECK(cuMemUnmap(va, 2 * g));
    CHECK(cuMemUnmap(va + 2 * g, g));
    CHECK(cuMemRelease(ha));
    CHECK(cuMemRelease(hb));
    CHECK(cuMemRelease(hc));
    CHECK(cuMemAddressFree(va, 4 * g));
    CHECK(cuMemFree(dc));
    return out;
}

int run_vmm_replay() {
    device d = open_device();
    const std::size_t g = d.gran;
    const vmm_result replayed = vmm_program(d);
    const std::vector<unsigned> seen = g_seen;
    {
        std::lock_guard lk(g_mutex);
        expect(g_r.configs == 9 && g_r.declined == 0, "9 launches offered, none declined: " + g_r.reason);
        expect(g_r.passes == 27, "3 passes each (" + std::to_string(g_r.passes) + ")");
        expect(g_r.differ == 0, "every pass of a launch starts from the same memory (checksums)");
        // Snapshot: dc (256-byte aligned in the shadow), then A and B (2 granules) once
        // accessible; the read-only alias is never covered; after the remap A and C.
        const std::uint64_t dc_bytes = 256;
        bool sizes = g_r.bytes.size() == 9 && g_r.bytes[0] == dc_bytes;
        for (std::size_t i = 1; i < g_r.bytes.size(); ++i) sizes = sizes && g_r.bytes[i] == dc_bytes + 2 * g;
        std::string got;
        for (auto b : g_r.bytes) got += std::to_string(b) + " ";
        expect(sizes, "snapshots cover the cuMemAlloc buffer and exactly the read-write mappings: " + got);
        // The two adjacent read-write mappings of one reservation are one region (A+B, later A+C).
        bool regions = g_r.regions.size() == 9 && g_r.regions[0] == 1;
        for (std::size_t i = 1; i < g_r.regions.size(); ++i) regions = regions && g_r.regions[i] == 2;
        expect(regions, "adjacent mappings in one reserved range are one region");
    }
    // counter on dc: 0 (x3), then 1 (x3) at the end; on vc: 0, 1, 2 (x3 each).
    const std::vector<unsigned> want_seen = {0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 1, 1, 1};
    expect(seen == want_seen, "every pass of the counters sees the same input");
    expect(rocprofiler_stop_context(g_replay) == ROCPROFILER_STATUS_SUCCESS, "stop the replay context");
    g_seen.clear();
    const vmm_result plain = vmm_program(d);
    expect(g_seen == std::vector<unsigned>({0, 0, 1, 2, 1}), "unreplayed: each launch runs once");
    expect(replayed == plain, "final memory equals an unreplayed run");
    const unsigned n = static_cast<unsigned>(g / sizeof(float) / 2);
    bool right = plain.counters == std::vector<unsigned>({3, 2});
    for (unsigned i = 0; i < n; ++i) {
        right = right && plain.y[i] == 2.0f * float(i % 89);
        // The alias shows A: x, except the counter's word at the granule's end (beyond n floats).
        right = right && plain.alias[i] == float(i % 89);
    }
    expect(right, "and the host's arithmetic (y over the remapped handle, the alias reads A)");

    // Bad arguments: the driver's errors, the tracker unchanged (a later snapshot covers nothing new).
    CUdeviceptr va = 0;
    CHECK(cuMemAddressReserve(&va, 2 * g, 0, 0, 0));
    expect(cuMemMap(va, g, 0, 0xdead, 0) == CUDA_ERROR_INVALID_HANDLE, "cuMemMap of an unknown handle");
    CUmemAccessDesc rw{};
    rw.location.type = CU_MEM_LOCATION_TYPE_DEVICE, rw.location.id = d.dev, rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    expect(cuMemSetAccess(va, g, nullptr, 1) == CUDA_ERROR_INVALID_VALUE, "cuMemSetAccess with no descriptors");
    expect(cuMemSetAccess(va, g, &rw, 1) == CUDA_ERROR_INVALID_VALUE, "cuMemSetAccess of an unmapped range");
    expect(cuMemUnmap(va, g) == CUDA_ERROR_INVALID_VALUE, "cuMemUnmap of an unmapped range");
    expect(cuMemCreate(nullptr, g, nullptr, 0) == CUDA_ERROR_INVALID_VALUE, "cuMemCreate with null arguments");
    const CUmemGenericAllocationHandle h = create(d, 2 * g);
    CHECK(cuMemMap(va, 2 * g, 0, h, 0));
    CHECK(cuMemSetAccess(va, 2 * g, &rw, 1));
    expect(cuMemUnmap(va, g) == CUDA_ERROR_INVALID_VALUE, "a partial unmap is refused, as by the driver");
    CHECK(cuMemSetAccess(va, 2 * g, &rw, 1));  // again: no change
    expect(rocprofiler_start_context(g_replay) == ROCPROFILER_STATUS_SUCCESS, "start the replay context again");
    {
        std::lock_guard lk(g_mutex);
        g_r.bytes.clear();
    }
    CUdeviceptr vc = va;
    const unsigned zero = 0;
    CHECK(cuMemcpyHtoD(vc, &zero, sizeof(zero)));
    g_seen.clear();
    launch_counter(d, d.counter, vc);
    CHECK(cuStreamSynchronize(d.s));
    {
        std::lock_guard lk(g_mutex);
        expect(g_r.bytes.size() == 1 && g_r.bytes[0] == 2 * g,
               "after refused calls the snapshot covers the one valid mapping (" +
                   std::to_string(g_r.bytes.empty() ? 0 : g_r.bytes[0]) + " bytes)");
    }
    expect(g_seen == std::vector<unsigned>({0, 0, 0}), "and its passes see the same input");
    CHECK(cuMemUnmap(va, 2 * g));
    CHECK(cuMemRelease(h));
    expect(cuMemRelease(h) == CUDA_ERROR_INVALID_VALUE, "a second release of a handle: the driver's error");
    CHECK(cuMemAddressFree(va, 2 * g));
    close_device(d);
    return test_support::finish();
}

// ---- vmm_race -----------------------------------------------------------------------------------
int run_vmm_race() {
    device d = open_device();
    const std::size_t g = d.gran;
    CUdeviceptr va = 0, dc = 0, other = 0;
    CHECK(cuMemAddressReserve(&va, 2 * g, 0, 0, 0));
    const CUmemGenericAllocationHandle h = create(d, g), h2 = create(d, g);
    CHECK(cuMemMap(va, g, 0, h, 0));
    CHECK(cuMemMap(va + g, g, 0, h2, 0));
    set_access(d, va, 2 * g, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CHECK(cuMemAlloc(&dc, 4096));
    CHECK(cuMemAlloc(&other, 4096));
    const unsigned zero = 0;
    CHECK(cuMemcpyHtoD(va, &zero, sizeof(zero)));
    // While the slow kernel replays (3 passes of 20 ms), another thread unmaps the second mapping
    // and frees `other`, both in the snapshot: each waits for the replay to end.
    std::chrono::steady_clock::time_point unmapped{}, freed{};
    std::thread t([&] {
        CHECK(cuCtxSetCurrent(d.ctx));
        while (g_slow_started.load() == 0) std::this_thread::yield();
        CHECK(cuMemUnmap(va + g, g));
        unmapped = std::chrono::steady_clock::now();
        CHECK(cuMemFree(other));
        freed = std::chrono::steady_clock::now();
    });
    launch_counter(d, d.slow, va);
    CHECK(cuStreamSynchronize(d.s));
    t.join();
    unsigned c = 0;
    CHECK(cuMemcpyDtoH(&c, va, sizeof(c)));
    {
        // (not held across driver calls: a replay callback takes it while the replay holds the gate)
        std::lock_guard lk(g_mutex);
        expect(g_r.configs == 1 && g_r.declined == 0 && g_r.passes == 3, "the launch replayed 3 passes: " + g_r.reason);
        expect(g_seen == std::vector<unsigned>({0, 0, 0}) && c == 1, "every pass saw the same input, result exact");
        expect(g_r.differ == 0, "checksums identical per pass");
        expect(unmapped > g_r.last_exit && freed > g_r.last_exit,
               "the unmap and the free from another thread waited until the replay was done");
    }
    CHECK(cuMemUnmap(va, g));
    CHECK(cuMemRelease(h));
    CHECK(cuMemRelease(h2));
    CHECK(cuMemAddressFree(va, 2 * g));
    CHECK(cuMemFree(dc));
    close_device(d);
    return test_support::finish();
}

// ---- vmm_declines -------------------------------------------------------------------------------
int run_vmm_declines() {
    device d = open_device();
    const std::size_t g = d.gran;
    CUdeviceptr va = 0, dc = 0, spare = 0;
    CHECK(cuMemAddressReserve(&va, g, 0, 0, 0));
    const CUmemGenericAllocationHandle h = create(d, g);
    CHECK(cuMemMap(va, g, 0, h, 0));
    set_access(d, va, g, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CHECK(cuMemAlloc(&dc, 4096));
    CHECK(cuMemAlloc(&spare, 4096));
    const unsigned zero = 0;
    CHECK(cuMemcpyHtoD(dc, &zero, sizeof(zero)));
    // A replay callback unmaps the mapping after pass 0 (a tool doing what a program would not):
    // the region is not restored, the replay ends with the reason, nothing crashes.
    bool once = true;
    g_on_pass_exit = [&](std::uint64_t pass) {
        if (pass == 0 && once) {
            once = false;
            g_memory_gone = true;
            CHECK(cuMemUnmap(va, g));
        }
    };
    launch_counter(d, d.counter, dc);
    CHECK(cuStreamSynchronize(d.s));
    {
        std::lock_guard lk(g_mutex);
        expect(g_r.declined == 1 && g_r.reason.find("freed, unmapped") != std::string::npos,
               "an unmap during the replay ends it with its reason: " + g_r.reason);
        expect(g_r.passes_run.size() == 1 && g_r.passes_run[0] == 2, "after the next pass");
        expect(g_r.checksum_refused == 1, "the next pass's checksum refused (it would read unmapped memory)");
        g_r.declined = 0;
        g_r.reason.clear();
    }
    unsigned c = 0;
    CHECK(cuMemcpyDtoH(&c, dc, sizeof(c)));
    expect(g_seen == std::vector<unsigned>({0, 0}) && c == 1,
           "the rest was restored for that pass, so the launch took effect once (counter " + std::to_string(c) + ")");
    // The same with a free of a snapshot allocation.
    once = true;
    g_seen.clear();
    g_on_pass_exit = [&](std::uint64_t pass) {
        if (pass == 0 && once) {
            once = false;
            CHECK(cuMemFree(spare));
        }
    };
    launch_counter(d, d.counter, dc);
    CHECK(cuStreamSynchronize(d.s));
    g_on_pass_exit = nullptr;
    g_memory_gone = false;
    {
        std::lock_guard lk(g_mutex);
        expect(g_r.declined == 1 && g_r.reason.find("freed, unmapped") != std::string::npos,
               "a free during the replay ends it with its reason: " + g_r.reason);
        g_r.declined = 0;
        g_r.reason.clear();
    }
    CHECK(cuMemcpyDtoH(&c, dc, sizeof(c)));
    expect(g_seen == std::vector<unsigned>({1, 1}) && c == 2, "again the launch took effect once");
    // Memory imported from another process's pool: declined while the pointer lives.
    CUmemPoolPtrExportData share{};
    const std::size_t import_size = 8192;
    std::memcpy(share.reserved, &import_size, sizeof(import_size));
    CUdeviceptr imported = 0;
    CUmemoryPool pool = reinterpret_cast<CUmemoryPool>(0x1);  // the fake takes any non-null pool
    CHECK(cuMemPoolImportPointer(&imported, pool, &share));
    g_seen.clear();
    launch_counter(d, d.counter, dc);
    CHECK(cuStreamSynchronize(d.s));
    {
        std::lock_guard lk(g_mutex);
        expect(g_r.declined == 1 && g_r.reason.find("imported from another process") != std::string::npos,
               "a context with an imported pointer declines: " + g_r.reason);
        g_r.declined = 0;
    }
    expect(g_seen.size() == 1, "the declined launch ran once");
    CHECK(cuMemFreeAsync(imported, d.s));
    g_seen.clear();
    launch_counter(d, d.counter, dc);
    CHECK(cuStreamSynchronize(d.s));
    {
        std::lock_guard lk(g_mutex);
        expect(g_r.declined == 0, "after its free the context replays again: " + g_r.reason);
    }
    expect(g_seen.size() == 3, "3 passes");
    expect(cuMemPoolImportPointer(nullptr, pool, &share) == CUDA_ERROR_INVALID_VALUE &&
               cuMemPoolImportPointer(&imported, pool, nullptr) == CUDA_ERROR_INVALID_VALUE,
           "cuMemPoolImportPointer with null arguments: the driver's error");
    CHECK(cuMemRelease(h));
    CHECK(cuMemAddressFree(va, g));
    CHECK(cuMemFree(dc));
    close_device(d);
    return test_support::finish();
}

// ---- alloc_records ------------------------------------------------------------------------------
int run_alloc_records() {
    device d = open_device();
    const std::size_t g = d.gran;
    // Memory allocated behind encore's back (the driver's own function, as if before encore's
    // layers were in place): its FREE gets the size from the driver.
    void* drv = dlopen(std::getenv("ENCORE_CUDA_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    using alloc_fn = CUresult (*)(CUdeviceptr*, size_t);
    auto* behind = drv != nullptr ? reinterpret_cast<alloc_fn>(dlsym(drv, "cuMemAlloc_v2")) : nullptr;
    expect(behind != nullptr, "the fake driver's own cuMemAlloc_v2");
    CUdeviceptr unseen = 0;
    if (behind != nullptr) CHECK(behind(&unseen, 12345));

    CUdeviceptr a = 0, b = 0, imported = 0;
    CHECK(cuMemAlloc(&a, 1000));
    CHECK(cuMemAllocAsync(&b, 3000, d.s));
    void *h1 = nullptr, *h2 = nullptr;
    CHECK(cuMemAllocHost(&h1, 500));
    CHECK(cuMemHostAlloc(&h2, 700, CU_MEMHOSTALLOC_PORTABLE));
    CUmemPoolPtrExportData share{};
    const std::size_t import_size = 2048;
    std::memcpy(share.reserved, &import_size, sizeof(import_size));
    CHECK(cuMemPoolImportPointer(&imported, reinterpret_cast<CUmemoryPool>(0x1), &share));
    CUdeviceptr va = 0;
    CHECK(cuMemAddressReserve(&va, 3 * g, 0, 0, 0));
    const CUmemGenericAllocationHandle ha = create(d, 2 * g), hb = create(d, g);
    CHECK(cuMemMap(va, 2 * g, 0, ha, 0));
    CHECK(cuMemMap(va + 2 * g, g, 0, hb, 0));
    set_access(d, va, 3 * g, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CHECK(cuMemRelease(ha));  // released while mapped: the memory lives on until unmapped
    CHECK(cuMemUnmap(va, 3 * g));
    CHECK(cuMemRelease(hb));
    CHECK(cuMemAddressFree(va, 3 * g));
    // Bad arguments: the driver's errors, records with what is known.
    expect(cuMemAllocHost(nullptr, 16) == CUDA_ERROR_INVALID_VALUE, "cuMemAllocHost(nullptr): the driver's error");
    expect(cuMemFreeHost(reinterpret_cast<void*>(0x10)) == CUDA_ERROR_INVALID_VALUE, "cuMemFreeHost of no allocation");
    expect(cuMemFree(a + 16) == CUDA_ERROR_INVALID_VALUE, "cuMemFree of an interior pointer");
    expect(cuMemRelease(0xbad) == CUDA_ERROR_INVALID_VALUE, "cuMemRelease of an unknown handle");
    CHECK(cuMemFreeAsync(b, d.s));
    CHECK(cuMemFree(a));
    CHECK(cuMemFreeHost(h1));
    CHECK(cuMemFreeHost(h2));
    CHECK(cuMemFree(imported));
    CHECK(cuMemFree(unseen));
    // Frees of null (cudaFree(0), the runtime's context idiom): no allocation record.
    expect(cuMemFree(0) == CUDA_SUCCESS, "cuMemFree(0) succeeds");
    CHECK(cuStreamSynchronize(d.s));
    close_device(d);

    std::lock_guard lk(g_mutex);
    // Every ALLOCATE / FREE pair matched by family, address and size; FREEs of failed calls aside.
    struct want {
        const char* what;
        int alloc_op, free_op;
        std::uint64_t address, size, agent;
        bool allocate_seen;
    };
    const std::uint64_t host = UINT64_MAX, dev = static_cast<std::uint64_t>(d.dev);
    const auto u = [](const void* p) { return reinterpret_cast<std::uint64_t>(p); };
    const want wants[] = {
        {"cuMemAlloc", ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, ROCPROFILER_MEMORY_ALLOCATION_FREE, a, 1000, dev, true},
        {"cuMemAllocAsync", ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, ROCPROFILER_MEMORY_ALLOCATION_FREE, b, 3000, dev,
         true},
        {"cuMemAllocHost", ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, ROCPROFILER_MEMORY_ALLOCATION_FREE, u(h1), 500, host,
         true},
        {"cuMemHostAlloc", ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, ROCPROFILER_MEMORY_ALLOCATION_FREE, u(h2), 700, host,
         true},
        {"cuMemPoolImportPointer", ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, ROCPROFILER_MEMORY_ALLOCATION_FREE, imported,
         2048, dev, true},
        {"cuMemCreate A", ROCPROFILER_MEMORY_ALLOCATION_VMEM_ALLOCATE, ROCPROFILER_MEMORY_ALLOCATION_VMEM_FREE, ha,
         2 * g, dev, true},
        {"cuMemCreate B", ROCPROFILER_MEMORY_ALLOCATION_VMEM_ALLOCATE, ROCPROFILER_MEMORY_ALLOCATION_VMEM_FREE, hb, g,
         dev, true},
        {"allocated behind encore", ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, ROCPROFILER_MEMORY_ALLOCATION_FREE, unseen,
         12345, dev, false},
    };
    for (const want& w : wants) {
        int allocs = 0, frees = 0;
        std::size_t alloc_at = SIZE_MAX, free_at = SIZE_MAX;
        for (std::size_t i = 0; i < g_allocs.size(); ++i) {
            const alloc_seen& r = g_allocs[i];
            if (r.address != w.address || r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) continue;
            const bool same = r.size == w.size && r.agent == w.agent;
            if (r.op == w.alloc_op && same) ++allocs, alloc_at = i;
            if (r.op == w.free_op && same) ++frees, free_at = i;
        }
        expect(allocs == (w.allocate_seen ? 1 : 0) && frees == 1,
               std::string(w.what) + ": one ALLOCATE and one FREE, same address, size and agent (" +
                   std::to_string(allocs) + ", " + std::to_string(frees) + ")");
        if (w.allocate_seen) expect(alloc_at < free_at, std::string(w.what) + ": the ALLOCATE first");
    }
    int enters = 0, exits = 0;
    for (const alloc_seen& r : g_allocs) (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER ? enters : exits) += 1;
    expect(std::none_of(g_allocs.begin(), g_allocs.end(),
                        [](const alloc_seen& r) {
                            return r.address == 0 && (r.op == ROCPROFILER_MEMORY_ALLOCATION_FREE ||
                                                      r.op == ROCPROFILER_MEMORY_ALLOCATION_VMEM_FREE);
                        }),
           "no FREE record for a null pointer");
    expect(enters == exits && enters == 19,
           "an ENTER for every EXIT (" + std::to_string(enters) + ", " + std::to_string(exits) + ")");
    // Failed calls: their records carry what is known (nothing matches them): no size for an
    // interior pointer, an unknown handle or pointer; the failed cuMemAllocHost has no address.
    int failed = 0;
    for (const alloc_seen& r : g_allocs) {
        if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) continue;
        if ((r.address == a + 16 || r.address == 0xbad || r.address == 0x10) && r.size == 0) ++failed;
        if (r.op == ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE && r.address == 0 && r.size == 16 && r.agent == host)
            ++failed;
    }
    expect(failed == 4, "four failed calls, records without a size or an address (" + std::to_string(failed) + ")");
    // Mappings are not allocations: no record carries a mapped address.
    bool mapped = false;
    for (const alloc_seen& r : g_allocs) mapped = mapped || (r.address >= va && r.address < va + 3 * g);
    expect(!mapped, "no allocation record for a mapping");
    // The VMM calls traced with their arguments.
    std::map<int, int> n;
    std::string map_args;
    for (const auto& [op, args] : g_calls) {
        ++n[op];
        if (op == ROCPROFILER_CUDA_DRIVER_API_ID_cuMemMap && map_args.empty()) map_args = args;
    }
    expect(n[ROCPROFILER_CUDA_DRIVER_API_ID_cuMemCreate] == 2 && n[ROCPROFILER_CUDA_DRIVER_API_ID_cuMemMap] == 2 &&
               n[ROCPROFILER_CUDA_DRIVER_API_ID_cuMemSetAccess] == 1 &&
               n[ROCPROFILER_CUDA_DRIVER_API_ID_cuMemUnmap] == 1 && n[ROCPROFILER_CUDA_DRIVER_API_ID_cuMemRelease] == 3,
           "each VMM call traced once");
    expect(map_args.find("size=" + std::to_string(2 * g)) != std::string::npos &&
               map_args.find("offset=0") != std::string::npos && map_args.find("handle=") != std::string::npos,
           "cuMemMap's arguments: " + map_args);
    return test_support::finish();
}

}  // namespace

ENCORE_TEST_TOOL("test-cuda-vmm", &tool_init, nullptr)

int main(int argc, char** argv) {
    g_mode = argc > 1 ? argv[1] : "";
    if (g_mode == "vmm_replay") return run_vmm_replay();
    if (g_mode == "vmm_race") return run_vmm_race();
    if (g_mode == "vmm_declines") return run_vmm_declines();
    if (g_mode == "alloc_records") return run_alloc_records();
    std::fprintf(stderr, "usage: test_cuda_vmm vmm_replay|vmm_race|vmm_declines|alloc_records\n");
    return 2;
}
