/* rocprofiler-sdk/rocdecode.h — the ROCDECODE_API kind's operations and argument types.
 *
 *   // in a callback of ROCPROFILER_CALLBACK_TRACING_ROCDECODE_API:
 *   const rocprofiler_callback_tracing_rocdecode_api_data_t* p = record.payload;
 *   if (record.operation == ROCPROFILER_ROCDECODE_API_ID_rocDecDecodeFrame) use(p->args.rocDecDecodeFrame.pic_params);
 *
 * Records come from libencore-rocdecode (docs/libraries.md). */
#pragma once

#include <rocprofiler-sdk/rocdecode/api_args.h>
#include <rocprofiler-sdk/rocdecode/api_id.h>
#include <rocprofiler-sdk/rocdecode/table_id.h>
