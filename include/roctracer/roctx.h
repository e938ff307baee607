/* roctracer/roctx.h — encore's roctx-compatible marker API (libencore-roctx.so).
 *
 *   #include <roctracer/roctx.h>
 *   roctxRangePushA("load inputs");
 *   ...
 *   roctxRangePop();
 *   roctxMarkA("checkpoint");
 *
 * The functions and types of ROCm's roctx (roctracer) under the same names, so programs that
 * call roctx link against libencore-roctx instead of libroctx64 unchanged. With no tool
 * tracing MARKER_*_API they do their bookkeeping only (a per-thread range depth, a range id
 * counter): a relaxed load and a few instructions per call. Traced as MARKER_CORE_API,
 * MARKER_CONTROL_API and MARKER_NAME_API (see docs/hip.md).
 */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t roctx_range_id_t;
typedef uint64_t roctx_thread_id_t;

struct hsa_agent_s;
struct ihipStream_t;

/** An instantaneous marker with a message (may be NULL). */
void roctxMarkA(const char* message);
/** Opens a nested range on this thread. Returns its 0-based nesting level. */
int roctxRangePushA(const char* message);
/** Closes this thread's innermost range. Returns the 0-based level of the range it closed, or
 *  -1 when the thread has no open range (nothing else happens then). */
int roctxRangePop(void);
/** Starts a process-wide range (may be stopped on another thread). Returns its id (never 0). */
roctx_range_id_t roctxRangeStartA(const char* message);
/** Stops a range started with roctxRangeStartA. */
void roctxRangeStop(roctx_range_id_t id);
/** Stores the calling thread's id (gettid) in *tid. Returns 0, or -1 when tid is NULL. */
int roctxGetThreadId(roctx_thread_id_t* tid);

/** Pause / resume requests for a tool (traced as MARKER_CONTROL_API; encore itself changes
 *  nothing: a tool may stop or start its contexts in the callback). Return 0. */
int roctxProfilerPause(roctx_thread_id_t tid);
int roctxProfilerResume(roctx_thread_id_t tid);

/** Names for a tool to show (traced as MARKER_NAME_API). Return 0, or -1 when name is NULL. */
int roctxNameOsThread(const char* name);
int roctxNameHsaAgent(const char* name, const struct hsa_agent_s* agent);
int roctxNameHipDevice(const char* name, int device_id);
int roctxNameHipStream(const char* name, const struct ihipStream_t* stream);

#ifdef __cplusplus
} /* extern "C" */
#endif
