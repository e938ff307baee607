// src/cuda/chunk_desc.hpp — one chunk of tracked memory as changed_chunks' kernels take it: the
// layout shared by the kernels (chunks.cu, compiled to PTX), the host that builds the table
// (snapshot.cpp) and the fake driver's host stand-ins (test/cuda/fake_chunks.cpp). Plain C++
// that nvcc and the host compiler both read.
#pragma once

struct chunk_desc {
    unsigned long long addr;    // the chunk in tracked memory
    unsigned long long shadow;  // its copy in the device shadow; 0: none (a host shadow, or a chunk that was
                                // all zero at the snapshot, which keeps no copy)
    unsigned long long bytes;   // at most the chunk size; a region's last chunk may be shorter
};
