// Must not compile: a payload union member whose field no longer matches the captured argument
// (-DENCORE_DRIFT_TYPE: hipMemcpy.sizeBytes checked as an `int`; -DENCORE_DRIFT_OFFSET: its `kind`
// at sizeBytes' offset) fails the layout check libencore's api_args_check.cpp applies to every
// member. With -DENCORE_CONTROL the true fields are checked, and it compiles.
#include "../../src/core/api_args_check.hpp"

#include <encore/domains/hip_runtime.hpp>
#include <rocprofiler-sdk/callback_tracing.h>

namespace {
using encore::core::api_args_check::arg_matches;
using encore::domains::hip_runtime;
using U = rocprofiler_hip_api_args_t;
constexpr std::size_t memcpy_id = hip_runtime::id_of<"hipMemcpy">();
#if defined(ENCORE_DRIFT_TYPE)
static_assert(arg_matches<hip_runtime, memcpy_id, 2, int>(offsetof(U, hipMemcpy.sizeBytes)));
#elif defined(ENCORE_DRIFT_OFFSET)
static_assert(arg_matches<hip_runtime, memcpy_id, 3, hipMemcpyKind>(offsetof(U, hipMemcpy.sizeBytes)));
#else  // ENCORE_CONTROL: the true fields
static_assert(arg_matches<hip_runtime, memcpy_id, 2, decltype(std::declval<U>().hipMemcpy.sizeBytes)>(
    offsetof(U, hipMemcpy.sizeBytes)));
static_assert(arg_matches<hip_runtime, memcpy_id, 3, hipMemcpyKind>(offsetof(U, hipMemcpy.kind)));
#endif
}  // namespace

int main() { return 0; }
