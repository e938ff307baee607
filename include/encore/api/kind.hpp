// encore/api/kind.hpp — the callback tracing kinds as a C++ enum.
//
// Values are the C API's (rocprofiler_callback_tracing_kind_t), so a kind crosses between the
// C and C++ layers without conversion tables.
#pragma once

#include <rocprofiler-sdk/fwd.h>

#include <cstdint>

namespace encore {

enum class kind : std::int32_t {
    none = ROCPROFILER_CALLBACK_TRACING_NONE,
    hsa_core_api = ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
    hsa_amd_ext_api = ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API,
    hsa_image_ext_api = ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API,
    hsa_finalize_ext_api = ROCPROFILER_CALLBACK_TRACING_HSA_FINALIZE_EXT_API,
    hip_runtime_api = ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
    hip_compiler_api = ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API,
    marker_core_api = ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
    marker_control_api = ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API,
    marker_name_api = ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
    code_object = ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
    scratch_memory = ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY,
    kernel_dispatch = ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
    memory_copy = ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
    rccl_api = ROCPROFILER_CALLBACK_TRACING_RCCL_API,
    ompt = ROCPROFILER_CALLBACK_TRACING_OMPT,
    memory_allocation = ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION,
    runtime_initialization = ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION,
    rocdecode_api = ROCPROFILER_CALLBACK_TRACING_ROCDECODE_API,
    rocjpeg_api = ROCPROFILER_CALLBACK_TRACING_ROCJPEG_API,
    hip_stream = ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
    marker_core_range_api = ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
    hip_graph = ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH,
    rocshmem_api = ROCPROFILER_CALLBACK_TRACING_ROCSHMEM_API,
    hipfile_api = ROCPROFILER_CALLBACK_TRACING_HIPFILE_API,
    kernel_replay = ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY,
    hip_event = ROCPROFILER_CALLBACK_TRACING_HIP_EVENT,
    cuda_driver_api = ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API,
    range_replay = ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY,
    last = ROCPROFILER_CALLBACK_TRACING_LAST,
};

inline constexpr std::size_t kind_count = static_cast<std::size_t>(kind::last);

/// Operation id within a kind (the C API's rocprofiler_tracing_operation_t).
using op_id = std::int32_t;

/// The most operations any kind may have: the size of each kind's row of subscription masks.
/// The reference SDK allows 512 per kind; the CUDA driver domain needs more.
inline constexpr std::size_t max_ops_per_kind = 1024;

}  // namespace encore
