/* rocprofiler-sdk/hip/api_id.h — both HIP API kinds' operation ids (HIP_RUNTIME_API and
 * HIP_COMPILER_API), the reference SDK's header of that name. */
#pragma once

#include <rocprofiler-sdk/hip/compiler_api_id.h>
#include <rocprofiler-sdk/hip/runtime_api_id.h>
