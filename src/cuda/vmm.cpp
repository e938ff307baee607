// src/cuda/vmm.cpp — the tracker's VMM part (see tracker.hpp): which virtual address ranges are
// mapped (cuMemMap), which devices may read and write each (cuMemSetAccess), the sizes of the
// physical allocations behind the handles (cuMemCreate, for VMEM_FREE records), and the sizes of
// pinned host allocations (for their FREE records). Also the count of changes that may shrink
// covered() (shrinks(), note_shrink()), which tracker.cpp counts in too: kept here, in the file
// tracker.cpp calls (add_vmm_ranges), so that this one never calls back up into it.
//
// Mappings are kept one entry per mapped piece, keyed by address. cuMemSetAccess and cuMemUnmap
// may name a range that starts or ends inside a piece (the driver refuses a partial unmap, but
// access can be set on part of a mapping): the piece is cut there first, so that every change
// applies to whole entries.
#include "tracker.hpp"

#include <atomic>
#include <iterator>
#include <map>
#include <mutex>

namespace encore::cuda::tracker {
namespace {

struct mapping {
    std::size_t size;
    std::size_t offset;  // into the handle's physical memory
    CUmemGenericAllocationHandle handle;
    std::uint64_t readwrite = 0;  // bit d: device ordinal d may read and write it
};
using mapping_map = std::map<CUdeviceptr, mapping>;

std::atomic<std::uint64_t> g_shrinks{0};

std::mutex g_vmm_mutex;              // guards the three maps (taken after the tracker's own lock, never before)
auto* g_mappings = new mapping_map;  // never destroyed
auto* g_handles = new std::map<CUmemGenericAllocationHandle, std::size_t>;  // handle -> size
auto* g_host = new std::map<const void*, std::size_t>;                      // pinned host -> size
auto* g_reserved = new std::map<CUdeviceptr, std::size_t>;                  // reserved range -> size

/// The reserved range containing p, as [base, end), or {0, 0}.
std::pair<CUdeviceptr, CUdeviceptr> reservation_of(CUdeviceptr p) {
    auto it = g_reserved->upper_bound(p);
    if (it == g_reserved->begin()) return {0, 0};
    --it;
    if (p >= it->first + it->second) return {0, 0};
    return {it->first, it->first + it->second};
}

/// Cuts the piece containing `at` (if any starts before it) in two at `at`.
void cut(mapping_map& m, CUdeviceptr at) {
    auto it = m.upper_bound(at);
    if (it == m.begin()) return;
    --it;
    const CUdeviceptr base = it->first;
    mapping& piece = it->second;
    if (at <= base || at >= base + piece.size) return;
    const std::size_t head = at - base;
    mapping tail = piece;
    tail.size = piece.size - head;
    tail.offset = piece.offset + head;
    piece.size = head;
    m.emplace_hint(std::next(it), at, tail);
}

/// The entries inside [p, p + size) after cutting at both ends.
std::pair<mapping_map::iterator, mapping_map::iterator> whole_entries(CUdeviceptr p, std::size_t size) {
    cut(*g_mappings, p);
    cut(*g_mappings, p + size);
    return {g_mappings->lower_bound(p), g_mappings->lower_bound(p + size)};
}

}  // namespace

std::uint64_t shrinks() noexcept { return g_shrinks.load(std::memory_order_acquire); }
void note_shrink() noexcept { g_shrinks.fetch_add(1, std::memory_order_acq_rel); }

void on_vmm_create(CUmemGenericAllocationHandle h, std::size_t size) noexcept {
    std::lock_guard lk(g_vmm_mutex);
    try {
        (*g_handles)[h] = size;
    } catch (...) {
    }
}

void on_vmm_release(CUmemGenericAllocationHandle h) noexcept {
    std::lock_guard lk(g_vmm_mutex);
    g_handles->erase(h);  // its mappings stay valid until unmapped (the driver frees it then)
}

std::size_t vmm_size_of(CUmemGenericAllocationHandle h) noexcept {
    std::lock_guard lk(g_vmm_mutex);
    const auto it = g_handles->find(h);
    return it != g_handles->end() ? it->second : 0;
}

void on_vmm_reserve(CUdeviceptr p, std::size_t size) noexcept {
    if (size == 0) return;
    std::lock_guard lk(g_vmm_mutex);
    try {
        (*g_reserved)[p] = size;
    } catch (...) {
    }
}

void on_vmm_address_free(CUdeviceptr p) noexcept {
    std::lock_guard lk(g_vmm_mutex);
    g_reserved->erase(p);
    note_shrink();  // adjacent mappings there are no longer one range
}

void on_vmm_map(CUdeviceptr p, std::size_t size, std::size_t offset, CUmemGenericAllocationHandle h) noexcept {
    if (size == 0) return;
    std::lock_guard lk(g_vmm_mutex);
    try {
        // The driver refuses to map over a mapped range; a stale entry (an unmap encore missed)
        // is replaced. No access yet: the program grants it with cuMemSetAccess.
        auto [lo, hi] = whole_entries(p, size);
        if (lo != hi) note_shrink();
        g_mappings->erase(lo, hi);
        g_mappings->emplace(p, mapping{size, offset, h});
    } catch (...) {
    }
}

void on_vmm_access(CUdeviceptr p, std::size_t size, const CUmemAccessDesc* desc, std::size_t count) noexcept {
    if (size == 0 || desc == nullptr) return;
    std::uint64_t grant = 0, revoke = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const CUmemAccessDesc& d = desc[i];
        if (d.location.type != CU_MEM_LOCATION_TYPE_DEVICE || d.location.id < 0 || d.location.id >= 64) continue;
        const std::uint64_t bit = std::uint64_t{1} << d.location.id;
        // Read-only memory is not restored (a kernel cannot change it, and a restore's copy
        // into it would fail): only read-write access covers a range.
        (d.flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? grant : revoke) |= bit;
    }
    std::lock_guard lk(g_vmm_mutex);
    try {
        auto [lo, hi] = whole_entries(p, size);
        for (auto it = lo; it != hi; ++it) it->second.readwrite = (it->second.readwrite & ~revoke) | grant;
        if (revoke != 0) note_shrink();
    } catch (...) {
    }
}

void on_vmm_unmap(CUdeviceptr p, std::size_t size) noexcept {
    if (size == 0) return;
    std::lock_guard lk(g_vmm_mutex);
    try {
        auto [lo, hi] = whole_entries(p, size);
        g_mappings->erase(lo, hi);
        note_shrink();
    } catch (...) {
    }
}

void add_vmm_ranges(std::uint64_t device, std::vector<range>& out) {
    if (device >= 64) return;
    const std::uint64_t bit = std::uint64_t{1} << device;
    std::lock_guard lk(g_vmm_mutex);
    const std::size_t first = out.size();  // the ranges before are allocations: never merged with
    for (const auto& [p, m] : *g_mappings) {
        if ((m.readwrite & bit) == 0) continue;
        // Adjacent to the previous covered mapping, in the same reserved range (one address range
        // the driver knows; a copy may span its mappings): one range.
        if (out.size() > first && out.back().base + out.back().size == p) {
            const auto r = reservation_of(p);
            if (r.first != 0 && r.first <= out.back().base && p + m.size <= r.second) {
                out.back().size += m.size;
                continue;
            }
        }
        out.push_back(range{p, m.size});
    }
}

void on_host_alloc(const void* p, std::size_t size) noexcept {
    std::lock_guard lk(g_vmm_mutex);
    try {
        (*g_host)[p] = size;
    } catch (...) {
    }
}

void on_host_free(const void* p) noexcept {
    std::lock_guard lk(g_vmm_mutex);
    g_host->erase(p);
}

std::size_t host_size_of(const void* p) noexcept {
    std::lock_guard lk(g_vmm_mutex);
    const auto it = g_host->find(p);
    return it != g_host->end() ? it->second : 0;
}

}  // namespace encore::cuda::tracker
