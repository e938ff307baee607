// Two queues on two GPU agents (or two queues on one agent when only one exists), fed
// concurrently by two host threads. Usage: hsa_multi_queue <code object> [dispatches]
// Exits 0 when every dispatch produced the right result.
#include "hsa_example.hpp"

#include <thread>

namespace {
using Args = example::VectorAddArgs;

struct Lane {
    hsa_agent_t gpu{};
    example::CodeObject* co = nullptr;
    hsa_queue_t* queue = nullptr;
    uint32_t bad = 0;
};
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <code object> [dispatches]\n", argv[0]);
        return 2;
    }
    const int dispatches = argc > 2 ? std::atoi(argv[2]) : 50;
    const uint32_t n = 1 << 14;
    HSA_CHECK(hsa_init());
    uint32_t bad_total = 0;
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        auto gpus = example::agents(HSA_DEVICE_TYPE_GPU);
        Lane lanes[2];
        lanes[0].gpu = gpus.at(0);
        lanes[1].gpu = gpus.size() > 1 ? gpus[1] : gpus[0];
        example::CodeObject co0(argv[1], lanes[0].gpu);
        example::CodeObject co1(argv[1], lanes[1].gpu);
        lanes[0].co = &co0;
        lanes[1].co = &co1;
        std::printf("multi_queue: %zu GPU agent(s), %d dispatches per queue\n", gpus.size(), dispatches);

        auto run = [&](Lane& lane, int lane_id) {
            const uint64_t kernel = lane.co->kernel("vector_add", lane.gpu);
            HSA_CHECK(hsa_queue_create(lane.gpu, 128, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX,
                                       &lane.queue));
            auto* a = static_cast<float*>(example::alloc_shared(cpu, lane.gpu, n * sizeof(float)));
            auto* b = static_cast<float*>(example::alloc_shared(cpu, lane.gpu, n * sizeof(float)));
            auto* c = static_cast<float*>(example::alloc_shared(cpu, lane.gpu, n * sizeof(float)));
            auto* args = static_cast<Args*>(example::alloc_kernarg(cpu, lane.gpu, sizeof(Args)));
            *args = {a, b, c, n};
            hsa_signal_t done{};
            HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
            for (int d = 0; d < dispatches; ++d) {
                for (uint32_t i = 0; i < n; ++i) {
                    a[i] = static_cast<float>(i + d);
                    b[i] = static_cast<float>(lane_id * 100);
                }
                hsa_signal_store_screlease(done, 1);
                example::dispatch_1d(lane.queue, kernel, args, n, 256, done);
                example::wait_done(done);
                for (uint32_t i = 0; i < n; ++i)
                    if (c[i] != a[i] + b[i]) ++lane.bad;
            }
            HSA_CHECK(hsa_signal_destroy(done));
            HSA_CHECK(hsa_queue_destroy(lane.queue));
            for (void* p :
                 {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(args)})
                HSA_CHECK(hsa_amd_memory_pool_free(p));
        };
        std::thread t1(run, std::ref(lanes[1]), 1);
        run(lanes[0], 0);
        t1.join();
        bad_total = lanes[0].bad + lanes[1].bad;
        std::printf("multi_queue: mismatches=%u\n", bad_total);
    }
    HSA_CHECK(hsa_shut_down());
    return bad_total ? 1 : 0;
}
