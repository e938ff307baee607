// src/hsa/replay_memory_write_tracking.cpp — which pages a replay's passes wrote: the
// write-protection slots, encore's SIGSEGV handler and userfaultfd (replay_memory_state.hpp).
// Calls no other replay_memory file.
#include "replay_memory.hpp"
#include "replay_memory_state.hpp"

#include "core/warn.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

namespace encore::hsa::replay_memory {
namespace detail {

// Two ways to learn which pages a replay's passes wrote, chosen per region:
//   - userfaultfd write-protection in asynchronous mode (Linux 6.7+): the kernel resolves a
//     write to a protected page itself, without a signal or a handler thread, and PAGEMAP_SCAN
//     on /proc/self/pagemap reports the pages written since. Nothing of the program's (its own
//     SIGSEGV handler, installed before or after encore's) is involved.
//   - mprotect and a SIGSEGV handler, where the kernel lacks that (or refuses userfaultfd):
//     encore's handler is checked, and put back first if the program replaced it, every time
//     write protection is armed; faults not encore's go to the handler it displaced.

wp_slot g_slots[max_slots];
uffd_state g_uffd;

namespace {

constexpr std::size_t max_ramp = 4096;
std::atomic<int> g_slot_high{0};
// The handler encore's displaced (a heap copy, replaced whole when the program installs another:
// the handler reads it without locks, so old copies are never freed; they stay listed, and
// replacements are rare).
struct displaced {
    struct sigaction sa;
    const displaced* older;
};
std::atomic<const displaced*> g_previous{nullptr};
std::mutex g_handler_mutex;  // serializes checks and installs of encore's handler
std::uintptr_t g_page = 4096;
__attribute__((tls_model("initial-exec"))) thread_local bool t_chaining = false;

void on_segv(int sig, siginfo_t* si, void* uc) {
    const auto addr = reinterpret_cast<std::uintptr_t>(si->si_addr);
    if (si->si_code == SEGV_ACCERR && !t_chaining) {
        const int high = g_slot_high.load(std::memory_order_acquire);
        for (int i = 0; i < high; ++i) {
            if (!g_slots[i].by_signal.load(std::memory_order_acquire)) continue;
            const std::uintptr_t b = g_slots[i].begin.load(std::memory_order_acquire);
            const std::uintptr_t e = g_slots[i].end.load(std::memory_order_acquire);
            if (addr < b || addr >= e) continue;
            const std::size_t chunk = g_slots[i].chunk.load(std::memory_order_relaxed);
            const std::size_t c = (addr - b) / chunk;
            const std::size_t n = (e - b + chunk - 1) / chunk;
            // A write right after a run of changed chunks is taken as a sequential sweep: as
            // many chunks as the run has (at most max_ramp) are opened and counted changed at
            // once, so a kernel writing a large range costs a logarithmic number of faults
            // instead of one per chunk, and at most doubles the bytes restored.
            std::size_t span = 1;
            std::uint8_t* d = g_slots[i].dirty.load(std::memory_order_acquire);
            if (d != nullptr)
                while (span < max_ramp && c >= span && __atomic_load_n(&d[c - span], __ATOMIC_RELAXED) != 0) ++span;
            if (c + span > n) span = n - c;
            if (d != nullptr)
                for (std::size_t k = c; k < c + span; ++k) __atomic_store_n(&d[k], 1, __ATOMIC_RELAXED);
            const std::uintptr_t cb = b + c * chunk;
            const std::uintptr_t ce = std::min<std::uintptr_t>(cb + span * chunk, e);
            ::mprotect(reinterpret_cast<void*>(cb), ce - cb, PROT_READ | PROT_WRITE);
            return;  // the write is retried
        }
    }
    // Not ours: the handler encore displaced gets it. A fault that comes back here from inside
    // that handler (it chains to the one it displaced: encore's) is nobody's: the default action.
    const displaced* dp = g_previous.load(std::memory_order_acquire);
    const struct sigaction* prev = dp != nullptr ? &dp->sa : nullptr;
    if (!t_chaining && prev != nullptr && (prev->sa_flags & SA_SIGINFO) != 0 && prev->sa_sigaction != nullptr) {
        t_chaining = true;
        prev->sa_sigaction(sig, si, uc);
        t_chaining = false;
        return;
    }
    if (!t_chaining && prev != nullptr && (prev->sa_flags & SA_SIGINFO) == 0 && prev->sa_handler != SIG_DFL &&
        prev->sa_handler != SIG_IGN) {
        t_chaining = true;
        prev->sa_handler(sig);
        t_chaining = false;
        return;
    }
    // Default action: the faulting instruction runs again without a handler (an ignored
    // SIGSEGV from a fault is fatal too).
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(SIGSEGV, &dfl, nullptr);
}

}  // namespace

// Makes encore's handler the installed one, keeping whichever it displaces for the faults that
// are not encore's. Called every time write protection is armed through signals: a program that
// installed its own handler after an earlier replay gets it back behind encore's. (A handler
// installed while a replay's passes run still sees that replay's faults: the window that stays.)
bool ensure_handler() noexcept {
    std::lock_guard lk(g_handler_mutex);
    struct sigaction cur {};
    if (::sigaction(SIGSEGV, nullptr, &cur) != 0) return false;
    if ((cur.sa_flags & SA_SIGINFO) != 0 && cur.sa_sigaction == &on_segv) return true;
    auto* prev = new (std::nothrow) displaced{cur, g_previous.load(std::memory_order_relaxed)};
    if (prev == nullptr) return false;
    struct sigaction sa {};
    sa.sa_sigaction = &on_segv;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    g_previous.store(prev, std::memory_order_release);  // before ours can run
    if (::sigaction(SIGSEGV, &sa, nullptr) != 0) {
        static core::warn_once failed;
        failed("kernel replay: cannot install the write-tracking handler; changed_chunks compares instead");
        return false;
    }
    return true;
}

namespace {

std::once_flag g_uffd_once;

int open_uffd(bool user_mode_only) noexcept {
    const int flags = O_CLOEXEC | O_NONBLOCK | (user_mode_only ? UFFD_USER_MODE_ONLY : 0);
    int fd = static_cast<int>(::syscall(SYS_userfaultfd, flags));
    if (fd < 0 && !user_mode_only) {
        // Refused to this process (vm.unprivileged_userfaultfd): the device node, if allowed.
        const int dev = ::open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
        if (dev >= 0) {
            fd = ::ioctl(dev, userfaultfd_ioc_new, O_CLOEXEC | O_NONBLOCK);
            ::close(dev);
        }
    }
    return fd;
}

// Whether a written page is seen: one page protected, written, scanned (the kernel may have the
// calls and still not resolve writes asynchronously).
bool probe_uffd(int uffd, int pagemap) noexcept {
    void* p = ::mmap(nullptr, g_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    static_cast<volatile char*>(p)[0] = 1;
    uffdio_register reg{};
    reg.range = {a, g_page};
    reg.mode = UFFDIO_REGISTER_MODE_WP;
    uffdio_writeprotect wp{};
    wp.range = {a, g_page};
    wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
    bool ok = ::ioctl(uffd, UFFDIO_REGISTER, &reg) == 0 && ::ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) == 0;
    page_region r{};
    pm_scan_arg scan{sizeof(pm_scan_arg),
                     pm_scan_check_wpasync,
                     a,
                     a + g_page,
                     0,
                     reinterpret_cast<std::uintptr_t>(&r),
                     1,
                     0,
                     0,
                     page_is_written,
                     0,
                     page_is_written};
    ok = ok && ::ioctl(pagemap, pagemap_scan, &scan) == 0;  // protected: nothing written
    static_cast<volatile char*>(p)[0] = 2;                  // resolved by the kernel, no signal
    ok = ok && ::ioctl(pagemap, pagemap_scan, &scan) == 1 && r.start == a;
    ::munmap(p, g_page);
    return ok;
}

void init_uffd() noexcept {
    g_page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    // For the tests of the fallback (docs/replay.md).
    if (const char* f = std::getenv("ENCORE_REPLAY_TEST_WRITE_TRACKING"); f != nullptr && std::strcmp(f, "signals") == 0)
        return;
    const int pagemap = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (pagemap < 0) return;
    for (bool user_mode_only : {false, true}) {
        for (std::uint64_t extra : {uffd_feature_wp_unpopulated, std::uint64_t{0}}) {
            const int fd = open_uffd(user_mode_only);
            if (fd < 0) break;
            uffdio_api api{};
            api.api = UFFD_API;
            api.features = UFFD_FEATURE_PAGEFAULT_FLAG_WP | uffd_feature_wp_async | extra;
            if (::ioctl(fd, UFFDIO_API, &api) == 0 && probe_uffd(fd, pagemap)) {
                g_uffd = {fd, pagemap, ::getpid()};
                return;
            }
            ::close(fd);
        }
    }
    ::close(pagemap);
}

}  // namespace

bool uffd_usable() noexcept {
    std::call_once(g_uffd_once, init_uffd);
    return g_uffd.uffd >= 0 && g_uffd.pid == ::getpid();
}

bool uffd_protect(std::uintptr_t b, std::uintptr_t e, bool on) noexcept {
    uffdio_writeprotect wp{};
    wp.range = {b, e - b};
    wp.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0;
    return uffd_usable() && ::ioctl(g_uffd.uffd, UFFDIO_WRITEPROTECT, &wp) == 0;
}

namespace {
// A kernel replayed again usually writes where it wrote last time, and on this path each page
// it writes costs a fault the kernel resolves (~1-3 us here; the SIGSEGV handler's sequential
// ramp has no counterpart). So the pages the region's last replay wrote (at most warm_max runs of
// them) stay unprotected at the next arm: PAGEMAP_SCAN reports a page not write-protected as
// written, so they are restored before every later pass as if written (correct whatever the
// kernel does) and cost no fault. Whether they are still written cannot be seen then (a page
// written with the bytes it had is the common case and looks unwritten), so every warm_period-th
// arm protects everything and measures afresh: a set that grew or went stale lasts that long.
constexpr std::size_t warm_max = 64;
constexpr unsigned warm_period = 8;
}  // namespace

void arm_warm(region& r) noexcept {
    if (++r.warm_arms % warm_period == 0) return;  // measure this time
    for (const auto& [b, e] : r.warm) (void)uffd_protect(b, e, false);
}

void update_warm(region& r, std::uintptr_t b, std::uintptr_t e) noexcept {
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> next;
    bool overflow = false;
    const bool scanned = uffd_written(b, e, [&](std::uintptr_t wb, std::uintptr_t we) {
        if (overflow) return;
        if (next.size() == warm_max) {
            overflow = true;
            return;
        }
        try {
            next.emplace_back(wb, we);  // the kernel's runs: neighbours already merged
        } catch (...) {
            overflow = true;
        }
    });
    r.warm.clear();
    if (scanned && !overflow) r.warm = std::move(next);  // else none: a scattered set faults page by page
}

bool assign_slot(region& r, std::size_t chunk) noexcept {
    if (r.slot >= 0) return g_slots[r.slot].chunk.load(std::memory_order_relaxed) == chunk;
    (void)uffd_usable();  // sets g_page
    const std::uintptr_t b = (r.base + g_page - 1) / g_page * g_page;
    const std::uintptr_t e = (r.base + r.size) / g_page * g_page;
    if (e <= b) return false;  // no whole page: compared instead
    static std::mutex slots_mutex;
    std::lock_guard lk(slots_mutex);
    for (int i = 0; i < max_slots; ++i) {
        if (g_slots[i].end.load(std::memory_order_relaxed) != 0) continue;
        const std::size_t n = (e - b + chunk - 1) / chunk;
        auto* d = new (std::nothrow) std::uint8_t[n]();
        if (d == nullptr) return false;
        // userfaultfd where the kernel takes the range, else SIGSEGV (e.g. a mapping the kernel
        // cannot write-protect this way: shmem or hugetlbfs before 5.19).
        bool by_signal = true;
        if (uffd_usable()) {
            uffdio_register reg{};
            reg.range = {b, e - b};
            reg.mode = UFFDIO_REGISTER_MODE_WP;
            by_signal = ::ioctl(g_uffd.uffd, UFFDIO_REGISTER, &reg) != 0;
        }
        g_slots[i].by_signal.store(by_signal, std::memory_order_relaxed);
        g_slots[i].chunk.store(chunk, std::memory_order_relaxed);
        g_slots[i].dirty.store(d, std::memory_order_release);
        g_slots[i].begin.store(b, std::memory_order_release);
        g_slots[i].end.store(e, std::memory_order_release);
        if (i + 1 > g_slot_high.load(std::memory_order_relaxed)) g_slot_high.store(i + 1, std::memory_order_release);
        r.slot = i;
        return true;
    }
    return false;
}

void release_slot(region& r) noexcept {
    if (r.slot < 0) return;
    auto& s = g_slots[r.slot];
    const std::uintptr_t b = s.begin.load(std::memory_order_relaxed), e = s.end.load(std::memory_order_relaxed);
    if (s.by_signal.load(std::memory_order_relaxed)) {
        ::mprotect(reinterpret_cast<void*>(b), e - b, PROT_READ | PROT_WRITE);
    } else if (uffd_usable()) {
        // Before the runtime frees it: the pages go back unprotected and unregistered.
        uffdio_range range{b, e - b};
        (void)::ioctl(g_uffd.uffd, UFFDIO_UNREGISTER, &range);
    }
    s.end.store(0, std::memory_order_release);
    s.begin.store(0, std::memory_order_release);
    delete[] s.dirty.exchange(nullptr, std::memory_order_acq_rel);
    r.slot = -1;
}

}  // namespace detail

bool write_tracking_available() noexcept {
    // encore's software runtime keeps device memory in this process (docs/sim.md); it exports
    // encore_sim_pointer_pool. On ROCr device memory is not host memory: no page faults to see.
    static const bool available = ::dlsym(RTLD_DEFAULT, "encore_sim_pointer_pool") != nullptr;
    return available;
}

}  // namespace encore::hsa::replay_memory
