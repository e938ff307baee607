/* rocprofiler-sdk/experimental/range_replay.h — the RANGE_REPLAY callback tracing service.
 *
 * Replays a whole sequence of dispatches (a phase: a layer, an optimizer step) N times from the
 * memory it started from, with one snapshot for the range instead of one per kernel. The
 * application marks the range itself; a tool configures the service like any other callback
 * tracing kind (one context per process; a second gets SERVICE_ALREADY_CONFIGURED):
 *
 *   rocprofiler_range_replay_begin(id)   CONFIG ENTER: the tool sets pass_count_cb (NULL = observe
 *                                        only) and optionally replay_continue_cb; CONFIG EXIT
 *   ... the application's dispatches     pass 0: they run as submitted and are recorded
 *   rocprofiler_range_replay_end()       PASS ENTER/EXIT for passes 1..N-1 (1-based), memory put
 *                                        back to the range's start before each; CLOSE ENTER/EXIT
 *                                        with the status (replayed, or why it was declined)
 *
 * After end returns, device memory is what the application's own run of the range left. Names,
 * values and members are the reference's (its range replay pull request); the members after
 * divergence_count and the ENCORE_ statuses are encore's. See docs/replay.md, "Range replay".
 *
 *   static uint64_t four(uint64_t range_id, rocprofiler_user_data_t ud) { return 4; }
 *   static void on_range(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void* d) {
 *       rocprofiler_callback_tracing_range_replay_data_t* p = r.payload;
 *       if (r.operation == ROCPROFILER_RANGE_REPLAY_CONFIG && r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
 *           p->pass_count_cb = &four;
 *   }
 */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

/** Why a range was or was not replayed (CLOSE). A decline never changes the application's own
 *  run of the range: only the extra passes are skipped. */
typedef enum rocprofiler_range_replay_status_t  // NOLINT(performance-enum-size)
{ ROCPROFILER_RANGE_REPLAY_STATUS_REPLAYED = 0,
  ROCPROFILER_RANGE_REPLAY_STATUS_NO_DISPATCH,          /**< nothing was dispatched in the range */
  ROCPROFILER_RANGE_REPLAY_STATUS_NO_PASS_COUNT,        /**< the tool opted out (NULL, 1, or 0 without continue) */
  ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_QUEUE,          /**< the range's thread used a second queue */
  ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_AGENT,          /**< ... or a queue of another agent */
  ROCPROFILER_RANGE_REPLAY_STATUS_GRAPH_LAUNCH,         /**< a HIP graph launch (not produced by encore yet) */
  ROCPROFILER_RANGE_REPLAY_STATUS_UNKNOWN_KERNARG_SIZE, /**< a kernel's argument size was not known */
  ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE, /**< a copy into or out of device memory */
  ROCPROFILER_RANGE_REPLAY_STATUS_CONCURRENT_DISPATCH,  /**< another thread dispatched to the agent */
  ROCPROFILER_RANGE_REPLAY_STATUS_PROGRAM_TOO_LARGE,    /**< more dispatches than encore records */
  ROCPROFILER_RANGE_REPLAY_STATUS_SNAPSHOT_FAILED,      /**< the start snapshot could not be taken */
  ROCPROFILER_RANGE_REPLAY_STATUS_STAGING_FAILED,       /**< argument staging, signals or a queue failed */
  ROCPROFILER_RANGE_REPLAY_STATUS_ALLOCATION_CHANGED_IN_RANGE, /**< device memory allocated or freed */
  ROCPROFILER_RANGE_REPLAY_STATUS_UNSUPPORTED_QUEUE_PATH,      /**< a packet encore cannot re-submit */
  ROCPROFILER_RANGE_REPLAY_STATUS_LAST,
  /* ---- encore (outside the reference's range, so its values never move) ---- */
  ENCORE_RANGE_REPLAY_STATUS_NESTED_RANGE = 0x100, /**< begin was called again while the range was open */
  ENCORE_RANGE_REPLAY_STATUS_TIMED_OUT,            /**< a drain or a pass exceeded ENCORE_REPLAY_TIMEOUT_MS */
  ENCORE_RANGE_REPLAY_STATUS_EXECUTABLE_DESTROYED, /**< an executable was destroyed while the range was open */
  ENCORE_RANGE_REPLAY_STATUS_RUNTIME_SHUT_DOWN,    /**< the runtime shut down while the range was open */
} rocprofiler_range_replay_status_t;

/** Payload of every RANGE_REPLAY record; which members mean something depends on the operation.
 *  Members up to divergence_count are the reference's (same order); encore appends the rest
 *  (size tells a tool which are present). */
typedef struct rocprofiler_callback_tracing_range_replay_data_t {
    uint64_t size;     /**< sizeof this struct */
    uint64_t range_id; /**< what the application passed to rocprofiler_range_replay_begin */
    /** CONFIG ENTER, tool: the total number of passes counting the application's run as pass 0
     *  (NULL or 1: observe only; N > 1: N-1 re-executions; 0: until replay_continue_cb says 0). */
    uint64_t (*pass_count_cb)(uint64_t range_id, rocprofiler_user_data_t user_data);
    /** CONFIG ENTER, tool, optional: after each PASS EXIT (not after the last pass of a fixed
     *  count); 0 ends the loop. PASS EXIT may override it for its pass. */
    int (*replay_continue_cb)(uint64_t range_id, uint64_t current_pass, uint64_t total_passes,
                              rocprofiler_user_data_t user_data);
    uint64_t current_pass; /**< PASS: 1-based (pass 0 is the application's, with no PASS record) */
    uint64_t total_passes; /**< PASS, CLOSE: the pass count (0: indefinite) */
    /** PASS ENTER only (CONTEXT_ERROR otherwise): mask a context for the rest of the range's
     *  passes, or unmask it; never starts a globally stopped context. */
    rocprofiler_status_t (*replay_local_start_context_cb)(rocprofiler_context_id_t context_id);
    rocprofiler_status_t (*replay_local_stop_context_cb)(rocprofiler_context_id_t context_id);
    rocprofiler_agent_id_t agent_id;          /**< PASS, CLOSE: the range's agent (0: no dispatch) */
    uint64_t dispatch_count;                  /**< PASS, CLOSE: dispatches recorded (PASS EXIT: run) */
    rocprofiler_range_replay_status_t status; /**< CLOSE */
    uint64_t divergence_count;                /**< with ENCORE_REPLAY_VERIFY=1: CLOSE, regions whose bytes
                                                     after the last pass differ from after pass 0; PASS ENTER
                                                     (encore), regions that differ from the start snapshot */
    /* ---- encore ---- */
    uint64_t passes_run;        /**< CLOSE: passes run counting pass 0 (1 when declined) */
    uint64_t snapshot_bytes;    /**< CLOSE: bytes of the start snapshot */
    const char* decline_reason; /**< CLOSE: why it was declined, in words (NULL when replayed or opted out) */
} rocprofiler_callback_tracing_range_replay_data_t;

/** Opens a replay range on the calling thread; CONFIG ENTER/EXIT are delivered before it returns.
 *  SUCCESS: a range is open. CONTEXT_NOT_FOUND: no context configured RANGE_REPLAY.
 *  CONTEXT_NOT_STARTED: that context is not active. INVALID_ARGUMENT: a range is already open on
 *  this thread (ranges do not nest: the open one is then declined, NESTED_RANGE).
 *  CONTEXT_ERROR (encore): called from a RANGE_REPLAY callback. NOT_IMPLEMENTED (encore): no
 *  loaded backend records ranges (libencore-hsa and libencore-cuda do). */
ROCPROFILER_API rocprofiler_status_t rocprofiler_range_replay_begin(uint64_t range_id);

/** Closes the calling thread's range: runs its extra passes (blocking), then CLOSE.
 *  SUCCESS: closed (replayed or declined: CLOSE's status says which). INVALID_ARGUMENT: no range
 *  is open on this thread. CONTEXT_ERROR (encore): called from a RANGE_REPLAY callback. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_range_replay_end(void);

ROCPROFILER_EXTERN_C_FINI
