// src/cuda/snapshot.hpp — a copy of one context's tracked device memory (tracker.hpp) and its
// restore: the memory half of replay on CUDA, shared by kernel replay (replay.cpp, one snapshot
// per replayed launch) and range replay (range_replay.cpp, one at the range's start and one of
// what pass 0 left). snapshot.cpp says where the copy lives and how a restore finds what changed.
//
//   snapshot::memory m;                        // the context held exclusively and drained
//   if (const char* why = m.take(ctx, snapshot::slot::kernel_replay, opt, stats)) ... // declined
//   ... m.restore(stats) between passes, m.checksum(h) for verification ...
//   m.release();                               // its buffers stay with the context for next time
#pragma once

#include "tracker.hpp"

#include "core/replay.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace encore::cuda::snapshot {

/// Which of a context's kept snapshot buffers a snapshot uses: each owner has its own, so a
/// range's start snapshot survives another thread's kernel replay on the context meanwhile.
enum class slot : unsigned char { kernel_replay, range_start, range_end };

struct cache;
struct host_buffer;

/// One snapshot. Every call with the context current and held exclusively (tracker::exclusive_use).
class memory {
public:
    /// Copies the context's covered memory into the slot's shadow (device memory when the GPU has
    /// room, else pinned host memory). Under changed_chunks, where encore's kernels load, the
    /// shadow is sparse and incremental (snapshot.cpp): all-zero chunks keep no copy, and a
    /// snapshot of the layout the slot's last one had copies only the chunks whose hash changed.
    /// A reason (a static sentence) when it cannot; nothing is kept then.
    const char* take(CUcontext ctx, slot s, const core::replay::options& opt, core::replay::memory_stats& out) noexcept;
    /// Writes the snapshot back (changed chunks only where the hashing kernel runs); false when a
    /// copy failed part-way. Regions freed or unmapped since take() are skipped. `pass`: the pass
    /// the restore prepares, `passes`: how many run (0: unknown). With both known, under
    /// changed_chunks, the first restore records the chunks pass 0 changed (the write set), the
    /// restores before passes 2 .. passes - 2 copy only those back (no hashing), and the others
    /// (the one before the last pass included) hash every chunk, checking that nothing outside the
    /// write set changed (else warned once, and every later restore of this snapshot hashes all).
    bool restore(core::replay::memory_stats& out, std::uint64_t pass = 0, std::uint64_t passes = 0) noexcept;
    /// A checksum of the covered bytes now (device hashes where the kernel loads); false when
    /// memory of the snapshot is gone or nothing could be read.
    bool checksum(std::uint64_t& out) noexcept;
    /// How many regions' bytes now differ from the snapshot (read back and compared on the host).
    std::uint64_t differing_regions() noexcept;
    /// Whether every region of the snapshot is still covered memory.
    bool intact() noexcept;
    /// flush_l2(ctx, s) below for the snapshot's context.
    bool flush_l2(CUstream s) noexcept;
    [[nodiscard]] std::size_t bytes() const noexcept { return total_; }
    /// Forgets the snapshot; the shadow's memory stays with the context's slot.
    void release() noexcept;

    struct region {
        CUdeviceptr base;
        std::size_t size;
        std::size_t offset;  // in the shadow
    };

private:
    enum class step : unsigned char { ok, failed, dense };  // dense: the chunked snapshot is not available
    step take_chunks(const char*& why) noexcept;
    step classify(const char*& why) noexcept;
    step update(const char*& why) noexcept;
    bool copy_out(const unsigned* idx, std::size_t count) noexcept;
    [[nodiscard]] bool over_budget(std::size_t bytes, bool on_device) const noexcept;
    bool regions_intact() noexcept;
    bool still_covered(const region& r) const noexcept;
    bool device_checksum(std::uint64_t& out) noexcept;
    bool restore_chunks(core::replay::memory_stats& out, std::uint64_t pass, std::uint64_t passes) noexcept;
    bool write_back(const unsigned* idx, std::size_t count) noexcept;
    bool read_shadow(std::size_t region_index, unsigned char* out) const noexcept;

    CUcontext ctx_ = nullptr;
    core::replay::options opt_{};
    cache* cache_ = nullptr;
    std::vector<region> regions_;
    std::vector<tracker::range> now_;  // covered memory at the last regions_intact()
    std::uint64_t shrinks_ = 0;        // tracker::shrinks() at the snapshot
    std::size_t total_ = 0;
    CUdeviceptr shadow_ = 0;
    const host_buffer* host_ = nullptr;
    bool device_ = false;  // the shadow is device memory
    bool chunks_ = false;  // the chunked (sparse) snapshot of changed_chunks: cache_'s chunk table
    std::size_t n_chunks_ = 0;
    std::size_t copied_ = 0;  // bytes the chunked snapshot copied (SNAPSHOT's bytes_copied)
    // the write set (restore): restores_ so far; w_ the chunks the first one rewrote (recorded on
    // the device in the cache's marks too); ws_ok_ false once a pass wrote outside it
    std::uint64_t restores_ = 0;
    std::vector<unsigned> w_;
    std::uint64_t w_count_ = 0, w_bytes_ = 0;
    bool w_known_ = false, ws_ok_ = true;
    // device checksum: the descriptors it hashes, their count (0 until the first checksum), the
    // hashes read back; verify_failed_: the device path is not tried again for this snapshot
    CUdeviceptr verify_descs_ = 0;
    std::size_t verify_n_ = 0;
    std::vector<unsigned long long> verify_host_;
    bool verify_failed_ = false;
    bool device_used_ = false;  // a checksum of this snapshot came from the device
};

/// What keeps a launch on context c, stream s from being replayed (either kind of replay):
/// memory the tracker does not cover, or a stream that records into a graph instead of running.
enum class obstacle : unsigned char { none, managed, imported, capturing };
obstacle obstacle_in(CUcontext c, CUstream s) noexcept;
/// ENCORE_CUDA_REPLAY_CACHE_CONTROL: whether every pass starts with the L2 flushed.
bool flush_l2_setting() noexcept;
/// Evicts the L2 of ctx's device on stream `s` and leaves it clean (a write over twice its size,
/// then a read of it; snapshot.cpp says why both); false when it cannot on this device (warned
/// once). Kernel and range replay's passes and counted launches outside replay use it.
bool flush_l2(CUcontext ctx, CUstream s) noexcept;
/// The context is gone: the snapshot memory kept for it is forgotten.
void forget(CUcontext c) noexcept;

}  // namespace encore::cuda::snapshot
