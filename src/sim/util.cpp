// What every part of the runtime uses: the clock, futex waits, diagnostics on stderr, the
// "initialized" flag and process-unique handle numbers.
#include "sim_internal.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace encore::sim {

uint64_t now_ticks() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));

void futex_wait(std::atomic<uint32_t>* addr, uint32_t expected, int64_t timeout_ns) {
    timespec ts{};
    timespec* pts = nullptr;
    if (timeout_ns >= 0) {
        ts.tv_sec = static_cast<time_t>(timeout_ns / 1000000000);
        ts.tv_nsec = static_cast<long>(timeout_ns % 1000000000);
        pts = &ts;
    }
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), FUTEX_WAIT_PRIVATE, expected, pts, nullptr, 0);
}

void futex_wake_all(std::atomic<uint32_t>* addr) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

void report(const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[encore-sim] %s\n", buf);
}

std::atomic<bool> g_initialized{false};

uint64_t next_handle() {
    static std::atomic<uint64_t> next{1};
    return 0x5e0000000000ull + next.fetch_add(1, std::memory_order_relaxed) * 64;
}

}  // namespace encore::sim
