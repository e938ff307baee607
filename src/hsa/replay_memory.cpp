// src/hsa/replay_memory.cpp — what a kernel replay snapshots and restores on HSA (replay_memory.hpp):
// snapshots, restores, checksums and deltas of the covered memory. The table of covered memory is
// replay_memory_regions.cpp; which pages were written, replay_memory_write_tracking.cpp (userfaultfd
// write-protection read back with PAGEMAP_SCAN; a SIGSEGV handler where the kernel has neither).
#include "replay_memory.hpp"
#include "replay_memory_state.hpp"

#include "runtime.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>

namespace encore::hsa::replay_memory {

using namespace detail;

namespace {

// ---- copies through the runtime's own functions ---------------------------------------------
bool copy(void* dst, const void* src, std::size_t n) noexcept {
    return n == 0 || runtime().core.hsa_memory_copy_fn(dst, src, n) == HSA_STATUS_SUCCESS;
}

}  // namespace

// A first snapshot writes every page of a fresh copy: faulting them in one at a time cost about
// twice what populating the mapping at once does (1 GiB on the test VM: ~1.3 s against ~0.67 s
// with the copy). (Transparent huge pages were slower still there: the kernel compacted memory
// on every fault, 11 s for the GiB.)
void copy_free::operator()(std::byte* p) const noexcept {
    if (mapped != 0)
        ::munmap(p, mapped);
    else
        delete[] p;
}
host_copy new_copy(std::size_t n) noexcept {
    if (n >= (std::size_t{1} << 20)) {
        void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p != MAP_FAILED) return host_copy(static_cast<std::byte*>(p), copy_free{n});
    }
    return host_copy(new (std::nothrow) std::byte[n], copy_free{});
}

namespace {

// Brings a kept copy up to date from the pages written since write protection was armed (the
// passes' and the program's since, all of them: userfaultfd sees every write to the range) and
// the partial pages at either end, which are not tracked. false: it cannot tell (a forked child,
// a scan or copy that failed): the caller copies the region whole.
bool update_kept(const region& r, std::byte* c, std::uint64_t& copied,
                 std::vector<std::pair<std::uintptr_t, std::uintptr_t>>& written) noexcept {
    if (r.slot < 0 || g_slots[r.slot].by_signal.load(std::memory_order_relaxed)) return false;
    const auto& w = g_slots[r.slot];
    const std::uintptr_t b = w.begin.load(std::memory_order_relaxed), e = w.end.load(std::memory_order_relaxed);
    bool ok = copy(c, reinterpret_cast<const void*>(r.base), b - r.base) &&
              copy(c + (e - r.base), reinterpret_cast<const void*>(e), r.base + r.size - e);
    std::uint64_t n = (b - r.base) + (r.base + r.size - e);
    const bool scanned = uffd_written(b, e, [&](std::uintptr_t wb, std::uintptr_t we) {
        ok = ok && copy(c + (wb - r.base), reinterpret_cast<const void*>(wb), we - wb);
        n += we - wb;
        try {
            written.emplace_back(wb, we);
        } catch (...) {
            ok = false;
        }
    });
    if (!scanned || !ok) {
        written.clear();
        return false;
    }
    copied += n;
    return true;
}

}  // namespace

snapshot::~snapshot() { release(); }

const char* snapshot::take(std::uint64_t agent, const core::replay::options& opt, core::replay::memory_stats& out,
                           bool track_writes) noexcept {
    release();
    policy_ = opt.policy;
    chunk_ = opt.chunk_size;
    keeper_ = track_writes && policy_ == ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS && write_tracking_available();
    budget_ = opt.memory_budget;
    // Shared: frees wait until the copies are done (a region is never copied while freed).
    const auto lk = live().lock_shared();
    const std::uint64_t total = backend::bytes_of(live().of_device(agent));
    if (total > opt.memory_budget)
        return "the snapshot would exceed the memory budget (ENCORE_REPLAY_MEMORY_BUDGET): the dispatch runs once";
    std::uint64_t copied = 0;
    try {
        for (auto& r : live().of_device(agent)) {
            host_copy c;
            std::vector<std::pair<std::uintptr_t, std::uintptr_t>> written;
            bool current = false;
            if (keeper_ && r.kept) {
                kept_bytes().fetch_sub(r.size, std::memory_order_relaxed);
                c = std::move(r.kept);  // this region's copy from the last kernel replay here
                current = r.kept_tracked && update_kept(r, c.get(), copied, written);
            }
            r.kept_tracked = false;  // until this snapshot's release says otherwise
            if (!c) c = new_copy(r.size);
            if (!c) {
                regions_.clear();
                return "cannot allocate host memory for the snapshot: the dispatch runs once";
            }
            if (!current) {
                if (!copy(c.get(), reinterpret_cast<const void*>(r.base), r.size)) {
                    regions_.clear();
                    return "copying device memory into the snapshot failed: the dispatch runs once";
                }
                copied += r.size;
            }
            regions_.push_back(saved{r.base, r.size, r.id, std::move(c), -1, current, std::move(written)});
        }
    } catch (...) {
        regions_.clear();
        return "cannot allocate host memory for the snapshot: the dispatch runs once";
    }
    out.bytes = total;
    out.regions = regions_.size();
    out.copied = copied;
    if (track_writes) arm_locked();
    return nullptr;
}

void snapshot::arm() noexcept {
    const auto lk = live().lock_shared();
    arm_locked();
}

// Caller holds live()'s lock (shared).
void snapshot::arm_locked() noexcept {
    if (tracked_ || policy_ != ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS || !write_tracking_available()) return;
    tracked_ = true;
    bool handler_checked = false, handler_ok = false;
    for (auto& s : regions_) {
        region* r = live().find(s.base);
        if (r == nullptr || r->id != s.id) continue;
        r->kept_tracked = false;                 // protecting anew forgets what was written since the kept copy
        if (!assign_slot(*r, chunk_)) continue;  // compared instead
        s.slot = r->slot;
        auto& w = g_slots[s.slot];
        std::memset(w.dirty.load(std::memory_order_relaxed), 0, slot_chunks(s.slot));
        const std::uintptr_t b = w.begin.load(std::memory_order_relaxed), e = w.end.load(std::memory_order_relaxed);
        bool armed = false;
        if (!w.by_signal.load(std::memory_order_relaxed)) {
            if (s.incremental) {
                // Still protected since the last replay but for the pages written since: those
                // are protected again (protecting a whole GiB walks every page: ~20 ms).
                armed = true;
                for (const auto& [wb, we] : s.written) armed = uffd_protect(wb, we, true) && armed;
                if (!armed) armed = uffd_protect(b, e, true);
            } else {
                armed = uffd_protect(b, e, true);
            }
            s.written.clear();
            s.written.shrink_to_fit();
            if (armed) arm_warm(*r);
        } else {
            if (!handler_checked) handler_ok = ensure_handler();  // once per snapshot, before any fault
            handler_checked = true;
            armed = handler_ok && ::mprotect(reinterpret_cast<void*>(b), e - b, PROT_READ) == 0;
        }
        // Cannot track this one: every chunk counts as changed.
        if (!armed) std::memset(w.dirty.load(std::memory_order_relaxed), 1, slot_chunks(s.slot));
    }
}

bool snapshot::restore(core::replay::memory_stats& out) noexcept {
    // Fault injection for the test of the abort path (docs/replay.md): a restore that fails.
    static const bool fail_for_testing = std::getenv("ENCORE_REPLAY_TEST_FAIL_RESTORE") != nullptr;
    if (fail_for_testing) return false;
    const auto lk = live().lock_shared();
    bool ok = true;
    std::unique_ptr<std::byte[]> staging;
    for (auto& s : regions_) {
        const region* r = live().find(s.base);
        if (r == nullptr || r->id != s.id) continue;  // freed during the replay: nothing to restore
        auto* dev = reinterpret_cast<std::byte*>(s.base);
        const std::byte* saved_bytes = s.copy.get();
        ++out.regions;
        if (policy_ == ENCORE_REPLAY_SNAPSHOT_FULL_COPY) {
            ok = copy(dev, saved_bytes, s.size) && ok;
            out.bytes += s.size;
            continue;
        }
        // changed_chunks
        std::uintptr_t pb = s.base, pe = s.base;  // the write-tracked part
        if (s.slot >= 0) {
            auto& w = g_slots[s.slot];
            pb = w.begin.load(std::memory_order_relaxed);
            pe = w.end.load(std::memory_order_relaxed);
            std::uint8_t* d = w.dirty.load(std::memory_order_relaxed);
            const std::size_t n = slot_chunks(s.slot);
            bool from_scan = false;  // restored from the kernel's list of written pages
            if (!w.by_signal.load(std::memory_order_relaxed)) {
                // userfaultfd: the pages written since the snapshot, whatever the chunk size
                // (cumulative: a page written in an earlier pass stays written and unprotected,
                // so copying into it faults no more; a whole chunk would fault on its pages
                // not written yet).
                bool tracked_ok = true;
                std::uint64_t bytes = 0;
                const bool scanned = uffd_written(pb, pe, [&](std::uintptr_t wb, std::uintptr_t we) {
                    tracked_ok = copy(reinterpret_cast<void*>(wb), saved_bytes + (wb - s.base), we - wb) && tracked_ok;
                    bytes += we - wb;
                });
                out.bytes += bytes;
                ok = ok && tracked_ok;
                if (!scanned)
                    std::memset(d, 1, n);  // every chunk: below (what was copied is copied again)
                else
                    from_scan = true;
            }
            // A chunk written once stays writable and is restored before every later pass
            // (a replayed kernel writes the same places each pass, its inputs being identical):
            // one page fault per chunk per replayed dispatch, no system call per pass, and
            // neighbouring chunks are copied as one run.
            for (std::size_t c = 0; c < n && !from_scan;) {
                if (__atomic_load_n(&d[c], __ATOMIC_RELAXED) == 0) {
                    ++c;
                    continue;
                }
                std::size_t e = c + 1;
                while (e < n && __atomic_load_n(&d[e], __ATOMIC_RELAXED) != 0) ++e;
                const std::uintptr_t cb = pb + c * chunk_;
                const std::size_t len = std::min<std::uintptr_t>(pb + e * chunk_, pe) - cb;
                ok = copy(reinterpret_cast<void*>(cb), saved_bytes + (cb - s.base), len) && ok;
                out.bytes += len;
                c = e;
            }
        }
        // The rest (no write tracking, or partial pages at either end): read back and compare.
        auto compare_range = [&](std::uintptr_t b, std::uintptr_t e) {
            for (std::uintptr_t cb = b; cb < e; cb += chunk_) {
                const std::size_t len = std::min<std::uintptr_t>(cb + chunk_, e) - cb;
                const std::byte* want = saved_bytes + (cb - s.base);
                const std::byte* now = reinterpret_cast<const std::byte*>(cb);
                if (!write_tracking_available()) {  // device memory is not ours to read directly
                    if (!staging) staging.reset(new (std::nothrow) std::byte[chunk_]);
                    if (!staging || !copy(staging.get(), reinterpret_cast<const void*>(cb), len)) {
                        ok = copy(reinterpret_cast<void*>(cb), want, len) && ok;  // cannot compare: write it
                        out.bytes += len;
                        continue;
                    }
                    now = staging.get();
                }
                if (std::memcmp(now, want, len) != 0) {
                    ok = copy(reinterpret_cast<void*>(cb), want, len) && ok;
                    out.bytes += len;
                }
            }
        };
        if (s.slot >= 0) {
            compare_range(s.base, pb);
            compare_range(pe, s.base + s.size);
        } else {
            compare_range(s.base, s.base + s.size);
        }
    }
    return ok;
}

bool snapshot::checksum(std::uint64_t& out) noexcept {
    const auto lk = live().lock_shared();
    core::replay::checksum64 h;
    std::unique_ptr<std::byte[]> staging(new (std::nothrow) std::byte[1u << 20]);
    if (!staging) return false;
    for (const auto& s : regions_) {
        const region* r = live().find(s.base);
        if (r == nullptr || r->id != s.id) continue;
        for (std::size_t off = 0; off < s.size; off += (1u << 20)) {
            const std::size_t len = std::min<std::size_t>(1u << 20, s.size - off);
            if (!copy(staging.get(), reinterpret_cast<const void*>(s.base + off), len)) return false;
            h.add(staging.get(), len);
        }
    }
    out = h.h;
    return true;
}

std::uint64_t snapshot::differing_regions() noexcept {
    const auto lk = live().lock_shared();
    std::uint64_t n = 0;
    std::unique_ptr<std::byte[]> staging(new (std::nothrow) std::byte[1u << 20]);
    if (!staging) return 0;
    for (const auto& s : regions_) {
        const region* r = live().find(s.base);
        if (r == nullptr || r->id != s.id) continue;
        for (std::size_t off = 0; off < s.size; off += (1u << 20)) {
            const std::size_t len = std::min<std::size_t>(1u << 20, s.size - off);
            // Read back (device memory may not be host memory), then compare.
            if (!copy(staging.get(), reinterpret_cast<const void*>(s.base + off), len) ||
                std::memcmp(staging.get(), s.copy.get() + off, len) != 0) {
                ++n;
                break;
            }
        }
    }
    return n;
}

// ---- delta ----------------------------------------------------------------------------------------
template <class F>
bool delta::for_each_chunk(const snapshot& base, F&& f) noexcept {
    const auto lk = live().lock_shared();
    const std::size_t chunk = base.chunk_ != 0 ? base.chunk_ : 4096;
    std::size_t next = 0;  // the first piece not passed yet
    for (const auto& s : base.regions_) {
        const region* r = live().find(s.base);
        if (r == nullptr || r->id != s.id) continue;  // freed: nothing to compare or restore
        for (std::uintptr_t cb = s.base; cb < s.base + s.size; cb += chunk) {
            const std::size_t len = std::min<std::uintptr_t>(cb + chunk, s.base + s.size) - cb;
            while (next < pieces_.size() && pieces_[next].addr < cb) ++next;
            const bool kept = next < pieces_.size() && pieces_[next].addr == cb;
            if (!f(cb, len, kept ? pieces_[next].bytes.get() : s.copy.get() + (cb - s.base), s.base)) return false;
        }
    }
    return true;
}

namespace {
// Reads `len` bytes of device memory at `addr` for a comparison: directly where device memory is
// this process's memory, else into `staging` (null when that copy failed).
const std::byte* read_for_compare(std::uintptr_t addr, std::size_t len, std::unique_ptr<std::byte[]>& staging,
                                  std::size_t staging_size) noexcept {
    if (write_tracking_available()) return reinterpret_cast<const std::byte*>(addr);
    if (!staging) staging.reset(new (std::nothrow) std::byte[staging_size]);
    if (!staging || !copy(staging.get(), reinterpret_cast<const void*>(addr), len)) return nullptr;
    return staging.get();
}
}  // namespace

const char* delta::take(const snapshot& base) noexcept {
    release();
    std::unique_ptr<std::byte[]> staging;
    const std::size_t chunk = base.chunk_ != 0 ? base.chunk_ : 4096;
    std::vector<piece> out;
    const bool ok = for_each_chunk(base, [&](std::uintptr_t addr, std::size_t len, const std::byte* want, std::uintptr_t) {
        const std::byte* now = read_for_compare(addr, len, staging, chunk);
        if (now == nullptr) return false;
        if (std::memcmp(now, want, len) == 0) return true;
        try {
            piece p{addr, len, std::unique_ptr<std::byte[]>(new std::byte[len])};
            std::memcpy(p.bytes.get(), now, len);
            out.push_back(std::move(p));
        } catch (...) {
            return false;
        }
        bytes_ += len;
        return true;
    });
    if (!ok) {
        bytes_ = 0;
        return "comparing device memory with the snapshot failed";
    }
    pieces_ = std::move(out);
    return nullptr;
}

bool delta::restore(const snapshot& base, core::replay::memory_stats& out) noexcept {
    std::unique_ptr<std::byte[]> staging;
    const std::size_t chunk = base.chunk_ != 0 ? base.chunk_ : 4096;
    bool ok = true;
    std::uintptr_t last_region = 0;
    (void)for_each_chunk(base, [&](std::uintptr_t addr, std::size_t len, const std::byte* want, std::uintptr_t region) {
        if (region != last_region) ++out.regions;
        last_region = region;
        const std::byte* now = read_for_compare(addr, len, staging, chunk);
        if (now == nullptr || std::memcmp(now, want, len) != 0) {
            ok = copy(reinterpret_cast<void*>(addr), want, len) && ok;
            out.bytes += len;
        }
        return true;
    });
    return ok;
}

std::uint64_t delta::differing_regions(const snapshot& base) noexcept {
    std::unique_ptr<std::byte[]> staging;
    const std::size_t chunk = base.chunk_ != 0 ? base.chunk_ : 4096;
    std::uint64_t n = 0;
    std::uintptr_t counted = 0;  // the last region counted
    (void)for_each_chunk(base, [&](std::uintptr_t addr, std::size_t len, const std::byte* want, std::uintptr_t region) {
        if (region == counted) return true;
        const std::byte* now = read_for_compare(addr, len, staging, chunk);
        if (now == nullptr || std::memcmp(now, want, len) != 0) {
            ++n;
            counted = region;
        }
        return true;
    });
    return n;
}

void snapshot::release() noexcept {
    if (tracked_ || keeper_) {
        for (auto& s : regions_) {
            // (Shared: regions of one agent are armed and released by its one replay at a time.)
            const auto lk = live().lock_shared();
            region* r = live().find(s.base);
            if (r == nullptr || r->id != s.id) continue;  // freed (and maybe reused) meanwhile
            // Kept only within the budget, counted over every agent's kept copies.
            bool keep = keeper_;
            if (keep && kept_bytes().fetch_add(s.size, std::memory_order_relaxed) + s.size > budget_) {
                kept_bytes().fetch_sub(s.size, std::memory_order_relaxed);
                keep = false;
            }
            if (tracked_ && s.slot >= 0 && r->slot == s.slot) {
                auto& w = g_slots[s.slot];
                const std::uintptr_t b = w.begin.load(std::memory_order_relaxed);
                const std::uintptr_t e = w.end.load(std::memory_order_relaxed);
                if (w.by_signal.load(std::memory_order_relaxed)) {
                    ::mprotect(reinterpret_cast<void*>(b), e - b, PROT_READ | PROT_WRITE);
                } else {
                    update_warm(*r, b, e);
                    // Kept: it stays armed. The copy equals memory except on the pages written
                    // since the arm (the passes'), and every write until the next snapshot is seen
                    // too, so that snapshot copies only those pages; the program's writes
                    // meanwhile cost the kernel-resolved fault of the first write to each page (no
                    // signal). Else unprotected: the program's own writes then take no faults.
                    if (keep)
                        r->kept_tracked = true;
                    else
                        (void)uffd_protect(b, e, false);
                }
            }
            // Kernel replay keeps its copy (and its memory) for the next snapshot of the region.
            if (keep) r->kept = std::move(s.copy);
        }
    }
    tracked_ = false;
    keeper_ = false;
    regions_.clear();
}

}  // namespace encore::hsa::replay_memory
