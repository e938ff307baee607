// test/hsa/test_replay_hazards.cpp — kernel replay beside what programs and tools do around it
// (issue 17), on the software HSA runtime. The program is its own tool (HSA_TOOLS_LIB). Modes:
//   app_segv       changed_chunks (the software runtime's default policy), the program installs
//                  its own SIGSEGV handler after the first replayed dispatch and counts every
//                  call: more replayed dispatches give the results of a run without replay and
//                  never reach the program's handler; a genuine fault of the program's own still
//                  does. Run as is (write tracking without signals where the kernel allows) and
//                  with ENCORE_REPLAY_TEST_WRITE_TRACKING=signals (the SIGSEGV fallback).
//   callback_copy  a KERNEL_DISPATCH COMPLETE callback copies into device memory
//                  (hsa_memory_copy) while another thread's dispatch is being replayed on the
//                  same agent (and, second, on the other agent): every replay completes all its
//                  passes (none declined after the wait bound) and the program ends promptly.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using test_support::expect;
using clk = std::chrono::steady_clock;

std::string g_mode;
rocprofiler_context_id_t g_ctx{};
constexpr uint32_t n = 4096;  // floats: 16 KiB, whole pages of device memory (write-tracked)
constexpr std::uint64_t passes = 3;

// ---- what the tool sees -------------------------------------------------------------------------
std::mutex g_mutex;
int g_replayed = 0, g_declined = 0, g_full = 0;  // CONFIG EXITs: replayed, declined, all passes run
std::string g_decline_reason;
thread_local bool t_replay_mine = false;  // CONFIG ENTER on this thread asks for passes

// callback_copy: the COMPLETE callback of a dispatch on g_copy_queue copies into g_copy_dst,
// once the replaying thread has entered CONFIG (so the replay is taking the agent or draining).
std::atomic<std::uint64_t> g_copy_queue{~0ull};
std::atomic<void*> g_copy_dst{nullptr};
std::atomic<bool> g_callback_started{false}, g_config_entered{false};
std::atomic<int> g_callback_copies{0};
std::vector<float> g_host_src(n, 5.0f);

std::uint64_t pass_count(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return passes; }

void on_replay(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    if (r.operation != ROCPROFILER_KERNEL_REPLAY_CONFIG) return;
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        if (!t_replay_mine) return;  // opt out
        p->replay_pass_count = &pass_count;
        g_config_entered.store(true);
        return;
    }
    if (!t_replay_mine) return;
    std::lock_guard lk(g_mutex);
    if (p->decline_reason != nullptr) {
        ++g_declined;
        g_decline_reason = p->decline_reason;
    } else {
        ++g_replayed;
        g_full += p->passes_run == passes ? 1 : 0;
    }
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    if (p->dispatch_info.queue_id.handle != g_copy_queue.load()) return;
    // The tool's own work from the completion callback: a copy into device memory, made while
    // the other thread's replay is between CONFIG ENTER and its drain (which waits for this
    // dispatch, so for this callback).
    g_callback_started.store(true);
    const auto until = clk::now() + std::chrono::seconds(5);
    while (!g_config_entered.load() && clk::now() < until) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    expect(hsa_memory_copy(g_copy_dst.load(), g_host_src.data(), n * sizeof(float)) == HSA_STATUS_SUCCESS,
           "the callback's copy");
    g_callback_copies.fetch_add(1);
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (rocprofiler_create_context(&g_ctx) != 0) return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                       &on_replay, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (g_mode == "callback_copy" &&
        rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                       &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_ctx) == 0 ? 0 : 1;
}

// ---- the program ------------------------------------------------------------------------------
struct device {
    hsa_agent_t cpu{}, gpu{};
    example::CodeObject* co = nullptr;
    uint64_t k_saxpy = 0;
    float *x = nullptr, *y = nullptr;
    example::SaxpyArgs* args = nullptr;
    hsa_queue_t* queue = nullptr;
    hsa_signal_t done{};

    device(const char* co_path, std::size_t agent_index) {
        cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(agent_index);
        co = new example::CodeObject(co_path, gpu);
        k_saxpy = co->kernel("saxpy_accumulate", gpu);
        x = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
        y = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
        std::vector<float> hx(n), hy(n, 1.0f);
        for (uint32_t i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 17) * 0.5f;
        HSA_CHECK(hsa_memory_copy(x, hx.data(), n * sizeof(float)));
        HSA_CHECK(hsa_memory_copy(y, hy.data(), n * sizeof(float)));
        args = static_cast<example::SaxpyArgs*>(example::alloc_kernarg(cpu, gpu, sizeof(example::SaxpyArgs)));
        *args = {x, y, 0.25f, n};
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue));
        HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
    }
    ~device() {
        HSA_CHECK(hsa_signal_destroy(done));
        HSA_CHECK(hsa_queue_destroy(queue));
        for (void* p : {static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(args)})
            HSA_CHECK(hsa_amd_memory_pool_free(p));
        delete co;
    }
    void saxpy() {
        hsa_signal_store_screlease(done, 1);
        example::dispatch_1d(queue, k_saxpy, args, n, 64, done);
        example::wait_done(done);
    }
    // y after `runs` saxpy dispatches, as without replay.
    bool y_after(int runs) {
        std::vector<float> hy(n);
        HSA_CHECK(hsa_memory_copy(hy.data(), y, n * sizeof(float)));
        for (uint32_t i = 0; i < n; ++i) {
            float v = 1.0f;
            for (int k = 0; k < runs; ++k) v += 0.25f * (static_cast<float>(i % 17) * 0.5f);
            if (std::fabs(hy[i] - v) > 1e-4f * std::fabs(v)) return false;
        }
        return true;
    }
};

// ---- app_segv -----------------------------------------------------------------------------------
std::atomic<int> g_app_faults{0}, g_app_unexpected{0};
void* g_app_page = nullptr;  // the program's own page, PROT_NONE until its handler opens it

void app_handler(int, siginfo_t* si, void*) {
    g_app_faults.fetch_add(1);
    if (g_app_page != nullptr && si->si_addr >= g_app_page &&
        si->si_addr < static_cast<char*>(g_app_page) + sysconf(_SC_PAGESIZE)) {
        mprotect(g_app_page, static_cast<std::size_t>(sysconf(_SC_PAGESIZE)), PROT_READ | PROT_WRITE);
        return;  // the program's own fault, handled: the write is retried
    }
    // A fault the program does not expect (encore's write tracking reaching it): what a crash
    // handler does, made countable. Re-faulting would loop, so end the process here.
    g_app_unexpected.fetch_add(1);
    static const char msg[] = "app_handler: unexpected SIGSEGV (not the program's own fault)\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(3);
}

int app_segv(const char* co_path) {
    t_replay_mine = true;
    device d(co_path, 0);
    d.saxpy();  // the first replayed dispatch: write tracking set up with encore's state as is
    struct sigaction sa {};
    sa.sa_sigaction = &app_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    expect(sigaction(SIGSEGV, &sa, nullptr) == 0, "the program's handler installed");
    constexpr int more = 5;
    for (int i = 0; i < more; ++i) d.saxpy();
    expect(d.y_after(1 + more), "results as without replay");
    expect(g_app_unexpected.load() == 0 && g_app_faults.load() == 0,
           "replay's write tracking never reached the program's handler");
    // The program's own fault still reaches its handler.
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    g_app_page = mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    expect(g_app_page != MAP_FAILED, "mmap");
    static_cast<volatile char*>(g_app_page)[1] = 42;
    expect(g_app_faults.load() == 1 && static_cast<volatile char*>(g_app_page)[1] == 42,
           "the program's own fault reached its handler once");
    d.saxpy();  // and one more replay after it
    expect(d.y_after(2 + more), "results as without replay after the program's fault");
    expect(g_app_faults.load() == 1, "still only the program's own fault");
    munmap(g_app_page, page);
    std::lock_guard lk(g_mutex);
    expect(g_replayed == 2 + more && g_full == 2 + more && g_declined == 0, "every dispatch replayed, all passes");
    return 0;
}

// ---- callback_copy ------------------------------------------------------------------------------
// Thread B's dispatch (opted out) completes; its COMPLETE callback waits until thread A's
// dispatch (replayed) has entered CONFIG, then copies into device memory of `copy_target`. With
// `sibling`, thread C's dispatch there (opted out) is in flight on A's agent meanwhile: its
// completion waits behind B's callback (the runtime has one completion thread), and A's drain
// waits for it.
void callback_round(device& a, device& b, device& copy_target, device* sibling, int& a_runs) {
    g_callback_started.store(false);
    g_config_entered.store(false);
    g_copy_queue.store(b.queue->id);
    g_copy_dst.store(copy_target.x);
    std::thread tb([&] { b.saxpy(); });  // the program's signal fires after the COMPLETE callback
    const auto until = clk::now() + std::chrono::seconds(10);
    while (!g_callback_started.load() && clk::now() < until) std::this_thread::yield();
    std::thread tc;
    if (sibling != nullptr) {
        tc = std::thread([&] { sibling->saxpy(); });
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // submitted and counted
    }
    a.saxpy();  // replayed: its drain waits for B's (or C's) dispatch while B's callback copies
    ++a_runs;
    tb.join();
    if (tc.joinable()) tc.join();
    g_copy_queue.store(~0ull);
}

int callback_copy(const char* co_path) {
    t_replay_mine = true;  // this thread (A) replays; the other threads' dispatches opt out
    device a(co_path, 0), b(co_path, 0), other(co_path, 1), sibling(co_path, 1);
    int a_runs = 0, other_runs = 0;
    const auto start = clk::now();
    constexpr int rounds = 3;
    // Same agent: B's callback copies into agent 0 while A's replay on agent 0 drains B's dispatch.
    for (int i = 0; i < rounds; ++i) callback_round(a, b, b, nullptr, a_runs);
    // Another agent: B's callback (a dispatch of agent 0) copies into agent 1 while A's replay on
    // agent 1 drains C's dispatch there.
    for (int i = 0; i < rounds; ++i) callback_round(other, b, other, &sibling, other_runs);
    const double secs = std::chrono::duration<double>(clk::now() - start).count();
    std::printf("callback_copy: %d rounds in %.2f s\n", 2 * rounds, secs);
    expect(g_callback_copies.load() == 2 * rounds, "every callback copied");
    {
        std::lock_guard lk(g_mutex);
        if (g_declined != 0) std::fprintf(stderr, "declined: %s\n", g_decline_reason.c_str());
        expect(g_declined == 0, "no replay declined (none waited out its bound)");
        expect(g_replayed == 2 * rounds && g_full == 2 * rounds, "every replay ran all its passes");
    }
    expect(a.y_after(rounds), "the replayed dispatches' results as without replay");
    // The copies landed (x of b and of other now holds the callback's 5.0f).
    std::vector<float> hx(n);
    HSA_CHECK(hsa_memory_copy(hx.data(), other.x, n * sizeof(float)));
    expect(hx[3] == 5.0f && hx[n - 1] == 5.0f, "the callback's copy landed");
    expect(secs < 20.0, "promptly (the old bound was 60 s per replay)");
    return 0;
}

}  // namespace

ENCORE_TEST_TOOL(nullptr, &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s <stateful code object> app_segv|callback_copy\n", argv[0]);
        return 2;
    }
    g_mode = argv[2];
    HSA_CHECK(hsa_init());
    int rc = 2;
    if (g_mode == "app_segv") rc = app_segv(argv[1]);
    if (g_mode == "callback_copy") rc = callback_copy(argv[1]);
    HSA_CHECK(hsa_shut_down());
    return rc | test_support::finish();
}
