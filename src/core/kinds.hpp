// src/core/kinds.hpp — building a kind_info from a domain declaration.
#pragma once

#include "registry.hpp"

#include <encore/tracing/format.hpp>

namespace encore::core {

/// Argument iteration of the C API for one API domain.
template <class Domain>
rocprofiler_status_t iterate_args_c(const rocprofiler_callback_tracing_record_t& rec,
                                    rocprofiler_callback_tracing_operation_args_cb_t cb,
                                    int32_t max_deref, void* data) {
    using P = tracing::payload_t<Domain>;
    std::uint64_t size = 0;
    // The record may come from anywhere; read its size field without trusting the pointer.
    if (!tracing::detail::guarded_read(&size, rec.payload, sizeof(size)) || size != sizeof(P))
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    const bool known = tracing::for_each_arg<Domain>(rec.operation, rec.payload, max_deref,
                                                     [&](const tracing::arg_info& a) {
        return cb(rec.kind, rec.operation, a.number, a.address, a.indirection_count, a.type, a.name,
                  a.value, a.dereference_count, data) != 0;
    });
    return known ? ROCPROFILER_STATUS_SUCCESS : ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
}

template <class Domain>
constexpr kind_info api_kind_info() {
    kind_info i;
    i.name = Domain::c_name();
    i.first_op = Domain::first_op;
    i.op_count = Domain::size;
    i.op_names = Domain::c_names.data();
    i.iterate_args = &iterate_args_c<Domain>;
    return i;
}

template <class Domain>
constexpr kind_info event_kind_info() {
    kind_info i;
    i.name = Domain::c_name();
    i.first_op = Domain::first_op;
    i.op_count = Domain::size;
    i.op_names = Domain::c_names.data();
    return i;
}

extern const kind_info hsa_core_info, hsa_amd_ext_info, hsa_image_ext_info, hsa_finalize_ext_info;
extern const kind_info hip_runtime_info, hip_compiler_info;
extern const kind_info marker_core_info, marker_control_info, marker_name_info, marker_core_range_info;

}  // namespace encore::core
