// src/marker/roctx.hpp — libencore-roctx: encore's roctx-compatible marker library (prelude of
// the generated export files, see tools/gen_exports.py).
//
// Each roctx function is exported with its wrapper (encore/tracing/wrapper.hpp) in front of
// encore's own implementation (roctx.cpp). Until a function's first call, its wrapper forwards
// to encore::backend::lazy<D, I, policy>::first_call, which runs encore's initialization if nothing has
// yet (tool discovery, RUNTIME_INITIALIZATION MARKER) and then binds the implementation. A call
// that no context traces costs one relaxed load and the implementation (a thread-local depth
// update for push/pop).
#pragma once

#include "backend/exports.hpp"
#include "backend/interposer.hpp"

#include <encore/domains/marker.hpp>
#include <encore/tracing/wrapper.hpp>

#include <tuple>
#include <type_traits>

namespace encore::roctx {

// The implementations (roctx.cpp), with exactly the declared signatures.
void mark(const char* message);
int range_push(const char* message);
int range_pop();
roctx_range_id_t range_start(const char* message);
void range_stop(roctx_range_id_t id);
int get_thread_id(roctx_thread_id_t* tid);
int profiler_pause(roctx_thread_id_t tid);
int profiler_resume(roctx_thread_id_t tid);
int name_os_thread(const char* name);
int name_hsa_agent(const char* name, const hsa_agent_s* agent);
int name_hip_device(const char* name, int device_id);
int name_hip_stream(const char* name, const ihipStream_t* stream);

// In each domain's op order (a wrong order or signature does not compile: wrapper<D, I>::next
// is initialized from these).
inline constexpr auto core_impl = std::tuple{&mark, &range_push, &range_pop, &range_start, &range_stop, &get_thread_id};
inline constexpr auto control_impl = std::tuple{&profiler_pause, &profiler_resume};
inline constexpr auto name_impl = std::tuple{&name_os_thread, &name_hsa_agent, &name_hip_device, &name_hip_stream};

template <class D>
constexpr const auto& impls() {
    if constexpr (std::is_same_v<D, domains::marker_core>)
        return core_impl;
    else if constexpr (std::is_same_v<D, domains::marker_control>)
        return control_impl;
    else
        return name_impl;
}
static_assert(std::tuple_size_v<decltype(core_impl)> == domains::marker_core::size);
static_assert(std::tuple_size_v<decltype(control_impl)> == domains::marker_control::size);
static_assert(std::tuple_size_v<decltype(name_impl)> == domains::marker_name::size);

/// The marker library's side of encore's initialization (RUNTIME_INITIALIZATION MARKER), once
/// tools are configured.
void on_configured() noexcept;

/// libencore-roctx's policy for encore::backend::backend_init and encore::backend::lazy: the "originals" are the
/// implementations above, known at compile time.
struct policy {
    static constexpr const char* library = "libencore-roctx";
    static constexpr const char* runtime = "the marker library";
    template <class D, std::size_t I, class R, class... A>
    static R (*original())(A...) {
        return std::get<I>(impls<D>());
    }
    static void on_configured() noexcept { roctx::on_configured(); }
    template <class R>
    static R missing_result() noexcept {
        if constexpr (!std::is_void_v<R>) return R{};
    }
    template <class D, std::size_t I, class R, class... A>
    static R (*route(R (*real)(A...)))(A...) {
        return real;
    }
};

}  // namespace encore::roctx

namespace encore::tracing {
template <std::size_t I>
struct initial_next<domains::marker_core, I> {
    static constexpr auto value = &encore::backend::lazy<domains::marker_core, I, roctx::policy>::first_call;
};
template <std::size_t I>
struct initial_next<domains::marker_control, I> {
    static constexpr auto value = &encore::backend::lazy<domains::marker_control, I, roctx::policy>::first_call;
};
template <std::size_t I>
struct initial_next<domains::marker_name, I> {
    static constexpr auto value = &encore::backend::lazy<domains::marker_name, I, roctx::policy>::first_call;
};
}  // namespace encore::tracing
