// src/core/guarded_read.cpp — reading memory that may not be mapped, without faulting.
//
// Argument printing follows pointers the application passed; they may dangle. The reference SDK
// dereferences them directly and can crash the traced process. encore reads through
// process_vm_readv on its own pid: the kernel copies what is mapped and reports EFAULT for what
// is not, with no signal. Where the syscall is unavailable (seccomp, old kernels), it falls back
// to write(2) into a pipe, which also returns EFAULT instead of faulting (one pipe, kept open).
// Memory in the calling thread's own stack between its stack pointer and the stack's top is
// readable by construction and copied directly, with no syscall: that covers the payload of
// every API record while its callback runs (the traced call's frame), so iterating a genuine
// record's arguments works even where both probes are unavailable (seccomp and no free fd).
#include <encore/tracing/detail/core.hpp>

#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>

extern "C" void* __libc_stack_end;  // glibc: the main thread's stack top (as the kernel set it up)

namespace encore::tracing::detail {
namespace {

std::atomic<int> g_use_pipe{0};  // set once process_vm_readv proved unusable

std::size_t page_size() noexcept {
    static const std::size_t p = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return p;
}

// This thread's stack, [low, high), found once per thread without opening a file (glibc's
// pthread_getattr_np reads /proc/self/maps for the main thread, which needs a free fd).
struct stack_bounds {
    std::uintptr_t low = 0, high = 0;
    bool known = false;
};

stack_bounds find_stack() noexcept {
    stack_bounds b;
    if (::syscall(SYS_gettid) == ::getpid()) {
        rlimit lim{};
        if (::getrlimit(RLIMIT_STACK, &lim) != 0) return b;
        b.high = reinterpret_cast<std::uintptr_t>(__libc_stack_end);
        const std::uintptr_t size = lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > b.high ? b.high : lim.rlim_cur;
        b.low = b.high - size;
    } else {
        pthread_attr_t attr;
        if (::pthread_getattr_np(::pthread_self(), &attr) != 0) return b;
        void* addr = nullptr;
        std::size_t size = 0;
        const bool ok = ::pthread_attr_getstack(&attr, &addr, &size) == 0;
        ::pthread_attr_destroy(&attr);
        if (!ok) return b;
        b.low = reinterpret_cast<std::uintptr_t>(addr);
        b.high = b.low + size;
    }
    b.known = b.high > b.low;
    return b;
}

// Whether [src, src + n) lies between this thread's stack pointer and its stack's top: pages
// in use by live frames, mapped and readable. The stack pointer must be in the thread's stack
// itself (not a signal or coroutine stack, where the span up to the top would cross a gap).
[[gnu::noinline]] bool in_live_stack(const void* src, std::size_t n) noexcept {
    thread_local stack_bounds bounds = find_stack();
    if (!bounds.known) return false;
    const auto sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    const auto a = reinterpret_cast<std::uintptr_t>(src);
    return sp >= bounds.low && sp < bounds.high && a >= sp && a < bounds.high && n <= bounds.high - a;
}

// Copies from the live stack. A string or payload there may sit in a frame next to other
// objects: the bytes past it are mapped but, to AddressSanitizer, a neighbour's redzone. So
// this copy is not instrumented, and byte-wise through volatile so that it stays a loop and
// never becomes a call to the (intercepted) memcpy. Its reads are small (a payload, a string).
__attribute__((no_sanitize_address)) void copy_live_stack(void* dst, const void* src, std::size_t n) noexcept {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* v = static_cast<const volatile unsigned char*>(src);
    for (std::size_t i = 0; i < n; ++i) d[i] = v[i];
}

// The fallback's pipe, opened on first use and kept (a pipe per read would need two free fds
// each time). One reader at a time: the bytes of two reads must not mix.
std::mutex g_pipe_mutex;
int g_pipe[2] = {-1, -1};

// Copies up to n bytes; returns the number of readable bytes copied from the start of src.
std::size_t copy_prefix(void* dst, const void* src, std::size_t n) noexcept {
    if (n == 0) return 0;
    if (in_live_stack(src, n)) {
        copy_live_stack(dst, src, n);
        return n;
    }
    if (g_use_pipe.load(std::memory_order_relaxed) == 0) {
        iovec local{dst, n};
        iovec remote{const_cast<void*>(src), n};
        const ssize_t r = ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0);
        if (r >= 0) return static_cast<std::size_t>(r);
        if (errno == EFAULT || errno == ESRCH) return 0;
        g_use_pipe.store(1, std::memory_order_relaxed);  // ENOSYS / EPERM: fall back for good
    }
    // Fallback: page by page through a pipe; write() fails with EFAULT on unmapped memory.
    std::lock_guard lk(g_pipe_mutex);
    if (g_pipe[0] < 0 && ::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        g_pipe[0] = g_pipe[1] = -1;
        return 0;  // no fd now: a later read tries again
    }
    const int fds[2] = {g_pipe[0], g_pipe[1]};
    std::size_t done = 0;
    auto* out = static_cast<unsigned char*>(dst);
    const auto* in = static_cast<const unsigned char*>(src);
    while (done < n) {
        const auto addr = reinterpret_cast<std::uintptr_t>(in + done);
        std::size_t chunk = page_size() - addr % page_size();
        if (chunk > n - done) chunk = n - done;
        if (chunk > 4096) chunk = 4096;  // stay within the pipe's buffer
        const ssize_t w = ::write(fds[1], in + done, chunk);
        if (w <= 0) break;
        if (::read(fds[0], out + done, static_cast<std::size_t>(w)) != w) {
            // Never leave bytes behind for the next read to take as its own.
            char sink[512];
            while (::read(fds[0], sink, sizeof sink) > 0) {
            }
            break;
        }
        done += static_cast<std::size_t>(w);
    }
    return done;
}

}  // namespace

// The child of a fork shares the parent's pipe: two processes' reads would mix their bytes. It
// gets its own on first use; the lock may have been held by a thread the child does not have.
void guarded_read_after_fork_child() noexcept {
    ::new (&g_pipe_mutex) std::mutex();
    for (int& fd : g_pipe) {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
}

bool guarded_read(void* dst, const void* src, std::size_t n) noexcept {
    if (src == nullptr) return n == 0;
    return copy_prefix(dst, src, n) == n;
}

long guarded_read_string(char* dst, const char* src, std::size_t max, bool& truncated) noexcept {
    truncated = false;
    if (src == nullptr) return -1;
    std::size_t len = 0;
    // Read page by page so that a string ending just before an unmapped page is still read.
    while (len < max) {
        const auto addr = reinterpret_cast<std::uintptr_t>(src + len);
        std::size_t chunk = page_size() - addr % page_size();
        if (chunk > max - len) chunk = max - len;
        const std::size_t got = copy_prefix(dst + len, src + len, chunk);
        if (const void* nul = std::memchr(dst + len, '\0', got)) {
            len = static_cast<std::size_t>(static_cast<const char*>(nul) - dst);
            dst[len] = '\0';
            return static_cast<long>(len);
        }
        len += got;
        if (got < chunk) {
            if (len == 0) return -1;
            truncated = true;
            dst[len] = '\0';
            return static_cast<long>(len);
        }
    }
    truncated = true;
    dst[len] = '\0';
    return static_cast<long>(len);
}

}  // namespace encore::tracing::detail
