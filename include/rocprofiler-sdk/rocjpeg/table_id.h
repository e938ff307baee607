/* rocprofiler-sdk/rocjpeg/table_id.h — the rocjpeg API tables, as the reference numbers them (one, the
 * core table; encore intercepts the library as docs/libraries.md says, so the id only names it). */
#pragma once

typedef enum rocprofiler_rocjpeg_table_id_t {
    ROCPROFILER_ROCJPEG_TABLE_ID_NONE = -1,
    ROCPROFILER_ROCJPEG_TABLE_ID_CORE = 0,
    ROCPROFILER_ROCJPEG_TABLE_ID_LAST,
} rocprofiler_rocjpeg_table_id_t;
