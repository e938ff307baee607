// src/core/range_replay.cpp — see range_replay.hpp. The order a range meets the rules: begin
// (CONFIG), the backend's recording of pass 0, end (passes, CLOSE).
#include "range_replay.hpp"

#include "registry.hpp"
#include "replay.hpp"
#include "replay_flow.hpp"
#include "warn.hpp"

#include <encore/tracing/tool.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace encore::core::range_replay {
namespace {

using tracing::detail::subscribers;

constexpr auto range_kind = static_cast<std::size_t>(kind::range_replay);

struct range_state {
    std::uint64_t id = 0;
    unsigned ctx = 0;
    unsigned ops = 0;  // bit op: the replay context selected it (read once, at begin)
    rocprofiler_thread_id_t tid = 0;
    rocprofiler_correlation_id_t correlation{};
    rocprofiler_user_data_t ud{};  // what CONFIG ENTER left
    decltype(rocprofiler_callback_tracing_range_replay_data_t::pass_count_cb) pass_count = nullptr;
    decltype(rocprofiler_callback_tracing_range_replay_data_t::replay_continue_cb) cont = nullptr;
    std::uint64_t passes = 1;  // the tool's count (0: indefinite)
    bool verify = false;
    // Guarded by g_mutex: other threads decline it (decline_agent, decline_all).
    rocprofiler_range_replay_status_t status = ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED;
    const char* reason = nullptr;
    std::uint64_t agent = 0;  // bound at the first dispatch (attach)
    std::unique_ptr<recording> rec;
};

std::mutex g_mutex;
std::vector<range_state*> g_open;  // guarded by g_mutex
// Ranges open in the process: incremented after g_open grows, decremented after it shrinks (both
// under g_mutex); read relaxed by the backend's hot path, which then takes g_mutex to act.
std::atomic<int> g_open_count{0};
std::atomic<bool> g_backend{false};

// The calling thread's open range. A thread that ends with its range open drops it (said once):
// the holder takes it out of the registry first, so no other thread declines a freed range.
struct range_holder {
    std::unique_ptr<range_state> r;
    range_state* operator->() const noexcept { return r.get(); }
    explicit operator bool() const noexcept { return r != nullptr; }
    range_state* get() const noexcept { return r.get(); }
    ~range_holder();
};
thread_local range_holder t_range;
// Inside a RANGE_REPLAY callback of this thread: begin/end there are refused (CONTEXT_ERROR).
thread_local bool t_busy = false;

void emit(const range_state& r, rocprofiler_range_replay_operation_t op, rocprofiler_callback_phase_t phase,
          rocprofiler_callback_tracing_range_replay_data_t& p, rocprofiler_user_data_t& ud) noexcept {
    if (((r.ops >> op) & 1u) == 0) return;
    const auto& slot = tracing::detail::slots[range_kind][r.ctx];
    if (!slot.set()) return;
    // A tool disabled during the range (a callback that threw) hears nothing more of it: the
    // slot stays set, its context does not stay valid.
    const context* c = find_context(rocprofiler_context_id_t{r.ctx});
    if (c == nullptr || !c->valid.load(std::memory_order_relaxed)) return;  // invalidate_client_contexts stores it
    t_busy = true;
    slot.call(rocprofiler_callback_tracing_record_t{rocprofiler_context_id_t{r.ctx}, r.tid, r.correlation,
                                                    ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY, op, phase, &p},
              &ud);
    t_busy = false;
}

rocprofiler_callback_tracing_range_replay_data_t payload_of(const range_state& r) noexcept {
    rocprofiler_callback_tracing_range_replay_data_t p{};
    p.size = sizeof(p);
    p.range_id = r.id;
    p.total_passes = r.passes;
    p.agent_id.handle = r.agent;
    p.dispatch_count = r.rec ? r.rec->dispatch_count() : 0;
    return p;
}

void warn_reason(const char* why) noexcept {
    if (first_time(why)) warn("range replay: %s", why);
}

// Caller holds g_mutex.
void decline_locked(range_state& r, const decline_reason& d) noexcept {
    if (r.status != ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED) return;
    r.status = d.status;
    r.reason = d.why;
}

// The kernel replay rule: never run a pass, or let the program go on, on partly restored memory.
void restored_or_abort(bool ok, const range_state& r, std::uint64_t pass) noexcept {
    if (ok) return;
    std::fprintf(stderr,
                 "[encore] range replay: restoring device memory failed part-way before pass %llu of range %llu; "
                 "aborting\n",
                 static_cast<unsigned long long>(pass), static_cast<unsigned long long>(r.id));
    std::abort();
}

// One range's passes under flow::run_passes (replay_flow.hpp): its PASS records and its
// recording's steps. Pass 0 was the application's own run, so every pass starts from a restore.
struct range_flow {
    using payload = rocprofiler_callback_tracing_range_replay_data_t;
    using reason = const decline_reason*;
    static constexpr auto kind = static_cast<std::uint32_t>(range_kind);
    static constexpr auto pass_op = ROCPROFILER_RANGE_REPLAY_PASS;
    static constexpr auto start_field = &payload::replay_local_start_context_cb;
    static constexpr auto stop_field = &payload::replay_local_stop_context_cb;
    static constexpr auto continue_field = &payload::replay_continue_cb;

    range_state& r;
    unsigned ctx;
    decltype(range_state::cont) cont;
    std::uint64_t first_pass = 1;
    std::uint64_t passes;  // the tool's count (0: until replay_continue_cb returns 0)
    std::uint64_t cap;

    void memory_back(std::uint64_t pass) const noexcept { restored_or_abort(r.rec->restore_start(), r, pass); }
    payload pass_payload(std::uint64_t pass) const noexcept {
        payload p = payload_of(r);
        p.current_pass = pass;
        if (r.verify) p.divergence_count = r.rec->diverging_from_start();
        return p;
    }
    rocprofiler_user_data_t user_data() const noexcept { return r.ud; }
    void deliver(rocprofiler_range_replay_operation_t op, rocprofiler_callback_phase_t phase, payload& p,
                 rocprofiler_user_data_t& ud) const noexcept {
        emit(r, op, phase, p, ud);
    }
    reason run_pass(std::uint64_t pass, std::uint64_t contexts) const noexcept {
        return r.rec->run_pass(pass, contexts);
    }
    static void on_pass_exit(payload& p) noexcept { p.divergence_count = 0; }
    void stuck(reason d) const noexcept {
        warn_reason(d->why);
        // Passes ran: the range still counts as replayed, but the reason is reported.
        r.reason = d->why;
    }
    void capped() const noexcept {
        char key[64];
        std::snprintf(key, sizeof key, "range replay cap %llu", static_cast<unsigned long long>(r.id));
        if (first_time(key))
            warn("range replay: range %llu stopped at the pass cap, %llu passes (ENCORE_REPLAY_MAX_PASSES)",
                 static_cast<unsigned long long>(r.id), static_cast<unsigned long long>(cap));
    }
    int ask(decltype(range_state::cont) c, std::uint64_t pass, rocprofiler_user_data_t ud) const {
        return c(r.id, pass, passes, ud);
    }
    static void between(std::uint64_t) noexcept {}
};

range_holder::~range_holder() {
    if (!r) return;
    {
        std::lock_guard lk(g_mutex);
        g_open.erase(std::find(g_open.begin(), g_open.end(), r.get()));
        g_open_count.fetch_sub(1, std::memory_order_relaxed);
    }
    warn_reason("a thread ended with a range open: the range is dropped (no passes, no CLOSE)");
    r.reset();
}

}  // namespace

bool service_configured() noexcept { return kind_configured(kind::range_replay); }
void backend_available() noexcept { g_backend.store(true, std::memory_order_release); }
bool any_open() noexcept { return g_open_count.load(std::memory_order_relaxed) != 0; }
bool closing_here() noexcept { return replay::flow::t_loop<range_flow> != nullptr; }

bool recording_here() noexcept {
    if (!t_range || t_busy) return false;
    std::lock_guard lk(g_mutex);
    return t_range->status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED;
}

bool open_here() noexcept { return t_range && !t_busy; }

recording* current() noexcept { return t_range ? t_range->rec.get() : nullptr; }

const decline_reason* start(recording& r) noexcept { return r.start(replay::current_options(r.default_policy())); }

void attach(std::unique_ptr<recording> r) noexcept {
    if (!t_range) return;
    std::lock_guard lk(g_mutex);
    t_range->agent = r->agent();
    t_range->rec = std::move(r);
}

void decline(const decline_reason& d) noexcept {
    if (!t_range) return;
    warn_reason(d.why);
    std::lock_guard lk(g_mutex);
    decline_locked(*t_range.get(), d);
}

bool with_range_on(std::uint64_t agent, const decline_reason* (*f)(recording&, void*), void* data) noexcept {
    std::lock_guard lk(g_mutex);
    range_state* found = nullptr;
    for (range_state* r : g_open)
        if (r != t_range.get() && r->agent == agent && r->rec && r->status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED) {
            if (found != nullptr) return false;  // two threads' ranges on the agent: neither is joined
            found = r;
        }
    if (found == nullptr) return false;
    if (const decline_reason* d = f(*found->rec, data); d != nullptr) {
        decline_locked(*found, *d);
        if (first_time(d->why)) warn("range replay: %s", d->why);
    }
    return true;
}

void decline_agent(std::uint64_t agent, const decline_reason& d) noexcept {
    std::lock_guard lk(g_mutex);
    for (range_state* r : g_open)
        // Bound ranges only: an agent id may be 0 (CUDA's device 0), as an unbound range's is.
        if (r != t_range.get() && r->rec && r->agent == agent && r->status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED) {
            decline_locked(*r, d);
            if (first_time(d.why)) warn("range replay: %s", d.why);
        }
}

void decline_all(const decline_reason& d) noexcept {
    std::lock_guard lk(g_mutex);
    for (range_state* r : g_open)
        if (r->status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED) {
            decline_locked(*r, d);
            if (first_time(d.why)) warn("range replay: %s", d.why);
        }
}

void drop_recordings(const decline_reason& d) noexcept {
    std::vector<std::unique_ptr<recording>> gone;
    {
        std::lock_guard lk(g_mutex);
        for (range_state* r : g_open) {
            if (!r->rec) continue;
            if (r->status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED) {
                decline_locked(*r, d);
                if (first_time(d.why)) warn("range replay: %s", d.why);
            }
            try {
                gone.push_back(std::move(r->rec));
            } catch (...) {
                r->rec->finish();  // no room to defer it: finished here, destroyed below
                r->rec.reset();
            }
        }
    }
    // Outside the lock: finishing releases the agent's gate and what the recording held, which
    // may call back into range replay.
    for (auto& rec : gone) rec->finish();
}

rocprofiler_status_t begin(std::uint64_t id) noexcept {
    if (!service_configured()) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    std::uint64_t mask = 0;
    for (unsigned op = ROCPROFILER_RANGE_REPLAY_CONFIG; op < ROCPROFILER_RANGE_REPLAY_LAST; ++op)
        mask |= subscribers[range_kind][op].load(std::memory_order_acquire);
    if (mask == 0) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED;
    if (t_busy) return ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;
    if (!g_backend.load(std::memory_order_acquire)) {
        static warn_once no_backend;
        no_backend("range replay: no loaded backend records ranges (libencore-hsa and libencore-cuda do): "
                   "rocprofiler_range_replay_begin returns NOT_IMPLEMENTED");
        return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    }
    if (t_range) {
        decline({ENCORE_RANGE_REPLAY_STATUS_NESTED_RANGE,
                 "rocprofiler_range_replay_begin while a range is open on the thread (ranges do not nest): the open "
                 "range is not replayed"});
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    }
    auto r = std::make_unique<range_state>();
    auto* t = tracing::detail::this_thread();
    r->id = id;
    r->ctx = static_cast<unsigned>(__builtin_ctzll(mask));  // one context has the service
    for (unsigned op = ROCPROFILER_RANGE_REPLAY_CONFIG; op < ROCPROFILER_RANGE_REPLAY_LAST; ++op)
        if ((subscribers[range_kind][op].load(std::memory_order_acquire) >> r->ctx) & 1u) r->ops |= 1u << op;
    r->tid = t->tid;
    // Every record of the range carries the begin call's own correlation id.
    r->correlation = {tracing::detail::next_id(t), {.value = t->top[r->ctx].load(std::memory_order_relaxed)}, 0};
    const char* v = std::getenv("ENCORE_REPLAY_VERIFY");
    r->verify = v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;

    auto p = payload_of(*r);
    p.total_passes = 0;
    rocprofiler_user_data_t ud{};
    emit(*r, ROCPROFILER_RANGE_REPLAY_CONFIG, ROCPROFILER_CALLBACK_PHASE_ENTER, p, ud);
    r->ud = ud;
    r->pass_count = p.pass_count_cb;
    r->cont = p.replay_continue_cb;
    std::uint64_t n = 1;
    if (r->pass_count != nullptr)
        n = replay::tool_answer(r->ctx, static_cast<std::uint32_t>(range_kind), std::uint64_t{1},
                                [&] { return r->pass_count(id, r->ud); });
    if (n == 0 && r->cont == nullptr) {
        warn_reason("a pass count of 0 without replay_continue_cb: the range is not replayed");
        n = 1;
    }
    r->passes = n;
    if (n == 1) r->status = ROCPROFILER_RANGE_REPLAY_STATUS_NO_PASS_COUNT;
    p.total_passes = n;
    rocprofiler_user_data_t ud_exit = r->ud;
    emit(*r, ROCPROFILER_RANGE_REPLAY_CONFIG, ROCPROFILER_CALLBACK_PHASE_EXIT, p, ud_exit);
    {
        std::lock_guard lk(g_mutex);
        g_open.push_back(r.get());
        g_open_count.fetch_add(1, std::memory_order_relaxed);
    }
    t_range.r = std::move(r);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t end() noexcept {
    if (t_busy) return ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;
    if (!t_range) {
        warn_reason("rocprofiler_range_replay_end without an open range on the thread: ignored (INVALID_ARGUMENT)");
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    }
    std::unique_ptr<range_state> r = std::move(t_range.r);
    {
        std::lock_guard lk(g_mutex);
        g_open.erase(std::find(g_open.begin(), g_open.end(), r.get()));
        g_open_count.fetch_sub(1, std::memory_order_relaxed);
    }
    // No other thread reaches `r` now: its status is final but for what happens here.
    if (r->status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED && !r->rec)
        decline_locked(*r, {ROCPROFILER_RANGE_REPLAY_STATUS_NO_DISPATCH, "a range with no dispatch is not replayed"});
    if (r->status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED)
        if (const decline_reason* d = r->rec->prepare(); d != nullptr) {
            warn_reason(d->why);
            decline_locked(*r, *d);
        }
    std::uint64_t passes_run = 1, divergence = 0;
    if (r->status == ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED) {
        range_flow f{*r, r->ctx, r->cont, 1, r->passes, core::replay::pass_cap()};
        passes_run = replay::flow::run_passes(f);
        if (r->verify) divergence = r->rec->diverging_from_final();
        restored_or_abort(r->rec->restore_final(), *r, passes_run);
    }
    auto p = payload_of(*r);
    p.status = r->status;
    p.divergence_count = divergence;
    p.passes_run = passes_run;
    p.snapshot_bytes = r->rec ? r->rec->snapshot_bytes() : 0;
    p.decline_reason = r->reason;
    rocprofiler_user_data_t ud = r->ud;
    emit(*r, ROCPROFILER_RANGE_REPLAY_CLOSE, ROCPROFILER_CALLBACK_PHASE_ENTER, p, ud);
    ud = r->ud;
    emit(*r, ROCPROFILER_RANGE_REPLAY_CLOSE, ROCPROFILER_CALLBACK_PHASE_EXIT, p, ud);
    if (r->rec) r->rec->finish();
    return ROCPROFILER_STATUS_SUCCESS;
}

}  // namespace encore::core::range_replay

extern "C" {

ROCPROFILER_API rocprofiler_status_t rocprofiler_range_replay_begin(uint64_t range_id) {
    return encore::core::range_replay::begin(range_id);
}

ROCPROFILER_API rocprofiler_status_t rocprofiler_range_replay_end(void) { return encore::core::range_replay::end(); }
}
