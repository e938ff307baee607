// A program that exits without hsa_shut_down while runtime threads are busy (a queue blocked
// on a barrier, an async handler armed, a copy thread idle): the process must exit cleanly.
#include "sim_test_util.hpp"

#include <cstdio>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <hsa/hsa_api_trace.h>
#pragma GCC diagnostic pop

using namespace simtest;

int main() {
    if (hsa_init() != HSA_STATUS_SUCCESS) return 1;
    hsa_agent_t g = gpu();
    Program prog(g);
    if (prog.status != HSA_STATUS_SUCCESS) return 2;
    hsa_queue_t* q = nullptr;
    hsa_queue_t* iq = nullptr;
    if (hsa_queue_create(g, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &q) != HSA_STATUS_SUCCESS) return 3;
    if (hsa_amd_queue_intercept_create(g, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &iq) != HSA_STATUS_SUCCESS)
        return 4;
    hsa_signal_t never{}, done{};
    hsa_signal_create(1, 0, nullptr, &never);
    hsa_signal_create(1, 0, nullptr, &done);
    hsa_amd_signal_async_handler(
        never, HSA_SIGNAL_CONDITION_EQ, 0, [](hsa_signal_value_t, void*) { return true; }, nullptr);
    Dispatch d;
    d.kernel_object = prog.kernel("noop", g);
    d.completion = done;
    submit(iq, d);
    if (wait_zero(done) != 0) return 5;
    submit_barrier(q, true, {never}, hsa_signal_t{0});  // blocks the processor forever
    char buf[16];
    void* dst = alloc_kernarg(g, 16);
    hsa_signal_store_relaxed(done, 1);
    hsa_amd_memory_async_copy(dst, g, buf, g, 0, 0, nullptr, done);
    wait_zero(done);
    std::puts("exiting without hsa_shut_down");
    return 0;
}
