// src/ompt/tool.cpp — libencore-ompt: encore as an OpenMP tool (OMPT).
//
// The OpenMP runtime (LLVM's libomp) calls ompt_start_tool when it starts; this library's
// answers with initialize/finalize. initialize registers one callback per operation of
// ROCPROFILER_CALLBACK_TRACING_OMPT (every callback the runtime accepts; ompt_set_callback's
// answer is kept per event) and delivers the runtime's inquiry functions as the
// callback_functions record. Each callback builds its record on the stack and delivers it to
// the contexts subscribed to the operation (one relaxed load when none is).
//
// Chaining: another OMPT tool in the process (the next ompt_start_tool after this library's,
// as the runtime would have found it without encore) is started too. Its initialize gets a
// lookup whose ompt_set_callback and ompt_get_callback are encore's: its callbacks are kept
// here and called from encore's (begin-like callbacks after encore's record, end-like before,
// so the two nest), and it hears what the runtime answered encore for the same event.
#include "roles.hpp"

#include "backend/events.hpp"
#include "core/exit_safe_local.hpp"
#include "core/ompt.hpp"
#include "core/registration.hpp"
#include "core/registry.hpp"
#include "core/warn.hpp"

#include <encore/domains/ompt.hpp>
#include <encore/tracing/payload.hpp>
#include <rocprofiler-sdk/ompt.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <tuple>
#include <vector>

namespace encore::ompt {
namespace {

using domain = domains::ompt;
using set_callback_fn = int (*)(int event, void (*callback)(void));
using get_callback_fn = int (*)(int event, void (**callback)(void));

constexpr int set_error = 0;   // ompt_set_error
constexpr int set_never = 1;   // ompt_set_never
constexpr int set_always = 5;  // ompt_set_always

ompt_function_lookup_t g_lookup = nullptr;
set_callback_fn g_set_callback = nullptr;
get_callback_fn g_get_callback = nullptr;
// What the runtime answered encore's ompt_set_callback, per event (0: not asked).
int g_set_result[max_event] = {};

// The chained tool: its registration and the callbacks it set through encore. Written by its
// initialize (and whenever it calls ompt_set_callback), read by every callback: relaxed, since
// a callback function pointer is all a reader takes from it.
ompt_start_tool_result_t* g_next = nullptr;
bool g_next_active = false;
std::atomic<void (*)(void)> g_next_callback[max_event] = {};

std::atomic<bool> g_started{false};

// ---- one thread's open scopes -----------------------------------------------------------------

// A scope callback's begin, kept until its end: the captured contexts, correlation and each
// context's user_data.
struct open_scope {
    backend::event ev;
    std::uintptr_t key;
    int kind;
};
// Innermost last. An end pairs with the innermost open begin of the same operation, key and
// kind: tasks switched at a scheduling point may close their scopes out of order on a thread.
// Nodes are kept for reuse (no allocation per scope once a thread has run a few).
struct open_scopes {
    std::vector<std::unique_ptr<open_scope>> open, spare;
    ~open_scopes();
};
// Mirrors this thread's open.size(), so an end with nothing open (every end, while nothing is
// traced) reads one initial-exec word instead of reaching the exit_safe_local (a
// __tls_get_addr call from a shared library). 4 bytes of glibc's static TLS surplus when
// libencore-ompt is dlopen'ed.
__attribute__((tls_model("initial-exec"))) thread_local int t_open = 0;
open_scopes::~open_scopes() { t_open = 0; }  // scopes still open at thread exit get no EXIT

std::atomic<bool> g_warned_unpaired{false};

template <class T>
std::uintptr_t as_key(T v) noexcept {
    if constexpr (std::is_pointer_v<T>)
        return reinterpret_cast<std::uintptr_t>(v);
    else
        return static_cast<std::uintptr_t>(v);
}
template <class T>
int as_int(T v) noexcept {
    if constexpr (std::is_enum_v<T> || std::is_integral_v<T>)
        return static_cast<int>(v);
    else
        return 0;
}

/// Argument N of a pack (N < 0: none, 0).
template <int N, class... A>
auto nth_or_zero(const A&... a) noexcept {
    if constexpr (N < 0)
        return 0;
    else
        return std::get<static_cast<std::size_t>(N)>(std::tie(a...));
}

/// Argument N (an enum or int) as an int, read from its bytes: a runtime written in C may pass a
/// value outside the C++ enum's range, which loading as the enum type would make undefined.
template <int N, class... A>
int raw_int(const A&... a) noexcept {
    const auto& v = std::get<static_cast<std::size_t>(N)>(std::tie(a...));
    static_assert(sizeof(v) == sizeof(int), "an endpoint argument is an int-sized enum");
    int raw = 0;
    std::memcpy(&raw, &v, sizeof raw);
    return raw;
}

/// Captures into `e` (storage the caller keeps: no copy of the event, nothing zeroed) the
/// contexts in `mask` and the record's correlation: its own internal id, its ancestor the
/// innermost open OMPT scope on this thread (or the traced API call in progress), and each
/// context's external id, asked of its request callback where it configured one for OMPT.
bool capture_into(backend::event& e, op_id op, std::uint64_t mask, const open_scopes* scopes) noexcept {
    if (!backend::event::capture_into_for(e, kind::ompt, op, mask)) return false;
    auto* t = tracing::detail::this_thread();
    e.ancestor = scopes != nullptr && !scopes->open.empty() ? scopes->open.back()->ev.internal : t->current;
    e.internal = tracing::detail::next_id(t);
    for (std::uint64_t m = e.mask; m != 0; m &= m - 1) {
        const auto c = static_cast<unsigned>(__builtin_ctzll(m));
        std::uint64_t external = e.external[c];
        if (tracing::detail::request_external(t, c, kind::ompt, op, e.internal, external)) e.external[c] = external;
    }
    return true;
}

template <std::size_t I, class... A>
rocprofiler_callback_tracing_ompt_data_t payload_of(A... a) noexcept {
    return tracing::make_payload<domain, I>(a...);
}

template <std::size_t I, class... A>
void record_event(A... a) noexcept {
    const std::uint64_t mask = backend::subscribed(kind::ompt, static_cast<op_id>(I));
    if (mask == 0) return;
    backend::event e;  // only what capture_into writes is read
    if (!capture_into(e, static_cast<op_id>(I), mask, core::exit_safe_local<open_scopes>::get())) return;
    auto p = payload_of<I>(a...);
    e.deliver(ROCPROFILER_CALLBACK_PHASE_NONE, &p);
}

template <std::size_t I, class... A>
void record_begin(A... a) noexcept {
    constexpr role r = roles[I];
    const std::uint64_t mask = backend::subscribed(kind::ompt, static_cast<op_id>(I));
    if (mask == 0) return;
    open_scopes* s = core::exit_safe_local<open_scopes>::get();
    if (s == nullptr) return;
    std::unique_ptr<open_scope> node;
    try {
        if (!s->spare.empty()) {
            node = std::move(s->spare.back());
            s->spare.pop_back();
        } else {
            node.reset(new open_scope);
        }
    } catch (...) {
        return;  // out of memory: this scope goes unrecorded (no ENTER without its EXIT)
    }
    if (!capture_into(node->ev, static_cast<op_id>(I), mask, s)) return;
    node->key = as_key(nth_or_zero<r.key_arg>(a...));
    node->kind = as_int(nth_or_zero<r.kind_arg>(a...));
    open_scope* mine = node.get();
    try {
        s->open.push_back(std::move(node));
    } catch (...) {
        return;
    }
    t_open = static_cast<int>(s->open.size());
    // Delivered from the node, which stays put while the callbacks run (a callback that runs
    // OpenMP code opens scopes of its own: the vector may grow, the node does not move).
    auto p = payload_of<I>(a...);
    mine->ev.deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
}

// An end with no open begin: tracing started inside the scope (nothing was captured then), or a
// runtime that ends a scope we never saw begin. Either way there is no ENTER to pair with; said
// once, and only where someone traces the operation.
template <std::size_t I>
void warn_unpaired() noexcept {
    if (backend::subscribed(kind::ompt, static_cast<op_id>(I)) != 0 && !g_warned_unpaired.exchange(true))
        core::warn("OMPT: an end of %s had no begin on its thread (tracing started inside it); its EXIT is not "
                   "delivered",
                   domain::c_names[I]);
}

template <std::size_t I, class... A>
void record_end(A... a) noexcept {
    constexpr role r = roles[I];
    if (t_open == 0) {
        warn_unpaired<I>();
        return;
    }
    open_scopes* s = core::exit_safe_local<open_scopes>::get();
    if (s == nullptr) return;
    const std::uintptr_t key = as_key(nth_or_zero<r.key_arg>(a...));
    const int k = as_int(nth_or_zero<r.kind_arg>(a...));
    // The innermost open begin of this operation with the same key and kind; failing that, the
    // innermost of this operation. LLVM's libomp ends a worker's implicit task and its implicit
    // barrier with the thread's own copy of the task's data (the team's task is gone by then),
    // so the key differs there; the reference pairs those as a per-thread stack too.
    std::size_t found = s->open.size();
    for (std::size_t i = s->open.size(); i-- > 0 && found == s->open.size();) {
        const open_scope& o = *s->open[i];
        if (o.ev.op == static_cast<op_id>(I) && o.key == key && o.kind == k) found = i;
    }
    for (std::size_t i = s->open.size(); i-- > 0 && found == s->open.size();)
        if (s->open[i]->ev.op == static_cast<op_id>(I)) found = i;
    if (found != s->open.size()) {
        std::unique_ptr<open_scope> node = std::move(s->open[found]);
        s->open.erase(s->open.begin() + static_cast<std::ptrdiff_t>(found));
        t_open = static_cast<int>(s->open.size());
        auto p = payload_of<I>(a...);
        node->ev.deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
        try {
            s->spare.push_back(std::move(node));
        } catch (...) {
        }
        return;
    }
    warn_unpaired<I>();
}

/// The callback registered for operation I: encore's record(s), and the chained tool's own.
template <std::size_t I, class = typename domain::op_at<I>::args>
struct callback;
template <std::size_t I, class... A>
struct callback<I, api::type_list<A...>> {
    static void call(A... a) noexcept {
        constexpr role r = roles[I];
        auto* next = reinterpret_cast<void (*)(A...)>(g_next_callback[r.event].load(std::memory_order_relaxed));
        if constexpr (r.endpoint_arg < 0) {
            record_event<I>(a...);
            if (next != nullptr) next(a...);
        } else {
            const int endpoint = raw_int<r.endpoint_arg>(a...);
            if (endpoint == 1) {  // ompt_scope_begin
                record_begin<I>(a...);
                if (next != nullptr) next(a...);
            } else if (endpoint == 2) {  // ompt_scope_end
                if (next != nullptr) next(a...);
                record_end<I>(a...);
            } else if (endpoint == 3) {  // ompt_scope_beginend (OpenMP 5.1): both records at once
                record_begin<I>(a...);
                if (next != nullptr) next(a...);
                record_end<I>(a...);
            } else if (next != nullptr) {  // no endpoint OpenMP defines: no record of encore's
                next(a...);
            }
        }
    }
};

/// The callback for operation I as the runtime's untyped callback pointer.
template <std::size_t I>
void (*callback_pointer())(void) {
    return reinterpret_cast<void (*)(void)>(&callback<I>::call);
}

// ---- the chained tool's view of the runtime ---------------------------------------------------

int next_set_callback(int event, void (*cb)(void)) {
    if (event <= 0 || static_cast<std::size_t>(event) >= max_event) return set_error;
    if (g_set_result[event] == 0) {
        // An event encore does not trace (device unload, the non-EMI target callbacks, ...):
        // the runtime's own answer, and the runtime calls the chained tool directly.
        return g_set_callback != nullptr ? g_set_callback(event, cb) : set_error;
    }
    g_next_callback[event].store(cb, std::memory_order_relaxed);
    // Unregistering always succeeds (as in libomp); registering gets what encore got.
    return cb == nullptr ? set_always : g_set_result[event];
}

int next_get_callback(int event, void (**cb)(void)) {
    if (cb == nullptr || event <= 0 || static_cast<std::size_t>(event) >= max_event) return 0;
    if (g_set_result[event] == 0) return g_get_callback != nullptr ? g_get_callback(event, cb) : 0;
    *cb = g_next_callback[event].load(std::memory_order_relaxed);
    return *cb != nullptr ? 1 : 0;
}

ompt_interface_fn_t next_lookup(const char* name) {
    if (name != nullptr && std::strcmp(name, "ompt_set_callback") == 0)
        return reinterpret_cast<ompt_interface_fn_t>(&next_set_callback);
    if (name != nullptr && std::strcmp(name, "ompt_get_callback") == 0)
        return reinterpret_cast<ompt_interface_fn_t>(&next_get_callback);
    return g_lookup != nullptr ? g_lookup(name) : nullptr;
}

// ---- initialize / finalize --------------------------------------------------------------------

template <class Fn>
Fn looked_up(const char* name) noexcept {
    return reinterpret_cast<Fn>(g_lookup(name));
}

void deliver_callback_functions() noexcept {
    constexpr std::size_t I = ROCPROFILER_OMPT_ID_callback_functions;
    rocprofiler_ompt_callback_functions_t f{};
    f.ompt_enumerate_states = looked_up<ompt_enumerate_states_t>("ompt_enumerate_states");
    f.ompt_enumerate_mutex_impls = looked_up<ompt_enumerate_mutex_impls_t>("ompt_enumerate_mutex_impls");
    f.ompt_get_thread_data = looked_up<ompt_get_thread_data_t>("ompt_get_thread_data");
    f.ompt_get_num_places = looked_up<ompt_get_num_places_t>("ompt_get_num_places");
    f.ompt_get_place_proc_ids = looked_up<ompt_get_place_proc_ids_t>("ompt_get_place_proc_ids");
    f.ompt_get_place_num = looked_up<ompt_get_place_num_t>("ompt_get_place_num");
    f.ompt_get_partition_place_nums = looked_up<ompt_get_partition_place_nums_t>("ompt_get_partition_place_nums");
    f.ompt_get_proc_id = looked_up<ompt_get_proc_id_t>("ompt_get_proc_id");
    f.ompt_get_state = looked_up<ompt_get_state_t>("ompt_get_state");
    f.ompt_get_parallel_info = looked_up<ompt_get_parallel_info_t>("ompt_get_parallel_info");
    f.ompt_get_task_info = looked_up<ompt_get_task_info_t>("ompt_get_task_info");
    f.ompt_get_task_memory = looked_up<ompt_get_task_memory_t>("ompt_get_task_memory");
    f.ompt_get_num_devices = looked_up<ompt_get_num_devices_t>("ompt_get_num_devices");
    f.ompt_get_num_procs = looked_up<ompt_get_num_procs_t>("ompt_get_num_procs");
    f.ompt_get_target_info = looked_up<ompt_get_target_info_t>("ompt_get_target_info");
    f.ompt_get_unique_id = looked_up<ompt_get_unique_id_t>("ompt_get_unique_id");
    record_event<I>(f);
}

void (*g_finalize_tool)() = nullptr;
std::atomic<bool> g_finalized{false};

void finish_runtime() {
    if (!g_finalized.load(std::memory_order_acquire) && g_finalize_tool != nullptr) g_finalize_tool();
}

int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t* /*tool_data*/) {
    if (lookup == nullptr) return 0;
    g_lookup = lookup;
    g_set_callback = looked_up<set_callback_fn>("ompt_set_callback");
    g_get_callback = looked_up<get_callback_fn>("ompt_get_callback");
    if (g_set_callback == nullptr) {
        core::warn("OMPT: the OpenMP runtime's lookup has no ompt_set_callback; OpenMP is not traced");
        return 0;
    }
    // The tools configure now if nothing did yet (a program whose first runtime is OpenMP).
    core::initialize();
    api::for_each_op<domain>([](auto i) {
        constexpr std::size_t I = decltype(i)::value;
        constexpr int event = roles[I].event;
        if constexpr (event != 0) {
            const int got = g_set_callback(event, callback_pointer<I>());
            // 0 (ompt_set_error) is kept as "asked" too, so the chained tool hears the same.
            g_set_result[event] = got == set_error ? -1 : got;
        }
    });
    for (int& r : g_set_result)
        if (r == -1) r = set_error;
    deliver_callback_functions();
    if (g_next != nullptr && g_next->initialize != nullptr)
        g_next_active = g_next->initialize(&next_lookup, initial_device_num, &g_next->tool_data) != 0;
    if (!g_next_active)
        for (auto& cb : g_next_callback) cb.store(nullptr, std::memory_order_relaxed);
    // encore finalizes from an atexit handler (core::initialize registered it), which runs
    // before libomp's own: the runtime's last callbacks (implicit task and thread ends, device
    // finalization) would come after encore stopped delivering. Registered after encore's, this
    // handler runs before it and asks the runtime to finish now (ompt_finalize_tool, OpenMP
    // 5.1 §4.6.1.15: the runtime shuts down as at exit; libomp's own handler finds it done).
    g_finalize_tool = looked_up<void (*)()>("ompt_finalize_tool");
    if (g_finalize_tool != nullptr) std::atexit(&finish_runtime);
    core::set_ompt_initialized();
    return 1;
}

void finalize(ompt_data_t* /*tool_data*/) {
    if (g_finalized.exchange(true, std::memory_order_acq_rel)) return;  // once, whoever asks first
    if (g_next_active && g_next->finalize != nullptr) g_next->finalize(&g_next->tool_data);
    core::set_ompt_finalized();
}

ompt_start_tool_result_t g_result{&initialize, &finalize, {}};

ompt_start_tool_result_t* start(unsigned int omp_version, const char* runtime_version, bool chain) {
    // The runtime starts one tool; a second start (a deferring tool's, or the chain looping
    // back here) gets none.
    if (g_started.exchange(true)) return nullptr;
    if (chain) {
        using start_fn = ompt_start_tool_result_t* (*)(unsigned int, const char*);
        // The definition after this library's in the lookup order: the tool the runtime would
        // have started without encore (or libomp's weak default, which looks further itself).
        auto next = reinterpret_cast<start_fn>(::dlsym(RTLD_NEXT, "ompt_start_tool"));
        if (next != nullptr) g_next = next(omp_version, runtime_version);
    }
    core::add_producer(tracing::produced_by::ompt);
    return &g_result;
}

// Where the OpenMP runtime (LLVM's libomp) is loaded and an object ahead of this library in the
// lookup order defines ompt_start_tool (the program, exporting its own tool), the runtime calls
// that one and never starts encore: --ompt-trace would record nothing. Said at load, with the
// object that wins (issue 40 item 12: an empty output and exit 0, nothing said).
void say_if_shadowed() noexcept {
    if (::dlsym(RTLD_DEFAULT, "__kmpc_fork_call") == nullptr) return;  // no libomp (libgomp has no OMPT)
    void* const first = ::dlsym(RTLD_DEFAULT, "ompt_start_tool");
    static const int anchor = 0;
    Dl_info mine{}, theirs{};
    if (first == nullptr || ::dladdr(&anchor, &mine) == 0 || ::dladdr(first, &theirs) == 0 ||
        theirs.dli_fbase == mine.dli_fbase)
        return;
    // libomp's own weak ompt_start_tool is found only when nothing else defines one: not ours to say.
    if (theirs.dli_fname != nullptr && std::strstr(theirs.dli_fname, "libomp") != nullptr) return;
    std::fprintf(stderr,
                 "[encore] OMPT: %s defines its own ompt_start_tool, which the OpenMP runtime calls instead of "
                 "libencore-ompt's: no OpenMP callbacks will be traced (docs/ompt.md)\n",
                 theirs.dli_fname != nullptr && *theirs.dli_fname != '\0' ? theirs.dli_fname : "the program");
}

[[gnu::constructor]] void announce() {
    core::set_ompt_start(&start);
    say_if_shadowed();
}

}  // namespace
}  // namespace encore::ompt

extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(unsigned int omp_version,
                                                                                            const char* runtime_version) {
    return encore::ompt::start(omp_version, runtime_version, /*chain=*/true);
}
