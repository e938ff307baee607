// src/ompt/roles.hpp — per OMPT operation, what the generic callback (tool.cpp) needs to know:
// the runtime's event number, and for a scope callback (begin/end through an endpoint
// argument) where its endpoint is and what pairs an end with its begin.
//
// Scope callbacks give one record pair: ENTER at ompt_scope_begin, EXIT at ompt_scope_end, with
// the begin's correlation id and each context's user_data (the reference's rule; nest_lock,
// whose endpoints are a lock's first acquire and last release, stays two single records as in
// the reference). Every other callback is one record of phase NONE.
#pragma once

#include <rocprofiler-sdk/ompt/api_id.h>

#include <array>
#include <cstddef>

namespace encore::ompt {

struct role {
    int event = 0;          // ompt_callbacks_t value; 0: no callback (callback_functions)
    int endpoint_arg = -1;  // index of the ompt_scope_endpoint_t argument; -1: not a scope
    int key_arg = -1;       // the argument whose value is the same at begin and end (the task's,
                            // target region's or operation's ompt_data_t / ompt_id_t address)
    int kind_arg = -1;      // an argument that must match too (sync region kind, work type), or -1
};

// The event numbers are the OpenMP specification's (ompt_callbacks_t), spelled as numbers so
// this table does not depend on which omp-tools.h the build has.
inline constexpr std::array<role, ROCPROFILER_OMPT_ID_LAST> roles = [] {
    std::array<role, ROCPROFILER_OMPT_ID_LAST> r{};
    r[ROCPROFILER_OMPT_ID_thread_begin] = {1};
    r[ROCPROFILER_OMPT_ID_thread_end] = {2};
    r[ROCPROFILER_OMPT_ID_parallel_begin] = {3};
    r[ROCPROFILER_OMPT_ID_parallel_end] = {4};
    r[ROCPROFILER_OMPT_ID_task_create] = {5};
    r[ROCPROFILER_OMPT_ID_task_schedule] = {6};
    r[ROCPROFILER_OMPT_ID_implicit_task] = {7, 0, 2};
    r[ROCPROFILER_OMPT_ID_device_initialize] = {12};
    r[ROCPROFILER_OMPT_ID_device_finalize] = {13};
    r[ROCPROFILER_OMPT_ID_device_load] = {14};
    r[ROCPROFILER_OMPT_ID_sync_region_wait] = {16, 1, 3, 0};
    r[ROCPROFILER_OMPT_ID_mutex_released] = {17};
    r[ROCPROFILER_OMPT_ID_dependences] = {18};
    r[ROCPROFILER_OMPT_ID_task_dependence] = {19};
    r[ROCPROFILER_OMPT_ID_work] = {20, 1, 3, 0};
    r[ROCPROFILER_OMPT_ID_masked] = {21, 0, 2};
    r[ROCPROFILER_OMPT_ID_sync_region] = {23, 1, 3, 0};
    r[ROCPROFILER_OMPT_ID_lock_init] = {24};
    r[ROCPROFILER_OMPT_ID_lock_destroy] = {25};
    r[ROCPROFILER_OMPT_ID_mutex_acquire] = {26};
    r[ROCPROFILER_OMPT_ID_mutex_acquired] = {27};
    r[ROCPROFILER_OMPT_ID_nest_lock] = {28};
    r[ROCPROFILER_OMPT_ID_flush] = {29};
    r[ROCPROFILER_OMPT_ID_cancel] = {30};
    r[ROCPROFILER_OMPT_ID_reduction] = {31, 1, 3, 0};
    r[ROCPROFILER_OMPT_ID_dispatch] = {32};
    r[ROCPROFILER_OMPT_ID_target_emi] = {33, 1, 5, 0};
    r[ROCPROFILER_OMPT_ID_target_data_op_emi] = {34, 0, 3};
    r[ROCPROFILER_OMPT_ID_target_submit_emi] = {35, 0, 2};
    r[ROCPROFILER_OMPT_ID_error] = {37};
    return r;
}();

/// Event numbers run to 37 in OpenMP 5.1 (LLVM 14); the chained tool's table has room to spare.
inline constexpr std::size_t max_event = 64;

}  // namespace encore::ompt
