// test/cuda/fake_chunks.cpp — the fake driver's stand-in for encore's own kernels (src/cuda/chunks.cu):
// with ENCORE_FAKE_CUDA_CHUNK_KERNELS=1, cuModuleLoadData of encore's PTX (the text naming
// encore_restore_chunks) gives a module of host functions doing what chunks.cu's kernels do, so
// changed_chunks' chunked snapshot (classification, incremental copies, restores, the write set)
// runs on the fake driver. Without it the PTX does not load, as on a driver that rejects it, and
// encore falls back to full_copy (what the other tests check). The hash is chunks.cu's formula.
#include "fake_driver.h"

#include "cuda/chunk_desc.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

// Runs per kernel, in the module's order (fake_chunk_kernel_calls below).
std::atomic<unsigned long long> g_calls[5];


unsigned long long mix(unsigned long long x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

unsigned long long chunk_hash(const chunk_desc& d, bool* nonzero = nullptr) {
    const unsigned long long n16 = ((d.addr | d.shadow) & 15) == 0 ? d.bytes / 16 : 0;
    const auto* p = reinterpret_cast<const unsigned char*>(d.addr);
    unsigned long long h = 0, any = 0;
    for (unsigned long long i = 0; i < n16; ++i) {
        unsigned long long x = 0, y = 0;
        std::memcpy(&x, p + 16 * i, 8);
        std::memcpy(&y, p + 16 * i + 8, 8);
        h += mix(x ^ (2 * i * 0x9e3779b97f4a7c15ull)) + mix(y ^ ((2 * i + 1) * 0x9e3779b97f4a7c15ull));
        any |= x | y;
    }
    for (unsigned long long i = n16 * 16; i < d.bytes; ++i) {
        h += mix(p[i] ^ (i << 8) ^ 0x5555555555555555ull);
        any |= p[i];
    }
    if (nonzero != nullptr) *nonzero = any != 0;
    return mix(h + d.bytes);
}

void block_copy(unsigned long long dst, unsigned long long src, unsigned long long n) {
    if (src != 0)
        std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
    else
        std::memset(reinterpret_cast<void*>(dst), 0, n);
}

template <class T>
T arg(void** params, int i) {
    T v;
    std::memcpy(&v, params[i], sizeof v);
    return v;
}

void hash_chunks(const unsigned*, const unsigned*, void** params) {
    ++g_calls[0];
    const auto* d = arg<const chunk_desc*>(params, 0);
    const auto n = arg<unsigned long long>(params, 1);
    auto* hashes = arg<unsigned long long*>(params, 2);
    for (unsigned long long c = 0; c < n; ++c) hashes[c] = chunk_hash(d[c]);
}

void classify_chunks(const unsigned*, const unsigned*, void** params) {
    ++g_calls[1];
    const auto* d = arg<const chunk_desc*>(params, 0);
    const auto n = arg<unsigned long long>(params, 1);
    auto* hashes = arg<unsigned long long*>(params, 2);
    auto* zero = arg<unsigned char*>(params, 3);
    for (unsigned long long c = 0; c < n; ++c) {
        bool nonzero = false;
        hashes[c] = chunk_hash(d[c], &nonzero);
        zero[c] = nonzero ? 0 : 1;
    }
}

void copy_chunks(const unsigned*, const unsigned*, void** params) {
    ++g_calls[2];
    const auto* d = arg<const chunk_desc*>(params, 0);
    const auto* list = arg<const unsigned*>(params, 1);
    const auto count = arg<unsigned long long>(params, 2);
    const int to_shadow = arg<int>(params, 3);
    for (unsigned long long k = 0; k < count; ++k) {
        const chunk_desc& c = d[list != nullptr ? list[k] : k];
        if (to_shadow != 0) {
            if (c.shadow != 0) block_copy(c.shadow, c.addr, c.bytes);
        } else {
            block_copy(c.addr, c.shadow, c.bytes);
        }
    }
}

void snapshot_chunks(const unsigned*, const unsigned*, void** params) {
    ++g_calls[3];
    const auto* d = arg<const chunk_desc*>(params, 0);
    const auto n = arg<unsigned long long>(params, 1);
    auto* hashes = arg<unsigned long long*>(params, 2);
    auto* stats = arg<unsigned long long*>(params, 3);
    auto* list = arg<unsigned*>(params, 4);
    const int copy = arg<int>(params, 5);
    for (unsigned long long c = 0; c < n; ++c) {
        const unsigned long long h = chunk_hash(d[c]);
        if (h == hashes[c]) continue;
        hashes[c] = h;
        ++stats[0];
        stats[1] += d[c].bytes;
        if (copy == 0 || d[c].shadow == 0)
            list[stats[2]++] = static_cast<unsigned>(c);
        else
            block_copy(d[c].shadow, d[c].addr, d[c].bytes);
    }
}

void restore_chunks(const unsigned*, const unsigned*, void** params) {
    ++g_calls[4];
    const auto* d = arg<const chunk_desc*>(params, 0);
    const auto n = arg<unsigned long long>(params, 1);
    const auto* hashes = arg<const unsigned long long*>(params, 2);
    auto* stats = arg<unsigned long long*>(params, 3);
    auto* list = arg<unsigned*>(params, 4);
    auto* mark = arg<unsigned char*>(params, 5);
    const int mode = arg<int>(params, 6), copy = arg<int>(params, 7);
    for (unsigned long long c = 0; c < n; ++c) {
        const bool changed = chunk_hash(d[c]) != hashes[c];
        if (mode == 1) mark[c] = changed ? 1 : 0;
        if (!changed) continue;
        list[stats[0]++] = static_cast<unsigned>(c);
        stats[1] += d[c].bytes;
        if (mode == 2 && mark[c] == 0) ++stats[2];
        if (copy != 0) block_copy(d[c].addr, d[c].shadow, d[c].bytes);
    }
}

const fake_cuda_module g_chunk_module = {5,
                                         {{"encore_hash_chunks", &hash_chunks, nullptr},
                                          {"encore_classify_chunks", &classify_chunks, nullptr},
                                          {"encore_copy_chunks", &copy_chunks, nullptr},
                                          {"encore_snapshot_chunks", &snapshot_chunks, nullptr},
                                          {"encore_restore_chunks", &restore_chunks, nullptr}}};

}  // namespace

const fake_cuda_module* fake_chunk_module(const void* image) {
    const char* on = std::getenv("ENCORE_FAKE_CUDA_CHUNK_KERNELS");
    if (on == nullptr || std::strcmp(on, "1") != 0) return nullptr;
    unsigned count = 0;
    std::memcpy(&count, image, sizeof count);
    if (count <= 8) return nullptr;  // a test program's table (fake_driver.h), not text
    return std::strstr(static_cast<const char*>(image), ".entry encore_restore_chunks") != nullptr ? &g_chunk_module
                                                                                                   : nullptr;
}

/// How many times the stand-in of encore's kernel `name` ran (for the tests, through dlsym).
extern "C" __attribute__((visibility("default"))) unsigned long long fake_chunk_kernel_calls(const char* name) {
    for (unsigned i = 0; i < g_chunk_module.count; ++i)
        if (std::string_view(g_chunk_module.kernels[i].name) == name) return g_calls[i].load();
    return 0;
}
