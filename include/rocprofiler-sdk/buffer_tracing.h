/* rocprofiler-sdk/buffer_tracing.h — the buffer tracing service ("asynchronous tracing"): the
 * records of traced calls and events written to a buffer (buffer.h) and delivered in batches on
 * the buffer's callback thread, instead of a callback on the calling thread.
 *
 *   static void on_records(rocprofiler_context_id_t, rocprofiler_buffer_id_t,
 *                          rocprofiler_record_header_t** h, size_t n, void*, uint64_t drops) {
 *       for (size_t i = 0; i < n; ++i)
 *           if (h[i]->category == ROCPROFILER_BUFFER_CATEGORY_TRACING &&
 *               h[i]->kind == ROCPROFILER_BUFFER_TRACING_HSA_CORE_API) {
 *               const rocprofiler_buffer_tracing_hsa_api_record_t* r = h[i]->payload;
 *               ... r->start_timestamp, r->end_timestamp, r->correlation_id.internal ...
 *           }
 *   }
 *   rocprofiler_configure_buffer_tracing_service(ctx, ROCPROFILER_BUFFER_TRACING_HSA_CORE_API,
 *                                                NULL, 0, buffer);
 *
 * Record structs, names and values are the reference SDK's (2025); encore's additions are
 * marked. Which kinds encore produces, and what each record holds: docs/buffer-tracing.md. */
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/buffer.h>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/defines.h>
#include <encore/config.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/hsa/scratch_memory_id.h>

#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

/** A traced HSA API call (HSA_CORE_API, HSA_AMD_EXT_API, HSA_IMAGE_EXT_API, HSA_FINALIZE_EXT_API). */
typedef struct rocprofiler_buffer_tracing_hsa_api_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_hsa_api_record_t;

/** A traced HIP API call (HIP_RUNTIME_API, HIP_COMPILER_API). */
typedef struct rocprofiler_buffer_tracing_hip_api_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_hip_api_record_t;

#if ENCORE_HIP_HEADERS
/** A traced HIP API call with its arguments and return value (HIP_RUNTIME_API_EXT,
 *  HIP_COMPILER_API_EXT). Pointer arguments are the addresses passed, never followed. */
typedef struct rocprofiler_buffer_tracing_hip_api_ext_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_hip_api_args_t args;
    rocprofiler_hip_api_retval_t retval;
} rocprofiler_buffer_tracing_hip_api_ext_record_t;
#else
/* Without HIP's headers (encore/config.h) its arguments have no types: declared, not defined. */
typedef struct rocprofiler_buffer_tracing_hip_api_ext_record_t rocprofiler_buffer_tracing_hip_api_ext_record_t;
#endif

/** OpenMP target region data of an OMPT record. */
typedef struct rocprofiler_buffer_tracing_ompt_target_t {
    int32_t kind;
    int32_t device_num;
    uint64_t task_id;
    uint64_t target_id;
    const void* codeptr_ra;
} rocprofiler_buffer_tracing_ompt_target_t;

typedef struct rocprofiler_buffer_tracing_ompt_target_data_op_t {
    uint64_t host_op_id;
    int32_t optype;
    int32_t src_device_num;
    int32_t dst_device_num;
    int32_t reserved;
    uint64_t bytes;
    const void* codeptr_ra;
} rocprofiler_buffer_tracing_ompt_target_data_op_t;

typedef struct rocprofiler_buffer_tracing_ompt_target_kernel_t {
    uint64_t host_op_id;
    int32_t device_num;
    uint32_t requested_num_teams;
} rocprofiler_buffer_tracing_ompt_target_kernel_t;

/** An OMPT record (nothing in encore produces OMPT yet). */
typedef struct rocprofiler_buffer_tracing_ompt_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
    ROCPROFILER_ANONYMOUS union {
        rocprofiler_buffer_tracing_ompt_target_t target;
        rocprofiler_buffer_tracing_ompt_target_data_op_t target_data_op;
        rocprofiler_buffer_tracing_ompt_target_kernel_t target_kernel;
        uint64_t reserved[5];
    };
} rocprofiler_buffer_tracing_ompt_record_t;

/** A traced marker (roctx) call (MARKER_CORE_API, MARKER_CONTROL_API, MARKER_NAME_API,
 *  MARKER_CORE_RANGE_API). */
typedef struct rocprofiler_buffer_tracing_marker_api_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_marker_api_record_t;

/** A traced RCCL call (libencore-rccl, docs/libraries.md). */
typedef struct rocprofiler_buffer_tracing_rccl_api_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_rccl_api_record_t;

/** A traced rocJPEG call (libencore-rocjpeg, docs/libraries.md). */
typedef struct rocprofiler_buffer_tracing_rocjpeg_api_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_rocjpeg_api_record_t;

/** A completed memory copy; thread_id is the thread that asked for it. */
typedef struct rocprofiler_buffer_tracing_memory_copy_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_memory_copy_operation_t operation;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_agent_id_t dst_agent_id;
    rocprofiler_agent_id_t src_agent_id;
    uint64_t bytes;
    rocprofiler_address_t dst_address;
    rocprofiler_address_t src_address;
} rocprofiler_buffer_tracing_memory_copy_record_t;

/** A memory allocation or free. */
typedef struct rocprofiler_buffer_tracing_memory_allocation_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_memory_allocation_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_agent_id_t agent_id;
    rocprofiler_address_t address;
    uint64_t allocation_size;
} rocprofiler_buffer_tracing_memory_allocation_record_t;

/** A completed kernel dispatch (operation is always ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
 *  thread_id is the thread that launched it. */
typedef struct rocprofiler_buffer_tracing_kernel_dispatch_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_kernel_dispatch_operation_t operation;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_buffer_tracing_kernel_dispatch_record_t;

/** A scratch memory operation (allocate, free, asynchronous reclaim) of one queue: its start and
 * end, and the size the allocation ended with. */
typedef struct rocprofiler_buffer_tracing_scratch_memory_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_scratch_memory_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_agent_id_t agent_id;
    rocprofiler_queue_id_t queue_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_scratch_alloc_flag_t flags;
    uint64_t allocation_size;
} rocprofiler_buffer_tracing_scratch_memory_record_t;

/** An internal correlation id no later record will carry (not produced by encore yet). */
typedef struct rocprofiler_buffer_tracing_correlation_id_retirement_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_timestamp_t timestamp;
    uint64_t internal_correlation_id;
} rocprofiler_buffer_tracing_correlation_id_retirement_record_t;

/** A runtime was initialized. correlation_id is zero; version is 10000*major + 100*minor + patch. */
typedef struct rocprofiler_buffer_tracing_runtime_initialization_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_runtime_initialization_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_timestamp_t timestamp;
    uint64_t version;
    uint64_t instance;
} rocprofiler_buffer_tracing_runtime_initialization_record_t;

/* ---- the 2024 reference's page migration record (ROCPROFILER_BUFFER_TRACING_PAGE_MIGRATION),
 *      declared so tools written against it compile; nothing in encore produces it ----------- */

typedef enum rocprofiler_page_migration_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_PAGE_MIGRATION_NONE = 0,
  ROCPROFILER_PAGE_MIGRATION_PAGE_MIGRATE,
  ROCPROFILER_PAGE_MIGRATION_PAGE_FAULT,
  ROCPROFILER_PAGE_MIGRATION_QUEUE_SUSPEND,
  ROCPROFILER_PAGE_MIGRATION_UNMAP_FROM_GPU,
  ROCPROFILER_PAGE_MIGRATION_LAST,
} rocprofiler_page_migration_operation_t;

typedef enum rocprofiler_page_migration_trigger_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_PAGE_MIGRATION_TRIGGER_NONE = -1,
  ROCPROFILER_PAGE_MIGRATION_TRIGGER_PREFETCH,
  ROCPROFILER_PAGE_MIGRATION_TRIGGER_PAGEFAULT_GPU,
  ROCPROFILER_PAGE_MIGRATION_TRIGGER_PAGEFAULT_CPU,
  ROCPROFILER_PAGE_MIGRATION_TRIGGER_TTM_EVICTION,
  ROCPROFILER_PAGE_MIGRATION_TRIGGER_LAST,
} rocprofiler_page_migration_trigger_t;

typedef enum rocprofiler_page_migration_queue_suspend_trigger_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_PAGE_MIGRATION_QUEUE_SUSPEND_TRIGGER_NONE = -1,
  ROCPROFILER_PAGE_MIGRATION_QUEUE_SUSPEND_TRIGGER_SVM,
  ROCPROFILER_PAGE_MIGRATION_QUEUE_SUSPEND_TRIGGER_USERPTR,
  ROCPROFILER_PAGE_MIGRATION_QUEUE_SUSPEND_TRIGGER_TTM,
  ROCPROFILER_PAGE_MIGRATION_QUEUE_SUSPEND_TRIGGER_SUSPEND,
  ROCPROFILER_PAGE_MIGRATION_QUEUE_SUSPEND_TRIGGER_CRIU_CHECKPOINT,
  ROCPROFILER_PAGE_MIGRATION_QUEUE_SUSPEND_TRIGGER_CRIU_RESTORE,
  ROCPROFILER_PAGE_MIGRATION_QUEUE_SUSPEND_TRIGGER_LAST,
} rocprofiler_page_migration_queue_suspend_trigger_t;

typedef enum rocprofiler_page_migration_unmap_from_gpu_trigger_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_PAGE_MIGRATION_UNMAP_FROM_GPU_TRIGGER_NONE = -1,
  ROCPROFILER_PAGE_MIGRATION_UNMAP_FROM_GPU_TRIGGER_MMU_NOTIFY,
  ROCPROFILER_PAGE_MIGRATION_UNMAP_FROM_GPU_TRIGGER_MMU_NOTIFY_MIGRATE,
  ROCPROFILER_PAGE_MIGRATION_UNMAP_FROM_GPU_TRIGGER_UNMAP_FROM_CPU,
  ROCPROFILER_PAGE_MIGRATION_UNMAP_FROM_GPU_TRIGGER_LAST,
} rocprofiler_page_migration_unmap_from_gpu_trigger_t;

typedef struct rocprofiler_buffer_tracing_page_migration_page_fault_record_t {
    uint8_t read_fault : 1;
    uint8_t migrated : 1;
    uint32_t node_id;
    uint64_t address;
} rocprofiler_buffer_tracing_page_migration_page_fault_record_t;

typedef struct rocprofiler_buffer_tracing_page_migration_page_migrate_record_t {
    uint64_t start_addr;
    uint64_t end_addr;
    uint32_t from_node;
    uint32_t to_node;
    uint32_t prefetch_node;
    uint32_t preferred_node;
    rocprofiler_page_migration_trigger_t trigger;
} rocprofiler_buffer_tracing_page_migration_page_migrate_record_t;

typedef struct rocprofiler_buffer_tracing_page_migration_queue_suspend_record_t {
    uint8_t rescheduled : 1;
    uint32_t node_id;
    rocprofiler_page_migration_queue_suspend_trigger_t trigger;
} rocprofiler_buffer_tracing_page_migration_queue_suspend_record_t;

typedef struct rocprofiler_buffer_tracing_page_migration_unmap_from_gpu_record_t {
    uint32_t node_id;
    uint64_t start_addr;
    uint64_t end_addr;
    rocprofiler_page_migration_unmap_from_gpu_trigger_t trigger;
} rocprofiler_buffer_tracing_page_migration_unmap_from_gpu_record_t;

typedef struct rocprofiler_buffer_tracing_page_migration_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    uint32_t pid;
    ROCPROFILER_ANONYMOUS union {
        rocprofiler_buffer_tracing_page_migration_page_fault_record_t page_fault;
        rocprofiler_buffer_tracing_page_migration_page_migrate_record_t page_migrate;
        rocprofiler_buffer_tracing_page_migration_queue_suspend_record_t queue_suspend;
        rocprofiler_buffer_tracing_page_migration_unmap_from_gpu_record_t unmap_from_gpu;
        ROCPROFILER_ANONYMOUS struct { uint64_t reserved[12]; };
    };
} rocprofiler_buffer_tracing_page_migration_record_t;

/* ---- encore ------------------------------------------------------------------------------- */

/** A traced CUDA driver API call (encore's CUDA_DRIVER_API kind): the HSA record's members. */
typedef struct encore_buffer_tracing_cuda_driver_api_record_t {
    uint64_t size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_thread_id_t thread_id;
} encore_buffer_tracing_cuda_driver_api_record_t;

/* ---- the service ---------------------------------------------------------------------------- */

/** Called once per kind by rocprofiler_iterate_buffer_tracing_kinds; non-zero stops. */
typedef int (*rocprofiler_buffer_tracing_kind_cb_t)(rocprofiler_buffer_tracing_kind_t kind, void* data);

/** Called once per operation by rocprofiler_iterate_buffer_tracing_kind_operations; non-zero stops. */
typedef int (*rocprofiler_buffer_tracing_kind_operation_cb_t)(rocprofiler_buffer_tracing_kind_t kind,
                                                              rocprofiler_tracing_operation_t operation, void* data);

/** Write the records of `kind` (operations: NULL for all, else the ones listed) of context_id to
 *  buffer_id. Only during tool initialization. Returns CONFIGURATION_LOCKED outside it,
 *  CONTEXT_NOT_FOUND, KIND_NOT_FOUND, BUFFER_NOT_FOUND, OPERATION_NOT_FOUND,
 *  SERVICE_ALREADY_CONFIGURED (the context already has a buffer service for the kind — or, in
 *  encore, a callback service for the callback kind the records come from: use a second context),
 *  NOT_IMPLEMENTED (a kind nothing in this process produces). */
ROCPROFILER_API rocprofiler_status_t rocprofiler_configure_buffer_tracing_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, size_t operations_count,
    rocprofiler_buffer_id_t buffer_id) ROCPROFILER_NOEXCEPT;

/** Name of a buffer tracing kind ("HSA_CORE_API"): a string literal. name and name_len may each be
 *  NULL. KIND_NOT_FOUND for an id that is no kind. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_query_buffer_tracing_kind_name(
    rocprofiler_buffer_tracing_kind_t kind, const char** name, uint64_t* name_len) ROCPROFILER_NOEXCEPT;

/** Name of an operation of a buffer tracing kind: the name of the callback kind's operation the
 *  records come from. KIND_NOT_FOUND, OPERATION_NOT_FOUND, NOT_IMPLEMENTED (a kind whose operations
 *  encore does not name). */
ROCPROFILER_API rocprofiler_status_t rocprofiler_query_buffer_tracing_kind_operation_name(
    rocprofiler_buffer_tracing_kind_t kind, rocprofiler_tracing_operation_t operation, const char** name,
    uint64_t* name_len) ROCPROFILER_NOEXCEPT;

/** Calls callback for every buffer tracing kind except NONE and LAST; a non-zero return stops. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_iterate_buffer_tracing_kinds(
    rocprofiler_buffer_tracing_kind_cb_t callback, void* data) ROCPROFILER_NOEXCEPT;

/** Calls callback for every operation of kind; a kind without named operations calls it never. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_iterate_buffer_tracing_kind_operations(
    rocprofiler_buffer_tracing_kind_t kind, rocprofiler_buffer_tracing_kind_operation_cb_t callback,
    void* data) ROCPROFILER_NOEXCEPT;

/** Called once per argument by rocprofiler_iterate_buffer_tracing_record_args; non-zero stops.
 *  arg_type as in rocprofiler_callback_tracing_operation_args_cb_t: typeid(T).name(). */
typedef int (*rocprofiler_buffer_tracing_operation_args_cb_t)(
    rocprofiler_buffer_tracing_kind_t kind, rocprofiler_tracing_operation_t operation, uint32_t arg_number,
    const void* const arg_value_addr, int32_t arg_indirection_count, const char* arg_type, const char* arg_name,
    const char* arg_value_str, void* data);

/** Calls callback once per argument of a buffer record that holds them (HIP_*_API_EXT); pointers
 *  are never followed (the pointee may be gone by delivery). NOT_IMPLEMENTED for records without
 *  arguments; INVALID_ARGUMENT for a null callback or payload. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_iterate_buffer_tracing_record_args(
    rocprofiler_record_header_t record, rocprofiler_buffer_tracing_operation_args_cb_t callback,
    void* user_data) ROCPROFILER_NOEXCEPT;

ROCPROFILER_EXTERN_C_FINI
