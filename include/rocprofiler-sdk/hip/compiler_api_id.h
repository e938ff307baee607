/* rocprofiler-sdk/hip/compiler_api_id.h — op ids of the HIP_COMPILER_API kind (the reference
 * SDK's numbering; same order as include/encore/domains/hip_compiler.hpp). Append-only. */
#pragma once

typedef enum rocprofiler_hip_compiler_api_id_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_HIP_COMPILER_API_ID_NONE = -1,
  ROCPROFILER_HIP_COMPILER_API_ID___hipPopCallConfiguration = 0,
  ROCPROFILER_HIP_COMPILER_API_ID___hipPushCallConfiguration,
  ROCPROFILER_HIP_COMPILER_API_ID___hipRegisterFatBinary,
  ROCPROFILER_HIP_COMPILER_API_ID___hipRegisterFunction,
  ROCPROFILER_HIP_COMPILER_API_ID___hipRegisterManagedVar,
  ROCPROFILER_HIP_COMPILER_API_ID___hipRegisterSurface,
  ROCPROFILER_HIP_COMPILER_API_ID___hipRegisterTexture,
  ROCPROFILER_HIP_COMPILER_API_ID___hipRegisterVar,
  ROCPROFILER_HIP_COMPILER_API_ID___hipUnregisterFatBinary,
  ROCPROFILER_HIP_COMPILER_API_ID_LAST,
} rocprofiler_hip_compiler_api_id_t;
