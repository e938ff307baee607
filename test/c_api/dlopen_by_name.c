/* test/c_api/dlopen_by_name.c — a tool that loads rocprofiler-sdk by its library name, as
 * llama.cpp's roofline tool, PAPI's rocp_sdk component and Triton's Proton do:
 * dlopen("librocprofiler-sdk.so.1") and dlsym of the entry points they use. Run with the folder
 * holding encore's alias (the build tree's src/core) on LD_LIBRARY_PATH. */
#include <rocprofiler-sdk/rocprofiler.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    void* lib = dlopen("librocprofiler-sdk.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("FAILED: dlopen(librocprofiler-sdk.so.1): %s\n", dlerror());
        return 1;
    }
    static const char* const names[] = {"rocprofiler_create_context",
                                        "rocprofiler_start_context",
                                        "rocprofiler_stop_context",
                                        "rocprofiler_configure_callback_tracing_service",
                                        "rocprofiler_configure_buffer_tracing_service",
                                        "rocprofiler_create_buffer",
                                        "rocprofiler_flush_buffer",
                                        "rocprofiler_query_available_agents",
                                        "rocprofiler_get_timestamp",
                                        "rocprofiler_force_configure",
                                        "rocprofiler_get_status_string",
                                        "rocprofiler_query_callback_tracing_kind_operation_name",
                                        "rocprofiler_get_version"};
    int failed = 0;
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); ++i)
        if (dlsym(lib, names[i]) == NULL) {
            printf("FAILED: %s not found\n", names[i]);
            ++failed;
        }
    typedef rocprofiler_status_t (*version_fn)(uint32_t*, uint32_t*, uint32_t*);
    void* sym = dlsym(lib, "rocprofiler_get_version");
    version_fn version = NULL;
    memcpy(&version, &sym, sizeof(version)); /* ISO C has no object-to-function pointer cast */
    uint32_t major = 0, minor = 0, patch = 0;
    if (version == NULL || version(&major, &minor, &patch) != ROCPROFILER_STATUS_SUCCESS || major == 0) {
        printf("FAILED: rocprofiler_get_version through the alias\n");
        ++failed;
    }
    if (failed == 0)
        printf("loaded by name: %u.%u.%u, %u entry points\n", major, minor, patch,
               (unsigned)(sizeof(names) / sizeof(names[0])));
    return failed == 0 ? 0 : 1;
}
