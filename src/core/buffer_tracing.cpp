// src/core/buffer_tracing.cpp — the buffer tracing service (rocprofiler-sdk/buffer_tracing.h)
// and the C API of buffer.h and internal_threading.h.
//
// A buffer service is a core-internal adapter on the callback machinery: configuring buffer kind
// B on context c puts an adapter callback (by address) into slots[source(B)][c], with `data`
// pointing at the adapter's state (buffer, buffer kind). Subscriber masks, payload capture,
// correlation ids and the per-context user_data then work exactly as for a tool's callback; the
// adapter keeps an API call's start time in that user_data at ENTER and writes the buffer record
// at the phase where it is complete. The traced path itself is unchanged. A tool's own callback
// on the same kind of the same context is allowed (the reference's contexts hold both): the core
// pairs the two behind one slot and gives the adapter a user_data of its own.
#include "buffer.hpp"
#include "clock.hpp"
#include "registry.hpp"
#include "warn.hpp"
#include "enum_bits.hpp"

#include <encore/tracing/kinds.hpp>
#include <rocprofiler-sdk/buffer_tracing.h>
#include <rocprofiler-sdk/internal_threading.h>

#include <array>
#include <cstring>
#include <mutex>
#include <type_traits>

using namespace encore;
using core::bits_of;

namespace {

using tracing::buffered_as;

// An adapter's state: slots[source][c].data points at adapters[c][b].
struct adapter {
    rocprofiler_buffer_id_t buffer{};
    rocprofiler_buffer_tracing_kind_t kind = ROCPROFILER_BUFFER_TRACING_NONE;
};
adapter g_adapters[tracing::max_contexts][tracing::buffer_kind_count];
// Buffer services of kinds with no source (nothing writes them; the service is remembered so a
// second configuration is refused as the reference refuses it). Guarded by g_mutex.
bool g_sourceless[tracing::max_contexts][tracing::buffer_kind_count];
std::mutex g_mutex;

constexpr auto tracing_category = static_cast<std::uint32_t>(ROCPROFILER_BUFFER_CATEGORY_TRACING);

template <class Record>
void emit(const adapter& a, const Record& rec) noexcept {
    (void)core::buffer_emit(a.buffer, tracing_category, static_cast<std::uint32_t>(a.kind), &rec, sizeof rec);
}

// The API record layout is one for every API kind (hsa, hip, marker, rccl, ..., cuda).
static_assert(std::is_same_v<decltype(rocprofiler_buffer_tracing_hsa_api_record_t::thread_id),
                             decltype(rocprofiler_buffer_tracing_marker_api_record_t::thread_id)>);
static_assert(
    sizeof(rocprofiler_buffer_tracing_hsa_api_record_t) == sizeof(rocprofiler_buffer_tracing_hip_api_record_t) &&
    sizeof(rocprofiler_buffer_tracing_hsa_api_record_t) == sizeof(rocprofiler_buffer_tracing_marker_api_record_t) &&
    sizeof(rocprofiler_buffer_tracing_hsa_api_record_t) == sizeof(encore_buffer_tracing_cuda_driver_api_record_t));

void api_adapter(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t* ud, void* data) {
    if (r->phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud->value = core::now_ns();
        return;
    }
    const auto& a = *static_cast<const adapter*>(data);
    const rocprofiler_buffer_tracing_hsa_api_record_t rec{sizeof(rec), a.kind,         r->operation, r->correlation_id,
                                                          ud->value,   core::now_ns(), r->thread_id};
    emit(a, rec);
}

void api_ext_adapter(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t* ud, void* data) {
    if (r->phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud->value = core::now_ns();
        return;
    }
#if ENCORE_HIP_HEADERS
    const auto& a = *static_cast<const adapter*>(data);
    const auto* p = static_cast<const rocprofiler_callback_tracing_hip_api_data_t*>(r->payload);
    rocprofiler_buffer_tracing_hip_api_ext_record_t rec{};
    rec.size = sizeof(rec);
    rec.kind = a.kind;
    rec.operation = r->operation;
    rec.correlation_id = r->correlation_id;
    rec.start_timestamp = ud->value;
    rec.end_timestamp = core::now_ns();
    rec.thread_id = r->thread_id;
    if (p != nullptr) {
        rec.args = p->args;
        rec.retval = p->retval;
    }
    emit(a, rec);
#else
    (void)data;  // a build without HIP's headers has no HIP: nothing produces the _EXT kinds
#endif
}

void kernel_dispatch_adapter(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t*, void* data) {
    if (r->operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE || r->payload == nullptr) return;
    const auto& a = *static_cast<const adapter*>(data);
    const auto* p = static_cast<const rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r->payload);
    rocprofiler_buffer_tracing_kernel_dispatch_record_t rec{};
    rec.size = sizeof(rec);
    rec.kind = a.kind;
    rec.operation = ROCPROFILER_KERNEL_DISPATCH_COMPLETE;
    rec.correlation_id = {r->correlation_id.internal, r->correlation_id.external};
    rec.thread_id = r->thread_id;
    rec.start_timestamp = p->start_timestamp;
    rec.end_timestamp = p->end_timestamp;
    rec.dispatch_info = p->dispatch_info;
    emit(a, rec);
}

void memory_copy_adapter(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t*, void* data) {
    if (r->phase != ROCPROFILER_CALLBACK_PHASE_EXIT || r->payload == nullptr) return;
    const auto& a = *static_cast<const adapter*>(data);
    const auto* p = static_cast<const rocprofiler_callback_tracing_memory_copy_data_t*>(r->payload);
    rocprofiler_buffer_tracing_memory_copy_record_t rec{};
    rec.size = sizeof(rec);
    rec.kind = a.kind;
    std::memcpy(&rec.operation, &r->operation, sizeof(rec.operation));  // the direction
    rec.correlation_id = {r->correlation_id.internal, r->correlation_id.external};
    rec.thread_id = r->thread_id;
    rec.start_timestamp = p->start_timestamp;
    rec.end_timestamp = p->end_timestamp;
    rec.dst_agent_id = p->dst_agent_id;
    rec.src_agent_id = p->src_agent_id;
    rec.bytes = p->bytes;
    rec.dst_address = p->dst_address;
    rec.src_address = p->src_address;
    emit(a, rec);
}

void memory_allocation_adapter(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t* ud, void* data) {
    if (r->phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud->value = core::now_ns();  // where a producer leaves the payload's start unset
        return;
    }
    if (r->payload == nullptr) return;
    const auto& a = *static_cast<const adapter*>(data);
    const auto* p = static_cast<const rocprofiler_callback_tracing_memory_allocation_data_t*>(r->payload);
    rocprofiler_buffer_tracing_memory_allocation_record_t rec{};
    rec.size = sizeof(rec);
    rec.kind = a.kind;
    std::memcpy(&rec.operation, &r->operation, sizeof(rec.operation));
    rec.correlation_id = r->correlation_id;
    rec.thread_id = r->thread_id;
    rec.start_timestamp = p->start_timestamp != 0 ? p->start_timestamp : ud->value;
    rec.end_timestamp = p->end_timestamp != 0 ? p->end_timestamp : core::now_ns();
    rec.agent_id = p->agent_id;
    rec.address = p->address;
    rec.allocation_size = p->allocation_size;
    emit(a, rec);
}

void scratch_memory_adapter(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t* ud, void* data) {
    if (r->phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud->value = core::now_ns();
        return;
    }
    if (r->payload == nullptr) return;
    const auto& a = *static_cast<const adapter*>(data);
    const auto* p = static_cast<const rocprofiler_callback_tracing_scratch_memory_data_t*>(r->payload);
    rocprofiler_buffer_tracing_scratch_memory_record_t rec{};
    rec.size = sizeof(rec);
    rec.kind = a.kind;
    std::memcpy(&rec.operation, &r->operation, sizeof(rec.operation));
    rec.correlation_id = r->correlation_id;
    rec.agent_id = p->agent_id;
    rec.queue_id = p->queue_id;
    rec.thread_id = r->thread_id;
    rec.start_timestamp = ud->value;
    rec.end_timestamp = core::now_ns();
    rec.flags = p->flags;
    // Only an allocation ends with a size; a free or a reclaim leaves the queue none.
    rec.allocation_size = p->args_kind == HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END ? p->args.alloc_end.size : 0;
    emit(a, rec);
}

void runtime_initialization_adapter(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t*, void* data) {
    if (r->payload == nullptr) return;
    const auto& a = *static_cast<const adapter*>(data);
    const auto* p = static_cast<const rocprofiler_callback_tracing_runtime_initialization_data_t*>(r->payload);
    rocprofiler_buffer_tracing_runtime_initialization_record_t rec{};
    rec.size = sizeof(rec);
    rec.kind = a.kind;
    std::memcpy(&rec.operation, &r->operation, sizeof(rec.operation));
    rec.correlation_id = {};  // the reference's: always zero for these records
    rec.thread_id = r->thread_id;
    rec.timestamp = core::now_ns();
    rec.version = p->version;
    rec.instance = p->instance;
    emit(a, rec);
}

encore_callback_tracing_ptr_cb_t adapter_for(buffered_as how) noexcept {
    switch (how) {
        case buffered_as::api: return &api_adapter;
        case buffered_as::api_ext: return &api_ext_adapter;
        case buffered_as::kernel_dispatch: return &kernel_dispatch_adapter;
        case buffered_as::memory_copy: return &memory_copy_adapter;
        case buffered_as::memory_allocation: return &memory_allocation_adapter;
        case buffered_as::scratch_memory: return &scratch_memory_adapter;
        case buffered_as::runtime_initialization: return &runtime_initialization_adapter;
        case buffered_as::nothing: return nullptr;
    }
    return nullptr;
}

bool is_buffer_kind(std::int64_t b) noexcept {
    return b > ROCPROFILER_BUFFER_TRACING_NONE && b < ROCPROFILER_BUFFER_TRACING_LAST;
}

// The source kind's names (src/core/kinds.cpp), or null for a buffer-only kind.
const core::kind_info* source_info(std::int64_t b) noexcept {
    const kind k = tracing::buffer_source_of(b);
    if (k == kind::none) return nullptr;
    const core::kind_info* info = core::find_kind(static_cast<rocprofiler_callback_tracing_kind_t>(k));
    return info != nullptr && info->op_names != nullptr ? info : nullptr;
}

// Bridges a buffer args callback to the callback-record argument iteration.
struct args_bridge {
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_buffer_tracing_operation_args_cb_t callback;
    void* data;
};
[[maybe_unused]] int bridge_arg(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t operation,
                                uint32_t arg_number, const void* const arg_value_addr, int32_t arg_indirection_count,
                                const char* arg_type, const char* arg_name, const char* arg_value_str, int32_t,
                                void* data) {
    const auto& b = *static_cast<const args_bridge*>(data);
    return b.callback(b.kind, operation, arg_number, arg_value_addr, arg_indirection_count, arg_type, arg_name,
                      arg_value_str, b.data);
}

}  // namespace

namespace encore::core {
// Forgets every buffer service (test suites, with reset_for_testing: registration.cpp).
ENCORE_API void buffer_services_reset_for_testing() noexcept {
    std::lock_guard lk(g_mutex);
    for (auto& row : g_adapters)
        for (auto& a : row) a = adapter{};
    for (auto& row : g_sourceless)
        for (auto& s : row) s = false;
}
}  // namespace encore::core

extern "C" {

// ---- buffers (buffer.h) -------------------------------------------------------------------------

rocprofiler_status_t rocprofiler_create_buffer(rocprofiler_context_id_t context, size_t size, size_t watermark,
                                               rocprofiler_buffer_policy_t policy,
                                               rocprofiler_buffer_tracing_cb_t callback, void* callback_data,
                                               rocprofiler_buffer_id_t* buffer_id) noexcept {
    return core::create_buffer(context, size, watermark, policy, callback, callback_data, buffer_id);
}

rocprofiler_status_t rocprofiler_destroy_buffer(rocprofiler_buffer_id_t buffer_id) noexcept {
    return core::destroy_buffer(buffer_id);
}

rocprofiler_status_t rocprofiler_flush_buffer(rocprofiler_buffer_id_t buffer_id) noexcept {
    return core::flush_buffer(buffer_id);
}

// ---- callback threads (internal_threading.h) -----------------------------------------------------

rocprofiler_status_t rocprofiler_at_internal_thread_create(rocprofiler_internal_thread_library_cb_t precreate,
                                                           rocprofiler_internal_thread_library_cb_t postcreate,
                                                           int libs, void* data) noexcept {
    return core::at_internal_thread_create(precreate, postcreate, libs, data);
}

rocprofiler_status_t rocprofiler_create_callback_thread(rocprofiler_callback_thread_t* cb_thread_id) noexcept {
    return core::create_callback_thread(cb_thread_id);
}

rocprofiler_status_t rocprofiler_assign_callback_thread(rocprofiler_buffer_id_t buffer_id,
                                                        rocprofiler_callback_thread_t cb_thread_id) noexcept {
    return core::assign_callback_thread(buffer_id, cb_thread_id);
}

// ---- the buffer tracing service (buffer_tracing.h) ----------------------------------------------

rocprofiler_status_t rocprofiler_configure_buffer_tracing_service(rocprofiler_context_id_t context_id,
                                                                  rocprofiler_buffer_tracing_kind_t kind,
                                                                  const rocprofiler_tracing_operation_t* operations,
                                                                  size_t operations_count,
                                                                  rocprofiler_buffer_id_t buffer_id) noexcept {
    const std::int64_t b = bits_of(kind);
    if (!core::configuration_open()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    if (core::find_context(context_id) == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (!is_buffer_kind(b)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    rocprofiler_context_id_t owner{};
    if (!core::buffer_context(buffer_id, owner)) return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    if (operations != nullptr && operations_count == 0) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard lk(g_mutex);
    const auto bi = static_cast<std::size_t>(b);
    adapter& a = g_adapters[context_id.handle][bi];
    if (a.buffer.handle != 0 || g_sourceless[context_id.handle][bi])
        return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
    const buffered_as how = tracing::buffered_as_of(b);
    const encore::kind source = tracing::buffer_source_of(b);
    if (how == buffered_as::nothing) {
        // Accepted as the reference accepts it; nothing in encore writes these records.
        if (core::first_time(std::string("buffer kind without source ") + tracing::buffer_kind_name(b)))
            core::warn("buffer tracing of %s is configured, but nothing in encore produces its records",
                       tracing::buffer_kind_name(b));
        g_sourceless[context_id.handle][bi] = true;
        return ROCPROFILER_STATUS_SUCCESS;
    }
    // KERNEL_DISPATCH buffer records are COMPLETE records only (the reference's rule), whatever
    // operations are asked for.
    const rocprofiler_tracing_operation_t complete[] = {ROCPROFILER_KERNEL_DISPATCH_COMPLETE};
    if (how == buffered_as::kernel_dispatch) {
        for (size_t i = 0; operations != nullptr && i < operations_count; ++i)
            if (operations[i] <= ROCPROFILER_KERNEL_DISPATCH_NONE || operations[i] >= ROCPROFILER_KERNEL_DISPATCH_LAST)
                return ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
        operations = complete;
        operations_count = 1;
    }
    a.kind = kind;
    a.buffer = buffer_id;
    const auto st = core::configure_callback_service(context_id, static_cast<rocprofiler_callback_tracing_kind_t>(source),
                                                     operations, operations_count, {nullptr, adapter_for(how), &a},
                                                     core::service_owner::internal);
    if (st != ROCPROFILER_STATUS_SUCCESS) a = adapter{};
    return st;
}

rocprofiler_status_t rocprofiler_query_buffer_tracing_kind_name(rocprofiler_buffer_tracing_kind_t kind,
                                                                const char** name, uint64_t* name_len) noexcept {
    const char* n = tracing::buffer_kind_name(bits_of(kind));
    if (n == nullptr) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (name != nullptr) *name = n;
    if (name_len != nullptr) *name_len = std::strlen(n);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_query_buffer_tracing_kind_operation_name(rocprofiler_buffer_tracing_kind_t kind,
                                                                          rocprofiler_tracing_operation_t operation,
                                                                          const char** name, uint64_t* name_len) noexcept {
    const std::int64_t b = bits_of(kind);
    if (!is_buffer_kind(b)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    const core::kind_info* k = source_info(b);
    if (k == nullptr) return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    return core::operation_name(*k, operation, name, name_len);
}

rocprofiler_status_t rocprofiler_iterate_buffer_tracing_kinds(rocprofiler_buffer_tracing_kind_cb_t callback,
                                                              void* data) noexcept {
    if (callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    for (int k = ROCPROFILER_BUFFER_TRACING_NONE + 1; k < ROCPROFILER_BUFFER_TRACING_LAST; ++k)
        if (callback(static_cast<rocprofiler_buffer_tracing_kind_t>(k), data) != 0) break;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_iterate_buffer_tracing_kind_operations(
    rocprofiler_buffer_tracing_kind_t kind, rocprofiler_buffer_tracing_kind_operation_cb_t callback, void* data) noexcept {
    const std::int64_t b = bits_of(kind);
    if (!is_buffer_kind(b)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    const core::kind_info* k = source_info(b);
    if (k == nullptr) return ROCPROFILER_STATUS_SUCCESS;  // no named operations: none to visit
    for (std::size_t i = 0; i < k->op_count; ++i)
        if (callback(kind, k->first_op + static_cast<op_id>(i), data) != 0) break;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_iterate_buffer_tracing_record_args(
    rocprofiler_record_header_t record, rocprofiler_buffer_tracing_operation_args_cb_t callback,
    void* user_data) noexcept {
    if (callback == nullptr || record.payload == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (record.category != ROCPROFILER_BUFFER_CATEGORY_TRACING) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    const auto b = static_cast<std::int64_t>(record.kind);
    if (!is_buffer_kind(b)) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (tracing::buffered_as_of(b) != buffered_as::api_ext) return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    const encore::kind source = tracing::buffer_source_of(b);
    const core::kind_info* k = core::find_kind(static_cast<rocprofiler_callback_tracing_kind_t>(source));
    if (k == nullptr || k->iterate_args == nullptr) return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
#if ENCORE_HIP_HEADERS
    const auto* rec = static_cast<const rocprofiler_buffer_tracing_hip_api_ext_record_t*>(record.payload);
    // The arguments as the callback service's payload, iterated without following pointers: what
    // they pointed at may be gone by the time a buffer is delivered.
    rocprofiler_callback_tracing_hip_api_data_t payload{sizeof(payload), rec->args, rec->retval};
    rocprofiler_callback_tracing_record_t as_callback{};
    as_callback.kind = static_cast<rocprofiler_callback_tracing_kind_t>(source);
    as_callback.operation = rec->operation;
    as_callback.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
    as_callback.correlation_id = rec->correlation_id;
    as_callback.thread_id = rec->thread_id;
    as_callback.payload = &payload;
    args_bridge bridge{rec->kind, callback, user_data};
    return k->iterate_args(as_callback, &bridge_arg, 0, &bridge);
#else
    (void)user_data;
    return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;  // no HIP kind has arguments without HIP's headers
#endif
}

}  // extern "C"
