// test/cuda/cuda_trace_tool.cpp — a CUDA_DRIVER_API tool for the GPU checks and benchmarks
// (benchmarks/cuda/run_gpu.sh). ENCORE_CUDA_TOOL_MODE:
//   count (default)  every driver call: ENTER/EXIT pairing (user_data), calls per function,
//                    argument strings of launches, allocations and copies; summary at exit
//   noop             a no-op ENTER/EXIT callback on every driver call (overhead benchmark)
//   none             configures nothing (encore loaded, no context)
//   replay           KERNEL_REPLAY on every launch: ENCORE_CUDA_REPLAY_PASSES passes (default 3),
//                    a checksum of the covered memory at each PASS ENTER; summary at exit with
//                    the time of the sequence, its passes, snapshot and restores
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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

// ---- replay mode ----------------------------------------------------------------------------
std::uint64_t g_passes = 3;
struct replay_stats {
    int dispatches = 0, passes = 0, differ = 0, declined = 0, restores = 0;
    double total_ns = 0, pass_ns = 0, snapshot_ns = 0, restore_ns = 0;
    std::uint64_t snapshot_bytes = 0;
    std::vector<double> fixed_ns;  // per dispatch: the sequence minus its passes, snapshot, restores
} g_r;
thread_local double t_parts = 0;  // this dispatch's passes + snapshot + restores
double now_ns() {
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
thread_local double t_config = 0, t_pass = 0;
thread_local std::vector<std::uint64_t> t_sums;

std::uint64_t pass_count(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return g_passes; }

void on_replay(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    const bool enter = r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
    switch (r.operation) {
        case ROCPROFILER_KERNEL_REPLAY_CONFIG:
            if (enter) {
                p->replay_pass_count = &pass_count;
                t_config = now_ns();
                t_parts = 0;
                t_sums.clear();
            } else {
                std::lock_guard lk(g_mutex);
                if (p->decline_reason != nullptr) {
                    ++g_r.declined;
                    std::printf("cuda-replay: declined: %s\n", p->decline_reason);
                    break;
                }
                ++g_r.dispatches;
                const double total = now_ns() - t_config;
                g_r.total_ns += total;
                g_r.fixed_ns.push_back(total - t_parts);
                for (auto s : t_sums) g_r.differ += s != t_sums.front() ? 1 : 0;
            }
            break;
        case ROCPROFILER_KERNEL_REPLAY_PASS:
            if (enter) {
                std::uint64_t sum = 0;
                if (std::getenv("ENCORE_CUDA_REPLAY_VERIFY") != nullptr && encore_kernel_replay_checksum(&sum) == ROCPROFILER_STATUS_SUCCESS)
                    t_sums.push_back(sum);
                t_pass = now_ns();
            } else {
                std::lock_guard lk(g_mutex);
                ++g_r.passes;
                g_r.pass_ns += now_ns() - t_pass;
                t_parts += now_ns() - t_pass;
            }
            break;
        case ROCPROFILER_KERNEL_REPLAY_SNAPSHOT:
            if (!enter) {
                std::lock_guard lk(g_mutex);
                g_r.snapshot_ns += double(p->end_timestamp - p->start_timestamp);
                t_parts += double(p->end_timestamp - p->start_timestamp);
                g_r.snapshot_bytes = p->bytes;
            }
            break;
        case ROCPROFILER_KERNEL_REPLAY_RESTORE:
            if (!enter) {
                std::lock_guard lk(g_mutex);
                ++g_r.restores;
                g_r.restore_ns += double(p->end_timestamp - p->start_timestamp);
                t_parts += double(p->end_timestamp - p->start_timestamp);
            }
            break;
        default: break;
    }
}

int init(rocprofiler_client_finalize_t, void*) {
    if (const char* m = std::getenv("ENCORE_CUDA_TOOL_MODE")) g_mode = m;
    if (g_mode == "none") return 0;
    if (g_mode == "replay") {
        if (const char* v = std::getenv("ENCORE_CUDA_REPLAY_PASSES")) g_passes = std::strtoull(v, nullptr, 10);
        rocprofiler_context_id_t ctx{};
        if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS ||
            rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                           &on_replay, nullptr) != ROCPROFILER_STATUS_SUCCESS) {
            std::fprintf(stderr, "cuda-tool: KERNEL_REPLAY cannot be configured\n");
            return 1;
        }
        return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    }
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
    if (g_mode == "replay") {
        std::lock_guard lk(g_mutex);
        const double d = g_r.dispatches > 0 ? g_r.dispatches : 1;
        const double fixed = (g_r.total_ns - g_r.pass_ns - g_r.snapshot_ns - g_r.restore_ns) / d;
        std::printf("cuda-replay: %d dispatches replayed, %d passes, inputs %s, %d declined\n", g_r.dispatches,
                    g_r.passes, std::getenv("ENCORE_CUDA_REPLAY_VERIFY") == nullptr ? "not checked"
                                : g_r.differ == 0 ? "identical" : "DIFFER", g_r.declined);
        std::printf("cuda-replay: per dispatch: total %.3f ms, passes %.3f ms, snapshot %.3f ms (%.1f MiB), "
                    "restore %.3f ms each, fixed %.1f us\n",
                    g_r.total_ns / d / 1e6, g_r.pass_ns / d / 1e6, g_r.snapshot_ns / d / 1e6,
                    double(g_r.snapshot_bytes) / (1 << 20), g_r.restores > 0 ? g_r.restore_ns / g_r.restores / 1e6 : 0.0,
                    fixed / 1e3);
        auto v = g_r.fixed_ns;
        std::sort(v.begin(), v.end());
        if (!v.empty())
            std::printf("cuda-replay: fixed cost per dispatch: min %.1f us, median %.1f us, max %.1f us\n", v.front() / 1e3,
                        v[v.size() / 2] / 1e3, v.back() / 1e3);
        return;
    }
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
