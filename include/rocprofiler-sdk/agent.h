/* rocprofiler-sdk/agent.h — the agents (CPUs and GPUs) of the HSA runtime encore was loaded into.
 *
 *   static rocprofiler_status_t on_agents(rocprofiler_agent_version_t v, const void** agents, size_t n, void* d) {
 *       for (size_t i = 0; i < n; ++i) {
 *           const rocprofiler_agent_v0_t* a = (const rocprofiler_agent_v0_t*)agents[i];
 *           if (a->type == ROCPROFILER_AGENT_TYPE_GPU && a->runtime_visibility.hip)
 *               printf("GPU %d: %s, %u KiB LDS\n", a->logical_node_type_id, a->name, a->lds_size_in_kb);
 *       }
 *       return ROCPROFILER_STATUS_SUCCESS;
 *   }
 *   rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0, on_agents, sizeof(rocprofiler_agent_t), NULL);
 *
 * Same function, type, field and enumerator names as the reference SDK, and the reference's
 * rocprofiler_agent_v0_t field for field, in its order and with its types: a tool compiled
 * against the reference's header reads the same offsets here. encore's own fields follow the
 * reference's, at the end.
 *
 * The reference reads the KFD topology (sysfs); encore asks the HSA runtime that loaded
 * libencore-hsa (hsa_iterate_agents, hsa_agent_get_info and the cache and memory pool queries),
 * so the agents are the ones that runtime lists and each field holds what the runtime answers.
 * Filled, and from where (GPU: on GPU agents only; CPU: on CPU agents only):
 *   type, name, vendor_name, product_name    HSA_AGENT_INFO_DEVICE / _NAME / _VENDOR_NAME,
 *                                            HSA_AMD_AGENT_INFO_PRODUCT_NAME
 *   cpu_cores_count (CPU), cu_count (GPU)    HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT
 *   simd_per_cu, num_shader_banks,           HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU / _NUM_SHADER_ENGINES /
 *   simd_arrays_per_engine, max_waves_per_cu _NUM_SHADER_ARRAYS_PER_SE / _MAX_WAVES_PER_CU
 *   simd_count, max_waves_per_simd,          computed (GPU): cu_count * simd_per_cu,
 *   array_count, cu_per_engine               max_waves_per_cu / simd_per_cu, num_shader_banks *
 *                                            simd_arrays_per_engine, cu_count / num_shader_banks
 *   wave_front_size, workgroup_max_size,     HSA_AGENT_INFO_WAVEFRONT_SIZE / _WORKGROUP_MAX_SIZE /
 *   workgroup_max_dim, grid_max_size,        _WORKGROUP_MAX_DIM / _GRID_MAX_SIZE / _GRID_MAX_DIM
 *   grid_max_dim
 *   lds_size_in_kb (GPU)                     size of the agent's GROUP-segment memory pool / 1024 (ROCr
 *                                            reports the LDS there; the software runtime has none: 0)
 *   local_mem_size (GPU)                     size of the agent's own coarse-grained GLOBAL pool
 *   caches_count, caches                     hsa_agent_iterate_caches: level and size of each (the
 *                                            other members: 0)
 *   io_links_count, io_links                 a link to each other agent one hop away:
 *                                            HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO on that agent's
 *                                            first GLOBAL pool (type, NUMA distance as weight,
 *                                            latencies, bandwidths, atomics/coherence as flags)
 *   gfx_target_version (GPU)                 from a "gfxMmS" name: M*10000 + m*100 + s (hex m, s)
 *   vendor_id (GPU)                          0x1002 when the vendor name is "AMD"
 *   device_id, location_id, domain           HSA_AMD_AGENT_INFO_CHIP_ID / _BDFID / _DOMAIN
 *   max_engine_clk_ccompute (CPU),           HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY (MHz)
 *   max_engine_clk_fcompute (GPU)
 *   node_id                                  HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, else HSA_AGENT_INFO_NODE
 *   logical_node_id, logical_node_type_id    index in hsa_iterate_agents order, among all / same type
 *   uuid (GPU)                               HSA_AMD_AGENT_INFO_UUID "GPU-<hex>": the 64-bit hex value
 *                                            in bytes 0..7 (host order, as the reference stores the
 *                                            KFD unique id), bytes 8..15 zero; "GPU-XX": all zero
 *   runtime_visibility                       hsa: 1 (the runtime listed the agent: ROCR_VISIBLE_DEVICES
 *                                            has been applied). hip, rccl, rocdecode: 1 on CPUs; on a
 *                                            GPU, as the reference estimates them: 1 unless
 *                                            HIP_VISIBLE_DEVICES (else CUDA_VISIBLE_DEVICES, else
 *                                            GPU_DEVICE_ORDINAL) is set and names neither its
 *                                            logical_node_type_id nor "GPU-<its uuid>"
 *   num_xcc, num_sdma_engines,               ROCr >= 6's HSA_AMD_AGENT_INFO_NUM_XCC / _NUM_SDMA_ENG /
 *   num_sdma_xgmi_engines, family_id,        _NUM_SDMA_XGMI_ENG / _ASIC_FAMILY_ID / _DRIVER_UID /
 *   gpu_id, fw_version, sdma_fw_version      _UCODE_VERSION / _SDMA_UCODE_VERSION where the runtime
 *                                            answers them (the software runtime does not: 0)
 * Always 0 (no HSA query answers them): mem_banks_count (mem_banks is null: HSA reports memory
 * pools, not the driver's memory banks), cpu_core_id_base, simd_id_base, gds_size_in_kb,
 * num_gws, cu_per_simd_array, max_slots_scratch_cu, drm_render_minor,
 * num_sdma_queues_per_engine, num_cp_queues, capability, hive_id; model_name is "".
 *
 * The agents are found once, when the runtime loads libencore-hsa (during the first hsa_init,
 * before tools are initialized: a tool may query them in its initialize). Pointers handed to the
 * callback, every string and array in them, stay valid until the process exits (tool
 * finalization included); copying the structs is fine.
 */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/hsakmt_types.h>

#include <stddef.h>
#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

/** Version of the agent struct handed to the query callback. */
typedef enum rocprofiler_agent_version_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_AGENT_INFO_VERSION_NONE = 0,
  ROCPROFILER_AGENT_INFO_VERSION_0 = 1,
  ROCPROFILER_AGENT_INFO_VERSION_LAST,
} rocprofiler_agent_version_t;

/** One cache of an agent (rocprofiler_agent_v0_t.caches). encore fills level and size. */
typedef struct rocprofiler_agent_cache_t {
    uint64_t processor_id_low;    /**< first processor the cache serves */
    uint64_t size;                /**< bytes */
    uint32_t level;               /**< 1, 2, 3, ... */
    uint32_t cache_line_size;     /**< bytes */
    uint32_t cache_lines_per_tag; /**< lines per tag */
    uint32_t association;         /**< ways */
    uint32_t latency;             /**< ns */
    HsaCacheType type;            /**< data / instruction / CPU / GPU bits */
} rocprofiler_agent_cache_t;

/** A link from one agent to another (rocprofiler_agent_v0_t.io_links). */
typedef struct rocprofiler_agent_io_link_t {
    HSA_IOLINKTYPE type;                /**< the bus: PCIe, XGMI, ... */
    uint32_t version_major;             /**< bus interface version */
    uint32_t version_minor;             /**< bus interface version */
    uint32_t node_from;                 /**< node_id of the agent the link starts at */
    uint32_t node_to;                   /**< node_id of the agent it reaches */
    uint32_t weight;                    /**< relative cost (NUMA distance) */
    uint32_t min_latency;               /**< ns */
    uint32_t max_latency;               /**< ns */
    uint32_t min_bandwidth;             /**< MB/s */
    uint32_t max_bandwidth;             /**< MB/s */
    uint32_t recommended_transfer_size; /**< bytes that reach the maximum bandwidth */
    HSA_LINKPROPERTY flags;             /**< coherence, atomics and peer-to-peer limits */
} rocprofiler_agent_io_link_t;

/** A memory bank of an agent (rocprofiler_agent_v0_t.mem_banks; encore reports none). */
typedef struct rocprofiler_agent_mem_bank_t {
    HSA_HEAPTYPE heap_type;   /**< system memory, frame buffer, ... */
    HSA_MEMORYPROPERTY flags; /**< hot-pluggable, non-volatile */
    uint32_t width;           /**< bits of the memory interface */
    uint32_t mem_clk_max;     /**< MHz */
    uint64_t size_in_bytes;   /**< bytes */
} rocprofiler_agent_mem_bank_t;

/** Which runtimes are expected to see an agent: an estimate from the visibility environment
 *  variables, made when the agents are found (the reference's name, spelt as it spells it). */
typedef struct rocprofiler_agent_runtime_visiblity_t {
    uint32_t hsa : 1;       /**< the HSA runtime (ROCr) */
    uint32_t hip : 1;       /**< HIP (over HSA) */
    uint32_t rccl : 1;      /**< RCCL (over HIP) */
    uint32_t rocdecode : 1; /**< rocDecode (over HIP) */
    uint32_t reserved : 28;
} rocprofiler_agent_runtime_visiblity_t;

/** One agent (version 0): the reference's fields in its order, then encore's. */
typedef struct rocprofiler_agent_v0_t {
    uint64_t size;                                 /**< sizeof(rocprofiler_agent_v0_t) as encore was built */
    rocprofiler_agent_id_t id;                     /**< the HSA agent handle; dispatch records' agent_id is the same */
    rocprofiler_agent_type_t type;                 /**< CPU, GPU (other devices: NONE) */
    uint32_t cpu_cores_count;                      /**< CPU: its cores */
    uint32_t simd_count;                           /**< GPU: its SIMDs */
    uint32_t mem_banks_count;                      /**< entries of mem_banks */
    uint32_t caches_count;                         /**< entries of caches */
    uint32_t io_links_count;                       /**< entries of io_links */
    uint32_t cpu_core_id_base;                     /**< first logical id of its CPU cores */
    uint32_t simd_id_base;                         /**< first logical id of its SIMDs */
    uint32_t max_waves_per_simd;                   /**< GPU: waves one SIMD runs at once */
    uint32_t lds_size_in_kb;                       /**< GPU: local data share (group segment), KiB */
    uint32_t gds_size_in_kb;                       /**< GPU: global data share, KiB */
    uint32_t num_gws;                              /**< GPU: global wave sync barriers */
    uint32_t wave_front_size;                      /**< lanes per wavefront */
    uint32_t num_xcc;                              /**< GPU: accelerator complex dies (XCDs) */
    uint32_t cu_count;                             /**< GPU: compute units */
    uint32_t array_count;                          /**< GPU: SIMD arrays in all */
    uint32_t num_shader_banks;                     /**< GPU: shader engines */
    uint32_t simd_arrays_per_engine;               /**< GPU: SIMD arrays per shader engine */
    uint32_t cu_per_simd_array;                    /**< GPU: compute units per SIMD array */
    uint32_t simd_per_cu;                          /**< GPU: SIMDs per compute unit */
    uint32_t max_slots_scratch_cu;                 /**< GPU: scratch wave slots per compute unit */
    uint32_t gfx_target_version;                   /**< GPU: major*10000 + minor*100 + stepping */
    uint16_t vendor_id;                            /**< GPU: PCI vendor id */
    uint16_t device_id;                            /**< GPU: PCI device (chip) id */
    uint32_t location_id;                          /**< PCI bus/device/function */
    uint32_t domain;                               /**< PCI domain */
    uint32_t drm_render_minor;                     /**< GPU: DRM render node minor number */
    uint32_t num_sdma_engines;                     /**< GPU: SDMA engines for host traffic */
    uint32_t num_sdma_xgmi_engines;                /**< GPU: SDMA engines for XGMI traffic */
    uint32_t num_sdma_queues_per_engine;           /**< GPU: queues per SDMA engine */
    uint32_t num_cp_queues;                        /**< GPU: compute queues */
    uint32_t max_engine_clk_ccompute;              /**< CPU: maximum clock, MHz */
    uint32_t max_engine_clk_fcompute;              /**< GPU: maximum clock, MHz */
    HSA_ENGINE_VERSION sdma_fw_version;            /**< GPU: SDMA firmware version */
    HSA_ENGINE_ID fw_version;                      /**< GPU: firmware (command processor) version */
    HSA_CAPABILITY capability;                     /**< GPU: capability bits */
    uint32_t cu_per_engine;                        /**< GPU: compute units per shader engine */
    uint32_t max_waves_per_cu;                     /**< GPU: waves one compute unit runs at once */
    uint32_t family_id;                            /**< GPU: ASIC family */
    uint32_t workgroup_max_size;                   /**< GPU: work-items per work-group */
    uint32_t grid_max_size;                        /**< GPU: work-items per grid */
    uint64_t local_mem_size;                       /**< GPU: device memory, bytes */
    uint64_t hive_id;                              /**< GPU: XGMI hive */
    uint64_t gpu_id;                               /**< GPU: the driver's (KFD's) id */
    rocprofiler_dim3_t workgroup_max_dim;          /**< GPU: work-items per work-group, per dimension */
    rocprofiler_dim3_t grid_max_dim;               /**< GPU: work-items per grid, per dimension */
    const rocprofiler_agent_mem_bank_t* mem_banks; /**< mem_banks_count entries (null when 0) */
    const rocprofiler_agent_cache_t* caches;       /**< caches_count entries (null when 0) */
    const rocprofiler_agent_io_link_t* io_links;   /**< io_links_count entries (null when 0) */
    const char* name;                              /**< e.g. "gfx90a" */
    const char* vendor_name;                       /**< e.g. "AMD" */
    const char* product_name;                      /**< marketing name ("" if not reported) */
    const char* model_name;                        /**< "" (not reported by HSA) */
    uint32_t node_id;                              /**< the driver's node number */
    int32_t logical_node_id;                       /**< index among all agents: 0..N-1 */
    int32_t logical_node_type_id;                  /**< index among the agents of the same type: 0..N_type-1 */
    rocprofiler_agent_runtime_visiblity_t runtime_visibility; /**< see above */
    rocprofiler_uuid_t uuid;                                  /**< GPU: unique id (see above) */
    /* ---- encore's own fields (not in the reference's v0 struct) ---- */
    uint32_t queue_min_size; /**< HSA_AGENT_INFO_QUEUE_MIN_SIZE (packets) */
    uint32_t queue_max_size; /**< HSA_AGENT_INFO_QUEUE_MAX_SIZE (packets) */
    uint32_t queues_max;     /**< HSA_AGENT_INFO_QUEUES_MAX */
    const char* uuid_string; /**< HSA_AMD_AGENT_INFO_UUID as text (e.g. "GPU-..."; "" if not reported) */
} rocprofiler_agent_v0_t;

typedef rocprofiler_agent_v0_t rocprofiler_agent_t;

/** Receives every agent at once: `agents[i]` points at a rocprofiler_agent_v0_t (for version
 *  ROCPROFILER_AGENT_INFO_VERSION_0). What it returns is what rocprofiler_query_available_agents
 *  returns. */
typedef rocprofiler_status_t (*rocprofiler_query_available_agents_cb_t)(rocprofiler_agent_version_t version,
                                                                        const void** agents, size_t num_agents,
                                                                        void* user_data);

/** Calls `callback` once, synchronously, with all agents (in hsa_iterate_agents order).
 *  `agent_size`: sizeof(rocprofiler_agent_t) as the caller was compiled.
 *  Returns what the callback returns, or
 *  - ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT: unknown version, or a null callback;
 *  - ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI: agent_size > sizeof(rocprofiler_agent_v0_t);
 *  - ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED: no HSA runtime has loaded libencore-hsa yet (the
 *    callback is not called). */
ROCPROFILER_API rocprofiler_status_t rocprofiler_query_available_agents(rocprofiler_agent_version_t version,
                                                                        rocprofiler_query_available_agents_cb_t callback,
                                                                        size_t agent_size,
                                                                        void* user_data) ROCPROFILER_NOEXCEPT;

ROCPROFILER_EXTERN_C_FINI

#if defined(__cplusplus)
static_assert(sizeof(rocprofiler_agent_runtime_visiblity_t) == sizeof(uint32_t),
              "rocprofiler_agent_runtime_visiblity_t must stay 32 bits (ABI)");
#endif
