// src/cuda/cupti_profiler_api.hpp — the parts of CUPTI's profiling API that libencore-cuda's
// counter source (counters.cpp) uses: the profiler host API (metric lists, config images, pass
// counts, evaluation; cupti_profiler_host.h) and the range profiler (cupti_range_profiler.h,
// cupti_profiler_target.h, cupti_target.h), declared here so that building encore never needs
// CUPTI's headers; libcupti is loaded at run time.
//
// Names, members and their order, enumerator values and the `_STRUCT_SIZE` values are CUDA 13.0's
// (the range profiler and the host API first shipped in CUDA 12.6; encore reads no struct member
// added after 13.0). Every params struct starts with `structSize`: CUPTI reads only as much of a
// struct as the size says, so a struct of this header is valid for any CUPTI that knows its
// last member. Sizes and offsets are asserted below for LP64 (x86-64, aarch64); with
// -Dcupti_include=<CUDA 13 include dir>, test/cuda/cupti_profiler_compat.cpp checks them against
// CUPTI's own headers. The test suite's fake CUPTI (test/cuda/fake_cupti_profiler.cpp) shares it.
#pragma once

#include "cupti_api.hpp"

#include <cstddef>
#include <cstdint>

namespace encore::cuda::cupti_api {

/// CUPTI_PROFILER_STRUCT_SIZE: a struct's size up to the end of its last member.
#define ENCORE_CUPTI_STRUCT_SIZE(type_, last_) (offsetof(type_, last_) + sizeof(((type_*)nullptr)->last_))

// ---- cupti_profiler_target.h, cupti_target.h ---------------------------------------------------------
enum CUpti_ProfilerRange : int { CUPTI_Range_INVALID = 0, CUPTI_AutoRange = 1, CUPTI_UserRange = 2 };
enum CUpti_ProfilerReplayMode : int {
    CUPTI_Replay_INVALID = 0,
    CUPTI_ApplicationReplay = 1,
    CUPTI_KernelReplay = 2,
    CUPTI_UserReplay = 3,
};
enum CUpti_Profiler_Support_Level : int {
    CUPTI_PROFILER_CONFIGURATION_UNKNOWN = 0,
    CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED = 1,
    CUPTI_PROFILER_CONFIGURATION_DISABLED = 2,
    CUPTI_PROFILER_CONFIGURATION_SUPPORTED = 3,
};
enum CUpti_Profiler_API : int { CUPTI_PROFILER_RANGE_PROFILING = 0 };

struct CUpti_Profiler_Initialize_Params {
    std::size_t structSize;
    void* pPriv;
};
using CUpti_Profiler_DeInitialize_Params = CUpti_Profiler_Initialize_Params;  // the same two members

struct CUpti_Device_GetChipName_Params {
    std::size_t structSize;
    void* pPriv;
    std::size_t deviceIndex;
    const char* pChipName;
};

struct CUpti_Profiler_DeviceSupported_Params {
    std::size_t structSize;
    void* pPriv;
    int cuDevice;  // CUdevice
    CUpti_Profiler_Support_Level isSupported;
    CUpti_Profiler_Support_Level architecture;
    CUpti_Profiler_Support_Level sli;
    CUpti_Profiler_Support_Level vGpu;
    CUpti_Profiler_Support_Level confidentialCompute;
    CUpti_Profiler_Support_Level cmp;
    CUpti_Profiler_Support_Level wsl;
    CUpti_Profiler_API api;
};

// ---- cupti_profiler_host.h ----------------------------------------------------------------------
enum CUpti_MetricType : int { CUPTI_METRIC_TYPE_COUNTER = 0, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT };
enum CUpti_ProfilerType : int { CUPTI_PROFILER_TYPE_RANGE_PROFILER = 0, CUPTI_PROFILER_TYPE_PM_SAMPLING };
struct CUpti_Profiler_Host_Object;

struct CUpti_Profiler_Host_Initialize_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_ProfilerType profilerType;
    const char* pChipName;
    const std::uint8_t* pCounterAvailabilityImage;
    CUpti_Profiler_Host_Object* pHostObject;
};
struct CUpti_Profiler_Host_Deinitialize_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
};
struct CUpti_Profiler_Host_GetBaseMetrics_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    CUpti_MetricType metricType;
    const char** ppMetricNames;
    std::size_t numMetrics;
};
struct CUpti_Profiler_Host_GetSubMetrics_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    CUpti_MetricType metricType;
    const char* pMetricName;
    std::size_t numOfSubmetrics;
    const char** ppSubMetrics;
};
struct CUpti_Profiler_Host_GetMetricProperties_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    const char* pMetricName;
    const char* pDescription;
    const char* pHwUnit;
    const char* pDimUnit;
    CUpti_MetricType metricType;
};
struct CUpti_Profiler_Host_EvaluateToGpuValues_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    const std::uint8_t* pCounterDataImage;
    std::size_t counterDataImageSize;
    std::size_t rangeIndex;
    const char** ppMetricNames;
    std::size_t numMetrics;
    double* pMetricValues;
};
struct CUpti_Profiler_Host_ConfigAddMetrics_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    const char** ppMetricNames;
    std::size_t numMetrics;
};
struct CUpti_Profiler_Host_GetConfigImageSize_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    std::size_t configImageSize;
};
struct CUpti_Profiler_Host_GetConfigImage_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    std::size_t configImageSize;
    std::uint8_t* pConfigImage;
};
struct CUpti_Profiler_Host_GetNumOfPasses_Params {
    std::size_t structSize;
    void* pPriv;
    std::size_t configImageSize;
    std::uint8_t* pConfigImage;
    std::size_t numOfPasses;
};

// ---- cupti_range_profiler.h -----------------------------------------------------------------------
struct CUpti_RangeProfiler_Object;

struct CUpti_RangeProfiler_Enable_Params {
    std::size_t structSize;
    void* pPriv;
    void* ctx;  // CUcontext
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
};
/// Disable, Start and PopRange take only the object.
struct CUpti_RangeProfiler_Object_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
};
using CUpti_RangeProfiler_Disable_Params = CUpti_RangeProfiler_Object_Params;
using CUpti_RangeProfiler_Start_Params = CUpti_RangeProfiler_Object_Params;
using CUpti_RangeProfiler_PopRange_Params = CUpti_RangeProfiler_Object_Params;
struct CUpti_RangeProfiler_SetConfig_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    std::size_t configSize;
    const std::uint8_t* pConfig;
    std::size_t counterDataImageSize;
    std::uint8_t* pCounterDataImage;
    CUpti_ProfilerRange range;
    CUpti_ProfilerReplayMode replayMode;
    std::size_t maxRangesPerPass;
    std::uint16_t numNestingLevels;
    std::uint16_t minNestingLevel;
    std::size_t passIndex;
    std::uint16_t targetNestingLevel;
};
struct CUpti_RangeProfiler_Stop_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    std::size_t passIndex;
    std::size_t targetNestingLevel;
    std::uint8_t isAllPassSubmitted;
};
struct CUpti_RangeProfiler_PushRange_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    const char* pRangeName;
};
struct CUpti_RangeProfiler_DecodeData_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    std::size_t numOfRangeDropped;
};
struct CUpti_RangeProfiler_GetCounterDataSize_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    const char** pMetricNames;
    std::size_t numMetrics;
    std::size_t maxNumOfRanges;
    std::uint32_t maxNumRangeTreeNodes;
    std::size_t counterDataSize;
};
struct CUpti_RangeProfiler_CounterDataImage_Initialize_Params {
    std::size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    std::size_t counterDataSize;
    std::uint8_t* pCounterData;
};
struct CUpti_RangeProfiler_GetCounterDataInfo_Params {
    std::size_t structSize;
    void* pPriv;
    const std::uint8_t* pCounterDataImage;
    std::size_t counterDataImageSize;
    std::size_t numTotalRanges;
};

// The `_STRUCT_SIZE` values of CUDA 13.0 (LP64), which CUPTI checks callers against.
#define ENCORE_CUPTI_SIZE(type_, last_, size_)                                          \
    constexpr std::size_t type_##_STRUCT_SIZE = ENCORE_CUPTI_STRUCT_SIZE(type_, last_); \
    static_assert(type_##_STRUCT_SIZE == (size_), #type_ ": layout differs from CUDA 13.0's cupti headers")
ENCORE_CUPTI_SIZE(CUpti_Profiler_Initialize_Params, pPriv, 16);
ENCORE_CUPTI_SIZE(CUpti_Device_GetChipName_Params, pChipName, 32);
ENCORE_CUPTI_SIZE(CUpti_Profiler_DeviceSupported_Params, api, 52);
ENCORE_CUPTI_SIZE(CUpti_Profiler_Host_Initialize_Params, pHostObject, 48);
ENCORE_CUPTI_SIZE(CUpti_Profiler_Host_Deinitialize_Params, pHostObject, 24);
ENCORE_CUPTI_SIZE(CUpti_Profiler_Host_GetBaseMetrics_Params, numMetrics, 48);
ENCORE_CUPTI_SIZE(CUpti_Profiler_Host_GetSubMetrics_Params, ppSubMetrics, 56);
ENCORE_CUPTI_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params, metricType, 60);
ENCORE_CUPTI_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues, 72);
ENCORE_CUPTI_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics, 40);
ENCORE_CUPTI_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize, 32);
ENCORE_CUPTI_SIZE(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage, 40);
ENCORE_CUPTI_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses, 40);
ENCORE_CUPTI_SIZE(CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject, 32);
ENCORE_CUPTI_SIZE(CUpti_RangeProfiler_Object_Params, pRangeProfilerObject, 24);
ENCORE_CUPTI_SIZE(CUpti_RangeProfiler_SetConfig_Params, targetNestingLevel, 90);
ENCORE_CUPTI_SIZE(CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted, 41);
ENCORE_CUPTI_SIZE(CUpti_RangeProfiler_PushRange_Params, pRangeName, 32);
ENCORE_CUPTI_SIZE(CUpti_RangeProfiler_DecodeData_Params, numOfRangeDropped, 32);
ENCORE_CUPTI_SIZE(CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize, 64);
ENCORE_CUPTI_SIZE(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pCounterData, 40);
ENCORE_CUPTI_SIZE(CUpti_RangeProfiler_GetCounterDataInfo_Params, numTotalRanges, 40);
#undef ENCORE_CUPTI_SIZE
constexpr std::size_t CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
constexpr std::size_t CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE = CUpti_RangeProfiler_Object_Params_STRUCT_SIZE;
constexpr std::size_t CUpti_RangeProfiler_Start_Params_STRUCT_SIZE = CUpti_RangeProfiler_Object_Params_STRUCT_SIZE;
constexpr std::size_t CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE = CUpti_RangeProfiler_Object_Params_STRUCT_SIZE;

/// The profiling functions, by their exported names; each member is that function or null.
struct profiler_functions {
    template <class P>
    using fn = CUptiResult (*)(P*);
    fn<CUpti_Profiler_Initialize_Params> initialize = nullptr;                       // cuptiProfilerInitialize
    fn<CUpti_Profiler_DeInitialize_Params> deinitialize = nullptr;                   // cuptiProfilerDeInitialize
    fn<CUpti_Device_GetChipName_Params> chip_name = nullptr;                         // cuptiDeviceGetChipName
    fn<CUpti_Profiler_DeviceSupported_Params> device_supported = nullptr;            // cuptiProfilerDeviceSupported
    fn<CUpti_Profiler_Host_Initialize_Params> host_initialize = nullptr;             // cuptiProfilerHostInitialize
    fn<CUpti_Profiler_Host_Deinitialize_Params> host_deinitialize = nullptr;         // cuptiProfilerHostDeinitialize
    fn<CUpti_Profiler_Host_GetBaseMetrics_Params> base_metrics = nullptr;            // cuptiProfilerHostGetBaseMetrics
    fn<CUpti_Profiler_Host_GetSubMetrics_Params> sub_metrics = nullptr;              // cuptiProfilerHostGetSubMetrics
    fn<CUpti_Profiler_Host_GetMetricProperties_Params> metric_properties = nullptr;  // ...GetMetricProperties
    fn<CUpti_Profiler_Host_EvaluateToGpuValues_Params> evaluate = nullptr;           // ...EvaluateToGpuValues
    fn<CUpti_Profiler_Host_ConfigAddMetrics_Params> config_add = nullptr;            // ...ConfigAddMetrics
    fn<CUpti_Profiler_Host_GetConfigImageSize_Params> config_image_size = nullptr;   // ...GetConfigImageSize
    fn<CUpti_Profiler_Host_GetConfigImage_Params> config_image = nullptr;            // ...GetConfigImage
    fn<CUpti_Profiler_Host_GetNumOfPasses_Params> passes = nullptr;                  // ...GetNumOfPasses
    fn<CUpti_RangeProfiler_Enable_Params> enable = nullptr;                          // cuptiRangeProfilerEnable
    fn<CUpti_RangeProfiler_Disable_Params> disable = nullptr;                        // cuptiRangeProfilerDisable
    fn<CUpti_RangeProfiler_SetConfig_Params> set_config = nullptr;                   // cuptiRangeProfilerSetConfig
    fn<CUpti_RangeProfiler_Start_Params> start = nullptr;                            // cuptiRangeProfilerStart
    fn<CUpti_RangeProfiler_Stop_Params> stop = nullptr;                              // cuptiRangeProfilerStop
    fn<CUpti_RangeProfiler_PushRange_Params> push_range = nullptr;                   // cuptiRangeProfilerPushRange
    fn<CUpti_RangeProfiler_PopRange_Params> pop_range = nullptr;                     // cuptiRangeProfilerPopRange
    fn<CUpti_RangeProfiler_DecodeData_Params> decode = nullptr;                      // cuptiRangeProfilerDecodeData
    fn<CUpti_RangeProfiler_GetCounterDataSize_Params> counter_data_size = nullptr;   // ...GetCounterDataSize
    fn<CUpti_RangeProfiler_CounterDataImage_Initialize_Params> counter_data_init = nullptr;  // ...CounterDataImageInitialize
    fn<CUpti_RangeProfiler_GetCounterDataInfo_Params> counter_data_info = nullptr;           // ...GetCounterDataInfo
};

}  // namespace encore::cuda::cupti_api
