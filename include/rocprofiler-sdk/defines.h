/* rocprofiler-sdk/defines.h — encore's implementation of the reference SDK's C API.
 * Linkage and attribute macros shared by every header of the C API. */
#pragma once

#if defined(__cplusplus)
#    define ROCPROFILER_EXTERN_C_INIT extern "C" {
#    define ROCPROFILER_EXTERN_C_FINI }
#    define ROCPROFILER_NOEXCEPT noexcept
#else
#    define ROCPROFILER_EXTERN_C_INIT
#    define ROCPROFILER_EXTERN_C_FINI
#    define ROCPROFILER_NOEXCEPT
#endif

#define ROCPROFILER_API __attribute__((visibility("default")))
#define ROCPROFILER_NONNULL(...) __attribute__((nonnull(__VA_ARGS__)))
#define ROCPROFILER_HIDDEN_API __attribute__((visibility("hidden")))
#define ROCPROFILER_ATTRIBUTE(...) __attribute__((__VA_ARGS__))
#define ROCPROFILER_PUBLIC_API ROCPROFILER_API
/* The reference marks every function nonnull on some arguments; encore checks them at run time
 * instead (a null gets INVALID_ARGUMENT), so the attribute would only let the compiler delete
 * those checks. */
#define ROCPROFILER_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#define ROCPROFILER_UINT64_C(X) UINT64_C(X)
/* Anonymous structs and unions in payloads (valid C11); __extension__ keeps C++ -Wpedantic quiet. */
#define ROCPROFILER_ANONYMOUS __extension__

/* Version encoding (the reference's): with a factor of 100 per part, 1.4.1 is 10401. */
#define ROCPROFILER_SDK_COMPUTE_VERSION_VALUE(MAX_VERSION_VALUE, MAJOR, MINOR, PATCH) \
    ((((MAX_VERSION_VALUE) * (MAX_VERSION_VALUE)) * (MAJOR)) + ((MAX_VERSION_VALUE) * (MINOR)) + (PATCH))
#define ROCPROFILER_SDK_COMPUTE_VERSION(MAJOR, MINOR, PATCH) \
    ROCPROFILER_SDK_COMPUTE_VERSION_VALUE(100, MAJOR, MINOR, PATCH)
