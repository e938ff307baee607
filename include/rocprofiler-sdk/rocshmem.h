/* rocprofiler-sdk/rocshmem.h — the ROCSHMEM_API kind's operations and argument types.
 *
 *   // in a callback of ROCPROFILER_CALLBACK_TRACING_ROCSHMEM_API:
 *   const rocprofiler_callback_tracing_rocshmem_api_data_t* p = record.payload;
 *   if (record.operation == ROCPROFILER_ROCSHMEM_API_ID_putmem_on_stream) use(p->args.putmem_on_stream.nelems);
 *
 * Records come from libencore-rocshmem (docs/libraries.md). */
#pragma once

#include <rocprofiler-sdk/rocshmem/api_args.h>
#include <rocprofiler-sdk/rocshmem/api_id.h>
#include <rocprofiler-sdk/rocshmem/table_id.h>
