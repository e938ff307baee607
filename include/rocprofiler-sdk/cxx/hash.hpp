// rocprofiler-sdk/cxx/hash.hpp — std::hash for the SDK's opaque handle types and the HSA
// handles, so they key unordered containers, as in the reference SDK. C++17.
//
//   #include <rocprofiler-sdk/cxx/hash.hpp>
//   #include <rocprofiler-sdk/cxx/operators.hpp>   // the == an unordered_map needs
//   std::unordered_map<rocprofiler_agent_id_t, uint64_t> dispatches_per_agent;
//
// A handle hashes to its value: handles are ids or addresses, already spread, and the identity
// keeps the hash of an agent id equal to the hash of the same number wherever a tool stores it.
#pragma once

#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/counter_config.h>
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/hsa.h>
#include <rocprofiler-sdk/internal_threading.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace rocprofiler {
namespace sdk {
namespace hash {

/// The hash of an opaque handle type (one uint64_t `handle`): the handle.
template <typename Tp>
struct handle_hasher {
    static_assert(sizeof(Tp) == sizeof(uint64_t), "handle_hasher hashes opaque handle types only");
    size_t operator()(Tp val) const noexcept { return static_cast<size_t>(val.handle); }
};

}  // namespace hash
}  // namespace sdk
}  // namespace rocprofiler

namespace std {
template <>
struct hash<rocprofiler_context_id_t> : rocprofiler::sdk::hash::handle_hasher<rocprofiler_context_id_t> {};
template <>
struct hash<rocprofiler_agent_id_t> : rocprofiler::sdk::hash::handle_hasher<rocprofiler_agent_id_t> {};
template <>
struct hash<rocprofiler_address_t> : rocprofiler::sdk::hash::handle_hasher<rocprofiler_address_t> {};
template <>
struct hash<rocprofiler_queue_id_t> : rocprofiler::sdk::hash::handle_hasher<rocprofiler_queue_id_t> {};
template <>
struct hash<rocprofiler_stream_id_t> : rocprofiler::sdk::hash::handle_hasher<rocprofiler_stream_id_t> {};
template <>
struct hash<rocprofiler_buffer_id_t> : rocprofiler::sdk::hash::handle_hasher<rocprofiler_buffer_id_t> {};
template <>
struct hash<hsa_agent_t> : rocprofiler::sdk::hash::handle_hasher<hsa_agent_t> {};
template <>
struct hash<hsa_signal_t> : rocprofiler::sdk::hash::handle_hasher<hsa_signal_t> {};
template <>
struct hash<hsa_executable_t> : rocprofiler::sdk::hash::handle_hasher<hsa_executable_t> {};
template <>
struct hash<hsa_region_t> : rocprofiler::sdk::hash::handle_hasher<hsa_region_t> {};
template <>
struct hash<hsa_amd_memory_pool_t> : rocprofiler::sdk::hash::handle_hasher<hsa_amd_memory_pool_t> {};
template <>
struct hash<rocprofiler_callback_thread_t> : rocprofiler::sdk::hash::handle_hasher<rocprofiler_callback_thread_t> {};
template <>
struct hash<rocprofiler_counter_id_t> : rocprofiler::sdk::hash::handle_hasher<rocprofiler_counter_id_t> {};
template <>
struct hash<rocprofiler_counter_config_id_t> : rocprofiler::sdk::hash::handle_hasher<rocprofiler_counter_config_id_t> {};
}  // namespace std
