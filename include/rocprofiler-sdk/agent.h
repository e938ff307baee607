/* rocprofiler-sdk/agent.h — the agents (CPUs and GPUs) of the HSA runtime encore was loaded into.
 *
 * Same function, type and enumerator names as the reference SDK. encore learns its agents from
 * the HSA runtime (hsa_iterate_agents / hsa_agent_get_info) when libencore-hsa is loaded as the
 * runtime's tools library, so rocprofiler_agent_v0_t holds the documented subset of the
 * reference's fields that an HSA runtime can answer (the reference reads the KFD topology), plus
 * a few of encore's own at the end. Fields the runtime does not report are 0 (strings ""). Where
 * a field exists in both, it has the reference's name, type and meaning.
 *
 * The agents are found once, when the runtime loads libencore-hsa (during the first hsa_init,
 * before tools are initialized: a tool may query them in its initialize). Pointers handed to the
 * callback, and every string in them, stay valid until the process exits (tool finalization
 * included); copying the structs is fine.
 */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

#include <stddef.h>
#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

/** Version of the agent struct handed to the query callback. */
typedef enum rocprofiler_agent_version_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_AGENT_INFO_VERSION_NONE = 0,
  ROCPROFILER_AGENT_INFO_VERSION_0,
  ROCPROFILER_AGENT_INFO_VERSION_LAST,
} rocprofiler_agent_version_t;

/** One agent (version 0). Each field names the HSA query it comes from. */
typedef struct rocprofiler_agent_v0_t {
    uint64_t size;                        /**< sizeof(rocprofiler_agent_v0_t) as encore was built */
    rocprofiler_agent_id_t id;            /**< the HSA agent handle (hsa_agent_t.handle); KERNEL_DISPATCH
                                        records carry the same value in dispatch_info.agent_id */
    rocprofiler_agent_type_t type;        /**< HSA_AGENT_INFO_DEVICE: CPU or GPU (other devices: NONE) */
    uint32_t cpu_cores_count;             /**< CPU: HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT; GPU: 0 */
    uint32_t simd_count;                  /**< GPU: cu_count * simd_per_cu; CPU: 0 */
    uint32_t max_waves_per_simd;          /**< GPU: max_waves_per_cu / simd_per_cu */
    uint32_t wave_front_size;             /**< HSA_AGENT_INFO_WAVEFRONT_SIZE */
    uint32_t cu_count;                    /**< GPU: HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT; CPU: 0 */
    uint32_t num_shader_banks;            /**< HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES */
    uint32_t simd_arrays_per_engine;      /**< HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE */
    uint32_t simd_per_cu;                 /**< HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU */
    uint32_t gfx_target_version;          /**< GPU: from a "gfxMmS" name: M*10000 + m*100 + s (hex m, s) */
    uint16_t vendor_id;                   /**< GPU with vendor name "AMD": 0x1002; otherwise 0 */
    uint16_t device_id;                   /**< HSA_AMD_AGENT_INFO_CHIP_ID */
    uint32_t location_id;                 /**< HSA_AMD_AGENT_INFO_BDFID */
    uint32_t domain;                      /**< HSA_AMD_AGENT_INFO_DOMAIN */
    uint32_t max_engine_clk_ccompute;     /**< CPU: HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY (MHz) */
    uint32_t max_engine_clk_fcompute;     /**< GPU: HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY (MHz) */
    uint32_t max_waves_per_cu;            /**< HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU */
    uint32_t workgroup_max_size;          /**< HSA_AGENT_INFO_WORKGROUP_MAX_SIZE */
    uint32_t grid_max_size;               /**< HSA_AGENT_INFO_GRID_MAX_SIZE */
    rocprofiler_dim3_t workgroup_max_dim; /**< HSA_AGENT_INFO_WORKGROUP_MAX_DIM */
    rocprofiler_dim3_t grid_max_dim;      /**< HSA_AGENT_INFO_GRID_MAX_DIM */
    const char* name;                     /**< HSA_AGENT_INFO_NAME (e.g. "gfx90a") */
    const char* vendor_name;              /**< HSA_AGENT_INFO_VENDOR_NAME */
    const char* product_name;             /**< HSA_AMD_AGENT_INFO_PRODUCT_NAME ("" if not reported) */
    const char* model_name;               /**< not reported by HSA: always "" */
    uint32_t node_id;                     /**< HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, else HSA_AGENT_INFO_NODE */
    int32_t logical_node_id;              /**< index in hsa_iterate_agents order: 0..N-1 */
    /* ---- encore's own fields (not in the reference's v0 struct) ---- */
    int32_t logical_node_type_id; /**< index among the agents of the same type: 0..N_type-1 */
    uint32_t queue_min_size;      /**< HSA_AGENT_INFO_QUEUE_MIN_SIZE (packets) */
    uint32_t queue_max_size;      /**< HSA_AGENT_INFO_QUEUE_MAX_SIZE (packets) */
    uint32_t queues_max;          /**< HSA_AGENT_INFO_QUEUES_MAX */
    const char* uuid_string;      /**< HSA_AMD_AGENT_INFO_UUID (e.g. "GPU-..."; "" if not reported) */
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
