// benchmarks/cuda/two_gpu_tool.cpp — the tool of the two-GPU run (run_two_gpu.sh): kernel replay
// of the launches with 512-thread blocks (two_gpu.cu's `replayed` kernel; everything else runs
// once) and dispatch records of every launch. At exit it prints, per device, each replay window
// (CONFIG ENTER to EXIT, encore's clock) with its passes and whether every pass started from the
// same memory (ENCORE_TWO_GPU_VERIFY=1: checksum at each PASS ENTER), and for the short kernels of
// device 1 the launch intervals and kernel durations inside device 0's replay windows versus
// outside them.
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <mutex>
#include <vector>

namespace {

std::uint64_t boot_ns() {
    timespec t{};
    clock_gettime(CLOCK_BOOTTIME, &t);
    return std::uint64_t(t.tv_sec) * 1000000000ull + std::uint64_t(t.tv_nsec);
}

bool is_replayed(const rocprofiler_kernel_dispatch_info_t& info) { return info.workgroup_size.x == 512; }

struct window {
    std::uint64_t device = 0, begin = 0, end = 0, passes = 0;
    std::vector<std::uint64_t> sums;
    const char* declined = nullptr;
};
struct launch {
    std::uint64_t device = 0, enqueue = 0, start = 0, end = 0;
    bool complete = false;
};

std::mutex g_mutex;
std::vector<window> g_windows;
std::map<std::uint64_t, launch> g_launches;  // by dispatch id (short kernels only)
thread_local window t_window;                // the replay this thread runs
bool g_verify = false;

std::uint64_t pass_count(rocprofiler_kernel_dispatch_info_t info, rocprofiler_user_data_t) {
    return is_replayed(info) ? 10 : 1;
}

void on_replay(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    const bool enter = r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG) {
        if (enter) {
            p->replay_pass_count = &pass_count;
            t_window = window{};
            t_window.device = p->dispatch_info.agent_id.handle;
            t_window.begin = boot_ns();
        } else if (is_replayed(p->dispatch_info)) {
            t_window.end = boot_ns();
            t_window.passes = p->passes_run;
            t_window.declined = p->decline_reason;
            std::lock_guard lk(g_mutex);
            g_windows.push_back(t_window);
        }
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS && enter && g_verify) {
        std::uint64_t sum = 0;
        if (encore_kernel_replay_checksum(&sum) == ROCPROFILER_STATUS_SUCCESS) t_window.sums.push_back(sum);
    }
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    if (is_replayed(p->dispatch_info)) return;
    const std::uint64_t now = boot_ns();
    std::lock_guard lk(g_mutex);
    launch& l = g_launches[p->dispatch_info.dispatch_id];
    l.device = p->dispatch_info.agent_id.handle;
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        l.enqueue = now;
    } else if (r.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) {
        l.start = p->start_timestamp;
        l.end = p->end_timestamp;
        l.complete = true;
    }
}

struct spread {
    double p10 = 0, median = 0, p90 = 0, max = 0;
    std::size_t n = 0;
};
spread spread_of(std::vector<double> v) {
    spread s;
    s.n = v.size();
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.p10 = v[v.size() / 10];
    s.median = v[v.size() / 2];
    s.p90 = v[v.size() * 9 / 10];
    s.max = v.back();
    return s;
}

void report(void*) {
    std::lock_guard lk(g_mutex);
    int differ = 0;
    for (const auto& w : g_windows) {
        int d = 0;
        for (auto s : w.sums) d += s != w.sums.front();
        differ += d;
        std::printf("two-gpu: replay device=%llu begin=%llu end=%llu ms=%.1f passes=%llu checksums=%zu differ=%d%s%s\n",
                    (unsigned long long)w.device, (unsigned long long)w.begin, (unsigned long long)w.end,
                    (w.end - w.begin) / 1e6, (unsigned long long)w.passes, w.sums.size(), d,
                    w.declined != nullptr ? " declined: " : "", w.declined != nullptr ? w.declined : "");
    }
    // Two windows on different devices that overlap in time.
    int overlaps = 0;
    for (std::size_t i = 0; i < g_windows.size(); ++i)
        for (std::size_t j = i + 1; j < g_windows.size(); ++j)
            if (g_windows[i].device != g_windows[j].device && g_windows[i].begin < g_windows[j].end &&
                g_windows[j].begin < g_windows[i].end)
                ++overlaps;
    std::printf("two-gpu: windows=%zu overlapping_pairs=%d differing_passes=%d\n", g_windows.size(), overlaps, differ);

    // Device 1's short kernels, by whether their ENQUEUE fell inside a device-0 replay window.
    const auto inside = [](std::uint64_t t) {
        for (const auto& w : g_windows)
            if (w.device == 0 && t >= w.begin && t <= w.end) return true;
        return false;
    };
    std::vector<const launch*> dev1;
    for (const auto& [id, l] : g_launches)
        if (l.device == 1 && l.enqueue != 0) dev1.push_back(&l);
    std::sort(dev1.begin(), dev1.end(), [](const launch* a, const launch* b) { return a->enqueue < b->enqueue; });
    std::vector<double> gap[2], dur[2];
    int incomplete = 0;
    for (std::size_t i = 0; i < dev1.size(); ++i) {
        const int in = inside(dev1[i]->enqueue) ? 1 : 0;
        if (i > 0 && inside(dev1[i - 1]->enqueue) == (in == 1))
            gap[in].push_back((dev1[i]->enqueue - dev1[i - 1]->enqueue) / 1e3);
        if (!dev1[i]->complete || dev1[i]->end < dev1[i]->start) {
            ++incomplete;
            continue;
        }
        dur[in].push_back((dev1[i]->end - dev1[i]->start) / 1e3);
    }
    for (int in = 1; in >= 0; --in) {
        const spread g = spread_of(gap[in]), d = spread_of(dur[in]);
        std::printf("two-gpu: device1 %s launches=%zu interval_us p10=%.2f median=%.2f p90=%.2f max=%.1f "
                    "kernel_us p10=%.2f median=%.2f p90=%.2f max=%.1f\n",
                    in ? "inside " : "outside", d.n, g.p10, g.median, g.p90, g.max, d.p10, d.median, d.p90, d.max);
    }
    std::printf("two-gpu: device1 launches=%zu without a timed COMPLETE=%d\n", dev1.size(), incomplete);
}

int init(rocprofiler_client_finalize_t, void*) {
    g_verify = std::getenv("ENCORE_TWO_GPU_VERIFY") != nullptr;
    // ENCORE_TWO_GPU_RECORDS=0: replay only, no dispatch records (tells their share of a slowdown).
    const char* records = std::getenv("ENCORE_TWO_GPU_RECORDS");
    const bool with_records = records == nullptr || records[0] != '0';
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                       &on_replay, nullptr) != ROCPROFILER_STATUS_SUCCESS ||
        (with_records &&
         rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                        &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS)) {
        std::fprintf(stderr, "two-gpu-tool: cannot configure (is libencore-cuda the driver?)\n");
        return 1;
    }
    return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "encore-two-gpu";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &init, &report, nullptr};
    return &r;
}
