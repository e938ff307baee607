// src/trace/record_file.cpp — the writer's state (one process_state, one thread_state per thread)
// and the reader. See record_file.hpp for the format and the usage.
//
// Everything the writer does after open_process is async-signal-safe: the hot path touches only
// the initial-exec thread_state; the slow path (a thread's first record, a new chunk, a fork
// child's new folder) uses open, fallocate, mmap, madvise, close, munmap, mkdir, readlink, uname,
// clock_gettime and hand-rolled number formatting on a stack buffer (about 3 KiB of stack), never
// malloc, stdio or locks.
#include "record_file.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#    define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels say EINVAL and MAP_POPULATE stays
#endif

namespace encore::trace {

const char* drop_reason_name(drop_reason r) noexcept {
    switch (r) {
        case drop_reason::reentry: return "reentry";
        case drop_reason::disk_full: return "disk_full";
        case drop_reason::io_error: return "io_error";
        case drop_reason::too_large: return "too_large";
        case drop_reason::no_process: return "no_process";
        case drop_reason::after_exit: return "after_exit";
    }
    return "unknown";
}

namespace {

static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic_ref<std::uint32_t>::is_always_lock_free);
static_assert(alignof(thread_header) >= std::atomic_ref<std::uint64_t>::required_alignment);

// Folder paths are bounded so that every file path fits thread_header::path and the stack buffer.
constexpr std::size_t path_cap = sizeof(thread_header::path);
constexpr std::size_t dir_cap = path_cap - 64;

// process.meta's string areas (fixed, so the writer can read() straight into the mapping).
constexpr std::uint32_t hostname_area = 512, hostname_cap = 256;
constexpr std::uint32_t exe_area = hostname_area + hostname_cap, exe_cap = 2048;
constexpr std::uint32_t cmdline_area = exe_area + exe_cap;
constexpr std::uint32_t environ_area = 16384;
constexpr std::uint32_t cmdline_cap = environ_area - cmdline_area;
constexpr std::uint32_t environ_cap = process_meta_bytes - environ_area;

// ---------------------------------------------------------------------------------------------
// Async-signal-safe helpers.

struct path_buf {
    char s[path_cap];
    std::size_t n = 0;
    bool ok = true;  // false once something did not fit
    void add(const char* p, std::size_t len) noexcept {
        if (!ok || n + len >= sizeof s) {
            ok = false;
            return;
        }
        std::memcpy(s + n, p, len);
        n += len;
        s[n] = '\0';
    }
    void add(const char* p) noexcept { add(p, std::strlen(p)); }
    void add_u64(std::uint64_t v) noexcept {
        char d[20];
        int k = 0;
        do d[k++] = static_cast<char>('0' + v % 10);
        while ((v /= 10) != 0);
        while (k > 0) add(&d[--k], 1);
    }
};

std::uint64_t clock_ns(clockid_t c) noexcept {
    timespec ts{};
    clock_gettime(c, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

// Reserves [off, off + len) on disk, so a full disk shows here and not as SIGBUS on a page store.
// Filesystems without fallocate get ftruncate (their full disk would SIGBUS: the trade-off).
// The file at least off + len long (no space allocated); 0 or errno.
int extend(int fd, off_t off, off_t len) noexcept {
    struct stat st {};
    if (fstat(fd, &st) != 0) return errno;
    if (st.st_size < off + len && ftruncate(fd, off + len) != 0) return errno;
    return 0;
}

int reserve_space(int fd, off_t off, off_t len) noexcept {
    if (fallocate(fd, 0, off, len) == 0) return 0;
    if (errno != EOPNOTSUPP) return errno;
    return extend(fd, off, len);
}

// Every page of the mapping allocated and mapped writable; false where the kernel could not (the
// file's filesystem full: the store would have raised SIGBUS) or cannot (before Linux 5.14).
bool populate(void* map, std::size_t len) noexcept { return madvise(map, len, MADV_POPULATE_WRITE) == 0; }

void* map_shared(int fd, std::size_t len, off_t off) noexcept {
    // MAP_POPULATE alone maps a shared file's pages read-only (the kernel tracks dirtying through
    // write faults), so each page's first store would still fault; MADV_POPULATE_WRITE takes all
    // those faults here, in one system call per chunk, off the hot path.
    void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
    if (p == MAP_FAILED) return nullptr;
    if (!populate(p, len)) (void)madvise(p, len, MADV_WILLNEED);
    return p;
}

drop_reason reason_of(int err) noexcept {
    return err == ENOSPC || err == EDQUOT || err == EFBIG ? drop_reason::disk_full : drop_reason::io_error;
}

// ---------------------------------------------------------------------------------------------
// Process state.

enum : int { proc_closed, proc_creating, proc_ready, proc_failed, proc_needs_setup };

struct process_state {
    // proc_*: stored release by whoever created the folder (open_process or the first slow
    // path of a fork child), loaded acquire by every thread's slow path before it reads dir.
    std::atomic<int> state{proc_closed};
    // Relaxed: written by open_process/the fork child's setup before state's release store;
    // read by note_drop (anywhere), which tolerates null.
    std::atomic<process_header*> meta{nullptr};
    char root[dir_cap] = {};
    char dir[dir_cap] = {};
    std::uint32_t chunk_bytes = writer_options{}.chunk_bytes;
    // Why the last open_process failed: written there, formatted by last_error().
    const char* err_what = nullptr;
    int err_no = 0;
    char err_text[dir_cap + 128] = {};
};
process_state g;

// Bumped (relaxed) by open_process and by the fork child handler; the hot path compares the
// thread's cached copy with one relaxed load (same-thread in the fork child; for open_process,
// threads move to the new folder at their next record, whenever they see it).
std::atomic<std::uint32_t> g_generation{1};

// A pthread key whose destructor unmaps an exited thread's chunk. Used only when its index is
// below glibc's first-level key block (32): pthread_setspecific never allocates for those, so
// setting it on the slow path stays malloc-free; otherwise threads keep their mapping at exit.
pthread_key_t g_key;
std::atomic<bool> g_key_ok{false};  // relaxed: set once in open_process, before records matter
std::atomic<bool> g_atfork_done{false};

bool make_process_dir() noexcept {
    const pid_t pid = getpid();
    std::uint64_t ns = clock_ns(CLOCK_MONOTONIC);
    path_buf dir;
    for (int attempt = 0;; ++attempt, ++ns) {
        dir = {};
        dir.add(g.root);
        dir.add("/");
        dir.add_u64(static_cast<std::uint64_t>(pid));
        dir.add("-");
        dir.add_u64(ns);
        if (!dir.ok || dir.n >= dir_cap) {
            g.err_what = "process folder path too long";
            g.err_no = ENAMETOOLONG;
            return false;
        }
        if (mkdir(dir.s, 0755) == 0) break;
        if (errno != EEXIST || attempt == 16) {
            g.err_what = "mkdir process folder";
            g.err_no = errno;
            return false;
        }
    }
    path_buf file = dir;
    file.add("/process.meta");
    const int fd = open(file.s, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        g.err_what = "create process.meta";
        g.err_no = errno;
        return false;
    }
    int err = reserve_space(fd, 0, process_meta_bytes);
    void* map = err == 0 ? map_shared(fd, process_meta_bytes, 0) : nullptr;
    if (err == 0 && map == nullptr) err = errno;
    close(fd);
    if (map == nullptr) {
        g.err_what = "allocate process.meta";
        g.err_no = err;
        return false;
    }
    auto* m = static_cast<process_header*>(map);
    char* base = static_cast<char*>(map);
    m->version = format_version;
    m->meta_bytes = process_meta_bytes;
    m->pid = pid;
    m->ppid = getppid();
    m->open_monotonic_ns = ns;
    m->open_realtime_ns = clock_ns(CLOCK_REALTIME);
    m->chunk_bytes = g.chunk_bytes;

    // /proc/self/stat field 22: start time in clock ticks since boot (the comm field, in
    // parentheses, may hold spaces: count fields from the last ')').
    if (int sfd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC); sfd >= 0) {
        char buf[1024];
        const ssize_t n = read(sfd, buf, sizeof buf - 1);
        close(sfd);
        if (n > 0) {
            buf[n] = '\0';
            if (const char* p = std::strrchr(buf, ')')) {
                int field = 2;
                for (; *p != '\0' && field < 22; ++p)
                    if (*p == ' ') ++field;
                std::uint64_t ticks = 0;
                for (; *p >= '0' && *p <= '9'; ++p) ticks = ticks * 10 + static_cast<std::uint64_t>(*p - '0');
                const long hz = sysconf(_SC_CLK_TCK);
                if (hz > 0) m->start_boottime_ns = ticks * (1000000000u / static_cast<std::uint64_t>(hz));
            }
        }
    }
    if (utsname u{}; uname(&u) == 0) {
        const std::size_t n = strnlen(u.nodename, hostname_cap);
        std::memcpy(base + hostname_area, u.nodename, n);
        m->hostname_off = hostname_area;
        m->hostname_len = static_cast<std::uint32_t>(n);
    }
    if (ssize_t n = readlink("/proc/self/exe", base + exe_area, exe_cap); n > 0) {
        m->exe_off = exe_area;
        m->exe_len = static_cast<std::uint32_t>(n);
    }
    if (int cfd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC); cfd >= 0) {
        std::uint32_t got = 0;
        for (;;) {
            const ssize_t n = read(cfd, base + cmdline_area + got, cmdline_cap - got);
            if (n <= 0) break;
            got += static_cast<std::uint32_t>(n);
            if (got == cmdline_cap) {
                char more;
                m->cmdline_truncated = read(cfd, &more, 1) > 0 ? 1 : 0;
                break;
            }
        }
        close(cfd);
        m->cmdline_off = cmdline_area;
        m->cmdline_len = got;
    }
    // The environment as the kernel set it at exec (what a launcher like mpirun or srun gave
    // the process: its rank, its job); later setenv calls are not in /proc/self/environ.
    if (int efd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC); efd >= 0) {
        std::uint32_t got = 0;
        for (;;) {
            const ssize_t n = read(efd, base + environ_area + got, environ_cap - got);
            if (n <= 0) break;
            got += static_cast<std::uint32_t>(n);
            if (got == environ_cap) {
                char more;
                m->environ_truncated = read(efd, &more, 1) > 0 ? 1 : 0;
                break;
            }
        }
        close(efd);
        // A cut-off entry at the end is dropped: a truncated value would be read as the value.
        if (m->environ_truncated != 0)
            while (got > 0 && base[environ_area + got - 1] != '\0') --got;
        m->environ_off = environ_area;
        m->environ_len = got;
    }
    // Pairs with the reader's check of magic: the fields above are in place once it is there.
    std::atomic_ref<std::uint64_t>(m->magic).store(process_magic, std::memory_order_release);

    std::memcpy(g.dir, dir.s, dir.n + 1);
    g.meta.store(m, std::memory_order_relaxed);
    return true;
}

// Waits out another thread's folder creation; makes the folder of a fork child. False: no
// folder (not open, or making it failed).
bool ensure_process() noexcept {
    int s = g.state.load(std::memory_order_acquire);
    for (;;) {
        if (s == proc_ready) return true;
        if (s == proc_needs_setup) {
            // acq_rel: pairs with the release stores of state; the winner alone writes dir/meta.
            if (g.state.compare_exchange_strong(s, proc_creating, std::memory_order_acq_rel)) {
                const bool ok = make_process_dir();
                g.state.store(ok ? proc_ready : proc_failed, std::memory_order_release);
                return ok;
            }
            continue;
        }
        if (s != proc_creating) return false;
        sched_yield();  // another thread is making the folder: a few system calls' wait
        s = g.state.load(std::memory_order_acquire);
    }
}

// ---------------------------------------------------------------------------------------------
// Thread state.

enum : std::uint32_t { thread_active = 0, thread_stopped = 1, thread_exited = 2 };

// Small and trivially constructible so initial-exec TLS needs no constructor, guard or malloc
// (a dynamic TLS block in a dlopen'ed library is allocated on first access; initial-exec takes
// the static TLS surplus instead: the trade-off is that dlopen fails if that surplus, about
// 1.5 KiB shared by all such libraries, is exhausted).
struct thread_state {
    char* cur;  // next record here
    char* lim;  // end of the mapped chunk
    std::uint32_t generation;
    std::uint32_t pending;  // size of the reservation between reserve and commit
    // 1 between reserve and commit, and in the slow path. Only this thread and its signal
    // handlers touch it; atomic_signal_fence orders it against the interrupted code.
    std::uint32_t busy;
    std::uint32_t status;       // thread_*
    std::uint32_t stop_reason;  // the drop_reason counted while stopped
    std::uint32_t chunk_bytes;
    thread_header* header;      // mapped page 0 of the thread file
    char* chunk;                // start of the mapped chunk
    std::uint64_t next_offset;  // file offset of the next chunk
    struct spare_slot* slot;    // where the grower leaves the next chunk; null: none (grow maps it)
};
static_assert(std::is_trivially_destructible_v<thread_state>);

__attribute__((tls_model("initial-exec"))) thread_local thread_state t_state{};

void note_drop(thread_state& s, drop_reason r) noexcept {
    const auto i = static_cast<std::size_t>(r);
    // Relaxed: counters, read after the process ended (or by a reader that tolerates lag).
    if (thread_header* h = s.header)
        std::atomic_ref<std::uint64_t>(h->drops[i]).fetch_add(1, std::memory_order_relaxed);
    if (process_header* m = g.meta.load(std::memory_order_relaxed))
        std::atomic_ref<std::uint64_t>(m->drops[i]).fetch_add(1, std::memory_order_relaxed);
}

// Forgets the thread's mappings; pointers are cleared before the munmap so a signal handler
// never follows one into unmapped memory.
void release_slot(spare_slot* sl) noexcept;
void release_thread(thread_state& s) noexcept {
    thread_header* h = s.header;
    char* c = s.chunk;
    spare_slot* sl = s.slot;
    const std::size_t cb = s.chunk_bytes;
    s.header = nullptr;
    s.chunk = s.cur = s.lim = nullptr;
    s.slot = nullptr;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (c != nullptr) munmap(c, cb);
    if (h != nullptr) munmap(h, thread_header_bytes);
    if (sl != nullptr) release_slot(sl);
}

void stop(thread_state& s, drop_reason r) noexcept {
    s.status = thread_stopped;
    s.stop_reason = static_cast<std::uint32_t>(r);
    s.cur = s.lim = nullptr;
}

// ---------------------------------------------------------------------------------------------
// The grower: a thread of the library's own that populates each recording thread's next chunk
// while the thread fills its current one. The kernel's work for a chunk (allocate, zero and
// charge its page-cache pages, then map them) cost a traced call on the software runtime about
// 36 of its 70 ns on the recording thread (benchmarks/RESULTS.md); the grower takes it off the
// program's threads.
//
// Each recording thread claims a slot at its first record (none left, or in a fork child, whose
// grower stayed in the parent: it maps its chunks itself, as before). Each time it starts a
// chunk, the thread prepares the next one, sized and mapped but not populated (open, ftruncate,
// mmap, close: a few system calls; the descriptor lives only on the program's own thread, as for
// the chunks it maps itself, since a program may close or reuse any descriptor at any time), and
// hands the mapping over (the slot requested), waking the grower (a futex, once per chunk). The
// grower populates it (MADV_POPULATE_WRITE: every page allocated, zeroed and mapped writable;
// ready) or says it could not (failed: a full disk, an old kernel). The grower holds no
// descriptor. At its next chunk the thread takes the spare if it is ready; waits for it if the
// grower is at work on it (a thread that fills chunks faster than the kernel maps them: the two
// then overlap, where alone they added up); populates it itself if the grower has not started
// (taking the request back); and maps the chunk itself as before if it failed (which then reports
// why). The slot's states pass its fields between the two threads (release/acquire); a thread
// that exits while the grower works on its slot leaves it abandoned, and the grower unmaps the
// spare and frees the slot. The grower blocks every signal, takes no lock, never waits for a
// recording thread and touches nothing but the slots' mappings, so it may be anywhere when the
// process exits.
enum : std::uint32_t { slot_free, slot_idle, slot_requested, slot_working, slot_ready, slot_failed, slot_abandoned };
struct spare_slot {
    std::atomic<std::uint32_t> state;  // slot_*; zero (free) as mapped
    std::uint32_t chunk_bytes;         // owner, before requested
    char* map;                         // owner, before requested: the chunk, mapped, not populated
};
constexpr std::uint32_t slot_count = 1024;
spare_slot* g_slots = nullptr;                    // mapped by start_grower (zero: every slot free)
std::atomic<std::uint32_t> g_slots_used{0};       // the grower looks at [0, used)
std::atomic<std::uint32_t> g_requests{0};         // the grower's futex word: bumped at each request
std::atomic<bool> g_grower_on{false};             // a grower runs in this process (not in a fork child)
std::atomic<bool> g_grow_ahead{true};             // writer_options::grow_ahead of the last open_process
std::atomic<std::uint32_t> g_grower_delay_us{0};  // writer_options::grower_delay_us (tests)

long futex(std::atomic<std::uint32_t>& word, int op, std::uint32_t value, const timespec* timeout) noexcept {
    static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
    return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), op, value, timeout, nullptr, 0);
}

void* grower_main(void*) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    for (;;) {
        const std::uint32_t seen = g_requests.load(std::memory_order_acquire);
        bool worked = false;
        const std::uint32_t used = g_slots_used.load(std::memory_order_acquire);
        for (std::uint32_t i = 0; i < used; ++i) {
            spare_slot& sl = g_slots[i];
            std::uint32_t st = slot_requested;
            if (!sl.state.compare_exchange_strong(st, slot_working, std::memory_order_acquire, std::memory_order_relaxed))
                continue;
            worked = true;
            if (const std::uint32_t us = g_grower_delay_us.load(std::memory_order_relaxed)) usleep(us);
            const bool ok = populate(sl.map, sl.chunk_bytes);
            st = slot_working;
            if (sl.state.compare_exchange_strong(st, ok ? slot_ready : slot_failed, std::memory_order_release,
                                                 std::memory_order_acquire)) {
                futex(sl.state, FUTEX_WAKE_PRIVATE, 1, nullptr);  // its thread may be waiting (take_spare)
            } else {
                // Abandoned: its thread exited meanwhile.
                munmap(sl.map, sl.chunk_bytes);
                sl.state.store(slot_free, std::memory_order_release);
            }
        }
        if (!worked) {
            const timespec tick{0, 100 * 1000 * 1000};  // a wake lost to nothing still finds its request
            futex(g_requests, FUTEX_WAIT_PRIVATE, seen, &tick);
        }
    }
    return nullptr;
}

// Once per process (open_process; a fork child that opens again starts its own).
void start_grower() noexcept {
    if (g_grower_on.load(std::memory_order_relaxed)) return;
    if (g_slots == nullptr) {
        void* m = mmap(nullptr, sizeof(spare_slot) * slot_count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (m == MAP_FAILED) return;
        g_slots = static_cast<spare_slot*>(m);
    }
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return;
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    if (pthread_create(&t, &attr, grower_main, nullptr) == 0) {
        pthread_setname_np(t, "encore-grower");
        g_grower_on.store(true, std::memory_order_release);
    }
    pthread_attr_destroy(&attr);
}

spare_slot* claim_slot() noexcept {
    if (!g_grower_on.load(std::memory_order_acquire) || !g_grow_ahead.load(std::memory_order_relaxed)) return nullptr;
    for (std::uint32_t i = 0; i < slot_count; ++i) {
        std::uint32_t st = slot_free;
        if (!g_slots[i].state.compare_exchange_strong(st, slot_idle, std::memory_order_acquire, std::memory_order_relaxed))
            continue;
        std::uint32_t used = g_slots_used.load(std::memory_order_relaxed);
        while (used < i + 1 &&
               !g_slots_used.compare_exchange_weak(used, i + 1, std::memory_order_release, std::memory_order_relaxed)) {
        }
        return &g_slots[i];
    }
    return nullptr;
}

// The thread is done with its slot (exit, a new folder): a spare it holds is unmapped.
void release_slot(spare_slot* sl) noexcept {
    std::uint32_t st = sl->state.load(std::memory_order_acquire);
    for (;;) {
        if (st == slot_working) {  // the grower unmaps and frees it when done
            if (sl->state.compare_exchange_weak(st, slot_abandoned, std::memory_order_acq_rel, std::memory_order_acquire))
                return;
            continue;
        }
        if (st == slot_requested) {  // taken back before the grower starts on it
            if (!sl->state.compare_exchange_weak(st, slot_idle, std::memory_order_acq_rel, std::memory_order_acquire))
                continue;
            st = slot_failed;  // holds a mapping, as failed does
        }
        // idle, ready, failed: only this thread moves the slot from these
        if (st == slot_ready || st == slot_failed) munmap(sl->map, sl->chunk_bytes);
        sl->state.store(slot_free, std::memory_order_release);
        return;
    }
}

// The chunk at s.next_offset, populated by the grower (or here, if it has not started on it), or
// null: grow maps it as it does without a grower (and reports why, if it cannot).
char* take_spare(thread_state& s) noexcept {
    spare_slot* sl = s.slot;
    if (sl == nullptr) return nullptr;
    std::uint32_t st = sl->state.load(std::memory_order_acquire);
    if (st == slot_idle) return nullptr;
    if (st == slot_requested &&
        sl->state.compare_exchange_strong(st, slot_idle, std::memory_order_acquire, std::memory_order_acquire)) {
        if (populate(sl->map, sl->chunk_bytes)) return sl->map;
        munmap(sl->map, sl->chunk_bytes);
        return nullptr;
    }
    // The grower is populating it: wait. What is left of its work is less than doing the chunk
    // here would cost. The grower never waits for this thread and wakes it when done; the
    // timeout only bounds a lost wake.
    while (st == slot_working) {
        const timespec tick{0, 1000 * 1000};
        futex(sl->state, FUTEX_WAIT_PRIVATE, slot_working, &tick);
        st = sl->state.load(std::memory_order_acquire);
    }
    sl->state.store(slot_idle, std::memory_order_relaxed);
    if (st == slot_ready) return sl->map;
    munmap(sl->map, sl->chunk_bytes);  // failed
    return nullptr;
}

// Prepares the chunk after the one just started and hands it to the grower: the file made long
// enough and the chunk mapped, on this thread (see above); no request when that fails (grow then
// maps the chunk itself, and reports why).
void request_spare(thread_state& s) noexcept {
    spare_slot* sl = s.slot;
    if (sl == nullptr || sl->state.load(std::memory_order_relaxed) != slot_idle) return;
    const int fd = open(s.header->path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    const auto off = static_cast<off_t>(s.next_offset);
    void* map = MAP_FAILED;
    if (extend(fd, off, s.chunk_bytes) == 0)
        map = mmap(nullptr, s.chunk_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
    close(fd);
    if (map == MAP_FAILED) return;
    sl->chunk_bytes = s.chunk_bytes;
    sl->map = static_cast<char*>(map);
    sl->state.store(slot_requested, std::memory_order_release);
    g_requests.fetch_add(1, std::memory_order_release);
    futex(g_requests, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

// Maps the next chunk of the thread's file, from the grower or here: reopen by path (we keep no
// fd: the program may close or reuse any fd), reserve the space, map, close.
bool grow(thread_state& s) noexcept {
    if (s.cur != nullptr && s.cur < s.lim) {
        // The tail the record did not fit: one PAD (less than max_record_bytes, as the record
        // that did not fit was at most that). Committed like any record.
        auto* h = reinterpret_cast<record_header*>(s.cur);
        h->type = pad_type;
        h->flags = 0;
        std::atomic_ref<std::uint32_t>(h->size).store(static_cast<std::uint32_t>(s.lim - s.cur),
                                                      std::memory_order_release);
    }
    if (s.chunk != nullptr) {
        char* c = s.chunk;
        s.chunk = s.cur = s.lim = nullptr;
        munmap(c, s.chunk_bytes);
    }
    void* map = take_spare(s);
    if (map == nullptr) {
        const int fd = open(s.header->path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            const int err = errno;
            stop(s, reason_of(err));
            return false;
        }
        const auto off = static_cast<off_t>(s.next_offset);
        int err = reserve_space(fd, off, s.chunk_bytes);
        map = err == 0 ? map_shared(fd, s.chunk_bytes, off) : nullptr;
        if (err == 0 && map == nullptr) err = errno;
        close(fd);
        if (map == nullptr) {
            stop(s, reason_of(err));
            return false;
        }
    }
    s.chunk = s.cur = static_cast<char*>(map);
    s.lim = s.chunk + s.chunk_bytes;
    s.next_offset += s.chunk_bytes;
    std::atomic_ref<std::uint64_t>(s.header->chunks).fetch_add(1, std::memory_order_relaxed);
    request_spare(s);
    return true;
}

void on_thread_exit(void*) noexcept {
    thread_state& s = t_state;
    s.busy = 1;  // a signal handler now drops (as reentry) instead of touching what goes away
    std::atomic_signal_fence(std::memory_order_seq_cst);
    release_thread(s);
    s.status = thread_exited;
    s.stop_reason = static_cast<std::uint32_t>(drop_reason::after_exit);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    s.busy = 0;
}

// The thread's first record (or first in this generation): its file, header and chunk 0.
bool setup_thread(thread_state& s) noexcept {
    release_thread(s);
    s.status = thread_active;
    s.generation = g_generation.load(std::memory_order_relaxed);
    if (!ensure_process()) {
        stop(s, drop_reason::no_process);
        return false;
    }
    s.chunk_bytes = g.chunk_bytes;
    const auto tid = static_cast<std::uint64_t>(syscall(SYS_gettid));
    path_buf path;
    int fd = -1;
    for (std::uint64_t k = 0; k < 64 && fd < 0; ++k) {
        path = {};
        path.add(g.dir);
        path.add("/thread-");
        path.add_u64(tid);
        if (k != 0) {  // the kernel reused a tid of an exited thread
            path.add("-");
            path.add_u64(k);
        }
        path.add(".rec");
        if (!path.ok) break;
        fd = open(path.s, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        stop(s, path.ok ? reason_of(errno) : drop_reason::io_error);
        return false;
    }
    int err = reserve_space(fd, 0, thread_header_bytes);
    void* map = err == 0 ? map_shared(fd, thread_header_bytes, 0) : nullptr;
    if (err == 0 && map == nullptr) err = errno;
    close(fd);
    if (map == nullptr) {
        unlink(path.s);
        stop(s, reason_of(err));
        return false;
    }
    auto* h = static_cast<thread_header*>(map);
    h->version = format_version;
    h->header_bytes = thread_header_bytes;
    h->chunk_bytes = s.chunk_bytes;
    h->max_record = max_record_bytes;
    h->pid = getpid();
    h->tid = static_cast<std::int32_t>(tid);
    h->created_monotonic_ns = clock_ns(CLOCK_MONOTONIC);
    std::memcpy(h->path, path.s, path.n + 1);
    // Pairs with the reader's check of magic.
    std::atomic_ref<std::uint64_t>(h->magic).store(thread_magic, std::memory_order_release);
    s.header = h;
    s.next_offset = thread_header_bytes;
    s.slot = claim_slot();
    if (g_key_ok.load(std::memory_order_relaxed)) pthread_setspecific(g_key, &g_key);
    return grow(s);
}

// Everything reserve's fast path does not do: first record, fork child, new chunk, drops.
char* reserve_slow(thread_state& s, std::uint64_t total) noexcept {
    if (total > max_record_bytes) {
        note_drop(s, drop_reason::too_large);
        return nullptr;
    }
    if (s.generation != g_generation.load(std::memory_order_relaxed) && !setup_thread(s)) {
        note_drop(s, static_cast<drop_reason>(s.stop_reason));
        return nullptr;
    }
    if (s.status != thread_active || (total > static_cast<std::uint64_t>(s.lim - s.cur) && !grow(s))) {
        note_drop(s, static_cast<drop_reason>(s.stop_reason));
        return nullptr;
    }
    char* p = s.cur;
    s.cur = p + total;
    s.pending = static_cast<std::uint32_t>(total);
    return p;
}

void atfork_child() noexcept {
    // The child has one thread, this one: reset its state (its mappings are the parent's files)
    // and the process's, so the first record makes the child's own folder.
    g_generation.fetch_add(1, std::memory_order_relaxed);
    thread_state& s = t_state;
    // The grower stayed in the parent: the child maps its chunks itself. Its copy of the slots
    // (the parent's threads' requests and spares) is dropped, not released: none of it is the child's.
    g_grower_on.store(false, std::memory_order_relaxed);
    s.slot = nullptr;
    if (spare_slot* slots = g_slots) {
        g_slots = nullptr;
        g_slots_used.store(0, std::memory_order_relaxed);
        munmap(slots, sizeof(spare_slot) * slot_count);
    }
    release_thread(s);
    process_header* m = g.meta.exchange(nullptr, std::memory_order_relaxed);
    if (m != nullptr) munmap(m, process_meta_bytes);
    const int st = g.state.load(std::memory_order_relaxed);
    if (st == proc_ready || st == proc_creating) g.state.store(proc_needs_setup, std::memory_order_relaxed);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Writer API.

bool open_process(const char* root_dir) noexcept { return open_process(root_dir, {}); }

bool open_process(const char* root_dir, const writer_options& options) noexcept {
    g.err_what = nullptr;
    g.err_no = 0;
    if (options.chunk_bytes % 4096 != 0 || options.chunk_bytes < 2 * max_record_bytes) {
        g.err_what = "chunk_bytes must be a multiple of 4096 and at least 2 * max_record_bytes";
        g.err_no = EINVAL;
        return false;
    }
    g.state.store(proc_creating, std::memory_order_relaxed);
    // Absolute, so a later chdir does not move where chunks are reopened.
    path_buf root;
    if (root_dir == nullptr || root_dir[0] == '\0') root_dir = ".";
    if (root_dir[0] != '/') {
        char cwd[dir_cap];
        if (getcwd(cwd, sizeof cwd) == nullptr) {
            g.err_what = "getcwd";
            g.err_no = errno;
            g.state.store(proc_failed, std::memory_order_release);
            return false;
        }
        root.add(cwd);
        root.add("/");
    }
    root.add(root_dir);
    while (root.n > 1 && root.s[root.n - 1] == '/') root.s[--root.n] = '\0';
    if (!root.ok || root.n + 48 >= dir_cap) {
        g.err_what = "root folder path too long";
        g.err_no = ENAMETOOLONG;
        g.state.store(proc_failed, std::memory_order_release);
        return false;
    }
    std::memcpy(g.root, root.s, root.n + 1);  // before anything can fail: last_error names it
    // mkdir -p
    for (std::size_t i = 1; i <= root.n; ++i) {
        if (root.s[i] != '/' && root.s[i] != '\0') continue;
        const char c = root.s[i];
        root.s[i] = '\0';
        const int rc = mkdir(root.s, 0755);
        const int err = errno;
        root.s[i] = c;
        if (rc != 0 && err != EEXIST) {
            g.err_what = "mkdir root folder";
            g.err_no = err;
            g.state.store(proc_failed, std::memory_order_release);
            return false;
        }
    }
    g.chunk_bytes = options.chunk_bytes;
    g_grower_delay_us.store(options.grower_delay_us, std::memory_order_relaxed);
    g_grow_ahead.store(options.grow_ahead, std::memory_order_relaxed);

    if (!g_atfork_done.exchange(true, std::memory_order_relaxed)) {
        pthread_atfork(nullptr, nullptr, atfork_child);
        if (pthread_key_create(&g_key, on_thread_exit) == 0 && g_key < 32)
            g_key_ok.store(true, std::memory_order_relaxed);
    }
    const bool ok = make_process_dir();
    if (ok && options.grow_ahead) start_grower();
    // Pairs with ensure_process's acquire load: dir and meta are written.
    g.state.store(ok ? proc_ready : proc_failed, std::memory_order_release);
    // Threads that recorded before (dropped) or into an earlier folder start again.
    g_generation.fetch_add(1, std::memory_order_relaxed);
    return ok;
}

const char* last_error() noexcept {
    if (g.err_what == nullptr) return "";
    std::snprintf(g.err_text, sizeof g.err_text, "%s (%s): %s", g.err_what, g.root, std::strerror(g.err_no));
    return g.err_text;
}

void close_process() noexcept {
    if (process_header* m = g.meta.load(std::memory_order_relaxed)) {
        m->end_monotonic_ns = clock_ns(CLOCK_MONOTONIC);
        // Pairs with the reader's read of clean_end: end_monotonic_ns is in place.
        std::atomic_ref<std::uint32_t>(m->clean_end).store(1, std::memory_order_release);
    }
}

std::uint64_t process_start_boottime_ns() noexcept {
    const process_header* m = g.meta.load(std::memory_order_acquire);
    return m != nullptr ? m->start_boottime_ns : 0;
}

const char* process_dir_path() noexcept { return g.state.load(std::memory_order_acquire) == proc_ready ? g.dir : ""; }

void* reserve(std::uint32_t bytes) noexcept {
    thread_state& s = t_state;
    if (s.busy != 0) [[unlikely]] {
        note_drop(s, drop_reason::reentry);
        return nullptr;
    }
    s.busy = 1;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const std::uint64_t total = (std::uint64_t{bytes} + sizeof(record_header) + 7) & ~std::uint64_t{7};
    char* p;
    if (s.generation == g_generation.load(std::memory_order_relaxed) &&
        total <= static_cast<std::uint64_t>(s.lim - s.cur) && bytes <= max_body_bytes) [[likely]] {
        p = s.cur;
        s.cur = p + total;
        s.pending = static_cast<std::uint32_t>(total);
    } else {
        p = reserve_slow(s, total);
        if (p == nullptr) {
            std::atomic_signal_fence(std::memory_order_seq_cst);
            s.busy = 0;
            return nullptr;
        }
    }
    // The padding word's low bits carry how much of the body is padding (commit stores it).
    auto* h = reinterpret_cast<record_header*>(p);
    h->flags = static_cast<std::uint16_t>(total - sizeof(record_header) - bytes);
    return p + sizeof(record_header);
}

void commit(void* body, std::uint16_t type) noexcept {
    if (body == nullptr) return;
    thread_state& s = t_state;
    auto* h = reinterpret_cast<record_header*>(static_cast<char*>(body) - sizeof(record_header));
    h->type = type;
    // Pairs with the reader's acquire load of size: body, type and flags are in place.
    std::atomic_ref<std::uint32_t>(h->size).store(s.pending, std::memory_order_release);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    s.busy = 0;
}

void cancel(void* body) noexcept {
    if (body == nullptr) return;
    auto* h = reinterpret_cast<record_header*>(static_cast<char*>(body) - sizeof(record_header));
    h->flags = 0;
    commit(body, pad_type);
}

bool append(std::uint16_t type, const void* body, std::uint32_t n) noexcept {
    void* p = reserve(n);
    if (p == nullptr) return false;
    if (n != 0) std::memcpy(p, body, n);  // body may be null when n is 0
    commit(p, type);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Reader.

namespace {

// Reads exactly [off, off + len) or less at the end of the file; -1 on an I/O error.
ssize_t read_at(int fd, void* buf, std::size_t len, off_t off) {
    std::size_t got = 0;
    while (got < len) {
        const ssize_t n = pread(fd, static_cast<char*>(buf) + got, len - got, off + static_cast<off_t>(got));
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    return static_cast<ssize_t>(got);
}

struct fd_guard {
    int fd;
    ~fd_guard() {
        if (fd >= 0) close(fd);
    }
};

bool parse_u64(const std::string& s, std::uint64_t& v) {
    if (s.empty() || s.size() > 20) return false;
    v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return true;
}

void read_meta(process_dir& pd) {
    const std::string file = pd.path + "/process.meta";
    fd_guard f{open(file.c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0) {
        pd.error = "open " + file + ": " + std::strerror(errno);
        return;
    }
    std::vector<char> buf(process_meta_bytes);
    const ssize_t n = read_at(f.fd, buf.data(), buf.size(), 0);
    if (n < static_cast<ssize_t>(sizeof(process_header))) {
        pd.error = file + ": truncated";
        return;
    }
    process_header m;
    std::memcpy(&m, buf.data(), sizeof m);
    if (m.magic != process_magic || m.version != format_version) {
        pd.error = file + ": no valid header (bad magic or version)";
        return;
    }
    const auto str = [&](std::uint32_t off, std::uint32_t len, std::string& out) {
        if (off >= sizeof(process_header) && len <= static_cast<std::uint64_t>(n) &&
            off <= static_cast<std::uint64_t>(n) - len)
            out.assign(buf.data() + off, len);
    };
    pd.meta_valid = true;
    pd.pid = m.pid;
    pd.ppid = m.ppid;
    pd.open_monotonic_ns = m.open_monotonic_ns;
    pd.open_realtime_ns = m.open_realtime_ns;
    pd.start_boottime_ns = m.start_boottime_ns;
    pd.end_monotonic_ns = m.end_monotonic_ns;
    pd.clean_end = m.clean_end == 1;
    pd.chunk_bytes = m.chunk_bytes;
    pd.cmdline_truncated = m.cmdline_truncated != 0;
    for (std::size_t i = 0; i < drop_reason_count; ++i) pd.drops[i] = m.drops[i];
    str(m.hostname_off, m.hostname_len, pd.hostname);
    str(m.exe_off, m.exe_len, pd.exe);
    std::string cmd;
    str(m.cmdline_off, m.cmdline_len, cmd);
    for (std::size_t i = 0; i < cmd.size();) {
        const std::size_t end = std::min(cmd.find('\0', i), cmd.size());
        pd.cmdline.push_back(cmd.substr(i, end - i));
        i = end + 1;
    }
    std::string env;
    str(m.environ_off, m.environ_len, env);
    pd.environ_truncated = m.environ_truncated != 0;
    for (std::size_t i = 0; i < env.size();) {
        const std::size_t end = std::min(env.find('\0', i), env.size());
        if (end > i) pd.environ.push_back(env.substr(i, end - i));
        i = end + 1;
    }
}

}  // namespace

const char* process_dir::env(std::string_view name) const {
    for (const std::string& e : environ)
        if (e.size() > name.size() && e[name.size()] == '=' && e.compare(0, name.size(), name) == 0)
            return e.c_str() + name.size() + 1;
    return nullptr;
}

std::vector<process_dir> list_processes(const std::string& root) {
    namespace fs = std::filesystem;
    std::vector<process_dir> out;
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const std::size_t dash = name.find('-');
        std::uint64_t pid = 0, ns = 0;
        if (dash == std::string::npos || !parse_u64(name.substr(0, dash), pid) ||
            !parse_u64(name.substr(dash + 1), ns) || !it->is_directory(ec))
            continue;
        process_dir pd;
        pd.path = it->path().string();
        read_meta(pd);
        if (!pd.meta_valid) {
            pd.pid = static_cast<std::int32_t>(pid);
            pd.open_monotonic_ns = ns;
        }
        std::error_code ec2;
        for (fs::directory_iterator ft(pd.path, ec2), fend; !ec2 && ft != fend; ft.increment(ec2)) {
            const std::string fn = ft->path().filename().string();
            if (fn.size() < 12 || fn.compare(0, 7, "thread-") != 0 || fn.compare(fn.size() - 4, 4, ".rec") != 0)
                continue;
            thread_file tf;
            tf.path = ft->path().string();
            std::string digits = fn.substr(7, fn.size() - 11);
            digits = digits.substr(0, digits.find('-'));
            std::uint64_t tid = 0;
            if (parse_u64(digits, tid)) tf.tid = static_cast<std::int32_t>(tid);
            pd.threads.push_back(std::move(tf));
        }
        std::sort(pd.threads.begin(), pd.threads.end(),
                  [](const thread_file& a, const thread_file& b) { return a.path < b.path; });
        out.push_back(std::move(pd));
    }
    std::sort(out.begin(), out.end(), [](const process_dir& a, const process_dir& b) {
        return a.open_monotonic_ns != b.open_monotonic_ns ? a.open_monotonic_ns < b.open_monotonic_ns : a.pid < b.pid;
    });
    return out;
}

read_result read_thread(const std::string& path, const record_callback& cb) {
    read_result r;
    fd_guard f{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    struct stat st {};
    if (f.fd < 0 || fstat(f.fd, &st) != 0) {
        r.error = "open " + path + ": " + std::strerror(errno);
        return r;
    }
    const auto file_size = static_cast<std::uint64_t>(st.st_size);
    thread_header h{};
    if (read_at(f.fd, &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h)) {
        r.error = path + ": shorter than its header";
        return r;
    }
    if (h.magic != thread_magic || h.version != format_version || h.header_bytes != thread_header_bytes ||
        h.max_record == 0 || h.max_record > max_record_bytes || h.chunk_bytes % 4096 != 0 ||
        h.chunk_bytes < 2 * h.max_record || h.chunk_bytes > (1u << 30)) {
        r.error = path + ": no valid header (bad magic, version or sizes)";
        r.corrupt = h.magic == thread_magic;
        return r;
    }
    r.pid = h.pid;
    r.tid = h.tid;
    for (std::size_t i = 0; i < drop_reason_count; ++i) r.drops[i] = h.drops[i];

    // uint64_t elements: bodies handed to cb are 8-aligned, as the writer's were.
    std::vector<std::uint64_t> chunk(h.chunk_bytes / 8);
    const char* buf = reinterpret_cast<const char*>(chunk.data());
    for (std::uint64_t off = thread_header_bytes; off < file_size; off += h.chunk_bytes) {
        const ssize_t n = read_at(f.fd, chunk.data(), h.chunk_bytes, static_cast<off_t>(off));
        if (n < 0) {
            r.error = path + ": read: " + std::strerror(errno);
            return r;
        }
        const auto len = static_cast<std::uint32_t>(n);
        std::uint32_t pos = 0;
        bool skipped = false;
        while (pos + sizeof(record_header) <= len) {
            record_header rh;
            std::memcpy(&rh, buf + pos, sizeof rh);
            if (rh.size == 0) {
                const bool rest_zero = std::all_of(buf + pos, buf + len, [](char c) { return c == 0; });
                if (pos == 0 && rest_zero && len == h.chunk_bytes) {
                    // A whole chunk of zeros: space reserved and never written. The writer
                    // leaves one only at the end (a chunk mapped ahead, unused); a reader that
                    // stopped at one in the middle would lose the rest, so the data, if any,
                    // goes on in the next chunk.
                    skipped = true;
                    break;
                }
                // The end of the data. Anything written after it is a record reserved and never
                // committed (its body, or its flags word).
                r.torn = !rest_zero;
                r.ok = true;
                return r;
            }
            const std::uint32_t pad = rh.flags & 7u;
            if (rh.size < sizeof rh || rh.size % 8 != 0 || rh.size > h.max_record || rh.size > len - pos ||
                pad > rh.size - sizeof rh || (rh.flags & ~7u) != 0) {
                r.corrupt = true;
                r.error = path + ": invalid record header at offset " + std::to_string(off + pos) +
                          (rh.size > len - pos && len < h.chunk_bytes ? " (file truncated)" : "");
                return r;
            }
            if (rh.type == pad_type) {
                ++r.pads;
            } else if (rh.type < first_reserved_type) {
                ++r.records;
                if (cb) cb(rh.type, buf + pos + sizeof rh, rh.size - static_cast<std::uint32_t>(sizeof rh) - pad);
            }  // other reserved types: a later version's, skipped
            pos += rh.size;
            r.bytes_used += rh.size;
        }
        if (!skipped && pos != len) {  // less than a record header left: the file was cut mid-chunk
            r.corrupt = true;
            r.error = path + ": file truncated at offset " + std::to_string(off + len);
            return r;
        }
    }
    r.ok = true;  // every chunk full: the end of the file is the end of the data
    return r;
}

}  // namespace encore::trace
