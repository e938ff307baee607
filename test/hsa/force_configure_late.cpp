// test/hsa/force_configure_late.cpp — llama.cpp's roofline order (issue 41): the program calls
// hsa_init with no tool in the process, loads code and creates a queue; only then does a tool
// (which dlopens the SDK, in the real tool) force its configuration. The reference's
// rocprofiler-register initializes rocprofiler-sdk only when a tool is present, so the late
// forced configure is accepted and its tool gets data from then on; encore used to initialize at
// OnLoad regardless and answered CONFIGURATION_LOCKED. Runs on the software runtime with
// libencore-hsa as its tools library (HSA_TOOLS_LIB); this executable exports no
// rocprofiler_configure (a present tool would make OnLoad initialize).
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>

using test_support::expect;

namespace {

rocprofiler_context_id_t g_ctx{0};
std::atomic<int> g_initialized{0};
std::atomic<int> g_api_calls{0};
std::mutex g_mutex;
std::map<std::uint64_t, std::string> g_kernel_names;  // kernel id -> name (code-object records)
std::map<std::uint64_t, int> g_completes_by_queue;    // queue id -> COMPLETE records
std::string g_completed_kernel;                       // name of the last completed kernel

void on_api(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) ++g_api_calls;
}

void on_code_object(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation != ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER || r.phase != ROCPROFILER_CALLBACK_PHASE_LOAD)
        return;
    auto* p = static_cast<rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    g_kernel_names[p->kernel_id] = p->kernel_name != nullptr ? p->kernel_name : "";
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    ++g_completes_by_queue[p->dispatch_info.queue_id.handle];
    const auto it = g_kernel_names.find(p->dispatch_info.kernel_id);
    g_completed_kernel = it != g_kernel_names.end() ? it->second : "<unknown>";
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    ++g_initialized;
    if (rocprofiler_create_context(&g_ctx) != ROCPROFILER_STATUS_SUCCESS) return -1;
    bool ok = rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr,
                                                             0, &on_api, nullptr) == ROCPROFILER_STATUS_SUCCESS;
    ok = ok && rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, nullptr,
                                                              0, &on_code_object, nullptr) == ROCPROFILER_STATUS_SUCCESS;
    ok = ok &&
         rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                        &on_dispatch, nullptr) == ROCPROFILER_STATUS_SUCCESS;
    return ok && rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : -1;
}

rocprofiler_tool_configure_result_t* configure(uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "force-configure-late";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}

int initialized() {
    int s = -2;
    return rocprofiler_is_initialized(&s) == ROCPROFILER_STATUS_SUCCESS ? s : -2;
}

void run_vector_add(hsa_queue_t* q, uint64_t kernel, example::VectorAddArgs* args, uint32_t n) {
    hsa_signal_t done{};
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
    example::dispatch_1d(q, kernel, args, n, 64, done);
    example::wait_done(done);
    HSA_CHECK(hsa_signal_destroy(done));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s vector_add.co\n", argv[0]);
        return 2;
    }
    expect(initialized() == 0, "not initialized before hsa_init");
    HSA_CHECK(hsa_init());
    expect(initialized() == 0, "not initialized by hsa_init when no tool is present (is_initialized says 0)");

    const hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
    const hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
    constexpr uint32_t n = 256;
    {
        example::CodeObject co(argv[1], gpu);  // loaded and frozen before the tool comes
        const uint64_t kernel = co.kernel("vector_add", gpu);
        auto* args = example::alloc_vector_add_args(cpu, gpu, n);
        for (uint32_t i = 0; i < n; ++i) {
            const_cast<float*>(args->a)[i] = static_cast<float>(i);
            const_cast<float*>(args->b)[i] = 2.0f;
        }
        hsa_queue_t* before = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &before));

        expect(rocprofiler_force_configure(&configure) == ROCPROFILER_STATUS_SUCCESS,
               "a forced configure after hsa_init succeeds");
        expect(g_initialized.load() == 1, "the tool's initialize ran inside force_configure");
        expect(initialized() == 1, "initialized after it");
        expect(rocprofiler_force_configure(&configure) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
               "a second forced configure is refused");
        {
            std::lock_guard lk(g_mutex);
            bool found = false;
            for (const auto& [id, name] : g_kernel_names) found = found || name.find("vector_add") != std::string::npos;
            expect(found, "the code object frozen before the tool came is reported to it (kernel symbols)");
        }

        const int api_before = g_api_calls.load();
        uint16_t major = 0;
        HSA_CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major));
        expect(g_api_calls.load() > api_before, "an HSA call after force_configure reached the tool");

        hsa_queue_t* after = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &after));
        run_vector_add(after, kernel, args, n);
        expect(args->c[n - 1] == static_cast<float>(n - 1) + 2.0f, "the kernel ran");
        // Documented limit (docs/c-api.md#late-tools): a queue the program created before the
        // tool came is the runtime's own, not encore's intercept queue; its dispatches still run.
        run_vector_add(before, kernel, args, n);

        std::lock_guard lk(g_mutex);
        expect(g_completes_by_queue[after->id] == 1, "the dispatch on a queue created after force_configure was traced (" +
                                                         std::to_string(g_completes_by_queue[after->id]) + ")");
        expect(g_completed_kernel.find("vector_add") != std::string::npos,
               "its kernel id names the kernel loaded before the tool came (" + g_completed_kernel + ")");
        int total = 0;
        for (const auto& [q, c] : g_completes_by_queue) total += c;
        expect(total == 1, "no record for the queue created before the tool (" + std::to_string(total) + ")");
        HSA_CHECK(hsa_queue_destroy(before));
        HSA_CHECK(hsa_queue_destroy(after));
    }
    HSA_CHECK(hsa_shut_down());
    return test_support::finish();
}
