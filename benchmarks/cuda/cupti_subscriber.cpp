// benchmarks/cuda/cupti_subscriber.cpp — a bare CUPTI activity subscriber to preload into any CUDA
// program (no encore): CONCURRENT_KERNEL records into 4 MiB buffers with a 10 ms flush period, as
// encore's CUPTI source asks for them, each buffer's records counted and dropped. It prices what
// CUPTI's kernel records alone cost a real program (a training step), beside encore-trace's
// --kernel-trace, whose launches CUPTI times the same way. trace_gpt2.sh runs it as its case
// "sub" (built by common.sh's build_cupti_subscriber, or prebuild_gpu.sh trace); by hand:
//   g++ -O2 -shared -fPIC -I$CUDA_HOME/include benchmarks/cuda/cupti_subscriber.cpp
//       -o libcupti_subscriber.so -L$CUDA_HOME/lib64 -lcupti -Wl,-rpath,$CUDA_HOME/lib64   (one line)
//   LD_PRELOAD=$PWD/libcupti_subscriber.so python3 benchmarks/cuda/programs/gpt2_train.py --steps 20
// At exit it prints "cupti_subscriber: N kernel records" on stderr (N: every kernel the program
// ran, or the subscription failed: "cannot subscribe"). A program that loads a CUPTI of its own
// (torch.profiler's) must not run with it: two CUPTIs in one process contend for the driver's hooks.
#include "cupti_kernel_records.hpp"

#include <cstdio>

namespace {

// At load, before the program's first CUDA call (CUPTI takes activity subscriptions made before
// the driver initializes).
[[gnu::constructor]] void subscribe() {
    if (!cupti_bench::subscribe_kernels()) {
        std::fprintf(stderr, "cupti_subscriber: cannot subscribe\n");
        return;
    }
    (void)cuptiActivityFlushPeriod(10);  // without it, buffers come back only when full or flushed
}

[[gnu::destructor]] void report() {
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::fprintf(stderr, "cupti_subscriber: %lu kernel records\n", cupti_bench::kernel_records.load());
}

}  // namespace
