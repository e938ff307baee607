// examples/tools/dying_output.hpp — what the example tools (api_trace, replay_bench) share to keep
// their output when the program dies: whole-record write(2)s, a fixed-buffer formatter, and the
// signal handlers that finish the output before the program dies of a signal.
//
// Why write(2) per record: once write(2) returns, the bytes are in the kernel's page cache, so
// they survive _exit, SIGKILL and a crash of the program (not a crash of the machine). With
// O_APPEND each write(2) lands whole at the end of the file (POSIX: no other modification of the
// file between the seek to its end and the write), so threads writing records concurrently never
// interleave partial lines.
//
// Signals: fatal ones (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS) are handled unless the
// program ignores them; the handler finishes the output, then passes the signal on: to the
// handler that was there before (the program's or a sanitizer's), or, where that was the default
// action, by restoring it and raising the signal again, so the program dies of the signal it would
// have died of, with the same exit status and core dump. If the previous handler returns (the
// program handled the fault and goes on), the tool undoes the finish (`resume`). The termination
// signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) are handled only where their disposition is the
// default: a program that handles them itself decides what they do. Everything the handlers run
// is async-signal-safe (write, lseek, ftruncate, nanosleep, sigaction, raise, clock_gettime, and
// formatting into fixed buffers).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

// Internal linkage (an unnamed namespace): each tool library has its own handlers and state, also
// when both tools are loaded in one process (the second then chains to the first).
namespace dying_output {
namespace {

// Writes all of [p, p + n), retrying on EINTR and short writes (a short write happens only on a
// full disk or a signal in the middle of a large write).
inline bool write_all(int fd, const char* p, std::size_t n) noexcept {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}
inline bool write_all(int fd, std::string_view s) noexcept { return write_all(fd, s.data(), s.size()); }

// Text built in a fixed buffer (no allocation: usable in a signal handler); what does not fit is cut.
template <std::size_t N>
struct fixed_text {
    char buf[N];
    std::size_t len = 0;
    fixed_text& add(std::string_view s) noexcept {
        for (const char c : s)
            if (len < N) buf[len++] = c;
        return *this;
    }
    fixed_text& add(std::uint64_t v) noexcept {
        char d[24];
        std::size_t k = 0;
        do {
            d[k++] = static_cast<char>('0' + v % 10);
            v /= 10;
        } while (v != 0);
        while (k > 0 && len < N) buf[len++] = d[--k];
        return *this;
    }
    // Nanoseconds as microseconds with `decimals` (1-3) digits after the point.
    fixed_text& add_us(std::uint64_t ns, int decimals = 3) noexcept {
        add(ns / 1000);
        add(".");
        std::uint64_t frac = ns % 1000, scale = 100;
        for (int i = 0; i < decimals; ++i, scale /= 10) {
            const char c = static_cast<char>('0' + (frac / scale) % 10);
            add(std::string_view(&c, 1));
        }
        return *this;
    }
    // Pads with spaces what was added since `start` to `width` columns (left-justified).
    fixed_text& pad_to(std::size_t start, std::size_t width) noexcept {
        while (len < N && len - start < width) buf[len++] = ' ';
        return *this;
    }
    // `text` right-justified in `width` columns.
    fixed_text& add_right(std::string_view text, std::size_t width) noexcept {
        for (std::size_t n = text.size(); n < width; ++n) add(" ");
        return add(text);
    }
    fixed_text& add_right(std::uint64_t v, std::size_t width) noexcept {
        fixed_text<24> t;
        return add_right(t.add(v).view(), width);
    }
    [[nodiscard]] std::string_view view() const noexcept { return {buf, len}; }
};

// The signal's name (strsignal is not async-signal-safe).
inline const char* signal_name(int sig) noexcept {
    switch (sig) {
        case SIGSEGV: return "SIGSEGV";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE";
        case SIGILL: return "SIGILL";
        case SIGABRT: return "SIGABRT";
        case SIGSYS: return "SIGSYS";
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        case SIGHUP: return "SIGHUP";
        case SIGQUIT: return "SIGQUIT";
        default: return "a signal";
    }
}

// CLOCK_BOOTTIME in nanoseconds: encore's clock (src/core/clock.hpp), read without libencore.
inline std::uint64_t boottime_ns() noexcept {
    timespec t{};
    ::clock_gettime(CLOCK_BOOTTIME, &t);
    return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(t.tv_nsec);
}

// Sleeps about `us` microseconds (nanosleep is async-signal-safe).
inline void pause_us(long us) noexcept {
    timespec t{0, us * 1000};
    ::nanosleep(&t, nullptr);
}

// What the tool does on a signal. `finish(sig, dying)`: finish the output; `dying` is true when
// the default action (death) follows, false when the signal goes to the program's own handler
// first (which may return). `resume(sig)`: that handler returned; the program goes on.
struct hooks {
    void (*finish)(int sig, bool dying) noexcept;
    void (*resume)(int sig) noexcept;
};

namespace detail {
hooks g_hooks{};
struct sigaction g_previous[NSIG];

inline bool is_default(const struct sigaction& a) noexcept {
    return (a.sa_flags & SA_SIGINFO) == 0 && a.sa_handler == SIG_DFL;
}

inline void on_signal(int sig, siginfo_t* info, void* uctx) {
    const int saved_errno = errno;
    const struct sigaction& prev = g_previous[sig];
    const bool chain = (prev.sa_flags & SA_SIGINFO) != 0 ? prev.sa_sigaction != nullptr
                                                         : (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN);
    g_hooks.finish(sig, !chain);
    if (chain) {
        if ((prev.sa_flags & SA_SIGINFO) != 0)
            prev.sa_sigaction(sig, info, uctx);
        else
            prev.sa_handler(sig);
        // That handler returned. If it restored the default action (to raise the signal again, or
        // to let the fault recur on return), death follows: the output stays finished. Otherwise it
        // dealt with the signal (a fault it repairs, a signal it counts): the program goes on, and
        // so does the output.
        struct sigaction now {};
        if (::sigaction(sig, nullptr, &now) == 0 && is_default(now))
            g_hooks.finish(sig, true);
        else
            g_hooks.resume(sig);
        errno = saved_errno;
        return;
    }
    // The default action, as if the tool were not there: the signal is blocked while this handler
    // runs, so the one raised here is delivered, with the default disposition, when it returns
    // (a fault that recurs on return dies the same way).
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);
    errno = saved_errno;
}

inline void install_one(int sig, bool only_if_default) noexcept {
    struct sigaction prev {};
    if (::sigaction(sig, nullptr, &prev) != 0) return;
    const bool ignored = (prev.sa_flags & SA_SIGINFO) == 0 && prev.sa_handler == SIG_IGN;
    if (ignored || (only_if_default && !is_default(prev))) return;
    g_previous[sig] = prev;
    struct sigaction sa {};
    sa.sa_sigaction = &on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;  // ONSTACK: a stack overflow's SIGSEGV too
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
}
}  // namespace detail

// Installs the handlers (once, at the tool's initialization).
inline void install(hooks h) noexcept {
    detail::g_hooks = h;
    for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS}) detail::install_one(sig, false);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) detail::install_one(sig, true);
}

}  // namespace
}  // namespace dying_output
