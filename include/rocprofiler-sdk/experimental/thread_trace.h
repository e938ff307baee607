/* rocprofiler-sdk/experimental/thread_trace.h — advanced thread trace (ATT).
 *
 * Declared with the reference SDK's names, types and prototypes so tools compile. Thread trace
 * programs the shader engines' trace hardware, which neither the software HSA runtime nor a ROCr
 * agent driven from outside exposes to encore: both configure functions return
 * ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED (docs/counters.md). The reference's trace decoder
 * (thread-trace/trace_decoder.h) is not declared: there is no trace to decode.
 */
#pragma once

#include <rocprofiler-sdk/experimental/thread-trace/agent.h>
#include <rocprofiler-sdk/experimental/thread-trace/core.h>
#include <rocprofiler-sdk/experimental/thread-trace/dispatch.h>
