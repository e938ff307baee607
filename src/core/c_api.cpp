// src/core/c_api.cpp — the seed's C API (rocprofiler_* names), thin over the C++ core.
#include "clock.hpp"
#include "registration.hpp"
#include "registry.hpp"
#include "warn.hpp"
#include "enum_bits.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

using namespace encore;
using core::bits_of;

namespace {


bool is_kind(const rocprofiler_callback_tracing_kind_t& k) noexcept {
    const auto v = bits_of(k);
    return v > ROCPROFILER_CALLBACK_TRACING_NONE && v < ROCPROFILER_CALLBACK_TRACING_LAST;
}

}  // namespace

extern "C" {

// ---- contexts ---------------------------------------------------------------------------------

rocprofiler_status_t rocprofiler_create_context(rocprofiler_context_id_t* context_id) noexcept {
    return core::create_context(context_id);
}

rocprofiler_status_t rocprofiler_start_context(rocprofiler_context_id_t context_id) noexcept {
    return core::start_context(context_id);
}

rocprofiler_status_t rocprofiler_stop_context(rocprofiler_context_id_t context_id) noexcept {
    return core::stop_context(context_id);
}

rocprofiler_status_t rocprofiler_context_is_active(rocprofiler_context_id_t context_id, int* status) noexcept {
    if (status == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    const core::context* c = core::find_context(context_id);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    *status = c->active.load(std::memory_order_acquire) ? 1 : 0;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_context_is_valid(rocprofiler_context_id_t context_id, int* status) noexcept {
    if (status == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    const core::context* c = core::find_context(context_id);
    *status = (c != nullptr && c->valid.load(std::memory_order_acquire)) ? 1 : 0;
    return ROCPROFILER_STATUS_SUCCESS;
}

// ---- callback tracing -------------------------------------------------------------------------

rocprofiler_status_t rocprofiler_configure_callback_tracing_service(
    rocprofiler_context_id_t context_id, rocprofiler_callback_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, unsigned long operations_count,
    rocprofiler_callback_tracing_cb_t callback, void* callback_args) noexcept {
    if (!is_kind(kind)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    return core::configure_callback_service(context_id, kind, operations, operations_count,
                                            {callback, nullptr, callback_args});
}

rocprofiler_status_t encore_configure_callback_tracing_service_ptr(
    rocprofiler_context_id_t context_id, rocprofiler_callback_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, unsigned long operations_count,
    encore_callback_tracing_ptr_cb_t callback, void* callback_args) noexcept {
    if (!is_kind(kind)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    return core::configure_callback_service(context_id, kind, operations, operations_count,
                                            {nullptr, callback, callback_args});
}

rocprofiler_status_t rocprofiler_query_callback_tracing_kind_name(rocprofiler_callback_tracing_kind_t kind,
                                                                  const char** name, uint64_t* name_len) noexcept {
    if (!is_kind(kind)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    const core::kind_info* k = core::find_kind(kind);
    if (k == nullptr) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (name != nullptr) *name = k->name;
    if (name_len != nullptr) *name_len = std::strlen(k->name);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_query_callback_tracing_kind_operation_name(rocprofiler_callback_tracing_kind_t kind,
                                                                            rocprofiler_tracing_operation_t operation,
                                                                            const char** name,
                                                                            uint64_t* name_len) noexcept {
    if (!is_kind(kind)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    const core::kind_info* k = core::find_kind(kind);
    if (k == nullptr) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    return core::operation_name(*k, operation, name, name_len);
}

rocprofiler_status_t rocprofiler_iterate_callback_tracing_kinds(rocprofiler_callback_tracing_kind_cb_t callback,
                                                                void* data) noexcept {
    if (callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    for (int k = ROCPROFILER_CALLBACK_TRACING_NONE + 1; k < ROCPROFILER_CALLBACK_TRACING_LAST; ++k)
        if (callback(static_cast<rocprofiler_callback_tracing_kind_t>(k), data) != 0) break;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_iterate_callback_tracing_kind_operations(
    rocprofiler_callback_tracing_kind_t kind, rocprofiler_callback_tracing_kind_operation_cb_t callback,
    void* data) noexcept {
    if (!is_kind(kind)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    const core::kind_info* k = core::find_kind(kind);
    if (k == nullptr) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (k->op_names == nullptr) return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    for (std::size_t i = 0; i < k->op_count; ++i)
        if (callback(kind, k->first_op + static_cast<op_id>(i), data) != 0) break;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_iterate_callback_tracing_kind_operation_args(
    rocprofiler_callback_tracing_record_t record, rocprofiler_callback_tracing_operation_args_cb_t callback,
    int32_t max_dereference_count, void* user_data) noexcept {
    if (!is_kind(record.kind)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    const core::kind_info* k = core::find_kind(record.kind);
    if (k == nullptr) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (callback == nullptr || record.payload == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (k->iterate_args == nullptr) return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    if (max_dereference_count < 0) max_dereference_count = 0;
    // A forged record's phase may be any integer: compared as one.
    if (bits_of(record.phase) == ROCPROFILER_CALLBACK_PHASE_ENTER && max_dereference_count > 1) {
        static core::warn_once early_deref;
        early_deref("max_dereference_count > 1 at ENTER: out-parameters may not be written yet; their pointees "
                    "print as whatever the memory holds");
    }
    return k->iterate_args(record, callback, max_dereference_count, user_data);
}

rocprofiler_status_t encore_query_operation_payload_layout(rocprofiler_callback_tracing_kind_t kind,
                                                           rocprofiler_tracing_operation_t operation,
                                                           encore_operation_payload_layout_t* layout) noexcept {
    if (!is_kind(kind)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    const core::kind_info* k = core::find_kind(kind);
    if (k == nullptr) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (layout == nullptr || layout->size < sizeof(encore_operation_payload_layout_t))
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (k->op_args_sizes == nullptr) return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    const auto i = static_cast<std::int64_t>(operation) - k->first_op;
    if (i < 0 || i >= static_cast<std::int64_t>(k->op_count)) return ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
    layout->payload_size = k->payload_size;
    layout->args_offset = k->args_offset;
    layout->args_size = k->op_args_sizes[i];
    layout->retval_offset = k->retval_offset;
    layout->retval_size = k->retval_size;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t encore_format_callback_tracing_retval(rocprofiler_callback_tracing_record_t record,
                                                           int32_t max_dereference_count, char* buf, size_t size,
                                                           size_t* length) noexcept {
    if (!is_kind(record.kind)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    const core::kind_info* k = core::find_kind(record.kind);
    if (k == nullptr) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (record.payload == nullptr || max_dereference_count < 0 || (buf == nullptr && size != 0) ||
        (buf == nullptr && length == nullptr))
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (k->format_retval == nullptr) return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    const auto i = static_cast<std::int64_t>(record.operation) - k->first_op;
    if (i < 0 || i >= static_cast<std::int64_t>(k->op_count)) return ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
    try {
        std::string text;
        const rocprofiler_status_t st = k->format_retval(record, max_dereference_count, text);
        if (st != ROCPROFILER_STATUS_SUCCESS) return st;
        if (length != nullptr) *length = text.size();
        if (size != 0) {
            const std::size_t n = std::min(text.size(), size - 1);
            std::memcpy(buf, text.data(), n);
            buf[n] = '\0';
        }
        return ROCPROFILER_STATUS_SUCCESS;
    } catch (...) {  // no memory for the text
        return ROCPROFILER_STATUS_ERROR;
    }
}

// ---- external correlation ids -----------------------------------------------------------------

rocprofiler_status_t rocprofiler_push_external_correlation_id(rocprofiler_context_id_t context,
                                                              rocprofiler_thread_id_t tid,
                                                              rocprofiler_user_data_t external_correlation_id) noexcept {
    return core::push_external(context, tid, external_correlation_id);
}

rocprofiler_status_t rocprofiler_pop_external_correlation_id(rocprofiler_context_id_t context,
                                                             rocprofiler_thread_id_t tid,
                                                             rocprofiler_user_data_t* external_correlation_id) noexcept {
    return core::pop_external(context, tid, external_correlation_id);
}

rocprofiler_status_t rocprofiler_configure_external_correlation_id_request_service(
    rocprofiler_context_id_t context_id, const rocprofiler_external_correlation_id_request_kind_t* kinds,
    unsigned long kinds_count, rocprofiler_external_correlation_id_request_cb_t callback, void* callback_args) noexcept {
    // The kinds as integers first: the core compares them as the enum.
    if (kinds != nullptr)
        for (unsigned long i = 0; i < kinds_count; ++i) {
            const auto v = bits_of(kinds[i]);
            if (v <= ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE || v >= ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST)
                return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
        }
    return core::configure_external_request(context_id, kinds, kinds_count, callback, callback_args);
}

// ---- registration -----------------------------------------------------------------------------

rocprofiler_status_t rocprofiler_force_configure(rocprofiler_configure_func_t configure_func) noexcept {
    return core::force_configure(configure_func);
}

rocprofiler_status_t rocprofiler_is_initialized(int* status) noexcept {
    if (status == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *status = core::init_state();
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_is_finalized(int* status) noexcept {
    if (status == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *status = core::fini_state();
    return ROCPROFILER_STATUS_SUCCESS;
}

// ---- misc ---------------------------------------------------------------------------------------

// rocprofiler_get_version, _get_version_triplet, encore_get_version: version.cpp.

rocprofiler_status_t rocprofiler_get_timestamp(rocprofiler_timestamp_t* ts) noexcept {
    if (ts == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *ts = core::now_ns();
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_get_thread_id(rocprofiler_thread_id_t* tid) noexcept {
    if (tid == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *tid = core::this_thread_id();
    return ROCPROFILER_STATUS_SUCCESS;
}

}  // extern "C"
