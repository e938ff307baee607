// src/core/kinds.hpp — binding a kind's operations (a domain) to the kind list
// (encore/tracing/kinds.hpp) for the C API's name queries and argument iteration.
//
//   // in the one TU that instantiates the domains (libencore's domains_*.cpp, a backend's own):
//   const encore::core::kind_registration<domains::hsa_core, domains::hsa_amd_ext> registered;
//
// Every kind's operations reach the core the same way, libencore's own domains at its load and a
// backend's (CUDA) at the backend's load; a kind nothing registered is its name only.
#pragma once

#include "registry.hpp"

#include <encore/tracing/format.hpp>
#include <encore/tracing/payload.hpp>
#include <encore/tracing/kinds.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace encore::core {

/// Argument iteration of the C API for one API domain.
template <class Domain>
rocprofiler_status_t iterate_args_c(const rocprofiler_callback_tracing_record_t& rec,
                                    rocprofiler_callback_tracing_operation_args_cb_t cb, int32_t max_deref, void* data) {
    using P = tracing::payload_t<Domain>;
    // The record may come from anywhere: the whole payload must be readable (a forged record
    // with the right size field may end at an unmapped page), read without trusting the pointer.
    alignas(P) std::byte probe[sizeof(P)];
    std::uint64_t size = 0;
    if (!tracing::detail::guarded_read(probe, rec.payload, sizeof(P))) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    std::memcpy(&size, probe, sizeof(size));
    if (size != sizeof(P)) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    const bool known = tracing::for_each_arg<Domain>(rec.operation, rec.payload, max_deref,
                                                     [&](const tracing::arg_info& a) {
                                                         return cb(rec.kind, rec.operation, a.number, a.address,
                                                                   a.indirection_count, a.type, a.name, a.value,
                                                                   a.dereference_count, data) != 0;
                                                     });
    return known ? ROCPROFILER_STATUS_SUCCESS : ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
}

/// The return value of one record of Domain as text (the C API's encore_format_callback_tracing_retval):
/// the payload read as iterate_args_c reads it; an operation that returns nothing gives "".
template <class Domain>
rocprofiler_status_t format_retval_c(const rocprofiler_callback_tracing_record_t& rec, int32_t max_deref,
                                     std::string& out) {
    using P = tracing::payload_t<Domain>;
    alignas(P) std::byte probe[sizeof(P)];
    std::uint64_t size = 0;
    if (!tracing::detail::guarded_read(probe, rec.payload, sizeof(P))) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    std::memcpy(&size, probe, sizeof(size));
    if (size != sizeof(P)) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    const bool known = api::visit<Domain>(rec.operation, [&](auto I) {
        using op = typename Domain::template op_at<I>;
        // An operation the headers lack (api::unavailable, e.g. a CUDA 12 call under CUDA 11.8's
        // cuda.h) has no return type and makes no records: "" as for a void one.
        if constexpr (requires { typename op::return_type; }) {
            if constexpr (!std::is_void_v<typename op::return_type>) {
                // Formatted in place, never loaded as its type: a record may hold any bits (an enum
                // value outside its enumerators is undefined to load; format_value reads an enum
                // through its underlying type).
                using R = typename op::return_type;
                alignas(R) std::byte raw[sizeof(R)];
                std::memcpy(raw, probe + offsetof(P, retval), sizeof(R));
                format_context ctx{out, max_deref};
                format_value(ctx, *std::launder(reinterpret_cast<const R*>(raw)));
            }
        }
    });
    return known ? ROCPROFILER_STATUS_SUCCESS : ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
}

/// The bytes of each operation's captured arguments (the payload's `args` member holds them from
/// its start): what a tool copies to format the call later.
template <class Domain>
inline constexpr auto op_args_sizes = []<std::size_t... I>(std::index_sequence<I...>) {
    static_assert(((Domain::template op_at<I>::layout::size <= 0xffff) && ...), "encore: arguments over 64 KiB");
    return std::array<std::uint16_t, sizeof...(I)>{static_cast<std::uint16_t>(Domain::template op_at<I>::layout::size)...};
}
(std::make_index_sequence<Domain::size>{});

/// What the core knows of Domain's kind: its names, and argument iteration where the kind list
/// says its arguments iterate.
template <class Domain>
constexpr kind_info domain_kind_info() {
    using decl = tracing::kind_decl_of<Domain::id>;
    static_assert(std::string_view(Domain::c_name()) == decl::name.view(),
                  "encore: the domain's name differs from its kind's in encore/tracing/kinds.hpp");
    kind_info i;
    i.name = Domain::c_name();
    i.first_op = Domain::first_op;
    i.op_count = Domain::size;
    i.op_names = Domain::c_names.data();
    if constexpr (decl::iterates_args) {
        using P = tracing::payload_t<Domain>;
        i.iterate_args = &iterate_args_c<Domain>;
        i.payload_size = sizeof(P);
        i.args_offset = offsetof(P, args);
        if constexpr (requires { sizeof(P::retval); }) {  // OMPT's callbacks return nothing
            i.retval_offset = offsetof(P, retval);
            i.retval_size = sizeof(P::retval);
        }
        i.op_args_sizes = op_args_sizes<Domain>.data();
        if constexpr (requires { sizeof(P::retval); }) i.format_retval = &format_retval_c<Domain>;
    }
    return i;
}

template <class Domain>
inline constexpr kind_info kind_info_of = domain_kind_info<Domain>();

/// Registers each domain's kind_info with the core when constructed (a namespace-scope object in
/// the TU that instantiates the domains). The core's table is constant-initialized, so the order
/// of static initialization between TUs does not matter.
template <class... Domains>
struct kind_registration {
    kind_registration() noexcept { (register_kind_info(Domains::id, &kind_info_of<Domains>), ...); }
};

}  // namespace encore::core
