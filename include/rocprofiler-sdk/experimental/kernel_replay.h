/* rocprofiler-sdk/experimental/kernel_replay.h — the KERNEL_REPLAY callback tracing service.
 *
 * A tool configures ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY like any other callback tracing
 * kind (exactly one context per process may; a second gets SERVICE_ALREADY_CONFIGURED). For each
 * kernel dispatch submitted as a single packet on an HSA queue, while that context is active:
 *
 *   CONFIG ENTER   the tool sets replay_pass_count (NULL = run once, opt out) and optionally
 *                  replay_continue; encore then calls replay_pass_count(dispatch_info, user_data):
 *                  1 = ordinary path, N > 1 = N passes (replay_continue may stop early, never
 *                  extend), 0 = until replay_continue returns 0 (0 without replay_continue is
 *                  declined with a warning: the dispatch runs once)
 *   [SNAPSHOT]     encore: device memory of the agent copied (bytes, time)        (encore)
 *   PASS ENTER/EXIT per pass (current_pass 0-based, total_passes 0 = indefinite); local
 *                  start/stop of other contexts legal only during PASS ENTER
 *   [RESTORE]      encore: memory reset before every pass but the first           (encore)
 *   CONFIG EXIT    after the last pass; the program's completion signal fires after it, once
 *
 * user_data: one value per replay sequence; what CONFIG ENTER leaves seeds replay_pass_count,
 * every PASS (each pass gets its own copy: a write in PASS ENTER is seen by that pass's EXIT and
 * by its replay_continue call, not by the next pass) and CONFIG EXIT. State that must persist
 * belongs behind user_data.ptr. See docs/replay.md.
 */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

/** Tool-provided: the number of passes for a dispatch (see above for 0 and 1). */
typedef uint64_t (*rocprofiler_kernel_replay_pass_count_cb_t)(rocprofiler_kernel_dispatch_info_t dispatch_info,
                                                              rocprofiler_user_data_t user_data);

/** Tool-provided: called after each pass's PASS EXIT (never after the last pass of a fixed
 *  count); returning 0 ends the loop. */
typedef int (*rocprofiler_kernel_replay_continue_cb_t)(rocprofiler_kernel_dispatch_info_t dispatch_info,
                                                       uint64_t current_pass, uint64_t total_passes,
                                                       rocprofiler_user_data_t user_data);

/** SDK-provided: enables / disables a context for the passes of the current replay loop. Legal
 *  only during PASS ENTER (ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR otherwise); sticky across
 *  passes; never changes global state and never enables a globally stopped context. */
typedef rocprofiler_status_t (*rocprofiler_kernel_replay_context_cb_t)(rocprofiler_context_id_t context_id);

/** Payload of every KERNEL_REPLAY record. One flat struct: fields unused by an operation are 0.
 *  The members up to replay_stop_context are the reference's; encore appends the rest (size
 *  tells a tool which are present). */
typedef struct rocprofiler_callback_tracing_kernel_replay_data_t {
    uint64_t size;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
    uint64_t current_pass; /**< 0-based; PASS only */
    uint64_t total_passes; /**< 0 = indefinite; PASS and CONFIG EXIT */
    /* The reference's payload has used two spellings of these two members (replay_pass_count /
     * replay_continue, and pass_count_cb / replay_continue_cb in its later sources and samples);
     * each pair shares one slot so tools written against either compile unchanged. */
    union {
        rocprofiler_kernel_replay_pass_count_cb_t replay_pass_count; /**< tool sets in CONFIG ENTER */
        rocprofiler_kernel_replay_pass_count_cb_t pass_count_cb;
    };
    union {
        rocprofiler_kernel_replay_continue_cb_t replay_continue; /**< tool sets in CONFIG ENTER;
                                                                     PASS EXIT may override for its pass */
        rocprofiler_kernel_replay_continue_cb_t replay_continue_cb;
    };
    rocprofiler_kernel_replay_context_cb_t replay_start_context; /**< SDK sets in PASS ENTER */
    rocprofiler_kernel_replay_context_cb_t replay_stop_context;  /**< SDK sets in PASS ENTER */
    /* ---- encore ---- */
    uint64_t passes_run;      /**< CONFIG EXIT: passes actually submitted (1 when not replayed) */
    uint64_t bytes;           /**< SNAPSHOT: bytes captured; RESTORE: bytes written back */
    uint64_t regions;         /**< SNAPSHOT / RESTORE: memory regions covered */
    uint64_t start_timestamp; /**< SNAPSHOT / RESTORE EXIT: ns, CLOCK_BOOTTIME */
    uint64_t end_timestamp;
    const char* decline_reason; /**< CONFIG EXIT: why the dispatch was not replayed (NULL if it
                                       was, or the tool opted out); a static string */
    uint64_t bytes_copied;      /**< SNAPSHOT: bytes copied to bring the snapshot up to date (an
                                       incremental snapshot copies only what changed since the
                                       last one; `bytes` is what it holds); RESTORE: = bytes */
} rocprofiler_callback_tracing_kernel_replay_data_t;

/* ---- encore extensions -------------------------------------------------------------------- */

/** How memory is reset between passes. */
typedef enum encore_replay_snapshot_policy_t  // NOLINT(performance-enum-size)
{ ENCORE_REPLAY_SNAPSHOT_DEFAULT = 0,         /**< the backend's measured default (docs/replay.md) */
  ENCORE_REPLAY_SNAPSHOT_FULL_COPY,           /**< write every covered byte back (the reference) */
  ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS,      /**< write back only the chunks a pass changed */
  ENCORE_REPLAY_SNAPSHOT_LAST,
} encore_replay_snapshot_policy_t;

typedef struct encore_kernel_replay_options_t {
    uint64_t size; /**< sizeof(encore_kernel_replay_options_t) */
    encore_replay_snapshot_policy_t policy;
    uint64_t chunk_size; /**< changed_chunks granularity, rounded up to pages, at most 2^30; 0 = default (one page) */
    uint64_t memory_budget;   /**< max bytes one snapshot may hold; 0 = default (half of RAM, for
                                   snapshots in host memory only) */
    uint64_t wait_timeout_ns; /**< bound of each lock / drain / pass wait, at most a day; 0 = 60 s */
} encore_kernel_replay_options_t;

/** Options of the replay service of `context_id`. Only during tool initialization
 *  (CONFIGURATION_LOCKED otherwise), after that context configured KERNEL_REPLAY
 *  (CONTEXT_ERROR otherwise). Environment variables ENCORE_REPLAY_POLICY (full_copy |
 *  changed_chunks), ENCORE_REPLAY_CHUNK_SIZE, ENCORE_REPLAY_MEMORY_BUDGET and
 *  ENCORE_REPLAY_TIMEOUT_MS override what a tool sets; a value out of range is ignored with a
 *  message (once per value). INVALID_ARGUMENT: a null `options`, a size smaller than this
 *  struct's, an unknown policy, chunk_size > 2^30 or wait_timeout_ns > a day. */
ROCPROFILER_API rocprofiler_status_t encore_configure_kernel_replay_options(
    rocprofiler_context_id_t context_id, const encore_kernel_replay_options_t* options);

/** A 64-bit checksum of every byte the current replay's snapshot covers, as it is now. Legal
 *  only on the replaying thread during PASS ENTER (CONTEXT_ERROR otherwise, and also when the
 *  backend could not read the memory): a tool checks that every pass starts from identical
 *  inputs. Values compare within one replayed dispatch only: how the bytes are hashed is the
 *  backend's (CUDA folds per-chunk hashes computed on the device, docs/cuda.md). */
ROCPROFILER_API rocprofiler_status_t encore_kernel_replay_checksum(uint64_t* checksum);

ROCPROFILER_EXTERN_C_FINI
