/* test/c_api/c_agent_fields.c — C code of the kind real tools contain, compiled as C11 (issue 41):
 * the HIP graph operation by the reference's current name (Triton's Proton switches on
 * ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH) and the agent fields tools read (Proton: uuid,
 * runtime_visibility; gpufl: lds_size_in_kb; the arrays and firmware ids). The layout checks
 * compare rocprofiler_agent_v0_t with the reference's field list, in the reference's order and
 * types: a tool compiled against the reference's agent.h reads the same offsets.
 * test_c_api.cpp calls the functions below. */
#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/callback_tracing.h>

#include <stddef.h>
#include <stdint.h>

/* Values as the reference numbers them. */
_Static_assert(ROCPROFILER_HIP_GRAPH_OPERATION_NONE == 0, "HIP graph NONE");
_Static_assert(ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_CREATE == 1, "HIP graph EXEC_CREATE");
_Static_assert(ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_DESTROY == 2, "HIP graph EXEC_DESTROY");
_Static_assert(ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH == 3, "HIP graph EXEC_LAUNCH");
_Static_assert(ROCPROFILER_HIP_GRAPH_OPERATION_LAST == 4, "HIP graph LAST");
/* encore's earlier names stay as aliases of the same values. */
_Static_assert(ROCPROFILER_HIP_GRAPH_EXEC_LAUNCH == ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH, "alias");

/* 1 for a graph launch's ENTER, -1 for its EXIT, 0 otherwise (Proton's graph stack push/pop). */
int c_graph_launch_step(rocprofiler_callback_tracing_record_t record) {
    if (record.kind != ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH) return 0;
    switch (record.operation) {
        case ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH:
            return record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER  ? 1
                   : record.phase == ROCPROFILER_CALLBACK_PHASE_EXIT ? -1
                                                                     : 0;
        default: return 0;
    }
}

/* What a C tool reads of an agent, summed up for the C++ side to compare. */
typedef struct c_agent_summary {
    uint8_t uuid[16];
    uint32_t visible_hsa, visible_hip, visible_rccl, visible_rocdecode;
    uint32_t lds_size_in_kb;
    uint64_t local_mem_size;
    uint32_t cache_levels; /* sum of caches[i].level */
    uint64_t cache_bytes;  /* sum of caches[i].size */
    uint32_t links_to;     /* sum of io_links[i].node_to */
    uint32_t link_types;   /* sum of io_links[i].type */
    uint32_t mem_banks;
    uint32_t fw, sdma_fw, capability, num_xcc, family_id;
    uint64_t gpu_id;
    uint32_t array_count, cu_per_engine;
} c_agent_summary;

void c_summarize_agent(const rocprofiler_agent_v0_t* a, c_agent_summary* out) {
    uint32_t i = 0;
    for (i = 0; i < 16; ++i) out->uuid[i] = a->uuid.bytes[i];
    out->visible_hsa = a->runtime_visibility.hsa;
    out->visible_hip = a->runtime_visibility.hip;
    out->visible_rccl = a->runtime_visibility.rccl;
    out->visible_rocdecode = a->runtime_visibility.rocdecode;
    out->lds_size_in_kb = a->lds_size_in_kb;
    out->local_mem_size = a->local_mem_size;
    out->cache_levels = 0;
    out->cache_bytes = 0;
    for (i = 0; i < a->caches_count; ++i) {
        const rocprofiler_agent_cache_t* c = &a->caches[i];
        out->cache_levels += c->level;
        out->cache_bytes += c->size;
    }
    out->links_to = 0;
    out->link_types = 0;
    for (i = 0; i < a->io_links_count; ++i) {
        const rocprofiler_agent_io_link_t* l = &a->io_links[i];
        out->links_to += l->node_to;
        out->link_types += (uint32_t)l->type;
    }
    out->mem_banks = a->mem_banks_count + (a->mem_banks != NULL ? 1000u : 0u);
    out->fw = a->fw_version.ui32.uCode;
    out->sdma_fw = a->sdma_fw_version.uCodeSDMA;
    out->capability = a->capability.Value;
    out->num_xcc = a->num_xcc;
    out->family_id = a->family_id;
    out->gpu_id = a->gpu_id;
    out->array_count = a->array_count;
    out->cu_per_engine = a->cu_per_engine;
}

/* The reference's rocprofiler_agent_v0_t field list (its order and types), to compare offsets. */
typedef struct reference_agent_v0 {
    uint64_t size;
    rocprofiler_agent_id_t id;
    rocprofiler_agent_type_t type;
    uint32_t cpu_cores_count;
    uint32_t simd_count;
    uint32_t mem_banks_count;
    uint32_t caches_count;
    uint32_t io_links_count;
    uint32_t cpu_core_id_base;
    uint32_t simd_id_base;
    uint32_t max_waves_per_simd;
    uint32_t lds_size_in_kb;
    uint32_t gds_size_in_kb;
    uint32_t num_gws;
    uint32_t wave_front_size;
    uint32_t num_xcc;
    uint32_t cu_count;
    uint32_t array_count;
    uint32_t num_shader_banks;
    uint32_t simd_arrays_per_engine;
    uint32_t cu_per_simd_array;
    uint32_t simd_per_cu;
    uint32_t max_slots_scratch_cu;
    uint32_t gfx_target_version;
    uint16_t vendor_id;
    uint16_t device_id;
    uint32_t location_id;
    uint32_t domain;
    uint32_t drm_render_minor;
    uint32_t num_sdma_engines;
    uint32_t num_sdma_xgmi_engines;
    uint32_t num_sdma_queues_per_engine;
    uint32_t num_cp_queues;
    uint32_t max_engine_clk_ccompute;
    uint32_t max_engine_clk_fcompute;
    HSA_ENGINE_VERSION sdma_fw_version;
    HSA_ENGINE_ID fw_version;
    HSA_CAPABILITY capability;
    uint32_t cu_per_engine;
    uint32_t max_waves_per_cu;
    uint32_t family_id;
    uint32_t workgroup_max_size;
    uint32_t grid_max_size;
    uint64_t local_mem_size;
    uint64_t hive_id;
    uint64_t gpu_id;
    rocprofiler_dim3_t workgroup_max_dim;
    rocprofiler_dim3_t grid_max_dim;
    const rocprofiler_agent_mem_bank_t* mem_banks;
    const rocprofiler_agent_cache_t* caches;
    const rocprofiler_agent_io_link_t* io_links;
    const char* name;
    const char* vendor_name;
    const char* product_name;
    const char* model_name;
    uint32_t node_id;
    int32_t logical_node_id;
    int32_t logical_node_type_id;
    rocprofiler_agent_runtime_visiblity_t runtime_visibility;
    rocprofiler_uuid_t uuid;
} reference_agent_v0;

#define SAME_OFFSET(field)                                                                                  \
    _Static_assert(offsetof(rocprofiler_agent_v0_t, field) == offsetof(reference_agent_v0, field), #field); \
    _Static_assert(sizeof(((rocprofiler_agent_v0_t*)0)->field) == sizeof(((reference_agent_v0*)0)->field), #field)
SAME_OFFSET(size);
SAME_OFFSET(id);
SAME_OFFSET(type);
SAME_OFFSET(cpu_cores_count);
SAME_OFFSET(simd_count);
SAME_OFFSET(mem_banks_count);
SAME_OFFSET(caches_count);
SAME_OFFSET(io_links_count);
SAME_OFFSET(cpu_core_id_base);
SAME_OFFSET(simd_id_base);
SAME_OFFSET(max_waves_per_simd);
SAME_OFFSET(lds_size_in_kb);
SAME_OFFSET(gds_size_in_kb);
SAME_OFFSET(num_gws);
SAME_OFFSET(wave_front_size);
SAME_OFFSET(num_xcc);
SAME_OFFSET(cu_count);
SAME_OFFSET(array_count);
SAME_OFFSET(num_shader_banks);
SAME_OFFSET(simd_arrays_per_engine);
SAME_OFFSET(cu_per_simd_array);
SAME_OFFSET(simd_per_cu);
SAME_OFFSET(max_slots_scratch_cu);
SAME_OFFSET(gfx_target_version);
SAME_OFFSET(vendor_id);
SAME_OFFSET(device_id);
SAME_OFFSET(location_id);
SAME_OFFSET(domain);
SAME_OFFSET(drm_render_minor);
SAME_OFFSET(num_sdma_engines);
SAME_OFFSET(num_sdma_xgmi_engines);
SAME_OFFSET(num_sdma_queues_per_engine);
SAME_OFFSET(num_cp_queues);
SAME_OFFSET(max_engine_clk_ccompute);
SAME_OFFSET(max_engine_clk_fcompute);
SAME_OFFSET(sdma_fw_version);
SAME_OFFSET(fw_version);
SAME_OFFSET(capability);
SAME_OFFSET(cu_per_engine);
SAME_OFFSET(max_waves_per_cu);
SAME_OFFSET(family_id);
SAME_OFFSET(workgroup_max_size);
SAME_OFFSET(grid_max_size);
SAME_OFFSET(local_mem_size);
SAME_OFFSET(hive_id);
SAME_OFFSET(gpu_id);
SAME_OFFSET(workgroup_max_dim);
SAME_OFFSET(grid_max_dim);
SAME_OFFSET(mem_banks);
SAME_OFFSET(caches);
SAME_OFFSET(io_links);
SAME_OFFSET(name);
SAME_OFFSET(vendor_name);
SAME_OFFSET(product_name);
SAME_OFFSET(model_name);
SAME_OFFSET(node_id);
SAME_OFFSET(logical_node_id);
SAME_OFFSET(logical_node_type_id);
SAME_OFFSET(runtime_visibility);
SAME_OFFSET(uuid);
#undef SAME_OFFSET
/* encore's own fields come after all of the reference's. */
_Static_assert(offsetof(rocprofiler_agent_v0_t, queue_min_size) >= sizeof(reference_agent_v0), "encore's fields last");
_Static_assert(sizeof(rocprofiler_agent_runtime_visiblity_t) == 4, "runtime visibility is 32 bits");
_Static_assert(sizeof(rocprofiler_uuid_t) == 16, "uuid is 16 bytes");
_Static_assert(sizeof(rocprofiler_agent_cache_t) == 40, "cache entry");
_Static_assert(sizeof(rocprofiler_agent_io_link_t) == 48, "io link entry");
_Static_assert(sizeof(rocprofiler_agent_mem_bank_t) == 24, "memory bank entry");

/* sizeof as C sees them, for the C++ side to compare. */
size_t c_agent_size(void) { return sizeof(rocprofiler_agent_v0_t); }
size_t c_reference_agent_size(void) { return sizeof(reference_agent_v0); }
