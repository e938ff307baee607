// src/core/guarded_read.cpp — reading memory that may not be mapped, without faulting.
//
// Argument printing follows pointers the application passed; they may dangle. The reference SDK
// dereferences them directly and can crash the traced process. encore reads through
// process_vm_readv on its own pid: the kernel copies what is mapped and reports EFAULT for what
// is not, with no signal. Where the syscall is unavailable (seccomp, old kernels), it falls back
// to write(2) into a pipe, which also returns EFAULT instead of faulting.
#include <encore/tracing/detail/core.hpp>

#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace encore::tracing::detail {
namespace {

std::atomic<int> g_use_pipe{0};  // set once process_vm_readv proved unusable

std::size_t page_size() noexcept {
    static const std::size_t p = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return p;
}

// Copies up to n bytes; returns the number of readable bytes copied from the start of src.
std::size_t copy_prefix(void* dst, const void* src, std::size_t n) noexcept {
    if (n == 0) return 0;
    if (g_use_pipe.load(std::memory_order_relaxed) == 0) {
        iovec local{dst, n};
        iovec remote{const_cast<void*>(src), n};
        const ssize_t r = ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0);
        if (r >= 0) return static_cast<std::size_t>(r);
        if (errno == EFAULT || errno == ESRCH) return 0;
        g_use_pipe.store(1, std::memory_order_relaxed);  // ENOSYS / EPERM: fall back for good
    }
    // Fallback: page by page through a pipe; write() fails with EFAULT on unmapped memory.
    int fds[2];
    if (::pipe(fds) != 0) return 0;
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
        if (::read(fds[0], out + done, static_cast<std::size_t>(w)) != w) break;
        done += static_cast<std::size_t>(w);
    }
    ::close(fds[0]);
    ::close(fds[1]);
    return done;
}

}  // namespace

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
