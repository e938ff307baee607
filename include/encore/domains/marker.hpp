// encore/domains/marker.hpp — the marker (roctx) API domains.
//
//   MARKER_CORE_API      marks, thread ranges (push/pop), process ranges (start/stop)
//   MARKER_CONTROL_API   profiler pause/resume requests
//   MARKER_NAME_API      naming threads, agents, devices, streams
//   MARKER_CORE_RANGE_API the same calls seen as ranges: a push/pop pair (roctxThreadRangeA) or
//                         a start/stop pair (roctxProcessRangeA) is one operation whose ENTER
//                         comes at the push/start and whose EXIT comes at the matching pop/stop
//
// Operations are the functions of <roctracer/roctx.h>, numbered as the reference SDK numbers
// them (rocprofiler-sdk/marker/api_id.h); libencore-roctx exports and implements them.
#pragma once

#include <encore/api/domain.hpp>
#include <roctracer/roctx.h>

namespace encore::domains {

struct marker_core
    : api::domain<"MARKER_CORE_API", kind::marker_core_api, api::no_table, api::fn<"roctxMarkA", void(const char*), "message">,
                  api::fn<"roctxRangePushA", int(const char*), "message">, api::fn<"roctxRangePop", int()>,
                  api::fn<"roctxRangeStartA", roctx_range_id_t(const char*), "message">,
                  api::fn<"roctxRangeStop", void(roctx_range_id_t), "id">,
                  api::fn<"roctxGetThreadId", int(roctx_thread_id_t*), "tid">> {};

struct marker_control : api::domain<"MARKER_CONTROL_API", kind::marker_control_api, api::no_table,
                                    api::fn<"roctxProfilerPause", int(roctx_thread_id_t), "tid">,
                                    api::fn<"roctxProfilerResume", int(roctx_thread_id_t), "tid">> {};

struct marker_name
    : api::domain<"MARKER_NAME_API", kind::marker_name_api, api::no_table,
                  api::fn<"roctxNameOsThread", int(const char*), "name">,
                  api::fn<"roctxNameHsaAgent", int(const char*, const struct hsa_agent_s*), "name", "agent">,
                  api::fn<"roctxNameHipDevice", int(const char*, int), "name", "device_id">,
                  api::fn<"roctxNameHipStream", int(const char*, const struct ihipStream_t*), "name", "stream">> {};

// No function has these names: the reference names the range operations after what they span.
// The signatures are the opening call's (the message in, the push level / range id out), which
// is what each record's payload carries at ENTER and (with the return value) at EXIT.
struct marker_core_range : api::domain<"MARKER_CORE_RANGE_API", kind::marker_core_range_api, api::no_table,
                                       api::fn<"roctxMarkA", void(const char*), "message">,
                                       api::fn<"roctxThreadRangeA", int(const char*), "message">,
                                       api::fn<"roctxProcessRangeA", roctx_range_id_t(const char*), "message">,
                                       api::fn<"roctxGetThreadId", int(roctx_thread_id_t*), "tid">> {};

}  // namespace encore::domains
