// test/hsa/force_configure_early.cpp — Kineto's order (issue 41): a tool forces its configuration
// before the program's first HSA call, and starts its context right after the call returns. The
// reference initializes inside rocprofiler_force_configure, so the context the tool's initialize
// made exists then; encore used to defer initialization to the runtime's first call, and the start
// failed on a context that did not exist yet. Runs on the software runtime with libencore-hsa as
// its tools library (HSA_TOOLS_LIB).
#include <rocprofiler-sdk/rocprofiler.h>

#include <hsa/hsa.h>

#include "../support/check.hpp"

#include <atomic>
#include <string>

using test_support::expect;

namespace {

rocprofiler_context_id_t g_ctx{0};
std::atomic<int> g_initialized{0};
std::atomic<int> g_calls{0};

int tool_init(rocprofiler_client_finalize_t, void*) {
    ++g_initialized;
    if (rocprofiler_create_context(&g_ctx) != ROCPROFILER_STATUS_SUCCESS) return -1;
    // Configured, not started: the tool starts it later, as Kineto's RocprofLogger::startLogging.
    return rocprofiler_configure_callback_tracing_service(
               g_ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0,
               [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
                   if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) ++g_calls;
               },
               nullptr) == ROCPROFILER_STATUS_SUCCESS
               ? 0
               : -1;
}

rocprofiler_tool_configure_result_t* configure(uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "force-configure-early";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}

}  // namespace

int main() {
    expect(rocprofiler_force_configure(&configure) == ROCPROFILER_STATUS_SUCCESS, "force_configure succeeds");
    expect(g_initialized.load() == 1, "the tool's initialize ran inside force_configure");
    int s = 0;
    expect(rocprofiler_is_initialized(&s) == ROCPROFILER_STATUS_SUCCESS && s == 1, "initialized after it");
    expect(rocprofiler_force_configure(&configure) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
           "a second forced configure is refused");
    int valid = 0;
    expect(rocprofiler_context_is_valid(g_ctx, &valid) == ROCPROFILER_STATUS_SUCCESS && valid == 1,
           "the context the tool made exists before the program's first HSA call");
    expect(rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS, "the tool starts it then");

    expect(hsa_init() == HSA_STATUS_SUCCESS, "hsa_init");
    uint16_t major = 0;
    expect(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_SUCCESS, "a call");
    expect(hsa_shut_down() == HSA_STATUS_SUCCESS, "hsa_shut_down");
    expect(g_calls.load() >= 2, "the program's HSA calls reached the tool (" + std::to_string(g_calls.load()) + ")");
    return test_support::finish();
}
