/* rocprofiler-sdk/callback_tracing.h — synchronous callback tracing (the seed's C API).
 *
 *   rocprofiler_context_id_t ctx;
 *   rocprofiler_create_context(&ctx);
 *   rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
 *                                                  NULL, 0, my_callback, my_data);
 *   rocprofiler_start_context(ctx);
 *
 * my_callback runs on the calling thread before (ENTER) and after (EXIT) each traced call; the
 * user_data it receives is retained between the two. See docs/tracing.md.
 *
 * Payload structs: API kinds point at {size, args, retval}. `args` holds the call's parameters
 * by value, one member per function as the reference SDK declares it (data->args.hipMalloc.size,
 * the unions are in rocprofiler-sdk/{hsa,hip,marker}/api_args.h); or iterate them as strings
 * with rocprofiler_iterate_callback_tracing_kind_operation_args (in C++ also encore::args_of).
 */
#pragma once

#include <encore/config.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>
#if ENCORE_HIP_HEADERS
#    include <rocprofiler-sdk/hip/api_args.h>
#endif
#if ENCORE_HSA_HEADERS
#    include <rocprofiler-sdk/hsa/api_args.h>
#endif
#include <rocprofiler-sdk/hsa/scratch_memory_args.h>
#include <rocprofiler-sdk/hsa/scratch_memory_id.h>
#include <rocprofiler-sdk/marker/api_args.h>
#include <rocprofiler-sdk/ompt.h>
#include <rocprofiler-sdk/rccl.h>
#if ENCORE_HIP_HEADERS /* rocDecode, rocJPEG, rocSHMEM and hipFile's types are HIP's */
#    include <rocprofiler-sdk/hipfile.h>
#    include <rocprofiler-sdk/rocdecode.h>
#    include <rocprofiler-sdk/rocjpeg.h>
#    include <rocprofiler-sdk/rocshmem.h>
#endif

#if ENCORE_HSA_HEADERS
#    include <hsa/hsa.h>
#endif

#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

/* A build without HSA's or HIP's headers (encore/config.h: a CUDA-only install) declares their
 * API payloads without members: a tool can name them, not read them. */
#if ENCORE_HSA_HEADERS
/** Payload of the HSA_*_API kinds. */
typedef struct rocprofiler_callback_tracing_hsa_api_data_t {
    uint64_t size;
    rocprofiler_hsa_api_args_t args;
    rocprofiler_hsa_api_retval_t retval;
} rocprofiler_callback_tracing_hsa_api_data_t;
#else
typedef struct rocprofiler_callback_tracing_hsa_api_data_t rocprofiler_callback_tracing_hsa_api_data_t;
#endif

#if ENCORE_HIP_HEADERS
/** Payload of the HIP_RUNTIME_API and HIP_COMPILER_API kinds. */
typedef struct rocprofiler_callback_tracing_hip_api_data_t {
    uint64_t size;
    rocprofiler_hip_api_args_t args;
    rocprofiler_hip_api_retval_t retval;
} rocprofiler_callback_tracing_hip_api_data_t;
#else
typedef struct rocprofiler_callback_tracing_hip_api_data_t rocprofiler_callback_tracing_hip_api_data_t;
#endif

/** Payload of the MARKER_CORE_API, MARKER_CONTROL_API and MARKER_NAME_API kinds. */
typedef struct rocprofiler_callback_tracing_marker_api_data_t {
    uint64_t size;
    rocprofiler_marker_api_args_t args;
    rocprofiler_marker_api_retval_t retval;
} rocprofiler_callback_tracing_marker_api_data_t;

/** Payload of ROCPROFILER_CALLBACK_TRACING_OMPT (rocprofiler-sdk/ompt.h): the callback's
 * arguments; OMPT callbacks return nothing. */
typedef struct rocprofiler_callback_tracing_ompt_data_t {
    uint64_t size;
    rocprofiler_ompt_args_t args;
} rocprofiler_callback_tracing_ompt_data_t;

/** Payload of CODE_OBJECT / CODE_OBJECT_LOAD. */
typedef struct rocprofiler_callback_tracing_code_object_load_data_t {
    uint64_t size;
    uint64_t code_object_id;
    ROCPROFILER_ANONYMOUS union {
        rocprofiler_agent_id_t rocp_agent; /* deprecated name */
        rocprofiler_agent_id_t agent_id;
    };
#if ENCORE_HSA_HEADERS
    hsa_agent_t hsa_agent; /* the same agent as the runtime's handle (the reference deprecates it) */
#else
    struct {
        uint64_t handle;
    } hsa_agent; /* hsa_agent_t's layout, without HSA's headers */
#endif
    const char* uri;
    uint64_t load_base;
    uint64_t load_size;
    int64_t load_delta;
    rocprofiler_code_object_storage_type_t storage_type;
    ROCPROFILER_ANONYMOUS union {
        ROCPROFILER_ANONYMOUS struct { int storage_file; };
        ROCPROFILER_ANONYMOUS struct {
            uint64_t memory_base;
            uint64_t memory_size;
        };
    };
} rocprofiler_callback_tracing_code_object_load_data_t;

/** Payload of CODE_OBJECT / DEVICE_KERNEL_SYMBOL_REGISTER. */
typedef struct rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
    uint64_t size;
    uint64_t kernel_id;
    uint64_t code_object_id;
    const char* kernel_name;
    uint64_t kernel_object;
    uint32_t kernarg_segment_size;
    uint32_t kernarg_segment_alignment;
    uint32_t group_segment_size;
    uint32_t private_segment_size;
    uint32_t sgpr_count;
    uint32_t arch_vgpr_count;
    uint32_t accum_vgpr_count;
} rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;

/** Payload of CODE_OBJECT / HOST_KERNEL_SYMBOL_REGISTER. */
typedef struct rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t {
    uint64_t size;
    uint64_t host_function_id;
    uint64_t kernel_id;
    uint64_t code_object_id;
    const void* host_function;
    const char* device_function;
} rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t;

/** Payload of KERNEL_DISPATCH. Timestamps are set at COMPLETE. */
typedef struct rocprofiler_callback_tracing_kernel_dispatch_data_t {
    uint64_t size;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_callback_tracing_kernel_dispatch_data_t;

/** Payload of MEMORY_COPY. Timestamps are non-zero only at EXIT. */
typedef struct rocprofiler_callback_tracing_memory_copy_data_t {
    uint64_t size;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_agent_id_t dst_agent_id;
    rocprofiler_agent_id_t src_agent_id;
    uint64_t bytes;
    rocprofiler_address_t dst_address;
    rocprofiler_address_t src_address;
} rocprofiler_callback_tracing_memory_copy_data_t;

/** Payload of MEMORY_ALLOCATION. */
typedef struct rocprofiler_callback_tracing_memory_allocation_data_t {
    uint64_t size;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
    rocprofiler_agent_id_t agent_id;
    rocprofiler_address_t address;
    uint64_t allocation_size;
} rocprofiler_callback_tracing_memory_allocation_data_t;

/** Payload of SCRATCH_MEMORY: the HSA runtime's scratch event of this phase (ENTER: its *_START
 * event, EXIT: its *_END event; `args_kind` says which) for the queue of `queue_id`. */
typedef struct rocprofiler_callback_tracing_scratch_memory_data_t {
    uint64_t size;
    rocprofiler_agent_id_t agent_id;
    rocprofiler_queue_id_t queue_id;
    rocprofiler_scratch_alloc_flag_t flags;
    hsa_amd_tool_event_kind_t args_kind;
    rocprofiler_scratch_memory_args_t args;
} rocprofiler_callback_tracing_scratch_memory_data_t;

/** Payload of RUNTIME_INITIALIZATION. */
typedef struct rocprofiler_callback_tracing_runtime_initialization_data_t {
    uint64_t size;
    uint64_t version;
    uint64_t instance;
} rocprofiler_callback_tracing_runtime_initialization_data_t;

typedef struct rocprofiler_stream_id_t {
    uint64_t handle;
} rocprofiler_stream_id_t;

/** Payload of HIP_STREAM. stream_id: 0 for the null (default) stream, other streams numbered
 *  from 1 in order of first sight; stream_value: the hipStream_t itself. CREATE and DESTROY are
 *  phase NONE, after a successful hipStreamCreate* / hipStreamDestroy; SET is ENTER/EXIT around
 *  every other HIP call that takes a stream (the stream the call runs on). */
typedef struct rocprofiler_callback_tracing_hip_stream_data_t {
    uint64_t size;
    rocprofiler_stream_id_t stream_id;
    rocprofiler_address_t stream_value;
} rocprofiler_callback_tracing_hip_stream_data_t;

/** A graph exec as HIP_GRAPH records name it: numbered from 1 in order of first sight, 0 for NULL. */
typedef struct rocprofiler_graph_exec_id_t {
    uint64_t handle;
} rocprofiler_graph_exec_id_t;

/** Payload of HIP_GRAPH. EXEC_CREATE / EXEC_DESTROY: phase NONE after a successful
 *  hipGraphInstantiate* / hipGraphExecDestroy; EXEC_LAUNCH: ENTER/EXIT around hipGraphLaunch.
 *  graph_exec_id: the exec's number; graph_exec_value: the hipGraphExec_t itself (the reference's
 *  layout: tools such as Triton's Proton map one to the other). */
typedef struct rocprofiler_callback_tracing_hip_graph_data_t {
    uint64_t size;
    rocprofiler_graph_exec_id_t graph_exec_id;
    rocprofiler_address_t graph_exec_value;
} rocprofiler_callback_tracing_hip_graph_data_t;

/** Payload of HIP_EVENT. Timestamps are non-zero only in the PHASE_NONE callback (barrier
 *  completion); for WAIT, source_queue_id is where the event was recorded; for RECORD it equals
 *  queue_id. encore (HIP interposition, ROCm 5.2): RECORD (hipEventRecord) and WAIT
 *  (hipStreamWaitEvent) are ENTER/EXIT around the call; queue ids are HIP_STREAM stream ids (the
 *  HSA queue under a stream is not visible to an interposer); the PHASE_NONE completion record
 *  is not produced yet, so timestamps are always 0. */
typedef struct rocprofiler_callback_tracing_hip_event_data_t {
    uint64_t size;
    uint64_t event_id;
    rocprofiler_queue_id_t queue_id;
    rocprofiler_queue_id_t source_queue_id;
    rocprofiler_timestamp_t start_timestamp;
    rocprofiler_timestamp_t end_timestamp;
} rocprofiler_callback_tracing_hip_event_data_t;

/** Called before (ENTER) and after (EXIT) each traced call, on the calling thread. The external
 *  correlation id in the record is the top of the context's stack for this thread; a push
 *  during ENTER is what EXIT and the call's asynchronous work see. */
typedef void (*rocprofiler_callback_tracing_cb_t)(rocprofiler_callback_tracing_record_t record,
                                                  rocprofiler_user_data_t* user_data, void* callback_data);

/** Called once per kind by rocprofiler_iterate_callback_tracing_kinds; non-zero stops. */
typedef int (*rocprofiler_callback_tracing_kind_cb_t)(rocprofiler_callback_tracing_kind_t kind, void* data);

/** Called once per operation by rocprofiler_iterate_callback_tracing_kind_operations. */
typedef int (*rocprofiler_callback_tracing_kind_operation_cb_t)(rocprofiler_callback_tracing_kind_t kind,
                                                                rocprofiler_tracing_operation_t operation, void* data);

/** Called once per argument by rocprofiler_iterate_callback_tracing_kind_operation_args;
 *  non-zero stops the iteration. arg_type is typeid(T).name() of the argument's type, as the
 *  reference passes it: the mangled spelling ("PKc", "11hsa_agent_s"), which
 *  abi::__cxa_demangle turns into "char const*", "hsa_agent_s". A static string. */
typedef int (*rocprofiler_callback_tracing_operation_args_cb_t)(
    rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t operation, uint32_t arg_number,
    const void* const arg_value_addr, int32_t arg_indirection_count, const char* arg_type, const char* arg_name,
    const char* arg_value_str, int32_t arg_dereference_count, void* data);

/** Configure a callback tracing service for one kind of one context. Only during tool
 *  initialization. operations == NULL selects every operation of the kind.
 *  Returns CONFIGURATION_LOCKED outside initialization, CONTEXT_NOT_FOUND, KIND_NOT_FOUND,
 *  OPERATION_NOT_FOUND (an operation id the kind does not have; for a kind whose operations this
 *  process does not know, an id outside 0..1023), INVALID_ARGUMENT (null callback, or a non-null
 *  operations array with count 0), SERVICE_ALREADY_CONFIGURED (second call for the same kind on
 *  the same context). Every valid kind configures, produced in this process or not; a configured
 *  kind nothing produced is named, with the reason, at finalization. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_configure_callback_tracing_service(
    rocprofiler_context_id_t context_id, rocprofiler_callback_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, unsigned long operations_count,
    rocprofiler_callback_tracing_cb_t callback, void* callback_args) ROCPROFILER_NOEXCEPT;

/** Name of a kind: a string literal (never freed). name and name_len may each be NULL. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_query_callback_tracing_kind_name(
    rocprofiler_callback_tracing_kind_t kind, const char** name, uint64_t* name_len) ROCPROFILER_NOEXCEPT;

/** Name of an operation of a kind: a string literal. KIND_NOT_FOUND / OPERATION_NOT_FOUND. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_query_callback_tracing_kind_operation_name(
    rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t operation, const char** name,
    uint64_t* name_len) ROCPROFILER_NOEXCEPT;

/** Calls callback for every kind except NONE and LAST; a non-zero return stops. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_iterate_callback_tracing_kinds(
    rocprofiler_callback_tracing_kind_cb_t callback, void* data) ROCPROFILER_NOEXCEPT;

/** Calls callback for every operation of kind (not NONE/LAST); a non-zero return stops. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_iterate_callback_tracing_kind_operations(
    rocprofiler_callback_tracing_kind_t kind, rocprofiler_callback_tracing_kind_operation_cb_t callback,
    void* data) ROCPROFILER_NOEXCEPT;

/** Calls callback once per argument of the record's call. Pointers are followed at most
 *  max_dereference_count times, through a guarded read: a dangling pointer prints as
 *  "<invalid pointer 0x...>" instead of crashing. Use 1 at ENTER (out-parameters may be
 *  uninitialized) and 2 at EXIT. NOT_IMPLEMENTED for kinds without argument lists. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_iterate_callback_tracing_kind_operation_args(
    rocprofiler_callback_tracing_record_t record, rocprofiler_callback_tracing_operation_args_cb_t callback,
    int32_t max_dereference_count, void* user_data) ROCPROFILER_NOEXCEPT;

/* ---- the library API kinds' payloads (docs/libraries.md) ------------------------------------ */

/** Payload of RCCL_API: the call's arguments (args.ncclAllReduce.count, rccl/api_args.h) and, at
 *  EXIT, its return value. */
typedef struct rocprofiler_callback_tracing_rccl_api_data_t {
    uint64_t size;
    rocprofiler_rccl_api_args_t args;
    rocprofiler_rccl_api_retval_t retval;
} rocprofiler_callback_tracing_rccl_api_data_t;

/* rocDecode, rocJPEG, rocSHMEM and hipFile take HIP's types: a build without HIP's headers
 * declares their payloads without members (as the HSA/HIP ones above). */
#if ENCORE_HIP_HEADERS
/** Payload of ROCDECODE_API (rocdecode/api_args.h). */
typedef struct rocprofiler_callback_tracing_rocdecode_api_data_t {
    uint64_t size;
    rocprofiler_rocdecode_api_args_t args;
    rocprofiler_rocdecode_api_retval_t retval;
} rocprofiler_callback_tracing_rocdecode_api_data_t;

/** Payload of ROCJPEG_API (rocjpeg/api_args.h). */
typedef struct rocprofiler_callback_tracing_rocjpeg_api_data_t {
    uint64_t size;
    rocprofiler_rocjpeg_api_args_t args;
    rocprofiler_rocjpeg_api_retval_t retval;
} rocprofiler_callback_tracing_rocjpeg_api_data_t;

/** Payload of ROCSHMEM_API (rocshmem/api_args.h; every traced function returns void). */
typedef struct rocprofiler_callback_tracing_rocshmem_api_data_t {
    uint64_t size;
    rocprofiler_rocshmem_api_args_t args;
    rocprofiler_rocshmem_api_retval_t retval;
} rocprofiler_callback_tracing_rocshmem_api_data_t;

/** Payload of HIPFILE_API (hipfile/api_args.h). */
typedef struct rocprofiler_callback_tracing_hipfile_api_data_t {
    uint64_t size;
    rocprofiler_hipfile_api_args_t args;
    rocprofiler_hipfile_api_retval_t retval;
} rocprofiler_callback_tracing_hipfile_api_data_t;
#else
typedef struct rocprofiler_callback_tracing_rocdecode_api_data_t rocprofiler_callback_tracing_rocdecode_api_data_t;
typedef struct rocprofiler_callback_tracing_rocjpeg_api_data_t rocprofiler_callback_tracing_rocjpeg_api_data_t;
typedef struct rocprofiler_callback_tracing_rocshmem_api_data_t rocprofiler_callback_tracing_rocshmem_api_data_t;
typedef struct rocprofiler_callback_tracing_hipfile_api_data_t rocprofiler_callback_tracing_hipfile_api_data_t;
#endif

/* ---- encore extension (not in the reference SDK) -------------------------------------------- */

/** A callback that gets the record's address instead of a copy. The record (64 bytes) is passed
 *  by value to rocprofiler_callback_tracing_cb_t, which costs a copy per ENTER and per EXIT; this
 *  form skips it. The record is valid only until the callback returns (copy what you keep). */
typedef void (*encore_callback_tracing_ptr_cb_t)(const rocprofiler_callback_tracing_record_t* record,
                                                 rocprofiler_user_data_t* user_data, void* callback_data);

/** rocprofiler_configure_callback_tracing_service with an encore_callback_tracing_ptr_cb_t:
 *  the same rules and status codes; a context has one service per kind whichever form
 *  configured it. */
ROCPROFILER_API rocprofiler_status_t encore_configure_callback_tracing_service_ptr(
    rocprofiler_context_id_t context_id, rocprofiler_callback_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, unsigned long operations_count,
    encore_callback_tracing_ptr_cb_t callback, void* callback_args) ROCPROFILER_NOEXCEPT;

/** Where the payload of an API kind's records keeps one operation's arguments and return value:
 *  a tool may copy those bytes at the call (no formatting on the program's thread) and format
 *  them later, in any process of the same build, with
 *  rocprofiler_iterate_callback_tracing_kind_operation_args on a payload rebuilt from the bytes
 *  (a zeroed `payload_size` buffer with its first 8 bytes set to `payload_size`) and
 *  max_dereference_count 0: pointers then print as addresses and are never read. */
typedef struct encore_operation_payload_layout_t {
    uint64_t size;          /**< in: sizeof(encore_operation_payload_layout_t) */
    uint64_t payload_size;  /**< the payload struct's size (its first field holds it) */
    uint64_t args_offset;   /**< where the arguments start in the payload */
    uint64_t args_size;     /**< this operation's argument bytes, from args_offset */
    uint64_t retval_offset; /**< where the return value is (written at EXIT) */
    uint64_t retval_size;   /**< the payload's return-value member's size */
} encore_operation_payload_layout_t;

/** SUCCESS and *layout filled; KIND_NOT_FOUND for an id that is no kind; NOT_IMPLEMENTED for a
 *  kind whose operations have no arguments to iterate, or whose library is not in this process;
 *  OPERATION_NOT_FOUND for an operation the kind does not have; INVALID_ARGUMENT for a null
 *  `layout` or a `layout->size` below the struct's. */
ROCPROFILER_API rocprofiler_status_t encore_query_operation_payload_layout(
    rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t operation,
    encore_operation_payload_layout_t* layout) ROCPROFILER_NOEXCEPT;

/** The return value in an API record's payload as text, formatted as argument iteration formats
 *  an argument of its type (an enum by name: "HSA_STATUS_SUCCESS", "hipErrorNoDevice"; a pointer
 *  as an address, followed `max_dereference_count` deep: 0 never reads it). Meaningful at EXIT,
 *  where the call wrote it. An operation that returns nothing gives "". Writes at most `size`
 *  bytes, the terminating NUL included, into `buf` (cut to fit; `buf` may be null when `size` is
 *  0) and the whole text's length, without the NUL, into `*length` when `length` is not null.
 *  SUCCESS; KIND_NOT_FOUND for an id that is no kind; NOT_IMPLEMENTED for a kind whose records
 *  carry no return value to format, or whose library is not in this process; OPERATION_NOT_FOUND
 *  for an operation the kind does not have; INVALID_ARGUMENT for a payload that is null,
 *  unreadable or of another size, a null `buf` with `size` > 0, a negative max_dereference_count,
 *  or nothing to write to (`buf` null and `length` null). */
ROCPROFILER_API rocprofiler_status_t encore_format_callback_tracing_retval(rocprofiler_callback_tracing_record_t record,
                                                                           int32_t max_dereference_count, char* buf,
                                                                           size_t size,
                                                                           size_t* length) ROCPROFILER_NOEXCEPT;

ROCPROFILER_EXTERN_C_FINI
