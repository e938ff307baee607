// src/cuda/chunks.cu — the device side of changed_chunks on CUDA: per-chunk hashes of the
// tracked memory, and a restore that rewrites only the chunks whose hash changed.
//
// Built into PTX (tools/gen_cuda_ptx.sh, output committed as chunks.ptx) because CI compiles
// libencore-cuda without nvcc; the driver JIT-compiles it for the GPU at first use. One thread
// block handles one chunk: 16-byte loads, a per-thread sum of mixed words, a block-wide sum.
// The hash is not cryptographic: a changed chunk goes unnoticed only if its 64-bit hash collides
// with the snapshot's (about 2^-64 per changed chunk for changes that are not adversarial).

struct chunk_desc {
    unsigned long long addr;    // the chunk in tracked memory
    unsigned long long shadow;  // its copy in the device shadow; 0 when the shadow is in host memory
    unsigned long long bytes;   // at most the chunk size; a region's last chunk may be shorter
};

__device__ __forceinline__ unsigned long long mix(unsigned long long x) {
    // splitmix64's finalizer: a bijection, so a changed word always changes its term.
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

__device__ unsigned long long chunk_hash(const chunk_desc& d) {
    // 16-byte loads where the chunk allows them (allocations are 256-byte aligned), bytes else.
    const unsigned long long n16 = ((d.addr | d.shadow) & 15) == 0 ? d.bytes / 16 : 0;
    const ulonglong2* p = reinterpret_cast<const ulonglong2*>(d.addr);
    unsigned long long h = 0;
    for (unsigned long long i = threadIdx.x; i < n16; i += blockDim.x) {
        const ulonglong2 w = p[i];
        // The word's position enters the term: swapping two words changes the sum.
        h += mix(w.x ^ (2 * i * 0x9e3779b97f4a7c15ull)) + mix(w.y ^ ((2 * i + 1) * 0x9e3779b97f4a7c15ull));
    }
    const unsigned char* tail = reinterpret_cast<const unsigned char*>(d.addr);
    for (unsigned long long i = n16 * 16 + threadIdx.x; i < d.bytes; i += blockDim.x)
        h += mix(tail[i] ^ (i << 8) ^ 0x5555555555555555ull);
    // Block-wide sum: warp shuffles, then one value per warp through shared memory.
    for (int o = 16; o > 0; o >>= 1) h += __shfl_down_sync(0xffffffffu, h, o);
    __shared__ unsigned long long warp_sums[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = h;
    __syncthreads();
    h = 0;
    if (warp == 0) {
        h = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0;
        for (int o = 16; o > 0; o >>= 1) h += __shfl_down_sync(0xffffffffu, h, o);
    }
    return mix(h + d.bytes);  // valid in thread 0
}

extern "C" __global__ void encore_hash_chunks(const chunk_desc* d, unsigned long long n, unsigned long long* hashes) {
    for (unsigned long long c = blockIdx.x; c < n; c += gridDim.x) {
        const unsigned long long h = chunk_hash(d[c]);
        if (threadIdx.x == 0) hashes[c] = h;
        __syncthreads();  // warp_sums is reused by the next chunk
    }
}

// stats[0]: chunks changed, stats[1]: their bytes. flags (host-shadow mode): 1 per changed
// chunk, which the host then copies back; in device-shadow mode the block copies it itself.
extern "C" __global__ void encore_restore_chunks(const chunk_desc* d, unsigned long long n,
                                                 const unsigned long long* hashes, unsigned long long* stats,
                                                 unsigned char* flags) {
    __shared__ int changed;
    for (unsigned long long c = blockIdx.x; c < n; c += gridDim.x) {
        const unsigned long long h = chunk_hash(d[c]);
        if (threadIdx.x == 0) {
            changed = h != hashes[c];
            if (flags != nullptr) flags[c] = static_cast<unsigned char>(changed);
            if (changed) {
                atomicAdd(&stats[0], 1ull);
                atomicAdd(&stats[1], d[c].bytes);
            }
        }
        __syncthreads();
        if (changed && d[c].shadow != 0) {
            const unsigned long long n16 = ((d[c].addr | d[c].shadow) & 15) == 0 ? d[c].bytes / 16 : 0;
            ulonglong2* dst = reinterpret_cast<ulonglong2*>(d[c].addr);
            const ulonglong2* src = reinterpret_cast<const ulonglong2*>(d[c].shadow);
            for (unsigned long long i = threadIdx.x; i < n16; i += blockDim.x) dst[i] = src[i];
            unsigned char* dt = reinterpret_cast<unsigned char*>(d[c].addr);
            const unsigned char* st = reinterpret_cast<const unsigned char*>(d[c].shadow);
            for (unsigned long long i = n16 * 16 + threadIdx.x; i < d[c].bytes; i += blockDim.x) dt[i] = st[i];
        }
        __syncthreads();  // `changed` and warp_sums are reused by the next chunk
    }
}
