// encore/domains/detail/hsa_table.hpp — includes ROCr's API table declarations.
//
// Debian's hsa_api_trace.h (ROCr 5.2) includes "inc/hsa_ext_*.h" unless AMD_INTERNAL_BUILD is
// defined, and the inc/ copies are not shipped; the sibling headers are the same files.
#pragma once

#if !defined(AMD_INTERNAL_BUILD)
#    define AMD_INTERNAL_BUILD 1
#    define ENCORE_DEFINED_AMD_INTERNAL_BUILD 1
#endif
#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ven_amd_loader.h>
#if defined(ENCORE_DEFINED_AMD_INTERNAL_BUILD)
#    undef AMD_INTERNAL_BUILD
#    undef ENCORE_DEFINED_AMD_INTERNAL_BUILD
#endif
