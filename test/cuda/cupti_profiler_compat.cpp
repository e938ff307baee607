// test/cuda/cupti_profiler_compat.cpp — compiled only with -Dcupti_include=<CUDA 13 include dir>:
// src/cuda/cupti_profiler_api.hpp (encore's own declarations of CUPTI's profiling API) against
// CUPTI's headers: each params struct's `_STRUCT_SIZE`, size and members' offsets, and the
// enumerators' values. A mismatch fails the build with the struct's name.
#include "cuda/cupti_profiler_api.hpp"

#include <cstddef>

namespace e = encore::cuda::cupti_api;

// encore's sizes, taken before CUPTI's headers define macros of the same names.
template <class T>
constexpr std::size_t ours = 0;
#define OURS(T) \
    template <> \
    constexpr std::size_t ours<e::T> = e::T##_STRUCT_SIZE
OURS(CUpti_Profiler_Initialize_Params);
OURS(CUpti_Device_GetChipName_Params);
OURS(CUpti_Profiler_DeviceSupported_Params);
OURS(CUpti_Profiler_Host_Initialize_Params);
OURS(CUpti_Profiler_Host_Deinitialize_Params);
OURS(CUpti_Profiler_Host_GetBaseMetrics_Params);
OURS(CUpti_Profiler_Host_GetSubMetrics_Params);
OURS(CUpti_Profiler_Host_GetMetricProperties_Params);
OURS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
OURS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
OURS(CUpti_Profiler_Host_GetConfigImageSize_Params);
OURS(CUpti_Profiler_Host_GetConfigImage_Params);
OURS(CUpti_Profiler_Host_GetNumOfPasses_Params);
OURS(CUpti_RangeProfiler_Enable_Params);
OURS(CUpti_RangeProfiler_SetConfig_Params);
OURS(CUpti_RangeProfiler_Stop_Params);
OURS(CUpti_RangeProfiler_PushRange_Params);
OURS(CUpti_RangeProfiler_DecodeData_Params);
OURS(CUpti_RangeProfiler_GetCounterDataSize_Params);
OURS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
OURS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
constexpr std::size_t ours_object = e::CUpti_RangeProfiler_Object_Params_STRUCT_SIZE;

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#define SAME_SIZE(T) \
    static_assert(ours<e::T> == T##_STRUCT_SIZE && sizeof(e::T) == sizeof(::T), #T ": size differs from CUPTI's")
#define SAME_AT(T, M) static_assert(offsetof(e::T, M) == offsetof(::T, M), #T "::" #M ": offset differs from CUPTI's")

SAME_SIZE(CUpti_Profiler_Initialize_Params);
SAME_SIZE(CUpti_Device_GetChipName_Params);
SAME_AT(CUpti_Device_GetChipName_Params, deviceIndex);
SAME_AT(CUpti_Device_GetChipName_Params, pChipName);
SAME_SIZE(CUpti_Profiler_DeviceSupported_Params);
SAME_AT(CUpti_Profiler_DeviceSupported_Params, isSupported);
SAME_AT(CUpti_Profiler_DeviceSupported_Params, vGpu);
SAME_AT(CUpti_Profiler_DeviceSupported_Params, api);
SAME_SIZE(CUpti_Profiler_Host_Initialize_Params);
SAME_AT(CUpti_Profiler_Host_Initialize_Params, profilerType);
SAME_AT(CUpti_Profiler_Host_Initialize_Params, pChipName);
SAME_AT(CUpti_Profiler_Host_Initialize_Params, pHostObject);
SAME_SIZE(CUpti_Profiler_Host_Deinitialize_Params);
SAME_SIZE(CUpti_Profiler_Host_GetBaseMetrics_Params);
SAME_AT(CUpti_Profiler_Host_GetBaseMetrics_Params, metricType);
SAME_AT(CUpti_Profiler_Host_GetBaseMetrics_Params, ppMetricNames);
SAME_AT(CUpti_Profiler_Host_GetBaseMetrics_Params, numMetrics);
SAME_SIZE(CUpti_Profiler_Host_GetSubMetrics_Params);
SAME_AT(CUpti_Profiler_Host_GetSubMetrics_Params, ppSubMetrics);
SAME_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params);
SAME_AT(CUpti_Profiler_Host_GetMetricProperties_Params, pDescription);
SAME_AT(CUpti_Profiler_Host_GetMetricProperties_Params, pHwUnit);
SAME_AT(CUpti_Profiler_Host_GetMetricProperties_Params, metricType);
SAME_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
SAME_AT(CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex);
SAME_AT(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);
SAME_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params);
SAME_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params);
SAME_SIZE(CUpti_Profiler_Host_GetConfigImage_Params);
SAME_AT(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage);
SAME_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params);
SAME_AT(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses);
SAME_SIZE(CUpti_RangeProfiler_Enable_Params);
SAME_AT(CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject);
static_assert(ours_object == CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE &&
              ours_object == CUpti_RangeProfiler_Start_Params_STRUCT_SIZE &&
              ours_object == CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE &&
              sizeof(e::CUpti_RangeProfiler_Object_Params) == sizeof(::CUpti_RangeProfiler_Start_Params));
SAME_SIZE(CUpti_RangeProfiler_SetConfig_Params);
SAME_AT(CUpti_RangeProfiler_SetConfig_Params, range);
SAME_AT(CUpti_RangeProfiler_SetConfig_Params, replayMode);
SAME_AT(CUpti_RangeProfiler_SetConfig_Params, maxRangesPerPass);
SAME_AT(CUpti_RangeProfiler_SetConfig_Params, numNestingLevels);
SAME_AT(CUpti_RangeProfiler_SetConfig_Params, minNestingLevel);
SAME_AT(CUpti_RangeProfiler_SetConfig_Params, passIndex);
SAME_AT(CUpti_RangeProfiler_SetConfig_Params, targetNestingLevel);
SAME_SIZE(CUpti_RangeProfiler_Stop_Params);
SAME_AT(CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted);
SAME_SIZE(CUpti_RangeProfiler_PushRange_Params);
SAME_SIZE(CUpti_RangeProfiler_DecodeData_Params);
SAME_AT(CUpti_RangeProfiler_DecodeData_Params, numOfRangeDropped);
SAME_SIZE(CUpti_RangeProfiler_GetCounterDataSize_Params);
SAME_AT(CUpti_RangeProfiler_GetCounterDataSize_Params, maxNumRangeTreeNodes);
SAME_AT(CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize);
SAME_SIZE(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
SAME_SIZE(CUpti_RangeProfiler_GetCounterDataInfo_Params);

static_assert(e::CUPTI_UserRange == static_cast<int>(::CUPTI_UserRange) &&
              e::CUPTI_UserReplay == static_cast<int>(::CUPTI_UserReplay) &&
              e::CUPTI_PROFILER_TYPE_RANGE_PROFILER == static_cast<int>(::CUPTI_PROFILER_TYPE_RANGE_PROFILER) &&
              e::CUPTI_METRIC_TYPE_THROUGHPUT == static_cast<int>(::CUPTI_METRIC_TYPE_THROUGHPUT) &&
              e::CUPTI_PROFILER_CONFIGURATION_SUPPORTED == static_cast<int>(::CUPTI_PROFILER_CONFIGURATION_SUPPORTED) &&
              e::CUPTI_ERROR_INSUFFICIENT_PRIVILEGES == static_cast<int>(::CUPTI_ERROR_INSUFFICIENT_PRIVILEGES));

int main() { return 0; }
