// test/hsa/test_dispatch_request.cpp — the external correlation id request service on kernel
// dispatches, on the software runtime (the program is its own tool).
//
// A context traces kernel dispatches and has the request service for KERNEL_DISPATCH (as
// LLNL Caliper's rocprofiler service configures it, to attribute kernels to its regions). Checks:
// the request callback is called once per dispatch, at its ENQUEUE on the launching thread, with
// the request kind KERNEL_DISPATCH and the dispatch's internal correlation id; the value it
// returns is the external correlation id of that dispatch's ENQUEUE and COMPLETE records; a
// callback that declines (non-zero) leaves the thread's pushed id. A second context without the
// service is never asked and sees the pushed id.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <map>
#include <mutex>
#include <thread>

namespace {

using test_support::expect;

std::mutex g_mutex;
rocprofiler_context_id_t g_asked{}, g_plain{};
int g_requests = 0, g_wrong_request = 0;
bool g_decline = false;  // the callback declines while set
std::thread::id g_main;
std::map<std::uint64_t, std::uint64_t> g_requested;  // internal correlation id -> value returned
// dispatch id -> external id on ENQUEUE / COMPLETE, per context
std::map<std::uint64_t, std::uint64_t> g_enqueue_ext, g_complete_ext, g_plain_ext;
std::map<std::uint64_t, std::uint64_t> g_enqueue_internal;

int on_request(rocprofiler_thread_id_t, rocprofiler_context_id_t ctx,
               rocprofiler_external_correlation_id_request_kind_t kind, rocprofiler_tracing_operation_t,
               uint64_t internal, rocprofiler_user_data_t* external, void*) {
    std::lock_guard lk(g_mutex);
    ++g_requests;
    if (ctx.handle != g_asked.handle || kind != ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH ||
        std::this_thread::get_id() != g_main)
        ++g_wrong_request;
    if (g_decline) return 1;
    external->value = 9000 + internal;
    g_requested[internal] = external->value;
    return 0;
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    const auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    const auto id = p->dispatch_info.dispatch_id;
    std::lock_guard lk(g_mutex);
    if (r.context_id.handle == g_plain.handle) {
        if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE) g_plain_ext[id] = r.correlation_id.external.value;
        return;
    }
    if (r.operation == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE) {
        g_enqueue_ext[id] = r.correlation_id.external.value;
        g_enqueue_internal[id] = r.correlation_id.internal;
    } else if (r.operation == ROCPROFILER_KERNEL_DISPATCH_COMPLETE) {
        g_complete_ext[id] = r.correlation_id.external.value;
    }
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    int bad = 0;
    bad += rocprofiler_create_context(&g_asked) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_create_context(&g_plain) != ROCPROFILER_STATUS_SUCCESS;
    for (auto c : {g_asked, g_plain})
        bad += rocprofiler_configure_callback_tracing_service(c, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr,
                                                              0, &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS;
    const rocprofiler_external_correlation_id_request_kind_t kinds[] = {
        ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH};
    bad += rocprofiler_configure_external_correlation_id_request_service(g_asked, kinds, 1, &on_request, nullptr) !=
           ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_start_context(g_asked) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_start_context(g_plain) != ROCPROFILER_STATUS_SUCCESS;
    return bad;
}

}  // namespace

ENCORE_TEST_TOOL("test-dispatch-request", &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    constexpr int total = 6;
    constexpr uint32_t n = 1u << 12;
    g_main = std::this_thread::get_id();
    HSA_CHECK(hsa_init());
    rocprofiler_thread_id_t tid = 0;
    rocprofiler_get_thread_id(&tid);
    for (auto c : {g_asked, g_plain}) rocprofiler_push_external_correlation_id(c, tid, {.value = 77});
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        example::CodeObject co(argv[1], gpu);
        const uint64_t kernel = co.kernel("vector_add", gpu);
        auto* args = example::alloc_vector_add_args(cpu, gpu, n);
        hsa_queue_t* q = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q));
        for (int i = 0; i < total; ++i) {
            {
                std::lock_guard lk(g_mutex);
                g_decline = i >= total - 2;  // the last two: the callback declines
            }
            hsa_signal_t done{};
            HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
            example::dispatch_1d(q, kernel, args, n, 256, done);
            example::wait_done(done);
            HSA_CHECK(hsa_signal_destroy(done));
        }
        HSA_CHECK(hsa_queue_destroy(q));
    }
    HSA_CHECK(hsa_shut_down());

    std::lock_guard lk(g_mutex);
    expect(g_requests == total, "the request callback was called once per dispatch (" + std::to_string(g_requests) + ")");
    expect(g_wrong_request == 0, "asked for its own context, kind KERNEL_DISPATCH, on the launching thread");
    expect(g_enqueue_ext.size() == total && g_complete_ext.size() == total, "every ENQUEUE and COMPLETE seen");
    int from_request = 0, pushed = 0;
    for (auto& [id, ext] : g_enqueue_ext) {
        const auto internal = g_enqueue_internal[id];
        if (auto it = g_requested.find(internal);
            it != g_requested.end() && ext == it->second && g_complete_ext[id] == ext)
            ++from_request;
        else if (ext == 77 && g_complete_ext[id] == 77)
            ++pushed;
    }
    expect(from_request == total - 2, "the returned id is the dispatch's external id at ENQUEUE and COMPLETE (" +
                                          std::to_string(from_request) + ")");
    expect(pushed == 2, "a declined request leaves the pushed id (" + std::to_string(pushed) + ")");
    int plain_pushed = 0;
    for (auto& [id, ext] : g_plain_ext) plain_pushed += ext == 77;
    expect(plain_pushed == total, "the context without the service sees the pushed id");
    return test_support::finish();
}
