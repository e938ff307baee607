// src/hip/roles.hpp — which HIP runtime ops feed which derived kind (HIP_STREAM, HIP_EVENT,
// HIP_GRAPH), as one table beside the domain: the generic layer (interposer.hpp) looks an op's
// role up here instead of testing names.
//
//   static_assert(role_of<hip_runtime::id_of<"hipEventRecord">()> == hip_role::event_record);
//
// Every other op that takes a hipStream_t runs "on" that stream (HIP_STREAM SET around the
// call); that follows from the prototype, not from this table.
#pragma once

#include <encore/domains/hip_runtime.hpp>

#include <cstdint>
#include <string_view>

namespace encore::hip {

enum class hip_role : std::uint8_t {
    none,
    stream_create,   // HIP_STREAM CREATE after it succeeds; the new stream is written to arg 0
    stream_destroy,  // HIP_STREAM DESTROY after it succeeds; the stream is arg 0
    event_record,    // HIP_EVENT RECORD around it (event, stream), then its completion record
    event_wait,      // HIP_EVENT WAIT around it (stream, event)
    exec_create,     // HIP_GRAPH EXEC_CREATE after it succeeds; the new exec is written to arg 0
    exec_destroy,    // HIP_GRAPH EXEC_DESTROY after it succeeds; the exec is arg 0
    exec_launch,     // HIP_GRAPH EXEC_LAUNCH around it; the exec is arg 0
};

struct role_entry {
    std::string_view op;
    hip_role role;
};

inline constexpr role_entry role_table[] = {
    {"hipStreamCreate", hip_role::stream_create},
    {"hipStreamCreateWithFlags", hip_role::stream_create},
    {"hipStreamCreateWithPriority", hip_role::stream_create},
    {"hipExtStreamCreateWithCUMask", hip_role::stream_create},
    // Below, functions of newer runtimes (ROCm 5.2's library has none of them): where a runtime
    // exports them, they feed the derived kinds as their older forms do.
    {"hipExecutionCtxStreamCreate", hip_role::stream_create},
    {"hipStreamDestroy", hip_role::stream_destroy},
    {"hipEventRecord", hip_role::event_record},
    {"hipEventRecord_spt", hip_role::event_record},
    {"hipEventRecordWithFlags", hip_role::event_record},
    {"hipStreamWaitEvent", hip_role::event_wait},
    {"hipStreamWaitEvent_spt", hip_role::event_wait},
    {"hipGraphInstantiate", hip_role::exec_create},
    {"hipGraphInstantiateWithFlags", hip_role::exec_create},
    {"hipGraphInstantiateWithParams", hip_role::exec_create},
    {"hipGraphExecDestroy", hip_role::exec_destroy},
    {"hipGraphLaunch", hip_role::exec_launch},
    {"hipGraphLaunch_spt", hip_role::exec_launch},
};

/// The role of op I of the HIP runtime domain.
template <std::size_t I>
inline constexpr hip_role role_of = [] {
    for (const role_entry& e : role_table)
        if (e.op == domains::hip_runtime::names[I]) return e.role;
    return hip_role::none;
}();

/// Every op the table names exists in the domain (a renamed or removed op fails here).
static_assert(
    [] {
        for (const role_entry& e : role_table)
            if (!domains::hip_runtime::find(e.op)) return false;
        return true;
    }(),
    "src/hip/roles.hpp names an op the HIP runtime domain does not have");

}  // namespace encore::hip
