// src/hsa/replay_memory_state.hpp — what the three files of replay_memory share (private to them):
// the table of tracked regions (replay_memory_regions.cpp) and the write-protection slots and
// userfaultfd scan (replay_memory_write_tracking.cpp), both used by the snapshots
// (replay_memory.cpp). The files call downward only: replay_memory.cpp ->
// replay_memory_regions.cpp -> replay_memory_write_tracking.cpp (tools/call_cycles.py checks it).
// What a snapshot uses per dispatch (lookups, the scan) is here inline, as it was in one file.
#pragma once

#include "backend/address_set.hpp"
#include "replay_memory.hpp"

#include <sys/ioctl.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

// Hidden: calls between the three files bind directly, as they did within one file (no PLT),
// and none of this is exported from libencore-hsa.
#pragma GCC visibility push(hidden)
namespace encore::hsa::replay_memory::detail {

// ---- the live set -----------------------------------------------------------------------------
// A region's base, size, agent (its `device`) and id (unique: a snapshot recognises a region
// freed and reallocated) are the set's (backend/address_set.hpp); the rest is replay's.
struct region : backend::address_node {
    std::uint64_t executable = 0;  // for module variables; 0 for allocations
    int slot = -1;                 // write-protection slot once armed
    // userfaultfd: pages the last replay here wrote, left unprotected at the next arm (below).
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> warm;
    unsigned warm_arms = 0;
    // Kernel replay's copy of the region, kept between its snapshots (replay_memory.cpp), and
    // whether it is incremental: the copy equals memory except on pages written since write
    // protection was last armed, and the protection stayed armed since (userfaultfd only). Used
    // under the agent's exclusive replay hold; freed with the region.
    host_copy kept;
    bool kept_tracked = false;
};
using region_set = backend::address_set<region>;

// Its lock: frees take it exclusively; snapshots, restores and checksums shared. Never destroyed
// (frees may come at exit).
inline region_set& live() {
    static auto* const set = new region_set;
    return *set;
}

// Bytes of the copies kept between kernel replays (region::kept, every agent): a release keeps a
// copy only while they stay within the replay's memory budget, so keeping copies never holds
// more host memory than one snapshot may.
inline std::atomic<std::uint64_t>& kept_bytes() {
    static std::atomic<std::uint64_t> n{0};
    return n;
}
// A region leaves the set: its write-protection slot and its kept copy go (the erase hook).
void forget(region& r) noexcept;

// ---- write protection (replay_memory_write_tracking.cpp) ----------------------------------------
// A fixed table the SIGSEGV handler reads without locks. A slot, once given to a region, keeps
// its range until the region is freed, so a thread that faulted just before a range was made
// writable again still finds it (and simply retries).
constexpr int max_slots = 16384;
struct wp_slot {
    std::atomic<std::uintptr_t> begin{0};  // page-aligned protected range [begin, end)
    std::atomic<std::uintptr_t> end{0};
    std::atomic<std::uint8_t*> dirty{nullptr};  // one byte per chunk
    std::atomic<std::size_t> chunk{0};
    std::atomic<bool> by_signal{false};  // mprotect + SIGSEGV; else userfaultfd (the handler skips it)
};
extern wp_slot g_slots[max_slots];

inline std::size_t slot_chunks(int slot) noexcept {
    const auto& s = g_slots[slot];
    const std::size_t chunk = s.chunk.load(std::memory_order_relaxed);
    return (s.end.load(std::memory_order_relaxed) - s.begin.load(std::memory_order_relaxed) + chunk - 1) / chunk;
}

// Makes encore's SIGSEGV handler the installed one (at every arm through signals).
bool ensure_handler() noexcept;
// Gives region r a slot covering its whole pages (caller holds live()'s lock exclusively or shared
// with the agent's replay lock: slots of one region are set up by one replay at a time).
bool assign_slot(region& r, std::size_t chunk) noexcept;
void release_slot(region& r) noexcept;
// userfaultfd: the region's warm pages left unprotected at an arm; re-measured at release.
void arm_warm(region& r) noexcept;
void update_warm(region& r, std::uintptr_t b, std::uintptr_t e) noexcept;

// ---- userfaultfd write-protection ----------------------------------------------------------------
// The kernel interfaces newer than the build machine's headers, by their documented values
// (linux/userfaultfd.h, linux/fs.h).
constexpr std::uint64_t uffd_feature_wp_unpopulated = 1ull << 13;
constexpr std::uint64_t uffd_feature_wp_async = 1ull << 15;
struct page_region {
    std::uint64_t start, end, categories;
};
struct pm_scan_arg {
    std::uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted, category_mask,
        category_anyof_mask, return_mask;
};
constexpr unsigned long pagemap_scan = _IOWR('f', 16, pm_scan_arg);
constexpr std::uint64_t page_is_written = 1u << 1;
constexpr std::uint64_t pm_scan_check_wpasync = 1u << 1;
constexpr unsigned long userfaultfd_ioc_new = _IO(0xAA, 0x00);

struct uffd_state {
    int uffd = -1, pagemap = -1;
    pid_t pid = 0;  // a forked child has neither the registrations nor this pagemap
};
extern uffd_state g_uffd;

bool uffd_usable() noexcept;
bool uffd_protect(std::uintptr_t b, std::uintptr_t e, bool on) noexcept;

// Calls each(begin, end) for every run of pages of [b, e) written since write-protection (the
// kernel merges neighbours); false when it cannot tell (the caller then counts all of it changed).
template <class Each>
bool uffd_written(std::uintptr_t b, std::uintptr_t e, Each&& each) noexcept {
    if (!uffd_usable()) return false;
    page_region vec[256];
    for (std::uintptr_t at = b; at < e;) {
        pm_scan_arg scan{sizeof(pm_scan_arg),
                         pm_scan_check_wpasync,
                         at,
                         e,
                         0,
                         reinterpret_cast<std::uintptr_t>(vec),
                         std::size(vec),
                         0,
                         0,
                         page_is_written,
                         0,
                         page_is_written};
        const int got = ::ioctl(g_uffd.pagemap, pagemap_scan, &scan);
        if (got < 0 || scan.walk_end <= at) return false;
        for (int k = 0; k < got; ++k)
            each(static_cast<std::uintptr_t>(vec[k].start), static_cast<std::uintptr_t>(vec[k].end));
        at = scan.walk_end;  // the kernel stops early when its buffer or vec fills
    }
    return true;
}

}  // namespace encore::hsa::replay_memory::detail
#pragma GCC visibility pop
