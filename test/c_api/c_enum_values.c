/* test/c_api/c_enum_values.c — C API calls whose enum arguments are integers outside the
 * enumerators, as a C caller may pass them: in C any int value is a value of an enum type, while
 * C++ code that loads such a value as the enum has undefined behaviour (clang's -fsanitize=enum
 * reports it; test/fuzz found these). test_c_api.cpp checks the statuses. */
#include <rocprofiler-sdk/rocprofiler.h>

#include <string.h>

static int no_arg(rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t op, uint32_t n,
                  const void* const addr, int32_t ind, const char* type, const char* name, const char* value,
                  int32_t deref, void* data) {
    (void)kind, (void)op, (void)n, (void)addr, (void)ind, (void)type, (void)name, (void)value, (void)deref;
    ++*(int*)data;
    return 0;
}
static int no_op(rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t op, void* data) {
    (void)kind, (void)op, (void)data;
    return 0;
}
static void no_record(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* u, void* d) {
    (void)r, (void)u, (void)d;
}
static int no_request(rocprofiler_thread_id_t t, rocprofiler_context_id_t c,
                      rocprofiler_external_correlation_id_request_kind_t k, rocprofiler_tracing_operation_t o,
                      uint64_t i, rocprofiler_user_data_t* v, void* d) {
    (void)t, (void)c, (void)k, (void)o, (void)i, (void)v, (void)d;
    return 1;
}
static rocprofiler_status_t no_agents(rocprofiler_agent_version_t v, const void** a, size_t n, void* d) {
    (void)v, (void)a, (void)n, (void)d;
    return ROCPROFILER_STATUS_SUCCESS;
}

int c_kind_name(int kind) {
    const char* name = NULL;
    uint64_t len = 0;
    return rocprofiler_query_callback_tracing_kind_name((rocprofiler_callback_tracing_kind_t)kind, &name, &len);
}
int c_operation_name(int kind) {
    const char* name = NULL;
    uint64_t len = 0;
    return rocprofiler_query_callback_tracing_kind_operation_name((rocprofiler_callback_tracing_kind_t)kind, 0, &name,
                                                                  &len);
}
int c_iterate_operations(int kind) {
    return rocprofiler_iterate_callback_tracing_kind_operations((rocprofiler_callback_tracing_kind_t)kind, no_op, NULL);
}
/* A record of `kind` and `phase` over an HSA payload of the right size (op 0: hsa_init, no
 * arguments); *args counts the arguments reported. */
int c_iterate_args(int kind, int phase, int max_deref, int* args) {
    static rocprofiler_callback_tracing_hsa_api_data_t payload;
    rocprofiler_callback_tracing_record_t r;
    memset(&r, 0, sizeof(r));
    payload.size = sizeof(payload);
    r.kind = (rocprofiler_callback_tracing_kind_t)kind;
    r.phase = (rocprofiler_callback_phase_t)phase;
    r.operation = 0;
    r.payload = &payload;
    return rocprofiler_iterate_callback_tracing_kind_operation_args(r, no_arg, max_deref, args);
}
int c_configure(uint64_t context, int kind) {
    rocprofiler_context_id_t c;
    c.handle = context;
    return rocprofiler_configure_callback_tracing_service(c, (rocprofiler_callback_tracing_kind_t)kind, NULL, 0,
                                                          no_record, NULL);
}
int c_configure_request(uint64_t context, int kind) {
    rocprofiler_context_id_t c;
    const rocprofiler_external_correlation_id_request_kind_t kinds[1] = {
        (rocprofiler_external_correlation_id_request_kind_t)kind};
    c.handle = context;
    return rocprofiler_configure_external_correlation_id_request_service(c, kinds, 1, no_request, NULL);
}
const char* c_status_name(int status) { return rocprofiler_get_status_name((rocprofiler_status_t)status); }
const char* c_status_string(int status) { return rocprofiler_get_status_string((rocprofiler_status_t)status); }
int c_query_agents(int version) {
    return rocprofiler_query_available_agents((rocprofiler_agent_version_t)version, no_agents,
                                              sizeof(rocprofiler_agent_v0_t), NULL);
}
