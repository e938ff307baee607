// src/cuda/cupti_api.hpp — the few parts of NVIDIA's CUPTI activity API that libencore-cuda uses
// to take kernel GPU times from CUPTI (cupti.cpp), declared here so that building encore never
// needs CUPTI's headers and libcupti is only ever loaded at run time (dlopen).
//
// Names, enumerator values and record layouts are CUPTI's (cupti_result.h, cupti_activity.h and
// cupti_version.h): CUDA 13's values, which are those of every CUPTI since CUDA 11.0 for what is
// declared here (CUPTI only appends enumerators). Kernel activity records are versioned
// (CUpti_ActivityKernel5, the first with graphId, of CUDA 11.0 by our reading, up to CUDA 13.0's
// CUpti_ActivityKernel10; offsets checked against 13.0's cupti_activity.h and
// cupti_activity_deprecated.h, not against 11.0's own headers) and only grow at the end: encore
// reads the prefix below, whose offsets are the same in all of them, after checking the kind. The test suite's fake CUPTI (test/cuda/fake_cupti.cpp) shares this header.
#pragma once

#include <cstddef>
#include <cstdint>

namespace encore::cuda::cupti_api {

// cupti_result.h: the statuses encore tells apart (CUptiResult is a C enum: int-sized).
enum CUptiResult : int {
    CUPTI_SUCCESS = 0,
    CUPTI_ERROR_INVALID_PARAMETER = 1,
    CUPTI_ERROR_NOT_INITIALIZED = 15,
    CUPTI_ERROR_MAX_LIMIT_REACHED = 12,  // cuptiActivityGetNextRecord: no more records in the buffer
    CUPTI_ERROR_INVALID_KIND = 21,
    CUPTI_ERROR_NOT_SUPPORTED = 27,
    CUPTI_ERROR_INSUFFICIENT_PRIVILEGES = 35,
    CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 39,
    CUPTI_ERROR_UNKNOWN = 999,
};

// cupti_activity.h
enum CUpti_ActivityKind : int {
    CUPTI_ACTIVITY_KIND_INVALID = 0,
    CUPTI_ACTIVITY_KIND_KERNEL = 3,
    CUPTI_ACTIVITY_KIND_DRIVER = 4,
    CUPTI_ACTIVITY_KIND_RUNTIME = 5,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION = 39,
};

enum CUpti_ExternalCorrelationKind : int {
    CUPTI_EXTERNAL_CORRELATION_KIND_INVALID = 0,
    CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN = 1,
    CUPTI_EXTERNAL_CORRELATION_KIND_OPENACC = 2,
    CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 = 3,
    CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1 = 4,
    CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 = 5,
};

/// CUpti_ActivityFlag's flush flag (cuptiActivityFlushAll).
constexpr std::uint32_t CUPTI_ACTIVITY_FLAG_FLUSH_FORCED = 1u << 0;

/// CUpti_ActivityAttribute (cuptiActivitySetAttribute): per-thread activity buffers (a uint8_t;
/// CUDA 12.3's CUPTI added it, default 1). With them, a stream's kernel records are split over
/// the buffers of the threads that launched them and handed over buffer by buffer, so they no
/// longer come in the stream's order (PyTorch launches its backward from the autograd thread).
enum CUpti_ActivityAttribute : int {
    CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER = 9,
};

// CUPTI's records are packed and 8-byte aligned (its PACKED_ALIGNMENT).
#define ENCORE_CUPTI_RECORD __attribute__((__packed__)) __attribute__((aligned(8)))

/// Every record begins with its kind.
struct ENCORE_CUPTI_RECORD CUpti_Activity {
    CUpti_ActivityKind kind;
};

/// CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: pairs CUPTI's correlation id of an API call with the
/// external id pushed on the calling thread then.
struct ENCORE_CUPTI_RECORD CUpti_ActivityExternalCorrelation {
    CUpti_ActivityKind kind;
    CUpti_ExternalCorrelationKind externalKind;
    std::uint64_t externalId;
    std::uint32_t correlationId;
    std::uint32_t reserved;
};

/// The prefix common to CUpti_ActivityKernel5 ... CUpti_ActivityKernel10 (CUPTI has no name for
/// it; the members are CUPTI's, in its order). A kernel record of any of those versions starts so.
struct ENCORE_CUPTI_RECORD kernel_record_prefix {
    CUpti_ActivityKind kind;  // CUPTI_ACTIVITY_KIND_KERNEL or CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
    std::uint8_t cacheConfig;
    std::uint8_t sharedMemoryConfig;
    std::uint16_t registersPerThread;
    std::int32_t partitionedGlobalCacheRequested;  // CUpti_ActivityPartitionedGlobalCacheConfig
    std::int32_t partitionedGlobalCacheExecuted;
    std::uint64_t start;  // ns; start == end == 0: CUPTI could not time the kernel
    std::uint64_t end;
    std::uint64_t completed;
    std::uint32_t deviceId;
    std::uint32_t contextId;
    std::uint32_t streamId;
    std::int32_t gridX, gridY, gridZ;
    std::int32_t blockX, blockY, blockZ;
    std::int32_t staticSharedMemory;
    std::int32_t dynamicSharedMemory;
    std::uint32_t localMemoryPerThread;
    std::uint32_t localMemoryTotal;
    std::uint32_t correlationId;
    std::int64_t gridId;
    const char* name;
    void* reserved0;
    std::uint64_t queued;
    std::uint64_t submitted;
    std::uint8_t launchType;
    std::uint8_t isSharedMemoryCarveoutRequested;
    std::uint8_t sharedMemoryCarveoutRequested;
    std::uint8_t padding;
    std::uint32_t sharedMemoryExecuted;
    std::uint64_t graphNodeId;
    std::int32_t shmemLimitConfig;  // CUpti_FuncShmemLimitConfig
    std::uint32_t graphId;          // 0: not launched as part of a graph
};
// The offsets every supported version has (CUpti_ActivityKernel5 of CUDA 11.0, whose size the
// prefix is, through CUDA 13.0's CUpti_ActivityKernel10; computed with offsetof on 13.0's headers).
static_assert(offsetof(kernel_record_prefix, start) == 16 && offsetof(kernel_record_prefix, end) == 24);
static_assert(offsetof(kernel_record_prefix, deviceId) == 40 && offsetof(kernel_record_prefix, contextId) == 44 &&
              offsetof(kernel_record_prefix, streamId) == 48 && offsetof(kernel_record_prefix, gridX) == 52 &&
              offsetof(kernel_record_prefix, blockX) == 64);
static_assert(offsetof(kernel_record_prefix, correlationId) == 92 && offsetof(kernel_record_prefix, gridId) == 96);
static_assert(offsetof(kernel_record_prefix, graphNodeId) == 144 && offsetof(kernel_record_prefix, graphId) == 156 &&
              sizeof(kernel_record_prefix) == 160);
static_assert(sizeof(CUpti_ActivityExternalCorrelation) == 24 &&
              offsetof(CUpti_ActivityExternalCorrelation, correlationId) == 16);

using CUpti_BuffersCallbackRequestFunc = void (*)(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords);
using CUpti_BuffersCallbackCompleteFunc = void (*)(void* context /* CUcontext: a pointer, same ABI */,
                                                   std::uint32_t streamId, std::uint8_t* buffer, std::size_t size,
                                                   std::size_t validSize);
using CUpti_TimestampCallbackFunc = std::uint64_t (*)();
using CUcontext_t = void*;  // CUcontext and CUstream are pointers: same ABI
using CUstream_t = void*;

/// The functions encore calls, by their exported names (all of them CUPTIAPI = the C convention on
/// Linux). The first CUPTI API version whose ABI encore reads: CUDA 11.0's.
constexpr std::uint32_t oldest_supported_version = 13;

/// Each member is the function of that name in CUPTI, or null.
struct functions {
    using get_version_fn = CUptiResult (*)(std::uint32_t*);
    using result_string_fn = CUptiResult (*)(CUptiResult, const char**);
    using kind_fn = CUptiResult (*)(CUpti_ActivityKind);
    using callbacks_fn = CUptiResult (*)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
    using next_record_fn = CUptiResult (*)(std::uint8_t*, std::size_t, CUpti_Activity**);
    using flag_fn = CUptiResult (*)(std::uint32_t);
    using push_fn = CUptiResult (*)(CUpti_ExternalCorrelationKind, std::uint64_t);
    using pop_fn = CUptiResult (*)(CUpti_ExternalCorrelationKind, std::uint64_t*);
    using timestamp_callback_fn = CUptiResult (*)(CUpti_TimestampCallbackFunc);
    using timestamp_fn = CUptiResult (*)(std::uint64_t*);
    using context_id_fn = CUptiResult (*)(CUcontext_t, std::uint32_t*);
    using stream_id_fn = CUptiResult (*)(CUcontext_t, CUstream_t, std::uint8_t per_thread, std::uint32_t*);
    using dropped_fn = CUptiResult (*)(CUcontext_t, std::uint32_t stream_id, std::size_t*);
    using attribute_fn = CUptiResult (*)(CUpti_ActivityAttribute, std::size_t*, void*);

    get_version_fn get_version = nullptr;                // cuptiGetVersion
    result_string_fn get_result_string = nullptr;        // cuptiGetResultString
    kind_fn activity_enable = nullptr;                   // cuptiActivityEnable
    kind_fn activity_disable = nullptr;                  // cuptiActivityDisable
    callbacks_fn register_callbacks = nullptr;           // cuptiActivityRegisterCallbacks
    next_record_fn get_next_record = nullptr;            // cuptiActivityGetNextRecord
    flag_fn flush_all = nullptr;                         // cuptiActivityFlushAll
    flag_fn flush_period = nullptr;                      // cuptiActivityFlushPeriod
    push_fn push_external = nullptr;                     // cuptiActivityPushExternalCorrelationId
    pop_fn pop_external = nullptr;                       // cuptiActivityPopExternalCorrelationId
    timestamp_callback_fn register_timestamp = nullptr;  // cuptiActivityRegisterTimestampCallback
    timestamp_fn get_timestamp = nullptr;                // cuptiGetTimestamp
    context_id_fn get_context_id = nullptr;              // cuptiGetContextId
    stream_id_fn get_stream_id = nullptr;                // cuptiGetStreamIdEx
    dropped_fn get_dropped = nullptr;                    // cuptiActivityGetNumDroppedRecords
    attribute_fn set_attribute = nullptr;                // cuptiActivitySetAttribute
};

}  // namespace encore::cuda::cupti_api
