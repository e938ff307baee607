/* test/ompt/count_tool.c — an OMPT tool of its own, independent of encore: it registers the
 * callbacks encore traces, counts each call (per begin/end where the callback has an
 * endpoint) and writes the counts to $ENCORE_OMPT_COUNT_OUT when the runtime finalizes it
 * (and wherever encore_test_ompt_counts is asked to).
 *
 * Linked into the test program (after libencore-ompt in the lookup order), it is the tool
 * encore chains to: the counts are what the runtime did, and that it counted at all shows the
 * chain works. Built with clang against LLVM's omp-tools.h. */
#include <omp-tools.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { max_event = 64 };
static atomic_long g_calls[max_event][4]; /* [event][0: no endpoint, 1: begin, 2: end, 3: beginend] */
static int g_set_result[max_event];
static int g_initialized, g_finalized;
static ompt_get_callback_t g_get;
static int g_get_callback_ok = -1; /* at finalize: ompt_get_callback gives back what was set */

#define COUNT(e) atomic_fetch_add_explicit(&g_calls[e][0], 1, memory_order_relaxed)
#define COUNT_AT(e, ep) atomic_fetch_add_explicit(&g_calls[e][(ep)&3], 1, memory_order_relaxed)

static void on_thread_begin(ompt_thread_t t, ompt_data_t* d) {
    (void)t, (void)d;
    COUNT(ompt_callback_thread_begin);
}
static void on_thread_end(ompt_data_t* d) {
    (void)d;
    COUNT(ompt_callback_thread_end);
}
static void on_parallel_begin(ompt_data_t* a, const ompt_frame_t* b, ompt_data_t* c, unsigned n, int f, const void* r) {
    (void)a, (void)b, (void)c, (void)n, (void)f, (void)r;
    COUNT(ompt_callback_parallel_begin);
}
static void on_parallel_end(ompt_data_t* a, ompt_data_t* b, int f, const void* r) {
    (void)a, (void)b, (void)f, (void)r;
    COUNT(ompt_callback_parallel_end);
}
static void on_task_create(ompt_data_t* a, const ompt_frame_t* b, ompt_data_t* c, int f, int d, const void* r) {
    (void)a, (void)b, (void)c, (void)f, (void)d, (void)r;
    COUNT(ompt_callback_task_create);
}
static void on_task_schedule(ompt_data_t* a, ompt_task_status_t s, ompt_data_t* b) {
    (void)a, (void)s, (void)b;
    COUNT(ompt_callback_task_schedule);
}
static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t* p, ompt_data_t* t, unsigned n, unsigned i, int f) {
    (void)p, (void)t, (void)n, (void)i, (void)f;
    COUNT_AT(ompt_callback_implicit_task, ep);
}
static void on_device_initialize(int n, const char* t, ompt_device_t* d, ompt_function_lookup_t l, const char* doc) {
    (void)n, (void)t, (void)d, (void)l, (void)doc;
    COUNT(ompt_callback_device_initialize);
}
static void on_device_finalize(int n) {
    (void)n;
    COUNT(ompt_callback_device_finalize);
}
static void on_device_load(int n, const char* f, int64_t o, void* v, size_t b, void* h, void* d, uint64_t m) {
    (void)n, (void)f, (void)o, (void)v, (void)b, (void)h, (void)d, (void)m;
    COUNT(ompt_callback_device_load);
}
static void on_sync_region_wait(ompt_sync_region_t k, ompt_scope_endpoint_t ep, ompt_data_t* p, ompt_data_t* t,
                                const void* r) {
    (void)k, (void)p, (void)t, (void)r;
    COUNT_AT(ompt_callback_sync_region_wait, ep);
}
static void on_mutex_released(ompt_mutex_t k, ompt_wait_id_t w, const void* r) {
    (void)k, (void)w, (void)r;
    COUNT(ompt_callback_mutex_released);
}
static void on_dependences(ompt_data_t* t, const ompt_dependence_t* d, int n) {
    (void)t, (void)d, (void)n;
    COUNT(ompt_callback_dependences);
}
static void on_task_dependence(ompt_data_t* a, ompt_data_t* b) {
    (void)a, (void)b;
    COUNT(ompt_callback_task_dependence);
}
static void on_work(ompt_work_t w, ompt_scope_endpoint_t ep, ompt_data_t* p, ompt_data_t* t, uint64_t c, const void* r) {
    (void)w, (void)p, (void)t, (void)c, (void)r;
    COUNT_AT(ompt_callback_work, ep);
}
static void on_masked(ompt_scope_endpoint_t ep, ompt_data_t* p, ompt_data_t* t, const void* r) {
    (void)p, (void)t, (void)r;
    COUNT_AT(ompt_callback_masked, ep);
}
static void on_sync_region(ompt_sync_region_t k, ompt_scope_endpoint_t ep, ompt_data_t* p, ompt_data_t* t, const void* r) {
    (void)k, (void)p, (void)t, (void)r;
    COUNT_AT(ompt_callback_sync_region, ep);
}
static void on_lock_init(ompt_mutex_t k, unsigned h, unsigned i, ompt_wait_id_t w, const void* r) {
    (void)k, (void)h, (void)i, (void)w, (void)r;
    COUNT(ompt_callback_lock_init);
}
static void on_lock_destroy(ompt_mutex_t k, ompt_wait_id_t w, const void* r) {
    (void)k, (void)w, (void)r;
    COUNT(ompt_callback_lock_destroy);
}
static void on_mutex_acquire(ompt_mutex_t k, unsigned h, unsigned i, ompt_wait_id_t w, const void* r) {
    (void)k, (void)h, (void)i, (void)w, (void)r;
    COUNT(ompt_callback_mutex_acquire);
}
static void on_mutex_acquired(ompt_mutex_t k, ompt_wait_id_t w, const void* r) {
    (void)k, (void)w, (void)r;
    COUNT(ompt_callback_mutex_acquired);
}
static void on_nest_lock(ompt_scope_endpoint_t ep, ompt_wait_id_t w, const void* r) {
    (void)ep, (void)w, (void)r;
    COUNT(ompt_callback_nest_lock); /* encore keeps nest_lock as single records, as the reference */
}
static void on_flush(ompt_data_t* t, const void* r) {
    (void)t, (void)r;
    COUNT(ompt_callback_flush);
}
static void on_cancel(ompt_data_t* t, int f, const void* r) {
    (void)t, (void)f, (void)r;
    COUNT(ompt_callback_cancel);
}
static void on_reduction(ompt_sync_region_t k, ompt_scope_endpoint_t ep, ompt_data_t* p, ompt_data_t* t, const void* r) {
    (void)k, (void)p, (void)t, (void)r;
    COUNT_AT(ompt_callback_reduction, ep);
}
static void on_dispatch(ompt_data_t* p, ompt_data_t* t, ompt_dispatch_t k, ompt_data_t i) {
    (void)p, (void)t, (void)k, (void)i;
    COUNT(ompt_callback_dispatch);
}
static void on_target_emi(ompt_target_t k, ompt_scope_endpoint_t ep, int d, ompt_data_t* t, ompt_data_t* tt,
                          ompt_data_t* td, const void* r) {
    (void)k, (void)d, (void)t, (void)tt, (void)td, (void)r;
    COUNT_AT(ompt_callback_target_emi, ep);
}
static void on_target_data_op_emi(ompt_scope_endpoint_t ep, ompt_data_t* tt, ompt_data_t* td, ompt_id_t* h,
                                  ompt_target_data_op_t o, void* s, int sd, void* d, int dd, size_t b, const void* r) {
    (void)tt, (void)td, (void)h, (void)o, (void)s, (void)sd, (void)d, (void)dd, (void)b, (void)r;
    COUNT_AT(ompt_callback_target_data_op_emi, ep);
}
static void on_target_submit_emi(ompt_scope_endpoint_t ep, ompt_data_t* td, ompt_id_t* h, unsigned n) {
    (void)td, (void)h, (void)n;
    COUNT_AT(ompt_callback_target_submit_emi, ep);
}
/* Not a callback encore traces: registered all the same, its ompt_set_callback goes to the
 * runtime through encore's lookup unchanged (check_ompt.py compares the answers with encore and
 * without). */
static void on_device_unload(int n, uint64_t m) {
    (void)n, (void)m;
    COUNT(ompt_callback_device_unload);
}
static void on_error(ompt_severity_t s, const char* m, size_t l, const void* r) {
    (void)s, (void)m, (void)l, (void)r;
    COUNT(ompt_callback_error);
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t* data) {
    (void)device, (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (set == NULL) return 0;
#define SET(e, f) g_set_result[e] = set(e, (ompt_callback_t)f)
    SET(ompt_callback_thread_begin, on_thread_begin);
    SET(ompt_callback_thread_end, on_thread_end);
    SET(ompt_callback_parallel_begin, on_parallel_begin);
    SET(ompt_callback_parallel_end, on_parallel_end);
    SET(ompt_callback_task_create, on_task_create);
    SET(ompt_callback_task_schedule, on_task_schedule);
    SET(ompt_callback_implicit_task, on_implicit_task);
    SET(ompt_callback_device_initialize, on_device_initialize);
    SET(ompt_callback_device_finalize, on_device_finalize);
    SET(ompt_callback_device_load, on_device_load);
    SET(ompt_callback_sync_region_wait, on_sync_region_wait);
    SET(ompt_callback_mutex_released, on_mutex_released);
    SET(ompt_callback_dependences, on_dependences);
    SET(ompt_callback_task_dependence, on_task_dependence);
    SET(ompt_callback_work, on_work);
    SET(ompt_callback_masked, on_masked);
    SET(ompt_callback_sync_region, on_sync_region);
    SET(ompt_callback_lock_init, on_lock_init);
    SET(ompt_callback_lock_destroy, on_lock_destroy);
    SET(ompt_callback_mutex_acquire, on_mutex_acquire);
    SET(ompt_callback_mutex_acquired, on_mutex_acquired);
    SET(ompt_callback_nest_lock, on_nest_lock);
    SET(ompt_callback_flush, on_flush);
    SET(ompt_callback_cancel, on_cancel);
    SET(ompt_callback_reduction, on_reduction);
    SET(ompt_callback_dispatch, on_dispatch);
    SET(ompt_callback_target_emi, on_target_emi);
    SET(ompt_callback_target_data_op_emi, on_target_data_op_emi);
    SET(ompt_callback_target_submit_emi, on_target_submit_emi);
    SET(ompt_callback_error, on_error);
    SET(ompt_callback_device_unload, on_device_unload);
#undef SET
    g_get = (ompt_get_callback_t)lookup("ompt_get_callback");
    g_initialized = 1;
    return 1;
}

/* The counts so far, one line per event: event set_result calls begin end beginend. Exported:
 * the encore check tool writes a snapshot when encore finalizes (the runtime's last callbacks,
 * thread ends among them, come after that, from its own exit handler). */
__attribute__((visibility("default"))) void encore_test_ompt_counts(const char* path) {
    FILE* f = path != NULL ? fopen(path, "w") : NULL;
    if (f == NULL) return;
    fprintf(f, "initialized %d\nfinalized %d\nget_callback_ok %d\n", g_initialized, g_finalized, g_get_callback_ok);
    for (int e = 1; e < max_event; ++e) {
        if (g_set_result[e] == 0) continue;
        fprintf(f, "event %d %d %ld %ld %ld %ld\n", e, g_set_result[e], atomic_load(&g_calls[e][0]),
                atomic_load(&g_calls[e][1]), atomic_load(&g_calls[e][2]), atomic_load(&g_calls[e][3]));
    }
    fclose(f);
}

static void finalize(ompt_data_t* data) {
    (void)data;
    g_finalized = 1;
    ompt_callback_t cb = NULL;
    g_get_callback_ok = g_get != NULL && g_get(ompt_callback_work, &cb) == 1 && cb == (ompt_callback_t)on_work;
    encore_test_ompt_counts(getenv("ENCORE_OMPT_COUNT_OUT"));
}

static ompt_start_tool_result_t g_result = {initialize, finalize, {0}};

ompt_start_tool_result_t* ompt_start_tool(unsigned int omp_version, const char* runtime_version) {
    (void)omp_version, (void)runtime_version;
    return &g_result;
}
