// rocprofiler-sdk/cxx/operators.hpp — ==, !=, <, >, <=, >= for the SDK's id and handle structs,
// the HSA handles, agents, dim3 and version triplets, as the reference SDK defines them. C++17.
//
//   #include <rocprofiler-sdk/cxx/operators.hpp>
//   if (record.context_id == my_ctx) ...
//   std::map<rocprofiler_agent_id_t, stats> per_agent;   // operator<
//   if (rocprofiler_version_triplet_t{1, 0, 0} <= runtime_version) ...
//
// Opaque handles (a struct of one uint64_t `handle`) compare by handle; an agent by its id; a
// dim3 by its size x*y*z, then x, y, z; a version triplet by major, minor, patch. The handle
// operators are one set of templates over the `is_handle` list below, found by argument-dependent
// lookup like the reference's per-type functions (the structs are in the global namespace).
#pragma once

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/counter_config.h>
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/hsa.h>
#include <rocprofiler-sdk/internal_threading.h>
#include <rocprofiler-sdk/cxx/details/mpl.hpp>

#include <cstdint>
#include <tuple>
#include <type_traits>

namespace rocprofiler {
namespace sdk {
namespace operators {

/// The opaque handle types: one uint64_t `handle`, compared as that number.
template <typename Tp>
struct is_handle : std::false_type {};
template <>
struct is_handle<rocprofiler_context_id_t> : std::true_type {};
template <>
struct is_handle<rocprofiler_address_t> : std::true_type {};
template <>
struct is_handle<rocprofiler_agent_id_t> : std::true_type {};
template <>
struct is_handle<rocprofiler_queue_id_t> : std::true_type {};
template <>
struct is_handle<rocprofiler_stream_id_t> : std::true_type {};
template <>
struct is_handle<rocprofiler_buffer_id_t> : std::true_type {};
template <>
struct is_handle<hsa_agent_t> : std::true_type {};
template <>
struct is_handle<hsa_signal_t> : std::true_type {};
template <>
struct is_handle<hsa_executable_t> : std::true_type {};
template <>
struct is_handle<hsa_region_t> : std::true_type {};
template <>
struct is_handle<hsa_amd_memory_pool_t> : std::true_type {};
template <>
struct is_handle<rocprofiler_callback_thread_t> : std::true_type {};
template <>
struct is_handle<rocprofiler_counter_id_t> : std::true_type {};
template <>
struct is_handle<rocprofiler_counter_config_id_t> : std::true_type {};

template <typename Tp>
using enable_if_handle_t = std::enable_if_t<is_handle<Tp>::value, bool>;

/// The reference's helpers behind the handle operators.
template <typename Tp>
constexpr bool equal(Tp lhs, Tp rhs) {
    static_assert(sizeof(Tp) == sizeof(uint64_t), "equal() compares opaque handle types only");
    return lhs.handle == rhs.handle;
}
template <typename Tp>
constexpr bool less(Tp lhs, Tp rhs) {
    static_assert(sizeof(Tp) == sizeof(uint64_t), "less() compares opaque handle types only");
    return lhs.handle < rhs.handle;
}

}  // namespace operators
}  // namespace sdk
}  // namespace rocprofiler

// ---- opaque handles ---------------------------------------------------------------------------
template <typename Tp, rocprofiler::sdk::operators::enable_if_handle_t<Tp> = true>
constexpr bool operator==(Tp lhs, Tp rhs) {
    return rocprofiler::sdk::operators::equal(lhs, rhs);
}
template <typename Tp, rocprofiler::sdk::operators::enable_if_handle_t<Tp> = true>
constexpr bool operator!=(Tp lhs, Tp rhs) {
    return !rocprofiler::sdk::operators::equal(lhs, rhs);
}
template <typename Tp, rocprofiler::sdk::operators::enable_if_handle_t<Tp> = true>
constexpr bool operator<(Tp lhs, Tp rhs) {
    return rocprofiler::sdk::operators::less(lhs, rhs);
}
template <typename Tp, rocprofiler::sdk::operators::enable_if_handle_t<Tp> = true>
constexpr bool operator>(Tp lhs, Tp rhs) {
    return rocprofiler::sdk::operators::less(rhs, lhs);
}
template <typename Tp, rocprofiler::sdk::operators::enable_if_handle_t<Tp> = true>
constexpr bool operator<=(Tp lhs, Tp rhs) {
    return !rocprofiler::sdk::operators::less(rhs, lhs);
}
template <typename Tp, rocprofiler::sdk::operators::enable_if_handle_t<Tp> = true>
constexpr bool operator>=(Tp lhs, Tp rhs) {
    return !rocprofiler::sdk::operators::less(lhs, rhs);
}

// ---- agents: by id ----------------------------------------------------------------------------
inline bool operator==(const rocprofiler_agent_v0_t& lhs, const rocprofiler_agent_v0_t& rhs) {
    return lhs.id.handle == rhs.id.handle;
}
inline bool operator!=(const rocprofiler_agent_v0_t& lhs, const rocprofiler_agent_v0_t& rhs) { return !(lhs == rhs); }
inline bool operator<(const rocprofiler_agent_v0_t& lhs, const rocprofiler_agent_v0_t& rhs) {
    return lhs.id.handle < rhs.id.handle;
}
inline bool operator>(const rocprofiler_agent_v0_t& lhs, const rocprofiler_agent_v0_t& rhs) { return rhs < lhs; }
inline bool operator<=(const rocprofiler_agent_v0_t& lhs, const rocprofiler_agent_v0_t& rhs) { return !(rhs < lhs); }
inline bool operator>=(const rocprofiler_agent_v0_t& lhs, const rocprofiler_agent_v0_t& rhs) { return !(lhs < rhs); }

// ---- dim3: by size, then by x, y, z ----------------------------------------------------------
inline bool operator==(rocprofiler_dim3_t lhs, rocprofiler_dim3_t rhs) {
    return std::tie(lhs.x, lhs.y, lhs.z) == std::tie(rhs.x, rhs.y, rhs.z);
}
inline bool operator!=(rocprofiler_dim3_t lhs, rocprofiler_dim3_t rhs) { return !(lhs == rhs); }
inline bool operator<(rocprofiler_dim3_t lhs, rocprofiler_dim3_t rhs) {
    // In 64 bits: a grid's x*y*z overflows 32 (the reference's product wraps there).
    const auto size = [](rocprofiler_dim3_t d) { return uint64_t{d.x} * d.y * d.z; };
    if (size(lhs) != size(rhs)) return size(lhs) < size(rhs);
    return std::tie(lhs.x, lhs.y, lhs.z) < std::tie(rhs.x, rhs.y, rhs.z);
}
inline bool operator>(rocprofiler_dim3_t lhs, rocprofiler_dim3_t rhs) { return rhs < lhs; }
inline bool operator<=(rocprofiler_dim3_t lhs, rocprofiler_dim3_t rhs) { return !(rhs < lhs); }
inline bool operator>=(rocprofiler_dim3_t lhs, rocprofiler_dim3_t rhs) { return !(lhs < rhs); }

// ---- version triplets: major, minor, patch ---------------------------------------------------
inline bool operator==(rocprofiler_version_triplet_t lhs, rocprofiler_version_triplet_t rhs) {
    return std::tie(lhs.major, lhs.minor, lhs.patch) == std::tie(rhs.major, rhs.minor, rhs.patch);
}
inline bool operator!=(rocprofiler_version_triplet_t lhs, rocprofiler_version_triplet_t rhs) { return !(lhs == rhs); }
inline bool operator<(rocprofiler_version_triplet_t lhs, rocprofiler_version_triplet_t rhs) {
    return std::tie(lhs.major, lhs.minor, lhs.patch) < std::tie(rhs.major, rhs.minor, rhs.patch);
}
inline bool operator>(rocprofiler_version_triplet_t lhs, rocprofiler_version_triplet_t rhs) { return rhs < lhs; }
inline bool operator<=(rocprofiler_version_triplet_t lhs, rocprofiler_version_triplet_t rhs) { return !(rhs < lhs); }
inline bool operator>=(rocprofiler_version_triplet_t lhs, rocprofiler_version_triplet_t rhs) { return !(lhs < rhs); }
