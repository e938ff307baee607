// A stateful HSA program (a replay target): several dispatches of kernels whose results depend
// on earlier dispatches. Usage: hsa_stateful <code object> [iterations]
// Prints the final checksums; exits 1 if they differ from the values computed on the host.
#include "hsa_example.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

using example::AppendArgs;
using example::CounterArgs;
using example::SaxpyArgs;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <code object> [iterations]\n", argv[0]);
        return 2;
    }
    const int iterations = argc > 2 ? std::atoi(argv[2]) : 4;
    const uint32_t n = 4096;
    const uint32_t append_n = 1000;
    HSA_CHECK(hsa_init());
    int rc = 0;
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        example::CodeObject co(argv[1], gpu);
        const uint64_t k_saxpy = co.kernel("saxpy_accumulate", gpu);
        const uint64_t k_counter = co.kernel("counter_increment", gpu);
        const uint64_t k_append = co.kernel("atomic_append", gpu);
        auto* counter = static_cast<uint32_t*>(co.variable("counter", gpu));

        // Device memory (the GPU's coarse-grained pool), filled and read back with hsa_memory_copy
        // like a real GPU program does: what a kernel replay snapshots and restores.
        auto* x = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
        auto* y = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
        const size_t out_cap = static_cast<size_t>(append_n) * iterations;
        auto* out = static_cast<uint32_t*>(example::alloc_device(gpu, out_cap * sizeof(uint32_t) + 4));
        auto* index = static_cast<uint32_t*>(example::alloc_device(gpu, sizeof(uint32_t)));
        {
            std::vector<float> hx(n), hy(n, 1.0f);
            for (uint32_t i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 17) * 0.5f;
            const uint32_t zero = 0;
            HSA_CHECK(hsa_memory_copy(x, hx.data(), n * sizeof(float)));
            HSA_CHECK(hsa_memory_copy(y, hy.data(), n * sizeof(float)));
            HSA_CHECK(hsa_memory_copy(index, &zero, sizeof(zero)));
        }

        auto* saxpy = static_cast<SaxpyArgs*>(example::alloc_kernarg(cpu, gpu, sizeof(SaxpyArgs)));
        auto* cargs = static_cast<CounterArgs*>(example::alloc_kernarg(cpu, gpu, sizeof(CounterArgs)));
        auto* app = static_cast<AppendArgs*>(example::alloc_kernarg(cpu, gpu, sizeof(AppendArgs)));
        *saxpy = {x, y, 0.25f, n};
        *cargs = {n / 2};

        hsa_queue_t* queue = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue));
        hsa_signal_t done{};
        HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
        for (int it = 0; it < iterations; ++it) {
            // Each append dispatch gets its own kernarg block (value differs per iteration).
            *app = {out, index, 1000u * static_cast<uint32_t>(it), append_n};
            hsa_signal_store_screlease(done, 3);
            example::dispatch_1d(queue, k_saxpy, saxpy, n, 64, done);
            example::dispatch_1d(queue, k_counter, cargs, n, 128, done);
            example::dispatch_1d(queue, k_append, app, append_n, 100, done);
            example::wait_done(done);
        }

        std::vector<float> hy(n);
        uint32_t count = 0, hcounter = 0;
        HSA_CHECK(hsa_memory_copy(hy.data(), y, n * sizeof(float)));
        HSA_CHECK(hsa_memory_copy(&count, index, sizeof(count)));
        HSA_CHECK(hsa_memory_copy(&hcounter, counter, sizeof(hcounter)));
        std::vector<uint32_t> hout(std::min<size_t>(count, out_cap));
        if (!hout.empty()) HSA_CHECK(hsa_memory_copy(hout.data(), out, hout.size() * sizeof(uint32_t)));
        double ysum = 0;
        for (uint32_t i = 0; i < n; ++i) ysum += hy[i];
        uint64_t append_sum = 0;
        for (uint32_t v : hout) append_sum += v;

        // Host reference.
        double ref_ysum = 0;
        for (uint32_t i = 0; i < n; ++i) {
            float v = 1.0f;
            for (int it = 0; it < iterations; ++it) v += 0.25f * (static_cast<float>(i % 17) * 0.5f);
            ref_ysum += v;
        }
        uint64_t ref_append = 0;
        for (int it = 0; it < iterations; ++it)
            for (uint32_t g = 0; g < append_n; ++g) ref_append += 1000u * static_cast<uint32_t>(it) + g;

        std::printf("stateful: iterations=%d\n", iterations);
        std::printf("saxpy_checksum=%.3f\n", ysum);
        std::printf("counter=%u\n", hcounter);
        std::printf("append_count=%u append_checksum=%llu\n", count, static_cast<unsigned long long>(append_sum));
        if (std::fabs(ysum - ref_ysum) > 1e-3 * std::fabs(ref_ysum) ||
            hcounter != static_cast<uint32_t>(iterations) * (n / 2) ||
            count != static_cast<uint32_t>(iterations) * append_n || append_sum != ref_append) {
            std::fprintf(stderr, "stateful: result mismatch (expected saxpy %.3f counter %u append %llu)\n", ref_ysum,
                         static_cast<uint32_t>(iterations) * (n / 2), static_cast<unsigned long long>(ref_append));
            rc = 1;
        }
        HSA_CHECK(hsa_signal_destroy(done));
        HSA_CHECK(hsa_queue_destroy(queue));
        for (void* p : {static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(out), static_cast<void*>(index),
                        static_cast<void*>(saxpy), static_cast<void*>(cargs), static_cast<void*>(app)})
            HSA_CHECK(hsa_amd_memory_pool_free(p));
    }
    HSA_CHECK(hsa_shut_down());
    return rc;
}
