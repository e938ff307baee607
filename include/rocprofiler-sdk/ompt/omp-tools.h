/* rocprofiler-sdk/ompt/omp-tools.h — the OpenMP tools interface types the OMPT payload uses.
 *
 *   #include <rocprofiler-sdk/ompt.h>   // pulls this in: ompt_data_t, ompt_scope_endpoint_t, ...
 *
 * The reference SDK ships a copy of LLVM's omp-tools.h here. encore does not: where the
 * compiler finds an omp-tools.h of its own (clang's resource directory has LLVM's; any
 * -I that has one), that header is used, so a tool sees exactly the types of the OpenMP
 * runtime it links. Where none is found (GCC: Debian installs omp-tools.h only for clang),
 * the block below declares the OpenMP 5.1 types that rocprofiler-sdk/ompt/api_args.h names,
 * with the values the OpenMP specification gives them, and nothing else: no callback
 * prototypes, no ompt_start_tool. test_ompt_layout checks that both give the payload the same
 * sizes, member offsets and enumerator values (docs/ompt.md).
 *
 * Define ENCORE_OMPT_OWN_DECLARATIONS to use the block below even where an omp-tools.h exists
 * (that test does, to compare the two).
 */
#pragma once

#if defined(__has_include) && !defined(ENCORE_OMPT_OWN_DECLARATIONS)
#    if __has_include(<omp-tools.h>)
#        include <omp-tools.h>
#        define ENCORE_OMPT_SYSTEM_HEADER 1
#    endif
#endif

#if !defined(ENCORE_OMPT_SYSTEM_HEADER) && !defined(__OMPT__)
#    define ENCORE_OMPT_SYSTEM_HEADER 0

#    include <stddef.h>
#    include <stdint.h>

#    ifdef __cplusplus
extern "C" {
#    endif

typedef uint64_t ompt_id_t;
typedef uint64_t ompt_wait_id_t;
typedef void ompt_device_t;

typedef union ompt_data_t {
    uint64_t value;
    void* ptr;
} ompt_data_t;

typedef struct ompt_frame_t {
    ompt_data_t exit_frame;
    ompt_data_t enter_frame;
    int exit_frame_flags;
    int enter_frame_flags;
} ompt_frame_t;

typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char* interface_function_name);

typedef enum ompt_thread_t {
    ompt_thread_initial = 1,
    ompt_thread_worker = 2,
    ompt_thread_other = 3,
    ompt_thread_unknown = 4
} ompt_thread_t;

typedef enum ompt_scope_endpoint_t {
    ompt_scope_begin = 1,
    ompt_scope_end = 2,
    ompt_scope_beginend = 3
} ompt_scope_endpoint_t;

typedef enum ompt_dispatch_t { ompt_dispatch_iteration = 1, ompt_dispatch_section = 2 } ompt_dispatch_t;

typedef enum ompt_sync_region_t {
    ompt_sync_region_barrier = 1,          /* deprecated in OpenMP 5.1 */
    ompt_sync_region_barrier_implicit = 2, /* deprecated in OpenMP 5.1 */
    ompt_sync_region_barrier_explicit = 3,
    ompt_sync_region_barrier_implementation = 4,
    ompt_sync_region_taskwait = 5,
    ompt_sync_region_taskgroup = 6,
    ompt_sync_region_reduction = 7,
    ompt_sync_region_barrier_implicit_workshare = 8,
    ompt_sync_region_barrier_implicit_parallel = 9,
    ompt_sync_region_barrier_teams = 10
} ompt_sync_region_t;

typedef enum ompt_target_data_op_t {
    ompt_target_data_alloc = 1,
    ompt_target_data_transfer_to_device = 2,
    ompt_target_data_transfer_from_device = 3,
    ompt_target_data_delete = 4,
    ompt_target_data_associate = 5,
    ompt_target_data_disassociate = 6,
    ompt_target_data_alloc_async = 17,
    ompt_target_data_transfer_to_device_async = 18,
    ompt_target_data_transfer_from_device_async = 19,
    ompt_target_data_delete_async = 20
} ompt_target_data_op_t;

typedef enum ompt_work_t {
    ompt_work_loop = 1,
    ompt_work_sections = 2,
    ompt_work_single_executor = 3,
    ompt_work_single_other = 4,
    ompt_work_workshare = 5,
    ompt_work_distribute = 6,
    ompt_work_taskloop = 7,
    ompt_work_scope = 8
} ompt_work_t;

typedef enum ompt_mutex_t {
    ompt_mutex_lock = 1,
    ompt_mutex_test_lock = 2,
    ompt_mutex_nest_lock = 3,
    ompt_mutex_test_nest_lock = 4,
    ompt_mutex_critical = 5,
    ompt_mutex_atomic = 6,
    ompt_mutex_ordered = 7
} ompt_mutex_t;

typedef enum ompt_task_status_t {
    ompt_task_complete = 1,
    ompt_task_yield = 2,
    ompt_task_cancel = 3,
    ompt_task_detach = 4,
    ompt_task_early_fulfill = 5,
    ompt_task_late_fulfill = 6,
    ompt_task_switch = 7,
    ompt_taskwait_complete = 8
} ompt_task_status_t;

typedef enum ompt_target_t {
    ompt_target = 1,
    ompt_target_enter_data = 2,
    ompt_target_exit_data = 3,
    ompt_target_update = 4,
    ompt_target_nowait = 9,
    ompt_target_enter_data_nowait = 10,
    ompt_target_exit_data_nowait = 11,
    ompt_target_update_nowait = 12
} ompt_target_t;

typedef enum ompt_dependence_type_t {
    ompt_dependence_type_in = 1,
    ompt_dependence_type_out = 2,
    ompt_dependence_type_inout = 3,
    ompt_dependence_type_mutexinoutset = 4,
    ompt_dependence_type_source = 5,
    ompt_dependence_type_sink = 6,
    ompt_dependence_type_inoutset = 7
} ompt_dependence_type_t;

typedef enum ompt_severity_t { ompt_warning = 1, ompt_fatal = 2 } ompt_severity_t;

typedef struct ompt_dependence_t {
    ompt_data_t variable;
    ompt_dependence_type_t dependence_type;
} ompt_dependence_t;

/* A tool's registration with the runtime (what ompt_start_tool returns). */
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t* tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t* tool_data);
typedef struct ompt_start_tool_result_t {
    ompt_initialize_t initialize;
    ompt_finalize_t finalize;
    ompt_data_t tool_data;
} ompt_start_tool_result_t;

/* The runtime entry points rocprofiler_ompt_callback_functions_t carries. */
typedef int (*ompt_enumerate_states_t)(int current_state, int* next_state, const char** next_state_name);
typedef int (*ompt_enumerate_mutex_impls_t)(int current_impl, int* next_impl, const char** next_impl_name);
typedef ompt_data_t* (*ompt_get_thread_data_t)(void);
typedef int (*ompt_get_num_procs_t)(void);
typedef int (*ompt_get_num_places_t)(void);
typedef int (*ompt_get_place_proc_ids_t)(int place_num, int ids_size, int* ids);
typedef int (*ompt_get_place_num_t)(void);
typedef int (*ompt_get_partition_place_nums_t)(int place_nums_size, int* place_nums);
typedef int (*ompt_get_proc_id_t)(void);
typedef int (*ompt_get_state_t)(ompt_wait_id_t* wait_id);
typedef int (*ompt_get_parallel_info_t)(int ancestor_level, ompt_data_t** parallel_data, int* team_size);
typedef int (*ompt_get_task_info_t)(int ancestor_level, int* flags, ompt_data_t** task_data, ompt_frame_t** task_frame,
                                    ompt_data_t** parallel_data, int* thread_num);
typedef int (*ompt_get_task_memory_t)(void** addr, size_t* size, int block);
typedef int (*ompt_get_target_info_t)(uint64_t* device_num, ompt_id_t* target_id, ompt_id_t* host_op_id);
typedef int (*ompt_get_num_devices_t)(void);
typedef uint64_t (*ompt_get_unique_id_t)(void);

#    ifdef __cplusplus
}
#    endif
#endif
