// test/selection/hsa_only_tool.cpp — a tool that selects only the HSA core domain and installs
// its wrappers over a table (check_selection.py: nothing of the HIP domains in this object).
#include <encore/tracing/hsa.hpp>

#include <cstdio>

namespace {
using encore::domains::hsa_core;
constexpr auto queue_create = hsa_core::id_of<"hsa_queue_create">();

void on_call(const encore::record& r, rocprofiler_user_data_t&) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    encore::tracing::for_each_arg<hsa_core, queue_create>(r.payload, 1, [](const encore::tracing::arg_info& a) {
        std::printf("%s=%s\n", a.name, a.value);
    });
}
}  // namespace

std::size_t selection_hsa_only_install(::HsaApiTable& t) {
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 0;
    (void)ctx.trace<hsa_core>(encore::ops<hsa_core, "hsa_queue_create">(), &on_call);
    return encore::tracing::hsa_tracer<hsa_core>::install(t);
}
