// encore/domains/events.hpp — kinds whose operations are events, not API functions.
//
// Operation names and 1-based numbering follow the reference (NONE = 0); the C enums in
// rocprofiler-sdk/fwd.h carry the same numbers (checked in test/domains).
#pragma once

#include <encore/api/domain.hpp>

namespace encore::domains {

struct code_object
    : api::event_domain<"CODE_OBJECT", kind::code_object, "CODE_OBJECT_LOAD",
                        "CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER", "CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER"> {};
struct scratch_memory : api::event_domain<"SCRATCH_MEMORY", kind::scratch_memory, "SCRATCH_MEMORY_ALLOC",
                                          "SCRATCH_MEMORY_FREE", "SCRATCH_MEMORY_ASYNC_RECLAIM"> {};
struct kernel_dispatch
    : api::event_domain<"KERNEL_DISPATCH", kind::kernel_dispatch, "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"> {
};
struct memory_copy
    : api::event_domain<"MEMORY_COPY", kind::memory_copy, "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE",
                        "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"> {};
struct memory_allocation
    : api::event_domain<"MEMORY_ALLOCATION", kind::memory_allocation, "MEMORY_ALLOCATION_ALLOCATE",
                        "MEMORY_ALLOCATION_VMEM_ALLOCATE", "MEMORY_ALLOCATION_FREE", "MEMORY_ALLOCATION_VMEM_FREE"> {};
struct runtime_initialization
    : api::event_domain<"RUNTIME_INITIALIZATION", kind::runtime_initialization, "RUNTIME_INITIALIZATION_HSA",
                        "RUNTIME_INITIALIZATION_HIP", "RUNTIME_INITIALIZATION_MARKER", "RUNTIME_INITIALIZATION_RCCL",
                        "RUNTIME_INITIALIZATION_ROCDECODE", "RUNTIME_INITIALIZATION_ROCJPEG",
                        "RUNTIME_INITIALIZATION_ROCSHMEM", "RUNTIME_INITIALIZATION_HIPFILE", "RUNTIME_INITIALIZATION_CUDA"> {
};
struct hip_stream
    : api::event_domain<"HIP_STREAM", kind::hip_stream, "HIP_STREAM_CREATE", "HIP_STREAM_DESTROY", "HIP_STREAM_SET"> {};
struct hip_graph : api::event_domain<"HIP_GRAPH", kind::hip_graph, "HIP_GRAPH_EXEC_CREATE", "HIP_GRAPH_EXEC_DESTROY",
                                     "HIP_GRAPH_EXEC_LAUNCH"> {};
struct hip_event : api::event_domain<"HIP_EVENT", kind::hip_event, "HIP_EVENT_RECORD", "HIP_EVENT_WAIT"> {};
struct kernel_replay : api::event_domain<"KERNEL_REPLAY", kind::kernel_replay, "KERNEL_REPLAY_CONFIG",
                                         "KERNEL_REPLAY_PASS", "KERNEL_REPLAY_SNAPSHOT", "KERNEL_REPLAY_RESTORE"> {};
struct range_replay
    : api::event_domain<"RANGE_REPLAY", kind::range_replay, "RANGE_REPLAY_CONFIG", "RANGE_REPLAY_PASS", "RANGE_REPLAY_CLOSE"> {
};

}  // namespace encore::domains
