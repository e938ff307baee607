// test/cuda/fake_cupti.h — what the fake CUPTI (fake_cupti.cpp) counts, for the tests to check
// (fake_cupti_counts(), found with dlsym in the library named by ENCORE_CUPTI_LIBRARY).
#pragma once

struct fake_cupti_counts_t {
    unsigned long pushed;         // external ids pushed (cuptiActivityPushExternalCorrelationId)
    unsigned long kernels;        // kernel records written (graph kernels included)
    unsigned long externals;      // EXTERNAL_CORRELATION records written
    unsigned long flushes;        // cuptiActivityFlushAll calls
    unsigned long dropped;        // kernel records dropped (FAKE_CUPTI_DROP_GRID), reported as CUPTI's dropped count
    unsigned long graph_kernels;  // graph kernel records written (FAKE_CUPTI_GRAPH_KERNELS)
    unsigned long buffers;        // buffers handed back
    unsigned long stream_ids;     // cuptiGetStreamIdEx calls
    unsigned api_kinds;           // bits of the kinds enabled: 1 DRIVER, 2 RUNTIME, 4 EXTERNAL_CORRELATION
    int depth;                    // external ids still pushed on the calling thread
};
