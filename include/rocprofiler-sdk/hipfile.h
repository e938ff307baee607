/* rocprofiler-sdk/hipfile.h — the HIPFILE_API kind's operations and argument types.
 *
 *   // in a callback of ROCPROFILER_CALLBACK_TRACING_HIPFILE_API:
 *   const rocprofiler_callback_tracing_hipfile_api_data_t* p = record.payload;
 *   if (record.operation == ROCPROFILER_HIPFILE_API_ID_hipFileRead) use(p->args.hipFileRead.size);
 *
 * Records come from libencore-hipfile (docs/libraries.md). */
#pragma once

#include <rocprofiler-sdk/hipfile/api_args.h>
#include <rocprofiler-sdk/hipfile/api_id.h>
