// test/api/test_hip_signatures.cpp — every HIP op's declared signature selects a real
// declaration of libamdhip64 (compile-time check; linked against libamdhip64).
#include <encore/domains/hip_runtime.hpp>

#include <doctest/doctest.h>

#include <type_traits>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
namespace {
template <class Op, auto Fn>
constexpr bool same_sig = std::is_same_v<typename Op::function_type*, decltype(Fn)>;
}
#define ENCORE_HIP_FN(NAME)                                                                                                    \
    static_assert(                                                                                                             \
        same_sig<encore::domains::hip_runtime::op_at<encore::domains::hip_runtime::id_of<#NAME>()>,                            \
                 static_cast<encore::domains::hip_runtime::op_at<encore::domains::hip_runtime::id_of<#NAME>()>::pointer_type>( \
                     &::NAME)>);
ENCORE_HIP_FN(hipMalloc)
ENCORE_HIP_FN(hipFree)
ENCORE_HIP_FN(hipGetDeviceCount)
ENCORE_HIP_FN(hipGetErrorString)
ENCORE_HIP_FN(hipStreamCreate)
ENCORE_HIP_FN(hipLaunchKernel)
ENCORE_HIP_FN(hipMemcpy)
ENCORE_HIP_FN(hipCreateChannelDesc)
#pragma GCC diagnostic pop

TEST_CASE("HIP op signatures resolve against libamdhip64's declarations") {
    // Taking each function's address through the declared type: a mismatch does not compile, and
    // the pointers must resolve when linked against the real library.
    using encore::domains::hip_runtime;
    auto p = static_cast<hip_runtime::op_at<hip_runtime::id_of<"hipGetDeviceCount">()>::pointer_type>(&::hipGetDeviceCount);
    int n = -1;
    const hipError_t e = p(&n);
    CHECK((e == hipSuccess || e == hipErrorNoDevice));
}
