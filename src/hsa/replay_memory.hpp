// src/hsa/replay_memory.hpp — what a kernel replay snapshots and restores on HSA.
//
// Coverage (the seed's rules): allocations from coarse-grained, non-kernarg pools / regions
// (hsa_amd_memory_pool_allocate, hsa_memory_allocate), classified at allocation and tagged with
// their owning agent (hsa_amd_pointer_info), plus the writable module-scope variables of frozen
// executables. Host, fine-grained and kernarg memory is never covered. The live set is a
// Boost.Intrusive ordered set keyed by base address (the kit's backend::address_set).
//
// Restore policies:
//   full_copy       every covered byte written back (the reference);
//   changed_chunks  only the chunks a pass changed. Change detection is the backend's: where
//                   device memory is this process's memory (encore's software runtime), pages
//                   are write-protected after the snapshot and a SIGSEGV handler records the
//                   first write to each chunk (cost: one fault per changed chunk, nothing per
//                   unchanged byte); elsewhere (ROCr) each chunk is read back and compared with
//                   the snapshot, so only changed chunks are written back. With userfaultfd,
//                   kernel replay's snapshots are incremental too: the copies are kept between
//                   dispatches and the regions stay protected, so a snapshot copies only the
//                   pages written since the last (replay_memory.cpp, docs/replay.md).
#pragma once

#include "core/replay.hpp"

#include <hsa/hsa.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace encore::hsa::replay_memory {

/// Turns allocation tracking on (the replay service exists). Before any allocation is seen.
void enable() noexcept;
[[nodiscard]] bool enabled() noexcept;

/// An allocation the runtime returned: covered if it is coarse-grained, not kernarg, and owned
/// by a GPU agent (pointer info).
void on_allocate(void* base, std::size_t size, bool coarse_grained, bool kernarg) noexcept;
/// Before the runtime frees it.
void on_free(void* base) noexcept;
/// Writable module-scope variables of a frozen executable / its destruction.
void on_executable_frozen(hsa_executable_t exe) noexcept;
void on_executable_destroyed(hsa_executable_t exe) noexcept;
/// The agents owning covered variables of `exe` (ascending).
[[nodiscard]] std::vector<std::uint64_t> agents_of(hsa_executable_t exe) noexcept;
/// Everything covered on `agent` (bytes).
[[nodiscard]] std::uint64_t footprint(std::uint64_t agent) noexcept;
/// Whether changed_chunks can use write protection here (device memory is host memory).
[[nodiscard]] bool write_tracking_available() noexcept;

/// Host memory holding a region's copy: large ones are mapped with their pages populated at once
/// (replay_memory.cpp says why), smaller ones come from the heap.
struct copy_free {
    std::size_t mapped = 0;  // bytes mapped, 0: from new[]
    void operator()(std::byte* p) const noexcept;
};
using host_copy = std::unique_ptr<std::byte[], copy_free>;
/// A copy of n bytes (null when out of memory).
host_copy new_copy(std::size_t n) noexcept;

/// The covered memory of one agent, captured for one replayed dispatch.
class snapshot {
public:
    snapshot() = default;
    snapshot(const snapshot&) = delete;
    snapshot& operator=(const snapshot&) = delete;
    ~snapshot();

    /// Captures every covered region of `agent`. A static reason on failure (over budget,
    /// allocation or copy failure); nothing is held then.
    /// `track_writes` false: no write protection even under changed_chunks (a restore then
    /// compares each chunk and writes those that differ; range replay's snapshots).
    const char* take(std::uint64_t agent, const core::replay::options& opt, core::replay::memory_stats& out,
                     bool track_writes = true) noexcept;
    /// Under changed_chunks where write tracking is available: write-protects the captured regions
    /// now (memory must equal the capture: right after take or a restore), so later restores write
    /// only what changed since. Range replay arms once its agent is held and memory is reset.
    void arm() noexcept;
    /// How many captured regions' bytes differ from the capture now (range replay's divergence).
    [[nodiscard]] std::uint64_t differing_regions() noexcept;
    /// Writes back what changed (policy); false when some region could not be written.
    bool restore(core::replay::memory_stats& out) noexcept;
    /// 64-bit checksum of the covered bytes as they are now.
    bool checksum(std::uint64_t& out) noexcept;
    /// Stops write tracking and frees the copies.
    void release() noexcept;

private:
    void arm_locked() noexcept;
    struct saved {
        std::uintptr_t base;
        std::size_t size;
        std::uint64_t id;  // the tracked region it was taken from (re-validated before use)
        host_copy copy;
        int slot;  // write-protection slot, -1 if none
        // The copy was brought up to date incrementally: the region is still write-protected
        // but for these runs of pages (written since the last arm), to protect again.
        bool incremental = false;
        std::vector<std::pair<std::uintptr_t, std::uintptr_t>> written;
    };
    std::vector<saved> regions_;
    encore_replay_snapshot_policy_t policy_ = ENCORE_REPLAY_SNAPSHOT_FULL_COPY;
    std::uint64_t chunk_ = 0;
    bool tracked_ = false;  // write protection armed
    // Kernel replay's snapshot under changed_chunks with write tracking: its copies are kept in
    // the regions between snapshots and, where userfaultfd tracks the region, brought up to date
    // from the pages written since instead of copied whole (replay_memory.cpp).
    bool keeper_ = false;
    std::uint64_t budget_ = 0;  // the options' memory budget: bounds the copies kept

    friend class delta;
};

/// The chunks in which memory differs from a snapshot, with their bytes: range replay keeps what
/// pass 0 left as changes over the range's start (one compare, no second full copy).
class delta {
public:
    /// Compares the memory of `base`'s regions with it now, keeping the chunks that differ. A
    /// static reason on failure (nothing kept then).
    const char* take(const snapshot& base) noexcept;
    /// Writes what differs from `base` overlaid with the kept chunks (compares every chunk, writes
    /// those that differ). false when some chunk could not be written.
    bool restore(const snapshot& base, core::replay::memory_stats& out) noexcept;
    /// How many of `base`'s regions now differ from `base` overlaid with the kept chunks.
    [[nodiscard]] std::uint64_t differing_regions(const snapshot& base) noexcept;
    [[nodiscard]] std::uint64_t bytes() const noexcept { return bytes_; }
    void release() noexcept {
        pieces_.clear();
        bytes_ = 0;
    }

private:
    struct piece {
        std::uintptr_t addr;
        std::size_t len;
        std::unique_ptr<std::byte[]> bytes;
    };
    // Visits every chunk of `base`'s live regions with the bytes it should hold: f(addr, len, want).
    template <class F>
    bool for_each_chunk(const snapshot& base, F&& f) noexcept;
    std::vector<piece> pieces_;  // ascending by address
    std::uint64_t bytes_ = 0;
};

}  // namespace encore::hsa::replay_memory
