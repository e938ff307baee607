// src/trace/tool.cpp — the tool behind encore-trace (libencore-trace-tool.so, loaded through
// ROCP_TOOL_LIBRARIES): every traced call and event becomes one binary record in the calling
// thread's record file (record_file.hpp), and nothing else happens on the program's threads.
//
// What a traced call costs here, on top of encore's callback: a timestamp at ENTER (kept in the
// call's user_data), one at EXIT (the time-stamp counter where the kernel keeps time with it,
// mapped to CLOCK_BOOTTIME by the converter: tick_clock.hpp), and a copy of the call's captured argument bytes and return
// value into the mapped file; no formatting, lock, allocation or system call. Strings the call
// passes (a marker's message, a symbol name) are copied at the call, bounded, through the guarded
// read (a bad pointer costs the string, never the process); they are rare on hot paths. The
// launcher (encore-trace) converts the records after the program ended (convert.cpp).
//
// --args-depth N (ENCORE_TRACE_ARGS_DEPTH, N > 0) formats the arguments at the call instead,
// following pointers N deep, as the old tool did: microseconds per call (docs/trace.md prices it).
// A call that frees or destroys what its arguments point at (hsa_queue_destroy, ...) is formatted
// at ENTER, while they are still valid; any other at EXIT, where its out-parameters are written.
//
// Environment (encore-trace sets it):
//   ENCORE_TRACE_RECORDS=DIR     where the process's record folder is made (required)
//   ENCORE_TRACE_DOMAINS=LIST    comma-separated: hsa, hip, cuda, marker, ompt, rccl (API calls);
//                                kernel, memory_copy, memory_allocation (events)
//   ENCORE_TRACE_ARGS_DEPTH=N    see above; default 0
//   ENCORE_TRACE_CLOCK=boottime  stamp calls with clock_gettime, not the time-stamp counter
//   ENCORE_TRACE_GROW_AHEAD=0    each thread populates its record chunks itself (no grower thread:
//                                record_file.cpp); for comparisons
//   ENCORE_TRACE_KERNEL_INCLUDE=RE, ENCORE_TRACE_KERNEL_EXCLUDE=RE
//                                --kernel-include-regex / --kernel-exclude-regex: a dispatch of a
//                                kernel left out is not recorded (see on_dispatch_filtered)
#include "demangle.hpp"
#include "period.hpp"
#include "record_file.hpp"
#include "records.hpp"
#include "tick_clock.hpp"

#include <encore/tracing/agents.hpp>
#include <encore/tracing/detail/core.hpp>  // guarded_read_string: -1 for an unreadable pointer
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <pthread.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#    include <x86intrin.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <typeinfo>
#include <vector>

namespace encore::trace {
namespace {

constexpr std::size_t max_string = 256;      // bytes kept of a string argument
constexpr std::size_t max_strings = 4;       // string arguments kept per call
constexpr std::size_t max_formatted = 2048;  // bytes of --args-depth text per call

// What the tool knows of one operation of a traced API kind, from libencore at start.
struct op_layout {
    std::uint16_t args_size = 0;  // captured argument bytes, rounded up to 8
    std::uint8_t strings = 0;     // string arguments
    bool invalidates = false;     // frees or destroys what its arguments point at: format at ENTER
    std::array<std::uint8_t, max_strings> string_index{};
    std::array<std::uint16_t, max_strings> string_offset{};  // from the start of the arguments
};

struct api_kind {
    // Learned at the kind's first record, not at the tool's start: a backend library may load
    // after the tool (libencore-cuda when the program first touches CUDA), and its operations are
    // known only once it registered them. `learned` is stored (release) after the tables below are
    // written and loaded (acquire) before every record reads them; `learning` serializes the
    // first records of several threads. (std::call_once sets two thread_locals on every call.)
    std::atomic<bool> learned{false};
    std::mutex learning;
    rocprofiler_callback_tracing_kind_t kind{};
    std::int64_t first_op = 0;
    std::uint32_t args_offset = 0, retval_offset = 0, retval_size = 0;
    std::vector<op_layout> ops;
};

int g_args_depth = 0;

// Writes a record the converter looks up by id later (names, agents, kernel symbols). A fork
// child does not write them again: the converter takes them from its parent's folder (the child
// has no lock to take safely at fork, and the parent's are a copy of what it knew).
void write_record(std::uint16_t type, const std::vector<std::byte>& body) {
    append(type, body.data(), static_cast<std::uint32_t>(body.size()));
}

// rocprofiler_get_timestamp's clock (CLOCK_BOOTTIME, as the reference's and every record of
// encore's), read here without the call through libencore: two of these are most of what a
// traced call costs the program.
std::uint64_t now_ns() noexcept {
    timespec t{};
    ::clock_gettime(CLOCK_BOOTTIME, &t);
    return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(t.tv_nsec);
}

// ---- the API-call records' clock (tick_clock.hpp) -----------------------------------------------
// With g_tsc the calls are stamped with the time-stamp counter (9-10 ns a read here, against 23-25
// for clock_gettime) and each thread leaves pairs for the converter's mapping; without it, ticks
// are now_ns(). Set once in initialize, before the first record.
bool g_tsc = false;

std::uint64_t now_ticks() noexcept {
#if defined(__x86_64__)
    if (g_tsc) return __rdtsc();
#endif
    return now_ns();
}

// The counter and the clock read together: the counter before and after the clock, the pair at
// the midpoint, the ticks between the two reads its width. A read that was interrupted (wide) is
// taken again, up to eight times, keeping the narrowest; the converter leaves out one that stayed
// wide.
rec::clock_sync_body read_pair() noexcept {
    rec::clock_sync_body best;
#if defined(__x86_64__)
    if (g_tsc) {
        std::uint64_t width = UINT64_MAX;
        for (int i = 0; i < 8 && width > 2048; ++i) {
            const std::uint64_t a = __rdtsc();
            const std::uint64_t ns = now_ns();
            const std::uint64_t b = __rdtsc();
            if (b >= a && b - a < width) {
                width = b - a;
                best.ticks = a + (b - a) / 2;
                best.ns = ns;
            }
        }
        if (width != UINT64_MAX) {
            best.width = static_cast<std::uint32_t>(std::min<std::uint64_t>(width, UINT32_MAX));
            return best;
        }
    }
#endif
    best.ns = now_ns();
    best.ticks = best.ns;
    return best;
}

// The kernel keeps time with the counter only after finding it invariant and in step across CPUs:
// its clocksource being "tsc" is the test the tool takes. ENCORE_TRACE_CLOCK=boottime turns it off.
bool tsc_usable() {
#if defined(__x86_64__)
    if (const char* c = std::getenv("ENCORE_TRACE_CLOCK"); c != nullptr && *c != '\0') {
        if (std::strcmp(c, "boottime") == 0) return false;
        if (std::strcmp(c, "auto") != 0)
            std::fprintf(stderr, "[encore-trace] ENCORE_TRACE_CLOCK=%s: not boottime or auto; taken as auto\n", c);
    }
    std::FILE* f = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f == nullptr) return false;
    char name[32] = {};
    const bool read = std::fgets(name, sizeof name, f) != nullptr;
    std::fclose(f);
    return read && std::strcmp(name, "tsc\n") == 0;
#else
    return false;
#endif
}

// Per thread: when the next pair is due (0: before the thread's next call) and the interval,
// which doubles from 2^16 ticks to 2^25 so that a call is never far past a pair (tick_clock.hpp).
// Initial-exec, as the record file's own thread-locals: no allocation on a thread's first call.
__attribute__((tls_model("initial-exec"))) thread_local std::uint64_t t_sync_at = 0;
__attribute__((tls_model("initial-exec"))) thread_local std::uint64_t t_sync_gap = 0;
constexpr std::uint64_t first_sync_gap = 1ull << 16, last_sync_gap = 1ull << 25;

void sync_clock() noexcept {
    const rec::clock_sync_body pair = read_pair();
    append(rec::clock_sync, &pair, sizeof(pair));
    t_sync_gap = t_sync_gap == 0 ? first_sync_gap : std::min(2 * t_sync_gap, last_sync_gap);
    t_sync_at = pair.ticks + t_sync_gap;
}

inline void maybe_sync_clock(std::uint64_t ticks) noexcept {
    if (g_tsc && ticks >= t_sync_at) [[unlikely]]
        sync_clock();
}

void write_hello() noexcept {
    rec::hello_body h;
    h.args_depth = static_cast<std::uint32_t>(g_args_depth);
    h.pid = static_cast<std::uint64_t>(::getpid());
    h.ppid = static_cast<std::uint64_t>(::getppid());
    const rec::clock_sync_body pair = read_pair();
    h.start_ns = pair.ns;
    h.start_ticks = pair.ticks;
    h.start_width = pair.width;
    h.clock = g_tsc ? clock_tsc : clock_boottime;
    append(rec::hello, &h, sizeof(h));
}

// ---- when the tracing context runs: --selected-regions and -P --------------------------------
// The tracing context is on while both gates are open: the region gate (--selected-regions:
// between the program's roctxProfilerResume and roctxProfilerPause; open without the option) and
// the period gate (-P: around each collection period; open without it). Calls go to the contexts
// that were on when they began (a context stopped between ENTER and EXIT still gets the EXIT:
// docs/tracing.md). The converter still keeps exactly what started inside the periods: the tool
// only records less outside them.
rocprofiler_context_id_t g_traced{};
std::mutex g_gate_mutex;
bool g_region_open = true, g_period_open = true, g_context_on = false;  // under g_gate_mutex
bool g_period_gated = false;  // -P given: a thread opens and closes the period gate (set at start)

// Sets one gate and starts or stops the tracing context to match both; false when that failed.
bool set_gate(bool& gate, bool open) noexcept {
    std::lock_guard lk(g_gate_mutex);
    gate = open;
    const bool on = g_region_open && g_period_open;
    if (on == g_context_on) return true;
    const rocprofiler_status_t r = on ? rocprofiler_start_context(g_traced) : rocprofiler_stop_context(g_traced);
    if (r == ROCPROFILER_STATUS_SUCCESS) g_context_on = on;
    return r == ROCPROFILER_STATUS_SUCCESS;
}

// --selected-regions (rocprofv3's): whatever thread calls them, and whatever their argument
// (rocprofv3 too traces the whole process). Resume opens the gate as the call returns and Pause
// closes it as the call begins, so with markers traced the Pause is a region's last call and the
// Resume is not in it. Unpaired calls change nothing.
void on_control(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t*, void*) noexcept {
    if (r->operation == ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerResume &&
        r->phase == ROCPROFILER_CALLBACK_PHASE_EXIT)
        set_gate(g_region_open, true);
    else if (r->operation == ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause &&
             r->phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
        set_gate(g_region_open, false);
}

// -P: the period gate opens `margin` before each collection period and closes at its end. A
// kernel enqueued before its period began may run inside it (queued behind others): the margin,
// 1 s or the delay if shorter, catches those; the converter drops what the margin let in. With a
// delay of 1 s or less the gate stays open through the repeats.
constexpr std::uint64_t period_margin_ns = 1'000'000'000;

std::uint64_t saturated_add(std::uint64_t a, std::uint64_t b) noexcept {
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

void sleep_until(std::uint64_t boottime_ns) noexcept {
    timespec t{};
    t.tv_sec = static_cast<time_t>(std::min<std::uint64_t>(boottime_ns / 1000000000u, INT64_MAX / 2));
    t.tv_nsec = static_cast<long>(boottime_ns % 1000000000u);
    while (::clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &t, nullptr) == EINTR) {
    }
}

// Whether the period gate is open at `t`: in [begin - margin, end) of a cycle (the margin, at
// most the delay, is shorter than a cycle: t + margin lands in the cycle's span or in the next).
bool period_open_at(const collection_period& c, std::uint64_t origin, std::uint64_t t) noexcept {
    const std::uint64_t margin = std::min(c.delay_ns, period_margin_ns);
    return in_collection_period(c, origin, t) || in_collection_period(c, origin, saturated_add(t, margin));
}

void run_period_gate(collection_period c, std::uint64_t origin) noexcept {
    const std::uint64_t cycle = saturated_add(c.delay_ns, c.length_ns);
    const std::uint64_t all_cycles =  // the end of the last repeat
        c.repeat == 0 ? UINT64_MAX : saturated_add(origin, c.repeat > UINT64_MAX / cycle ? UINT64_MAX : c.repeat * cycle);
    if (c.delay_ns <= period_margin_ns) {
        // The margin is the delay: each cycle's gate opens where the last one's closed, so it is
        // open from the process's start (start_period_gate opened it) to the last repeat's end.
        if (all_cycles == UINT64_MAX) return;
        sleep_until(all_cycles);
        set_gate(g_period_open, false);
        return;
    }
    const std::uint64_t now = now_ns();
    // From the cycle now is in (the tool may start late: HIP's runtime loads it at first use).
    for (std::uint64_t k = now > origin ? (now - origin) / cycle : 0; c.repeat == 0 || k < c.repeat; ++k) {
        const std::uint64_t begin = saturated_add(saturated_add(origin, k * cycle), c.delay_ns);
        if (begin == UINT64_MAX) return;  // not in this process's life
        sleep_until(begin - period_margin_ns);
        set_gate(g_period_open, true);
        sleep_until(saturated_add(begin, c.length_ns));
        set_gate(g_period_open, false);
    }
}

// Reads -P from encore-trace (ENCORE_TRACE_COLLECTION_PERIOD[_UNIT], checked by it before the
// program started), sets the period gate for now and starts its thread. False: no -P.
bool start_period_gate() {
    const char* text = std::getenv("ENCORE_TRACE_COLLECTION_PERIOD");
    if (text == nullptr || *text == '\0') return false;
    const char* unit = std::getenv("ENCORE_TRACE_COLLECTION_PERIOD_UNIT");
    const auto c = parse_collection_period(text, unit != nullptr && *unit != '\0' ? unit : "sec");
    const std::uint64_t origin = process_start_boottime_ns();
    if (!c || origin == 0) {
        std::fprintf(stderr,
                     "[encore-trace] collection period %s: %s; recording everything (the outputs keep the period)\n",
                     text, !c ? "not understood" : "no process start time");
        return false;
    }
    g_period_open = period_open_at(*c, origin, now_ns());
    g_period_gated = true;
    try {
        std::thread(&run_period_gate, *c, origin).detach();
    } catch (...) {
        std::fprintf(stderr, "[encore-trace] cannot start the collection period's thread; recording everything\n");
        g_period_open = true;
    }
    return true;
}

// The child of a fork (without exec) records into a folder of its own from its first record
// on: its hello names its pid and parent, and the converter gives it its parent's names, agents
// and kernel symbols. Async-signal-safe (append is), as a fork child handler must be.
void reset_left_out() noexcept;
void on_fork_child() {
    write_hello();
    t_sync_at = t_sync_gap = 0;  // the child's folder needs pairs of its own, from its next call
    reset_left_out();            // the parent's count is in the parent's goodbye
    if (g_period_gated) {
        // The period's thread stayed in the parent: the child records from here on, and its
        // outputs keep the periods. Its only thread may have forked while that thread held the
        // gate's lock: a new one.
        new (&g_gate_mutex) std::mutex();
        set_gate(g_period_open, true);
    }
}

// ---- API calls ----------------------------------------------------------------------------------

bool name_frees(std::string_view n) {
    // The operations whose arguments are dead at EXIT: they free, destroy or release them.
    static constexpr std::string_view words[] = {"destroy", "Destroy", "free",   "Free",      "release",
                                                 "Release", "unload",  "Unload", "shut_down", "Unregister"};
    return std::any_of(std::begin(words), std::end(words), [&](std::string_view w) { return n.find(w) != n.npos; });
}

// Learns a kind's operations from libencore: names (written as a `names` record), each
// operation's argument bytes (encore_query_operation_payload_layout) and which arguments are C
// strings (argument iteration over a zeroed payload at depth 0: addresses and type names only).
void learn_kind(api_kind* k) {
    const rocprofiler_callback_tracing_kind_t kind = k->kind;
    std::vector<const char*> names;
    // Operation ids are contiguous from the first (0 for every kind encore has); the names query
    // answers OPERATION_NOT_FOUND past the last.
    std::int64_t first = -1;
    for (std::int64_t op = 0; op < 4096; ++op) {
        const char* n = nullptr;
        const auto st = rocprofiler_query_callback_tracing_kind_operation_name(
            kind, static_cast<rocprofiler_tracing_operation_t>(op), &n, nullptr);
        if (st == ROCPROFILER_STATUS_SUCCESS) {
            if (first < 0) first = op;
            names.push_back(n != nullptr ? n : "?");
        } else if (first >= 0 || st == ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED) {
            break;
        }
    }
    if (first < 0) first = 0;
    k->first_op = first;
    k->ops.resize(names.size());
    std::vector<std::byte> zero;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto op = static_cast<rocprofiler_tracing_operation_t>(first + static_cast<std::int64_t>(i));
        encore_operation_payload_layout_t l{};
        l.size = sizeof(l);
        if (encore_query_operation_payload_layout(kind, op, &l) != ROCPROFILER_STATUS_SUCCESS) continue;
        k->args_offset = static_cast<std::uint32_t>(l.args_offset);
        k->retval_offset = static_cast<std::uint32_t>(l.retval_offset);
        k->retval_size = static_cast<std::uint32_t>(l.retval_size);
        op_layout& o = k->ops[i];
        o.args_size = static_cast<std::uint16_t>(rec::round8(static_cast<std::uint32_t>(l.args_size)));
        if (o.args_size + l.args_offset > l.payload_size) o.args_size = 0;  // never read past the payload
        o.invalidates = name_frees(names[i]);
        zero.assign(l.payload_size, std::byte{0});
        const std::uint64_t size = l.payload_size;
        std::memcpy(zero.data(), &size, sizeof(size));
        rocprofiler_callback_tracing_record_t r{};
        r.kind = kind;
        r.operation = op;
        r.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
        r.payload = zero.data();
        struct probe {
            op_layout* o;
            const std::byte* args;
        } p{&o, zero.data() + l.args_offset};
        rocprofiler_iterate_callback_tracing_kind_operation_args(
            r,
            [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const addr,
               int32_t, const char* type, const char*, const char*, int32_t, void* data) {
                auto* pr = static_cast<probe*>(data);
                // Argument types come as typeid(T).name() (as the reference's do): "PKc", "Pc".
                const std::string_view t = type != nullptr ? type : "";
                if ((t == typeid(const char*).name() || t == typeid(char*).name()) && pr->o->strings < max_strings &&
                    n < 256) {
                    pr->o->string_index[pr->o->strings] = static_cast<std::uint8_t>(n);
                    pr->o->string_offset[pr->o->strings] = static_cast<std::uint16_t>(
                        static_cast<const std::byte*>(addr) - pr->args);
                    ++pr->o->strings;
                }
                return 0;
            },
            0, &p);
    }
    // The names record: the kind's name, then each operation's.
    const char* kind_name = nullptr;
    rocprofiler_query_callback_tracing_kind_name(kind, &kind_name, nullptr);
    std::string text = kind_name != nullptr ? kind_name : "?";
    text += '\0';
    for (const char* n : names) {
        text += n;
        text += '\0';
    }
    rec::names_body nb;
    nb.kind = static_cast<std::uint32_t>(kind);
    nb.op_count = static_cast<std::uint32_t>(names.size());
    nb.first_op = first;
    nb.bytes = static_cast<std::uint32_t>(text.size());
    std::vector<std::byte> body(sizeof(nb) + text.size());
    std::memcpy(body.data(), &nb, sizeof(nb));
    std::memcpy(body.data() + sizeof(nb), text.data(), text.size());
    write_record(rec::names, body);
}

void learn_once(api_kind* k) noexcept {
    try {
        std::lock_guard lk(k->learning);
        if (k->learned.load(std::memory_order_relaxed)) return;
        try {
            learn_kind(k);
        } catch (...) {
            // Out of memory while learning: the kind's calls record without their arguments (the
            // tables stay as far as they got; each op's entry is whole or zero).
        }
        // Under the lock: a thread that waited for it must find the kind learned, not learn it
        // again while the first one already reads the tables (ThreadSanitizer saw that race on
        // two threads' first calls of a kind, and the names record was written twice).
        k->learned.store(true, std::memory_order_release);
    } catch (...) {
        k->learned.store(true, std::memory_order_release);  // the lock itself failed: no tables
    }
}

api_kind* new_kind(rocprofiler_callback_tracing_kind_t kind) {
    auto* k = new api_kind;
    k->kind = kind;
    return k;
}

// --args-depth: the arguments formatted at the call into `out` ("name=value\n" each), bounded.
std::size_t format_args(const rocprofiler_callback_tracing_record_t& r, char* out, std::size_t cap, bool& cut) {
    struct sink {
        char* out;
        std::size_t cap, used;
        bool cut;
    } s{out, cap, 0, false};
    rocprofiler_iterate_callback_tracing_kind_operation_args(
        r,
        [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const, int32_t,
           const char*, const char* name, const char* value, int32_t, void* data) {
            auto* k = static_cast<sink*>(data);
            const int n = std::snprintf(k->out + k->used, k->cap - k->used, "%s=%s\n", name, value);
            if (n < 0 || static_cast<std::size_t>(n) >= k->cap - k->used) {
                k->cut = true;
                return 1;
            }
            k->used += static_cast<std::size_t>(n);
            return 0;
        },
        g_args_depth, &s);
    cut = s.cut;
    return s.used;
}

// The text a formatted-at-ENTER call carries to its EXIT: one per thread (calls nest, but only
// the innermost of a thread is between its ENTER and EXIT at a time for the operations that
// invalidate; a nested one overwrites and the outer prints its EXIT formatting instead).
struct entered_text {
    std::uint64_t correlation = 0;
    std::uint16_t size = 0;
    bool cut = false;
    char text[max_formatted];
};
// Per thread through a key, not thread_local storage: the record file's hot state is
// initial-exec TLS, which a dlopen'ed library may use only while its whole TLS block fits the
// small static surplus glibc keeps (2 KB here would not).
pthread_key_t g_entered_key;
entered_text* entered() noexcept {
    auto* e = static_cast<entered_text*>(::pthread_getspecific(g_entered_key));
    if (e == nullptr) {
        e = static_cast<entered_text*>(std::calloc(1, sizeof(entered_text)));
        if (e != nullptr) ::pthread_setspecific(g_entered_key, e);
    }
    return e;
}

void on_api(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t* ud, void* data) noexcept {
    auto* k = static_cast<api_kind*>(data);
    if (!k->learned.load(std::memory_order_acquire)) [[unlikely]]
        learn_once(k);
    if (r->phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud->value = now_ticks();
        if (g_args_depth > 0) {
            const auto i = static_cast<std::size_t>(r->operation - k->first_op);
            if (i < k->ops.size() && k->ops[i].invalidates) {
                if (entered_text* e = entered()) {
                    bool cut = false;
                    e->size = static_cast<std::uint16_t>(format_args(*r, e->text, sizeof e->text, cut));
                    e->cut = cut;
                    e->correlation = r->correlation_id.internal;
                }
            }
        }
        return;
    }
    // An OMPT callback (phase NONE) is an instant; anything else but EXIT is not a call's end.
    const bool instant = r->phase == ROCPROFILER_CALLBACK_PHASE_NONE;
    if (!instant && r->phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    const std::uint64_t end = now_ticks();
    maybe_sync_clock(end);  // before the record: the converter maps it with the pairs before it
    const auto i = static_cast<std::size_t>(r->operation - k->first_op);
    const op_layout none{};
    const op_layout& o = i < k->ops.size() ? k->ops[i] : none;
    const auto* payload = static_cast<const std::byte*>(r->payload);

    // Text after the arguments: the string arguments, or the formatted arguments.
    char text[max_formatted];
    std::size_t text_size = 0;
    bool cut = false;
    std::uint8_t text_kind = rec::text_strings;
    if (g_args_depth > 0) {
        text_kind = rec::text_formatted;
        entered_text* e = o.invalidates ? entered() : nullptr;
        if (e != nullptr && e->correlation == r->correlation_id.internal && e->size != 0) {
            text_size = e->size;
            std::memcpy(text, e->text, text_size);
            cut = e->cut;
            e->size = 0;
        } else {
            text_size = format_args(*r, text, sizeof text, cut);
        }
    } else {
        for (std::size_t s = 0; s < o.strings && payload != nullptr; ++s) {
            const char* str = nullptr;
            std::memcpy(&str, payload + k->args_offset + o.string_offset[s], sizeof(str));
            if (str == nullptr) continue;
            bool truncated = false;
            char* at = text + text_size;
            const long n = encore::tracing::detail::guarded_read_string(at + 1, str, max_string, truncated);
            if (n < 0) continue;  // unreadable: the converter prints the address
            at[0] = static_cast<char>(o.string_index[s]);
            at[1 + n] = '\0';
            text_size += 2 + static_cast<std::size_t>(n);
            cut = cut || truncated;
        }
    }

    const std::uint32_t args = payload != nullptr ? o.args_size : 0;
    const auto n = static_cast<std::uint32_t>(sizeof(rec::api_call_body) + args + text_size);
    auto* p = static_cast<std::byte*>(reserve(n));
    if (p == nullptr) return;  // dropped and counted by the record file
    rec::api_call_body b;
    b.correlation_id = r->correlation_id.internal;
    b.start_ns = instant ? end : ud->value;
    b.end_ns = end;
    if (payload != nullptr && k->retval_size != 0)
        std::memcpy(&b.retval, payload + k->retval_offset, std::min<std::size_t>(8, k->retval_size));
    b.kind = static_cast<std::uint32_t>(r->kind);
    b.operation = static_cast<std::int32_t>(r->operation);
    b.args_size = static_cast<std::uint16_t>(args);
    b.text_size = static_cast<std::uint16_t>(text_size);
    b.phase = static_cast<std::uint8_t>(r->phase);
    b.text_kind = text_kind;
    b.truncated = cut ? 1 : 0;
    std::memcpy(p, &b, sizeof(b));
    if (args != 0) std::memcpy(p + sizeof(b), payload + k->args_offset, args);
    if (text_size != 0) std::memcpy(p + sizeof(b) + args, text, text_size);
    commit(p, rec::api_call);
}

// ---- events -------------------------------------------------------------------------------------

void on_dispatch(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t*, void*) noexcept {
    if (r->operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r->payload);
    const auto& i = p->dispatch_info;
    rec::dispatch_body b;
    b.correlation_id = r->correlation_id.internal;
    b.thread_id = r->thread_id;
    b.start_ns = p->start_timestamp;
    b.end_ns = p->end_timestamp;
    b.agent = i.agent_id.handle;
    b.queue = i.queue_id.handle;
    b.kernel_id = i.kernel_id;
    b.dispatch_id = i.dispatch_id;
    b.private_segment_size = i.private_segment_size;
    b.group_segment_size = i.group_segment_size;
    b.workgroup[0] = i.workgroup_size.x, b.workgroup[1] = i.workgroup_size.y, b.workgroup[2] = i.workgroup_size.z;
    b.grid[0] = i.grid_size.x, b.grid[1] = i.grid_size.y, b.grid[2] = i.grid_size.z;
    append(rec::dispatch, &b, sizeof(b));
}

void on_copy(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t*, void*) noexcept {
    if (r->phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_memory_copy_data_t*>(r->payload);
    rec::memory_copy_body b;
    b.correlation_id = r->correlation_id.internal;
    b.thread_id = r->thread_id;
    b.start_ns = p->start_timestamp;
    b.end_ns = p->end_timestamp;
    b.src_agent = p->src_agent_id.handle;
    b.dst_agent = p->dst_agent_id.handle;
    b.src_address = p->src_address.value;
    b.dst_address = p->dst_address.value;
    b.bytes = p->bytes;
    b.operation = static_cast<std::int32_t>(r->operation);
    append(rec::memory_copy, &b, sizeof(b));
}

void on_allocation(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t*, void*) noexcept {
    if (r->phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_memory_allocation_data_t*>(r->payload);
    rec::allocation_body b;
    b.correlation_id = r->correlation_id.internal;
    b.thread_id = r->thread_id;
    b.start_ns = p->start_timestamp;
    b.end_ns = p->end_timestamp;
    b.agent = p->agent_id.handle;
    b.address = p->address.value;
    b.bytes = p->allocation_size;
    b.operation = static_cast<std::int32_t>(r->operation);
    append(rec::allocation, &b, sizeof(b));
}

// ---- kernel filters at record time ----------------------------------------------------------------
// --kernel-include-regex / --kernel-exclude-regex: a kernel's verdict is computed once, when its
// symbol registers (its demangled name, as the converter matches it), and a dispatch of a kernel
// left out is not recorded. Only a filtered run configures on_dispatch_filtered: an unfiltered
// run's dispatch path is on_dispatch, unchanged. A kernel the tool has no verdict for (registered
// before the tool started, an id past the table) is recorded, and the converter filters it.
enum verdict : std::uint8_t { unknown = 0, kept = 1, left_out = 2 };
constexpr std::size_t max_verdicts = 1 << 16;  // kernel ids are small, sequential (HSA: code_object.cpp)
// Relaxed: a verdict is the whole message; a dispatch that reads `unknown` before its symbol's
// store is recorded, and filtered at conversion.
std::array<std::atomic<std::uint8_t>, max_verdicts> g_verdicts{};
std::optional<std::regex> g_kernel_include, g_kernel_exclude;
std::atomic<std::uint64_t> g_left_out{0};  // written in the goodbye record; read once, at finalize
void reset_left_out() noexcept { g_left_out.store(0, std::memory_order_relaxed); }

void judge_kernel(std::uint64_t kernel_id, const char* name) noexcept {
    if ((!g_kernel_include && !g_kernel_exclude) || kernel_id >= max_verdicts) return;
    try {
        const std::string shown = demangled(name);
        const bool keep = (!g_kernel_include || std::regex_search(shown, *g_kernel_include)) &&
                          (!g_kernel_exclude || !std::regex_search(shown, *g_kernel_exclude));
        g_verdicts[kernel_id].store(keep ? kept : left_out, std::memory_order_relaxed);
    } catch (...) {
        // Out of memory, or a regex too complex for this name: recorded, filtered at conversion.
    }
}

void on_dispatch_filtered(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t* u,
                          void* data) noexcept {
    if (r->operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    const auto id =
        static_cast<const rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r->payload)->dispatch_info.kernel_id;
    if (id < max_verdicts && g_verdicts[id].load(std::memory_order_relaxed) == left_out) {
        g_left_out.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    on_dispatch(r, u, data);
}

// The filters from the environment; a regular expression that does not compile (encore-trace
// checks them before the program starts) is said once and left to the converter.
void read_kernel_filters() {
    for (auto [var, re] : {std::pair{"ENCORE_TRACE_KERNEL_INCLUDE", &g_kernel_include},
                           std::pair{"ENCORE_TRACE_KERNEL_EXCLUDE", &g_kernel_exclude}}) {
        const char* v = std::getenv(var);
        if (v == nullptr || *v == '\0') continue;
        try {
            re->emplace(v);
        } catch (const std::regex_error& e) {
            std::fprintf(stderr, "[encore-trace] %s=%s: not a regular expression (%s): filtered at conversion only\n",
                         var, v, e.what());
        }
    }
}

// Kernel names: a symbol registers before any dispatch of it (rare: kept for fork children too).
void on_code_object(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t*, void*) noexcept {
    if (r->operation != ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER ||
        r->phase != ROCPROFILER_CALLBACK_PHASE_LOAD)
        return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(r->payload);
    const char* name = p->kernel_name != nullptr ? p->kernel_name : "";
    const std::size_t len = ::strnlen(name, 4096);
    judge_kernel(p->kernel_id, name);
    rec::kernel_symbol_body b;
    b.kernel_id = p->kernel_id;
    b.code_object_id = p->code_object_id;
    b.private_segment_size = p->private_segment_size;
    b.group_segment_size = p->group_segment_size;
    b.name_size = static_cast<std::uint32_t>(len + 1);
    try {
        std::vector<std::byte> body(sizeof(b) + len + 1);
        std::memcpy(body.data(), &b, sizeof(b));
        std::memcpy(body.data() + sizeof(b), name, len);
        write_record(rec::kernel_symbol, body);
    } catch (...) {
        // Out of memory: the kernel's dispatches convert as "kernel <id>".
    }
}

void write_agents() {
    for (const rocprofiler_agent_v0_t& agent : encore::agents()) {
        const rocprofiler_agent_v0_t* a = &agent;
        const std::size_t len = a->name != nullptr ? std::strlen(a->name) : 0;
        rec::agent_body b;
        b.handle = a->id.handle;
        b.type = static_cast<std::int32_t>(a->type);
        b.logical_index = static_cast<std::int32_t>(a->logical_node_id);
        b.type_index = static_cast<std::int32_t>(a->logical_node_type_id);
        b.name_size = static_cast<std::uint32_t>(len + 1);
        std::vector<std::byte> body(sizeof(b) + len + 1);
        std::memcpy(body.data(), &b, sizeof(b));
        if (len != 0) std::memcpy(body.data() + sizeof(b), a->name, len);
        write_record(rec::agent, body);
    }
}

// ---- set-up -------------------------------------------------------------------------------------

bool selected(std::string_view list, std::string_view what) {
    while (!list.empty()) {
        const auto comma = list.find(',');
        if (list.substr(0, comma) == what) return true;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return false;
}

int initialize(rocprofiler_client_finalize_t, void*) {
    const char* root = std::getenv("ENCORE_TRACE_RECORDS");
    if (root == nullptr || *root == '\0') {
        std::fprintf(stderr, "[encore-trace] ENCORE_TRACE_RECORDS is not set: not tracing (run under encore-trace)\n");
        return 1;
    }
    writer_options options;
    if (const char* g = std::getenv("ENCORE_TRACE_GROW_AHEAD"); g != nullptr && std::strcmp(g, "0") == 0)
        options.grow_ahead = false;
    if (!open_process(root, options)) {
        std::fprintf(stderr, "[encore-trace] cannot record into %s: %s (not tracing)\n", root, last_error());
        return 1;
    }
    if (const char* d = std::getenv("ENCORE_TRACE_ARGS_DEPTH"); d != nullptr) g_args_depth = std::max(0, std::atoi(d));
    if (g_args_depth > 0 && ::pthread_key_create(&g_entered_key, &std::free) != 0) g_args_depth = 0;
    const char* dom = std::getenv("ENCORE_TRACE_DOMAINS");
    const std::string_view domains = dom != nullptr && *dom != '\0' ? dom : "hsa";
    g_tsc = tsc_usable();
    write_hello();

    // With a gate (--selected-regions, -P) the control context, created first so that its
    // callbacks come before the tracing context's, is always on: it takes the code objects'
    // records (a kernel's name is learned when its code object loads, mostly before the first
    // region or period) and, for --selected-regions, roctx's Resume/Pause.
    const char* sel = std::getenv("ENCORE_TRACE_SELECTED_REGIONS");
    const bool regions = sel != nullptr && sel[0] == '1' && sel[1] == '\0';
    const char* period = std::getenv("ENCORE_TRACE_COLLECTION_PERIOD");
    const bool gated = regions || (period != nullptr && *period != '\0');
    rocprofiler_context_id_t control{};
    if (gated && rocprofiler_create_context(&control) != ROCPROFILER_STATUS_SUCCESS) return 1;
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    g_traced = ctx;
    struct group {
        const char* name;
        std::vector<rocprofiler_callback_tracing_kind_t> kinds;
    };
    const group groups[] = {
        {"hsa",
         {ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API,
          ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API, ROCPROFILER_CALLBACK_TRACING_HSA_FINALIZE_EXT_API}},
        {"hip", {ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API}},
        {"cuda", {ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API}},
        {"marker",
         {ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API,
          ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API}},
        {"ompt", {ROCPROFILER_CALLBACK_TRACING_OMPT}},
        {"rccl", {ROCPROFILER_CALLBACK_TRACING_RCCL_API}},
    };
    int failed = 0;
    for (const group& g : groups) {
        if (!selected(domains, g.name)) continue;
        for (auto kind : g.kinds) {
            api_kind* k = new_kind(kind);  // lives as the service's callback data
            if (encore_configure_callback_tracing_service_ptr(ctx, kind, nullptr, 0, &on_api, k) !=
                ROCPROFILER_STATUS_SUCCESS)
                ++failed;
        }
    }
    const auto event = [&](const char* name, rocprofiler_callback_tracing_kind_t kind,
                           encore_callback_tracing_ptr_cb_t cb, rocprofiler_context_id_t in) {
        if (!selected(domains, name)) return;
        if (encore_configure_callback_tracing_service_ptr(in, kind, nullptr, 0, cb, nullptr) != ROCPROFILER_STATUS_SUCCESS)
            ++failed;
    };
    read_kernel_filters();
    event("kernel", ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
          g_kernel_include || g_kernel_exclude ? &on_dispatch_filtered : &on_dispatch, ctx);
    event("kernel", ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, &on_code_object, gated ? control : ctx);
    event("memory_copy", ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, &on_copy, ctx);
    event("memory_allocation", ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, &on_allocation, ctx);
    if (regions) {
        const rocprofiler_tracing_operation_t ops[] = {ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause,
                                                       ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerResume};
        if (encore_configure_callback_tracing_service_ptr(control, ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API, ops,
                                                          2, &on_control, nullptr) != ROCPROFILER_STATUS_SUCCESS)
            ++failed;
    }
    // The operations' names of the event kinds (libencore's own), for the converter.
    for (auto kind : {ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION}) {
        api_kind k;  // only its names record is wanted: no callback refers to it
        k.kind = kind;
        learn_once(&k);
    }
    write_agents();
    if (failed != 0) std::fprintf(stderr, "[encore-trace] %d tracing services could not be configured\n", failed);
    // The gates: with --selected-regions the tracing context waits for the program's first Resume;
    // with -P, for its period.
    g_region_open = !regions;  // before the control context can see a Resume
    if (gated && rocprofiler_start_context(control) != ROCPROFILER_STATUS_SUCCESS) return 1;
    start_period_gate();
    if (!set_gate(g_region_open, !regions)) return 1;  // the tracing context would not start
    ::pthread_atfork(nullptr, nullptr, &on_fork_child);
    return 0;
}

void finalize(void*) {
    if (g_tsc) sync_clock();  // the last pair: the mapping interpolates up to the end
    rec::goodbye_body g;
    g.end_ns = now_ns();
    g.filtered = g_left_out.load(std::memory_order_relaxed);
    append(rec::goodbye, &g, sizeof(g));
    close_process();
}

}  // namespace
}  // namespace encore::trace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "encore-trace";
    static rocprofiler_tool_configure_result_t result{sizeof(result), &encore::trace::initialize,
                                                      &encore::trace::finalize, nullptr};
    return &result;
}
