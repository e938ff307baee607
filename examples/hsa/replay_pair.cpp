// The HSA program of a kernel-replay session (a port of rocprofiler-sdk's kernel_replay samples'
// HIP application to HSA): one dispatch of `bump` with 67 work-items per workgroup, which tools
// replay, then one of `nudge` with 64, which they opt out of, each incrementing its own counter
// once per workgroup. Usage: hsa_replay_pair <code object> [workgroups]
// Exits 1 unless each counter equals the workgroup count: a replay that did not restore memory
// between passes leaves `bump`'s counter at a multiple of it.
#include "hsa_example.hpp"

#include <cstdlib>

namespace {
constexpr uint16_t replay_block = 67;   // what the samples' kReplayBlockX selects
constexpr uint16_t opt_out_block = 64;  // kOptOutBlockX
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <code object> [workgroups]\n", argv[0]);
        return 2;
    }
    const uint32_t groups = argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 1;
    HSA_CHECK(hsa_init());
    int rc = 0;
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        example::CodeObject co(argv[1], gpu);
        const uint64_t k_bump = co.kernel("bump", gpu);
        const uint64_t k_nudge = co.kernel("nudge", gpu);
        // Device memory, zeroed and read back with hsa_memory_copy: what a replay snapshots.
        auto* replayed = static_cast<uint32_t*>(example::alloc_device(gpu, sizeof(uint32_t)));
        auto* opted = static_cast<uint32_t*>(example::alloc_device(gpu, sizeof(uint32_t)));
        const uint32_t zero = 0;
        HSA_CHECK(hsa_memory_copy(replayed, &zero, sizeof(zero)));
        HSA_CHECK(hsa_memory_copy(opted, &zero, sizeof(zero)));
        auto** bump_args = static_cast<uint32_t**>(example::alloc_kernarg(cpu, gpu, sizeof(uint32_t*)));
        auto** nudge_args = static_cast<uint32_t**>(example::alloc_kernarg(cpu, gpu, sizeof(uint32_t*)));
        *bump_args = replayed;
        *nudge_args = opted;

        hsa_queue_t* queue = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue));
        hsa_signal_t done{};
        HSA_CHECK(hsa_signal_create(2, 0, nullptr, &done));
        example::dispatch_1d(queue, k_bump, bump_args, groups * replay_block, replay_block, done);
        example::dispatch_1d(queue, k_nudge, nudge_args, groups * opt_out_block, opt_out_block, done);
        example::wait_done(done);

        uint32_t replayed_h = 0, opted_h = 0;
        HSA_CHECK(hsa_memory_copy(&replayed_h, replayed, sizeof(replayed_h)));
        HSA_CHECK(hsa_memory_copy(&opted_h, opted, sizeof(opted_h)));
        std::printf("[app] replayed_bump=%u opted_nudge=%u\n", replayed_h, opted_h);
        if (replayed_h != groups) {
            std::fprintf(stderr, "[app] FAIL: replayed_bump=%u (expected %u: passes not isolated)\n", replayed_h, groups);
            rc = 1;
        }
        if (opted_h != groups) {
            std::fprintf(stderr, "[app] FAIL: opted_nudge=%u (expected %u)\n", opted_h, groups);
            rc = 1;
        }
        HSA_CHECK(hsa_signal_destroy(done));
        HSA_CHECK(hsa_queue_destroy(queue));
        for (void* p : {static_cast<void*>(replayed), static_cast<void*>(opted), static_cast<void*>(bump_args),
                        static_cast<void*>(nudge_args)})
            HSA_CHECK(hsa_amd_memory_pool_free(p));
    }
    HSA_CHECK(hsa_shut_down());
    return rc;
}
