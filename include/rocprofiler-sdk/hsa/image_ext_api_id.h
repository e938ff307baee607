/* rocprofiler-sdk/hsa/image_ext_api_id.h — the reference SDK's header for the HSA_IMAGE_EXT_API
 * operation ids (rocprofiler_hsa_image_ext_api_id_t). encore generates the four HSA kinds' ids into
 * one file, hsa/api_id.h; this name includes it. */
#pragma once

#include <rocprofiler-sdk/hsa/api_id.h>
