// Signals: registry, value operations, blocking waits, async handlers, signal groups.
#include "sim_internal.hpp"

#include <algorithm>
#include <functional>

namespace encore::sim {

std::atomic<uint32_t> g_any_epoch{0};
std::atomic<uint32_t> g_any_waiters{0};

namespace {
// The async handler thread sleeps on its own epoch, bumped by changes of watched signals,
// registrations and shutdown; the futex is woken only while it sleeps. (It used to wait on the
// global "any signal changed" epoch: every doorbell and every signal in the process then cost a
// futex wake and a spurious wake-up of the thread once any handler had been registered.)
std::atomic<uint32_t> g_async_epoch{0};
std::atomic<uint32_t> g_async_sleepers{0};

void wake_async() {
    g_async_epoch.fetch_add(1, std::memory_order_seq_cst);
    if (g_async_sleepers.load(std::memory_order_seq_cst) != 0) futex_wake_all(&g_async_epoch);
}
}  // namespace

void wake_any_waiters() {
    g_any_epoch.fetch_add(1, std::memory_order_seq_cst);
    futex_wake_all(&g_any_epoch);
}

namespace {

auto& g_sig_mu = leaky<std::shared_mutex>();
auto& g_signals = leaky<std::unordered_map<uint64_t, SignalRef>>();

// ---- async handler thread -------------------------------------------------------------------
struct AsyncEntry {
    uint64_t id;
    SignalRef sig;
    hsa_signal_condition_t cond;
    hsa_signal_value_t value;
    hsa_amd_signal_handler handler;
    void* arg;
};

struct AsyncState {
    std::mutex mu;
    std::vector<AsyncEntry> entries;
    std::vector<std::pair<void (*)(void*), void*>> functions;
    uint64_t next_id = 1;
    std::atomic<bool> stop{false};
    std::thread thread;
    bool started = false;
};
AsyncState* g_async = nullptr;
auto& g_async_start_mu = leaky<std::mutex>();

void async_loop(AsyncState* st) {
    uint64_t last_fired = 0;  // when a pass last ran a handler (0: not since the last sleep)
    uint32_t polls = 0;
    for (;;) {
        const uint32_t epoch = g_async_epoch.load(std::memory_order_seq_cst);
        if (st->stop.load(std::memory_order_seq_cst)) return;
        // Take the entries out instead of copying them: with many handlers pending (one per
        // in-flight dispatch under a tracer) a copy per wake-up made this loop quadratic. Handlers
        // registered meanwhile (also from inside a handler) land in st->entries and are merged.
        std::vector<AsyncEntry> work;
        std::vector<std::pair<void (*)(void*), void*>> fns;
        {
            std::lock_guard<std::mutex> lk(st->mu);
            work.swap(st->entries);
            fns.swap(st->functions);
        }
        bool fired = !fns.empty();
        for (auto& f : fns) f.first(f.second);
        std::size_t kept = 0;
        for (auto& e : work) {
            if (e.sig->dead.load(std::memory_order_acquire)) {
                e.sig->async_watchers.fetch_sub(1, std::memory_order_seq_cst);
                continue;
            }
            const int64_t v = e.sig->value.load(std::memory_order_seq_cst);
            if (signal_condition_met(v, e.cond, e.value)) {
                fired = true;
                if (!e.handler(v, e.arg)) {
                    e.sig->async_watchers.fetch_sub(1, std::memory_order_seq_cst);
                    continue;
                }
            }
            if (&work[kept] != &e) work[kept] = std::move(e);
            ++kept;
        }
        work.resize(kept);
        if (!work.empty()) {
            std::lock_guard<std::mutex> lk(st->mu);
            for (auto& e : st->entries) work.push_back(std::move(e));
            st->entries.swap(work);
        }
        if (fired) {
            last_fired = now_ticks();
            continue;
        }
        // Like ROCr's event thread (Signal::WaitAny polls 200 us before it blocks), poll briefly
        // before sleeping, but only in a stream: a handler ran lately and handlers are still
        // registered (one that re-registers for the next completion would otherwise sleep and be
        // woken, two context switches, for each). Otherwise not: on few cores a spinning thread
        // delays the ones it waits for. Yielding: the packet processors may share the core.
        if (kept > 0 && last_fired != 0 && now_ticks() - last_fired < 20'000) {
            for (int i = 0; i < 64; ++i) cpu_relax();
            if ((++polls & 15) == 0) std::this_thread::yield();
            continue;
        }
        last_fired = 0;
        {
            // A watched signal changed after its check above bumped the epoch: either seen here or
            // by the futex (pairs with wake_async).
            g_async_sleepers.fetch_add(1, std::memory_order_seq_cst);
            if (g_async_epoch.load(std::memory_order_seq_cst) == epoch) futex_wait(&g_async_epoch, epoch, 200'000'000);
            g_async_sleepers.fetch_sub(1, std::memory_order_seq_cst);
        }
    }
}

AsyncState* async_state() {
    std::lock_guard<std::mutex> lk(g_async_start_mu);
    if (!g_async) return nullptr;
    if (!g_async->started) {
        g_async->started = true;
        g_async->thread = std::thread(async_loop, g_async);
    }
    return g_async;
}

}  // namespace

void signals_startup() {
    std::lock_guard<std::mutex> lk(g_async_start_mu);
    g_async = new AsyncState();
}

namespace {
void groups_clear();
}

void signals_shutdown() {
    groups_clear();
    AsyncState* st;
    {
        std::lock_guard<std::mutex> lk(g_async_start_mu);
        st = g_async;
        g_async = nullptr;
    }
    if (st) {
        st->stop.store(true, std::memory_order_seq_cst);
        wake_async();
        if (st->thread.joinable()) st->thread.join();
        delete st;
    }
    std::unique_lock<std::shared_mutex> lk(g_sig_mu);
    for (auto& [h, s] : g_signals) s->dead.store(true);
    g_signals.clear();
}

SignalRef signal_lookup(hsa_signal_t s) {
    if (s.handle == 0) return nullptr;
    std::shared_lock<std::shared_mutex> lk(g_sig_mu);
    auto it = g_signals.find(s.handle);
    return it == g_signals.end() ? nullptr : it->second;
}

hsa_signal_t signal_create_internal(int64_t initial, SignalRef* out) {
    auto s = std::make_shared<Signal>();
    s->value.store(initial, std::memory_order_relaxed);
    s->handle = next_handle();
    {
        std::unique_lock<std::shared_mutex> lk(g_sig_mu);
        g_signals.emplace(s->handle, s);
    }
    if (out) *out = s;
    return hsa_signal_t{s->handle};
}

void signal_destroy_internal(hsa_signal_t h) {
    SignalRef s;
    {
        std::unique_lock<std::shared_mutex> lk(g_sig_mu);
        auto it = g_signals.find(h.handle);
        if (it == g_signals.end()) return;
        s = it->second;
        g_signals.erase(it);
    }
    s->dead.store(true, std::memory_order_release);
    s->epoch.fetch_add(1, std::memory_order_seq_cst);
    futex_wake_all(&s->epoch);
    wake_any_waiters();
    if (s->async_watchers.load(std::memory_order_seq_cst) != 0) wake_async();  // drops its handlers
}

void signal_add_waiter(Signal& s, const Signal::WaitCond& w) {
    std::lock_guard<std::mutex> lk(s.wait_mu);
    s.wait_conds.push_back(w);
    s.waiters.fetch_add(1, std::memory_order_seq_cst);
}

void signal_remove_waiter(Signal& s, const Signal::WaitCond& w) {
    std::lock_guard<std::mutex> lk(s.wait_mu);
    for (auto it = s.wait_conds.begin(); it != s.wait_conds.end(); ++it)
        if (it->cond == w.cond && it->value == w.value && it->any_change == w.any_change) {
            s.wait_conds.erase(it);
            break;
        }
    s.waiters.fetch_sub(1, std::memory_order_seq_cst);
}

void signal_notify(Signal& s) {
    // Wake sleepers only when one of them can proceed: a counter decremented by many
    // dispatches does not ping-pong its waiter.
    if (s.waiters.load(std::memory_order_seq_cst) != 0) {
        const int64_t v = s.value.load(std::memory_order_seq_cst);
        bool wake = false;
        {
            std::lock_guard<std::mutex> lk(s.wait_mu);
            for (const auto& w : s.wait_conds)
                if (w.any_change || signal_condition_met(v, w.cond, w.value)) {
                    wake = true;
                    break;
                }
        }
        if (wake) {
            s.epoch.fetch_add(1, std::memory_order_seq_cst);
            futex_wake_all(&s.epoch);
        }
    }
    if (g_any_waiters.load(std::memory_order_seq_cst) != 0) wake_any_waiters();
    if (s.async_watchers.load(std::memory_order_seq_cst) != 0) wake_async();
    if (s.doorbell_of) s.on_doorbell(s.doorbell_of);
}

bool signal_condition_met(int64_t v, hsa_signal_condition_t cond, int64_t cmp) {
    switch (cond) {
        case HSA_SIGNAL_CONDITION_EQ: return v == cmp;
        case HSA_SIGNAL_CONDITION_NE: return v != cmp;
        case HSA_SIGNAL_CONDITION_LT: return v < cmp;
        case HSA_SIGNAL_CONDITION_GTE: return v >= cmp;
    }
    return false;
}

namespace {
uint64_t deadline_from(uint64_t timeout_ticks) {
    uint64_t now = now_ticks();
    return timeout_ticks > UINT64_MAX - now ? UINT64_MAX : now + timeout_ticks;
}
}  // namespace

int64_t signal_wait(Signal& s, hsa_signal_condition_t cond, int64_t cmp, uint64_t timeout_ticks, hsa_wait_state_t hint) {
    const uint64_t deadline = deadline_from(timeout_ticks);
    int64_t v = s.value.load(std::memory_order_seq_cst);
    if (signal_condition_met(v, cond, cmp)) return v;
    {
        // Like ROCr, poll briefly before sleeping (longer, yielding, for the ACTIVE hint): a
        // futex round trip costs tens of microseconds on an idle machine.
        const uint64_t spin_until = std::min(deadline,
                                             now_ticks() + (hint == HSA_WAIT_STATE_ACTIVE ? 200'000u : 20'000u));
        for (uint32_t i = 1;; ++i) {
            v = s.value.load(std::memory_order_seq_cst);
            if (signal_condition_met(v, cond, cmp)) return v;
            if ((i & 63) == 0) {
                const uint64_t now = now_ticks();
                if (now >= deadline) return v;
                if (now >= spin_until) break;
                if (hint == HSA_WAIT_STATE_ACTIVE) std::this_thread::yield();
            }
            cpu_relax();
        }
    }
    const Signal::WaitCond wc{cond, cmp, false};
    signal_add_waiter(s, wc);
    for (;;) {
        const uint32_t e = s.epoch.load(std::memory_order_seq_cst);
        v = s.value.load(std::memory_order_seq_cst);
        if (signal_condition_met(v, cond, cmp)) break;
        if (s.dead.load(std::memory_order_acquire)) break;
        const uint64_t now = now_ticks();
        if (now >= deadline) break;
        const uint64_t left = deadline - now;
        // Re-check at least every 100 ms so that a destroyed signal does not strand a waiter.
        futex_wait(&s.epoch, e, static_cast<int64_t>(std::min<uint64_t>(left, 100'000'000)));
    }
    signal_remove_waiter(s, wc);
    return v;
}

namespace {

// Multi-signal wait. Returns index satisfied or count on timeout.
uint32_t wait_any(uint32_t count, const SignalRef* sigs, const hsa_signal_condition_t* conds,
                  const hsa_signal_value_t* values, uint64_t timeout_ticks, hsa_signal_value_t* satisfying) {
    const uint64_t deadline = deadline_from(timeout_ticks);
    g_any_waiters.fetch_add(1, std::memory_order_seq_cst);
    uint32_t result = count;
    for (;;) {
        const uint32_t e = g_any_epoch.load(std::memory_order_seq_cst);
        for (uint32_t i = 0; i < count; ++i) {
            int64_t v = sigs[i]->value.load(std::memory_order_seq_cst);
            if (signal_condition_met(v, conds[i], values[i])) {
                if (satisfying) *satisfying = v;
                result = i;
                break;
            }
        }
        if (result != count) break;
        const uint64_t now = now_ticks();
        if (now >= deadline) break;
        futex_wait(&g_any_epoch, e, static_cast<int64_t>(std::min<uint64_t>(deadline - now, 100'000'000)));
    }
    g_any_waiters.fetch_sub(1, std::memory_order_seq_cst);
    return result;
}

// ---- API implementations ---------------------------------------------------------------------
hsa_status_t impl_signal_create(hsa_signal_value_t initial, uint32_t num_consumers, const hsa_agent_t* consumers,
                                hsa_signal_t* signal) {
    SIM_REQUIRE_INIT();
    if (!signal || (num_consumers > 0 && !consumers)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < num_consumers; ++i)
        if (!agent_from_handle(consumers[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
    *signal = signal_create_internal(initial, nullptr);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_amd_signal_create(hsa_signal_value_t initial, uint32_t num_consumers, const hsa_agent_t* consumers,
                                    uint64_t attributes, hsa_signal_t* signal) {
    SIM_REQUIRE_INIT();
    if (attributes & ~static_cast<uint64_t>(HSA_AMD_SIGNAL_AMD_GPU_ONLY | HSA_AMD_SIGNAL_IPC))
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return impl_signal_create(initial, num_consumers, consumers, signal);
}

hsa_status_t impl_signal_destroy(hsa_signal_t signal) {
    SIM_REQUIRE_INIT();
    if (signal.handle == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    SignalRef s = signal_lookup(signal);
    if (!s || s->internal) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    signal_destroy_internal(signal);
    return HSA_STATUS_SUCCESS;
}

int64_t load(hsa_signal_t h) {
    if (!initialized()) return 0;
    SignalRef s = signal_lookup(h);
    return s ? s->value.load(std::memory_order_seq_cst) : 0;
}

template <typename Op>
int64_t modify(hsa_signal_t h, Op op) {
    if (!initialized()) return 0;
    SignalRef s = signal_lookup(h);
    if (!s) return 0;
    int64_t old = op(s->value);
    signal_notify(*s);
    return old;
}

void store(hsa_signal_t h, int64_t v) {
    modify(h, [v](std::atomic<int64_t>& a) {
        a.store(v, std::memory_order_seq_cst);
        return int64_t{0};
    });
}

void silent_store(hsa_signal_t h, int64_t v) {
    if (!initialized()) return;
    if (SignalRef s = signal_lookup(h)) s->value.store(v, std::memory_order_seq_cst);
}

void add(hsa_signal_t h, int64_t v) {
    modify(h, [v](std::atomic<int64_t>& a) { return a.fetch_add(v, std::memory_order_seq_cst); });
}
void sub(hsa_signal_t h, int64_t v) {
    modify(h, [v](std::atomic<int64_t>& a) { return a.fetch_sub(v, std::memory_order_seq_cst); });
}
void and_(hsa_signal_t h, int64_t v) {
    modify(h, [v](std::atomic<int64_t>& a) { return a.fetch_and(v, std::memory_order_seq_cst); });
}
void or_(hsa_signal_t h, int64_t v) {
    modify(h, [v](std::atomic<int64_t>& a) { return a.fetch_or(v, std::memory_order_seq_cst); });
}
void xor_(hsa_signal_t h, int64_t v) {
    modify(h, [v](std::atomic<int64_t>& a) { return a.fetch_xor(v, std::memory_order_seq_cst); });
}
int64_t exchange(hsa_signal_t h, int64_t v) {
    return modify(h, [v](std::atomic<int64_t>& a) { return a.exchange(v, std::memory_order_seq_cst); });
}
int64_t cas(hsa_signal_t h, int64_t expected, int64_t v) {
    return modify(h, [expected, v](std::atomic<int64_t>& a) {
        int64_t e = expected;
        a.compare_exchange_strong(e, v, std::memory_order_seq_cst);
        return e;
    });
}

hsa_signal_value_t impl_wait(hsa_signal_t h, hsa_signal_condition_t cond, hsa_signal_value_t cmp, uint64_t timeout,
                             hsa_wait_state_t hint) {
    if (!initialized()) return 0;
    SignalRef s = signal_lookup(h);
    if (!s) return 0;
    return signal_wait(*s, cond, cmp, timeout, hint);
}

uint32_t impl_amd_signal_wait_any(uint32_t count, hsa_signal_t* signals, hsa_signal_condition_t* conds,
                                  hsa_signal_value_t* values, uint64_t timeout, hsa_wait_state_t,
                                  hsa_signal_value_t* value) {
    if (!initialized() || count == 0 || !signals || !conds || !values) return UINT32_MAX;
    std::vector<SignalRef> refs(count);
    for (uint32_t i = 0; i < count; ++i) {
        refs[i] = signal_lookup(signals[i]);
        if (!refs[i]) return UINT32_MAX;
    }
    uint32_t r = wait_any(count, refs.data(), conds, values, timeout, value);
    return r == count ? UINT32_MAX : r;
}

hsa_status_t impl_async_handler(hsa_signal_t signal, hsa_signal_condition_t cond, hsa_signal_value_t value,
                                hsa_amd_signal_handler handler, void* arg) {
    SIM_REQUIRE_INIT();
    if (!handler) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    SignalRef s = signal_lookup(signal);
    if (!s) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    AsyncState* st = async_state();
    if (!st) return HSA_STATUS_ERROR_NOT_INITIALIZED;
    s->async_watchers.fetch_add(1, std::memory_order_seq_cst);  // before the loop can drop the entry
    {
        std::lock_guard<std::mutex> lk(st->mu);
        st->entries.push_back({st->next_id++, s, cond, value, handler, arg});
    }
    wake_async();
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_async_function(void (*callback)(void*), void* arg) {
    SIM_REQUIRE_INIT();
    if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    AsyncState* st = async_state();
    if (!st) return HSA_STATUS_ERROR_NOT_INITIALIZED;
    {
        std::lock_guard<std::mutex> lk(st->mu);
        st->functions.emplace_back(callback, arg);
    }
    wake_async();
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_signal_value_pointer(hsa_signal_t signal, volatile hsa_signal_value_t** ptr) {
    SIM_REQUIRE_INIT();
    if (!ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    SignalRef s = signal_lookup(signal);
    if (!s) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    // Writes through this pointer do not wake blocked waiters (as with ROCr's interrupt-less
    // signals); waits re-check at least every 100 ms.
    *ptr = reinterpret_cast<volatile hsa_signal_value_t*>(&s->value);
    return HSA_STATUS_SUCCESS;
}

// ---- signal groups ---------------------------------------------------------------------------
struct SignalGroup {
    std::vector<hsa_signal_t> signals;
};
auto& g_group_mu = leaky<std::mutex>();
auto& g_groups = leaky<std::unordered_map<uint64_t, std::unique_ptr<SignalGroup>>>();

hsa_status_t impl_group_create(uint32_t num_signals, const hsa_signal_t* signals, uint32_t num_consumers,
                               const hsa_agent_t* consumers, hsa_signal_group_t* group) {
    SIM_REQUIRE_INIT();
    if (!group || num_signals == 0 || !signals || (num_consumers > 0 && !consumers))
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < num_consumers; ++i)
        if (!agent_from_handle(consumers[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
    auto g = std::make_unique<SignalGroup>();
    for (uint32_t i = 0; i < num_signals; ++i) {
        if (!signal_lookup(signals[i])) return HSA_STATUS_ERROR_INVALID_SIGNAL;
        for (auto& s : g->signals)
            if (s.handle == signals[i].handle) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
        g->signals.push_back(signals[i]);
    }
    group->handle = next_handle();
    std::lock_guard<std::mutex> lk(g_group_mu);
    g_groups.emplace(group->handle, std::move(g));
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_group_destroy(hsa_signal_group_t group) {
    SIM_REQUIRE_INIT();
    std::lock_guard<std::mutex> lk(g_group_mu);
    if (g_groups.erase(group.handle) == 0) return HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_group_wait_any(hsa_signal_group_t group, const hsa_signal_condition_t* conds,
                                 const hsa_signal_value_t* values, hsa_wait_state_t, hsa_signal_t* signal,
                                 hsa_signal_value_t* value) {
    SIM_REQUIRE_INIT();
    if (!conds || !values || !signal || !value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::vector<hsa_signal_t> handles;
    {
        std::lock_guard<std::mutex> lk(g_group_mu);
        auto it = g_groups.find(group.handle);
        if (it == g_groups.end()) return HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP;
        handles = it->second->signals;
    }
    std::vector<SignalRef> refs;
    for (auto h : handles) {
        refs.push_back(signal_lookup(h));
        if (!refs.back()) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    }
    uint32_t n = static_cast<uint32_t>(refs.size());
    uint32_t r = wait_any(n, refs.data(), conds, values, UINT64_MAX, value);
    if (r == n) return HSA_STATUS_ERROR;
    *signal = handles[r];
    return HSA_STATUS_SUCCESS;
}

void groups_clear() {
    std::lock_guard<std::mutex> lk(g_group_mu);
    g_groups.clear();
}

}  // namespace

void install_signals(HsaApiTable& t) {
    CoreApiTable& c = *t.core_;
    AmdExtTable& a = *t.amd_ext_;
    c.hsa_signal_create_fn = impl_signal_create;
    c.hsa_signal_destroy_fn = impl_signal_destroy;
    c.hsa_signal_load_relaxed_fn = load;
    c.hsa_signal_load_scacquire_fn = load;
    c.hsa_signal_store_relaxed_fn = store;
    c.hsa_signal_store_screlease_fn = store;
    c.hsa_signal_silent_store_relaxed_fn = silent_store;
    c.hsa_signal_silent_store_screlease_fn = silent_store;
    c.hsa_signal_wait_relaxed_fn = impl_wait;
    c.hsa_signal_wait_scacquire_fn = impl_wait;
#define SIM_SIG_OPS(op, fn)                \
    c.hsa_signal_##op##_relaxed_fn = fn;   \
    c.hsa_signal_##op##_scacquire_fn = fn; \
    c.hsa_signal_##op##_screlease_fn = fn; \
    c.hsa_signal_##op##_scacq_screl_fn = fn;
    SIM_SIG_OPS(and, and_)
    SIM_SIG_OPS(or, or_)
    SIM_SIG_OPS(xor, xor_)
    SIM_SIG_OPS(add, add)
    SIM_SIG_OPS(subtract, sub)
    SIM_SIG_OPS(exchange, exchange)
    SIM_SIG_OPS(cas, cas)
#undef SIM_SIG_OPS
    c.hsa_signal_group_create_fn = impl_group_create;
    c.hsa_signal_group_destroy_fn = impl_group_destroy;
    c.hsa_signal_group_wait_any_scacquire_fn = impl_group_wait_any;
    c.hsa_signal_group_wait_any_relaxed_fn = impl_group_wait_any;
    a.hsa_amd_signal_create_fn = impl_amd_signal_create;
    a.hsa_amd_signal_async_handler_fn = impl_async_handler;
    a.hsa_amd_async_function_fn = impl_async_function;
    a.hsa_amd_signal_wait_any_fn = impl_amd_signal_wait_any;
    a.hsa_amd_signal_value_pointer_fn = impl_signal_value_pointer;
}

}  // namespace encore::sim
