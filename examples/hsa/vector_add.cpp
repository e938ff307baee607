// Vector add on the first GPU agent. Usage: hsa_vector_add <code object> [n]
// Exits 0 when c == a + b for every element, 1 on a mismatch.
#include "hsa_example.hpp"

using Args = example::VectorAddArgs;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <code object> [n]\n", argv[0]);
        return 2;
    }
    const uint32_t n = argc > 2 ? static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 1u << 20;
    HSA_CHECK(hsa_init());
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        example::CodeObject co(argv[1], gpu);
        const uint64_t kernel = co.kernel("vector_add", gpu);

        auto* a = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
        auto* b = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
        auto* c = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
        for (uint32_t i = 0; i < n; ++i) {
            a[i] = static_cast<float>(i);
            b[i] = 2.0f * static_cast<float>(i % 1000);
            c[i] = -1.0f;
        }
        auto* args = static_cast<Args*>(example::alloc_kernarg(cpu, gpu, sizeof(Args)));
        *args = {a, b, c, n};

        hsa_queue_t* queue = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 256, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue));
        hsa_signal_t done{};
        HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
        example::dispatch_1d(queue, kernel, args, n, 256, done);
        example::wait_done(done);

        uint32_t bad = 0;
        for (uint32_t i = 0; i < n; ++i)
            if (c[i] != a[i] + b[i]) ++bad;
        std::printf("vector_add: n=%u mismatches=%u\n", n, bad);

        HSA_CHECK(hsa_signal_destroy(done));
        HSA_CHECK(hsa_queue_destroy(queue));
        for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(args)})
            HSA_CHECK(hsa_amd_memory_pool_free(p));
        if (bad) {
            hsa_shut_down();
            return 1;
        }
    }
    HSA_CHECK(hsa_shut_down());
    return 0;
}
