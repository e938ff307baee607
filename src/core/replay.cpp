// src/core/replay.cpp — see replay.hpp. The seed's rules, in the order a dispatch meets them.
#include "replay.hpp"

#include "clock.hpp"
#include "registry.hpp"
#include "replay_flow.hpp"
#include "warn.hpp"

#include <encore/tracing/tool.hpp>

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace encore::core::replay {
namespace {

using tracing::detail::subscribers;

constexpr auto replay_kind = static_cast<std::size_t>(kind::kernel_replay);

// Bounds of the options (kernel_replay.h): a chunk is at most 1 GiB (rounding it up to pages
// then cannot wrap), a wait at most a day (so milliseconds -> ns cannot overflow).
constexpr std::uint64_t max_chunk_size = std::uint64_t{1} << 30;
constexpr std::uint64_t max_wait_timeout_ns = 86'400'000ull * 1'000'000;

// The most passes one dispatch is replayed (ENCORE_REPLAY_MAX_PASSES): a pass count of 2^64-1 or a
// replay_continue that never returns 0 would otherwise hold the program on its first replayed
// dispatch forever. 10000 is far above what replay is for (a pass per counter group, tens of
// timing repeats, a sweep of a few hundred) and still ends: a small kernel's pass and restore take
// tens of microseconds on the software runtime, a GPU's a few milliseconds at 64 MiB (the
// reference's measured ~3 ms per pass), so the cap is reached in seconds to about a minute.
constexpr std::uint64_t default_max_passes = 10'000;
// A replay that runs longer than this prints a progress line, then again every such interval
// (ENCORE_REPLAY_PROGRESS_MS): checked between passes, one clock read each.
constexpr std::uint64_t default_progress_ms = 10'000;

// Options a tool set (guarded by g_options_mutex; written during configuration only).
std::mutex g_options_mutex;
bool g_options_set = false;
encore_kernel_replay_options_t g_options{};

// Ignores a bad variable with a message once per distinct setting (options are read per
// replayed dispatch).
void ignore_env(const char* name, const char* value, const char* why) noexcept {
    char key[256];
    std::snprintf(key, sizeof key, "replay env %s=%s", name, value);
    if (first_time(key)) warn("ignoring %s=%s (%s)", name, value, why);
}

// A decimal (or 0x hexadecimal) number in [0, max] (0: the default, as in the C options);
// anything else, a sign or space included, is ignored with a message and `fallback` kept. Leading
// zeros are decimal ("010" is 10, not octal 8: nobody means octal in a timeout).
std::uint64_t env_u64(const char* name, std::uint64_t fallback, std::uint64_t max, const char* range) noexcept {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return fallback;
    const bool hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    const char* digits = hex ? v + 2 : v;
    // strtoull itself would skip spaces and take a sign: the first character must be a digit.
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(*digits)) : std::isdigit(static_cast<unsigned char>(*digits)))) {
        ignore_env(name, v, range);
        return fallback;
    }
    char* end = nullptr;
    errno = 0;
    const unsigned long long x = std::strtoull(digits, &end, hex ? 16 : 10);
    if (*end != '\0' || errno == ERANGE || x > max) {
        ignore_env(name, v, range);
        return fallback;
    }
    return x;
}

// The pass cap in effect (read per replayed dispatch, as the other variables are).
std::uint64_t max_passes() noexcept {
    const std::uint64_t v = env_u64("ENCORE_REPLAY_MAX_PASSES", default_max_passes, UINT64_MAX,
                                    "a number of passes, at least 2");
    if (v == 1) {
        ignore_env("ENCORE_REPLAY_MAX_PASSES", std::getenv("ENCORE_REPLAY_MAX_PASSES"), "a number of passes, at least 2");
        return default_max_passes;
    }
    return v == 0 ? default_max_passes : v;
}

// Delivers one KERNEL_REPLAY record to the replay context, if it selected `op`. Which operations
// it gets is read once, at CONFIG ENTER: a context stopped during the sequence still gets the rest
// of it (every ENTER its EXIT), like a dispatch's COMPLETE after its ENQUEUE.
struct deliverer {
    unsigned ctx;
    rocprofiler_thread_id_t tid;
    rocprofiler_correlation_id_t correlation;
    unsigned ops = 0;  // bit op: the context selected operation op

    void operator()(rocprofiler_kernel_replay_operation_t op, rocprofiler_callback_phase_t phase,
                    rocprofiler_callback_tracing_kernel_replay_data_t& payload, rocprofiler_user_data_t& ud) const {
        if (((ops >> op) & 1u) == 0) return;
        const auto& slot = tracing::detail::slots[replay_kind][ctx];
        if (!slot.set()) return;
        slot.call(rocprofiler_callback_tracing_record_t{rocprofiler_context_id_t{ctx}, tid, correlation,
                                                        ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, op, phase, &payload},
                  &ud);
    }
};

// One replayed dispatch under flow::run_passes (replay_flow.hpp): its KERNEL_REPLAY records and
// its backend's steps. Made after CONFIG ENTER, which gave it the continue callback.
struct kernel_flow {
    using payload = rocprofiler_callback_tracing_kernel_replay_data_t;
    using reason = const char*;
    static constexpr auto kind = static_cast<std::uint32_t>(replay_kind);
    static constexpr auto pass_op = ROCPROFILER_KERNEL_REPLAY_PASS;
    static constexpr auto start_field = &payload::replay_start_context;
    static constexpr auto stop_field = &payload::replay_stop_context;
    static constexpr auto continue_field = &payload::replay_continue;

    const rocprofiler_kernel_dispatch_info_t& info;
    dispatch_backend& backend;
    const deliverer& to;
    rocprofiler_user_data_t ud_config;  // what CONFIG ENTER left: seeds every later record's
    rocprofiler_kernel_replay_continue_cb_t cont;
    unsigned ctx;
    std::uint64_t first_pass = 0;
    std::uint64_t passes = 1;  // at most the cap; 0: until replay_continue returns 0
    std::uint64_t cap = 0;
    const char* declined = nullptr;  // CONFIG EXIT's decline_reason
    std::uint64_t progress_ms = 0, started = 0, next_progress = 0;

    // SNAPSHOT and RESTORE: ENTER, the backend's step timed, its memory figures, EXIT.
    template <class Step>
    void memory_phase(rocprofiler_kernel_replay_operation_t op, std::uint64_t pass, Step step) const {
        payload p{};
        p.size = sizeof(p);
        p.dispatch_info = info;
        if (op == ROCPROFILER_KERNEL_REPLAY_RESTORE) {
            p.current_pass = pass;  // the pass the restore prepares
            p.total_passes = passes;
        }
        rocprofiler_user_data_t ud = ud_config;
        to(op, ROCPROFILER_CALLBACK_PHASE_ENTER, p, ud);
        memory_stats st;
        p.start_timestamp = core::now_ns();
        step(st, p);
        p.end_timestamp = core::now_ns();
        p.bytes = st.bytes;
        p.regions = st.regions;
        p.bytes_copied = st.copied == memory_stats::not_counted ? st.bytes : st.copied;
        to(op, ROCPROFILER_CALLBACK_PHASE_EXIT, p, ud);
    }

    void memory_back(std::uint64_t pass) const {
        if (pass == first_pass) return;  // the snapshot was just taken
        memory_phase(ROCPROFILER_KERNEL_REPLAY_RESTORE, pass, [&](memory_stats& st, payload&) {
            if (backend.restore(st, pass, passes)) return;
            // The seed's rule: never continue with partially restored memory.
            std::fprintf(stderr,
                         "[encore] kernel replay: restoring device memory failed part-way before pass %llu of "
                         "dispatch %llu; aborting (continuing would run the kernel on corrupted inputs)\n",
                         static_cast<unsigned long long>(pass), static_cast<unsigned long long>(info.dispatch_id));
            std::abort();
        });
    }
    payload pass_payload(std::uint64_t pass) const noexcept {
        payload p{};
        p.size = sizeof(p);
        p.dispatch_info = info;
        p.current_pass = pass;
        p.total_passes = passes;
        return p;
    }
    rocprofiler_user_data_t user_data() const noexcept { return ud_config; }
    void deliver(rocprofiler_kernel_replay_operation_t op, rocprofiler_callback_phase_t phase, payload& p,
                 rocprofiler_user_data_t& ud) const {
        to(op, phase, p, ud);
    }
    reason run_pass(std::uint64_t pass, std::uint64_t contexts) const noexcept {
        return backend.run_pass(pass, contexts);
    }
    static void on_pass_exit(payload&) noexcept {}
    void stuck(reason why) noexcept {
        declined = why;
        warn_once(why);
    }
    void capped() const noexcept {
        // Only an indefinite loop gets here (a fixed count was cut to the cap before the loop).
        char key[64];
        std::snprintf(key, sizeof key, "replay cap kernel %llu", static_cast<unsigned long long>(info.kernel_id));
        if (first_time(key))
            warn("kernel replay: dispatch %llu (kernel id %llu): replay_continue did not return 0 within "
                 "%llu passes, the cap; the loop stops there (ENCORE_REPLAY_MAX_PASSES sets the cap; said "
                 "once per kernel)",
                 static_cast<unsigned long long>(info.dispatch_id), static_cast<unsigned long long>(info.kernel_id),
                 static_cast<unsigned long long>(cap));
    }
    int ask(rocprofiler_kernel_replay_continue_cb_t c, std::uint64_t pass, rocprofiler_user_data_t ud) const {
        return c(info, pass, passes, ud);
    }
    void between(std::uint64_t pass) noexcept {
        const std::uint64_t now = core::now_ns();
        if (now < next_progress) return;
        if (passes != 0)
            warn("kernel replay: dispatch %llu (kernel id %llu): pass %llu of %llu done, %.1f s",
                 static_cast<unsigned long long>(info.dispatch_id), static_cast<unsigned long long>(info.kernel_id),
                 static_cast<unsigned long long>(pass + 1), static_cast<unsigned long long>(passes),
                 static_cast<double>(now - started) / 1e9);
        else
            warn("kernel replay: dispatch %llu (kernel id %llu): pass %llu done (until replay_continue "
                 "returns 0, at most %llu), %.1f s",
                 static_cast<unsigned long long>(info.dispatch_id), static_cast<unsigned long long>(info.kernel_id),
                 static_cast<unsigned long long>(pass + 1), static_cast<unsigned long long>(cap),
                 static_cast<double>(now - started) / 1e9);
        next_progress = now + progress_ms * 1'000'000;
    }
};

}  // namespace

options current_options(encore_replay_snapshot_policy_t backend_default) noexcept {
    options o{backend_default, 4096, 0, 60'000'000'000ull};
    {
        std::lock_guard lk(g_options_mutex);
        if (g_options_set) {
            if (g_options.policy != ENCORE_REPLAY_SNAPSHOT_DEFAULT) o.policy = g_options.policy;
            if (g_options.chunk_size != 0) o.chunk_size = g_options.chunk_size;
            if (g_options.memory_budget != 0) o.memory_budget = g_options.memory_budget;
            if (g_options.wait_timeout_ns != 0) o.wait_timeout_ns = g_options.wait_timeout_ns;
        }
    }
    if (const char* p = std::getenv("ENCORE_REPLAY_POLICY"); p != nullptr && *p != '\0') {
        if (std::strcmp(p, "full_copy") == 0)
            o.policy = ENCORE_REPLAY_SNAPSHOT_FULL_COPY;
        else if (std::strcmp(p, "changed_chunks") == 0)
            o.policy = ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS;
        else
            ignore_env("ENCORE_REPLAY_POLICY", p, "full_copy or changed_chunks");
    }
    o.chunk_size = env_u64("ENCORE_REPLAY_CHUNK_SIZE", o.chunk_size, max_chunk_size, "a number of bytes, at most 2^30");
    o.memory_budget = env_u64("ENCORE_REPLAY_MEMORY_BUDGET", o.memory_budget, UINT64_MAX, "a number of bytes");
    o.wait_timeout_ns = env_u64("ENCORE_REPLAY_TIMEOUT_MS", o.wait_timeout_ns / 1'000'000,
                                max_wait_timeout_ns / 1'000'000, "milliseconds, at most 86400000") *
                        1'000'000;
    // Chunks are whole pages (write tracking works on pages), at least one.
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    if (o.chunk_size < page) o.chunk_size = page;
    o.chunk_size = (o.chunk_size + page - 1) / page * page;
    o.memory_budget_chosen = o.memory_budget != 0;
    if (o.memory_budget == 0) {
        const long pages = ::sysconf(_SC_PHYS_PAGES);
        std::uint64_t ram = pages > 0 ? static_cast<std::uint64_t>(pages) * page : (16ull << 30);
        // The tests' stand-in for a machine whose RAM is smaller than a snapshot.
        ram = env_u64("ENCORE_REPLAY_TEST_PHYS_BYTES", ram, UINT64_MAX, "a number of bytes");
        o.memory_budget = ram / 2;
    }
    if (o.wait_timeout_ns == 0) o.wait_timeout_ns = 60'000'000'000ull;
    return o;
}

bool service_configured() noexcept { return kind_configured(kind::kernel_replay); }

bool service_active() noexcept {
    // The subscriber mask, relaxed: a hint (replay_dispatch loads it with acquire).
    return subscribers[replay_kind][ROCPROFILER_KERNEL_REPLAY_CONFIG].load(std::memory_order_relaxed) != 0;
}

bool in_replay() noexcept { return flow::t_loop<kernel_flow> != nullptr; }

std::uint64_t pass_cap() noexcept { return max_passes(); }

void warn_once(const char* what) noexcept {
    if (first_time(what)) warn("kernel replay: %s", what);
}

void replay_dispatch(const rocprofiler_kernel_dispatch_info_t& info, dispatch_backend& backend) noexcept {
    const std::uint64_t mask = subscribers[replay_kind][ROCPROFILER_KERNEL_REPLAY_CONFIG].load(std::memory_order_acquire);
    if (mask == 0 || in_replay()) {
        backend.run_once();
        return;
    }
    auto* t = tracing::detail::this_thread();
    const auto ctx = static_cast<unsigned>(__builtin_ctzll(mask));  // one context has the service
    // The submitting API call (e.g. the doorbell store) is the correlation of every record of
    // the sequence; every pass shares it.
    const std::uint64_t internal = t->current != 0 ? t->current : tracing::detail::next_id(t);
    deliverer deliver{ctx, t->tid,
                      rocprofiler_correlation_id_t{internal, {.value = t->top[ctx].load(std::memory_order_relaxed)}, 0}};
    for (unsigned op = ROCPROFILER_KERNEL_REPLAY_CONFIG; op < ROCPROFILER_KERNEL_REPLAY_LAST; ++op)
        if ((subscribers[replay_kind][op].load(std::memory_order_acquire) >> ctx) & 1u) deliver.ops |= 1u << op;

    rocprofiler_callback_tracing_kernel_replay_data_t p{};
    p.size = sizeof(p);
    p.dispatch_info = info;
    rocprofiler_user_data_t ud{};
    deliver(ROCPROFILER_KERNEL_REPLAY_CONFIG, ROCPROFILER_CALLBACK_PHASE_ENTER, p, ud);
    // What CONFIG ENTER left seeds everything that follows.
    kernel_flow f{info, backend, deliver, ud, p.replay_continue, ctx};
    const auto pass_count = p.replay_pass_count;

    std::uint64_t n = 1;
    bool replay = false;
    if (pass_count != nullptr) {
        // A throwing pass count: the dispatch runs once.
        n = tool_answer(ctx, static_cast<std::uint32_t>(replay_kind), std::uint64_t{1},
                        [&] { return pass_count(info, f.ud_config); });
        if (n == 0 && f.cont == nullptr) {
            f.declined = "pass count 0 (indefinite) without replay_continue: the dispatch runs once";
            warn_once(f.declined);
            n = 1;
        } else {
            replay = n != 1;
        }
    }

    std::uint64_t passes_run = 1;
    bool acquired = false;
    if (replay) {
        // Read here, not per dispatch: most dispatches are never replayed.
        if (const char* why = backend.acquire(current_options(backend.default_policy())); why != nullptr) {
            f.declined = why;
            warn_once(why);
        } else {
            acquired = true;
            const char* why_snap = nullptr;
            f.memory_phase(ROCPROFILER_KERNEL_REPLAY_SNAPSHOT, 0, [&](memory_stats& st, kernel_flow::payload& s) {
                s.decline_reason = why_snap = backend.snapshot(st);
            });
            if (why_snap != nullptr) {
                f.declined = why_snap;
                warn_once(why_snap);
                acquired = false;  // snapshot() released the agent
            }
        }
        replay = f.declined == nullptr;
    }

    if (!replay) {
        if (acquired) backend.finish();
        backend.run_once();
    } else {
        // The cap: a fixed count above it runs `cap` passes; an indefinite loop stops after `cap`
        // passes. Either way the loop ends like a fixed one (no continue or restore after the last
        // pass), so the program's memory is what one run leaves. total_passes says what runs.
        f.cap = max_passes();
        if (n > f.cap) {
            char key[64];
            std::snprintf(key, sizeof key, "replay cap kernel %llu", static_cast<unsigned long long>(info.kernel_id));
            if (first_time(key))
                warn("kernel replay: dispatch %llu (kernel id %llu) asked for %llu passes, more than the cap: at most "
                     "%llu are run (ENCORE_REPLAY_MAX_PASSES sets the cap; said once per kernel)",
                     static_cast<unsigned long long>(info.dispatch_id), static_cast<unsigned long long>(info.kernel_id),
                     static_cast<unsigned long long>(n), static_cast<unsigned long long>(f.cap));
            n = f.cap;
        }
        f.passes = n;
        f.progress_ms = env_u64("ENCORE_REPLAY_PROGRESS_MS", default_progress_ms, max_wait_timeout_ns / 1'000'000,
                                "milliseconds, at most 86400000");
        if (f.progress_ms == 0) f.progress_ms = default_progress_ms;
        f.started = core::now_ns();
        f.next_progress = f.started + f.progress_ms * 1'000'000;
        passes_run = flow::run_passes(f);
    }

    p.current_pass = 0;
    p.total_passes = replay ? n : 1;
    p.passes_run = passes_run;
    p.decline_reason = f.declined;
    rocprofiler_user_data_t ud_exit = f.ud_config;
    deliver(ROCPROFILER_KERNEL_REPLAY_CONFIG, ROCPROFILER_CALLBACK_PHASE_EXIT, p, ud_exit);
    if (replay) backend.finish();
}

bool checksum(std::uint64_t& out) noexcept {
    const flow::loop<kernel_flow>* l = flow::t_loop<kernel_flow>;
    if (l == nullptr || !l->armed) return false;
    return l->flow->backend.checksum(out);
}

rocprofiler_status_t configure_options(rocprofiler_context_id_t id, const encore_kernel_replay_options_t* o) noexcept {
    if (o == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (!configuration_open()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    context* c = find_context(id);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (!c->services[replay_kind].configured) return ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;
    // The size first: a smaller struct ends before the fields read below (they may be unmapped).
    if (o->size < sizeof(encore_kernel_replay_options_t)) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    // A C caller can put any integer in the enum field: read it as one.
    std::underlying_type_t<encore_replay_snapshot_policy_t> policy = 0;
    std::memcpy(&policy, &o->policy, sizeof(policy));
    if (policy < ENCORE_REPLAY_SNAPSHOT_DEFAULT || policy >= ENCORE_REPLAY_SNAPSHOT_LAST ||
        o->chunk_size > max_chunk_size || o->wait_timeout_ns > max_wait_timeout_ns)
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard lk(g_options_mutex);
    g_options = *o;
    g_options_set = true;
    return ROCPROFILER_STATUS_SUCCESS;
}

void reset_for_testing() noexcept {
    std::lock_guard lk(g_options_mutex);
    g_options = {};
    g_options_set = false;
}

}  // namespace encore::core::replay

extern "C" {

ROCPROFILER_API rocprofiler_status_t encore_configure_kernel_replay_options(
    rocprofiler_context_id_t context_id, const encore_kernel_replay_options_t* options) {
    return encore::core::replay::configure_options(context_id, options);
}

ROCPROFILER_API rocprofiler_status_t encore_kernel_replay_checksum(uint64_t* checksum) {
    if (checksum == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    return encore::core::replay::checksum(*checksum) ? ROCPROFILER_STATUS_SUCCESS
                                                     : ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;
}
}
