// test/cuda/cuda_trace_tool.cpp — a CUDA_DRIVER_API tool for the GPU checks and benchmarks
// (benchmarks/cuda/run_gpu.sh). ENCORE_CUDA_TOOL_MODE:
//   count (default)  every driver call: ENTER/EXIT pairing (user_data), calls per function,
//                    argument strings of launches, allocations and copies; summary at exit
//   noop             a no-op ENTER/EXIT callback on every driver call (overhead benchmark)
//   noop_ptr         the same with encore's by-address callback form
//   switch           both of those on two contexts, neither started: the program switches between
//                    them with encore_bench_switch (bench_driver_call: every case in one process)
//   none             configures nothing (encore loaded, no context)
//   records          KERNEL_DISPATCH, MEMORY_COPY and MEMORY_ALLOCATION (and the driver calls, for
//                    correlation): pairing, order, GPU times inside the host-observed window,
//                    correlation with the launching call; summary at exit
//   dispatch_noop    KERNEL_DISPATCH with a no-op callback (launch benchmark)
//   replay           KERNEL_REPLAY on every launch: ENCORE_CUDA_REPLAY_PASSES passes (default 3),
//                    a checksum of the covered memory at each PASS ENTER; summary at exit with
//                    the time of the sequence, its passes, snapshot and restores
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <algorithm>
#include <dlfcn.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <time.h>
#include <vector>

namespace {

std::mutex g_mutex;
std::map<std::string, int> g_calls;  // by function
std::vector<std::string> g_samples;  // argument strings of a few calls
std::atomic<int> g_enter{0}, g_exit{0}, g_bad{0}, g_init{0};
std::string g_mode = "count";

void noop(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {}
void noop_ptr(const rocprofiler_callback_tracing_record_t*, rocprofiler_user_data_t*, void*) {}

int on_arg(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const, int32_t,
           const char*, const char* name, const char* value, int32_t, void* data) {
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
    int dispatches = 0, passes = 0, differ = 0, declined = 0, restores = 0, unselected = 0;
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

// ENCORE_CUDA_REPLAY_KERNEL=NAME: replay only kernels whose name contains NAME (cuFuncGetName on
// the dispatch's kernel id, a CUfunction); others run once.
std::string g_kernel_filter;
std::map<std::uint64_t, int> g_replay_completes;  // KERNEL_DISPATCH COMPLETE records per dispatch id
bool kernel_selected(std::uint64_t kernel_id) {
    if (g_kernel_filter.empty()) return true;
    // The driver is loaded by then; the static CUDA runtime dlopen()s it locally, so RTLD_DEFAULT
    // does not see it. The runtime launches CUkernel handles (cuLibraryGetKernel) as CUfunctions:
    // their names come from cuKernelGetName, a CUfunction's from cuFuncGetName.
    using get_name_t = int (*)(const char**, void*);
    static void* const h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    static const auto func_name = h != nullptr ? reinterpret_cast<get_name_t>(dlsym(h, "cuFuncGetName")) : nullptr;
    static const auto kernel_name = h != nullptr ? reinterpret_cast<get_name_t>(dlsym(h, "cuKernelGetName")) : nullptr;
    const char* name = nullptr;
    void* k = reinterpret_cast<void*>(kernel_id);
    if (!(func_name != nullptr && func_name(&name, k) == 0) && !(kernel_name != nullptr && kernel_name(&name, k) == 0))
        return false;
    return name != nullptr && std::strstr(name, g_kernel_filter.c_str()) != nullptr;
}
std::uint64_t pass_count(rocprofiler_kernel_dispatch_info_t info, rocprofiler_user_data_t) {
    return kernel_selected(info.kernel_id) ? g_passes : 1;
}

void on_replay_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    ++g_replay_completes[p->dispatch_info.dispatch_id];
}

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
                if (p->total_passes <= 1) {  // not selected (kernel filter): ran once
                    ++g_r.unselected;
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
                if (std::getenv("ENCORE_CUDA_REPLAY_VERIFY") != nullptr &&
                    encore_kernel_replay_checksum(&sum) == ROCPROFILER_STATUS_SUCCESS)
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

// ---- records mode ---------------------------------------------------------------------------
std::uint64_t boot_ns() {
    timespec t{};
    clock_gettime(CLOCK_BOOTTIME, &t);
    return std::uint64_t(t.tv_sec) * 1000000000ull + std::uint64_t(t.tv_nsec);
}
thread_local std::uint64_t t_launch_corr = 0;  // the cuLaunch* call this thread is in
struct dispatch_seen {
    std::uint64_t corr = 0, enter_ns = 0, exit_ns = 0;
    bool enter = false, exit = false, complete = false;
};
struct records_stats {
    std::map<std::uint64_t, dispatch_seen> dispatches;  // by dispatch id
    int complete_without_enqueue = 0, duplicate = 0, corr_bad = 0, time_bad = 0, timed = 0, untimed = 0;
    std::int64_t max_early_ns = 0, max_late_ns = 0;  // GPU start before ENQUEUE ENTER / end after COMPLETE delivery
    double busy_ns = 0;                              // longest kernel
    int copies[5] = {0, 0, 0, 0, 0}, copy_enter = 0, copy_exit = 0, copy_time_bad = 0;
    unsigned long long copy_bytes[5] = {0, 0, 0, 0, 0};  // by direction, from the EXIT records
    int alloc = 0, free_ = 0, alloc_bad = 0;
    std::map<std::uint64_t, std::uint64_t> live;  // address -> size
} g_rec;

void on_record_api(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    const char* name = nullptr;
    uint64_t len = 0;
    rocprofiler_query_callback_tracing_kind_operation_name(r.kind, r.operation, &name, &len);
    if (name != nullptr && std::strncmp(name, "cuLaunch", 8) == 0)
        t_launch_corr = r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER ? r.correlation_id.internal : 0;
}

void on_record(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    const std::uint64_t now = boot_ns();
    std::lock_guard lk(g_mutex);
    if (r.kind == ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH) {
        auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
        auto& d = g_rec.dispatches[p->dispatch_info.dispatch_id];
        if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE) {
            if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
                if (d.enter) ++g_rec.duplicate;
                d.enter = true;
                d.enter_ns = now;
                d.corr = r.correlation_id.internal;
                ud->value = now;
                if (t_launch_corr == 0 || r.correlation_id.internal != t_launch_corr) ++g_rec.corr_bad;
            } else {
                d.exit = true;
                d.exit_ns = now;
            }
        } else if (r.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) {
            if (d.complete) ++g_rec.duplicate;
            d.complete = true;
            if (!d.enter || !d.exit || ud->value != d.enter_ns || r.correlation_id.internal != d.corr)
                ++g_rec.complete_without_enqueue;
            const auto s = p->start_timestamp, e = p->end_timestamp;
            if (s == 0 && e == 0) {
                ++g_rec.untimed;
                return;
            }
            ++g_rec.timed;
            if (s > e || e - s > 10'000'000'000ull) ++g_rec.time_bad;
            g_rec.max_early_ns = std::max<std::int64_t>(g_rec.max_early_ns, std::int64_t(d.enter_ns) - std::int64_t(s));
            g_rec.max_late_ns = std::max<std::int64_t>(g_rec.max_late_ns, std::int64_t(e) - std::int64_t(now));
            g_rec.busy_ns = std::max(g_rec.busy_ns, double(e - s));
        }
    } else if (r.kind == ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY) {
        auto* p = static_cast<rocprofiler_callback_tracing_memory_copy_data_t*>(r.payload);
        if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
            ++g_rec.copy_enter;
            ud->value = now;
            if (r.operation > 0 && r.operation < 5) ++g_rec.copies[r.operation];
        } else {
            ++g_rec.copy_exit;
            if (r.operation > 0 && r.operation < 5) g_rec.copy_bytes[r.operation] += p->bytes;
            if (p->start_timestamp == 0 || p->start_timestamp > p->end_timestamp ||
                std::int64_t(p->end_timestamp) - std::int64_t(now) > 1'000'000 ||
                std::int64_t(ud->value) - std::int64_t(p->start_timestamp) > 1'000'000)
                ++g_rec.copy_time_bad;
        }
    } else if (r.kind == ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        auto* p = static_cast<rocprofiler_callback_tracing_memory_allocation_data_t*>(r.payload);
        if (r.operation == ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE) {
            ++g_rec.alloc;
            if (p->address.value == 0 || p->allocation_size == 0) ++g_rec.alloc_bad;
            g_rec.live[p->address.value] = p->allocation_size;
        } else if (r.operation == ROCPROFILER_MEMORY_ALLOCATION_FREE) {
            ++g_rec.free_;
            auto it = g_rec.live.find(p->address.value);
            // The free's size is the allocation's.
            if (it == g_rec.live.end() || it->second != p->allocation_size)
                ++g_rec.alloc_bad;
            else
                g_rec.live.erase(it);
        }
    }
}

void print_records() {
    std::lock_guard lk(g_mutex);
    int enq = 0, comp = 0, unpaired = 0;
    for (auto& [id, d] : g_rec.dispatches) {
        enq += d.enter;
        comp += d.complete;
        unpaired += !(d.enter && d.exit && d.complete);
    }
    std::printf("cuda-records: dispatches enqueue=%d complete=%d unpaired=%d duplicate=%d order_bad=%d corr_bad=%d "
                "timed=%d untimed=%d time_bad=%d\n",
                enq, comp, unpaired, g_rec.duplicate, g_rec.complete_without_enqueue, g_rec.corr_bad, g_rec.timed,
                g_rec.untimed, g_rec.time_bad);
    std::printf("cuda-records: GPU start before ENQUEUE ENTER by at most %lld ns; end after COMPLETE delivery by at "
                "most %lld ns; longest kernel %.1f us\n",
                (long long)g_rec.max_early_ns, (long long)g_rec.max_late_ns, g_rec.busy_ns / 1e3);
    std::printf("cuda-records: copies h2h=%d h2d=%d d2h=%d d2d=%d enter=%d exit=%d time_bad=%d\n", g_rec.copies[1],
                g_rec.copies[2], g_rec.copies[3], g_rec.copies[4], g_rec.copy_enter, g_rec.copy_exit,
                g_rec.copy_time_bad);
    std::printf("cuda-records: copy bytes h2d=%llu d2h=%llu d2d=%llu\n", g_rec.copy_bytes[2], g_rec.copy_bytes[3],
                g_rec.copy_bytes[4]);
    std::printf("cuda-records: allocations allocate=%d free=%d bad=%d\n", g_rec.alloc, g_rec.free_, g_rec.alloc_bad);
}

rocprofiler_context_id_t g_switch[2] = {{UINT64_MAX}, {UINT64_MAX}};

int init(rocprofiler_client_finalize_t, void*) {
    if (const char* m = std::getenv("ENCORE_CUDA_TOOL_MODE")) g_mode = m;
    if (g_mode == "none") return 0;
    if (g_mode == "switch") {
        for (auto& c : g_switch)
            if (rocprofiler_create_context(&c) != ROCPROFILER_STATUS_SUCCESS) return 1;
        const bool ok =
            rocprofiler_configure_callback_tracing_service(g_switch[0], ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API,
                                                           nullptr, 0, &noop, nullptr) == ROCPROFILER_STATUS_SUCCESS &&
            encore_configure_callback_tracing_service_ptr(g_switch[1], ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API,
                                                          nullptr, 0, &noop_ptr, nullptr) == ROCPROFILER_STATUS_SUCCESS;
        return ok ? 0 : 1;
    }
    if (g_mode == "replay") {
        if (const char* v = std::getenv("ENCORE_CUDA_REPLAY_PASSES")) g_passes = std::strtoull(v, nullptr, 10);
        if (const char* v = std::getenv("ENCORE_CUDA_REPLAY_KERNEL")) g_kernel_filter = v;
        rocprofiler_context_id_t ctx{};
        if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS ||
            rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                           &on_replay, nullptr) != ROCPROFILER_STATUS_SUCCESS) {
            std::fprintf(stderr, "cuda-tool: KERNEL_REPLAY cannot be configured\n");
            return 1;
        }
        // The passes' dispatch records too (each pass: ENQUEUE + COMPLETE under the dispatch's id).
        if (std::getenv("ENCORE_CUDA_REPLAY_RECORDS") != nullptr &&
            rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                           &on_replay_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    }
    if (g_mode == "dispatch_noop") {  // dispatch records' cost alone (launch benchmark)
        rocprofiler_context_id_t ctx{};
        if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS ||
            rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr,
                                                           0, &noop, nullptr) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    }
    if (g_mode == "records") {
        rocprofiler_context_id_t ctx{};
        if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
        for (auto k : {ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
                       ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION})
            if (rocprofiler_configure_callback_tracing_service(ctx, k, nullptr, 0, &on_record, nullptr) !=
                ROCPROFILER_STATUS_SUCCESS) {
                std::fprintf(stderr, "cuda-tool: kind %d cannot be configured\n", int(k));
                return 1;
            }
        if (rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, nullptr,
                                                           0, &on_record_api, nullptr) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    }
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    const auto cb = g_mode == "noop" ? &noop : &on_call;
    const rocprofiler_status_t configured =
        g_mode == "noop_ptr"
            ? encore_configure_callback_tracing_service_ptr(ctx, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, nullptr,
                                                            0, &noop_ptr, nullptr)
            : rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, nullptr,
                                                             0, cb, nullptr);
    if (configured != ROCPROFILER_STATUS_SUCCESS) {
        std::fprintf(stderr, "cuda-tool: CUDA_DRIVER_API cannot be configured (is libencore-cuda the driver?)\n");
        return 1;
    }
    if (g_mode == "count")
        rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION,
                                                       nullptr, 0, &on_call, nullptr);
    return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

void fini(void*) {
    if (g_mode == "records") {
        print_records();
        return;
    }
    if (g_mode == "replay") {
        std::lock_guard lk(g_mutex);
        const double d = g_r.dispatches > 0 ? g_r.dispatches : 1;
        const double fixed = (g_r.total_ns - g_r.pass_ns - g_r.snapshot_ns - g_r.restore_ns) / d;
        std::printf("cuda-replay: %d dispatches replayed, %d passes, inputs %s, %d declined\n", g_r.dispatches,
                    g_r.passes,
                    std::getenv("ENCORE_CUDA_REPLAY_VERIFY") == nullptr ? "not checked"
                    : g_r.differ == 0                                   ? "identical"
                                                                        : "DIFFER",
                    g_r.declined);
        if (g_r.unselected > 0) std::printf("cuda-replay: %d launches not selected (ran once)\n", g_r.unselected);
        if (std::getenv("ENCORE_CUDA_REPLAY_RECORDS") != nullptr) {
            std::map<int, int> by_count;  // COMPLETE records per dispatch id -> dispatch ids
            for (auto& [id, n] : g_replay_completes) ++by_count[n];
            std::printf("cuda-replay: dispatch records:");
            for (auto& [n, ids] : by_count) std::printf(" %d ids with %d COMPLETE;", ids, n);
            std::printf("\n");
        }
        std::printf("cuda-replay: per dispatch: total %.3f ms, passes %.3f ms, snapshot %.3f ms (%.1f MiB), "
                    "restore %.3f ms each, fixed %.1f us\n",
                    g_r.total_ns / d / 1e6, g_r.pass_ns / d / 1e6, g_r.snapshot_ns / d / 1e6,
                    double(g_r.snapshot_bytes) / (1 << 20),
                    g_r.restores > 0 ? g_r.restore_ns / g_r.restores / 1e6 : 0.0, fixed / 1e3);
        auto v = g_r.fixed_ns;
        std::sort(v.begin(), v.end());
        if (!v.empty())
            std::printf("cuda-replay: fixed cost per dispatch: min %.1f us, median %.1f us, max %.1f us\n",
                        v.front() / 1e3, v[v.size() / 2] / 1e3, v.back() / 1e3);
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

/// Mode "switch": 0 stops both contexts, 1 runs the by-value no-op, 2 the by-address one.
/// Returns 0 on success.
extern "C" __attribute__((visibility("default"))) int encore_bench_switch(int which) {
    for (const auto& c : g_switch)
        if (rocprofiler_stop_context(c) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (which == 0) return 0;
    if (which < 0 || which > 2) return 1;
    return rocprofiler_start_context(g_switch[which - 1]) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

ENCORE_TEST_TOOL(nullptr, &init, &fini)
