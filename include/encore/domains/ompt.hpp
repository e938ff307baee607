// encore/domains/ompt.hpp — the OMPT kind: one operation per OpenMP tools callback encore traces.
//
//   static_assert(encore::domains::ompt::id_of<"omp_work">() == ROCPROFILER_OMPT_ID_work);
//   // a record's arguments, typed: encore::tracing::args_of<domains::ompt, ROCPROFILER_OMPT_ID_work>(payload)
//
// Each operation is the callback's prototype with OpenMP's parameter names, named and numbered
// as the reference SDK names them ("omp_" + the callback's name; rocprofiler-sdk/ompt/api_id.h).
// The runtime calls libencore-ompt's callbacks (src/ompt/); a record's payload holds the
// arguments laid out as rocprofiler_ompt_args_t's member for the operation (checked in
// src/core/api_args_check.cpp). The last operation is no callback: the runtime's inquiry entry
// points, delivered once when the runtime initializes the tool.
#pragma once

#include <encore/api/arg_fields.hpp>
#include <encore/api/domain.hpp>
#include <encore/api/enum_names.hpp>
#include <rocprofiler-sdk/ompt/api_args.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

namespace encore::domains {

// clang-format off
struct ompt : api::domain<"OMPT", kind::ompt, api::no_table,
    api::fn<"omp_thread_begin", void(ompt_thread_t, ompt_data_t*), "thread_type", "thread_data">,
    api::fn<"omp_thread_end", void(ompt_data_t*), "thread_data">,
    api::fn<"omp_parallel_begin", void(ompt_data_t*, const ompt_frame_t*, ompt_data_t*, unsigned int, int, const void*),
            "encountering_task_data", "encountering_task_frame", "parallel_data", "requested_parallelism", "flags",
            "codeptr_ra">,
    api::fn<"omp_parallel_end", void(ompt_data_t*, ompt_data_t*, int, const void*),
            "parallel_data", "encountering_task_data", "flags", "codeptr_ra">,
    api::fn<"omp_task_create", void(ompt_data_t*, const ompt_frame_t*, ompt_data_t*, int, int, const void*),
            "encountering_task_data", "encountering_task_frame", "new_task_data", "flags", "has_dependences",
            "codeptr_ra">,
    api::fn<"omp_task_schedule", void(ompt_data_t*, ompt_task_status_t, ompt_data_t*),
            "prior_task_data", "prior_task_status", "next_task_data">,
    api::fn<"omp_implicit_task", void(ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, unsigned int, unsigned int, int),
            "endpoint", "parallel_data", "task_data", "actual_parallelism", "index", "flags">,
    api::fn<"omp_device_initialize", void(int, const char*, ompt_device_t*, ompt_function_lookup_t, const char*),
            "device_num", "type", "device", "lookup", "documentation">,
    api::fn<"omp_device_finalize", void(int), "device_num">,
    api::fn<"omp_device_load", void(int, const char*, std::int64_t, void*, std::size_t, void*, void*, std::uint64_t),
            "device_num", "filename", "offset_in_file", "vma_in_file", "bytes", "host_addr", "device_addr",
            "module_id">,
    api::fn<"omp_sync_region_wait", void(ompt_sync_region_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*),
            "kind", "endpoint", "parallel_data", "task_data", "codeptr_ra">,
    api::fn<"omp_mutex_released", void(ompt_mutex_t, ompt_wait_id_t, const void*), "kind", "wait_id", "codeptr_ra">,
    api::fn<"omp_dependences", void(ompt_data_t*, const ompt_dependence_t*, int), "task_data", "deps", "ndeps">,
    api::fn<"omp_task_dependence", void(ompt_data_t*, ompt_data_t*), "src_task_data", "sink_task_data">,
    api::fn<"omp_work", void(ompt_work_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, std::uint64_t, const void*),
            "work_type", "endpoint", "parallel_data", "task_data", "count", "codeptr_ra">,
    api::fn<"omp_masked", void(ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*),
            "endpoint", "parallel_data", "task_data", "codeptr_ra">,
    api::fn<"omp_sync_region", void(ompt_sync_region_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*),
            "kind", "endpoint", "parallel_data", "task_data", "codeptr_ra">,
    api::fn<"omp_lock_init", void(ompt_mutex_t, unsigned int, unsigned int, ompt_wait_id_t, const void*),
            "kind", "hint", "impl", "wait_id", "codeptr_ra">,
    api::fn<"omp_lock_destroy", void(ompt_mutex_t, ompt_wait_id_t, const void*), "kind", "wait_id", "codeptr_ra">,
    api::fn<"omp_mutex_acquire", void(ompt_mutex_t, unsigned int, unsigned int, ompt_wait_id_t, const void*),
            "kind", "hint", "impl", "wait_id", "codeptr_ra">,
    api::fn<"omp_mutex_acquired", void(ompt_mutex_t, ompt_wait_id_t, const void*), "kind", "wait_id", "codeptr_ra">,
    api::fn<"omp_nest_lock", void(ompt_scope_endpoint_t, ompt_wait_id_t, const void*), "endpoint", "wait_id", "codeptr_ra">,
    api::fn<"omp_flush", void(ompt_data_t*, const void*), "thread_data", "codeptr_ra">,
    api::fn<"omp_cancel", void(ompt_data_t*, int, const void*), "task_data", "flags", "codeptr_ra">,
    api::fn<"omp_reduction", void(ompt_sync_region_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*),
            "kind", "endpoint", "parallel_data", "task_data", "codeptr_ra">,
    api::fn<"omp_dispatch", void(ompt_data_t*, ompt_data_t*, ompt_dispatch_t, ompt_data_t),
            "parallel_data", "task_data", "kind", "instance">,
    api::fn<"omp_target_emi", void(ompt_target_t, ompt_scope_endpoint_t, int, ompt_data_t*, ompt_data_t*, ompt_data_t*, const void*),
            "kind", "endpoint", "device_num", "task_data", "target_task_data", "target_data", "codeptr_ra">,
    api::fn<"omp_target_data_op_emi", void(ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, ompt_id_t*, ompt_target_data_op_t,
                                           void*, int, void*, int, std::size_t, const void*),
            "endpoint", "target_task_data", "target_data", "host_op_id", "optype", "src_address", "src_device_num",
            "dst_address", "dst_device_num", "bytes", "codeptr_ra">,
    api::fn<"omp_target_submit_emi", void(ompt_scope_endpoint_t, ompt_data_t*, ompt_id_t*, unsigned int),
            "endpoint", "target_data", "host_op_id", "requested_num_teams">,
    api::fn<"omp_error", void(ompt_severity_t, const char*, std::size_t, const void*),
            "severity", "message", "length", "codeptr_ra">,
    api::fn<"omp_callback_functions", void(rocprofiler_ompt_callback_functions_t), "callback_functions">> {};
// clang-format on

}  // namespace encore::domains

// ---- how the OMPT types print ---------------------------------------------------------------------

template <>
struct encore::arg_fields<ompt_data_t> {
    static constexpr auto value = std::tuple{field{"value", &ompt_data_t::value}};
};
template <>
struct encore::arg_fields<ompt_frame_t> {
    static constexpr auto value = std::tuple{field{"exit_frame", &ompt_frame_t::exit_frame},
                                             field{"enter_frame", &ompt_frame_t::enter_frame},
                                             field{"exit_frame_flags", &ompt_frame_t::exit_frame_flags},
                                             field{"enter_frame_flags", &ompt_frame_t::enter_frame_flags}};
};
template <>
struct encore::arg_fields<ompt_dependence_t> {
    static constexpr auto value = std::tuple{field{"variable", &ompt_dependence_t::variable},
                                             field{"dependence_type", &ompt_dependence_t::dependence_type}};
};

// One table per enum of the callbacks' parameters; a value outside it prints as its integer.
#define ENCORE_OMPT_NAME(v) \
    { v, #v }
template <>
struct encore::api::enum_names<ompt_thread_t> {
    static constexpr std::pair<ompt_thread_t, const char*> values[] = {
        ENCORE_OMPT_NAME(ompt_thread_initial), ENCORE_OMPT_NAME(ompt_thread_worker),
        ENCORE_OMPT_NAME(ompt_thread_other), ENCORE_OMPT_NAME(ompt_thread_unknown)};
};
template <>
struct encore::api::enum_names<ompt_scope_endpoint_t> {
    static constexpr std::pair<ompt_scope_endpoint_t, const char*> values[] = {
        ENCORE_OMPT_NAME(ompt_scope_begin), ENCORE_OMPT_NAME(ompt_scope_end), ENCORE_OMPT_NAME(ompt_scope_beginend)};
};
template <>
struct encore::api::enum_names<ompt_sync_region_t> {
    // 1 and 2 are OpenMP 5.0's names (deprecated in 5.1, which LLVM marks): spelled as values
    // so that naming them does not warn.
    static constexpr std::pair<ompt_sync_region_t, const char*> values[] = {
        {static_cast<ompt_sync_region_t>(1), "ompt_sync_region_barrier"},
        {static_cast<ompt_sync_region_t>(2), "ompt_sync_region_barrier_implicit"},
        ENCORE_OMPT_NAME(ompt_sync_region_barrier_explicit),
        ENCORE_OMPT_NAME(ompt_sync_region_barrier_implementation),
        ENCORE_OMPT_NAME(ompt_sync_region_taskwait),
        ENCORE_OMPT_NAME(ompt_sync_region_taskgroup),
        ENCORE_OMPT_NAME(ompt_sync_region_reduction),
        ENCORE_OMPT_NAME(ompt_sync_region_barrier_implicit_workshare),
        ENCORE_OMPT_NAME(ompt_sync_region_barrier_implicit_parallel),
        ENCORE_OMPT_NAME(ompt_sync_region_barrier_teams)};
};
template <>
struct encore::api::enum_names<ompt_work_t> {
    static constexpr std::pair<ompt_work_t, const char*> values[] = {ENCORE_OMPT_NAME(ompt_work_loop),
                                                                     ENCORE_OMPT_NAME(ompt_work_sections),
                                                                     ENCORE_OMPT_NAME(ompt_work_single_executor),
                                                                     ENCORE_OMPT_NAME(ompt_work_single_other),
                                                                     ENCORE_OMPT_NAME(ompt_work_workshare),
                                                                     ENCORE_OMPT_NAME(ompt_work_distribute),
                                                                     ENCORE_OMPT_NAME(ompt_work_taskloop),
                                                                     ENCORE_OMPT_NAME(ompt_work_scope)};
};
template <>
struct encore::api::enum_names<ompt_mutex_t> {
    static constexpr std::pair<ompt_mutex_t, const char*> values[] = {
        ENCORE_OMPT_NAME(ompt_mutex_lock),      ENCORE_OMPT_NAME(ompt_mutex_test_lock),
        ENCORE_OMPT_NAME(ompt_mutex_nest_lock), ENCORE_OMPT_NAME(ompt_mutex_test_nest_lock),
        ENCORE_OMPT_NAME(ompt_mutex_critical),  ENCORE_OMPT_NAME(ompt_mutex_atomic),
        ENCORE_OMPT_NAME(ompt_mutex_ordered)};
};
template <>
struct encore::api::enum_names<ompt_task_status_t> {
    static constexpr std::pair<ompt_task_status_t, const char*> values[] = {
        ENCORE_OMPT_NAME(ompt_task_complete),      ENCORE_OMPT_NAME(ompt_task_yield),
        ENCORE_OMPT_NAME(ompt_task_cancel),        ENCORE_OMPT_NAME(ompt_task_detach),
        ENCORE_OMPT_NAME(ompt_task_early_fulfill), ENCORE_OMPT_NAME(ompt_task_late_fulfill),
        ENCORE_OMPT_NAME(ompt_task_switch),        ENCORE_OMPT_NAME(ompt_taskwait_complete)};
};
template <>
struct encore::api::enum_names<ompt_target_t> {
    static constexpr std::pair<ompt_target_t, const char*> values[] = {ENCORE_OMPT_NAME(ompt_target),
                                                                       ENCORE_OMPT_NAME(ompt_target_enter_data),
                                                                       ENCORE_OMPT_NAME(ompt_target_exit_data),
                                                                       ENCORE_OMPT_NAME(ompt_target_update),
                                                                       ENCORE_OMPT_NAME(ompt_target_nowait),
                                                                       ENCORE_OMPT_NAME(ompt_target_enter_data_nowait),
                                                                       ENCORE_OMPT_NAME(ompt_target_exit_data_nowait),
                                                                       ENCORE_OMPT_NAME(ompt_target_update_nowait)};
};
template <>
struct encore::api::enum_names<ompt_target_data_op_t> {
    static constexpr std::pair<ompt_target_data_op_t, const char*> values[] = {
        ENCORE_OMPT_NAME(ompt_target_data_alloc),
        ENCORE_OMPT_NAME(ompt_target_data_transfer_to_device),
        ENCORE_OMPT_NAME(ompt_target_data_transfer_from_device),
        ENCORE_OMPT_NAME(ompt_target_data_delete),
        ENCORE_OMPT_NAME(ompt_target_data_associate),
        ENCORE_OMPT_NAME(ompt_target_data_disassociate),
        ENCORE_OMPT_NAME(ompt_target_data_alloc_async),
        ENCORE_OMPT_NAME(ompt_target_data_transfer_to_device_async),
        ENCORE_OMPT_NAME(ompt_target_data_transfer_from_device_async),
        ENCORE_OMPT_NAME(ompt_target_data_delete_async)};
};
template <>
struct encore::api::enum_names<ompt_dispatch_t> {
    static constexpr std::pair<ompt_dispatch_t, const char*> values[] = {ENCORE_OMPT_NAME(ompt_dispatch_iteration),
                                                                         ENCORE_OMPT_NAME(ompt_dispatch_section)};
};
template <>
struct encore::api::enum_names<ompt_dependence_type_t> {
    static constexpr std::pair<ompt_dependence_type_t, const char*> values[] = {
        ENCORE_OMPT_NAME(ompt_dependence_type_in),      ENCORE_OMPT_NAME(ompt_dependence_type_out),
        ENCORE_OMPT_NAME(ompt_dependence_type_inout),   ENCORE_OMPT_NAME(ompt_dependence_type_mutexinoutset),
        ENCORE_OMPT_NAME(ompt_dependence_type_source),  ENCORE_OMPT_NAME(ompt_dependence_type_sink),
        ENCORE_OMPT_NAME(ompt_dependence_type_inoutset)};
};
template <>
struct encore::api::enum_names<ompt_severity_t> {
    static constexpr std::pair<ompt_severity_t, const char*> values[] = {ENCORE_OMPT_NAME(ompt_warning),
                                                                         ENCORE_OMPT_NAME(ompt_fatal)};
};
#undef ENCORE_OMPT_NAME
