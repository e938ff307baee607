// test/c_api/tool_driver.cpp — a program that is itself a tool (it exports rocprofiler_configure)
// and also gets the C tool through ROCP_TOOL_LIBRARIES: both must be discovered, configured once
// and see the traced calls. Exit status 0 = every check held.
#include "../support/check.hpp"
#include "../support/fake_hsa.hpp"

#include <encore/tracing/hsa.hpp>
#include <rocprofiler-sdk/rocprofiler.h>

#include <dlfcn.h>

#include <cstdio>

namespace {
int g_self_calls = 0;
using test_support::expect;
}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t priority, rocprofiler_client_id_t* id) {
    id->name = "driver";
    expect(priority == 0, "the executable's tool comes first");
    static rocprofiler_tool_configure_result_t r{
        sizeof(r),
        [](rocprofiler_client_finalize_t, void*) {
            rocprofiler_context_id_t c{};
            if (rocprofiler_create_context(&c) != ROCPROFILER_STATUS_SUCCESS) return 1;
            if (rocprofiler_configure_callback_tracing_service(
                    c, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0,
                    [](rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) { ++g_self_calls; },
                    nullptr) != ROCPROFILER_STATUS_SUCCESS)
                return 1;
            return static_cast<int>(rocprofiler_start_context(c));
        },
        nullptr, nullptr};
    return &r;
}

int main() {
    fake_hsa::tables t;
    encore::initialize();
    expect(encore::tracing::hsa_all::install(t.root) == 7, "wrappers installed over the 7 fake slots");
    hsa_queue_t* q = nullptr;
    (void)t.core.hsa_queue_create_fn(hsa_agent_t{1}, 16, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &q);
    (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
    expect(g_self_calls == 4, "the executable's tool saw 2 calls x ENTER/EXIT");
    using counts_fn = void (*)(int*, int*, int*, int*);
    auto counts = reinterpret_cast<counts_fn>(::dlsym(RTLD_DEFAULT, "c_tool_counts"));
    expect(counts != nullptr, "the C tool from ROCP_TOOL_LIBRARIES is loaded");
    if (counts != nullptr) {
        int enter = 0, exit_ = 0, args = 0, bad = 0;
        counts(&enter, &exit_, &args, &bad);
        expect(enter == 2 && exit_ == 2, "the C tool saw 2 ENTER and 2 EXIT");
        expect(args == 9, "the C tool iterated 8 + 1 arguments");
        expect(bad == 0, "the C tool found names, user_data and args consistent");
    }
    encore::tracing::hsa_all::uninstall(t.root);
    return test_support::finish();
}
