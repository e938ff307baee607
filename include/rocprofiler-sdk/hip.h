/* rocprofiler-sdk/hip.h — the operation ids of the HIP API kinds in one include, as in the
 * reference SDK.
 *
 *   #include <rocprofiler-sdk/hip.h>
 *   if (record.operation == ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc) ...  */
#pragma once

#include <rocprofiler-sdk/hip/api_args.h>
#include <rocprofiler-sdk/hip/api_id.h>
