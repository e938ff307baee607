/* rocprofiler-sdk/hsa/core_api_id.h — the reference SDK's header for the HSA_CORE_API
 * operation ids (rocprofiler_hsa_core_api_id_t). encore generates the four HSA kinds' ids into
 * one file, hsa/api_id.h; this name includes it. */
#pragma once

#include <rocprofiler-sdk/hsa/api_id.h>
