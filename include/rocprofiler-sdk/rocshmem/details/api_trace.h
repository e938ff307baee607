/* rocprofiler-sdk/rocshmem/details/api_trace.h — encore's declaration of rocSHMEM's tracing
 * interface (the reference SDK's rocshmem/details/api_trace.h, table version 0.7): the host
 * stream functions ROCSHMEM_API traces, their function-pointer types, the table that holds
 * them, and the accessor librocshmem exports.
 *
 *   const rocshmemApiFuncTable* t = RocshmemGetFunctionTable();
 *   t->barrier_all_on_stream_fn(stream);
 *
 * Written for encore (no third-party header is shipped). rocSHMEM's host functions are C++
 * (namespace rocshmem); the table is its C interface, and the one encore interposes
 * (libencore-rocshmem exports RocshmemGetFunctionTable, docs/libraries.md).
 */
#pragma once

/* rocSHMEM's streams are HIP's; HIP's headers refuse to be read without a platform. */
#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_HCC__) && !defined(__HIP_PLATFORM_NVIDIA__)
#    define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A team of processing elements, as rocSHMEM's C side passes it. */
typedef uint64_t* rocshmem_team_t;

#define ROCSHMEM_API_TRACE_VERSION_MAJOR 0
#define ROCSHMEM_API_TRACE_VERSION_PATCH 7

typedef void (*barrier_all_on_stream_fn_t)(hipStream_t stream);
typedef void (*quiet_on_stream_fn_t)(hipStream_t stream);
typedef void (*sync_all_on_stream_fn_t)(hipStream_t stream);
typedef void (*alltoallmem_on_stream_fn_t)(rocshmem_team_t team, void* dest, const void* source, size_t size,
                                           hipStream_t stream);
typedef void (*broadcastmem_on_stream_fn_t)(rocshmem_team_t team, void* dest, const void* source, size_t nelems,
                                            int pe_root, hipStream_t stream);
typedef void (*getmem_on_stream_fn_t)(void* dest, const void* source, size_t nelems, int pe, hipStream_t stream);
typedef void (*putmem_on_stream_fn_t)(void* dest, const void* source, size_t nelems, int pe, hipStream_t stream);
typedef void (*putmem_signal_on_stream_fn_t)(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                                             uint64_t signal, int sig_op, int pe, hipStream_t stream);
typedef void (*signal_wait_until_on_stream_fn_t)(uint64_t* sig_addr, int cmp, uint64_t cmp_value, hipStream_t stream);

/** The host stream functions. `size` is the table's size in bytes as the library built it: a
 *  slot at or past it is absent (an older library), and is never read or written. */
typedef struct rocshmemApiFuncTable {
    uint64_t size;
    barrier_all_on_stream_fn_t barrier_all_on_stream_fn;
    quiet_on_stream_fn_t quiet_on_stream_fn;
    sync_all_on_stream_fn_t sync_all_on_stream_fn;
    alltoallmem_on_stream_fn_t alltoallmem_on_stream_fn;
    broadcastmem_on_stream_fn_t broadcastmem_on_stream_fn;
    getmem_on_stream_fn_t getmem_on_stream_fn;
    putmem_on_stream_fn_t putmem_on_stream_fn;
    putmem_signal_on_stream_fn_t putmem_signal_on_stream_fn;
    signal_wait_until_on_stream_fn_t signal_wait_until_on_stream_fn;
} rocshmemApiFuncTable;

/** The library's table (exported by librocshmem). */
const rocshmemApiFuncTable* RocshmemGetFunctionTable(void);

#ifdef __cplusplus
}
#endif
