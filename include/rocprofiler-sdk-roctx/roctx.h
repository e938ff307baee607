/* rocprofiler-sdk-roctx/roctx.h — roctx under the reference SDK's header path, implemented by
 * encore's libencore-roctx (link with `pkg-config --libs encore-roctx`).
 *
 *   #include <rocprofiler-sdk-roctx/roctx.h>
 *   roctxRangePush("load inputs");     // roctxRangePushA
 *   ...
 *   roctxRangePop();
 *   roctxMark("checkpoint");
 *
 * The same functions as <roctracer/roctx.h> (both headers may be included together); what each
 * does and returns is documented there and in docs/hip.md. Traced as MARKER_CORE_API,
 * MARKER_CONTROL_API, MARKER_NAME_API and MARKER_CORE_RANGE_API. */
#pragma once

#include <rocprofiler-sdk-roctx/defines.h>
#include <rocprofiler-sdk-roctx/types.h>
#include <rocprofiler-sdk-roctx/version.h>

#include <stddef.h>
#include <stdint.h>

struct hsa_agent_s;
struct ihipStream_t;

ROCTX_EXTERN_C_INIT

void roctxMarkA(const char* message) ROCTX_API ROCTX_NONNULL(1);
int roctxRangePushA(const char* message) ROCTX_API ROCTX_NONNULL(1);
int roctxRangePop(void) ROCTX_API;
roctx_range_id_t roctxRangeStartA(const char* message) ROCTX_API ROCTX_NONNULL(1);
void roctxRangeStop(roctx_range_id_t id) ROCTX_API;
int roctxProfilerPause(roctx_thread_id_t tid) ROCTX_API;
int roctxProfilerResume(roctx_thread_id_t tid) ROCTX_API;
int roctxNameOsThread(const char* name) ROCTX_API ROCTX_NONNULL(1);
int roctxNameHsaAgent(const char* name, const struct hsa_agent_s* agent) ROCTX_API ROCTX_NONNULL(1, 2);
int roctxNameHipDevice(const char* name, int device_id) ROCTX_API ROCTX_NONNULL(1);
int roctxNameHipStream(const char* name, const struct ihipStream_t* stream) ROCTX_API ROCTX_NONNULL(1);
int roctxGetThreadId(roctx_thread_id_t* tid) ROCTX_API ROCTX_NONNULL(1);

ROCTX_EXTERN_C_FINI

#if !defined(roctxRangeStart)
#    define roctxRangeStart(message) roctxRangeStartA(message)
#endif
#if !defined(roctxMark)
#    define roctxMark(message) roctxMarkA(message)
#endif
#if !defined(roctxRangePush)
#    define roctxRangePush(message) roctxRangePushA(message)
#endif
