/* rocprofiler-sdk-roctx/defines.h — linkage and attribute macros of the roctx header, under the
 * reference SDK's names (ROCTX_*). */
#pragma once

#define ROCPROFILER_SDK_ROCTX_VERSION_0_0

#if !defined(ROCTX_ATTRIBUTE)
#    define ROCTX_ATTRIBUTE(...) __attribute__((__VA_ARGS__))
#endif
#if !defined(ROCTX_PUBLIC_API)
#    define ROCTX_PUBLIC_API ROCTX_ATTRIBUTE(visibility("default"))
#endif
#if !defined(ROCTX_HIDDEN_API)
#    define ROCTX_HIDDEN_API ROCTX_ATTRIBUTE(visibility("hidden"))
#endif
#if !defined(ROCTX_EXPORT_DECORATOR)
#    define ROCTX_EXPORT_DECORATOR ROCTX_PUBLIC_API
#endif
#if !defined(ROCTX_IMPORT_DECORATOR)
#    define ROCTX_IMPORT_DECORATOR
#endif
#define ROCTX_EXPORT ROCTX_EXPORT_DECORATOR
#define ROCTX_IMPORT ROCTX_IMPORT_DECORATOR
#if !defined(ROCTX_API)
#    define ROCTX_API ROCTX_IMPORT
#endif

/* As in the reference: the message and name arguments are declared nonnull, so a literal NULL
 * is a compile-time warning. libencore-roctx still accepts NULL at run time (it is built from
 * <roctracer/roctx.h>, which does not carry the attribute, so its checks stay). */
#if defined(__has_attribute)
#    if __has_attribute(nonnull)
#        define ROCTX_NONNULL(...) __attribute__((nonnull(__VA_ARGS__)))
#    else
#        define ROCTX_NONNULL(...)
#    endif
#else
#    define ROCTX_NONNULL(...)
#endif

#ifdef __cplusplus
#    define ROCTX_EXTERN_C_INIT extern "C" {
#    define ROCTX_EXTERN_C_FINI }
#else
#    define ROCTX_EXTERN_C_INIT
#    define ROCTX_EXTERN_C_FINI
#endif
