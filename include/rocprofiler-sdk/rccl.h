/* rocprofiler-sdk/rccl.h — the RCCL_API kind's operations and argument types.
 *
 *   // in a callback of ROCPROFILER_CALLBACK_TRACING_RCCL_API:
 *   const rocprofiler_callback_tracing_rccl_api_data_t* p = record.payload;
 *   if (record.operation == ROCPROFILER_RCCL_API_ID_ncclAllReduce) use(p->args.ncclAllReduce.count);
 *
 * Records come from libencore-rccl (docs/libraries.md). */
#pragma once

#include <rocprofiler-sdk/rccl/api_args.h>
#include <rocprofiler-sdk/rccl/api_id.h>
#include <rocprofiler-sdk/rccl/table_id.h>
