// encore/domains/detail/hip_api.hpp — includes the HIP runtime API declarations (AMD platform),
// and encore's declarations of the functions the reference's operation list names that this HIP
// lacks (hip_newer_api.h).
#pragma once

#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_HCC__)
#    define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#include <encore/domains/detail/hip_newer_api.h>
