/* rocprofiler-sdk/marker/api_id.h — op ids of the marker kinds (the reference SDK's numbering;
 * same order as include/encore/domains/marker.hpp). Append-only. */
#pragma once

typedef enum rocprofiler_marker_core_api_id_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_MARKER_CORE_API_ID_NONE = -1,
  ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA = 0,
  ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA,
  ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop,
  ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA,
  ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop,
  ROCPROFILER_MARKER_CORE_API_ID_roctxGetThreadId,
  ROCPROFILER_MARKER_CORE_API_ID_LAST,
} rocprofiler_marker_core_api_id_t;

typedef enum rocprofiler_marker_control_api_id_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_MARKER_CONTROL_API_ID_NONE = -1,
  ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause = 0,
  ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerResume,
  ROCPROFILER_MARKER_CONTROL_API_ID_LAST,
} rocprofiler_marker_control_api_id_t;

typedef enum rocprofiler_marker_name_api_id_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_MARKER_NAME_API_ID_NONE = -1,
  ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread = 0,
  ROCPROFILER_MARKER_NAME_API_ID_roctxNameHsaAgent,
  ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipDevice,
  ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream,
  ROCPROFILER_MARKER_NAME_API_ID_LAST,
} rocprofiler_marker_name_api_id_t;

/* MARKER_CORE_RANGE_API: ranges as one operation each (ENTER at push/start, EXIT at pop/stop). */
typedef enum rocprofiler_marker_core_range_api_id_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_MARKER_CORE_RANGE_API_ID_NONE = -1,
  ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA = 0,
  ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA,
  ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA,
  ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxGetThreadId,
  ROCPROFILER_MARKER_CORE_RANGE_API_ID_LAST,
} rocprofiler_marker_core_range_api_id_t;
