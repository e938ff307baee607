// examples/tools/replay_bench.cpp — a benchmark harness on kernel replay: replays the kernel
// dispatches of an unmodified HSA or CUDA program N times each (all of them, or those whose
// kernel name contains a pattern) and reports, per kernel, the GPU time of every pass (min /
// median / max), what the snapshot and the restores cost, optionally verifying that every pass
// started from identical inputs.
//
// A rocprofiler_configure tool (ROCP_TOOL_LIBRARIES; see encore-replay) on encore's C++ API:
// KERNEL_REPLAY sets the pass count and gives the snapshot's and each restore's host times
// (SNAPSHOT / RESTORE records), KERNEL_DISPATCH gives each pass's GPU start/end, CODE_OBJECT
// gives kernel names (demangled here: CUDA's and HIP's C++ kernels are mangled symbols).
//
// Environment:
//   ENCORE_REPLAY_PASSES=N       passes per replayed dispatch (decimal, default 5, at least 2; a bad
//                                value is ignored with a message; libencore caps it, see
//                                ENCORE_REPLAY_MAX_PASSES in docs/replay.md)
//   ENCORE_REPLAY_KERNEL=TEXT    replay only kernels whose name (demangled, or the symbol as
//                                the runtime gives it) contains TEXT (default: all)
//   ENCORE_REPLAY_COUNT=N        replay at most the first N selected dispatches (decimal, at least
//                                1; later ones run once), as Nsight Compute's -c
//   ENCORE_REPLAY_VERIFY=1       checksum the covered memory before each pass; a dispatch whose
//                                passes did not all start from the same bytes is reported
//   ENCORE_REPLAY_REPORT=FILE    also write one CSV row per replayed dispatch to FILE, as each
//                                dispatch's replay ends (checked at start: if FILE cannot be
//                                created the tool says why and does not replay); the per-kernel
//                                table always goes to stderr: at exit, or, shorter, when a fatal
//                                signal or SIGINT/SIGTERM/SIGHUP/SIGQUIT ends the program
//                                (dying_output.hpp)
#include "dying_output.hpp"
#include "kernel_names.hpp"
#include "range_replay.hpp"  // --range (range replay): its own context and report

#include <encore/domains/events.hpp>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/experimental/kernel_replay.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

namespace d = encore::domains;

struct dispatch_run {
    std::string kernel;
    std::vector<std::uint64_t> pass_ns;      // GPU time of each pass
    std::vector<std::uint64_t> checksums;    // at each PASS ENTER (verify)
    std::vector<std::uint64_t> checksum_ns;  // host time of each of those checksums
    std::vector<std::uint64_t> restore_ns;   // host time of each restore (RESTORE records)
    std::uint64_t snapshot_ns = 0, snapshot_bytes = 0;
};

struct kernel_report {
    std::uint64_t dispatches = 0, passes = 0, mismatched = 0;
    std::vector<std::uint64_t> pass_ns, snapshot_ns, restore_ns, checksum_ns;
    std::uint64_t snapshot_bytes = 0;  // the largest snapshot of the kernel's dispatches
};

struct kernel_name {
    std::string readable;  // what the report prints (demangled)
    std::string symbol;    // as the runtime named it (-k matches either)
};

std::mutex g_mutex;
std::map<std::uint64_t, kernel_name> g_names;     // kernel id -> name
std::map<std::uint64_t, dispatch_run> g_running;  // dispatch id -> its passes so far
std::map<std::string, kernel_report> g_report;    // kernel name -> results
std::map<std::string, std::uint64_t> g_declined;  // reason -> count
// Every dispatch that ran outside a replay (kernel id -> count): what finalize lists when -k
// matched nothing, so a misspelt or mangled name can be fixed without another tool.
std::map<std::uint64_t, std::uint64_t> g_ran;
std::uint64_t g_passes = 5;
std::string g_pattern;
std::uint64_t g_count = 0;     // ENCORE_REPLAY_COUNT (0: every selected dispatch)
std::uint64_t g_selected = 0;  // dispatches selected so far; guarded by g_mutex
bool g_verify = false;
bool g_done = false;
std::string g_report_path;  // ENCORE_REPLAY_REPORT ("" = none)
int g_report_fd = -1;

// What the signal path prints: counts and a per-kernel table in static storage, written under
// g_mutex as each dispatch's replay ends and read without it by the handler (the median needs
// every pass: only the table at exit has it).
struct kernel_line {
    char name[96];
    std::atomic<std::uint64_t> dispatches, passes, min_ns, max_ns;
};
constexpr std::size_t max_kernel_lines = 256;
kernel_line g_lines[max_kernel_lines];
std::atomic<std::size_t> g_line_count{0};
std::map<std::string, std::size_t> g_line_of;  // kernel name -> index in g_lines; guarded by g_mutex
std::atomic<std::uint64_t> g_replayed{0}, g_replayed_passes{0}, g_declined_count{0};
// A dispatch's row and its counts are being written (record_dispatch): the signal path waits for
// it, so the count it prints is the file's row count.
std::atomic<int> g_recording{0};

double us(std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

double median_us(std::vector<std::uint64_t> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 == 1 ? us(v[v.size() / 2]) : (us(v[v.size() / 2 - 1]) + us(v[v.size() / 2])) / 2;
}

// A CSV field: quoted when it holds a comma or a quote (demangled C++ names have commas).
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::uint64_t steady_ns() {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// A replayed dispatch's end (under g_mutex): its CSV row, written before the replay callback
// returns (so it survives the program's death), and its line of the signal path's table.
void record_dispatch(std::uint64_t dispatch_id, const dispatch_run& run, bool differ) {
    // The row and the counts the signal path prints go together: the signals that end the
    // program with the short report wait on this thread until both are written, and a handler
    // running on another thread waits for g_recording (on_fatal).
    sigset_t ending, before;
    sigemptyset(&ending);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&ending, sig);
    pthread_sigmask(SIG_BLOCK, &ending, &before);
    g_recording.store(1, std::memory_order_seq_cst);
    const auto& v = run.pass_ns;
    const std::uint64_t mn = v.empty() ? 0 : *std::min_element(v.begin(), v.end());
    const std::uint64_t mx = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
    if (g_report_fd >= 0) {
        char nums[256];
        // The pid last: every process of a run appends to one file, and dispatch ids are per process.
        const int len = std::snprintf(nums, sizeof(nums), ",%zu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%" PRIu64 ",%s,%ld\n",
                                      v.size(), us(mn), median_us(v), us(mx), us(run.snapshot_ns),
                                      median_us(run.restore_ns), median_us(run.checksum_ns), run.snapshot_bytes,
                                      !g_verify ? "not checked"
                                      : differ  ? "differ"
                                                : "identical",
                                      static_cast<long>(::getpid()));
        if (len > 0) {
            const std::string row = std::to_string(dispatch_id) + "," + csv_field(run.kernel) +
                                    std::string(nums,
                                                std::min<std::size_t>(static_cast<std::size_t>(len), sizeof(nums) - 1));
            dying_output::write_all(g_report_fd, row.data(), row.size());
        }
    }
    auto at = g_line_of.find(run.kernel);
    if (at == g_line_of.end()) {
        const std::size_t n = g_line_count.load(std::memory_order_relaxed);
        if (n < max_kernel_lines) {
            std::snprintf(g_lines[n].name, sizeof(g_lines[n].name), "%s", run.kernel.c_str());
            g_lines[n].min_ns.store(UINT64_MAX, std::memory_order_relaxed);
            g_line_count.store(n + 1, std::memory_order_release);  // the name is written before it is seen
        }
        at = g_line_of.emplace(run.kernel, n).first;
    }
    if (at->second < max_kernel_lines) {
        auto& l = g_lines[at->second];
        l.dispatches.fetch_add(1, std::memory_order_relaxed);
        l.passes.fetch_add(v.size(), std::memory_order_relaxed);
        if (mn < l.min_ns.load(std::memory_order_relaxed)) l.min_ns.store(mn, std::memory_order_relaxed);
        if (mx > l.max_ns.load(std::memory_order_relaxed)) l.max_ns.store(mx, std::memory_order_relaxed);
    }
    g_replayed_passes.fetch_add(v.size(), std::memory_order_relaxed);
    g_replayed.fetch_add(1, std::memory_order_relaxed);
    g_recording.store(0, std::memory_order_seq_cst);
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

kernel_name name_of(std::uint64_t kernel_id) {
    const auto it = g_names.find(kernel_id);
    if (it != g_names.end()) return it->second;
    const std::string unknown = "kernel#" + std::to_string(kernel_id);
    return {unknown, unknown};
}

std::uint64_t pass_count(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return g_passes; }

void on_code_object(const encore::record& r, rocprofiler_user_data_t&) {
    if (r.operation != ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER || r.phase != ROCPROFILER_CALLBACK_PHASE_LOAD)
        return;
    auto* p = static_cast<rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(r.payload);
    kernel_name name{example_tools::readable_kernel_name(p->kernel_name),
                     p->kernel_name != nullptr ? p->kernel_name : ""};
    std::lock_guard lk(g_mutex);
    g_names[p->kernel_id] = std::move(name);
}

void on_replay(const encore::record& r, rocprofiler_user_data_t&) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    const std::uint64_t id = p->dispatch_info.dispatch_id;
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        std::lock_guard lk(g_mutex);
        const kernel_name name = name_of(p->dispatch_info.kernel_id);
        if (!g_pattern.empty() && name.readable.find(g_pattern) == std::string::npos &&
            name.symbol.find(g_pattern) == std::string::npos)
            return;                         // opt out
        if (range_tool::enabled()) return;  // --range: ranges are replayed, not single dispatches
        if (g_count != 0 && g_selected >= g_count) return;
        ++g_selected;
        p->replay_pass_count = &pass_count;
        g_running[id].kernel = name.readable;
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        if (!g_verify) return;
        std::uint64_t sum = 0;
        const std::uint64_t t0 = steady_ns();
        const bool have = encore_kernel_replay_checksum(&sum) == ROCPROFILER_STATUS_SUCCESS;
        const std::uint64_t t1 = steady_ns();
        std::lock_guard lk(g_mutex);
        const auto it = g_running.find(id);
        if (have && it != g_running.end()) {
            it->second.checksums.push_back(sum);
            it->second.checksum_ns.push_back(t1 - t0);
        }
    } else if ((r.operation == ROCPROFILER_KERNEL_REPLAY_SNAPSHOT || r.operation == ROCPROFILER_KERNEL_REPLAY_RESTORE) &&
               r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        // The backend's host time for the copy (and, on CUDA, the wait for it to complete).
        std::lock_guard lk(g_mutex);
        const auto it = g_running.find(id);
        if (it == g_running.end()) return;
        const std::uint64_t ns = p->end_timestamp >= p->start_timestamp ? p->end_timestamp - p->start_timestamp : 0;
        if (r.operation == ROCPROFILER_KERNEL_REPLAY_SNAPSHOT) {
            it->second.snapshot_ns = ns;
            it->second.snapshot_bytes = p->bytes;
        } else {
            it->second.restore_ns.push_back(ns);
        }
    } else if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        std::lock_guard lk(g_mutex);
        const auto it = g_running.find(id);
        if (p->decline_reason != nullptr) {
            ++g_declined[p->decline_reason];
            g_declined_count.fetch_add(1, std::memory_order_relaxed);
        }
        if (it == g_running.end()) return;
        auto& k = g_report[it->second.kernel];
        if (p->passes_run > 1) {
            ++k.dispatches;
            k.passes += it->second.pass_ns.size();
            k.pass_ns.insert(k.pass_ns.end(), it->second.pass_ns.begin(), it->second.pass_ns.end());
            k.snapshot_ns.push_back(it->second.snapshot_ns);
            k.restore_ns.insert(k.restore_ns.end(), it->second.restore_ns.begin(), it->second.restore_ns.end());
            k.checksum_ns.insert(k.checksum_ns.end(), it->second.checksum_ns.begin(), it->second.checksum_ns.end());
            k.snapshot_bytes = std::max(k.snapshot_bytes, it->second.snapshot_bytes);
            const auto& c = it->second.checksums;
            const bool differ = std::adjacent_find(c.begin(), c.end(), std::not_equal_to<>()) != c.end();
            if (differ) ++k.mismatched;
            record_dispatch(id, it->second, differ);
        }
        g_running.erase(it);
    }
}

void on_dispatch(const encore::record& r, rocprofiler_user_data_t&) {
    if (r.operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    // A replayed pass completes on the replaying thread before its PASS EXIT.
    const auto it = g_running.find(p->dispatch_info.dispatch_id);
    if (it != g_running.end())
        it->second.pass_ns.push_back(p->end_timestamp - p->start_timestamp);
    else
        ++g_ran[p->dispatch_info.kernel_id];  // exact whenever nothing was replayed, which is when it is read
}

// -k matched no dispatch: say so instead of an empty table, and list the kernels that ran with
// their dispatch counts (as Nsight Compute does when its filter matches nothing), so the next
// -k can be one of them.
void report_no_match() {
    std::fprintf(stderr,
                 "[encore-replay] no dispatch matched -k '%s' (no kernel name, demangled or as the runtime gave "
                 "it, contains it)",
                 g_pattern.c_str());
    std::map<std::string, std::uint64_t> ran;  // by name: kernels of several code objects merge
    for (const auto& [kernel_id, n] : g_ran) ran[name_of(kernel_id).readable] += n;
    if (ran.empty()) {
        std::fprintf(stderr, "; no kernel dispatch ran\n");
        return;
    }
    std::fprintf(stderr, "; the kernels that ran:\n%10s  %s\n", "dispatches", "kernel");
    for (const auto& [name, n] : ran) std::fprintf(stderr, "%10" PRIu64 "  %s\n", n, name.c_str());
}

// Opens the report file at start (truncated, with its header): a report that cannot be written is
// said now, with the reason, not at exit.
bool open_report() {
    const char* f = std::getenv("ENCORE_REPLAY_REPORT");
    if (f == nullptr || *f == '\0') return true;
    g_report_path = f;
    // ENCORE_REPLAY_REPORT_SHARED=1 (encore-replay -o, which empties the file before the run):
    // every process of the run appends its rows (exec, system(), a script of several programs),
    // the first to find the file empty writing the header; else the file is this process's.
    const char* shared_env = std::getenv("ENCORE_REPLAY_REPORT_SHARED");
    const bool shared = shared_env != nullptr && std::strcmp(shared_env, "1") == 0;
    g_report_fd = ::open(f, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (shared ? 0 : O_TRUNC), 0666);
    bool header = g_report_fd >= 0;
    if (header && shared) {
        struct stat st {};
        ::flock(g_report_fd, LOCK_EX);  // two processes starting at once: one header
        header = ::fstat(g_report_fd, &st) == 0 && st.st_size == 0;
    }
    const bool ok = g_report_fd >= 0 &&
                    (!header || dying_output::write_all(g_report_fd, "dispatch_id,kernel,passes,min_us,median_us,max_us,"
                                                                     "snapshot_us,restore_us,checksum_us,snapshot_bytes,"
                                                                     "inputs,process_id\n"));
    if (g_report_fd >= 0 && shared) ::flock(g_report_fd, LOCK_UN);
    if (!ok) {
        std::fprintf(stderr, "encore-replay: cannot write %s: %s (not replaying)\n", f, std::strerror(errno));
        if (g_report_fd >= 0) ::close(g_report_fd);
        g_report_fd = -1;
        return false;
    }
    return true;
}

// The signal path (dying_output::hooks): the rows are in the file already; say so, with what
// was replayed so far, when the program is about to die of the signal.
void on_fatal(int sig, bool dying) noexcept {
    if (!dying) return;
    // A dispatch being recorded on another thread (its row may be in the file, its count not yet):
    // wait for it, at most 200 ms (clock_gettime is async-signal-safe). On the recording thread
    // itself the ending signals are blocked, so this never waits on its own thread for those; a
    // fatal signal there (a fault while recording) gives up after the bound.
    timespec t0{}, now{};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (g_recording.load(std::memory_order_seq_cst) != 0) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec) > 200000000L) break;
    }
    dying_output::fixed_text<512> t;
    t.add("\n[encore-replay] interrupted by ")
        .add(dying_output::signal_name(sig))
        .add(": ")
        .add(g_replayed.load(std::memory_order_relaxed))
        .add(" dispatches replayed so far (")
        .add(g_replayed_passes.load(std::memory_order_relaxed))
        .add(" passes), ")
        .add(g_declined_count.load(std::memory_order_relaxed))
        .add(" not replayed");
    if (g_report_fd >= 0) t.add("; one row per replayed dispatch in ").add(g_report_path);
    t.add("\n");
    dying_output::write_all(2, t.view());
    const std::size_t n = g_line_count.load(std::memory_order_acquire);
    if (n == 0) return;
    dying_output::write_all(2, "kernel                           dispatches   passes       min_us       max_us\n");
    for (std::size_t i = 0; i < n; ++i) {
        const auto& l = g_lines[i];
        dying_output::fixed_text<256> r;
        r.add(l.name).pad_to(0, 32).add(" ");
        dying_output::fixed_text<24> mn, mx;
        const std::uint64_t min_ns = l.min_ns.load(std::memory_order_relaxed);
        mn.add_us(min_ns == UINT64_MAX ? 0 : min_ns, 2);
        mx.add_us(l.max_ns.load(std::memory_order_relaxed), 2);
        r.add_right(l.dispatches.load(std::memory_order_relaxed), 10)
            .add(" ")
            .add_right(l.passes.load(std::memory_order_relaxed), 8)
            .add(" ")
            .add_right(mn.view(), 12)
            .add(" ")
            .add_right(mx.view(), 12);
        r.add("\n");
        dying_output::write_all(2, r.view());
    }
}

void on_resume(int) noexcept {}  // nothing to take back: the rows stay valid

// A setting's number: decimal digits only, the whole string, in range, at least `least`; else
// false and `out` unchanged. strtoull alone takes "-1" as 2^64-1 and an overflow as 2^64-1 (a
// replay without end), and "5x" as 5. A bad value is ignored with one message, as libencore
// ignores its bad ENCORE_REPLAY_* variables.
bool decimal_at_least(const char* v, std::uint64_t least, std::uint64_t& out) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long x = std::isdigit(static_cast<unsigned char>(*v)) ? std::strtoull(v, &end, 10) : 0;
    if (end == nullptr || *end != '\0' || errno == ERANGE || x < least) return false;
    out = x;
    return true;
}

// A fork child (no exec) keeps the parent's tables: it reports only its own dispatches, under its
// pid (issue 40 item 13: each child printed the parent's numbers as its own). Its rows go on into
// the report file it shares with the parent (O_APPEND: one write per row).
pid_t g_pid = 0;
void on_fork_child() noexcept {
    ::new (&g_mutex) std::mutex();  // another thread may have held it at the fork
    g_running.clear();
    g_report.clear();
    g_declined.clear();
    g_ran.clear();
    g_selected = 0;
    g_replayed.store(0);
    g_replayed_passes.store(0);
    g_declined_count.store(0);
    g_line_count.store(0);
    g_line_of.clear();
    g_recording.store(0);
}

int initialize(rocprofiler_client_finalize_t, void*) {
    g_pid = ::getpid();
    ::pthread_atfork(nullptr, nullptr, &on_fork_child);
    if (const char* v = std::getenv("ENCORE_REPLAY_PASSES"); v != nullptr && *v != '\0') {
        if (!decimal_at_least(v, 2, g_passes))
            std::fprintf(stderr,
                         "[encore-replay] ignoring ENCORE_REPLAY_PASSES=%s (a decimal number of passes, at least 2); "
                         "using %" PRIu64 "\n",
                         v, g_passes);
    }
    if (const char* v = std::getenv("ENCORE_REPLAY_KERNEL"); v != nullptr) g_pattern = v;
    if (const char* v = std::getenv("ENCORE_REPLAY_COUNT"); v != nullptr && *v != '\0') {
        if (!decimal_at_least(v, 1, g_count))
            std::fprintf(stderr,
                         "[encore-replay] ignoring ENCORE_REPLAY_COUNT=%s (a decimal number of dispatches, at least "
                         "1); replaying every selected dispatch\n",
                         v);
    }
    if (const char* v = std::getenv("ENCORE_REPLAY_VERIFY"); v != nullptr) g_verify = std::strcmp(v, "0") != 0;
    if (!open_report()) return 1;
    if (!range_tool::configure(g_passes)) return 1;  // --range
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (ctx.trace<d::kernel_replay>(&on_replay) != ROCPROFILER_STATUS_SUCCESS ||
        ctx.trace<d::kernel_dispatch>(&on_dispatch) != ROCPROFILER_STATUS_SUCCESS ||
        ctx.trace<d::code_object>(&on_code_object) != ROCPROFILER_STATUS_SUCCESS) {
        std::fprintf(stderr, "[encore-replay] this encore cannot replay (is libencore-hsa the HSA tools library, or "
                             "libencore-cuda the program's libcuda.so.1?)\n");
        return 1;
    }
    if (ctx.start() != ROCPROFILER_STATUS_SUCCESS) return 1;
    dying_output::install({&on_fatal, &on_resume});
    return 0;
}

void finalize(void*) {
    std::lock_guard lk(g_mutex);
    if (g_done) return;
    g_done = true;
    range_tool::report();  // --range
    if (range_tool::enabled()) return;
    if (::getpid() != g_pid)
        std::fprintf(stderr, "\n[encore-replay] pid %d (forked from %d): its own dispatches\n",
                     static_cast<int>(::getpid()), static_cast<int>(g_pid));
    std::fprintf(stderr, "\n[encore-replay] %" PRIu64 " passes per dispatch%s\n", g_passes,
                 g_verify ? ", inputs verified" : "");
    if (!g_pattern.empty() && g_selected == 0) {
        report_no_match();
    } else {
        // GPU times of the passes; snapshot (per dispatch), restore and checksum (per pass) as host
        // times, medians. The name last: demangled C++ names are long.
        std::fprintf(stderr, "%10s %8s %12s %12s %12s %12s %12s %12s %11s  %s\n", "dispatches", "passes", "min_us",
                     "median_us", "max_us", "snapshot_us", "restore_us", "checksum_us", "inputs", "kernel");
        for (auto& [name, k] : g_report) {
            auto& v = k.pass_ns;
            std::sort(v.begin(), v.end());
            const double mn = v.empty() ? 0 : us(v.front()), mx = v.empty() ? 0 : us(v.back());
            const double med = median_us(v);
            const std::string inputs = !g_verify           ? "not checked"
                                       : k.mismatched == 0 ? "identical"
                                                           : std::to_string(k.mismatched) + " differ";
            std::fprintf(stderr, "%10" PRIu64 " %8" PRIu64 " %12.2f %12.2f %12.2f %12.2f %12.2f %12.2f %11s  %s\n",
                         k.dispatches, k.passes, mn, med, mx, median_us(k.snapshot_ns), median_us(k.restore_ns),
                         median_us(k.checksum_ns), inputs.c_str(), name.c_str());
        }
    }
    for (auto& [why, n] : g_declined)
        std::fprintf(stderr, "[encore-replay] %" PRIu64 " dispatch(es) not replayed: %s\n", n, why.c_str());
    if (g_report_fd >= 0)
        std::fprintf(stderr, "[encore-replay] %" PRIu64 " rows (one per replayed dispatch) in %s\n", g_replayed.load(),
                     g_report_path.c_str());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t*) {
    static rocprofiler_tool_configure_result_t result{sizeof(result), &initialize, &finalize, nullptr};
    return &result;
}
