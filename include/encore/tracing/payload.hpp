// encore/tracing/payload.hpp — typed access to the payload of an API kind's records (which struct
// a kind's records point at is declared in encore/tracing/kinds.hpp).
//
// HSA and HIP records carry the C API's structs (rocprofiler_callback_tracing_hsa_api_data_t,
// ..._hip_api_data_t): `{size, args, retval}`. `args` holds the call's arguments laid out as a C
// struct of them (encore::api::captured_args), `retval` the return value at EXIT. C++ tools read
// them typed with encore::args_of<Op>(record) / encore::retval_of<Op>(record), or by name through
// the C unions' members (`args.hipMalloc.size`, rocprofiler-sdk/*/api_args.h), which alias the
// same bytes (src/core/api_args_check.cpp asserts it per parameter).
#pragma once

#include <encore/api/domain.hpp>
#include <encore/tracing/kinds.hpp>
#include <rocprofiler-sdk/callback_tracing.h>

#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace encore::tracing {

template <class Domain>
using payload_t = typename payload_of<Domain::id>::type;

/// The captured arguments of operation I of Domain inside a record's payload.
template <class Domain, std::size_t I>
[[nodiscard]] inline const api::captured_args<typename Domain::template op_at<I>>& args_of(const void* payload) noexcept {
    const auto* p = static_cast<const payload_t<Domain>*>(payload);
    return *reinterpret_cast<const api::captured_args<typename Domain::template op_at<I>>*>(&p->args);
}

/// The return value of operation I in a record's payload (meaningful at EXIT only).
template <class Domain, std::size_t I>
[[nodiscard]] inline auto retval_of(const void* payload) noexcept {
    using R = typename Domain::template op_at<I>::return_type;
    static_assert(!std::is_void_v<R>, "encore: this operation returns void");
    const auto* p = static_cast<const payload_t<Domain>*>(payload);
    R r;
    std::memcpy(&r, &p->retval, sizeof(R));
    return r;
}

template <class Domain, std::size_t I>
constexpr void check_fits() {
    using P = payload_t<Domain>;
    using Op = typename Domain::template op_at<I>;
    static_assert(sizeof(api::captured_args<Op>) <= sizeof(P::args) && alignof(api::captured_args<Op>) <= 8,
                  "encore: an operation's arguments do not fit the kind's payload args union");
    if constexpr (!std::is_void_v<typename Op::return_type>)
        static_assert(sizeof(typename Op::return_type) <= sizeof(P::retval),
                      "encore: an operation's return type does not fit the payload retval union");
}

/// A record's payload for operation I of Domain with these arguments: `size` set, the arguments
/// captured into `args` (retval, where the payload has one, zero). For records a library builds
/// itself rather than through the wrapper (marker ranges, OMPT callbacks).
template <class Domain, std::size_t I, class... A>
[[nodiscard]] payload_t<Domain> make_payload(A... a) noexcept {
    check_fits<Domain, I>();
    payload_t<Domain> p{};
    p.size = sizeof(p);
    ::new (static_cast<void*>(&p.args)) api::captured_args<typename Domain::template op_at<I>>(std::in_place, a...);
    return p;
}

}  // namespace encore::tracing
