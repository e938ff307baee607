/* rocprofiler-sdk/hsa.h — the HSA side of the C API in one include, as in the reference SDK:
 * the HSA runtime's headers and the operation ids of the four HSA API kinds.
 *
 *   #include <rocprofiler-sdk/hsa.h>
 *   if (record.operation == ROCPROFILER_HSA_CORE_API_ID_hsa_queue_create) ...
 *
 * AMD_INTERNAL_BUILD is defined while the HSA headers are read (ROCm's hsa_api_trace.h otherwise
 * looks for an inc/ folder Debian does not ship) and undefined again if it was not set before. */
#pragma once

#if !defined(AMD_INTERNAL_BUILD)
#    define AMD_INTERNAL_BUILD
#    define ROCPROFILER_DEFINED_AMD_INTERNAL_BUILD 1
#endif

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <rocprofiler-sdk/hsa/api_args.h>
#include <rocprofiler-sdk/hsa/api_id.h>
#include <rocprofiler-sdk/hsa/scratch_memory_args.h>
#include <rocprofiler-sdk/hsa/scratch_memory_id.h>

#if defined(ROCPROFILER_DEFINED_AMD_INTERNAL_BUILD)
#    undef AMD_INTERNAL_BUILD
#    undef ROCPROFILER_DEFINED_AMD_INTERNAL_BUILD
#endif
