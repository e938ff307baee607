// test/cuda/cuda_trace_tool.cpp — a CUDA_DRIVER_API tool for the GPU checks and benchmarks
// (benchmarks/cuda/run_gpu.sh). ENCORE_CUDA_TOOL_MODE:
//   count (default)  every driver call: ENTER/EXIT pairing (user_data), calls per function,
//                    argument strings of launches, allocations and copies; summary at exit
//   noop             a no-op ENTER/EXIT callback on every driver call (overhead benchmark)
//   none             configures nothing (encore loaded, no context)
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

std::mutex g_mutex;
std::map<std::string, int> g_calls;  // by function
std::vector<std::string> g_samples;   // argument strings of a few calls
std::atomic<int> g_enter{0}, g_exit{0}, g_bad{0}, g_init{0};
std::string g_mode = "count";

void noop(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {}

int on_arg(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const,
           int32_t, const char*, const char* name, const char* value, int32_t, void* data) {
    auto* s = static_cast<std::string*>(data);
    *s += (n == 0 ? "" : ", ") + std::string(name) + "=" + value;
    return 0;
}

void on_call(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    if (r.kind == ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION) {
        ++g_init;
        return;
    }
    const char* name = nullptr;
    uint64_t len = 0;
    rocprofiler_query_callback_tracing_kind_operation_name(r.kind, r.operation, &name, &len);
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ++g_enter;
        ud->value = r.correlation_id.internal;
        return;
    }
    ++g_exit;
    if (ud->value != r.correlation_id.internal) ++g_bad;
    const std::string n = name != nullptr ? name : "?";
    std::string args;
    const bool sample = n.rfind("cuLaunchKernel", 0) == 0 || n.rfind("cuMemAlloc", 0) == 0 || n.rfind("cuMemcpy", 0) == 0;
    if (sample) rocprofiler_iterate_callback_tracing_kind_operation_args(r, on_arg, 1, &args);
    std::lock_guard lk(g_mutex);
    ++g_calls[n];
    if (sample && g_samples.size() < 6 && g_calls[n] == 1) g_samples.push_back(n + "(" + args + ")");
}

int init(rocprofiler_client_finalize_t, void*) {
    if (const char* m = std::getenv("ENCORE_CUDA_TOOL_MODE")) g_mode = m;
    if (g_mode == "none") return 0;
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    const auto cb = g_mode == "noop" ? &noop : &on_call;
    if (rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, nullptr, 0, cb,
                                                       nullptr) != ROCPROFILER_STATUS_SUCCESS) {
        std::fprintf(stderr, "cuda-tool: CUDA_DRIVER_API cannot be configured (is libencore-cuda the driver?)\n");
        return 1;
    }
    if (g_mode == "count")
        rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION, nullptr,
                                                       0, &on_call, nullptr);
    return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

void fini(void*) {
    if (g_mode != "count") return;
    std::lock_guard lk(g_mutex);
    int launches = 0, total = 0;
    for (auto& [n, c] : g_calls) {
        total += c;
        if (n.rfind("cuLaunchKernel", 0) == 0) launches += c;
    }
    std::printf("cuda-tool: %d calls, %zu functions, %d launches, enter=%d exit=%d bad=%d runtime_init=%d\n", total,
                g_calls.size(), launches, g_enter.load(), g_exit.load(), g_bad.load(), g_init.load());
    for (auto& s : g_samples) std::printf("cuda-tool: args %s\n", s.c_str());
    for (auto& [n, c] : g_calls)
        if (c >= 2) std::printf("cuda-tool: %6d %s\n", c, n.c_str());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t*) {
    static rocprofiler_tool_configure_result_t r{sizeof(r), &init, &fini, nullptr};
    return &r;
}
