// src/core/kinds.cpp — kind id -> names, operations and argument iteration.
#include "kinds.hpp"

#include <encore/domains/events.hpp>

#include <atomic>

namespace encore::core {
namespace {

// Kinds with no operation table in encore: their name is known, their operations are not.
template <kind K>
constexpr kind_info named_only(const char* name) {
    kind_info i;
    i.name = name;
    i.first_op = 0;
    i.op_count = 0;
    return i;
}

constinit const kind_info code_object_info = event_kind_info<domains::code_object>();
constinit const kind_info scratch_memory_info = event_kind_info<domains::scratch_memory>();
constinit const kind_info kernel_dispatch_info = event_kind_info<domains::kernel_dispatch>();
constinit const kind_info memory_copy_info = event_kind_info<domains::memory_copy>();
constinit const kind_info memory_allocation_info = event_kind_info<domains::memory_allocation>();
constinit const kind_info runtime_initialization_info = event_kind_info<domains::runtime_initialization>();
constinit const kind_info hip_stream_info = event_kind_info<domains::hip_stream>();
constinit const kind_info hip_graph_info = event_kind_info<domains::hip_graph>();
constinit const kind_info hip_event_info = event_kind_info<domains::hip_event>();
constinit const kind_info kernel_replay_info = event_kind_info<domains::kernel_replay>();

constinit const kind_info rccl_info = named_only<kind::rccl_api>("RCCL_API");
constinit const kind_info ompt_info = named_only<kind::ompt>("OMPT");
constinit const kind_info rocdecode_info = named_only<kind::rocdecode_api>("ROCDECODE_API");
constinit const kind_info rocjpeg_info = named_only<kind::rocjpeg_api>("ROCJPEG_API");
constinit const kind_info rocshmem_info = named_only<kind::rocshmem_api>("ROCSHMEM_API");
constinit const kind_info hipfile_info = named_only<kind::hipfile_api>("HIPFILE_API");
constinit const kind_info cuda_driver_info = named_only<kind::cuda_driver_api>("CUDA_DRIVER_API");
std::atomic<const kind_info*> g_cuda_driver_info{nullptr};

// Whether encore emits records of a kind in this build. A backend turns its kinds on when it is
// compiled in (HSA API kinds: the wrappers of encore/tracing/wrapper.hpp).
std::atomic<bool> g_produced[kind_count] = {};

const kind_info* info_of(kind k) noexcept {
    switch (k) {
        case kind::hsa_core_api: return &hsa_core_info;
        case kind::hsa_amd_ext_api: return &hsa_amd_ext_info;
        case kind::hsa_image_ext_api: return &hsa_image_ext_info;
        case kind::hsa_finalize_ext_api: return &hsa_finalize_ext_info;
        case kind::hip_runtime_api: return &hip_runtime_info;
        case kind::hip_compiler_api: return &hip_compiler_info;
        case kind::marker_core_api: return &marker_core_info;
        case kind::marker_control_api: return &marker_control_info;
        case kind::marker_name_api: return &marker_name_info;
        case kind::code_object: return &code_object_info;
        case kind::scratch_memory: return &scratch_memory_info;
        case kind::kernel_dispatch: return &kernel_dispatch_info;
        case kind::memory_copy: return &memory_copy_info;
        case kind::rccl_api: return &rccl_info;
        case kind::ompt: return &ompt_info;
        case kind::memory_allocation: return &memory_allocation_info;
        case kind::runtime_initialization: return &runtime_initialization_info;
        case kind::rocdecode_api: return &rocdecode_info;
        case kind::rocjpeg_api: return &rocjpeg_info;
        case kind::hip_stream: return &hip_stream_info;
        case kind::marker_core_range_api: return &marker_core_range_info;
        case kind::hip_graph: return &hip_graph_info;
        case kind::rocshmem_api: return &rocshmem_info;
        case kind::hipfile_api: return &hipfile_info;
        case kind::kernel_replay: return &kernel_replay_info;
        case kind::hip_event: return &hip_event_info;
        case kind::cuda_driver_api: {
            // The CUDA backend (libencore-cuda, built where cuda.h exists) registers the full
            // table when it loads; until then the kind is a name.
            const kind_info* registered = g_cuda_driver_info.load(std::memory_order_acquire);
            return registered != nullptr ? registered : &cuda_driver_info;
        }
        case kind::none:
        case kind::last: break;
    }
    return nullptr;
}

struct produced_defaults {
    produced_defaults() {
        for (kind k : {kind::hsa_core_api, kind::hsa_amd_ext_api, kind::hsa_image_ext_api, kind::hsa_finalize_ext_api})
            g_produced[static_cast<std::size_t>(k)].store(true, std::memory_order_relaxed);
    }
} const g_produced_defaults;

}  // namespace

const kind_info* find_kind(rocprofiler_callback_tracing_kind_t k) noexcept {
    if (k <= ROCPROFILER_CALLBACK_TRACING_NONE || k >= ROCPROFILER_CALLBACK_TRACING_LAST) return nullptr;
    return info_of(static_cast<kind>(k));
}

bool kind_produced(kind k) noexcept {
    const auto i = static_cast<std::size_t>(k);
    return i < kind_count && g_produced[i].load(std::memory_order_acquire);
}

void register_kind_info(kind k, const kind_info* info) noexcept {
    if (k == kind::cuda_driver_api) g_cuda_driver_info.store(info, std::memory_order_release);
}

void set_kind_produced(kind k, bool produced) noexcept {
    g_produced[static_cast<std::size_t>(k)].store(produced, std::memory_order_release);
}

}  // namespace encore::core
