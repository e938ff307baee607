/* test/c_api/c_all_kinds.c — every payload struct of the seed's callback-tracing API named from C11
 * (-Wpedantic), and every kind's operations iterated and printed by name.
 *
 * It is a program, not a tool: the name queries and iterations work outside a tool's
 * initialization. It prints "kind operation-name" lines (the e2e check counts them against the
 * C API's own operation counts) and fails when a kind's operation has no name, when a payload's
 * `size` member is not its first, or when an operation id iterated is not accepted by the name
 * query. */
#include <rocprofiler-sdk/experimental/kernel_replay.h> /* the replay payload: experimental, as in the reference */
#include <rocprofiler-sdk/experimental/range_replay.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Each payload the seed lists, named in C: a tool reads `size` first to know the layout. */
#define PAYLOAD(T) \
    { #T, sizeof(T), offsetof(T, size) }
struct payload_info {
    const char* name;
    size_t bytes;
    size_t size_offset;
};
static const struct payload_info payloads[] = {
    PAYLOAD(rocprofiler_callback_tracing_hsa_api_data_t),
#if ENCORE_HIP_HEADERS /* HIP's payloads and the libraries' (their types are HIP's) need HIP's headers */
    PAYLOAD(rocprofiler_callback_tracing_hip_api_data_t),
#endif
    PAYLOAD(rocprofiler_callback_tracing_marker_api_data_t),
    PAYLOAD(rocprofiler_callback_tracing_code_object_load_data_t),
    PAYLOAD(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t),
    PAYLOAD(rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t),
    PAYLOAD(rocprofiler_callback_tracing_kernel_dispatch_data_t),
    PAYLOAD(rocprofiler_callback_tracing_memory_copy_data_t),
    PAYLOAD(rocprofiler_callback_tracing_memory_allocation_data_t),
    PAYLOAD(rocprofiler_callback_tracing_scratch_memory_data_t),
    PAYLOAD(rocprofiler_callback_tracing_runtime_initialization_data_t),
#if ENCORE_HIP_HEADERS
    PAYLOAD(rocprofiler_callback_tracing_hip_stream_data_t),
    PAYLOAD(rocprofiler_callback_tracing_hip_event_data_t),
    PAYLOAD(rocprofiler_callback_tracing_hip_graph_data_t),
#endif
    PAYLOAD(rocprofiler_callback_tracing_kernel_replay_data_t),
    PAYLOAD(rocprofiler_callback_tracing_range_replay_data_t),
    PAYLOAD(rocprofiler_callback_tracing_ompt_data_t),
#if ENCORE_HIP_HEADERS
    PAYLOAD(rocprofiler_callback_tracing_rccl_api_data_t),
    PAYLOAD(rocprofiler_callback_tracing_rocdecode_api_data_t),
    PAYLOAD(rocprofiler_callback_tracing_rocjpeg_api_data_t),
    PAYLOAD(rocprofiler_callback_tracing_rocshmem_api_data_t),
    PAYLOAD(rocprofiler_callback_tracing_hipfile_api_data_t),
#endif
};

/* The kinds whose domains take HIP's types (HIP's own and the libraries'): a build without HIP's
 * headers (-Dhip=disabled) has none of their operations. */
static int hip_typed(rocprofiler_callback_tracing_kind_t k) {
    return k == ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API || k == ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API ||
           k == ROCPROFILER_CALLBACK_TRACING_RCCL_API || k == ROCPROFILER_CALLBACK_TRACING_ROCDECODE_API ||
           k == ROCPROFILER_CALLBACK_TRACING_ROCJPEG_API || k == ROCPROFILER_CALLBACK_TRACING_ROCSHMEM_API ||
           k == ROCPROFILER_CALLBACK_TRACING_HIPFILE_API;
}

static int failures = 0;
static int kinds_seen = 0;
static int operations_seen = 0;

static int on_operation(rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t op, void* data) {
    const char* kind_name = (const char*)data;
    const char* name = NULL;
    uint64_t len = 0;
    if (rocprofiler_query_callback_tracing_kind_operation_name(kind, op, &name, &len) != ROCPROFILER_STATUS_SUCCESS ||
        name == NULL || len == 0 || strlen(name) != len) {
        printf("FAIL: %s operation %d has no name\n", kind_name, (int)op);
        ++failures;
        return 0;
    }
    printf("%s %s\n", kind_name, name);
    ++operations_seen;
    return 0;
}

static int on_kind(rocprofiler_callback_tracing_kind_t kind, void* data) {
    const char* name = NULL;
    uint64_t len = 0;
    (void)data;
    if (rocprofiler_query_callback_tracing_kind_name(kind, &name, &len) != ROCPROFILER_STATUS_SUCCESS || name == NULL) {
        printf("FAIL: kind %d has no name\n", (int)kind);
        ++failures;
        return 0;
    }
    ++kinds_seen;
    const rocprofiler_status_t st = rocprofiler_iterate_callback_tracing_kind_operations(kind, &on_operation,
                                                                                         (void*)name);
    /* CUDA_DRIVER_API's operations come with libencore-cuda, which this program does not load: the
     * documented NOT_IMPLEMENTED (docs/c-api.md). Every other kind has its operations. */
    if (st == ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED && kind == ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API) {
        printf("%s (operations come with libencore-cuda)\n", name);
    } else if (st == ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED && !ENCORE_HIP_HEADERS && hip_typed(kind)) {
        printf("%s (a build without HIP's headers has no HIP or library domains)\n", name);
    } else if (st != ROCPROFILER_STATUS_SUCCESS) {
        printf("FAIL: %s: its operations cannot be iterated\n", name);
        ++failures;
    }
    return 0;
}

int main(void) {
    size_t i;
    for (i = 0; i < sizeof(payloads) / sizeof(payloads[0]); ++i) {
        if (payloads[i].size_offset != 0 || payloads[i].bytes < sizeof(uint64_t)) {
            printf("FAIL: %s: size is not its first member\n", payloads[i].name);
            ++failures;
        }
    }
    if (rocprofiler_iterate_callback_tracing_kinds(&on_kind, NULL) != ROCPROFILER_STATUS_SUCCESS) {
        printf("FAIL: the kinds cannot be iterated\n");
        ++failures;
    }
    printf("payloads %u kinds %d operations %d failures %d\n", (unsigned)(sizeof(payloads) / sizeof(payloads[0])),
           kinds_seen, operations_seen, failures);
    return failures == 0 && kinds_seen == ROCPROFILER_CALLBACK_TRACING_LAST - 1 ? 0 : 1;
}
