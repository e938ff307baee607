// test/trace/test_record_file.cpp — the record files: round trips across chunks, threads, fork
// children that die every way, torn tails, signal re-entry, a program that closes our fds, a full
// disk, and a reader that survives corrupt files.
#include "../../src/trace/record_file.hpp"
#include "../../src/trace/output_template.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rf = encore::trace;
namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t small_chunk = 128 * 1024;  // many chunks from few records

struct temp_root {
    std::string path;
    temp_root() {
        char t[] = "/tmp/encore-recfile-XXXXXX";
        REQUIRE(mkdtemp(t) != nullptr);
        path = t;
    }
    ~temp_root() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// Record bodies: the sequence number in the first 8 bytes, then bytes derived from it, so any
// misplaced or overwritten byte shows.
std::uint8_t pattern(std::uint64_t seq, std::uint32_t i) {
    return static_cast<std::uint8_t>(seq * 131 + i * 7 + (seq >> 8));
}
void fill(void* p, std::uint32_t n, std::uint64_t seq) {
    auto* b = static_cast<std::uint8_t*>(p);
    std::memcpy(b, &seq, std::min<std::uint32_t>(n, 8));
    for (std::uint32_t i = 8; i < n; ++i) b[i] = pattern(seq, i);
}
bool intact(const void* p, std::uint32_t n, std::uint64_t seq) {
    auto* b = static_cast<const std::uint8_t*>(p);
    std::uint64_t got = 0;
    std::memcpy(&got, b, std::min<std::uint32_t>(n, 8));
    if (n >= 8 && got != seq) return false;
    for (std::uint32_t i = 8; i < n; ++i)
        if (b[i] != pattern(seq, i)) return false;
    return true;
}
std::uint64_t seq_of(const void* p) {
    std::uint64_t s;
    std::memcpy(&s, p, 8);
    return s;
}
// Varied sizes: mostly small, now and then large (up to the maximum body).
std::uint32_t size_of(std::uint64_t seq) {
    if (seq % 997 == 0) return rf::max_body_bytes;
    if (seq % 101 == 0) return 8 + static_cast<std::uint32_t>(seq * 7919 % 40000);
    return 8 + static_cast<std::uint32_t>(seq * 37 % 300);
}

bool write_seq(std::uint16_t type, std::uint64_t seq, std::uint32_t n) {
    void* p = rf::reserve(n);
    if (p == nullptr) return false;
    fill(p, n, seq);
    rf::commit(p, type);
    return true;
}

struct record {
    std::uint16_t type;
    std::vector<std::uint8_t> body;
};
struct thread_read {
    rf::read_result result;
    std::vector<record> records;
};

thread_read read_all(const std::string& path) {
    thread_read t;
    t.result = rf::read_thread(path, [&](std::uint16_t type, const void* body, std::uint32_t n) {
        const auto* b = static_cast<const std::uint8_t*>(body);
        t.records.push_back({type, std::vector<std::uint8_t>(b, b + n)});
    });
    return t;
}

std::vector<rf::process_dir> processes_of(const std::string& root, pid_t pid) {
    std::vector<rf::process_dir> out;
    for (auto& p : rf::list_processes(root))
        if (p.pid == pid) out.push_back(std::move(p));
    return out;
}

// The one process folder of pid under root, with its one thread file read.
thread_read only_thread(const std::string& root, pid_t pid) {
    const auto procs = processes_of(root, pid);
    REQUIRE(procs.size() == 1);
    REQUIRE(procs[0].meta_valid);
    REQUIRE(procs[0].threads.size() == 1);
    return read_all(procs[0].threads[0].path);
}

template <class F>
std::pair<pid_t, int> in_child(F f) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        f();
        _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    return {pid, status};
}

std::uint64_t drops(const rf::drop_counts& d, rf::drop_reason r) { return d[static_cast<std::size_t>(r)]; }

}  // namespace

TEST_CASE("records of varied sizes round-trip across chunks, in order, bodies intact") {
    temp_root root;
    REQUIRE(rf::open_process(root.path.c_str(), {small_chunk}));
    constexpr std::uint64_t n = 20000;
    std::uint64_t bytes = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        if (!write_seq(static_cast<std::uint16_t>(i % 1000), i, size_of(i))) FAIL("a record was dropped");
        bytes += size_of(i);
    }
    // An empty body, a body of an odd size, and one too large (dropped, counted).
    REQUIRE(rf::append(7, nullptr, 0));
    const char odd[5] = {'a', 'b', 'c', 'd', 'e'};
    REQUIRE(rf::append(8, odd, 5));
    CHECK(rf::reserve(rf::max_body_bytes + 1) == nullptr);
    rf::close_process();

    const auto procs = processes_of(root.path, getpid());
    REQUIRE(procs.size() == 1);
    CHECK(procs[0].clean_end);
    CHECK(drops(procs[0].drops, rf::drop_reason::too_large) == 1);
    REQUIRE(procs[0].threads.size() == 1);
    const thread_read t = read_all(procs[0].threads[0].path);
    CHECK(t.result.ok);
    CHECK_FALSE(t.result.torn);
    CHECK_FALSE(t.result.corrupt);
    CHECK(t.result.tid == static_cast<std::int32_t>(syscall(SYS_gettid)));
    CHECK(t.result.pads > 5);  // crossed several chunks
    CHECK(bytes > 10 * small_chunk);
    CHECK(drops(t.result.drops, rf::drop_reason::too_large) == 1);
    REQUIRE(t.result.records == n + 2);
    REQUIRE(t.records.size() == n + 2);
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const record& r = t.records[i];
        if (r.type != i % 1000 || r.body.size() != size_of(i) || !intact(r.body.data(), size_of(i), i)) ++bad;
    }
    CHECK(bad == 0);
    CHECK(t.records[n].type == 7);
    CHECK(t.records[n].body.empty());
    CHECK(t.records[n + 1].body == std::vector<std::uint8_t>(odd, odd + 5));
}

TEST_CASE("process metadata: pid, ppid, hostname, exe, cmdline, clean end") {
    temp_root root;
    REQUIRE(rf::open_process(root.path.c_str()));
    REQUIRE(std::string(rf::process_dir_path()).rfind(root.path + "/", 0) == 0);
    const auto procs = processes_of(root.path, getpid());
    REQUIRE(procs.size() == 1);
    const rf::process_dir& p = procs[0];
    CHECK(p.meta_valid);
    CHECK(p.ppid == getppid());
    utsname u{};
    REQUIRE(uname(&u) == 0);
    CHECK(p.hostname == u.nodename);
    CHECK(p.exe == fs::read_symlink("/proc/self/exe").string());
    REQUIRE_FALSE(p.cmdline.empty());
    CHECK_FALSE(p.cmdline[0].empty());
    CHECK(p.start_boottime_ns > 0);
    CHECK(p.open_monotonic_ns > 0);
    CHECK_FALSE(p.clean_end);  // no close_process yet
    CHECK(p.threads.empty());  // no record yet
    rf::close_process();
    CHECK(processes_of(root.path, getpid())[0].clean_end);
}

TEST_CASE("open_process reports a folder it cannot create") {
    CHECK_FALSE(rf::open_process("/proc/encore-cannot-exist/x"));
    CHECK(std::string(rf::last_error()).find("mkdir") != std::string::npos);
    // Records are now dropped (no process), not written anywhere.
    CHECK(rf::reserve(8) == nullptr);
}

TEST_CASE("threads writing at once: every record of every thread read back") {
    temp_root root;
    REQUIRE(rf::open_process(root.path.c_str(), {small_chunk}));
    constexpr int threads = 4;
    constexpr std::uint64_t per_thread = 30000;
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k)
        pool.emplace_back([k] {
            for (std::uint64_t i = 0; i < per_thread; ++i)
                write_seq(static_cast<std::uint16_t>(k), i, 8 + static_cast<std::uint32_t>(i % 120));
        });
    for (auto& th : pool) th.join();

    const auto procs = processes_of(root.path, getpid());
    REQUIRE(procs.size() == 1);
    REQUIRE(procs[0].threads.size() == threads);
    std::map<int, std::uint64_t> seen;
    for (const auto& tf : procs[0].threads) {
        const thread_read t = read_all(tf.path);
        CHECK(t.result.ok);
        CHECK_FALSE(t.result.torn);
        REQUIRE(t.records.size() == per_thread);
        const int k = t.records[0].type;
        std::uint64_t bad = 0;
        for (std::uint64_t i = 0; i < per_thread; ++i) {
            const record& r = t.records[i];
            if (r.type != k || r.body.size() != 8 + i % 120 || !intact(r.body.data(), 8 + i % 120, i)) ++bad;
        }
        CHECK(bad == 0);
        seen[k] += t.records.size();
    }
    CHECK(seen.size() == threads);
}

TEST_CASE("a fork child's records survive however it ends") {
    temp_root root;
    REQUIRE(rf::open_process(root.path.c_str(), {small_chunk}));
    const auto child_writes = [](std::uint64_t n, auto end) {
        return [n, end] {
            for (std::uint64_t i = 0; i < n; ++i)
                if (!write_seq(1, i, 8 + static_cast<std::uint32_t>(i % 64))) _exit(3);
            end();
        };
    };
    struct ending {
        const char* name;
        std::uint64_t n;
        void (*end)();
    };
    const ending endings[] = {
        {"SIGKILL", 5000, [] { kill(getpid(), SIGKILL); }},
        {"_exit", 5000, [] { _exit(0); }},
        {"SIGSEGV", 5000,
         [] {
             signal(SIGSEGV, SIG_DFL);
             raise(SIGSEGV);
         }},
        {"abort", 5000,
         [] {
             signal(SIGABRT, SIG_DFL);
             std::abort();
         }},
        {"100000 then SIGKILL", 100000, [] { kill(getpid(), SIGKILL); }},
    };
    for (const ending& e : endings) {
        CAPTURE(e.name);
        const auto [pid, status] = in_child(child_writes(e.n, e.end));
        CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 3));
        const auto procs = processes_of(root.path, pid);
        REQUIRE(procs.size() == 1);
        CHECK(procs[0].ppid == getpid());
        CHECK_FALSE(procs[0].clean_end);
        REQUIRE(procs[0].threads.size() == 1);
        const thread_read t = read_all(procs[0].threads[0].path);
        CHECK(t.result.ok);
        CHECK_FALSE(t.result.torn);
        REQUIRE(t.records.size() == e.n);
        std::uint64_t bad = 0;
        for (std::uint64_t i = 0; i < e.n; ++i)
            if (!intact(t.records[i].body.data(), 8 + i % 64, i) || t.records[i].body.size() != 8 + i % 64) ++bad;
        CHECK(bad == 0);
    }
}

TEST_CASE("fork after the parent's thread wrote: the child writes its own folder only") {
    temp_root root;
    REQUIRE(rf::open_process(root.path.c_str(), {small_chunk}));
    for (std::uint64_t i = 0; i < 1000; ++i)
        if (!write_seq(1, i, 40)) FAIL("a record was dropped");
    const std::string parent_dir = rf::process_dir_path();
    const auto [pid, status] = in_child([] {
        for (std::uint64_t i = 0; i < 20000; ++i)
            if (!write_seq(2, 1000000 + i, 40)) _exit(3);
        _exit(0);
    });
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    for (std::uint64_t i = 1000; i < 2000; ++i)
        if (!write_seq(1, i, 40)) FAIL("a record was dropped");
    CHECK(std::string(rf::process_dir_path()) == parent_dir);

    const thread_read parent = only_thread(root.path, getpid());
    REQUIRE(parent.records.size() == 2000);
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < 2000; ++i)
        if (parent.records[i].type != 1 || !intact(parent.records[i].body.data(), 40, i)) ++bad;
    CHECK(bad == 0);
    const thread_read child = only_thread(root.path, pid);
    REQUIRE(child.records.size() == 20000);
    bad = 0;
    for (std::uint64_t i = 0; i < 20000; ++i)
        if (child.records[i].type != 2 || !intact(child.records[i].body.data(), 40, 1000000 + i)) ++bad;
    CHECK(bad == 0);
    const auto cp = processes_of(root.path, pid);
    CHECK(cp[0].path != parent_dir);
}

TEST_CASE("a record reserved and never committed is reported torn; the ones before are read") {
    temp_root root;
    REQUIRE(rf::open_process(root.path.c_str(), {small_chunk}));
    const auto [pid, status] = in_child([] {
        for (std::uint64_t i = 0; i < 300; ++i) write_seq(1, i, 48);
        void* p = rf::reserve(48);
        if (p != nullptr) fill(p, 48, 999);  // no commit: killed mid-record
        kill(getpid(), SIGKILL);
    });
    CHECK(WIFSIGNALED(status));
    const thread_read t = only_thread(root.path, pid);
    CHECK(t.result.ok);
    CHECK(t.result.torn);
    REQUIRE(t.records.size() == 300);
    CHECK(seq_of(t.records.back().body.data()) == 299);

    // Without the torn record the same file reads clean: the check can fail.
    const auto [pid2, status2] = in_child([] {
        for (std::uint64_t i = 0; i < 300; ++i) write_seq(1, i, 48);
        kill(getpid(), SIGKILL);
    });
    CHECK(WIFSIGNALED(status2));
    CHECK_FALSE(only_thread(root.path, pid2).result.torn);
}

TEST_CASE("the reader survives truncated and corrupt files") {
    temp_root root;
    REQUIRE(rf::open_process(root.path.c_str(), {small_chunk}));
    for (std::uint64_t i = 0; i < 5000; ++i)
        if (!write_seq(1, i, size_of(i) % 2000)) FAIL("a record was dropped");
    const auto procs = processes_of(root.path, getpid());
    REQUIRE(procs[0].threads.size() == 1);
    const std::string good = procs[0].threads[0].path;
    const auto size = fs::file_size(good);
    const std::string copy = root.path + "/copy.rec";

    SUBCASE("truncated mid-record: the records before are read, the cut is reported") {
        fs::copy_file(good, copy);
        fs::resize_file(copy, rf::thread_header_bytes + 20000);
        const thread_read t = read_all(copy);
        CHECK(t.result.corrupt);
        CHECK(t.result.error.find("truncated") != std::string::npos);
        CHECK(t.records.size() > 0);
        for (std::size_t i = 0; i < t.records.size(); ++i)
            CHECK(intact(t.records[i].body.data(), static_cast<std::uint32_t>(t.records[i].body.size()), i));
    }
    SUBCASE("a chunk of zeros between chunks of data: gone past, every record read in order") {
        std::vector<char> bytes(size);
        {
            int fd = open(good.c_str(), O_RDONLY);
            REQUIRE(fd >= 0);
            REQUIRE(pread(fd, bytes.data(), size, 0) == static_cast<ssize_t>(size));
            close(fd);
        }
        REQUIRE(size > rf::thread_header_bytes + 2 * small_chunk);
        const auto cut = bytes.begin() + rf::thread_header_bytes + small_chunk;
        bytes.insert(cut, small_chunk, '\0');
        int fd = open(copy.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        REQUIRE(fd >= 0);
        REQUIRE(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
        close(fd);
        const thread_read t = read_all(copy);
        CHECK(t.result.ok);
        CHECK_FALSE(t.result.torn);
        CHECK_FALSE(t.result.corrupt);
        REQUIRE(t.records.size() == 5000);
        std::uint64_t bad = 0;
        for (std::size_t i = 0; i < t.records.size(); ++i)
            if (!intact(t.records[i].body.data(), static_cast<std::uint32_t>(t.records[i].body.size()), i)) ++bad;
        CHECK(bad == 0);
    }
    SUBCASE("shorter than its header, or empty") {
        fs::copy_file(good, copy);
        fs::resize_file(copy, 100);
        CHECK_FALSE(read_all(copy).result.ok);
        fs::resize_file(copy, 0);
        CHECK_FALSE(read_all(copy).result.ok);
        CHECK_FALSE(read_all(root.path + "/missing.rec").result.ok);
    }
    SUBCASE("random bytes anywhere: no crash, and every record delivered is in bounds") {
        std::mt19937_64 rng(42);
        std::vector<char> bytes(size);
        {
            int fd = open(good.c_str(), O_RDONLY);
            REQUIRE(fd >= 0);
            REQUIRE(pread(fd, bytes.data(), size, 0) == static_cast<ssize_t>(size));
            close(fd);
        }
        for (int round = 0; round < 200; ++round) {
            std::vector<char> b = bytes;
            const int hits = 1 + static_cast<int>(rng() % 8);
            for (int h = 0; h < hits; ++h) {
                // Mostly in the header and the first records, where sizes live.
                const std::size_t at = rng() % 4 == 0 ? rng() % size : rng() % (rf::thread_header_bytes + 4096);
                b[at] = static_cast<char>(rng());
            }
            int fd = open(copy.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            REQUIRE(fd >= 0);
            const std::size_t keep = rng() % 3 == 0 ? rng() % size : size;
            REQUIRE(write(fd, b.data(), keep) == static_cast<ssize_t>(keep));
            close(fd);
            std::uint64_t total = 0;
            const auto r = rf::read_thread(copy, [&](std::uint16_t, const void* body, std::uint32_t n) {
                total += n;
                if (n > 0) {  // touch the first and last byte: ASan says if out of bounds
                    volatile char c = static_cast<const char*>(body)[0];
                    c = static_cast<const char*>(body)[n - 1];
                    (void)c;
                }
            });
            CHECK(r.bytes_used <= keep);
        }
    }
}

namespace {
std::atomic<std::uint64_t> g_handler_tries{0}, g_handler_ok{0};
void recording_handler(int) {
    g_handler_tries.fetch_add(1, std::memory_order_relaxed);
    if (write_seq(2, 777, 24)) g_handler_ok.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

TEST_CASE("re-entry from a signal handler is dropped and counted, never corrupts a record") {
    temp_root root;
    REQUIRE(rf::open_process(root.path.c_str(), {small_chunk}));
    struct sigaction sa {};
    sa.sa_handler = recording_handler;
    sigemptyset(&sa.sa_mask);
    REQUIRE(sigaction(SIGUSR1, &sa, nullptr) == 0);
    REQUIRE(sigaction(SIGPROF, &sa, nullptr) == 0);
    g_handler_tries = 0;
    g_handler_ok = 0;

    // Direct: a second reservation before the commit is the re-entry.
    void* p = rf::reserve(16);
    REQUIRE(p != nullptr);
    fill(p, 16, 0);
    CHECK(rf::reserve(16) == nullptr);
    CHECK_FALSE(rf::append(2, "x", 1));
    rf::commit(p, 1);
    // A signal delivered synchronously inside the reserve/commit window: dropped.
    p = rf::reserve(16);
    REQUIRE(p != nullptr);
    fill(p, 16, 1);
    pthread_kill(pthread_self(), SIGUSR1);
    rf::commit(p, 1);
    CHECK(g_handler_tries == 1);
    CHECK(g_handler_ok == 0);
    // Between records: the handler's record is kept.
    pthread_kill(pthread_self(), SIGUSR1);
    CHECK(g_handler_ok == 1);

    // A profiling timer firing at random points of a loop of records, until it fired often.
    itimerval it{};
    it.it_interval.tv_usec = 50;
    it.it_value.tv_usec = 50;
    REQUIRE(setitimer(ITIMER_PROF, &it, nullptr) == 0);
    std::uint64_t n = 2;
    for (; n < 50000000 && (n < 300000 || g_handler_tries.load(std::memory_order_relaxed) < 200); ++n)
        if (!write_seq(1, n, 8 + static_cast<std::uint32_t>(n % 100))) FAIL("a record was dropped");
    it = {};
    setitimer(ITIMER_PROF, &it, nullptr);
    signal(SIGPROF, SIG_IGN);
    signal(SIGUSR1, SIG_DFL);

    const auto procs = processes_of(root.path, getpid());
    REQUIRE(procs.size() == 1);
    REQUIRE(procs[0].threads.size() == 1);
    std::uint64_t next = 0, handler_records = 0, bad = 0;
    const auto r = rf::read_thread(procs[0].threads[0].path, [&](std::uint16_t type, const void* body, std::uint32_t size) {
        if (type == 2) {
            ++handler_records;
            if (size != 24 || !intact(body, 24, 777)) ++bad;
            return;
        }
        const std::uint32_t want = next < 2 ? 16 : 8 + static_cast<std::uint32_t>(next % 100);
        if (type != 1 || size != want || !intact(body, want, next)) ++bad;
        ++next;
    });
    CHECK(r.ok);
    CHECK_FALSE(r.torn);
    CHECK(bad == 0);
    CHECK(next == n);
    CHECK(handler_records == g_handler_ok.load());
    const std::uint64_t reentry = drops(r.drops, rf::drop_reason::reentry);
    CHECK(reentry == 2 + (g_handler_tries.load() - g_handler_ok.load()));
    CHECK(g_handler_tries.load() >= 200);
    MESSAGE("timer signals: " << g_handler_tries.load() << ", recorded " << g_handler_ok.load()
                              << ", dropped as re-entry " << reentry);
}

TEST_CASE("the program closes every fd above 2 and opens its own file: both stay intact") {
    temp_root root;
    REQUIRE(rf::open_process(root.path.c_str(), {small_chunk}));
    const std::string own = root.path + "/own.txt";
    const auto [pid, status] = in_child([&] {
        for (std::uint64_t i = 0; i < 1000; ++i) write_seq(1, i, 64);
        for (int fd = 3; fd < 4096; ++fd) close(fd);
        const int fd = open(own.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd != 3) _exit(4);  // the lowest fd: any fd of ours would have been this one
        if (write(fd, "hello", 5) != 5) _exit(5);
        for (std::uint64_t i = 1000; i < 20000; ++i)  // several new chunks
            if (!write_seq(1, i, 64)) _exit(3);
        if (write(fd, " world", 6) != 6) _exit(5);
        close(fd);
        _exit(0);
    });
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    const thread_read t = only_thread(root.path, pid);
    REQUIRE(t.records.size() == 20000);
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < 20000; ++i)
        if (!intact(t.records[i].body.data(), 64, i)) ++bad;
    CHECK(bad == 0);
    CHECK(fs::file_size(own) == 11);
}

namespace {
// Writes until the disk is full, then more; reports successes through shared memory.
struct full_disk_result {
    std::uint64_t written, attempts;
};
std::pair<pid_t, int> fill_disk(const std::string& root, full_disk_result* out, bool fsize_limit) {
    return in_child([&] {
        if (fsize_limit) {
            signal(SIGXFSZ, SIG_IGN);
            rlimit rl{1u << 20, 1u << 20};
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(6);
        }
        if (!rf::open_process(root.c_str(), {small_chunk})) _exit(7);
        std::uint64_t written = 0;
        constexpr std::uint64_t attempts = 100000;  // 6.4 MB of records: more than fits
        for (std::uint64_t i = 0; i < attempts; ++i)
            if (write_seq(1, written, 56)) ++written;
        out->written = written;
        out->attempts = attempts;
        _exit(0);
    });
}
void check_full_disk(const std::string& root, pid_t pid, int status, const full_disk_result& res) {
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    CHECK(res.written > 1000);
    CHECK(res.written < res.attempts);
    const auto procs = processes_of(root, pid);
    REQUIRE(procs.size() == 1);
    CHECK(drops(procs[0].drops, rf::drop_reason::disk_full) == res.attempts - res.written);
    REQUIRE(procs[0].threads.size() == 1);
    const thread_read t = read_all(procs[0].threads[0].path);
    CHECK(t.result.ok);
    CHECK(drops(t.result.drops, rf::drop_reason::disk_full) == res.attempts - res.written);
    REQUIRE(t.records.size() == res.written);
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < res.written; ++i)
        if (!intact(t.records[i].body.data(), 56, i)) ++bad;
    CHECK(bad == 0);
}
}  // namespace

TEST_CASE("a full disk: the writer stops and counts drops; what was committed reads back") {
    auto* res = static_cast<full_disk_result*>(mmap(nullptr, sizeof(full_disk_result), PROT_READ | PROT_WRITE,
                                                    MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    REQUIRE(res != MAP_FAILED);
    SUBCASE("a 1 MiB tmpfs (ENOSPC)") {
        temp_root root;
        const std::string mnt = root.path + "/small";
        fs::create_directory(mnt);
        if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=1m") != 0) {
            MESSAGE("mount tmpfs not permitted (" << std::strerror(errno)
                                                  << "): skipped; "
                                                     "the RLIMIT_FSIZE subcase covers the same path");
        } else {
            *res = {};
            const auto [pid, status] = fill_disk(mnt, res, false);
            check_full_disk(mnt, pid, status, *res);
            umount2(mnt.c_str(), MNT_DETACH);
        }
    }
    SUBCASE("a file-size limit (EFBIG, SIGXFSZ ignored)") {
        temp_root root;
        *res = {};
        const auto [pid, status] = fill_disk(root.path, res, true);
        check_full_disk(root.path, pid, status, *res);
    }
    munmap(res, sizeof(full_disk_result));
}

TEST_CASE("a thread's mapping goes at thread exit; a reused tid gets a file of its own") {
    temp_root root;
    REQUIRE(rf::open_process(root.path.c_str(), {small_chunk}));
    for (int k = 0; k < 20; ++k)
        std::thread([k] {
            if (!write_seq(static_cast<std::uint16_t>(k), 0, 8)) FAIL("a record was dropped");
        }).join();
    const auto procs = processes_of(root.path, getpid());
    REQUIRE(procs.size() == 1);
    CHECK(procs[0].threads.size() == 20);
    std::uint64_t total = 0;
    for (const auto& tf : procs[0].threads) total += read_all(tf.path).records.size();
    CHECK(total == 20);
}

// ---- the grower: each thread's next chunk mapped ahead (record_file.cpp) ----------------------------

namespace {

// Whole chunks of zeros before the file's last chunk with data (the writer leaves none).
int skipped_chunks(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    REQUIRE(f != nullptr);
    std::vector<char> chunk(small_chunk);
    int zeros = 0, skipped = 0;
    REQUIRE(std::fseek(f, rf::thread_header_bytes, SEEK_SET) == 0);
    while (std::fread(chunk.data(), 1, chunk.size(), f) == chunk.size()) {
        if (std::all_of(chunk.begin(), chunk.end(), [](char c) { return c == 0; })) {
            ++zeros;
        } else {
            skipped += zeros;
            zeros = 0;
        }
    }
    std::fclose(f);
    return skipped;
}

bool has_thread_named(const char* name) {
    for (const auto& e : fs::directory_iterator("/proc/self/task")) {
        std::FILE* f = std::fopen((e.path() / "comm").c_str(), "r");
        if (f == nullptr) continue;
        char comm[32] = {};
        const bool read = std::fgets(comm, sizeof comm, f) != nullptr;
        std::fclose(f);
        if (read && std::string(comm) == std::string(name) + "\n") return true;
    }
    return false;
}

}  // namespace

TEST_CASE("a slow grower: the thread waits for the chunk being mapped or maps it itself, loses nothing") {
    // The grower sleeps 30 ms before each chunk; the thread fills a 128 KiB chunk far sooner, so at
    // each new chunk it finds the grower at work on it (and waits) or not yet started (and maps it
    // itself, taking the request back). Either way the chunks follow each other in the file.
    temp_root root;
    const auto [child, status] = in_child([&] {
        if (!rf::open_process(root.path.c_str(), {small_chunk, true, 30000})) _exit(1);
        for (std::uint64_t i = 0; i < 40000; ++i) {
            if (!write_seq(static_cast<std::uint16_t>(i % 50), i, 8 + static_cast<std::uint32_t>(i % 200))) _exit(2);
            if (i % 2000 == 0) usleep(2000);  // now and then the grower is caught mid-chunk
        }
        _exit(0);
    });
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    const thread_read t = only_thread(root.path, child);
    CHECK(t.result.ok);
    CHECK_FALSE(t.result.torn);
    CHECK_FALSE(t.result.corrupt);
    REQUIRE(t.records.size() == 40000);
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < t.records.size(); ++i) {
        const record& r = t.records[i];
        if (r.type != i % 50 || r.body.size() != 8 + i % 200 || !intact(r.body.data(), 8 + i % 200, i)) ++bad;
    }
    CHECK(bad == 0);
    CHECK(skipped_chunks(processes_of(root.path, child)[0].threads[0].path) == 0);
}

TEST_CASE("the grower maps chunks ahead; threads that exit while it works on theirs leave no trace") {
    temp_root root;
    const auto [child, status] = in_child([&] {
        if (!rf::open_process(root.path.c_str(), {small_chunk, true, 2000})) _exit(1);
        if (!has_thread_named("encore-grower")) _exit(3);
        // 64 short-lived threads, each past its first chunk (a request made), exiting at once:
        // many leave their slot while the grower is mapping for it.
        for (int round = 0; round < 8; ++round) {
            std::vector<std::thread> pool;
            for (int k = 0; k < 8; ++k)
                pool.emplace_back([round, k] {
                    for (std::uint64_t i = 0; i < 3000; ++i)
                        if (!write_seq(static_cast<std::uint16_t>(round * 8 + k), i, 64)) _exit(2);
                });
            for (auto& th : pool) th.join();
        }
        _exit(0);
    });
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    const auto procs = rf::list_processes(root.path);
    REQUIRE(procs.size() == 1);
    REQUIRE(procs[0].threads.size() == 64);
    std::uint64_t total = 0, bad = 0;
    for (const auto& tf : procs[0].threads) {
        const thread_read t = read_all(tf.path);
        CHECK(t.result.ok);
        CHECK_FALSE(t.result.torn);
        total += t.records.size();
        for (std::uint64_t i = 0; i < t.records.size(); ++i)
            if (!intact(t.records[i].body.data(), 64, i)) ++bad;
    }
    CHECK(total == 64 * 3000);
    CHECK(bad == 0);
}

TEST_CASE("grow_ahead off: no grower, each thread maps its chunks itself") {
    temp_root root;
    const auto [child, status] = in_child([&] {
        if (!rf::open_process(root.path.c_str(), {small_chunk, false})) _exit(1);
        if (has_thread_named("encore-grower")) _exit(3);
        for (std::uint64_t i = 0; i < 20000; ++i)
            if (!write_seq(1, i, 8 + static_cast<std::uint32_t>(i % 120))) _exit(2);
        _exit(0);
    });
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    const thread_read t = only_thread(root.path, child);
    CHECK(t.result.ok);
    CHECK(t.records.size() == 20000);
    CHECK(skipped_chunks(processes_of(root.path, child)[0].threads[0].path) == 0);
}

// ---- output templates (output_template.hpp) ---------------------------------------------------------

TEST_CASE("output templates: placeholders from the traced process's environment") {
    encore::trace::process_dir d;
    d.pid = 4242;
    d.ppid = 17;
    d.hostname = "node7";
    d.environ = {"OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=8", "SLURM_JOB_ID=991", "ODD=a/b", "EMPTY="};
    using encore::trace::expand_output_template;
    std::vector<std::string> unknown;
    CHECK(expand_output_template("%hostname%/%pid%", d, false) == "node7/4242");
    CHECK(expand_output_template("r%rank%of%size%_j%job%_n%nid%_p%ppid%", d, true) == "r3of8_j991_n3_p17");
    CHECK(expand_output_template("%p-%r-%s-%j", d, true) == "4242-3-8-991");
    CHECK(expand_output_template("%env{ODD}%|$env{ODD}|%q{ODD}%", d, false) == "a/b|a/b|a/b");
    // In a file name a value's '/' must not make a folder.
    CHECK(expand_output_template("x%env{ODD}%", d, true) == "xa_b");
    CHECK(expand_output_template("[%env{NOT_SET}%][%env{EMPTY}%]", d, true) == "[][]");
    CHECK(expand_output_template("100%_%bogus%_%", d, true, &unknown) == "100%_%bogus%_%");
    CHECK(unknown == std::vector<std::string>{"%bogus%"});
    // SLURM's rank comes first; without any, rank 0, size 1, the pid as node id.
    d.environ = {"OMPI_COMM_WORLD_RANK=3", "SLURM_PROCID=5"};
    CHECK(expand_output_template("%rank%", d, true) == "5");
    d.environ.clear();
    CHECK(expand_output_template("%rank%/%size%/%nid%/%job%", d, false) == "0/1/4242/0");
    CHECK(expand_output_template("%env{unterminated", d, false) == "%env{unterminated");
}
