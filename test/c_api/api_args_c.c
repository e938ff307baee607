/* test/c_api/api_args_c.c — a C11 tool's reads of payload members through the C headers alone
 * (built with -std=c11 -Wpedantic and the project's -Werror): the C++ tests compare these with
 * the same record's members read in C++ and with argument iteration. */
#include "api_args_c.h"

#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/hip/runtime_api_id.h>

#include <stddef.h>

uint64_t c_hsa_queue_create_size(const void* payload) {
    const rocprofiler_callback_tracing_hsa_api_data_t* d = payload;
    return d->args.hsa_queue_create.size;
}
uint64_t c_hsa_memory_allocate_size(const void* payload) {
    const rocprofiler_callback_tracing_hsa_api_data_t* d = payload;
    return d->args.hsa_memory_allocate.size;
}
int c_hsa_agent_get_info_attribute(const void* payload) {
    const rocprofiler_callback_tracing_hsa_api_data_t* d = payload;
    return (int)d->args.hsa_agent_get_info.attribute;
}
int c_hsa_status_retval(const void* payload) {
    const rocprofiler_callback_tracing_hsa_api_data_t* d = payload;
    return (int)d->retval.hsa_status_t_retval;
}
size_t c_hsa_queue_create_size_offset(void) { return offsetof(rocprofiler_hsa_api_args_t, hsa_queue_create.size); }

#if ENCORE_HIP_HEADERS /* HIP's payloads need HIP's types (test_api_args_hip, built where they are) */
uint64_t c_hip_malloc_size(const void* payload) {
    const rocprofiler_callback_tracing_hip_api_data_t* d = payload;
    return d->args.hipMalloc.size;
}
void* c_hip_malloc_ptr(const void* payload) {
    const rocprofiler_callback_tracing_hip_api_data_t* d = payload;
    return (void*)d->args.hipMalloc.ptr;
}
uint64_t c_hip_memcpy_size_bytes(const void* payload) {
    const rocprofiler_callback_tracing_hip_api_data_t* d = payload;
    return d->args.hipMemcpy.sizeBytes;
}
int c_hip_memcpy_kind(const void* payload) {
    const rocprofiler_callback_tracing_hip_api_data_t* d = payload;
    return (int)d->args.hipMemcpy.kind;
}
uint32_t c_hip_launch_kernel_grid_y(const void* payload) {
    const rocprofiler_callback_tracing_hip_api_data_t* d = payload;
    return d->args.hipLaunchKernel.numBlocks.y;
}
int c_hip_error_retval(const void* payload) {
    const rocprofiler_callback_tracing_hip_api_data_t* d = payload;
    return (int)d->retval.hipError_t_retval;
}
size_t c_hip_memcpy_kind_offset(void) { return offsetof(rocprofiler_hip_api_args_t, hipMemcpy.kind); }
#endif

const char* c_roctx_mark_message(const void* payload) {
    const rocprofiler_callback_tracing_marker_api_data_t* d = payload;
    return d->args.roctxMarkA.message;
}
const char* c_roctx_push_message(const void* payload) {
    const rocprofiler_callback_tracing_marker_api_data_t* d = payload;
    return d->args.roctxRangePushA.message;
}
int32_t c_marker_int32_retval(const void* payload) {
    const rocprofiler_callback_tracing_marker_api_data_t* d = payload;
    return d->retval.int32_t_retval;
}
size_t c_marker_args_size(void) { return sizeof(rocprofiler_marker_api_args_t); }

#if ENCORE_HIP_HEADERS
/* Triton Proton's kernel-launch switch (the ids and members it names), as C: the stream of a
 * launch record, or NULL for another op. These four ids and members were missing while encore's
 * HIP list was ROCm 5.2's (issue 41). */
void* c_hip_launch_stream(int op, const void* payload) {
    const rocprofiler_callback_tracing_hip_api_data_t* d = payload;
    switch (op) {
        case ROCPROFILER_HIP_RUNTIME_API_ID_hipExtModuleLaunchKernel:
            return (void*)d->args.hipExtModuleLaunchKernel.stream;
        case ROCPROFILER_HIP_RUNTIME_API_ID_hipHccModuleLaunchKernel:
            return (void*)d->args.hipHccModuleLaunchKernel.stream;
        case ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchCooperativeKernel:
            return (void*)d->args.hipModuleLaunchCooperativeKernel.stream;
        case ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchCooperativeKernelMultiDevice:
            return (void*)d->args.hipModuleLaunchCooperativeKernelMultiDevice.launchParamsList;
        case ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel: return (void*)d->args.hipModuleLaunchKernel.stream;
        default: return NULL;
    }
}
#endif
