/* rocprofiler-sdk/marker.h — the operation ids of the marker (roctx) kinds in one include, as in
 * the reference SDK.
 *
 *   #include <rocprofiler-sdk/marker.h>
 *   if (record.operation == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA) ...  */
#pragma once

#include <rocprofiler-sdk/marker/api_args.h>
#include <rocprofiler-sdk/marker/api_id.h>
