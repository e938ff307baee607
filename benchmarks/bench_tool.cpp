// benchmarks/bench_tool.cpp — a tool for the HSA benchmarks (loaded through ROCP_TOOL_LIBRARIES).
// ENCORE_BENCH_TOOL_MODE selects what it configures:
//   api-off    HSA core API tracing configured, context never started (wrappers installed, idle)
//   api-noop   HSA core API tracing, no-op callback (record by value, the seed's form)
//   api-noop-ptr  the same with encore's by-address callback form
//   api-args   HSA core API tracing, callback iterates the arguments into strings at EXIT
//   dispatch   KERNEL_DISPATCH tracing, no-op callback
#include <encore/domains/hsa.hpp>
#include <encore/encore.hpp>

#include <cstdlib>
#include <string_view>

namespace {

using encore::domains::hsa_core;
std::size_t g_bytes = 0;

void noop(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {}
void noop_ptr(const rocprofiler_callback_tracing_record_t*, rocprofiler_user_data_t*, void*) {}
void args(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    encore::tracing::for_each_arg<hsa_core>(r.operation, r.payload, 1, [](const encore::tracing::arg_info& a) {
        g_bytes += std::string_view(a.value).size();
    });
}

int init(rocprofiler_client_finalize_t, void*) {
    const char* m = std::getenv("ENCORE_BENCH_TOOL_MODE");
    const std::string_view mode = m != nullptr ? m : "";
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (mode == "dispatch")
        return rocprofiler_configure_callback_tracing_service(ctx.id(), ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
                                                              nullptr, 0, &noop, nullptr) != ROCPROFILER_STATUS_SUCCESS ||
               ctx.start() != ROCPROFILER_STATUS_SUCCESS;
    const rocprofiler_status_t s = mode == "api-noop-ptr"
                                       ? ctx.trace<hsa_core>(&noop_ptr, nullptr)
                                       : ctx.trace<hsa_core>(mode == "api-args" ? &args : &noop, nullptr);
    if (s != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (mode == "api-off") return 0;
    return ctx.start() != ROCPROFILER_STATUS_SUCCESS;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "encore-bench-tool";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &init, nullptr, nullptr};
    return &r;
}
