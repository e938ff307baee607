// test/hostile/test_hostile_replay.cpp — issue 40 item 2 on the software HSA runtime (the program
// is its own tool, HSA_TOOLS_LIB=libencore-hsa): kernel replay with a small LOSSLESS buffer of
// KERNEL_DISPATCH records whose callback copies into the replayed agent's device memory
// (hsa_memory_copy holds the agent's gate shared). The replaying thread holds the gate
// exclusively while its passes' records fill the ring; the callback thread waits for the gate.
// Neither may wait for the other without bound: the program ends promptly, the replays run all
// their passes, and every record is delivered or counted as dropped.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"
#include "watchdog.hpp"

#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <vector>

namespace {

using test_support::expect;
using clk = std::chrono::steady_clock;

constexpr uint32_t n = 1024;
constexpr std::uint64_t passes = 48;  // each pass's COMPLETE record: ~200 bytes; the ring holds ~19
constexpr int dispatches = 3;

rocprofiler_context_id_t g_ctx{};
rocprofiler_buffer_id_t g_buf{};
std::atomic<void*> g_copy_dst{nullptr};  // device memory of the replayed agent, not the kernel's
std::vector<float> g_host_src(n, 5.0f);
std::atomic<std::uint64_t> g_delivered{0}, g_dropped{0};
std::atomic<int> g_copies{0}, g_copy_failed{0};
std::mutex g_mutex;
int g_replayed = 0, g_full = 0;

std::atomic<bool> g_replaying{true};  // the last dispatch runs once: its record carries the drop count
std::uint64_t pass_count(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) {
    return g_replaying.load() ? passes : 1;
}

void on_replay(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    if (r.operation != ROCPROFILER_KERNEL_REPLAY_CONFIG) return;
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        p->replay_pass_count = &pass_count;
        return;
    }
    std::lock_guard lk(g_mutex);
    if (!g_replaying.load()) return;
    if (p->decline_reason == nullptr) ++g_replayed;
    if (p->passes_run == passes) ++g_full;
}

// The buffer callback: the tool's own device work (a copy into the agent's memory) per batch.
void on_records(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t** h, size_t count, void*,
                uint64_t drops) {
    std::uint64_t dispatch_records = 0;
    for (size_t i = 0; i < count; ++i)
        if (h[i]->category == ROCPROFILER_BUFFER_CATEGORY_TRACING &&
            h[i]->kind == ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH)
            ++dispatch_records;
    g_delivered += dispatch_records;
    g_dropped += drops;
    if (void* dst = g_copy_dst.load(); dst != nullptr) {
        if (hsa_memory_copy(dst, g_host_src.data(), n * sizeof(float)) == HSA_STATUS_SUCCESS)
            ++g_copies;
        else
            ++g_copy_failed;
    }
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (rocprofiler_create_context(&g_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, nullptr, 0,
                                                       &on_replay, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    // 4 KiB, watermark at the size: the consumer is woken by the full ring (or a flush).
    if (rocprofiler_create_buffer(g_ctx, 4096, 4096, ROCPROFILER_BUFFER_POLICY_LOSSLESS, &on_records, nullptr, &g_buf) !=
        ROCPROFILER_STATUS_SUCCESS)
        return 1;
    if (rocprofiler_configure_buffer_tracing_service(g_ctx, ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                     g_buf) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

int run(const char* co_path) {
    const hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
    const hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
    example::CodeObject co(co_path, gpu);
    const uint64_t k_saxpy = co.kernel("saxpy_accumulate", gpu);
    auto* x = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
    auto* y = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
    void* scratch = example::alloc_device(gpu, n * sizeof(float));
    std::vector<float> hx(n), hy(n, 1.0f);
    for (uint32_t i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 17) * 0.5f;
    HSA_CHECK(hsa_memory_copy(x, hx.data(), n * sizeof(float)));
    HSA_CHECK(hsa_memory_copy(y, hy.data(), n * sizeof(float)));
    auto* args = static_cast<example::SaxpyArgs*>(example::alloc_kernarg(cpu, gpu, sizeof(example::SaxpyArgs)));
    *args = {x, y, 0.25f, n};
    hsa_queue_t* queue = nullptr;
    HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue));
    hsa_signal_t done{};
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
    g_copy_dst.store(scratch);

    const auto start = clk::now();
    for (int i = 0; i < dispatches; ++i) {
        hsa_signal_store_screlease(done, 1);
        example::dispatch_1d(queue, k_saxpy, args, n, 64, done);
        example::wait_done(done);
    }
    const double secs = std::chrono::duration<double>(clk::now() - start).count();
    std::printf("%d replayed dispatches of %llu passes in %.3f s\n", dispatches,
                static_cast<unsigned long long>(passes), secs);
    // One more dispatch, run once: a drop count rides on the next delivery, so records the
    // replays dropped last are reported with its record.
    expect(rocprofiler_flush_buffer(g_buf) == ROCPROFILER_STATUS_SUCCESS, "a flush after the replays");
    g_replaying = false;
    hsa_signal_store_screlease(done, 1);
    example::dispatch_1d(queue, k_saxpy, args, n, 64, done);
    example::wait_done(done);
    expect(rocprofiler_flush_buffer(g_buf) == ROCPROFILER_STATUS_SUCCESS, "the final flush");
    g_copy_dst.store(nullptr);

    {
        std::lock_guard lk(g_mutex);
        expect(g_replayed == dispatches && g_full == dispatches, "every dispatch replayed, all its passes");
    }
    // LOSSLESS, except what the replaying thread could not wait for: counted, reported as drops.
    const std::uint64_t expected = dispatches * passes + 1;
    std::printf("records: %llu delivered, %llu dropped; callback copies: %d\n",
                static_cast<unsigned long long>(g_delivered.load()), static_cast<unsigned long long>(g_dropped.load()),
                g_copies.load());
    expect(g_delivered.load() + g_dropped.load() == expected, "every pass's record delivered or counted as dropped");
    expect(g_copies.load() > 0 && g_copy_failed.load() == 0, "the callback's copies ran and succeeded");
    // The replays left the program's memory as one run each would.
    HSA_CHECK(hsa_memory_copy(hy.data(), y, n * sizeof(float)));
    bool same = true;
    for (uint32_t i = 0; i < n; ++i) {
        float v = 1.0f;
        for (int k = 0; k < dispatches + 1; ++k) v += 0.25f * hx[i];
        same = same && std::fabs(hy[i] - v) <= 1e-4f * std::fabs(v);
    }
    expect(same, "results as without replay");
    expect(secs < 30.0, "promptly");

    HSA_CHECK(hsa_signal_destroy(done));
    HSA_CHECK(hsa_queue_destroy(queue));
    for (void* p : {static_cast<void*>(x), static_cast<void*>(y), scratch, static_cast<void*>(args)})
        HSA_CHECK(hsa_amd_memory_pool_free(p));
    return 0;
}

}  // namespace

ENCORE_TEST_TOOL(nullptr, &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <stateful code object>\n", argv[0]);
        return 2;
    }
    const test_hostile::watchdog w(60, "item 2: kernel replay and a LOSSLESS buffer whose callback copies");
    HSA_CHECK(hsa_init());
    const int rc = run(argv[1]);
    HSA_CHECK(hsa_shut_down());
    return rc | test_support::finish();
}
