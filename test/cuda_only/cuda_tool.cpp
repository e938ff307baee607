// test/cuda_only/cuda_tool.cpp — a CUDA tool as a user writes one against an installed CUDA-only
// encore (check_install.sh compiles it with the installed headers and pkg-config flags, with no
// HSA or HIP header reachable): the headers a CUDA tool includes, the C API and encore's C++
// API. It counts CUDA driver calls, kernel dispatches and named kernels, and prints them at exit.
#include <encore/encore.hpp>
#include <rocprofiler-sdk/cuda/driver_api_id.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <atomic>
#include <cstdio>

namespace {

std::atomic<int> g_calls{0}, g_launches{0}, g_dispatches{0}, g_symbols{0};

void on_call(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    ++g_calls;
    if (r.operation == ROCPROFILER_CUDA_DRIVER_API_ID_cuLaunchKernel) ++g_launches;
}
void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) ++g_dispatches;
}
void on_code_object(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    const auto* p = static_cast<const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(r.payload);
    if (r.operation == ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER && p->kernel_name != nullptr) ++g_symbols;
}

int init(rocprofiler_client_finalize_t, void*) {
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    const struct {
        rocprofiler_callback_tracing_kind_t kind;
        rocprofiler_callback_tracing_cb_t cb;
    } services[] = {{ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, &on_call},
                    {ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, &on_dispatch},
                    {ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, &on_code_object}};
    for (const auto& s : services)
        if (rocprofiler_configure_callback_tracing_service(ctx.id(), s.kind, nullptr, 0, s.cb, nullptr) !=
            ROCPROFILER_STATUS_SUCCESS)
            return 1;
    return ctx.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

void fini(void*) {
    std::printf("cuda_tool: calls=%d launches=%d dispatches=%d symbols=%d\n", g_calls.load(), g_launches.load(),
                g_dispatches.load(), g_symbols.load());
}

}  // namespace

extern "C" rocprofiler_tool_configure_result_t* rocprofiler_configure(uint32_t, const char*, uint32_t,
                                                                      rocprofiler_client_id_t* id) {
    id->name = "cuda_only_tool";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &init, &fini, nullptr};
    return &r;
}
