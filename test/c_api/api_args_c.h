/* test/c_api/api_args_c.h — the C11 reads of api_args_c.c, declared for the C++ tests. Each takes
 * a record's payload (the kind's rocprofiler_callback_tracing_*_api_data_t). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint64_t c_hsa_queue_create_size(const void* payload);
uint64_t c_hsa_memory_allocate_size(const void* payload);
int c_hsa_agent_get_info_attribute(const void* payload);
int c_hsa_status_retval(const void* payload);
size_t c_hsa_queue_create_size_offset(void);

uint64_t c_hip_malloc_size(const void* payload);
void* c_hip_malloc_ptr(const void* payload);
uint64_t c_hip_memcpy_size_bytes(const void* payload);
int c_hip_memcpy_kind(const void* payload);
uint32_t c_hip_launch_kernel_grid_y(const void* payload);
int c_hip_error_retval(const void* payload);
size_t c_hip_memcpy_kind_offset(void);
void* c_hip_launch_stream(int op, const void* payload);

const char* c_roctx_mark_message(const void* payload);
const char* c_roctx_push_message(const void* payload);
int32_t c_marker_int32_retval(const void* payload);
size_t c_marker_args_size(void);

#ifdef __cplusplus
}
#endif
