// test/selection/hip_only_tool.cpp — a tool that selects only the HIP runtime domain. The
// selection test (check_selection.py) inspects this object's symbols: nothing of the HSA domains.
#include <encore/domains/hip.hpp>
#include <encore/encore.hpp>

#include <cstdio>

namespace {
using encore::domains::hip_runtime;
constexpr auto hip_malloc = hip_runtime::id_of<"hipMalloc">();

void on_call(const encore::record& r, rocprofiler_user_data_t&) {
    if (r.operation != hip_malloc || r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    encore::tracing::for_each_arg<hip_runtime, hip_malloc>(r.payload, 1, [](const encore::tracing::arg_info& a) {
        std::printf("%s=%s\n", a.name, a.value);
    });
    std::printf("-> %d\n", static_cast<int>(encore::tracing::retval_of<hip_runtime, hip_malloc>(r.payload)));
}
}  // namespace

int selection_hip_only_init() {
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    return ctx.trace<hip_runtime>(encore::ops<hip_runtime, "hipMalloc">(), &on_call) == ROCPROFILER_STATUS_SUCCESS ? 0
                                                                                                                   : 1;
}
