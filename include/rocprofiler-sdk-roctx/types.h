/* rocprofiler-sdk-roctx/types.h — roctx's id types (the same typedefs as <roctracer/roctx.h>). */
#pragma once

#include <rocprofiler-sdk-roctx/defines.h>

#include <stdint.h>

typedef uint64_t roctx_range_id_t;
typedef uint64_t roctx_thread_id_t;
