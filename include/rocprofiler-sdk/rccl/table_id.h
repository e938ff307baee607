/* rocprofiler-sdk/rccl/table_id.h — the RCCL API tables, as the reference numbers them (RCCL has
 * one; encore intercepts RCCL by its exported functions, so the id only names the table). */
#pragma once

typedef enum rocprofiler_rccl_table_id_t {
    ROCPROFILER_RCCL_TABLE_ID_NONE = -1,
    ROCPROFILER_RCCL_TABLE_ID = 0,
    ROCPROFILER_RCCL_TABLE_ID_LAST,
} rocprofiler_rccl_table_id_t;
