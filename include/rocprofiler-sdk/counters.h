/* rocprofiler-sdk/counters.h — the counters an agent can count, what each is, and how a
 * record's instance id names its counter and dimension positions.
 *
 * Same names, types and prototypes as the reference SDK. In encore, the counters come from a
 * counter source: the software HSA runtime's GPU agents publish a small set they count exactly
 * for every dispatch (docs/counters.md lists them and what each means there). Agents without a
 * source (ROCr agents encore cannot program, CPU agents) have no counters.
 *
 *   rocprofiler_iterate_agent_supported_counters(agent, cb, &ids);     // cb(agent, ids, n, data)
 *   rocprofiler_counter_info_v0_t info;
 *   rocprofiler_query_counter_info(ids[0], ROCPROFILER_COUNTER_INFO_VERSION_0, &info);
 *   ...in a record callback:
 *   rocprofiler_counter_id_t which;
 *   rocprofiler_query_record_counter_id(record->id, &which);
 */
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/** A counter's description (ROCPROFILER_COUNTER_INFO_VERSION_0). Strings live as long as the
 *  process. */
typedef struct rocprofiler_counter_info_v0_t {
    rocprofiler_counter_id_t id;
    const char* name;
    const char* description;
    const char* block;      /* hardware block (non-derived counters) */
    const char* expression; /* derived counters only ("" otherwise) */
    uint8_t is_constant : 1;
    uint8_t is_derived : 1;
} rocprofiler_counter_info_v0_t;

/** One position in one dimension. */
typedef struct rocprofiler_counter_dimension_info_t {
    uint64_t size; /* of this struct */
    const char* dimension_name;
    size_t index;
} rocprofiler_counter_dimension_info_t;

/** One instance of a counter: its instance id and its position in each dimension. */
typedef struct rocprofiler_counter_record_dimension_instance_info_t {
    uint64_t size; /* of this struct */
    rocprofiler_counter_instance_id_t instance_id;
    uint64_t counter_id;
    uint64_t dimensions_count;
    const rocprofiler_counter_dimension_info_t** dimensions;
} rocprofiler_counter_record_dimension_instance_info_t;

/** A counter's description with its dimensions and instances (ROCPROFILER_COUNTER_INFO_VERSION_1;
 *  the caller sets `size`). Arrays live as long as the process. */
typedef struct rocprofiler_counter_info_v1_t {
    uint64_t size; /* of this struct */
    rocprofiler_counter_id_t id;
    const char* name;
    const char* description;
    const char* block;
    const char* expression;
    uint8_t is_constant : 1;
    uint8_t is_derived : 1;
    uint64_t dimensions_count;
    const rocprofiler_counter_record_dimension_info_t** dimensions;
    uint64_t dimensions_instances_count;
    const rocprofiler_counter_record_dimension_instance_info_t** dimensions_instances;
} rocprofiler_counter_info_v1_t;

/** The counter a record's instance id belongs to. */
rocprofiler_status_t rocprofiler_query_record_counter_id(
    rocprofiler_counter_instance_id_t id, rocprofiler_counter_id_t* counter_id) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

/** A record's position in dimension `dim` of its counter. */
rocprofiler_status_t rocprofiler_query_record_dimension_position(rocprofiler_counter_instance_id_t id,
                                                                 rocprofiler_counter_dimension_id_t dim,
                                                                 size_t* pos) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

/** Fills `info` (a rocprofiler_counter_info_v0_t or _v1_t, as `version` says). */
rocprofiler_status_t rocprofiler_query_counter_info(rocprofiler_counter_id_t counter_id,
                                                    rocprofiler_counter_info_version_id_t version,
                                                    void* info) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

typedef rocprofiler_status_t (*rocprofiler_available_counters_cb_t)(rocprofiler_agent_id_t agent_id,
                                                                    rocprofiler_counter_id_t* counters,
                                                                    size_t num_counters, void* user_data);

/** Calls `cb` once with every counter `agent_id` can count (none for an agent without a source). */
rocprofiler_status_t rocprofiler_iterate_agent_supported_counters(rocprofiler_agent_id_t agent_id,
                                                                  rocprofiler_available_counters_cb_t cb,
                                                                  void* user_data) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

/** Defines a derived counter from an expression. encore: NOT_IMPLEMENTED (no derived counters). */
rocprofiler_status_t rocprofiler_create_counter(const char* name, size_t name_len, const char* expr, size_t expr_len,
                                                const char* description, size_t description_len,
                                                rocprofiler_agent_id_t agent,
                                                rocprofiler_counter_id_t* counter_id) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

/* The reference keeps these two for tools written before rocprofiler_counter_info_v1_t. */
typedef rocprofiler_status_t (*rocprofiler_available_dimensions_cb_t)(
    rocprofiler_counter_id_t id, const rocprofiler_counter_record_dimension_info_t* dim_info, size_t num_dims,
    void* user_data);

/** Calls `info_cb` once with the dimensions of counter `id`. */
rocprofiler_status_t rocprofiler_iterate_counter_dimensions(rocprofiler_counter_id_t id,
                                                            rocprofiler_available_dimensions_cb_t info_cb,
                                                            void* user_data) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

/** How many instances (records per dispatch) counter `counter_id` has on `agent_id`. */
rocprofiler_status_t rocprofiler_query_counter_instance_count(rocprofiler_agent_id_t agent_id,
                                                              rocprofiler_counter_id_t counter_id,
                                                              size_t* instance_count) ROCPROFILER_NOEXCEPT ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI
