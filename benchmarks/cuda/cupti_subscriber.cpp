// benchmarks/cuda/cupti_subscriber.cpp — a bare CUPTI activity subscriber to preload into any CUDA
// program (no encore): CONCURRENT_KERNEL records into 4 MiB buffers with a 10 ms flush period, as
// encore's CUPTI source asks for them, each buffer's records counted and dropped. It prices what
// CUPTI's kernel records alone cost a real program (a training step), beside encore-trace's
// --kernel-trace, whose launches CUPTI times the same way. Built and run on a GPU machine:
//   g++ -O2 -shared -fPIC -I$CUDA_HOME/include benchmarks/cuda/cupti_subscriber.cpp
//       -o libcupti_subscriber.so -L$CUDA_HOME/lib64 -lcupti -Wl,-rpath,$CUDA_HOME/lib64   (one line)
//   LD_PRELOAD=$PWD/libcupti_subscriber.so python3 benchmarks/cuda/programs/gpt2_train.py --steps 20
// At exit it prints "cupti_subscriber: N kernel records" on stderr (N: every kernel the program
// ran, or the subscription failed: "cannot subscribe"). A program that loads a CUPTI of its own
// (torch.profiler's) must not run with it: two CUPTIs in one process contend for the driver's hooks.
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {

std::atomic<unsigned long> g_records{0};

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *size = std::size_t{4} << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* r = nullptr;
    unsigned long n = 0;
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) ++n;
    g_records.fetch_add(n, std::memory_order_relaxed);
    std::free(buffer);
}

// At load, before the program's first CUDA call (CUPTI takes activity subscriptions made before
// the driver initializes).
[[gnu::constructor]] void subscribe() {
    if (cuptiActivityRegisterCallbacks(&buffer_requested, &buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
        std::fprintf(stderr, "cupti_subscriber: cannot subscribe\n");
        return;
    }
    (void)cuptiActivityFlushPeriod(10);  // without it, buffers come back only when full or flushed
}

[[gnu::destructor]] void report() {
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::fprintf(stderr, "cupti_subscriber: %lu kernel records\n", g_records.load());
}

}  // namespace
