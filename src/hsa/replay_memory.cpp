// src/hsa/replay_memory.cpp — what a kernel replay snapshots and restores on HSA (replay_memory.hpp):
// the tracker of covered memory, snapshots, restores and write tracking (userfaultfd
// write-protection read back with PAGEMAP_SCAN; a SIGSEGV handler where the kernel has neither).
#include "replay_memory.hpp"

#include "runtime.hpp"

#include "core/range_replay.hpp"
#include "core/warn.hpp"

#include <boost/intrusive/set.hpp>
#include <range/v3/algorithm/sort.hpp>
#include <range/v3/algorithm/unique.hpp>
#include <range/v3/numeric/accumulate.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>
#include <dlfcn.h>
#include <fcntl.h>
#include <hsa/hsa_ext_amd.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <utility>

namespace encore::hsa::replay_memory {


namespace {

namespace bi = boost::intrusive;

// ---- the live set -----------------------------------------------------------------------------
struct region : bi::set_base_hook<bi::optimize_size<true>> {
    std::uintptr_t base = 0;
    std::size_t size = 0;
    std::uint64_t agent = 0;
    std::uint64_t id = 0;          // unique: a snapshot recognises a region freed and reallocated
    std::uint64_t executable = 0;  // for module variables; 0 for allocations
    int slot = -1;                 // write-protection slot once armed
    // userfaultfd: pages the last replay here wrote, left unprotected at the next arm (below).
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> warm;
    unsigned warm_arms = 0;

    friend bool operator<(const region& a, const region& b) noexcept { return a.base < b.base; }
};
struct base_key {
    bool operator()(std::uintptr_t a, const region& b) const noexcept { return a < b.base; }
    bool operator()(const region& a, std::uintptr_t b) const noexcept { return a.base < b; }
};
using region_set = bi::set<region>;

std::atomic<bool> g_enabled{false};
std::shared_mutex g_mutex;    // frees take it exclusively; restore and checksum shared
region_set* g_set = nullptr;  // guarded by g_mutex; never destroyed (frees may come at exit)
std::uint64_t g_next_id = 1;

// The tracked regions of one agent (callers hold g_mutex).
auto on_agent(std::uint64_t agent) {
    return ranges::views::filter([agent](const region& r) { return r.agent == agent; });
}
std::uint64_t bytes_of(auto&& regions) {
    return ranges::accumulate(regions | ranges::views::transform(&region::size), std::uint64_t{0});
}

region_set& live() {
    if (g_set == nullptr) g_set = new region_set;
    return *g_set;
}

region* find_exact(std::uintptr_t base) noexcept {
    auto& s = live();
    auto it = s.find(base, base_key{});
    return it == s.end() ? nullptr : &*it;
}

// ---- write protection (changed_chunks where device memory is ours) ----------------------------
// Two ways to learn which pages a replay's passes wrote, chosen per region:
//   - userfaultfd write-protection in asynchronous mode (Linux 6.7+): the kernel resolves a
//     write to a protected page itself, without a signal or a handler thread, and PAGEMAP_SCAN
//     on /proc/self/pagemap reports the pages written since. Nothing of the program's (its own
//     SIGSEGV handler, installed before or after encore's) is involved.
//   - mprotect and a SIGSEGV handler, where the kernel lacks that (or refuses userfaultfd):
//     encore's handler is checked, and put back first if the program replaced it, every time
//     write protection is armed; faults not encore's go to the handler it displaced.
// A fixed table the SIGSEGV handler reads without locks. A slot, once given to a region, keeps
// its range until the region is freed, so a thread that faulted just before a range was made
// writable again still finds it (and simply retries).
constexpr int max_slots = 16384;
struct wp_slot {
    std::atomic<std::uintptr_t> begin{0};  // page-aligned protected range [begin, end)
    std::atomic<std::uintptr_t> end{0};
    std::atomic<std::uint8_t*> dirty{nullptr};  // one byte per chunk
    std::atomic<std::size_t> chunk{0};
    std::atomic<bool> by_signal{false};  // mprotect + SIGSEGV; else userfaultfd (the handler skips it)
};
wp_slot g_slots[max_slots];
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

// ---- userfaultfd write-protection ----------------------------------------------------------------
// The kernel interfaces newer than the build machine's headers, by their documented values
// (linux/userfaultfd.h, linux/fs.h).
constexpr std::uint64_t uffd_feature_wp_unpopulated = 1ull << 13;
constexpr std::uint64_t uffd_feature_wp_async = 1ull << 15;
struct page_region {
    std::uint64_t start, end, categories;
};
struct pm_scan_arg {
    std::uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted, category_mask,
        category_anyof_mask, return_mask;
};
constexpr unsigned long pagemap_scan = _IOWR('f', 16, pm_scan_arg);
constexpr std::uint64_t page_is_written = 1u << 1;
constexpr std::uint64_t pm_scan_check_wpasync = 1u << 1;
constexpr unsigned long userfaultfd_ioc_new = _IO(0xAA, 0x00);

struct uffd_state {
    int uffd = -1, pagemap = -1;
    pid_t pid = 0;  // a forked child has neither the registrations nor this pagemap
};
uffd_state g_uffd;
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

// Calls each(begin, end) for every run of pages of [b, e) written since write-protection (the
// kernel merges neighbours); false when it cannot tell (the caller then counts all of it changed).
template <class Each>
bool uffd_written(std::uintptr_t b, std::uintptr_t e, Each&& each) noexcept {
    if (!uffd_usable()) return false;
    page_region vec[256];
    for (std::uintptr_t at = b; at < e;) {
        pm_scan_arg scan{sizeof(pm_scan_arg),
                         pm_scan_check_wpasync,
                         at,
                         e,
                         0,
                         reinterpret_cast<std::uintptr_t>(vec),
                         std::size(vec),
                         0,
                         0,
                         page_is_written,
                         0,
                         page_is_written};
        const int got = ::ioctl(g_uffd.pagemap, pagemap_scan, &scan);
        if (got < 0 || scan.walk_end <= at) return false;
        for (int k = 0; k < got; ++k)
            each(static_cast<std::uintptr_t>(vec[k].start), static_cast<std::uintptr_t>(vec[k].end));
        at = scan.walk_end;  // the kernel stops early when its buffer or vec fills
    }
    return true;
}

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

// Gives region r a slot covering its whole pages (caller holds g_mutex exclusively or shared
// with the agent's replay lock: slots of one region are set up by one replay at a time).
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

std::size_t slot_chunks(int slot) noexcept {
    const auto& s = g_slots[slot];
    const std::size_t chunk = s.chunk.load(std::memory_order_relaxed);
    return (s.end.load(std::memory_order_relaxed) - s.begin.load(std::memory_order_relaxed) + chunk - 1) / chunk;
}

// ---- copies through the runtime's own functions ---------------------------------------------
bool copy(void* dst, const void* src, std::size_t n) noexcept {
    return n == 0 || runtime().core.hsa_memory_copy_fn(dst, src, n) == HSA_STATUS_SUCCESS;
}

std::uint64_t owner_of(const void* p) noexcept {
    hsa_amd_pointer_info_t info{};
    info.size = sizeof(info);
    if (runtime().amd.hsa_amd_pointer_info_fn == nullptr ||
        runtime().amd.hsa_amd_pointer_info_fn(const_cast<void*>(p), &info, nullptr, nullptr, nullptr) !=
            HSA_STATUS_SUCCESS ||
        info.type != HSA_EXT_POINTER_TYPE_HSA)
        return 0;
    return info.agentOwner.handle;
}

bool is_gpu(std::uint64_t agent) noexcept {
    hsa_device_type_t t{};
    return agent != 0 &&
           runtime().core.hsa_agent_get_info_fn(hsa_agent_t{agent}, HSA_AGENT_INFO_DEVICE, &t) == HSA_STATUS_SUCCESS &&
           t == HSA_DEVICE_TYPE_GPU;
}

void insert(std::uintptr_t base, std::size_t size, std::uint64_t agent, std::uint64_t exe) noexcept {
    auto* r = new (std::nothrow) region;
    if (r == nullptr) return;  // not covered: a replay then may see accumulated values (warned below)
    r->base = base;
    r->size = size;
    r->agent = agent;
    r->executable = exe;
    std::unique_lock lk(g_mutex);
    r->id = g_next_id++;
    if (!live().insert(*r).second) delete r;  // already tracked (same variable seen twice)
}

void erase(region* r) noexcept {
    live().erase(live().iterator_to(*r));
    release_slot(*r);
    delete r;
}

struct variable_walk {
    hsa_executable_t exe;
};

hsa_status_t on_symbol(hsa_executable_t, hsa_agent_t agent, hsa_executable_symbol_t sym, void* data) {
    const auto& rt = runtime();
    hsa_symbol_kind_t kind{};
    if (rt.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) != HSA_STATUS_SUCCESS ||
        kind != HSA_SYMBOL_KIND_VARIABLE)
        return HSA_STATUS_SUCCESS;
    bool is_const = true;
    std::uint64_t addr = 0;
    std::uint32_t size = 0;
    if (rt.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST, &is_const) !=
            HSA_STATUS_SUCCESS ||
        rt.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &addr) !=
            HSA_STATUS_SUCCESS ||
        rt.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE, &size) !=
            HSA_STATUS_SUCCESS)
        return HSA_STATUS_SUCCESS;
    // Const and empty variables cannot change; the reference also skips > 1 GiB.
    if (is_const || size == 0 || addr == 0 || size > (1u << 30)) return HSA_STATUS_SUCCESS;
    insert(static_cast<std::uintptr_t>(addr), size, agent.handle, static_cast<variable_walk*>(data)->exe.handle);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t on_agent(hsa_agent_t agent, void* data) {
    if (is_gpu(agent.handle))
        (void)runtime().core.hsa_executable_iterate_agent_symbols_fn(static_cast<variable_walk*>(data)->exe, agent,
                                                                     &on_symbol, data);
    return HSA_STATUS_SUCCESS;
}

}  // namespace

void enable() noexcept { g_enabled.store(true, std::memory_order_release); }
bool enabled() noexcept { return g_enabled.load(std::memory_order_acquire); }

// Covered memory allocated or freed while a range is open: its start snapshot no longer
// describes what the passes would touch (and a freed region cannot be put back).
void declined_by_allocation() noexcept {
    if (!core::range_replay::any_open()) return;
    static constexpr core::range_replay::decline_reason why{
        ROCPROFILER_RANGE_REPLAY_STATUS_ALLOCATION_CHANGED_IN_RANGE,
        "device memory allocated or freed while a range was open: the range is not replayed"};
    core::range_replay::decline_all(why);
}

void on_allocate(void* base, std::size_t size, bool coarse_grained, bool kernarg) noexcept {
    if (!enabled() || base == nullptr || size == 0 || !coarse_grained || kernarg) return;
    const std::uint64_t agent = owner_of(base);
    if (!is_gpu(agent)) return;  // host memory is never covered
    insert(reinterpret_cast<std::uintptr_t>(base), size, agent, 0);
    declined_by_allocation();
}

void on_free(void* base) noexcept {
    if (!enabled()) return;
    std::unique_lock lk(g_mutex);
    if (region* r = find_exact(reinterpret_cast<std::uintptr_t>(base)); r != nullptr && r->executable == 0) {
        erase(r);
        lk.unlock();
        declined_by_allocation();
    }
}

void on_executable_frozen(hsa_executable_t exe) noexcept {
    if (!enabled()) return;
    variable_walk w{exe};
    (void)runtime().core.hsa_iterate_agents_fn(&on_agent, &w);
}

void on_executable_destroyed(hsa_executable_t exe) noexcept {
    if (!enabled()) return;
    std::unique_lock lk(g_mutex);
    auto& s = live();
    for (auto it = s.begin(); it != s.end();) {
        region& r = *it++;
        if (r.executable == exe.handle) erase(&r);
    }
}

std::vector<std::uint64_t> agents_of(hsa_executable_t exe) noexcept {
    std::vector<std::uint64_t> out;
    if (!enabled()) return out;
    std::shared_lock lk(g_mutex);
    try {
        out = live() | ranges::views::filter([&](const region& r) { return r.executable == exe.handle; }) |
              ranges::views::transform(&region::agent) | ranges::to<std::vector>();
    } catch (...) {
        return {};
    }
    ranges::sort(out);
    out.erase(ranges::unique(out), out.end());
    return out;
}

std::uint64_t footprint(std::uint64_t agent) noexcept {
    std::shared_lock lk(g_mutex);
    return bytes_of(live() | on_agent(agent));
}

bool write_tracking_available() noexcept {
    // encore's software runtime keeps device memory in this process (docs/sim.md); it exports
    // encore_sim_pointer_pool. On ROCr device memory is not host memory: no page faults to see.
    static const bool available = ::dlsym(RTLD_DEFAULT, "encore_sim_pointer_pool") != nullptr;
    return available;
}

snapshot::~snapshot() { release(); }

const char* snapshot::take(std::uint64_t agent, const core::replay::options& opt, core::replay::memory_stats& out,
                           bool track_writes) noexcept {
    release();
    policy_ = opt.policy;
    chunk_ = opt.chunk_size;
    // Shared: frees wait until the copies are done (a region is never copied while freed).
    std::shared_lock lk(g_mutex);
    const std::uint64_t total = bytes_of(live() | on_agent(agent));
    if (total > opt.memory_budget)
        return "the snapshot would exceed the memory budget (ENCORE_REPLAY_MEMORY_BUDGET): the dispatch runs once";
    try {
        for (const auto& r : live() | on_agent(agent)) {
            std::unique_ptr<std::byte[]> c(new (std::nothrow) std::byte[r.size]);
            if (!c) {
                regions_.clear();
                return "cannot allocate host memory for the snapshot: the dispatch runs once";
            }
            if (!copy(c.get(), reinterpret_cast<const void*>(r.base), r.size)) {
                regions_.clear();
                return "copying device memory into the snapshot failed: the dispatch runs once";
            }
            regions_.push_back(saved{r.base, r.size, r.id, std::move(c), -1});
        }
    } catch (...) {
        regions_.clear();
        return "cannot allocate host memory for the snapshot: the dispatch runs once";
    }
    out.bytes = total;
    out.regions = regions_.size();
    if (track_writes) arm_locked();
    return nullptr;
}

void snapshot::arm() noexcept {
    std::shared_lock lk(g_mutex);
    arm_locked();
}

// Caller holds g_mutex (shared).
void snapshot::arm_locked() noexcept {
    if (tracked_ || policy_ != ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS || !write_tracking_available()) return;
    tracked_ = true;
    bool handler_checked = false, handler_ok = false;
    for (auto& s : regions_) {
        region* r = find_exact(s.base);
        if (r == nullptr || r->id != s.id || !assign_slot(*r, chunk_)) continue;  // compared instead
        s.slot = r->slot;
        auto& w = g_slots[s.slot];
        std::memset(w.dirty.load(std::memory_order_relaxed), 0, slot_chunks(s.slot));
        const std::uintptr_t b = w.begin.load(std::memory_order_relaxed), e = w.end.load(std::memory_order_relaxed);
        bool armed = false;
        if (!w.by_signal.load(std::memory_order_relaxed)) {
            armed = uffd_protect(b, e, true);
            if (armed) arm_warm(*r);
        } else {
            if (!handler_checked) handler_ok = ensure_handler();  // once per snapshot, before any fault
            handler_checked = true;
            armed = handler_ok && ::mprotect(reinterpret_cast<void*>(b), e - b, PROT_READ) == 0;
        }
        // Cannot track this one: every chunk counts as changed.
        if (!armed) std::memset(w.dirty.load(std::memory_order_relaxed), 1, slot_chunks(s.slot));
    }
}

bool snapshot::restore(core::replay::memory_stats& out) noexcept {
    // Fault injection for the test of the abort path (docs/replay.md): a restore that fails.
    static const bool fail_for_testing = std::getenv("ENCORE_REPLAY_TEST_FAIL_RESTORE") != nullptr;
    if (fail_for_testing) return false;
    std::shared_lock lk(g_mutex);
    bool ok = true;
    std::unique_ptr<std::byte[]> staging;
    for (auto& s : regions_) {
        const region* r = find_exact(s.base);
        if (r == nullptr || r->id != s.id) continue;  // freed during the replay: nothing to restore
        auto* dev = reinterpret_cast<std::byte*>(s.base);
        const std::byte* saved_bytes = s.copy.get();
        ++out.regions;
        if (policy_ == ENCORE_REPLAY_SNAPSHOT_FULL_COPY) {
            ok = copy(dev, saved_bytes, s.size) && ok;
            out.bytes += s.size;
            continue;
        }
        // changed_chunks
        std::uintptr_t pb = s.base, pe = s.base;  // the write-tracked part
        if (s.slot >= 0) {
            auto& w = g_slots[s.slot];
            pb = w.begin.load(std::memory_order_relaxed);
            pe = w.end.load(std::memory_order_relaxed);
            std::uint8_t* d = w.dirty.load(std::memory_order_relaxed);
            const std::size_t n = slot_chunks(s.slot);
            bool from_scan = false;  // restored from the kernel's list of written pages
            if (!w.by_signal.load(std::memory_order_relaxed)) {
                // userfaultfd: the pages written since the snapshot, whatever the chunk size
                // (cumulative: a page written in an earlier pass stays written and unprotected,
                // so copying into it faults no more; a whole chunk would fault on its pages
                // not written yet).
                bool tracked_ok = true;
                std::uint64_t bytes = 0;
                const bool scanned = uffd_written(pb, pe, [&](std::uintptr_t wb, std::uintptr_t we) {
                    tracked_ok = copy(reinterpret_cast<void*>(wb), saved_bytes + (wb - s.base), we - wb) && tracked_ok;
                    bytes += we - wb;
                });
                out.bytes += bytes;
                ok = ok && tracked_ok;
                if (!scanned)
                    std::memset(d, 1, n);  // every chunk: below (what was copied is copied again)
                else
                    from_scan = true;
            }
            // A chunk written once stays writable and is restored before every later pass
            // (a replayed kernel writes the same places each pass, its inputs being identical):
            // one page fault per chunk per replayed dispatch, no system call per pass, and
            // neighbouring chunks are copied as one run.
            for (std::size_t c = 0; c < n && !from_scan;) {
                if (__atomic_load_n(&d[c], __ATOMIC_RELAXED) == 0) {
                    ++c;
                    continue;
                }
                std::size_t e = c + 1;
                while (e < n && __atomic_load_n(&d[e], __ATOMIC_RELAXED) != 0) ++e;
                const std::uintptr_t cb = pb + c * chunk_;
                const std::size_t len = std::min<std::uintptr_t>(pb + e * chunk_, pe) - cb;
                ok = copy(reinterpret_cast<void*>(cb), saved_bytes + (cb - s.base), len) && ok;
                out.bytes += len;
                c = e;
            }
        }
        // The rest (no write tracking, or partial pages at either end): read back and compare.
        auto compare_range = [&](std::uintptr_t b, std::uintptr_t e) {
            for (std::uintptr_t cb = b; cb < e; cb += chunk_) {
                const std::size_t len = std::min<std::uintptr_t>(cb + chunk_, e) - cb;
                const std::byte* want = saved_bytes + (cb - s.base);
                const std::byte* now = reinterpret_cast<const std::byte*>(cb);
                if (!write_tracking_available()) {  // device memory is not ours to read directly
                    if (!staging) staging.reset(new (std::nothrow) std::byte[chunk_]);
                    if (!staging || !copy(staging.get(), reinterpret_cast<const void*>(cb), len)) {
                        ok = copy(reinterpret_cast<void*>(cb), want, len) && ok;  // cannot compare: write it
                        out.bytes += len;
                        continue;
                    }
                    now = staging.get();
                }
                if (std::memcmp(now, want, len) != 0) {
                    ok = copy(reinterpret_cast<void*>(cb), want, len) && ok;
                    out.bytes += len;
                }
            }
        };
        if (s.slot >= 0) {
            compare_range(s.base, pb);
            compare_range(pe, s.base + s.size);
        } else {
            compare_range(s.base, s.base + s.size);
        }
    }
    return ok;
}

bool snapshot::checksum(std::uint64_t& out) noexcept {
    std::shared_lock lk(g_mutex);
    core::replay::checksum64 h;
    std::unique_ptr<std::byte[]> staging(new (std::nothrow) std::byte[1u << 20]);
    if (!staging) return false;
    for (const auto& s : regions_) {
        const region* r = find_exact(s.base);
        if (r == nullptr || r->id != s.id) continue;
        for (std::size_t off = 0; off < s.size; off += (1u << 20)) {
            const std::size_t len = std::min<std::size_t>(1u << 20, s.size - off);
            if (!copy(staging.get(), reinterpret_cast<const void*>(s.base + off), len)) return false;
            h.add(staging.get(), len);
        }
    }
    out = h.h;
    return true;
}

std::uint64_t snapshot::differing_regions() noexcept {
    std::shared_lock lk(g_mutex);
    std::uint64_t n = 0;
    std::unique_ptr<std::byte[]> staging(new (std::nothrow) std::byte[1u << 20]);
    if (!staging) return 0;
    for (const auto& s : regions_) {
        const region* r = find_exact(s.base);
        if (r == nullptr || r->id != s.id) continue;
        for (std::size_t off = 0; off < s.size; off += (1u << 20)) {
            const std::size_t len = std::min<std::size_t>(1u << 20, s.size - off);
            // Read back (device memory may not be host memory), then compare.
            if (!copy(staging.get(), reinterpret_cast<const void*>(s.base + off), len) ||
                std::memcmp(staging.get(), s.copy.get() + off, len) != 0) {
                ++n;
                break;
            }
        }
    }
    return n;
}

// ---- delta ----------------------------------------------------------------------------------------
template <class F>
bool delta::for_each_chunk(const snapshot& base, F&& f) noexcept {
    std::shared_lock lk(g_mutex);
    const std::size_t chunk = base.chunk_ != 0 ? base.chunk_ : 4096;
    std::size_t next = 0;  // the first piece not passed yet
    for (const auto& s : base.regions_) {
        const region* r = find_exact(s.base);
        if (r == nullptr || r->id != s.id) continue;  // freed: nothing to compare or restore
        for (std::uintptr_t cb = s.base; cb < s.base + s.size; cb += chunk) {
            const std::size_t len = std::min<std::uintptr_t>(cb + chunk, s.base + s.size) - cb;
            while (next < pieces_.size() && pieces_[next].addr < cb) ++next;
            const bool kept = next < pieces_.size() && pieces_[next].addr == cb;
            if (!f(cb, len, kept ? pieces_[next].bytes.get() : s.copy.get() + (cb - s.base), s.base)) return false;
        }
    }
    return true;
}

namespace {
// Reads `len` bytes of device memory at `addr` for a comparison: directly where device memory is
// this process's memory, else into `staging` (null when that copy failed).
const std::byte* read_for_compare(std::uintptr_t addr, std::size_t len, std::unique_ptr<std::byte[]>& staging,
                                  std::size_t staging_size) noexcept {
    if (write_tracking_available()) return reinterpret_cast<const std::byte*>(addr);
    if (!staging) staging.reset(new (std::nothrow) std::byte[staging_size]);
    if (!staging || !copy(staging.get(), reinterpret_cast<const void*>(addr), len)) return nullptr;
    return staging.get();
}
}  // namespace

const char* delta::take(const snapshot& base) noexcept {
    release();
    std::unique_ptr<std::byte[]> staging;
    const std::size_t chunk = base.chunk_ != 0 ? base.chunk_ : 4096;
    std::vector<piece> out;
    const bool ok = for_each_chunk(base, [&](std::uintptr_t addr, std::size_t len, const std::byte* want, std::uintptr_t) {
        const std::byte* now = read_for_compare(addr, len, staging, chunk);
        if (now == nullptr) return false;
        if (std::memcmp(now, want, len) == 0) return true;
        try {
            piece p{addr, len, std::unique_ptr<std::byte[]>(new std::byte[len])};
            std::memcpy(p.bytes.get(), now, len);
            out.push_back(std::move(p));
        } catch (...) {
            return false;
        }
        bytes_ += len;
        return true;
    });
    if (!ok) {
        bytes_ = 0;
        return "comparing device memory with the snapshot failed";
    }
    pieces_ = std::move(out);
    return nullptr;
}

bool delta::restore(const snapshot& base, core::replay::memory_stats& out) noexcept {
    std::unique_ptr<std::byte[]> staging;
    const std::size_t chunk = base.chunk_ != 0 ? base.chunk_ : 4096;
    bool ok = true;
    std::uintptr_t last_region = 0;
    (void)for_each_chunk(base, [&](std::uintptr_t addr, std::size_t len, const std::byte* want, std::uintptr_t region) {
        if (region != last_region) ++out.regions;
        last_region = region;
        const std::byte* now = read_for_compare(addr, len, staging, chunk);
        if (now == nullptr || std::memcmp(now, want, len) != 0) {
            ok = copy(reinterpret_cast<void*>(addr), want, len) && ok;
            out.bytes += len;
        }
        return true;
    });
    return ok;
}

std::uint64_t delta::differing_regions(const snapshot& base) noexcept {
    std::unique_ptr<std::byte[]> staging;
    const std::size_t chunk = base.chunk_ != 0 ? base.chunk_ : 4096;
    std::uint64_t n = 0;
    std::uintptr_t counted = 0;  // the last region counted
    (void)for_each_chunk(base, [&](std::uintptr_t addr, std::size_t len, const std::byte* want, std::uintptr_t region) {
        if (region == counted) return true;
        const std::byte* now = read_for_compare(addr, len, staging, chunk);
        if (now == nullptr || std::memcmp(now, want, len) != 0) {
            ++n;
            counted = region;
        }
        return true;
    });
    return n;
}

void snapshot::release() noexcept {
    if (tracked_) {
        for (auto& s : regions_) {
            if (s.slot < 0) continue;
            auto& w = g_slots[s.slot];
            // Only if the slot still belongs to this region (not freed and reused meanwhile).
            // (Shared: regions of one agent are armed and released by its one replay at a time.)
            std::shared_lock lk(g_mutex);
            region* r = find_exact(s.base);
            if (r == nullptr || r->id != s.id || r->slot != s.slot) continue;
            const std::uintptr_t b = w.begin.load(std::memory_order_relaxed), e = w.end.load(std::memory_order_relaxed);
            if (w.by_signal.load(std::memory_order_relaxed)) {
                ::mprotect(reinterpret_cast<void*>(b), e - b, PROT_READ | PROT_WRITE);
            } else {
                update_warm(*r, b, e);
                (void)uffd_protect(b, e, false);  // the program's own writes then take no faults
            }
        }
        tracked_ = false;
    }
    regions_.clear();
}

}  // namespace encore::hsa::replay_memory
