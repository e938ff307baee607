/* rocprofiler-sdk/hsa/scratch_memory_id.h — flags of a scratch memory record. The values are
 * the HSA runtime's HSA_AMD_EVENT_SCRATCH_ALLOC_FLAG_* (ROCm >= 6.2; the ROCm 5.2 headers encore
 * builds against do not declare them, so they are spelled as numbers here). */
#pragma once

#include <rocprofiler-sdk/defines.h>

ROCPROFILER_EXTERN_C_INIT

typedef enum rocprofiler_scratch_alloc_flag_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_SCRATCH_ALLOC_FLAG_NONE = 0,
  ROCPROFILER_SCRATCH_ALLOC_FLAG_USE_ONCE = 1,
  ROCPROFILER_SCRATCH_ALLOC_FLAG_ALT = 2,
} rocprofiler_scratch_alloc_flag_t;

ROCPROFILER_EXTERN_C_FINI
