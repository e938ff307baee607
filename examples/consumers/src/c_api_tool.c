/* c_api_tool.c — a C tool built against an *installed* encore, written only against the
 * rocprofiler-sdk C API (see ../README.md): it would compile unchanged against the reference SDK.
 *
 * Traces HSA core calls and kernel dispatches, prints each dispatch's kernel id and GPU time at
 * COMPLETE, and one summary line when encore finalizes the tool:
 *
 *   c_api_tool: encore 0.1.0 (headers 0.1.0), 42 HSA core calls, 1 dispatches, 1 completed, bad=0 */
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static rocprofiler_context_id_t g_ctx;
/* Atomic: API callbacks run on the calling threads, COMPLETE on the runtime's handler thread. */
static atomic_ulong g_calls, g_enqueued, g_completed, g_bad;

static void on_hsa(rocprofiler_callback_tracing_record_t rec, rocprofiler_user_data_t* ud, void* data) {
    const char* name = NULL;
    (void)data;
    if (rocprofiler_query_callback_tracing_kind_operation_name(rec.kind, rec.operation, &name, NULL) !=
            ROCPROFILER_STATUS_SUCCESS ||
        name == NULL || strncmp(name, "hsa_", 4) != 0)
        ++g_bad;
    if (rec.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud->value = rec.correlation_id.internal;
    } else {
        if (ud->value != rec.correlation_id.internal) ++g_bad;
        ++g_calls;
    }
}

static void on_dispatch(rocprofiler_callback_tracing_record_t rec, rocprofiler_user_data_t* ud, void* data) {
    const rocprofiler_callback_tracing_kernel_dispatch_data_t* d =
        (const rocprofiler_callback_tracing_kernel_dispatch_data_t*)rec.payload;
    (void)ud;
    (void)data;
    if (rec.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE && rec.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        ++g_enqueued;
    } else if (rec.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) {
        ++g_completed;
        if (d->end_timestamp < d->start_timestamp) ++g_bad;
        printf("c_api_tool: kernel %llu dispatch %llu took %llu ns\n", (unsigned long long)d->dispatch_info.kernel_id,
               (unsigned long long)d->dispatch_info.dispatch_id,
               (unsigned long long)(d->end_timestamp - d->start_timestamp));
    }
}

static int tool_init(rocprofiler_client_finalize_t fini, void* tool_data) {
    (void)fini;
    (void)tool_data;
    if (rocprofiler_create_context(&g_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, NULL, 0,
                                                       on_hsa, NULL) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, NULL, 0,
                                                       on_dispatch, NULL) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

static void tool_fini(void* tool_data) {
    uint32_t major = 0, minor = 0, patch = 0, api_major = 0, api_minor = 0, api_patch = 0;
    (void)tool_data;
    if (encore_get_version(&major, &minor, &patch) != ROCPROFILER_STATUS_SUCCESS) ++g_bad;
    if (rocprofiler_get_version(&api_major, &api_minor, &api_patch) != ROCPROFILER_STATUS_SUCCESS) ++g_bad;
    /* The library's versions (run time) next to the headers' (compile time): encore's own, and
     * the rocprofiler-sdk API level it implements. */
    printf("c_api_tool: encore %u.%u.%u (headers %s), rocprofiler-sdk API %u.%u.%u (headers %s), %lu HSA core calls, "
           "%lu dispatches, %lu completed, bad=%lu\n",
           major, minor, patch, ENCORE_VERSION_STRING, api_major, api_minor, api_patch, ROCPROFILER_VERSION_STRING,
           atomic_load(&g_calls), atomic_load(&g_enqueued), atomic_load(&g_completed), atomic_load(&g_bad));
    fflush(stdout);
}

rocprofiler_tool_configure_result_t* rocprofiler_configure(uint32_t version, const char* runtime_version,
                                                           uint32_t priority, rocprofiler_client_id_t* id) {
    static rocprofiler_tool_configure_result_t result = {sizeof(rocprofiler_tool_configure_result_t), tool_init,
                                                         tool_fini, NULL};
    (void)runtime_version;
    (void)priority;
    /* Refuse a library older than the headers this tool was built with. */
    if (version < ROCPROFILER_SDK_VERSION) return NULL;
    id->name = "c_api_tool";
    return &result;
}
