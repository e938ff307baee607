// A program in phases, annotated with roctx the way frameworks mark theirs: each "step" is a
// roctxRangePushA/Pop range of three dispatches that feed each other (add_into y += x,
// double_in_place x *= 2, add_into z += x, one kernarg buffer rewritten between them), and one
// "checkpoint" roctxRangeStartA/Stop range copies a result to the host. Under encore-replay
// --range step each step is replayed as one range; the program's results must not change.
// Usage: hsa_range_phases <range code object> [steps]. Exits 1 unless x, y and z are what the
// steps compute on the host.
#include "hsa_example.hpp"

#include <roctracer/roctx.h>

#include <cstdlib>
#include <vector>

namespace {
struct PairArgs {
    float* x;
    float* y;
    uint32_t n;
};
constexpr uint32_t n = 1024;
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <range code object> [steps]\n", argv[0]);
        return 2;
    }
    const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
    HSA_CHECK(hsa_init());
    int rc = 0;
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        example::CodeObject co(argv[1], gpu);
        const uint64_t k_add = co.kernel("add_into", gpu);
        const uint64_t k_double = co.kernel("double_in_place", gpu);
        auto* x = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
        auto* y = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
        auto* z = static_cast<float*>(example::alloc_device(gpu, n * sizeof(float)));
        std::vector<float> hx(n), hy(n, 1.0f), hz(n, 0.0f);
        for (uint32_t i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 7) * 0.25f;
        HSA_CHECK(hsa_memory_copy(x, hx.data(), n * sizeof(float)));
        HSA_CHECK(hsa_memory_copy(y, hy.data(), n * sizeof(float)));
        HSA_CHECK(hsa_memory_copy(z, hz.data(), n * sizeof(float)));
        auto* args = static_cast<PairArgs*>(example::alloc_kernarg(cpu, gpu, sizeof(PairArgs)));
        hsa_queue_t* q = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q));
        hsa_signal_t done;
        HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
        auto run = [&](uint64_t kernel, PairArgs a) {
            *args = a;
            hsa_signal_store_relaxed(done, 1);
            example::dispatch_1d(q, kernel, args, n, 64, done);
            hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
        };
        for (int s = 0; s < steps; ++s) {
            roctxRangePushA("step");
            run(k_add, {x, y, n});
            run(k_double, {x, y, n});
            run(k_add, {x, z, n});
            roctxRangePop();
            for (uint32_t i = 0; i < n; ++i) {
                hy[i] += hx[i];
                hx[i] *= 2.0f;
                hz[i] += hx[i];
            }
        }
        // A phase the host takes part in: replaying it is declined (a copy to the host inside).
        float first = 0;
        const roctx_range_id_t cp = roctxRangeStartA("checkpoint");
        run(k_add, {x, y, n});
        HSA_CHECK(hsa_memory_copy(&first, y, sizeof(first)));
        roctxRangeStop(cp);
        for (uint32_t i = 0; i < n; ++i) hy[i] += hx[i];
        std::vector<float> dx(n), dy(n), dz(n);
        HSA_CHECK(hsa_memory_copy(dx.data(), x, n * sizeof(float)));
        HSA_CHECK(hsa_memory_copy(dy.data(), y, n * sizeof(float)));
        HSA_CHECK(hsa_memory_copy(dz.data(), z, n * sizeof(float)));
        if (dx != hx || dy != hy || dz != hz || first != hy[0]) {
            std::fprintf(stderr, "range_phases: results differ from the host's\n");
            rc = 1;
        }
        std::printf("steps=%d y0=%.3f z_last=%.3f\n", steps, static_cast<double>(dy[0]), static_cast<double>(dz[n - 1]));
        hsa_signal_destroy(done);
        hsa_queue_destroy(q);
    }
    HSA_CHECK(hsa_shut_down());
    return rc;
}
