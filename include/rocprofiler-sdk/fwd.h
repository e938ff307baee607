/* rocprofiler-sdk/fwd.h — basic types of the C API: status codes, kinds, phases, ids, records.
 *
 * encore implements the reference SDK's C API under the same header, type, function and
 * enumerator names, so a tool written against it compiles unchanged. Enumerator values follow
 * the reference's numbering; encore's own additions are appended after the reference's.
 */
#pragma once

#include <rocprofiler-sdk/defines.h>

#include <stddef.h>
#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

/** Status codes (values as in the reference SDK). */
typedef enum rocprofiler_status_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_STATUS_SUCCESS = 0,
  ROCPROFILER_STATUS_ERROR,
  ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
  ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID,
  ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED,
  ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT,
  ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO,
  ROCPROFILER_STATUS_ERROR_BUFFER_BUSY,
  ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
  ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
  ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
  ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI,
  ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
  ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT,
  ROCPROFILER_STATUS_ERROR_FINALIZED,
  ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED,
  ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_PROFILE_COUNTER_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_AST_GENERATION_FAILED,
  ROCPROFILER_STATUS_ERROR_AST_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_AQL_NO_EVENT_COORD,
  ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_KERNEL,
  ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES,
  ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND,
  ROCPROFILER_STATUS_ERROR_AGENT_DISPATCH_CONFLICT,
  ROCPROFILER_STATUS_INTERNAL_NO_AGENT_CONTEXT,
  ROCPROFILER_STATUS_ERROR_SAMPLE_RATE_EXCEEDED,
  ROCPROFILER_STATUS_ERROR_NO_PROFILE_QUEUE,
  ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS,
  ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH,
  ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE,
  ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT,
  ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED,
  ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED,
  ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_REGISTER_VERSION,
  ROCPROFILER_STATUS_LAST,
} rocprofiler_status_t;

/** Agent type. */
typedef enum rocprofiler_agent_type_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_AGENT_TYPE_NONE = 0,
  ROCPROFILER_AGENT_TYPE_CPU,
  ROCPROFILER_AGENT_TYPE_GPU,
  ROCPROFILER_AGENT_TYPE_LAST,
} rocprofiler_agent_type_t;

/** Callback phase. ENTER/EXIT for API calls; LOAD/UNLOAD alias them for code objects. */
typedef enum rocprofiler_callback_phase_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_CALLBACK_PHASE_NONE = 0,
  ROCPROFILER_CALLBACK_PHASE_ENTER,
  ROCPROFILER_CALLBACK_PHASE_LOAD = ROCPROFILER_CALLBACK_PHASE_ENTER,
  ROCPROFILER_CALLBACK_PHASE_EXIT,
  ROCPROFILER_CALLBACK_PHASE_UNLOAD = ROCPROFILER_CALLBACK_PHASE_EXIT,
  ROCPROFILER_CALLBACK_PHASE_LAST,
} rocprofiler_callback_phase_t;

/** Callback tracing kinds. 1..21 as in the reference SDK (2025), 22..25 as the reference's
 *  later additions, then encore's own kinds (HIP_EVENT, CUDA_DRIVER_API). */
typedef enum rocprofiler_callback_tracing_kind_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_CALLBACK_TRACING_NONE = 0,
  ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
  ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API,
  ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API,
  ROCPROFILER_CALLBACK_TRACING_HSA_FINALIZE_EXT_API,
  ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
  ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API,
  ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
  ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API,
  ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
  ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
  ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY,
  ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
  ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
  ROCPROFILER_CALLBACK_TRACING_RCCL_API,
  ROCPROFILER_CALLBACK_TRACING_OMPT,
  ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION,
  ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION,
  ROCPROFILER_CALLBACK_TRACING_ROCDECODE_API,
  ROCPROFILER_CALLBACK_TRACING_ROCJPEG_API,
  ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
  ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
  ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH,
  ROCPROFILER_CALLBACK_TRACING_ROCSHMEM_API,
  ROCPROFILER_CALLBACK_TRACING_HIPFILE_API,
  ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY,
  ROCPROFILER_CALLBACK_TRACING_HIP_EVENT,       /* encore */
  ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, /* encore */
  /* The reference's open range replay PR appends RANGE_REPLAY after KERNEL_REPLAY, where encore
   * already has HIP_EVENT: encore numbers it after its own kinds instead (docs/replay.md). */
  ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY,
  ROCPROFILER_CALLBACK_TRACING_LAST,
} rocprofiler_callback_tracing_kind_t;

/** Code object operations. */
typedef enum rocprofiler_code_object_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_CODE_OBJECT_NONE = 0,
  ROCPROFILER_CODE_OBJECT_LOAD,
  ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER,
  ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER,
  ROCPROFILER_CODE_OBJECT_LAST,
} rocprofiler_code_object_operation_t;

/** Code object storage types (values of hsa_ven_amd_loader_code_object_storage_type_t). */
typedef enum rocprofiler_code_object_storage_type_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_NONE = 0,
  ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_FILE,
  ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY,
  ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_LAST,
} rocprofiler_code_object_storage_type_t;

/** HIP stream operations. */
typedef enum rocprofiler_hip_stream_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_HIP_STREAM_NONE = 0,
  ROCPROFILER_HIP_STREAM_CREATE,
  ROCPROFILER_HIP_STREAM_DESTROY,
  ROCPROFILER_HIP_STREAM_SET,
  ROCPROFILER_HIP_STREAM_LAST,
} rocprofiler_hip_stream_operation_t;

/** HIP graph operations, named as the reference names them since it added the kind
 *  (ROCPROFILER_HIP_GRAPH_OPERATION_*). */
typedef enum rocprofiler_hip_graph_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_HIP_GRAPH_OPERATION_NONE = 0,
  ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_CREATE,
  ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_DESTROY,
  ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH,
  ROCPROFILER_HIP_GRAPH_OPERATION_LAST,
  /* encore's earlier spellings, without OPERATION_. The reference has no such names; they stay
   * so that tools and encore's own code written against them keep compiling (same values). */
  ROCPROFILER_HIP_GRAPH_NONE = ROCPROFILER_HIP_GRAPH_OPERATION_NONE,
  ROCPROFILER_HIP_GRAPH_EXEC_CREATE = ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_CREATE,
  ROCPROFILER_HIP_GRAPH_EXEC_DESTROY = ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_DESTROY,
  ROCPROFILER_HIP_GRAPH_EXEC_LAUNCH = ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH,
  ROCPROFILER_HIP_GRAPH_LAST = ROCPROFILER_HIP_GRAPH_OPERATION_LAST,
} rocprofiler_hip_graph_operation_t;

/** HIP event operations (encore). */
typedef enum rocprofiler_hip_event_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_HIP_EVENT_NONE = 0,
  ROCPROFILER_HIP_EVENT_RECORD,
  ROCPROFILER_HIP_EVENT_WAIT,
  ROCPROFILER_HIP_EVENT_LAST,
} rocprofiler_hip_event_operation_t;

/** Memory copy directions. */
typedef enum rocprofiler_memory_copy_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_MEMORY_COPY_NONE = 0,
  ROCPROFILER_MEMORY_COPY_HOST_TO_HOST,
  ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE,
  ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST,
  ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE,
  ROCPROFILER_MEMORY_COPY_LAST,
} rocprofiler_memory_copy_operation_t;

/** Memory allocation operations. */
typedef enum rocprofiler_memory_allocation_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_MEMORY_ALLOCATION_NONE = 0,
  ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE,
  ROCPROFILER_MEMORY_ALLOCATION_VMEM_ALLOCATE,
  ROCPROFILER_MEMORY_ALLOCATION_FREE,
  ROCPROFILER_MEMORY_ALLOCATION_VMEM_FREE,
  ROCPROFILER_MEMORY_ALLOCATION_LAST,
} rocprofiler_memory_allocation_operation_t;

/** Kernel dispatch operations. */
typedef enum rocprofiler_kernel_dispatch_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_KERNEL_DISPATCH_NONE = 0,
  ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
  ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
  ROCPROFILER_KERNEL_DISPATCH_LAST,
} rocprofiler_kernel_dispatch_operation_t;

/** Scratch memory operations. */
typedef enum rocprofiler_scratch_memory_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_SCRATCH_MEMORY_NONE = 0,
  ROCPROFILER_SCRATCH_MEMORY_ALLOC,
  ROCPROFILER_SCRATCH_MEMORY_FREE,
  ROCPROFILER_SCRATCH_MEMORY_ASYNC_RECLAIM,
  ROCPROFILER_SCRATCH_MEMORY_LAST,
} rocprofiler_scratch_memory_operation_t;

/** Runtime initialization operations (which runtime was initialized). */
typedef enum rocprofiler_runtime_initialization_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_RUNTIME_INITIALIZATION_NONE = 0,
  ROCPROFILER_RUNTIME_INITIALIZATION_HSA,
  ROCPROFILER_RUNTIME_INITIALIZATION_HIP,
  ROCPROFILER_RUNTIME_INITIALIZATION_MARKER,
  ROCPROFILER_RUNTIME_INITIALIZATION_RCCL,
  ROCPROFILER_RUNTIME_INITIALIZATION_ROCDECODE,
  ROCPROFILER_RUNTIME_INITIALIZATION_ROCJPEG,
  ROCPROFILER_RUNTIME_INITIALIZATION_ROCSHMEM,
  ROCPROFILER_RUNTIME_INITIALIZATION_HIPFILE,
  ROCPROFILER_RUNTIME_INITIALIZATION_CUDA,
  ROCPROFILER_RUNTIME_INITIALIZATION_LAST,
} rocprofiler_runtime_initialization_operation_t;

/** Kernel replay operations (experimental). SNAPSHOT/RESTORE are encore's additions (the
 *  reference lists them as future work). */
typedef enum rocprofiler_kernel_replay_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_KERNEL_REPLAY_NONE = 0,
  ROCPROFILER_KERNEL_REPLAY_CONFIG,
  ROCPROFILER_KERNEL_REPLAY_PASS,
  ROCPROFILER_KERNEL_REPLAY_SNAPSHOT,
  ROCPROFILER_KERNEL_REPLAY_RESTORE,
  ROCPROFILER_KERNEL_REPLAY_LAST,
} rocprofiler_kernel_replay_operation_t;

/* Operations of ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY (values as the reference's PR). */
typedef enum rocprofiler_range_replay_operation_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_RANGE_REPLAY_NONE = 0,
  ROCPROFILER_RANGE_REPLAY_CONFIG = 1, /**< in rocprofiler_range_replay_begin: the tool sets the pass count */
  ROCPROFILER_RANGE_REPLAY_PASS,       /**< around each re-executed pass */
  ROCPROFILER_RANGE_REPLAY_CLOSE,      /**< in rocprofiler_range_replay_end: the outcome */
  ROCPROFILER_RANGE_REPLAY_LAST,
} rocprofiler_range_replay_operation_t;

/** External correlation id request kinds (one per traced kind that can carry one). */
typedef enum rocprofiler_external_correlation_id_request_kind_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE = 0,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_CORE_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_AMD_EXT_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_IMAGE_EXT_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_FINALIZE_EXT_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_COMPILER_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CORE_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CONTROL_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_NAME_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_RCCL_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_OMPT,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_ALLOCATION,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_ROCDECODE_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_ROCJPEG_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CORE_RANGE_API,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST,
} rocprofiler_external_correlation_id_request_kind_t;

/** Operation id within a kind. */
typedef int32_t rocprofiler_tracing_operation_t;
/** Monotonic timestamp in nanoseconds (CLOCK_BOOTTIME). */
typedef uint64_t rocprofiler_timestamp_t;
/** Operating-system thread id (gettid). */
typedef uint64_t rocprofiler_thread_id_t;
typedef uint64_t rocprofiler_dispatch_id_t;
typedef uint64_t rocprofiler_kernel_id_t;
typedef uint64_t rocprofiler_address_t_value;

/** User data: a value or a pointer, retained by encore between paired callbacks. */
typedef union rocprofiler_user_data_t {
    uint64_t value;
    void* ptr;
} rocprofiler_user_data_t;

typedef struct rocprofiler_context_id_t {
    uint64_t handle;
} rocprofiler_context_id_t;

typedef struct rocprofiler_agent_id_t {
    uint64_t handle;
} rocprofiler_agent_id_t;

typedef struct rocprofiler_queue_id_t {
    uint64_t handle;
} rocprofiler_queue_id_t;

typedef struct rocprofiler_buffer_id_t {
    uint64_t handle;
} rocprofiler_buffer_id_t;

typedef union rocprofiler_address_t {
    uint64_t handle; /* the reference's first member (so the handle operators and hashes apply) */
    uint64_t value;
    const void* ptr;
} rocprofiler_address_t;

typedef struct rocprofiler_dim3_t {
    uint32_t x;
    uint32_t y;
    uint32_t z;
} rocprofiler_dim3_t;

/** A device's universally unique id: 16 bytes (rocprofiler_agent_v0_t.uuid). */
typedef struct rocprofiler_uuid_t {
    uint8_t bytes[16];
} rocprofiler_uuid_t;

/** Correlation ids: internal (unique per traced call), external (tool-provided, per context
 *  and thread), ancestor (internal id of the traced call that enclosed this one, 0 if none). */
typedef struct rocprofiler_correlation_id_t {
    uint64_t internal;
    rocprofiler_user_data_t external;
    uint64_t ancestor;
} rocprofiler_correlation_id_t;

/** One callback record. `payload` points at the kind's payload struct (see callback_tracing.h);
 *  it is valid only during the callback. */
typedef struct rocprofiler_callback_tracing_record_t {
    rocprofiler_context_id_t context_id;
    rocprofiler_thread_id_t thread_id;
    rocprofiler_correlation_id_t correlation_id;
    rocprofiler_callback_tracing_kind_t kind;
    rocprofiler_tracing_operation_t operation;
    rocprofiler_callback_phase_t phase;
    void* payload;
} rocprofiler_callback_tracing_record_t;

/** Kernel dispatch information; fixed at 128 bytes as in the reference. */
typedef struct rocprofiler_kernel_dispatch_info_t {
    uint64_t size;
    rocprofiler_agent_id_t agent_id;
    rocprofiler_queue_id_t queue_id;
    rocprofiler_kernel_id_t kernel_id;
    rocprofiler_dispatch_id_t dispatch_id;
    uint32_t private_segment_size;
    uint32_t group_segment_size;
    rocprofiler_dim3_t workgroup_size;
    rocprofiler_dim3_t grid_size;
    uint8_t reserved_padding[56];
} rocprofiler_kernel_dispatch_info_t;

/** Client (tool) identifier filled in by encore at registration. */
typedef struct rocprofiler_client_id_t {
    size_t size;
    const char* name;
    uint32_t handle;
} rocprofiler_client_id_t;

typedef void (*rocprofiler_client_finalize_t)(rocprofiler_client_id_t);

/** A version as its three numbers (rocprofiler_get_version_triplet). */
typedef struct rocprofiler_version_triplet_t {
    uint32_t major;
    uint32_t minor;
    uint32_t patch;
} rocprofiler_version_triplet_t;

/* ---- counters (counters.h, counter_config.h, dispatch_counting_service.h, pc_sampling.h) ----
 * Names, members and values as the reference's fwd.h. */

/* ---- buffers and buffer tracing (buffer.h, buffer_tracing.h, internal_threading.h) ---------- */

/** What a buffer record is: the `category` of its rocprofiler_record_header_t. */
typedef enum rocprofiler_buffer_category_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_BUFFER_CATEGORY_NONE = 0,
  ROCPROFILER_BUFFER_CATEGORY_TRACING,
  ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING,
  ROCPROFILER_BUFFER_CATEGORY_COUNTERS,
  ROCPROFILER_BUFFER_CATEGORY_LAST,
} rocprofiler_buffer_category_t;

/** What a producer does when its part of a buffer is full: DISCARD drops the record (counted,
 *  reported as the next delivery's drop_count), LOSSLESS waits until the consumer frees space. */
typedef enum rocprofiler_buffer_policy_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_BUFFER_POLICY_NONE = 0,
  ROCPROFILER_BUFFER_POLICY_DISCARD,
  ROCPROFILER_BUFFER_POLICY_LOSSLESS,
  ROCPROFILER_BUFFER_POLICY_LAST,
} rocprofiler_buffer_policy_t;

/** Buffer tracing kinds: the reference's (2025) names and values, then encore's additions:
 *  PAGE_MIGRATION is the 2024 reference's name (its KFD kinds replaced it; nothing produces it
 *  in encore), CUDA_DRIVER_API is encore's CUDA driver API kind. */
typedef enum rocprofiler_buffer_tracing_kind_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_BUFFER_TRACING_NONE = 0,
  ROCPROFILER_BUFFER_TRACING_HSA_CORE_API,
  ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API,
  ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API,
  ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API,
  ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
  ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API,
  ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API,
  ROCPROFILER_BUFFER_TRACING_MARKER_CONTROL_API,
  ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API,
  ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
  ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
  ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY,
  ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT,
  ROCPROFILER_BUFFER_TRACING_RCCL_API,
  ROCPROFILER_BUFFER_TRACING_OMPT,
  ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION,
  ROCPROFILER_BUFFER_TRACING_RUNTIME_INITIALIZATION,
  ROCPROFILER_BUFFER_TRACING_ROCDECODE_API,
  ROCPROFILER_BUFFER_TRACING_ROCJPEG_API,
  ROCPROFILER_BUFFER_TRACING_HIP_STREAM,
  ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API_EXT,
  ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API_EXT,
  ROCPROFILER_BUFFER_TRACING_ROCDECODE_API_EXT,
  ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_MIGRATE,
  ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_FAULT,
  ROCPROFILER_BUFFER_TRACING_KFD_EVENT_QUEUE,
  ROCPROFILER_BUFFER_TRACING_KFD_EVENT_UNMAP_FROM_GPU,
  ROCPROFILER_BUFFER_TRACING_KFD_EVENT_DROPPED_EVENTS,
  ROCPROFILER_BUFFER_TRACING_KFD_PAGE_MIGRATE,
  ROCPROFILER_BUFFER_TRACING_KFD_PAGE_FAULT,
  ROCPROFILER_BUFFER_TRACING_KFD_QUEUE,
  ROCPROFILER_BUFFER_TRACING_MARKER_CORE_RANGE_API,
  ROCPROFILER_BUFFER_TRACING_PAGE_MIGRATION,  /* encore: the 2024 reference's name */
  ROCPROFILER_BUFFER_TRACING_CUDA_DRIVER_API, /* encore */
  ROCPROFILER_BUFFER_TRACING_LAST,
} rocprofiler_buffer_tracing_kind_t;

/** Libraries that create internal threads (rocprofiler_at_internal_thread_create), as bits. */
typedef enum rocprofiler_runtime_library_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_LIBRARY = (1 << 0),
  ROCPROFILER_HSA_LIBRARY = (1 << 1),
  ROCPROFILER_HIP_LIBRARY = (1 << 2),
  ROCPROFILER_MARKER_LIBRARY = (1 << 3),
  ROCPROFILER_RCCL_LIBRARY = (1 << 4),
  ROCPROFILER_ROCDECODE_LIBRARY = (1 << 5),
  ROCPROFILER_ROCJPEG_LIBRARY = (1 << 6),
  ROCPROFILER_LIBRARY_LAST = ROCPROFILER_ROCJPEG_LIBRARY,
} rocprofiler_runtime_library_t;

/** Correlation ids of an asynchronous record (a dispatch, a copy): no ancestor. */
typedef struct rocprofiler_async_correlation_id_t {
    uint64_t internal;
    rocprofiler_user_data_t external;
} rocprofiler_async_correlation_id_t;

/** A counter an agent can count (rocprofiler_iterate_agent_supported_counters). */
typedef struct rocprofiler_counter_id_t {
    uint64_t handle;
} rocprofiler_counter_id_t;

/** A set of counters for one agent (rocprofiler_create_counter_config); 0 is no config. */
typedef struct rocprofiler_counter_config_id_t {
    uint64_t handle;
} rocprofiler_counter_config_id_t;

/** A record's counter and its position in each of the counter's dimensions, in one number
 *  (decoded by rocprofiler_query_record_counter_id / _dimension_position). */
typedef uint64_t rocprofiler_counter_instance_id_t;
/** A dimension of a counter's instances. */
typedef uint64_t rocprofiler_counter_dimension_id_t;

/** Version of the struct rocprofiler_query_counter_info fills. */
typedef enum rocprofiler_counter_info_version_id_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_COUNTER_INFO_VERSION_NONE,
  ROCPROFILER_COUNTER_INFO_VERSION_0,
  ROCPROFILER_COUNTER_INFO_VERSION_1,
  ROCPROFILER_COUNTER_INFO_VERSION_LAST,
} rocprofiler_counter_info_version_id_t;

/** Kinds of records in the COUNTERS buffer category. */
typedef enum rocprofiler_counter_record_kind_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_COUNTER_RECORD_NONE = 0,
  ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER,
  ROCPROFILER_COUNTER_RECORD_VALUE,
  ROCPROFILER_COUNTER_RECORD_LAST,
} rocprofiler_counter_record_kind_t;

/** Flags of some counter calls (device counting). */
typedef enum rocprofiler_counter_flag_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_COUNTER_FLAG_NONE = 0,
  ROCPROFILER_COUNTER_FLAG_ASYNC,
  ROCPROFILER_COUNTER_FLAG_APPEND_DEFINITION,
  ROCPROFILER_COUNTER_FLAG_LAST,
} rocprofiler_counter_flag_t;

/** PC sampling methods (pc_sampling.h; encore has none: docs/counters.md). */
typedef enum rocprofiler_pc_sampling_method_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_PC_SAMPLING_METHOD_NONE = 0,
  ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC,
  ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP,
  ROCPROFILER_PC_SAMPLING_METHOD_LAST,
} rocprofiler_pc_sampling_method_t;

/** Units of a PC sampling interval. */
typedef enum rocprofiler_pc_sampling_unit_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_PC_SAMPLING_UNIT_NONE = 0,
  ROCPROFILER_PC_SAMPLING_UNIT_INSTRUCTIONS,
  ROCPROFILER_PC_SAMPLING_UNIT_CYCLES,
  ROCPROFILER_PC_SAMPLING_UNIT_TIME,
  ROCPROFILER_PC_SAMPLING_UNIT_LAST,
} rocprofiler_pc_sampling_unit_t;

/** Kinds of records in the PC_SAMPLING buffer category. */
typedef enum rocprofiler_pc_sampling_record_kind_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_PC_SAMPLING_RECORD_NONE = 0,
  ROCPROFILER_PC_SAMPLING_RECORD_INVALID_SAMPLE,
  ROCPROFILER_PC_SAMPLING_RECORD_HOST_TRAP_V0_SAMPLE,
  ROCPROFILER_PC_SAMPLING_RECORD_STOCHASTIC_V0_SAMPLE,
  ROCPROFILER_PC_SAMPLING_RECORD_LAST,
} rocprofiler_pc_sampling_record_kind_t;

/** A dimension of a counter: its name, how many positions it has, its id. */
typedef struct rocprofiler_counter_record_dimension_info_t {
    const char* name;
    size_t instance_size;
    rocprofiler_counter_dimension_id_t id;
} rocprofiler_counter_record_dimension_info_t;
/** The reference's earlier name. */
typedef rocprofiler_counter_record_dimension_info_t rocprofiler_record_dimension_info_t;

/** One counter instance's value for one dispatch (dispatch_id > 0). */
typedef struct rocprofiler_counter_record_t {
    rocprofiler_counter_instance_id_t id;
    double counter_value;
    rocprofiler_dispatch_id_t dispatch_id;
    rocprofiler_user_data_t user_data;
    rocprofiler_agent_id_t agent_id;
} rocprofiler_counter_record_t;
/** The reference's earlier name. */
typedef rocprofiler_counter_record_t rocprofiler_record_counter_t;

#if !defined(ROCPROFILER_SDK_BETA_COMPAT) || ROCPROFILER_SDK_BETA_COMPAT > 0
/** The reference renamed "profile_config" to "counter_config"; the old name stays. */
typedef rocprofiler_counter_config_id_t rocprofiler_profile_config_id_t;
#endif

/** One record a buffer delivers: category + kind (or both as `hash`) say what `payload` points
 *  at (buffer_tracing.h's record structs for the TRACING category). */
typedef struct rocprofiler_record_header_t {
    ROCPROFILER_ANONYMOUS union {
        ROCPROFILER_ANONYMOUS struct {
            uint32_t category;
            uint32_t kind;
        };
        uint64_t hash;
    };
    void* payload;
} rocprofiler_record_header_t;

/** The `hash` of a record header with this category and kind. */
static inline uint64_t rocprofiler_record_header_compute_hash(uint32_t category, uint32_t kind) {
    uint64_t value = category;
    value |= ((uint64_t)(kind)) << 32;
    return value;
}

ROCPROFILER_EXTERN_C_FINI

#if defined(__cplusplus)
static_assert(sizeof(rocprofiler_kernel_dispatch_info_t) == 128,
              "rocprofiler_kernel_dispatch_info_t must stay 128 bytes (ABI)");
#endif
