// src/cuda/snapshot.cpp — see snapshot.hpp. Where the copy lives: a device-side shadow when the
// GPU has room for it (free memory above the footprint plus 1 GiB), else pinned host memory (the
// seed's design); either is kept per context and slot for the next snapshot there.
// ENCORE_CUDA_REPLAY_SHADOW=host|device forces one. Restore:
//   full_copy       copies every tracked byte back;
//   changed_chunks  a kernel (chunks.cu) hashes each chunk at snapshot; after a pass another
//                   hashes them again and rewrites only the chunks whose hash changed (device
//                   shadow: in the same kernel; host shadow: the host copies the flagged chunks
//                   back). Restore cost then tracks the bytes written plus one read of the
//                   footprint. Chunks are at least 64 KiB on CUDA (a thread block per chunk).
// Checksum: the hashing kernel of changed_chunks writes one 64-bit hash per chunk into a device
// array; only those (8 bytes per chunk) come back, and the host combines them in chunk order.
// Where the kernel does not load, the covered bytes are read back and hashed on the host (slow:
// ~100 ms per pass for 176 MiB on an H200).
// All driver calls go to the real driver, never through encore's exports.
#include "snapshot.hpp"

#include "real.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>

namespace encore::cuda::snapshot {
// ---- snapshot memory and the hashing kernels ------------------------------------------------
// The snapshot's memory is kept per context between replayed launches (allocating and freeing
// gigabytes per launch cost ~0.5 ms on the device and seconds pinned on the host); it grows when
// a footprint needs more. Used only under the context's exclusive gate.
struct device_buffer {
    CUdeviceptr p = 0;
    std::size_t size = 0;
    /// At least n bytes (contents not kept); false if the GPU has no room.
    bool reserve(std::size_t n) noexcept {
        if (size >= n) return true;
        if (p != 0) real().mem_free(p);
        p = 0;
        size = 0;
        if (real().mem_alloc(&p, n) != CUDA_SUCCESS) {
            p = 0;
            return false;
        }
        size = n;
        return true;
    }
};
/// The host shadow: pinned memory in pieces. Pinning takes the driver ~0.6 s per GiB (measured
/// on an H200 host), during which another GPU's traced launch stream stopped: one 6 GiB
/// cuMemAllocHost stopped it for 3.6 s, 64 MiB pieces for at most 38 ms each (two-GPU run,
/// benchmarks/RESULTS.md). In pieces, with a pause between them so that waiting threads get the
/// driver's lock, other threads wait at most one piece.
struct host_buffer {
    static constexpr std::size_t piece = 32ull << 20;
    std::vector<char*> pieces;
    /// At least n bytes (contents not kept; pieces already there are kept); false if pinned
    /// memory runs out (the pieces allocated so far stay for later).
    bool reserve(std::size_t n) noexcept {
        try {
            pieces.reserve((n + piece - 1) / piece);
        } catch (...) {
            return false;
        }
        while (pieces.size() * piece < n) {
            if (!pieces.empty()) std::this_thread::sleep_for(std::chrono::microseconds(50));
            void* p = nullptr;
            if (real().mem_alloc_host(&p, piece) != CUDA_SUCCESS) return false;
            pieces.push_back(static_cast<char*>(p));
        }
        return true;
    }
    /// f(host, done, len) over [offset, offset + n) of the shadow, split where pieces end; `done`
    /// counts the bytes before this part. False as soon as f is.
    template <class F>
    bool each(std::size_t offset, std::size_t n, F&& f) const {
        for (std::size_t done = 0; done < n;) {
            const std::size_t at = offset + done, in = at % piece;
            const std::size_t len = std::min(n - done, piece - in);
            if (!f(pieces[at / piece] + in, done, len)) return false;
            done += len;
        }
        return true;
    }
};

struct cache {
    device_buffer shadow;
    host_buffer host;
    // changed_chunks
    device_buffer descs, hashes, stats, flags;
    CUmodule module = nullptr;
    CUfunction hash_fn = nullptr, restore_fn = nullptr;
    bool module_failed = false;
    // verification on the device: chunk descriptors (when changed_chunks has none) and the hashes
    device_buffer verify_descs, verify_hashes;
    // cache control: the buffer whose write evicts the L2 (twice its size), and how often it ran
    device_buffer l2_scratch;
    bool l2_failed = false;
    unsigned flushes = 0;
};
namespace {

std::mutex g_cache_mutex;
auto* g_cache = new std::map<std::pair<CUcontext, slot>, cache>;  // never destroyed: the driver frees at exit

cache& cache_of(CUcontext c, slot s) {
    std::lock_guard lk(g_cache_mutex);
    return (*g_cache)[{c, s}];
}

// The PTX of chunks.cu (generated by tools/gen_cuda_ptx.sh).
constexpr const char chunks_ptx[] =
#include "chunks_ptx.inc"
    ;

/// The hashing kernels in the current context (loaded once per context; the driver JIT-compiles
/// them at the first load).
bool load_chunk_kernels(cache& c) noexcept {
    if (c.hash_fn != nullptr) return true;
    if (c.module_failed || real().module_load_data == nullptr || real().module_get_function == nullptr ||
        real().launch_kernel == nullptr)
        return false;
    if (real().module_load_data(&c.module, chunks_ptx) != CUDA_SUCCESS ||
        real().module_get_function(&c.hash_fn, c.module, "encore_hash_chunks") != CUDA_SUCCESS ||
        real().module_get_function(&c.restore_fn, c.module, "encore_restore_chunks") != CUDA_SUCCESS) {
        c.module_failed = true;
        c.hash_fn = c.restore_fn = nullptr;
        return false;
    }
    return true;
}

struct chunk_desc {  // as in chunks.cu
    unsigned long long addr, shadow, bytes;
};

constexpr std::size_t min_chunk = 64 * 1024;
constexpr unsigned chunk_threads = 256;


/// The chunks of `regions` (laid out in order in the shadow, at `shadow` on the device, 0 for
/// none) as the hashing kernels take them.
template <class Regions>
bool chunk_descs(const Regions& regions, CUdeviceptr shadow, std::size_t chunk, std::vector<chunk_desc>& d) noexcept {
    try {
        for (const auto& r : regions)
            for (std::size_t o = 0; o < r.size; o += chunk)
                d.push_back(chunk_desc{r.base + o, shadow != 0 ? shadow + r.offset + o : 0, std::min(chunk, r.size - o)});
    } catch (...) {
        return false;
    }
    return true;
}

}  // namespace

const char* memory::take(CUcontext ctx, slot s, const core::replay::options& opt,
                         core::replay::memory_stats& out) noexcept {
    release();
    ctx_ = ctx;
    opt_ = opt;
    shrinks_ = tracker::shrinks();  // before reading what is covered (a change after it is seen)
    for (const auto& a : tracker::covered(ctx_, current_device())) {
        regions_.push_back(region{a.base, a.size, total_});
        total_ += (a.size + 255) / 256 * 256;  // keeps every region 256-byte aligned in the shadow
    }
    if (total_ > opt_.memory_budget) {
        release();
        return "the snapshot would exceed the memory budget (ENCORE_REPLAY_MEMORY_BUDGET): the launch runs once";
    }
    const char* force = std::getenv("ENCORE_CUDA_REPLAY_SHADOW");
    cache_ = &cache_of(ctx_, s);
    std::size_t free = 0, total = 0;
    bool device = force != nullptr
                      ? std::string_view(force) == "device"
                      : cache_->shadow.size >= total_ ||
                            (real().mem_get_info(&free, &total) == CUDA_SUCCESS && free > total_ + (1ull << 30));
    if (device && total_ > 0) {
        device = cache_->shadow.reserve(total_);
        if (device) shadow_ = cache_->shadow.p;
    }
    if (!device && total_ > 0) {
        if (!cache_->host.reserve(total_)) {
            release();
            return "cannot allocate memory for the snapshot: the launch runs once";
        }
        host_ = &cache_->host;
    }
    for (const auto& r : regions_) {
        const bool c = shadow_ != 0 ? real().dtod(shadow_ + r.offset, r.base, r.size) == CUDA_SUCCESS
                                    : host_->each(r.offset, r.size, [&](char* h, std::size_t done, std::size_t n) {
                                          return real().dtoh(h, r.base + done, n) == CUDA_SUCCESS;
                                      });
        if (!c) {
            release();
            return "copying device memory into the snapshot failed: the launch runs once";
        }
    }
    if (opt_.policy == ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS && total_ > 0) chunks_ = prepare_chunks();
    // Device-to-device copies and kernels are asynchronous to the host: the snapshot is
    // complete only when they are (and a pass on a non-blocking stream must not overlap them).
    if (real().ctx_synchronize() != CUDA_SUCCESS) {
        release();
        return "copying device memory into the snapshot failed: the launch runs once";
    }
    out.bytes = total_;
    out.regions = regions_.size();
    return nullptr;
}

bool memory::restore(core::replay::memory_stats& out) noexcept {
    // A region freed or unmapped since the snapshot must not be written (nor hashed): the
    // others are restored by copy, and the next run_pass ends the loop.
    const bool intact = regions_intact();
    if (chunks_ && intact) return restore_chunks(out);
    bool ok = true;
    for (const auto& r : regions_) {
        if (!intact && !still_covered(r)) continue;
        const bool c = shadow_ != 0 ? real().dtod(r.base, shadow_ + r.offset, r.size) == CUDA_SUCCESS
                                    : host_->each(r.offset, r.size, [&](char* h, std::size_t done, std::size_t n) {
                                          return real().htod(r.base + done, h, n) == CUDA_SUCCESS;
                                      });
        ok = ok && c;
        out.bytes += r.size;
        ++out.regions;
    }
    // Complete before the next pass is launched, on whatever stream it runs.
    return real().ctx_synchronize() == CUDA_SUCCESS && ok;
}


bool memory::checksum(std::uint64_t& out) noexcept {
    if (!regions_intact()) return false;  // never read memory that is gone
    if (device_checksum(out)) return true;
    // A host value does not compare with this snapshot's device ones: no value then.
    if (device_used_) return false;
    std::vector<unsigned char> buf;
    core::replay::checksum64 h;
    for (const auto& r : regions_) {
        try {
            buf.resize(r.size);
        } catch (...) {
            return false;
        }
        if (real().dtoh(buf.data(), r.base, r.size) != CUDA_SUCCESS) return false;
        h.add(buf.data(), buf.size());
    }
    out = h.h;
    return true;
}

/// Whether every snapshot region is still covered memory (checked before each pass and
/// restore; `now_` is what covered() says then). Only the replaying thread can change it
/// (other threads' frees and unmaps wait at the gate), so between those checks it holds.
bool memory::regions_intact() noexcept {
    if (tracker::shrinks() == shrinks_) return true;  // nothing anywhere was freed or unmapped
    try {
        now_ = tracker::covered(ctx_, current_device());
    } catch (...) {
        return false;
    }
    for (const auto& r : regions_)
        if (!still_covered(r)) return false;
    return true;
}
bool memory::still_covered(const region& r) const noexcept {
    // now_ is sorted by address: the range starting at or before r.base must contain r.
    auto it = std::upper_bound(now_.begin(), now_.end(), r.base,
                               [](CUdeviceptr p, const tracker::range& x) { return p < x.base; });
    if (it == now_.begin()) return false;
    --it;
    return r.base + r.size <= it->base + it->size;
}

/// changed_chunks: chunk descriptors and the snapshot's hashes on the device; false (then
/// full_copy restores) when the hashing kernels or their buffers are not available.
bool memory::prepare_chunks() noexcept {
    if (!load_chunk_kernels(*cache_)) {
        core::replay::warn_once(
            "changed_chunks: encore's hashing kernel did not load on this GPU/driver: full_copy is used");
        return false;
    }
    std::vector<chunk_desc> d;
    if (!chunk_descs(regions_, shadow_, std::max<std::size_t>(opt_.chunk_size, min_chunk), d)) return false;
    n_chunks_ = d.size();
    if (!cache_->descs.reserve(n_chunks_ * sizeof(chunk_desc)) || !cache_->hashes.reserve(n_chunks_ * 8) ||
        !cache_->stats.reserve(16) || (shadow_ == 0 && !cache_->flags.reserve(n_chunks_))) {
        core::replay::warn_once("changed_chunks: no device memory for the chunk hashes: full_copy is used");
        return false;
    }
    if (real().htod(cache_->descs.p, d.data(), n_chunks_ * sizeof(chunk_desc)) != CUDA_SUCCESS) return false;
    return launch_chunks(cache_->hash_fn, false);
}

/// The checksum from the device: the hashing kernel writes one hash per chunk (the chunks of
/// changed_chunks when it runs, else the same cut made here once per replayed launch), the
/// host reads those back and folds them in chunk order (checksum64 over the hash array: a
/// change in any chunk, or two chunks swapped, changes the result). Its values are not the
/// host path's for the same bytes; verification compares a launch's passes with each other.
/// False (then the host path runs) when the kernel or its buffers are not available.
bool memory::device_checksum(std::uint64_t& out) noexcept {
    if (cache_ == nullptr || total_ == 0 || verify_failed_) return false;
    if (verify_n_ == 0) {
        verify_failed_ = true;  // until it is ready
        if (!load_chunk_kernels(*cache_)) {
            core::replay::warn_once("checksum: encore's hashing kernel did not load on this GPU/driver: the "
                                    "covered memory is read back and hashed on the host (slow)");
            return false;
        }
        if (chunks_) {
            verify_descs_ = cache_->descs.p;
            verify_n_ = n_chunks_;
        } else {
            std::vector<chunk_desc> d;
            if (!chunk_descs(regions_, 0, std::max<std::size_t>(opt_.chunk_size, min_chunk), d) ||
                !cache_->verify_descs.reserve(d.size() * sizeof(chunk_desc)) ||
                real().htod(cache_->verify_descs.p, d.data(), d.size() * sizeof(chunk_desc)) != CUDA_SUCCESS)
                return false;
            verify_descs_ = cache_->verify_descs.p;
            verify_n_ = d.size();
        }
        try {
            verify_host_.resize(verify_n_);
        } catch (...) {
            return false;
        }
        if (!cache_->verify_hashes.reserve(verify_n_ * 8)) return false;
        verify_failed_ = false;
    }
    unsigned long long n = verify_n_;
    CUdeviceptr descs = verify_descs_, hashes = cache_->verify_hashes.p;
    void* args[] = {&descs, &n, &hashes};
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(verify_n_, 1u << 20));
    // The legacy stream: the context is drained and owned; the copy back waits for the kernel.
    if (real().launch_kernel(cache_->hash_fn, blocks, 1, 1, chunk_threads, 1, 1, 0, nullptr, args, nullptr) !=
            CUDA_SUCCESS ||
        real().dtoh(verify_host_.data(), hashes, verify_n_ * 8) != CUDA_SUCCESS) {
        verify_failed_ = true;
        return false;
    }
    device_used_ = true;
    core::replay::checksum64 h;
    h.add(verify_host_.data(), verify_n_ * 8);
    out = h.h;
    return true;
}

/// Evicts the L2 before a pass: resets persisting lines, then writes the scratch buffer (twice
/// the L2, allocated once per context) on the pass's stream, ahead of the pass's start event,
/// so the write is outside the pass's GPU time. A memset over a buffer larger than the cache
/// is how nvbench flushes (l2flush.cuh); the driver has no call that flushes the L2. False
/// when the device reports no L2 size or the buffer cannot be had (warned once).
bool memory::flush_l2(CUstream s) noexcept {
    if (cache_ == nullptr) return false;
    cache& c = *cache_;
    if (c.l2_scratch.size == 0 && !c.l2_failed) {
        int l2 = 0;
        CUdevice dev = 0;
        c.l2_failed = real().device_get_attribute == nullptr || real().memset_d32_async == nullptr ||
                      real().ctx_get_device == nullptr || real().ctx_get_device(&dev) != CUDA_SUCCESS ||
                      real().device_get_attribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev) != CUDA_SUCCESS ||
                      l2 <= 0 || !c.l2_scratch.reserve(2 * static_cast<std::size_t>(l2));
    }
    if (c.l2_failed) {
        core::replay::warn_once("cache control all (ENCORE_CUDA_REPLAY_CACHE_CONTROL): the L2 cannot be flushed "
                                "on this device/driver (no L2 size or no memory for the scratch buffer): passes "
                                "run with whatever the L2 holds");
        return false;
    }
    if (real().ctx_reset_persisting_l2 != nullptr) real().ctx_reset_persisting_l2();
    // A value that changes every flush: every line is rewritten, whatever the memory held.
    ++c.flushes;
    if (real().memset_d32_async(c.l2_scratch.p, c.flushes, c.l2_scratch.size / 4, s) == CUDA_SUCCESS) return true;
    core::replay::warn_once("cache control all (ENCORE_CUDA_REPLAY_CACHE_CONTROL): writing the L2 scratch buffer "
                            "failed: the passes of this launch run with whatever the L2 holds");
    return false;
}

bool memory::launch_chunks(CUfunction fn, bool restore) noexcept {
    unsigned long long n = n_chunks_;
    CUdeviceptr descs = cache_->descs.p, hashes = cache_->hashes.p, stats = cache_->stats.p;
    CUdeviceptr flags = shadow_ == 0 ? cache_->flags.p : 0;
    void* hash_args[] = {&descs, &n, &hashes};
    void* restore_args[] = {&descs, &n, &hashes, &stats, &flags};
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(n_chunks_, 1u << 20));
    return real().launch_kernel(fn, blocks, 1, 1, chunk_threads, 1, 1, 0, nullptr, restore ? restore_args : hash_args,
                                nullptr) == CUDA_SUCCESS;
}

bool memory::restore_chunks(core::replay::memory_stats& out) noexcept {
    if (real().memset_d8(cache_->stats.p, 0, 16) != CUDA_SUCCESS || !launch_chunks(cache_->restore_fn, true))
        return false;
    unsigned long long stats[2] = {0, 0};
    if (real().dtoh(stats, cache_->stats.p, sizeof(stats)) != CUDA_SUCCESS) return false;  // waits for the kernel
    out.regions = stats[0];
    out.bytes = stats[1];
    if (shadow_ != 0 || stats[0] == 0) return real().ctx_synchronize() == CUDA_SUCCESS;
    // Host shadow: the kernel flagged the chunks; copy those back, neighbours in one copy.
    std::vector<unsigned char> flags;
    std::vector<chunk_desc> d;
    try {
        flags.resize(n_chunks_);
        d.resize(n_chunks_);
    } catch (...) {
        return false;
    }
    if (real().dtoh(flags.data(), cache_->flags.p, n_chunks_) != CUDA_SUCCESS ||
        real().dtoh(d.data(), cache_->descs.p, n_chunks_ * sizeof(chunk_desc)) != CUDA_SUCCESS)
        return false;
    // Host offsets: regions are laid out in order, chunks in order within each.
    std::size_t ci = 0;
    for (const auto& r : regions_) {
        for (std::size_t o = 0; o < r.size && ci < n_chunks_;) {
            if (flags[ci] == 0) {
                o += d[ci].bytes;
                ++ci;
                continue;
            }
            std::size_t len = 0;
            const std::size_t start = o;
            while (ci < n_chunks_ && o < r.size && flags[ci] != 0) {
                len += d[ci].bytes;
                o += d[ci].bytes;
                ++ci;
            }
            if (!host_->each(r.offset + start, len, [&](char* h, std::size_t done, std::size_t n) {
                    return real().htod(r.base + start + done, h, n) == CUDA_SUCCESS;
                }))
                return false;
        }
    }
    return real().ctx_synchronize() == CUDA_SUCCESS;
}


bool memory::intact() noexcept { return regions_intact(); }

bool memory::read_shadow(const region& r, unsigned char* out) const noexcept {
    if (shadow_ != 0) return real().dtoh(out, shadow_ + r.offset, r.size) == CUDA_SUCCESS;
    return host_->each(r.offset, r.size, [&](char* h, std::size_t done, std::size_t n) {
        std::memcpy(out + done, h, n);
        return true;
    });
}

std::uint64_t memory::differing_regions() noexcept {
    // Verification only (ENCORE_REPLAY_VERIFY): a region's live bytes and its copy, both read
    // back; a region that cannot be read counts as differing (the tool is told something is off).
    if (!regions_intact()) return regions_.size();
    std::uint64_t n = 0;
    std::vector<unsigned char> live, kept;
    for (const auto& r : regions_) {
        try {
            live.resize(r.size);
            kept.resize(r.size);
        } catch (...) {
            ++n;
            continue;
        }
        if (real().dtoh(live.data(), r.base, r.size) != CUDA_SUCCESS || !read_shadow(r, kept.data()) ||
            std::memcmp(live.data(), kept.data(), r.size) != 0)
            ++n;
    }
    return n;
}

void memory::release() noexcept {
    // The buffers stay in the context's cache; what this snapshot knew goes.
    cache_ = nullptr;
    regions_.clear();
    now_.clear();
    total_ = 0;
    shadow_ = 0;
    host_ = nullptr;
    chunks_ = false;
    n_chunks_ = 0;
    verify_descs_ = 0;
    verify_n_ = 0;
    verify_failed_ = false;
    device_used_ = false;
}

bool flush_l2_setting() noexcept {
    const char* v = std::getenv("ENCORE_CUDA_REPLAY_CACHE_CONTROL");
    if (v == nullptr || *v == '\0' || std::string_view(v) == "none") return false;
    if (std::string_view(v) == "all") return true;
    core::replay::warn_once("ENCORE_CUDA_REPLAY_CACHE_CONTROL is neither all nor none: ignored (the L2 is not flushed)");
    return false;
}

obstacle obstacle_in(CUcontext c, CUstream s) noexcept {
    const tracker::uncovered u = tracker::uncovered_in(c);
    if (u.managed) return obstacle::managed;
    if (u.imported) return obstacle::imported;
    CUstreamCaptureStatus cap = CU_STREAM_CAPTURE_STATUS_NONE;
    if (real().stream_is_capturing != nullptr && real().stream_is_capturing(s, &cap) == CUDA_SUCCESS &&
        cap != CU_STREAM_CAPTURE_STATUS_NONE)
        return obstacle::capturing;
    return obstacle::none;
}

void forget(CUcontext c) noexcept {
    std::lock_guard lk(g_cache_mutex);
    for (auto it = g_cache->begin(); it != g_cache->end();)
        it = it->first.first == c ? g_cache->erase(it) : std::next(it);  // its buffers and module went with it
}

}  // namespace encore::cuda::snapshot
