// rocprofiler-sdk/cxx/version.hpp — a version number split back into its triplet, under the
// reference SDK's names. C++17.
//
//   // in rocprofiler_configure(uint32_t version, ...):
//   auto v = rocprofiler::sdk::version::compute_version_triplet(version);   // 10401 -> {1, 4, 1}
//   if (v < rocprofiler_version_triplet_t{1, 0, 0}) return nullptr;        // <rocprofiler-sdk/cxx/operators.hpp>
#pragma once

#include <rocprofiler-sdk/fwd.h>

#include <cstdint>

namespace rocprofiler {
namespace sdk {
namespace version {

/// The inverse of ROCPROFILER_SDK_COMPUTE_VERSION_VALUE(FactorV, ...): each part takes one digit
/// group of FactorV (100: 1.4.1 is 10401; 1000: 1.4.1 is 1004001).
template <uint64_t FactorV = 100>
constexpr rocprofiler_version_triplet_t compute_version_triplet(uint64_t version) {
    static_assert(FactorV > 1, "the factor must leave room for a digit per part");
    return rocprofiler_version_triplet_t{static_cast<uint32_t>(version / (FactorV * FactorV)),
                                         static_cast<uint32_t>((version / FactorV) % FactorV),
                                         static_cast<uint32_t>(version % FactorV)};
}

}  // namespace version
}  // namespace sdk
}  // namespace rocprofiler
