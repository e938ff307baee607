/* rocprofiler-sdk/counter_config.h — a set of counters to collect on one agent.
 *
 * Same names and prototypes as the reference SDK. A config is bound to its agent and usable from
 * any context; a dispatch callback (dispatch_counting_service.h) returns one per dispatch.
 * Creating one is allowed at any time (tools often create them lazily, in the dispatch callback).
 *
 *   rocprofiler_counter_config_id_t cfg = {0};
 *   rocprofiler_create_counter_config(agent, ids, n, &cfg);
 *   ...
 *   rocprofiler_destroy_counter_config(cfg);
 */
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/** Creates a config of `counters_list` for `agent_id`. A non-zero `config_id->handle` on entry
 *  names an existing config whose counters are added to the new one (that one is unchanged). */
rocprofiler_status_t rocprofiler_create_counter_config(
    rocprofiler_agent_id_t agent_id, rocprofiler_counter_id_t* counters_list, size_t counters_count,
    rocprofiler_counter_config_id_t* config_id) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

/** Destroys a config: dispatch callbacks returning it afterwards count nothing. */
rocprofiler_status_t rocprofiler_destroy_counter_config(
    rocprofiler_counter_config_id_t config_id) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

#if !defined(ROCPROFILER_SDK_BETA_COMPAT) || ROCPROFILER_SDK_BETA_COMPAT > 0
/* "profile_config" is the reference's earlier name for "counter_config". */
static inline rocprofiler_status_t rocprofiler_create_profile_config(rocprofiler_agent_id_t agent_id,
                                                                     rocprofiler_counter_id_t* counters_list,
                                                                     size_t counters_count,
                                                                     rocprofiler_profile_config_id_t* config_id) {
    return rocprofiler_create_counter_config(agent_id, counters_list, counters_count, config_id);
}

static inline rocprofiler_status_t rocprofiler_destroy_profile_config(rocprofiler_profile_config_id_t config_id) {
    return rocprofiler_destroy_counter_config(config_id);
}
#endif

ROCPROFILER_EXTERN_C_FINI
