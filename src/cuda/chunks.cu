// src/cuda/chunks.cu — the device side of changed_chunks on CUDA: per-chunk hashes of the
// tracked memory, the snapshot's classification and incremental copy, and restores that rewrite
// only the chunks whose hash changed (or a known write set).
//
// Built into PTX (tools/gen_cuda_ptx.sh, output committed as chunks_ptx.inc) because CI compiles
// libencore-cuda without nvcc; the driver JIT-compiles it for the GPU at first use. One thread
// block handles one chunk: 16-byte loads, a per-thread sum of mixed words, a block-wide sum.
// The hash is not cryptographic: a changed chunk goes unnoticed only if its 64-bit hash collides
// with the snapshot's (about 2^-64 per changed chunk for changes that are not adversarial).
// snapshot.cpp says how the host drives these kernels (all on the legacy stream, the context
// drained and held).

#include "chunk_desc.hpp"

__device__ __forceinline__ unsigned long long mix(unsigned long long x) {
    // splitmix64's finalizer: a bijection, so a changed word always changes its term.
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

// The chunk's hash (valid in thread 0); with Zero, *nonzero (every thread) says whether any byte
// of it is not zero. Every thread of the block calls it.
template <bool Zero>
__device__ unsigned long long chunk_hash(const chunk_desc& d, int* nonzero) {
    // 16-byte loads where the chunk allows them (allocations are 256-byte aligned), bytes else.
    const unsigned long long n16 = ((d.addr | d.shadow) & 15) == 0 ? d.bytes / 16 : 0;
    const ulonglong2* p = reinterpret_cast<const ulonglong2*>(d.addr);
    unsigned long long h = 0, any = 0;
    for (unsigned long long i = threadIdx.x; i < n16; i += blockDim.x) {
        const ulonglong2 w = p[i];
        // The word's position enters the term: swapping two words changes the sum.
        h += mix(w.x ^ (2 * i * 0x9e3779b97f4a7c15ull)) + mix(w.y ^ ((2 * i + 1) * 0x9e3779b97f4a7c15ull));
        if (Zero) any |= w.x | w.y;
    }
    const unsigned char* tail = reinterpret_cast<const unsigned char*>(d.addr);
    for (unsigned long long i = n16 * 16 + threadIdx.x; i < d.bytes; i += blockDim.x) {
        h += mix(tail[i] ^ (i << 8) ^ 0x5555555555555555ull);
        if (Zero) any |= tail[i];
    }
    if (Zero) *nonzero = __syncthreads_or(any != 0);
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

// dst <- src (n bytes), or zeros where src is null; the whole block.
__device__ void block_copy(unsigned long long dst, unsigned long long src, unsigned long long n) {
    const unsigned long long n16 = ((dst | src) & 15) == 0 ? n / 16 : 0;
    ulonglong2* d = reinterpret_cast<ulonglong2*>(dst);
    const ulonglong2* s = reinterpret_cast<const ulonglong2*>(src);
    for (unsigned long long i = threadIdx.x; i < n16; i += blockDim.x) d[i] = src != 0 ? s[i] : make_ulonglong2(0, 0);
    unsigned char* dt = reinterpret_cast<unsigned char*>(dst);
    const unsigned char* st = reinterpret_cast<const unsigned char*>(src);
    for (unsigned long long i = n16 * 16 + threadIdx.x; i < n; i += blockDim.x) dt[i] = src != 0 ? st[i] : 0;
}

// One hash per chunk (checksums, the L2 flush's read sweep).
extern "C" __global__ void encore_hash_chunks(const chunk_desc* d, unsigned long long n, unsigned long long* hashes) {
    for (unsigned long long c = blockIdx.x; c < n; c += gridDim.x) {
        const unsigned long long h = chunk_hash<false>(d[c], nullptr);
        if (threadIdx.x == 0) hashes[c] = h;
        __syncthreads();  // warp_sums is reused by the next chunk
    }
}

// A snapshot's first pass over memory: each chunk's hash, and zero[c] = 1 where it is all zero
// (the host gives copies only to the others).
extern "C" __global__ void encore_classify_chunks(const chunk_desc* d, unsigned long long n, unsigned long long* hashes,
                                                  unsigned char* zero) {
    for (unsigned long long c = blockIdx.x; c < n; c += gridDim.x) {
        int nonzero = 0;
        const unsigned long long h = chunk_hash<true>(d[c], &nonzero);
        if (threadIdx.x == 0) {
            hashes[c] = h;
            zero[c] = static_cast<unsigned char>(!nonzero);
        }
        __syncthreads();
    }
}

// Copies the chunks in list[0, count) (every chunk when list is null): to_shadow, live -> shadow
// (chunks without a copy are skipped); else shadow -> live, zeros for a chunk without a copy.
extern "C" __global__ void encore_copy_chunks(const chunk_desc* d, const unsigned* list, unsigned long long count,
                                              int to_shadow) {
    for (unsigned long long k = blockIdx.x; k < count; k += gridDim.x) {
        const chunk_desc& c = d[list != nullptr ? list[k] : k];
        if (to_shadow) {
            if (c.shadow != 0) block_copy(c.shadow, c.addr, c.bytes);
        } else {
            block_copy(c.addr, c.shadow, c.bytes);
        }
    }
}

// An incremental snapshot: each chunk's live hash against hashes[c] (its copy's). A changed chunk
// gets the new hash (stats[0]: chunks, stats[1]: bytes) and, when `copy` and it has a copy in the
// device shadow, is copied there by the block; the others changed (a host shadow, or a chunk that
// had no copy) go to list[stats[2]++] for the host.
extern "C" __global__ void encore_snapshot_chunks(const chunk_desc* d, unsigned long long n, unsigned long long* hashes,
                                                  unsigned long long* stats, unsigned* list, int copy) {
    __shared__ int changed;
    for (unsigned long long c = blockIdx.x; c < n; c += gridDim.x) {
        const unsigned long long h = chunk_hash<false>(d[c], nullptr);
        if (threadIdx.x == 0) {
            changed = h != hashes[c];
            if (changed) {
                hashes[c] = h;
                atomicAdd(&stats[0], 1ull);
                atomicAdd(&stats[1], d[c].bytes);
                if (!copy || d[c].shadow == 0) list[atomicAdd(&stats[2], 1ull)] = static_cast<unsigned>(c);
            }
        }
        __syncthreads();
        if (changed && copy && d[c].shadow != 0) block_copy(d[c].shadow, d[c].addr, d[c].bytes);
        __syncthreads();  // `changed` and warp_sums are reused by the next chunk
    }
}

// A restore: each chunk's live hash against its copy's. Changed chunks go to list[stats[0]++]
// (stats[1]: their bytes); with `copy` (device shadow) the block writes the copy back (zeros for a
// chunk without one), else the host does. mark (optional): mode 1 records mark[c] = changed (the
// write set); mode 2 counts in stats[2] the changed chunks outside it (mark[c] == 0).
extern "C" __global__ void encore_restore_chunks(const chunk_desc* d, unsigned long long n,
                                                 const unsigned long long* hashes, unsigned long long* stats,
                                                 unsigned* list, unsigned char* mark, int mode, int copy) {
    __shared__ int changed;
    for (unsigned long long c = blockIdx.x; c < n; c += gridDim.x) {
        const unsigned long long h = chunk_hash<false>(d[c], nullptr);
        if (threadIdx.x == 0) {
            changed = h != hashes[c];
            if (mode == 1) mark[c] = static_cast<unsigned char>(changed);
            if (changed) {
                list[atomicAdd(&stats[0], 1ull)] = static_cast<unsigned>(c);
                atomicAdd(&stats[1], d[c].bytes);
                if (mode == 2 && mark[c] == 0) atomicAdd(&stats[2], 1ull);
            }
        }
        __syncthreads();
        if (changed && copy) block_copy(d[c].addr, d[c].shadow, d[c].bytes);
        __syncthreads();  // `changed` and warp_sums are reused by the next chunk
    }
}
