// benchmarks/cuda/cupti_kernel_records.hpp — CUPTI's kernel records taken as a plain CUPTI user
// takes them, for the benchmarks that price CUPTI alone beside encore (bench_launch.cu built with
// -DBENCH_WITH_CUPTI, cupti_subscriber.cpp): 4 MiB activity buffers (the size encore's CUPTI
// source asks for), each one CUPTI hands back walked, its CONCURRENT_KERNEL records counted, and
// freed. Header-only: each benchmark is one translation unit.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>

namespace cupti_bench {

/// CONCURRENT_KERNEL records CUPTI has handed back so far.
inline std::atomic<unsigned long> kernel_records{0};

inline void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *size = std::size_t{4} << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *max_records = 0;
}

inline void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* r = nullptr;
    unsigned long n = 0;
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS)
        n += r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    kernel_records.fetch_add(n, std::memory_order_relaxed);
    std::free(buffer);
}

/// Registers the buffers above and enables CONCURRENT_KERNEL records; false when CUPTI refused.
inline bool subscribe_kernels() {
    return cuptiActivityRegisterCallbacks(&buffer_requested, &buffer_completed) == CUPTI_SUCCESS &&
           cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS;
}

}  // namespace cupti_bench
