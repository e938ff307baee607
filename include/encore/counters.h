/* encore/counters.h — encore's extensions to the counter API (rocprofiler-sdk/counters.h):
 * counters by name, and multi-pass scheduling of a counter list into one-pass groups, which a
 * tool turns into one config per group and one kernel-replay pass per config.
 *
 *   rocprofiler_counter_id_t ids[2];
 *   encore_counter_find_by_name(agent, "sm__inst_executed.sum", &ids[0]);
 *   encore_counter_find_by_name(agent, "dram__bytes_read.sum", &ids[1]);
 *   size_t group_of[2], groups = 0;
 *   encore_counter_schedule_passes(agent, ids, 2, group_of, &groups);
 *   // for g in 0..groups: rocprofiler_create_counter_config(agent, the ids with group_of[i] == g, ...)
 *   // replay the dispatch `groups` times; in pass p the dispatch counting callback returns config p
 *
 * or, with the counter library's own multi-pass schedule (fewer passes, and on NVIDIA GPUs much
 * cheaper passes: docs/counters.md), one config for the whole list:
 *
 *   rocprofiler_counter_config_id_t config = {0};
 *   size_t passes = 0;
 *   encore_create_multipass_counter_config(agent, ids, 2, &config, &passes);
 *   // replay the dispatch `passes` times; in every pass the dispatch counting callback returns
 *   // `config`; the record callback of the last pass gets every value
 *
 * Any counter rocprofiler_iterate_agent_supported_counters lists can be named; on NVIDIA GPUs also
 * any other metric name CUPTI accepts for the device's chip (a submetric such as
 * `sm__cycles_elapsed.avg.per_second`), which is added to the agent's counters with a new id.
 * docs/counters.md says how the groups are made. */
#ifndef ENCORE_COUNTERS_H
#define ENCORE_COUNTERS_H

#include <rocprofiler-sdk/fwd.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The counter of `agent_id` named `name`. INVALID_ARGUMENT (null `name` or `counter_id`),
 *  AGENT_NOT_FOUND, AGENT_ARCH_NOT_SUPPORTED (the agent has no counters), COUNTER_NOT_FOUND
 *  (no such counter; on NVIDIA GPUs: CUPTI does not accept the name for the chip). */
ROCPROFILER_API rocprofiler_status_t encore_counter_find_by_name(rocprofiler_agent_id_t agent_id, const char* name,
                                                                 rocprofiler_counter_id_t* counter_id);

/** How many passes the hardware needs to collect `counters` together, as the counter library
 *  itself would schedule them (CUPTI: its multi-pass config image's pass count). The same
 *  statuses as encore_counter_schedule_passes. */
ROCPROFILER_API rocprofiler_status_t encore_counter_pass_count(rocprofiler_agent_id_t agent_id,
                                                               const rocprofiler_counter_id_t* counters, size_t count,
                                                               size_t* passes);

/** Splits `counters` into groups that each fit one pass: group_of[i] (0-based) is counter i's
 *  group, *groups how many there are. Greedy first fit in the order given (a counter joins the
 *  first group it fits with), so the result is at most the library's own pass count plus what
 *  greedy loses; a counter listed twice gets its first group. INVALID_ARGUMENT (null pointers,
 *  count 0), AGENT_NOT_FOUND, AGENT_ARCH_NOT_SUPPORTED, COUNTER_NOT_FOUND, METRIC_NOT_VALID_FOR_AGENT
 *  (another agent's counter), EXCEEDS_HW_LIMIT (a counter that alone needs more than one pass:
 *  group_of[i] is SIZE_MAX for it, the others are scheduled). */
ROCPROFILER_API rocprofiler_status_t encore_counter_schedule_passes(rocprofiler_agent_id_t agent_id,
                                                                    const rocprofiler_counter_id_t* counters,
                                                                    size_t count, size_t* group_of, size_t* groups);

/** A counter config of `counters` that may need several passes: *passes is how many the counter
 *  library needs for them together (its own schedule, as encore_counter_pass_count says). A
 *  one-pass set gives an ordinary config (*passes 1). With more, return this config from the
 *  dispatch counting callback in each of `*passes` consecutive kernel-replay passes of one
 *  dispatch (the kernel replay service's pass count): the library counts its k-th pass in the
 *  k-th of them, every pass starting from the restored memory, and the record callback of the
 *  last one gets every counter's value; the earlier passes' record callbacks get no records. A
 *  dispatch that runs fewer passes (counted outside replay, or its replay stopped early) gets no
 *  values (warned once), never partial ones. Collected so only when every context counting the
 *  dispatch gives such a config; a one-pass config of another context there gets no values for
 *  a set needing several passes (as today). `config_id` as for rocprofiler_create_counter_config
 *  (a non-zero handle: a base config whose counters join). Statuses: those of
 *  rocprofiler_create_counter_config except EXCEEDS_HW_LIMIT for a multi-pass set, and
 *  INVALID_ARGUMENT for a null `passes`. */
ROCPROFILER_API rocprofiler_status_t encore_create_multipass_counter_config(
    rocprofiler_agent_id_t agent_id, const rocprofiler_counter_id_t* counters, size_t count,
    rocprofiler_counter_config_id_t* config_id, size_t* passes);

#ifdef __cplusplus
}
#endif

#endif /* ENCORE_COUNTERS_H */
