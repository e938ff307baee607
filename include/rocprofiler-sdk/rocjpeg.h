/* rocprofiler-sdk/rocjpeg.h — the ROCJPEG_API kind's operations and argument types.
 *
 *   // in a callback of ROCPROFILER_CALLBACK_TRACING_ROCJPEG_API:
 *   const rocprofiler_callback_tracing_rocjpeg_api_data_t* p = record.payload;
 *   if (record.operation == ROCPROFILER_ROCJPEG_API_ID_rocJpegDecode) use(p->args.rocJpegDecode.destination);
 *
 * Records come from libencore-rocjpeg (docs/libraries.md). */
#pragma once

#include <rocprofiler-sdk/rocjpeg/api_args.h>
#include <rocprofiler-sdk/rocjpeg/api_id.h>
#include <rocprofiler-sdk/rocjpeg/table_id.h>
