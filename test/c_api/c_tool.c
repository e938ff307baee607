/* test/c_api/c_tool.c — a tool written in C against the seed's C API, exactly as a
 * rocprofiler-sdk tool is written; it must compile unchanged (built as C11, -Wpedantic). */
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Both spellings the reference has used for the replay payload's tool callbacks name one slot. */
_Static_assert(offsetof(rocprofiler_callback_tracing_kernel_replay_data_t, pass_count_cb) ==
                   offsetof(rocprofiler_callback_tracing_kernel_replay_data_t, replay_pass_count),
               "pass_count_cb is replay_pass_count");
_Static_assert(offsetof(rocprofiler_callback_tracing_kernel_replay_data_t, replay_continue_cb) ==
                   offsetof(rocprofiler_callback_tracing_kernel_replay_data_t, replay_continue),
               "replay_continue_cb is replay_continue");

static int g_enter = 0, g_exit = 0, g_args = 0, g_bad = 0;
static rocprofiler_context_id_t g_ctx;

static int on_arg(rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t op, uint32_t n,
                  const void* const addr, int32_t ind, const char* type, const char* name, const char* value,
                  int32_t deref, void* data) {
    (void)kind;
    (void)op;
    (void)n;
    (void)ind;
    (void)deref;
    (void)data;
    if (addr == NULL || type == NULL || name == NULL || value == NULL) ++g_bad;
    ++g_args;
    return 0;
}

static void on_call(rocprofiler_callback_tracing_record_t rec, rocprofiler_user_data_t* user_data, void* data) {
    (void)data;
    const char* name = NULL;
    uint64_t len = 0;
    if (rocprofiler_query_callback_tracing_kind_operation_name(rec.kind, rec.operation, &name, &len) !=
            ROCPROFILER_STATUS_SUCCESS ||
        len != strlen(name))
        ++g_bad;
    if (rec.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ++g_enter;
        user_data->value = rec.correlation_id.internal;
    } else {
        ++g_exit;
        if (user_data->value != rec.correlation_id.internal) ++g_bad;
        rocprofiler_iterate_callback_tracing_kind_operation_args(rec, on_arg, 2, NULL);
    }
}

static int tool_init(rocprofiler_client_finalize_t fini, void* tool_data) {
    (void)fini;
    (void)tool_data;
    if (rocprofiler_create_context(&g_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, NULL, 0,
                                                       on_call, NULL) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    /* The replay header compiles as C; its options need a context with the replay service. */
    encore_kernel_replay_options_t opt;
    memset(&opt, 0, sizeof(opt));
    opt.size = sizeof(opt);
    opt.policy = ENCORE_REPLAY_SNAPSHOT_FULL_COPY;
    if (encore_configure_kernel_replay_options(g_ctx, &opt) != ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR) ++g_bad;
    uint64_t sum = 0;
    if (encore_kernel_replay_checksum(&sum) != ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR) ++g_bad;
    if (encore_kernel_replay_checksum(NULL) != ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT) ++g_bad;
    return rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

static void tool_fini(void* tool_data) {
    (void)tool_data;
    printf("c-tool: %d enter, %d exit, %d args, %d bad\n", g_enter, g_exit, g_args, g_bad);
}

/* Lets the test driver read what the tool saw. */
__attribute__((visibility("default"))) void c_tool_counts(int* enter, int* exit_, int* args, int* bad) {
    *enter = g_enter;
    *exit_ = g_exit;
    *args = g_args;
    *bad = g_bad;
}

rocprofiler_tool_configure_result_t* rocprofiler_configure(uint32_t version, const char* runtime_version,
                                                           uint32_t priority, rocprofiler_client_id_t* id) {
    (void)version;
    (void)runtime_version;
    (void)priority;
    id->name = "c-tool";
    static rocprofiler_tool_configure_result_t result = {sizeof(rocprofiler_tool_configure_result_t), tool_init,
                                                         tool_fini, NULL};
    return &result;
}
