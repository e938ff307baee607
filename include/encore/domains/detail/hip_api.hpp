// encore/domains/detail/hip_api.hpp — includes the HIP runtime API declarations (AMD platform).
#pragma once

#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_HCC__)
#    define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
