// test/cuda/test_cuda_counting.cpp — the dispatch counting service on CUDA without kernel replay:
// launches counted synchronously with CUPTI's range profiler (src/cuda/counters.cpp), on the fake
// driver and the fake CUPTI profiler (fake_cupti_profiler.cpp, ENCORE_CUPTI_LIBRARY), no GPU.
//
// The program is its own tool (C API). Scenarios (argv[1]):
//   count     one counting context: the device is a counter source by the first dispatch callback;
//             each launch of `stream` (32 x 256 threads) gets its record with the fake's values
//             (2560 instructions, 256 warps, the bytes the kernel reports) and the dispatch
//             callback's user_data; `tiny` is not counted (config 0) and gets no record; every
//             launch keeps its KERNEL_DISPATCH records; the program's memory is what one run leaves
//   two       two counting contexts whose configs fit one pass together: both get their own
//             counters' values for the same launch
//   split     two contexts whose configs together need two passes: no values for that launch
//             (the records come, empty), said once
//   multipass one context with a multi-pass config (encore_create_multipass_counter_config: three
//             base metrics, two passes) and no replay: each launch runs the first pass only, so its
//             record comes without values (never partial ones), said once; the function's
//             statuses (null pointers, another agent, a one-pass set: 1 pass; the same set through
//             rocprofiler_create_counter_config: EXCEEDS_HW_LIMIT)
//   novalues  (with FAKE_CUPTI_PROFILER_FAIL=decode or =enable) as count, but CUPTI fails for each
//             launch: its records come without values (never made-up numbers), said once
//   none      (with FAKE_CUPTI_PROFILER_FAIL or ENCORE_CUDA_DISPATCH_TIMING=cupti) the device is
//             no counter source: the dispatch callback is never called, the launches run
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"
#include "fake_driver.h"

#include <encore/counters.h>
#include <rocprofiler-sdk/counter_config.h>
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/dispatch_counting_service.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <cuda.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
constexpr int n_floats = 4096;

struct counted {
    int context;
    std::uint64_t dispatch;
    std::uint64_t user;
    std::map<std::string, double> values;
};
std::vector<counted> g_records;
int g_dispatch_calls = 0, g_completes = 0;
std::map<std::uint64_t, std::string> g_kernel_of;  // kernel id -> name (dispatch records)

struct context_plan {
    std::vector<std::string> metrics;
    rocprofiler_counter_config_id_t config{0};
    bool made = false;
};
context_plan g_plans[2];

std::string name_of(rocprofiler_counter_id_t id) {
    rocprofiler_counter_info_v0_t info{};
    return rocprofiler_query_counter_info(id, ROCPROFILER_COUNTER_INFO_VERSION_0, &info) == ROCPROFILER_STATUS_SUCCESS
               ? info.name
               : "?";
}

void on_dispatch(rocprofiler_dispatch_counting_service_data_t data, rocprofiler_counter_config_id_t* config,
                 rocprofiler_user_data_t* user, void* arg) {
    const int c = static_cast<int>(reinterpret_cast<std::intptr_t>(arg));
    std::lock_guard lk(g_mutex);
    ++g_dispatch_calls;
    // `tiny` is launched with 32 threads: not counted.
    if (data.dispatch_info.grid_size.x == 32) return;
    context_plan& p = g_plans[c];
    if (!p.made) {
        p.made = true;
        std::vector<rocprofiler_counter_id_t> ids;
        for (const auto& m : p.metrics) {
            rocprofiler_counter_id_t id{};
            expect(encore_counter_find_by_name(data.dispatch_info.agent_id, m.c_str(), &id) == ROCPROFILER_STATUS_SUCCESS,
                   "the device's counter " + m);
            ids.push_back(id);
        }
        if (g_mode == "multipass") {
            const auto agent = data.dispatch_info.agent_id;
            rocprofiler_counter_config_id_t one{0};
            std::size_t passes = 0;
            expect(encore_create_multipass_counter_config(agent, ids.data(), ids.size(), &p.config, nullptr) ==
                       ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
                   "multi-pass config: null passes");
            expect(encore_create_multipass_counter_config(agent, ids.data(), ids.size(), nullptr, &passes) ==
                       ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
                   "multi-pass config: null config");
            expect(encore_create_multipass_counter_config(agent, nullptr, 2, &one, &passes) ==
                       ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
                   "multi-pass config: null counters");
            expect(encore_create_multipass_counter_config(rocprofiler_agent_id_t{~std::uint64_t{0}}, ids.data(),
                                                          ids.size(), &one,
                                                          &passes) == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
                   "multi-pass config: no such agent");
            rocprofiler_counter_id_t bogus{~std::uint64_t{0} >> 1};
            expect(encore_create_multipass_counter_config(agent, &bogus, 1, &one, &passes) ==
                       ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
                   "multi-pass config: no such counter");
            expect(encore_create_multipass_counter_config(agent, ids.data(), 1, &one, &passes) ==
                           ROCPROFILER_STATUS_SUCCESS &&
                       passes == 1 && one.handle != 0,
                   "multi-pass config of a one-pass set: 1 pass");
            rocprofiler_counter_config_id_t refused{0};
            expect(rocprofiler_create_counter_config(agent, ids.data(), ids.size(), &refused) ==
                       ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT,
                   "the two-pass set as a one-pass config: EXCEEDS_HW_LIMIT");
            passes = 0;
            expect(encore_create_multipass_counter_config(agent, ids.data(), ids.size(), &p.config, &passes) ==
                           ROCPROFILER_STATUS_SUCCESS &&
                       passes == 2,
                   "a multi-pass config of two passes: " + std::to_string(passes));
        } else {
            expect(rocprofiler_create_counter_config(data.dispatch_info.agent_id, ids.data(), ids.size(), &p.config) ==
                       ROCPROFILER_STATUS_SUCCESS,
                   "a one-pass config");
        }
    }
    *config = p.config;
    user->value = 1000 + data.dispatch_info.dispatch_id;
}

void on_record(rocprofiler_dispatch_counting_service_data_t data, rocprofiler_counter_record_t* records, size_t n,
               rocprofiler_user_data_t user, void* arg) {
    counted r{static_cast<int>(reinterpret_cast<std::intptr_t>(arg)), data.dispatch_info.dispatch_id, user.value, {}};
    for (size_t i = 0; i < n; ++i) {
        rocprofiler_counter_id_t id{};
        if (rocprofiler_query_record_counter_id(records[i].id, &id) == ROCPROFILER_STATUS_SUCCESS)
            r.values[name_of(id)] = records[i].counter_value;
        expect(records[i].dispatch_id == data.dispatch_info.dispatch_id, "a record's dispatch id");
        expect(records[i].user_data.value == user.value, "a record's user_data");
    }
    expect(data.end_timestamp >= data.start_timestamp && data.start_timestamp != 0, "the counted launch's host times");
    std::lock_guard lk(g_mutex);
    g_records.push_back(std::move(r));
}

void on_kernel_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    std::lock_guard lk(g_mutex);
    ++g_completes;
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    g_plans[0].metrics = {"sm__inst_executed.sum", "dram__bytes_read.sum"};
    if (g_mode == "multipass") g_plans[0].metrics.push_back("sm__warps_launched.sum");  // a third base: two passes
    if (g_mode == "two") g_plans[1].metrics = {"sm__inst_executed.max"};                // same base metric: one pass
    if (g_mode == "split") g_plans[1].metrics = {"sm__warps_launched.sum"};             // a third base metric: two
    const int contexts = g_mode == "two" || g_mode == "split" ? 2 : 1;
    for (int c = 0; c < contexts; ++c) {
        rocprofiler_context_id_t ctx{};
        void* arg = reinterpret_cast<void*>(static_cast<std::intptr_t>(c));
        if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS ||
            rocprofiler_configure_callback_dispatch_counting_service(ctx, &on_dispatch, arg, &on_record, arg) !=
                ROCPROFILER_STATUS_SUCCESS)
            return 1;
        if (c == 0 && rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
                                                                     nullptr, 0, &on_kernel_dispatch,
                                                                     nullptr) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        if (rocprofiler_start_context(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    }
    return 0;
}

// ---- host "kernels" (fake_driver.h) ------------------------------------------------------------
void (*g_report)(double) = nullptr;
void stream(const unsigned[3], const unsigned[3], void** p) {
    auto* x = *static_cast<float**>(p[0]);
    for (int i = 0; i < n_floats; ++i) x[i] += 1.0f;
    if (g_report != nullptr) g_report(4.0 * n_floats);
}
void tiny(const unsigned[3], const unsigned[3], void**) {}
const fake_cuda_module g_module = {2, {{"stream", &stream}, {"tiny", &tiny}}};

int run() {
    if (const char* lib = std::getenv("ENCORE_CUPTI_LIBRARY"); lib != nullptr)
        if (void* h = ::dlopen(lib, RTLD_NOW | RTLD_LOCAL)) {  // the same library libencore-cuda loads
            void* f = ::dlsym(h, "fake_cupti_profiler_report_bytes");
            std::memcpy(&g_report, &f, sizeof(f));
        }
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, &g_module));
    CUfunction fstream, ftiny;
    CHECK(cuModuleGetFunction(&fstream, mod, "stream"));
    CHECK(cuModuleGetFunction(&ftiny, mod, "tiny"));
    CUdeviceptr dx;
    CHECK(cuMemAlloc(&dx, n_floats * sizeof(float)));
    std::vector<float> x(n_floats, 0.0f);
    CHECK(cuMemcpyHtoD(dx, x.data(), x.size() * sizeof(float)));
    for (int k = 0; k < 3; ++k) {
        void* params[] = {&dx};
        CHECK(cuLaunchKernel(fstream, 32, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
        CHECK(cuLaunchKernel(ftiny, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
    }
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(x.data(), dx, x.size() * sizeof(float)));
    expect(x[0] == 3.0f && x[n_floats - 1] == 3.0f, "each launch ran once");
    CHECK(cuMemFree(dx));
    CHECK(cuModuleUnload(mod));
    // COMPLETE records come from encore's completion thread: a bounded wait for them.
    for (int i = 0; i < 500; ++i) {
        {
            std::lock_guard lk(g_mutex);
            if (g_completes == 6) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::lock_guard lk(g_mutex);
    if (g_mode == "none") {
        expect(g_dispatch_calls == 0, "no counter source: the dispatch callback is never called");
        expect(g_records.empty(), "no counter records");
        return test_support::finish();
    }
    const int contexts = g_mode == "two" || g_mode == "split" ? 2 : 1;
    expect(g_dispatch_calls == 6 * contexts,
           "the dispatch callback for each launch and context: " + std::to_string(g_dispatch_calls));
    expect(static_cast<int>(g_records.size()) == 3 * contexts,
           "a record per counted launch and context: " + std::to_string(g_records.size()));
    expect(g_completes == 6, "every launch's KERNEL_DISPATCH COMPLETE: " + std::to_string(g_completes));
    for (const auto& r : g_records) {
        expect(r.user == 1000 + r.dispatch, "the dispatch callback's user_data");
        if (g_mode == "split" || g_mode == "novalues" || g_mode == "multipass") {
            expect(r.values.empty(), "no values (two passes together, one pass of a multi-pass config, or CUPTI failed)");
            continue;
        }
        if (r.context == 0) {
            expect(r.values.size() == 2, "context 0's two counters");
            expect(r.values.count("sm__inst_executed.sum") && r.values.at("sm__inst_executed.sum") == 2560,
                   "sm__inst_executed.sum = 10 x 256 warps");
            expect(r.values.count("dram__bytes_read.sum") && r.values.at("dram__bytes_read.sum") == 4.0 * n_floats,
                   "dram__bytes_read.sum = what the kernel read");
        } else {
            expect(r.values.size() == 1 && r.values.count("sm__inst_executed.max") &&
                       r.values.at("sm__inst_executed.max") == 2560 / 4.0,
                   "context 1's counter only");
        }
    }
    return test_support::finish();
}

}  // namespace

ENCORE_TEST_TOOL("test-cuda-counting", &tool_init, nullptr)

int main(int argc, char** argv) {
    g_mode = argc > 1 ? argv[1] : "";
    if (g_mode == "count" || g_mode == "two" || g_mode == "split" || g_mode == "none" || g_mode == "novalues" ||
        g_mode == "multipass")
        return run();
    std::fprintf(stderr, "usage: test_cuda_counting count|two|split|none|novalues|multipass\n");
    return 2;
}
