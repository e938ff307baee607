// test/cuda/test_cuda_domain.cpp — the CUDA_DRIVER_API declaration against the cuda.h this build
// uses (CUDA 13.0's, or an older one such as CI's 11.8): the same ids either way, names agree
// with the C enum, and the ops the header lacks are api::unavailable (no prototype).
#include <encore/domains/cuda_driver.hpp>
#include <rocprofiler-sdk/cuda/driver_api_id.h>

#include <doctest/doctest.h>

#include <cstddef>
#include <string_view>

using encore::domains::cuda_driver;

// Ids are positions and do not depend on the header: pinned, first, guarded and last.
static_assert(cuda_driver::size == 532 && cuda_driver::size == ROCPROFILER_CUDA_DRIVER_API_ID_LAST);
static_assert(cuda_driver::id_of<"cuGetErrorString">() == 0);
static_assert(cuda_driver::id_of<"cuMemAlloc_v2">() == ROCPROFILER_CUDA_DRIVER_API_ID_cuMemAlloc_v2);
static_assert(cuda_driver::id_of<"cuLaunchKernel">() == ROCPROFILER_CUDA_DRIVER_API_ID_cuLaunchKernel);
static_assert(cuda_driver::id_of<"cuCtxGetDevice_v2">() == ROCPROFILER_CUDA_DRIVER_API_ID_cuCtxGetDevice_v2);
static_assert(cuda_driver::id_of<"cuGraphicsUnmapResources_ptsz">() == ROCPROFILER_CUDA_DRIVER_API_ID_LAST - 1);

template <class Op>
concept has_prototype = requires {
    typename Op::function_type;
};

// cuCtxGetDevice_v2 is CUDA 13's: a prototype there, a name only against an older cuda.h.
using get_device_v2 = cuda_driver::op_at<cuda_driver::id_of<"cuCtxGetDevice_v2">()>;
static_assert(get_device_v2::available == (CUDA_VERSION >= 13000));
static_assert(has_prototype<get_device_v2> == get_device_v2::available);
static_assert(get_device_v2::name == "cuCtxGetDevice_v2");
// cuMemAlloc_v2 is in every supported header.
static_assert(cuda_driver::op_at<cuda_driver::id_of<"cuMemAlloc_v2">()>::available);

namespace {
template <std::size_t... I>
constexpr std::size_t unavailable_count(std::index_sequence<I...>) {
    return (std::size_t{!cuda_driver::op_at<I>::available} + ... + 0);
}
template <std::size_t... I>
constexpr bool prototypes_agree(std::index_sequence<I...>) {
    return ((has_prototype<cuda_driver::op_at<I>> == cuda_driver::op_at<I>::available) && ...);
}
}  // namespace

static_assert(prototypes_agree(std::make_index_sequence<cuda_driver::size>{}),
              "an op has a prototype exactly when it is available");

TEST_CASE("CUDA ops without a prototype in this build's cuda.h") {
    constexpr std::size_t n = unavailable_count(std::make_index_sequence<cuda_driver::size>{});
    MESSAGE("CUDA_VERSION " << CUDA_VERSION << ": " << n << " of " << cuda_driver::size << " ops unavailable");
    if (CUDA_VERSION >= 13000) CHECK(n == 0);
    if (CUDA_VERSION == 11080) CHECK(n == 120);  // tools/gen_cuda_domain.py --compat-include (11.8)
}

TEST_CASE("CUDA op names are unique C identifiers and start with cu") {
    for (std::string_view n : cuda_driver::names) {
        CHECK(n.substr(0, 2) == "cu");
        CHECK(n.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
              std::string_view::npos);
    }
}
