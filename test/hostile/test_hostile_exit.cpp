// test/hostile/test_hostile_exit.cpp — issue 40 item 5: the process exits while its threads still
// trace into a buffer. docs/buffer-tracing.md: every buffer is delivered before any tool's
// finalize runs, so a tool may free what its buffer callback uses in finalize: no delivery may
// come during or after it. Each run is a forked child that exits with threads still writing.
#include "../../src/core/buffer.hpp"
#include "../support/fake_hsa.hpp"

#include <encore/encore.hpp>
#include <encore/tracing/hsa.hpp>
#include <rocprofiler-sdk/rocprofiler.h>

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>

using namespace encore;

#if defined(__SANITIZE_THREAD__)
// The children start threads after a fork (ThreadSanitizer's own background thread makes every
// parent multi-threaded to it).
extern "C" const char* __tsan_default_options() { return "die_after_fork=0"; }
#endif
// LeakSanitizer's exit check in a child whose threads still run at exit sees their memory in use;
// the children turn it off for themselves (the parent keeps it).
namespace {
volatile int g_forked_child = 0;
}
extern "C" __attribute__((visibility("default"), used)) int __lsan_is_turned_off() { return g_forked_child; }

namespace {

constexpr std::uint32_t test_category = ROCPROFILER_BUFFER_CATEGORY_COUNTERS;

// The tool: its callback uses state that its finalize frees, as a tool that writes its report
// and releases its tables at finalize does.
struct tool_state {
    std::atomic<std::uint64_t> records{0};
};
tool_state* g_state = nullptr;
std::atomic<int> g_phase{0};  // 0 running, 1 in finalize, 2 finalized
rocprofiler_buffer_id_t g_buf{};
fake_hsa::tables* g_tables = nullptr;

void fail_now(const char* why) {
    (void)!::write(2, why, __builtin_strlen(why));
    ::_exit(7);
}

void on_records(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t**, size_t n, void*,
                uint64_t) {
    if (g_phase.load() == 1) fail_now("a buffer delivery during the tool's finalize\n");
    if (g_phase.load() == 2) fail_now("a buffer delivery after the tool's finalize\n");
    g_state->records += n;
}

int tool_init(void*) {
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    // Small and with a low watermark: deliveries come all the time, and writers block on full
    // LOSSLESS rings.
    if (rocprofiler_create_buffer(ctx, 8192, 1024, ROCPROFILER_BUFFER_POLICY_LOSSLESS, &on_records, nullptr, &g_buf) !=
        ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (rocprofiler_configure_buffer_tracing_service(ctx, ROCPROFILER_BUFFER_TRACING_HSA_CORE_API, nullptr, 0, g_buf) !=
        ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return static_cast<int>(rocprofiler_start_context(ctx));
}

void tool_fini(void*) {
    g_phase = 1;
    // A finalize that takes a moment (it writes its report): deliveries would land in it.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    delete g_state;
    g_state = nullptr;
    g_phase = 2;
}

// One run: threads trace (traced calls through the buffer service) and write records of their own
// (buffer_emit, as a backend's buffered service does) until the process exits under them.
[[noreturn]] void child() {
    g_forked_child = 1;
    g_state = new tool_state;
    static fake_hsa::tables t;
    g_tables = &t;
    if (encore::register_tool("exit-tool", &tool_init, &tool_fini) != ROCPROFILER_STATUS_SUCCESS) ::_exit(5);
    encore::initialize();
    tracing::hsa_all::install(t.root);
    for (int i = 0; i < 4; ++i)
        std::thread([i] {
            for (std::uint64_t seq = 0;; ++seq) {
                if (i % 2 == 0) {
                    g_tables->core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
                } else {
                    const std::uint64_t p[4] = {seq, 1, 2, 3};
                    (void)core::buffer_emit(g_buf, test_category, 1, p, sizeof p);
                }
            }
        }).detach();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    std::exit(0);  // atexit: encore's finalization, with the threads still writing
}

// The child's wait status, or -1 after killing it when it took longer than `seconds`.
int wait_child(pid_t pid, int seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    for (;;) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) return status;
        if (std::chrono::steady_clock::now() > until) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

}  // namespace

// The case's bound: an alarm, not a watchdog thread. A child forked while another thread of the
// parent is inside the sanitizers' allocator inherits its lock held (GCC 12's runtimes have no fork
// handlers for it) and hangs in its first malloc. Alarms are not inherited by fork children.
namespace {
void on_alarm(int) {
    static const char msg[] = "WATCHDOG: \"item 5: exit while threads trace\" did not finish in time (a hang)\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(3);
}
}  // namespace

TEST_CASE("item 5: threads still tracing while the process exits: no delivery during or after the tool's finalize") {
    ::signal(SIGALRM, &on_alarm);
    ::alarm(200);
    constexpr int runs = 12;
    int clean = 0;
    for (int run = 0; run < runs; ++run) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) child();
        const int status = wait_child(pid, 15);
        INFO("run " << run << ": wait status " << status);
        CHECK(status != -1);
        CHECK(WIFEXITED(status));
        if (WIFEXITED(status)) {
            CHECK(WEXITSTATUS(status) == 0);
            if (WEXITSTATUS(status) == 0) ++clean;
        }
    }
    CHECK(clean == runs);
    ::alarm(0);
}
