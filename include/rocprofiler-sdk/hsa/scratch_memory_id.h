/* rocprofiler-sdk/hsa/scratch_memory_id.h — flags of a scratch memory record, and the HSA
 * runtime's tool events they come from.
 *
 * ROCr (ROCm >= 6.2) declares its scratch events in <hsa/hsa_amd_tool.h> and calls them through
 * the ToolsApiTable of its HsaApiTable. The ROCm 5.2 headers encore builds against have neither,
 * so without that header the same declarations (names, values, layouts: interface facts) are
 * made here, under ROCr's own include guard: a later #include of the real header is then empty,
 * and with the real header first these are skipped. */
#pragma once

#include <encore/config.h>
#include <rocprofiler-sdk/defines.h>

#if ENCORE_HSA_HEADERS && defined(__has_include)
#    if __has_include(<hsa/hsa_amd_tool.h>)
#        include <hsa/hsa_amd_tool.h>
#    endif
#endif

#ifndef HSA_RUNTIME_AMD_TOOL_EVENTS_H_
#    define HSA_RUNTIME_AMD_TOOL_EVENTS_H_
#    include <stddef.h>
#    include <stdint.h>
#    if ENCORE_HSA_HEADERS
#        include <hsa/hsa.h>
#    endif

ROCPROFILER_EXTERN_C_INIT

typedef enum {
    HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_NONE = 0,
    HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_USE_ONCE = (1 << 0),
    HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_ALT = (1 << 1),
} hsa_amd_event_scratch_alloc_flag_t;

typedef enum {
    HSA_AMD_TOOL_EVENT_MIN = 0,
    HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_START,
    HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END,
    HSA_AMD_TOOL_EVENT_SCRATCH_FREE_START,
    HSA_AMD_TOOL_EVENT_SCRATCH_FREE_END,
    HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_START,
    HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_END,
    HSA_AMD_TOOL_EVENT_MAX
} hsa_amd_tool_event_kind_t;

/* The events themselves name hsa_queue_t: a build without HSA's headers (a CUDA-only install,
 * encore/config.h) declares the two enums only, which the scratch payload and record use. */
#    if ENCORE_HSA_HEADERS
typedef struct {
    hsa_amd_tool_event_kind_t kind;
} hsa_amd_tool_event_none_t;

typedef struct {
    hsa_amd_tool_event_kind_t kind;
    const hsa_queue_t* queue;
    hsa_amd_event_scratch_alloc_flag_t flags;
    uint64_t dispatch_id;
} hsa_amd_event_scratch_alloc_start_t;

typedef struct {
    hsa_amd_tool_event_kind_t kind;
    const hsa_queue_t* queue;
    hsa_amd_event_scratch_alloc_flag_t flags;
    uint64_t dispatch_id;
    size_t size;
    size_t num_slots;
} hsa_amd_event_scratch_alloc_end_t;

typedef struct {
    hsa_amd_tool_event_kind_t kind;
    const hsa_queue_t* queue;
    hsa_amd_event_scratch_alloc_flag_t flags;
} hsa_amd_event_scratch_free_start_t;

typedef struct {
    hsa_amd_tool_event_kind_t kind;
    const hsa_queue_t* queue;
    hsa_amd_event_scratch_alloc_flag_t flags;
} hsa_amd_event_scratch_free_end_t;

typedef struct {
    hsa_amd_tool_event_kind_t kind;
    const hsa_queue_t* queue;
    hsa_amd_event_scratch_alloc_flag_t flags;
} hsa_amd_event_scratch_async_reclaim_start_t;

typedef struct {
    hsa_amd_tool_event_kind_t kind;
    const hsa_queue_t* queue;
    hsa_amd_event_scratch_alloc_flag_t flags;
} hsa_amd_event_scratch_async_reclaim_end_t;

typedef union {
    const hsa_amd_tool_event_none_t* none;
    const hsa_amd_event_scratch_alloc_start_t* scratch_alloc_start;
    const hsa_amd_event_scratch_alloc_end_t* scratch_alloc_end;
    const hsa_amd_event_scratch_free_start_t* scratch_free_start;
    const hsa_amd_event_scratch_free_end_t* scratch_free_end;
    const hsa_amd_event_scratch_async_reclaim_start_t* scratch_async_reclaim_start;
    const hsa_amd_event_scratch_async_reclaim_end_t* scratch_async_reclaim_end;
} hsa_amd_tool_event_t;

typedef hsa_status_t (*hsa_amd_tool_event)(hsa_amd_tool_event_t);
#    endif /* ENCORE_HSA_HEADERS */

ROCPROFILER_EXTERN_C_FINI

#endif /* HSA_RUNTIME_AMD_TOOL_EVENTS_H_ */

ROCPROFILER_EXTERN_C_INIT

typedef enum rocprofiler_scratch_alloc_flag_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_SCRATCH_ALLOC_FLAG_NONE = 0,
  ROCPROFILER_SCRATCH_ALLOC_FLAG_USE_ONCE = HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_USE_ONCE,
  ROCPROFILER_SCRATCH_ALLOC_FLAG_ALT = HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_ALT,
} rocprofiler_scratch_alloc_flag_t;

ROCPROFILER_EXTERN_C_FINI
