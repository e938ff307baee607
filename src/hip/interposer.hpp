// src/hip/interposer.hpp — libencore-hip: the HIP runtime interposer (prelude of the generated
// export files, see tools/gen_exports.py).
//
// Path taken: ROCm 5.2's libamdhip64 has no dispatch table for tools (rocprofiler-register and
// HipDispatchTable arrived with ROCm 6), so encore interposes its exported symbols: each
// function of the HIP_RUNTIME_API and HIP_COMPILER_API declarations is exported here with its
// exact C signature and forwards through its wrapper (encore/tracing/wrapper.hpp) to the real
// runtime. On a runtime that hands tools its table, the same wrappers would be installed over
// the table's slots (tracing::install), as libencore-hsa does over ROCr's.
//
// The original of each function is looked up on its first call (encore::backend::lazy<D, I, policy>, what
// wrapper<D, I>::next holds until then): that first call also runs encore's initialization
// (tool discovery) if nothing has yet, and decides once whether the op needs the HIP_STREAM /
// HIP_EVENT / HIP_GRAPH layer (derived<I>), which is installed only when some context configured
// those kinds. A process whose tools configure nothing HIP keeps one relaxed load and one
// indirect jump per call.
#pragma once

#include "backend/exports.hpp"
#include "backend/interposer.hpp"
#include "backend/events.hpp"
#include "roles.hpp"

#include <encore/domains/hip_compiler.hpp>
#include <encore/domains/hip_runtime.hpp>
#include <encore/tracing/wrapper.hpp>
#include <rocprofiler-sdk/callback_tracing.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace encore::hip {

// ---- resolve.cpp -----------------------------------------------------------------------------

/// The real runtime's function called `name` (ENCORE_HIP_LIBRARY, else the next definition after
/// libencore-hip, else libamdhip64.so.5 loaded now), or null.
void* find_original(const char* name) noexcept;
/// The HIP runtime's part of encore's initialization, once tools are configured: which derived
/// kinds are configured, the RUNTIME_INITIALIZATION (HIP) record.
void on_configured() noexcept;

/// The derived kinds some context configured (fixed once initialization is done).
struct derived_kinds {
    bool stream = false, event = false, graph = false;
};
const derived_kinds& configured_derived() noexcept;

// ---- ids.cpp: handles -> the small ids records carry ------------------------------------------

/// 0 for the null (default) stream; other streams get ids from 1 in order of first sight.
std::uint64_t stream_id(const void* stream) noexcept;
void forget_stream(const void* stream) noexcept;
/// Events and graph execs: ids from 1 in order of first sight; 0 for null.
std::uint64_t event_id(const void* event) noexcept;
void set_event_stream(const void* event, std::uint64_t stream) noexcept;
/// The stream id where the event was last recorded successfully (0 if never).
std::uint64_t event_stream(const void* event) noexcept;

// ---- event_completion.cpp -------------------------------------------------------------------

/// After a successful hipEventRecord on `stream`: the phase-NONE RECORD record (to the contexts
/// and with the correlation of `record`) once the runtime reports the stream past the event.
/// `returned_at`: when the runtime's hipEventRecord returned (the record's start_timestamp).
void watch_completion(const backend::event& record, const rocprofiler_callback_tracing_hip_event_data_t& payload,
                      hipStream_t stream, std::uint64_t returned_at) noexcept;
/// encore's clock (rocprofiler_get_timestamp: CLOCK_BOOTTIME, ns).
std::uint64_t timestamp_now() noexcept;
std::uint64_t graph_exec_id(const void* exec) noexcept;
void forget_graph_exec(const void* exec) noexcept;

// ---- which runtime ops feed which derived kind (roles.hpp, compile time) ----------------------

using domains::hip_runtime;

/// Position of the op's (first) hipStream_t parameter, -1 if none.
template <std::size_t I>
constexpr int stream_param() noexcept {
    using op = hip_runtime::op_at<I>;
    int at = -1;
    [&]<std::size_t... J>(std::index_sequence<J...>) {
        ((at = (at < 0 && std::is_same_v<typename op::template arg<J>, hipStream_t>) ? static_cast<int>(J) : at), ...);
    }
    (std::make_index_sequence<op::arity>{});
    return at;
}

/// Op I's role (roles.hpp) and the stream it runs on, as the derived layer below reads them.
template <std::size_t I>
struct role {
    static constexpr hip_role of = role_of<I>;
    static constexpr bool stream_create = of == hip_role::stream_create;
    static constexpr bool stream_destroy = of == hip_role::stream_destroy;
    // Every other call that takes a stream runs "on" it: HIP_STREAM SET around the call.
    static constexpr int stream_set = stream_destroy ? -1 : stream_param<I>();
    static constexpr bool event_record = of == hip_role::event_record;
    static constexpr bool event_wait = of == hip_role::event_wait;
    static constexpr bool exec_create = of == hip_role::exec_create;
    static constexpr bool exec_destroy = of == hip_role::exec_destroy;
    static constexpr bool exec_launch = of == hip_role::exec_launch;

    static constexpr bool stream = stream_create || stream_destroy || stream_set >= 0;
    static constexpr bool event = event_record || event_wait;
    static constexpr bool graph = exec_create || exec_destroy || exec_launch;
    static constexpr bool any = stream || event || graph;
};

// ---- the derived-kinds layer ------------------------------------------------------------------

// Contexts subscribed to (k, op) now (the kit's; on x86 its acquire load is a plain load).
using backend::subscribed;

/// Delivers one phase-NONE record of an event kind to every context subscribed to (k, op), with
/// this thread's correlation (the enclosing traced HIP call's internal id, else a new one).
inline void deliver_once(kind k, int op, void* payload) noexcept {
    if (auto e = backend::event::capture(k, op)) e->deliver(ROCPROFILER_CALLBACK_PHASE_NONE, payload);
}

template <std::size_t I, class F = typename hip_runtime::op_at<I>::function_type>
struct derived;

/// The HIP_STREAM / HIP_EVENT / HIP_GRAPH records of op I, around the real function (it is what
/// the op's wrapper forwards to when some context configured one of those kinds).
template <std::size_t I, class R, class... A>
struct derived<I, R(A...)> {
    using ro = role<I>;
    static inline std::atomic<R (*)(A...)> real{nullptr};

    static bool wanted() noexcept {
        std::uint64_t m = 0;
        if constexpr (ro::stream_create) m |= subscribed(kind::hip_stream, ROCPROFILER_HIP_STREAM_CREATE);
        if constexpr (ro::stream_destroy) m |= subscribed(kind::hip_stream, ROCPROFILER_HIP_STREAM_DESTROY);
        if constexpr (ro::stream_set >= 0) m |= subscribed(kind::hip_stream, ROCPROFILER_HIP_STREAM_SET);
        if constexpr (ro::event_record) m |= subscribed(kind::hip_event, ROCPROFILER_HIP_EVENT_RECORD);
        if constexpr (ro::event_wait) m |= subscribed(kind::hip_event, ROCPROFILER_HIP_EVENT_WAIT);
        if constexpr (ro::exec_create) m |= subscribed(kind::hip_graph, ROCPROFILER_HIP_GRAPH_EXEC_CREATE);
        if constexpr (ro::exec_destroy) m |= subscribed(kind::hip_graph, ROCPROFILER_HIP_GRAPH_EXEC_DESTROY);
        if constexpr (ro::exec_launch) m |= subscribed(kind::hip_graph, ROCPROFILER_HIP_GRAPH_EXEC_LAUNCH);
        return m != 0;
    }

    static R call(A... a) {
        R (*f)(A...) = real.load(std::memory_order_acquire);
        if (!wanted()) [[likely]]
            return f(a...);
        return slow(f, a...);
    }

private:
    static std::optional<backend::event> begin(kind k, int op, void* payload) noexcept {
        auto e = backend::event::capture(k, op);
        if (e) e->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, payload);
        return e;
    }
    static void end(std::optional<backend::event>& e, void* payload) noexcept {
        if (e) e->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, payload);
    }

    template <std::size_t J>
    static auto arg(const std::tuple<A...>& t) noexcept {
        return std::get<J>(t);
    }

    static R slow(R (*f)(A...), A... a) {
        const std::tuple<A...> t{a...};
        rocprofiler_callback_tracing_hip_stream_data_t set{};
        rocprofiler_callback_tracing_hip_event_data_t ev{};
        rocprofiler_callback_tracing_hip_graph_data_t launch{};
        // Each captures its contexts and correlation once: EXIT goes to the contexts that got ENTER.
        std::optional<backend::event> set_pair, ev_pair, launch_pair;
        std::uint64_t destroyed_stream = 0, destroyed_exec = 0;

        if constexpr (ro::stream_set >= 0) {
            const hipStream_t s = arg<static_cast<std::size_t>(ro::stream_set)>(t);
            set = {sizeof(set), {stream_id(s)}, {.ptr = s}};
            set_pair = begin(kind::hip_stream, ROCPROFILER_HIP_STREAM_SET, &set);
        }
        if constexpr (ro::stream_destroy) destroyed_stream = stream_id(arg<0>(t));
        if constexpr (ro::exec_destroy) destroyed_exec = graph_exec_id(arg<0>(t));
        if constexpr (ro::event_record) {
            // hipEventRecord(event, stream): RECORD on the stream; its source is itself. Queue ids
            // are encore's stream ids: ROCm 5.2's HIP does not say which HSA queue serves a stream.
            const std::uint64_t q = stream_id(arg<1>(t));
            ev = {sizeof(ev), event_id(arg<0>(t)), {q}, {q}, 0, 0};
            ev_pair = begin(kind::hip_event, ROCPROFILER_HIP_EVENT_RECORD, &ev);
        }
        if constexpr (ro::event_wait) {
            // hipStreamWaitEvent(stream, event, flags): WAIT on the stream for an event recorded
            // on another (or the same) stream.
            ev = {sizeof(ev), event_id(arg<1>(t)), {stream_id(arg<0>(t))}, {event_stream(arg<1>(t))}, 0, 0};
            ev_pair = begin(kind::hip_event, ROCPROFILER_HIP_EVENT_WAIT, &ev);
        }
        if constexpr (ro::exec_launch) {
            launch = {sizeof(launch), {graph_exec_id(arg<0>(t))}, {.ptr = arg<0>(t)}};
            launch_pair = begin(kind::hip_graph, ROCPROFILER_HIP_GRAPH_EXEC_LAUNCH, &launch);
        }

        bool ok = true;
        if constexpr (std::is_void_v<R>) {
            f(a...);
            finish(t, ok, destroyed_stream, destroyed_exec, set_pair, &set, ev_pair, &ev, launch_pair, &launch, 0);
        } else {
            R r = f(a...);
            if constexpr (std::is_same_v<R, hipError_t>) ok = r == hipSuccess;
            std::uint64_t returned_at = 0;
            if constexpr (ro::event_record)
                if (ok && ev_pair) returned_at = timestamp_now();
            finish(t, ok, destroyed_stream, destroyed_exec, set_pair, &set, ev_pair, &ev, launch_pair, &launch,
                   returned_at);
            return r;
        }
    }

    static void finish(const std::tuple<A...>& t, bool ok, std::uint64_t destroyed_stream, std::uint64_t destroyed_exec,
                       std::optional<backend::event>& set_pair, void* set, std::optional<backend::event>& ev_pair,
                       void* ev, std::optional<backend::event>& launch_pair, void* launch,
                       std::uint64_t returned_at) noexcept {
        end(launch_pair, launch);
        if constexpr (ro::event_record)
            if (ok) set_event_stream(arg<0>(t), stream_id(arg<1>(t)));
        end(ev_pair, ev);
        // The completion record (phase NONE, with timestamps) comes after RECORD's EXIT, from the
        // runtime's callback thread, to the contexts that got ENTER (event_completion.cpp).
        if constexpr (ro::event_record)
            if (ok && ev_pair)
                watch_completion(*ev_pair, *static_cast<rocprofiler_callback_tracing_hip_event_data_t*>(ev), arg<1>(t),
                                 returned_at);
        end(set_pair, set);
        // Creation and destruction: phase NONE, after the call, only when it succeeded.
        if constexpr (ro::stream_create) {
            if (ok) {
                hipStream_t s = nullptr;
                if (arg<0>(t) != nullptr) std::memcpy(&s, arg<0>(t), sizeof(s));
                rocprofiler_callback_tracing_hip_stream_data_t p{sizeof(p), {stream_id(s)}, {.ptr = s}};
                deliver_once(kind::hip_stream, ROCPROFILER_HIP_STREAM_CREATE, &p);
            }
        }
        if constexpr (ro::stream_destroy) {
            if (ok) {
                rocprofiler_callback_tracing_hip_stream_data_t p{sizeof(p), {destroyed_stream}, {.ptr = arg<0>(t)}};
                deliver_once(kind::hip_stream, ROCPROFILER_HIP_STREAM_DESTROY, &p);
                forget_stream(arg<0>(t));
            }
        }
        if constexpr (ro::exec_create) {
            if (ok) {
                hipGraphExec_t e = nullptr;
                if (arg<0>(t) != nullptr) std::memcpy(&e, arg<0>(t), sizeof(e));
                rocprofiler_callback_tracing_hip_graph_data_t p{sizeof(p), {graph_exec_id(e)}, {.ptr = e}};
                deliver_once(kind::hip_graph, ROCPROFILER_HIP_GRAPH_EXEC_CREATE, &p);
            }
        }
        if constexpr (ro::exec_destroy) {
            if (ok) {
                rocprofiler_callback_tracing_hip_graph_data_t p{sizeof(p), {destroyed_exec}, {.ptr = arg<0>(t)}};
                deliver_once(kind::hip_graph, ROCPROFILER_HIP_GRAPH_EXEC_DESTROY, &p);
                forget_graph_exec(arg<0>(t));
            }
        }
        (void)t;
        (void)returned_at;
        (void)destroyed_stream;
        (void)destroyed_exec;
    }
};

template <std::size_t I>
bool derived_needed() noexcept {
    using ro = role<I>;
    const derived_kinds& k = configured_derived();
    return (ro::stream && k.stream) || (ro::event && k.event) || (ro::graph && k.graph);
}

// ---- lazy resolution (backend/interposer.hpp) ----------------------------------------------------

/// libencore-hip's policy for encore::backend::backend_init and encore::backend::lazy.
struct policy {
    static constexpr const char* library = "libencore-hip";
    static constexpr const char* runtime = "the HIP runtime";
    static void* find_original(const char* name) noexcept { return hip::find_original(name); }
    template <class D, std::size_t I, class R, class... A>
    static R (*original())(A...) {
        return encore::backend::by_name<policy, D, I, R, A...>();
    }
    static void on_configured() noexcept { hip::on_configured(); }
    template <class R>
    static R missing_result() noexcept {
        if constexpr (std::is_same_v<R, hipError_t>)
            return hipErrorSharedObjectSymbolNotFound;
        else if constexpr (std::is_same_v<R, const char*>)
            return "<encore: this function is missing from the HIP runtime>";
        else if constexpr (!std::is_void_v<R>)
            return R{};
    }
    /// The HIP_STREAM / HIP_EVENT / HIP_GRAPH layer when a context configured the op's kind.
    template <class D, std::size_t I, class R, class... A>
    static R (*route(R (*real)(A...)))(A...) {
        if constexpr (std::is_same_v<D, hip_runtime> && role<I>::any) {
            if (derived_needed<I>()) {
                derived<I>::real.store(real, std::memory_order_release);
                return &derived<I>::call;
            }
        }
        return real;
    }
};

}  // namespace encore::hip

namespace encore::tracing {
template <std::size_t I>
struct initial_next<domains::hip_runtime, I> {
    static constexpr auto value = &encore::backend::lazy<domains::hip_runtime, I, hip::policy>::first_call;
};
template <std::size_t I>
struct initial_next<domains::hip_compiler, I> {
    static constexpr auto value = &encore::backend::lazy<domains::hip_compiler, I, hip::policy>::first_call;
};
}  // namespace encore::tracing
