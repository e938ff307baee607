// src/cuda/snapshot.cpp — see snapshot.hpp. Where the copy lives: a device-side shadow when the
// GPU has room for it (free memory above what it needs plus 1 GiB), else pinned host memory (the
// seed's design); either is kept per context and slot for the next snapshot there.
// ENCORE_CUDA_REPLAY_SHADOW=host|device forces one.
//   full_copy       the snapshot copies every covered byte, the restore copies every byte back;
//   changed_chunks  (where encore's kernels, chunks.cu, load) memory is cut into chunks (at least
//                   64 KiB: a thread block per chunk) and the slot keeps a chunk table: each
//                   chunk's address, its copy in the shadow (none for a chunk that was all zero:
//                   the shadow is sparse, so mapped memory that holds nothing costs nothing) and
//                   the hash of that copy, on the device.
//     snapshot      the first one of a layout (the covered regions, in order, and the chunk
//                   size) classifies: a kernel hashes every chunk and flags the all-zero ones,
//                   the host reads the flags (a byte a chunk), places the others in the shadow and
//                   one kernel copies them. A later snapshot of the same layout in the same slot
//                   is incremental: one kernel hashes each chunk, compares with its copy's hash
//                   and copies only chunks that differ (a chunk that was zero and is not any more
//                   gets a place from the host first: the shadow keeps room for a quarter more,
//                   beyond that the snapshot classifies again). Sound: every chunk is compared, so
//                   the shadow equals live memory at take() (modulo a 64-bit hash collision).
//                   The table is valid only after a snapshot that completed, of that layout and
//                   that shadow kind; a failure, a full_copy snapshot in the slot or another
//                   layout (a region allocated, freed, mapped, unmapped, resized) discards it.
//     restore       a kernel hashes each chunk and rewrites those whose hash changed (device
//                   shadow: in the same kernel, zeros for a chunk without a copy; host shadow:
//                   the host copies the listed chunks back). Restore cost then tracks the bytes
//                   written plus one read of the footprint. With the pass count known
//                   (restore(out, pass, passes)) the first restore keeps the chunks it rewrote
//                   (the write set) and later ones copy only those, except the restore before the
//                   last pass, which hashes everything again and checks that nothing outside the
//                   write set changed (warned once, then every restore hashes).
// Checksum: the hashing kernel writes one 64-bit hash per chunk into a device array; only those
// (8 bytes per chunk) come back, and the host combines them in chunk order. Where the kernel does
// not load, the covered bytes are read back and hashed on the host (slow: ~100 ms per pass for
// 176 MiB on an H200).
// All driver calls go to the real driver, never through encore's exports.
#include "snapshot.hpp"

#include "chunk_desc.hpp"
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

constexpr std::size_t no_copy = ~std::size_t{0};  // a chunk's place in the shadow: none (all zero)

struct cache {
    device_buffer shadow;
    host_buffer host;
    // changed_chunks: the chunk table on the device (descriptors, the hashes of the copies, a
    // byte per chunk, lists of chunk indices, the kernels' counters) and its kernels
    device_buffer descs, hashes, marks, list, wlist, stats;
    CUmodule module = nullptr;
    CUfunction hash_fn = nullptr, classify_fn = nullptr, copy_fn = nullptr, snapshot_fn = nullptr, restore_fn = nullptr;
    bool module_failed = false;
    // verification on the device: chunk descriptors (when changed_chunks has none) and the hashes
    device_buffer verify_descs, verify_hashes;
    // The chunk table of the slot's last chunked snapshot, host side. valid: descs, hashes and the
    // shadow hold a complete snapshot of `layout` cut at `chunk` in a shadow of kind on_device.
    bool valid = false, on_device = false;
    std::size_t chunk = 0, used = 0;  // used: the shadow's bytes given to chunks
    std::vector<std::pair<CUdeviceptr, std::size_t>> layout;
    std::vector<std::size_t> first;  // per region, its first chunk; then the chunk count
    std::vector<chunk_desc> table;   // as on the device
    std::vector<std::size_t> slot;   // per chunk: the offset of its copy in the shadow, or no_copy
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
    const auto fn = [&](CUfunction& f, const char* name) {
        return real().module_get_function(&f, c.module, name) == CUDA_SUCCESS;
    };
    CUfunction hash = nullptr;
    if (real().module_load_data(&c.module, chunks_ptx) != CUDA_SUCCESS || !fn(hash, "encore_hash_chunks") ||
        !fn(c.classify_fn, "encore_classify_chunks") || !fn(c.copy_fn, "encore_copy_chunks") ||
        !fn(c.snapshot_fn, "encore_snapshot_chunks") || !fn(c.restore_fn, "encore_restore_chunks")) {
        c.module_failed = true;
        c.classify_fn = c.copy_fn = c.snapshot_fn = c.restore_fn = nullptr;
        return false;
    }
    c.hash_fn = hash;
    return true;
}

constexpr const char* over_budget_reason =
    "the snapshot would exceed the memory budget (ENCORE_REPLAY_MEMORY_BUDGET): the launch runs once";

constexpr std::size_t min_chunk = 64 * 1024;
constexpr unsigned chunk_threads = 256;
constexpr std::size_t stats_bytes = 4 * 8;

/// A kernel of chunks.cu over `n` chunks (or list entries) on the legacy stream (the context is
/// drained and held): one block a chunk, at most 2^20 blocks (each loops).
bool launch(CUfunction f, std::size_t n, void** args) noexcept {
    if (n == 0) return true;
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(n, 1u << 20));
    return real().launch_kernel(f, blocks, 1, 1, chunk_threads, 1, 1, 0, nullptr, args, nullptr) == CUDA_SUCCESS;
}
std::size_t aligned(std::size_t n) noexcept { return (n + 255) / 256 * 256; }


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
        total_ += aligned(a.size);  // keeps every region 256-byte aligned in the shadow
    }
    cache_ = &cache_of(ctx_, s);
    if (opt_.policy == ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS && total_ > 0) {
        const char* why = nullptr;
        switch (take_chunks(why)) {
            case step::ok:
                out.bytes = total_;
                out.regions = regions_.size();
                out.copied = copied_;
                return nullptr;
            case step::failed: release(); return why;
            case step::dense: break;  // full_copy's snapshot (and restores)
        }
    }
    cache_->valid = false;  // the copy below overwrites the shadow the chunk table describes
    chunks_ = false;        // (an incremental attempt may have set these)
    n_chunks_ = 0;
    shadow_ = 0;
    host_ = nullptr;
    const char* force = std::getenv("ENCORE_CUDA_REPLAY_SHADOW");
    std::size_t free = 0, total = 0;
    bool device = force != nullptr
                      ? std::string_view(force) == "device"
                      : cache_->shadow.size >= total_ ||
                            (real().mem_get_info(&free, &total) == CUDA_SUCCESS && free > total_ + (1ull << 30));
    if (over_budget(total_, device)) {
        release();
        return over_budget_reason;
    }
    if (device && total_ > 0) {
        device = cache_->shadow.reserve(total_);
        if (device) shadow_ = cache_->shadow.p;
    }
    if (!device && total_ > 0) {
        if (over_budget(total_, false)) {  // no room on the device after all: host memory, within the budget
            release();
            return over_budget_reason;
        }
        if (!cache_->host.reserve(total_)) {
            release();
            return "cannot allocate memory for the snapshot: the launch runs once";
        }
        host_ = &cache_->host;
    }
    device_ = shadow_ != 0;
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

// The default budget (half the host's RAM) guards host memory: a snapshot the device has room
// for is not bound by it (an H200 program holding 64 GiB on a 128 GiB host was declined by it
// with 75 GB of the GPU free); a budget the tool or the environment chose bounds every snapshot.
bool memory::over_budget(std::size_t bytes, bool on_device) const noexcept {
    return bytes > opt_.memory_budget && (opt_.memory_budget_chosen || !on_device);
}

/// changed_chunks' snapshot (see the top of this file): incremental where the slot's chunk table
/// is of this layout, else classified. dense: the kernels or their memory are not available (the
/// full copy runs instead); failed: declined (`why`).
memory::step memory::take_chunks(const char*& why) noexcept {
    cache& c = *cache_;
    if (real().memset_d8 == nullptr || !load_chunk_kernels(c)) {
        core::replay::warn_once(
            "changed_chunks: encore's hashing kernel did not load on this GPU/driver: full_copy is used");
        return step::dense;
    }
    const std::size_t chunk = std::max<std::size_t>(opt_.chunk_size, min_chunk);
    const char* force = std::getenv("ENCORE_CUDA_REPLAY_SHADOW");
    bool same = c.valid && c.chunk == chunk && c.layout.size() == regions_.size() &&
                (force == nullptr || (std::string_view(force) == "device") == c.on_device);
    for (std::size_t i = 0; same && i < regions_.size(); ++i)
        same = c.layout[i].first == regions_[i].base && c.layout[i].second == regions_[i].size;
    c.valid = false;  // until this snapshot is complete
    step r = same ? update(why) : step::dense;
    if (r == step::dense) r = classify(why);
    if (r != step::ok) return r;
    if (real().ctx_synchronize() != CUDA_SUCCESS) {
        why = "copying device memory into the snapshot failed: the launch runs once";
        return step::failed;
    }
    c.valid = true;
    return step::ok;
}

/// A snapshot from nothing: the table of this layout, every chunk hashed and classified, the
/// shadow placed (sparse), the chunks that are not zero copied. dense: no kernels or memory for
/// the table.
memory::step memory::classify(const char*& why) noexcept {
    cache& c = *cache_;
    const std::size_t chunk = std::max<std::size_t>(opt_.chunk_size, min_chunk);
    std::vector<unsigned char> zero;
    try {
        c.layout.clear();
        c.first.clear();
        c.table.clear();
        for (const auto& r : regions_) {
            c.layout.emplace_back(r.base, r.size);
            c.first.push_back(c.table.size());
            for (std::size_t o = 0; o < r.size; o += chunk)
                c.table.push_back(chunk_desc{r.base + o, 0, std::min(chunk, r.size - o)});
        }
        c.first.push_back(c.table.size());
        c.slot.assign(c.table.size(), no_copy);
        zero.resize(c.table.size());
    } catch (...) {
        return step::dense;
    }
    c.chunk = chunk;
    const std::size_t n = c.table.size();
    if (n > 0xffffffffu || !c.descs.reserve(n * sizeof(chunk_desc)) || !c.hashes.reserve(n * 8) ||
        !c.marks.reserve(n) || !c.list.reserve(n * 4) || !c.wlist.reserve(n * 4) || !c.stats.reserve(stats_bytes)) {
        core::replay::warn_once("changed_chunks: no device memory for the chunk hashes: full_copy is used");
        return step::dense;
    }
    CUdeviceptr descs = c.descs.p, hashes = c.hashes.p, marks = c.marks.p;
    unsigned long long count = n;
    void* args[] = {&descs, &count, &hashes, &marks};
    if (real().htod(descs, c.table.data(), n * sizeof(chunk_desc)) != CUDA_SUCCESS || !launch(c.classify_fn, n, args) ||
        real().dtoh(zero.data(), marks, n) != CUDA_SUCCESS) {
        why = "hashing device memory for the snapshot failed: the launch runs once";
        return step::failed;
    }
    std::size_t used = 0;
    copied_ = 0;
    for (std::size_t k = 0; k < n; ++k)
        if (zero[k] == 0) {
            c.slot[k] = used;
            used += aligned(c.table[k].bytes);
            copied_ += c.table[k].bytes;
        }
    // Where: as full_copy decides, for the bytes that need a copy.
    const char* force = std::getenv("ENCORE_CUDA_REPLAY_SHADOW");
    std::size_t free = 0, total = 0;
    const bool known = real().mem_get_info(&free, &total) == CUDA_SUCCESS;
    bool device = force != nullptr ? std::string_view(force) == "device"
                                   : c.shadow.size >= used || (known && free > used + (1ull << 30));
    if (over_budget(used, device)) {
        why = over_budget_reason;
        return step::failed;
    }
    // Room for chunks that are zero now and will not be at a later snapshot (a quarter more, at
    // least 64 MiB) where the device has it; else what this snapshot needs.
    const std::size_t want = used + std::max<std::size_t>(used / 4, 64ull << 20);
    if (device && c.shadow.size < want)
        device = (known && free > want + (1ull << 30) && c.shadow.reserve(want)) || c.shadow.reserve(used);
    if (!device) {
        if (over_budget(used, false)) {
            why = over_budget_reason;
            return step::failed;
        }
        if (!c.host.reserve(used)) {
            why = "cannot allocate memory for the snapshot: the launch runs once";
            return step::failed;
        }
    }
    c.on_device = device;
    c.used = used;
    device_ = device;
    shadow_ = device ? c.shadow.p : 0;
    host_ = device ? nullptr : &c.host;
    chunks_ = true;
    n_chunks_ = n;
    if (!device) {
        std::vector<unsigned> all;
        try {
            for (std::size_t k = 0; k < n; ++k)
                if (c.slot[k] != no_copy) all.push_back(static_cast<unsigned>(k));
        } catch (...) {
            why = "cannot allocate memory for the snapshot: the launch runs once";
            return step::failed;
        }
        if (!copy_out(all.data(), all.size())) {
            why = "copying device memory into the snapshot failed: the launch runs once";
            return step::failed;
        }
        return step::ok;
    }
    for (std::size_t k = 0; k < n; ++k) c.table[k].shadow = c.slot[k] != no_copy ? shadow_ + c.slot[k] : 0;
    CUdeviceptr none = 0;
    int to_shadow = 1;
    void* copy_args[] = {&descs, &none, &count, &to_shadow};
    if (real().htod(descs, c.table.data(), n * sizeof(chunk_desc)) != CUDA_SUCCESS || !launch(c.copy_fn, n, copy_args)) {
        why = "copying device memory into the snapshot failed: the launch runs once";
        return step::failed;
    }
    return step::ok;
}

/// An incremental snapshot of the table's layout: one kernel hashes every chunk against its
/// copy's hash and copies the differing ones (device shadow); the host handles the chunks it lists
/// (host shadow: all that changed; device: those without a copy, which get a place first). dense:
/// no room left in the device shadow for them (classify again).
memory::step memory::update(const char*& why) noexcept {
    cache& c = *cache_;
    device_ = c.on_device;
    shadow_ = device_ ? c.shadow.p : 0;
    host_ = device_ ? nullptr : &c.host;
    chunks_ = true;
    n_chunks_ = c.table.size();
    why = "copying device memory into the snapshot failed: the launch runs once";
    CUdeviceptr descs = c.descs.p, hashes = c.hashes.p, stats = c.stats.p, list = c.list.p;
    unsigned long long count = n_chunks_;
    int copy = device_ ? 1 : 0;
    void* args[] = {&descs, &count, &hashes, &stats, &list, &copy};
    unsigned long long st[4] = {0, 0, 0, 0};
    if (real().memset_d8(stats, 0, stats_bytes) != CUDA_SUCCESS || !launch(c.snapshot_fn, n_chunks_, args) ||
        real().dtoh(st, stats, sizeof st) != CUDA_SUCCESS)
        return step::failed;
    copied_ = st[1];  // the changed chunks' bytes
    if (st[2] == 0) return step::ok;
    std::vector<unsigned> idx;
    try {
        idx.resize(st[2]);
    } catch (...) {
        return step::failed;
    }
    if (real().dtoh(idx.data(), list, idx.size() * 4) != CUDA_SUCCESS) return step::failed;
    std::sort(idx.begin(), idx.end());
    // Places for the chunks that had none, after the others.
    std::size_t lo = idx.size(), hi = 0, used = c.used;
    for (std::size_t i = 0; i < idx.size(); ++i) {
        const unsigned k = idx[i];
        if (k >= n_chunks_) return step::failed;
        if (c.slot[k] != no_copy) continue;
        c.slot[k] = used;
        used += aligned(c.table[k].bytes);
        if (device_) c.table[k].shadow = shadow_ + c.slot[k];
        lo = std::min<std::size_t>(lo, k);
        hi = std::max<std::size_t>(hi, k);
    }
    if (device_ && used > c.shadow.size) return step::dense;  // the table is invalid: classified anew
    c.used = used;
    if (!device_) {
        if (!c.host.reserve(used)) {
            why = "cannot allocate memory for the snapshot: the launch runs once";
            return step::failed;
        }
        return copy_out(idx.data(), idx.size()) ? step::ok : step::failed;
    }
    // Device: every listed chunk is one that had no copy; their descriptors, then one copy kernel.
    int to_shadow = 1;
    count = idx.size();
    void* copy_args[] = {&descs, &list, &count, &to_shadow};
    if (real().htod(descs + lo * sizeof(chunk_desc), c.table.data() + lo, (hi - lo + 1) * sizeof(chunk_desc)) !=
            CUDA_SUCCESS ||
        !launch(c.copy_fn, idx.size(), copy_args))
        return step::failed;
    return step::ok;
}

/// Host shadow: the chunks idx (sorted, each with a copy) live -> shadow, neighbours in one copy.
bool memory::copy_out(const unsigned* idx, std::size_t count) noexcept {
    const cache& c = *cache_;
    for (std::size_t i = 0; i < count;) {
        std::size_t j = i + 1, len = c.table[idx[i]].bytes;
        for (; j < count && idx[j] == idx[j - 1] + 1 &&
               c.table[idx[j]].addr == c.table[idx[j - 1]].addr + c.table[idx[j - 1]].bytes &&
               c.slot[idx[j]] == c.slot[idx[j - 1]] + c.table[idx[j - 1]].bytes;
             ++j)
            len += c.table[idx[j]].bytes;
        const CUdeviceptr from = c.table[idx[i]].addr;
        if (!host_->each(c.slot[idx[i]], len, [&](char* h, std::size_t done, std::size_t n) {
                return real().dtoh(h, from + done, n) == CUDA_SUCCESS;
            }))
            return false;
        i = j;
    }
    return true;
}

/// The chunks idx (sorted) shadow -> live from the host's side: copies (device or host shadow)
/// and zeros for the chunks without one, neighbours in one call.
bool memory::write_back(const unsigned* idx, std::size_t count) noexcept {
    const cache& c = *cache_;
    for (std::size_t i = 0; i < count;) {
        const chunk_desc& d = c.table[idx[i]];
        const bool zero = c.slot[idx[i]] == no_copy;
        std::size_t j = i + 1, len = d.bytes;
        for (; j < count && idx[j] == idx[j - 1] + 1; ++j) {
            const chunk_desc& p = c.table[idx[j - 1]];
            if (c.table[idx[j]].addr != p.addr + p.bytes || (c.slot[idx[j]] == no_copy) != zero ||
                (!zero && c.slot[idx[j]] != c.slot[idx[j - 1]] + p.bytes))
                break;
            len += c.table[idx[j]].bytes;
        }
        const std::size_t at = c.slot[idx[i]];
        const bool ok = zero      ? real().memset_d8(d.addr, 0, len) == CUDA_SUCCESS
                        : device_ ? real().dtod(d.addr, shadow_ + at, len) == CUDA_SUCCESS
                                  : host_->each(at, len, [&](char* h, std::size_t done, std::size_t n) {
                                        return real().htod(d.addr + done, h, n) == CUDA_SUCCESS;
                                    });
        if (!ok) return false;
        i = j;
    }
    return true;
}

bool memory::restore(core::replay::memory_stats& out, std::uint64_t pass, std::uint64_t passes) noexcept {
    // A region freed or unmapped since the snapshot must not be written (nor hashed): the
    // others are restored by copy, and the next run_pass ends the loop.
    const bool intact = regions_intact();
    if (chunks_ && intact) return restore_chunks(out, pass, passes);
    bool ok = true;
    for (std::size_t i = 0; i < regions_.size(); ++i) {
        const region& r = regions_[i];
        if (!intact && !still_covered(r)) continue;
        bool c = true;
        if (chunks_) {  // the sparse shadow: the region's chunks, from the host
            const std::size_t from = cache_->first[i], to = cache_->first[i + 1];
            std::vector<unsigned> idx;
            try {
                for (std::size_t k = from; k < to; ++k) idx.push_back(static_cast<unsigned>(k));
            } catch (...) {
                return false;
            }
            c = write_back(idx.data(), idx.size());
        } else {
            c = shadow_ != 0 ? real().dtod(r.base, shadow_ + r.offset, r.size) == CUDA_SUCCESS
                             : host_->each(r.offset, r.size, [&](char* h, std::size_t done, std::size_t n) {
                                   return real().htod(r.base + done, h, n) == CUDA_SUCCESS;
                               });
        }
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

bool memory::flush_l2(CUstream s) noexcept { return ctx_ != nullptr && snapshot::flush_l2(ctx_, s); }

// ---- cache control ---------------------------------------------------------------------------
namespace {
/// A context's means to flush its device's L2: a scratch buffer of twice the L2, its chunk
/// descriptors for the read sweep, and the hashing kernel (loaded for this use).
struct l2_flusher {
    device_buffer scratch, descs, hashes;
    cache kernels;  // only its module and hashing kernel are used
    unsigned long long n = 0;
    unsigned value = 0;
    bool failed = false, no_sweep = false;
};
std::mutex g_l2_mutex;
auto* g_l2 = new std::map<CUcontext, l2_flusher>;  // never destroyed: the driver frees at exit
constexpr std::size_t sweep_chunk = 256 * 1024;    // ~400 thread blocks for an H200's 2 x 50 MiB

/// The read sweep's descriptors and kernel, once per context (false: write only, warned once).
bool prepare_sweep(l2_flusher& f) noexcept {
    if (f.n != 0) return true;
    if (f.no_sweep) return false;
    f.no_sweep = true;  // until it is ready
    std::vector<chunk_desc> d;
    const memory::region whole[] = {{f.scratch.p, f.scratch.size, 0}};
    if (!load_chunk_kernels(f.kernels) || !chunk_descs(whole, 0, sweep_chunk, d) ||
        !f.descs.reserve(d.size() * sizeof(chunk_desc)) || !f.hashes.reserve(d.size() * 8) ||
        real().htod(f.descs.p, d.data(), d.size() * sizeof(chunk_desc)) != CUDA_SUCCESS) {
        core::replay::warn_once("cache control all (ENCORE_CUDA_REPLAY_CACHE_CONTROL): encore's hashing kernel did not "
                                "load, so the L2 is flushed by a write alone: the dirty lines it leaves are written "
                                "back during the pass (DRAM writes over-counted, a little time added)");
        return false;
    }
    f.n = d.size();
    f.no_sweep = false;
    return true;
}
}  // namespace

/// Evicts the L2 before a pass or a counted launch, on its stream (ahead of the pass's start
/// event, so outside its GPU time): resets persisting lines, writes a scratch buffer of twice the
/// L2 (a memset over a buffer larger than the cache is how nvbench flushes, l2flush.cuh; the
/// driver has no call that flushes the L2), then reads it back with the hashing kernel. The write
/// alone leaves the L2 full of dirty lines, which the pass then writes back to DRAM as it evicts
/// them: an H200 run counted 16 KiB of dram__bytes_write for a PyTorch kernel Nsight Compute
/// (which invalidates the L2) counts 0 for, and 10 % over on a streaming kernel. The read sweep
/// evicts those lines before the pass and leaves clean ones, which go without a write-back.
/// False when the device reports no L2 size or the buffer cannot be had (warned once).
bool flush_l2(CUcontext ctx, CUstream s) noexcept {
    std::lock_guard lk(g_l2_mutex);  // a flush is two asynchronous submissions: held briefly
    l2_flusher* fp = nullptr;
    try {
        fp = &(*g_l2)[ctx];
    } catch (...) {
        return false;
    }
    l2_flusher& f = *fp;
    if (f.scratch.size == 0 && !f.failed) {
        int l2 = 0;
        CUdevice dev = 0;
        f.failed = real().device_get_attribute == nullptr || real().memset_d32_async == nullptr ||
                   real().ctx_get_device == nullptr || real().ctx_get_device(&dev) != CUDA_SUCCESS ||
                   real().device_get_attribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev) != CUDA_SUCCESS ||
                   l2 <= 0 || !f.scratch.reserve(2 * static_cast<std::size_t>(l2));
    }
    if (f.failed) {
        core::replay::warn_once("cache control all (ENCORE_CUDA_REPLAY_CACHE_CONTROL): the L2 cannot be flushed "
                                "on this device/driver (no L2 size or no memory for the scratch buffer): passes "
                                "run with whatever the L2 holds");
        return false;
    }
    if (real().ctx_reset_persisting_l2 != nullptr) real().ctx_reset_persisting_l2();
    // A value that changes every flush: every line is rewritten, whatever the memory held.
    if (real().memset_d32_async(f.scratch.p, ++f.value, f.scratch.size / 4, s) != CUDA_SUCCESS) {
        core::replay::warn_once("cache control all (ENCORE_CUDA_REPLAY_CACHE_CONTROL): writing the L2 scratch buffer "
                                "failed: the passes of this launch run with whatever the L2 holds");
        return false;
    }
    if (!prepare_sweep(f)) return true;  // flushed, dirty
    CUdeviceptr descs = f.descs.p, hashes = f.hashes.p;
    unsigned long long n = f.n;
    void* args[] = {&descs, &n, &hashes};
    if (real().launch_kernel(f.kernels.hash_fn, static_cast<unsigned>(n), 1, 1, chunk_threads, 1, 1, 0, s, args,
                             nullptr) != CUDA_SUCCESS) {
        core::replay::warn_once("cache control all (ENCORE_CUDA_REPLAY_CACHE_CONTROL): the read sweep after the L2 "
                                "flush failed to launch: the L2 is left dirty (DRAM writes over-counted)");
        f.no_sweep = true;
        f.n = 0;
    }
    return true;
}

/// changed_chunks' restore (see the top of this file): hashing every chunk, or copying the
/// write set back.
bool memory::restore_chunks(core::replay::memory_stats& out, std::uint64_t pass, std::uint64_t passes) noexcept {
    cache& c = *cache_;
    const bool first = restores_++ == 0;
    CUdeviceptr descs = c.descs.p;
    if (!first && w_known_ && ws_ok_ && passes != 0 && pass + 1 < passes) {
        // The write set only: no hashing (the restore before the last pass checks everything).
        out.regions = w_count_;
        out.bytes = w_bytes_;
        if (device_) {
            CUdeviceptr list = c.wlist.p;
            unsigned long long count = w_count_;
            int to_shadow = 0;
            void* args[] = {&descs, &list, &count, &to_shadow};
            if (!launch(c.copy_fn, w_count_, args)) return false;
        } else if (!write_back(w_.data(), w_.size())) {
            return false;
        }
        return real().ctx_synchronize() == CUDA_SUCCESS;
    }
    // Every chunk hashed: the first restore records what changed (the write set), later ones
    // count changes outside it.
    CUdeviceptr hashes = c.hashes.p, stats = c.stats.p, list = first ? c.wlist.p : c.list.p, marks = c.marks.p;
    unsigned long long count = n_chunks_;
    int mode = first ? 1 : (w_known_ && ws_ok_ ? 2 : 0), copy = device_ ? 1 : 0;
    void* args[] = {&descs, &count, &hashes, &stats, &list, &marks, &mode, &copy};
    unsigned long long st[4] = {0, 0, 0, 0};
    if (real().memset_d8(stats, 0, stats_bytes) != CUDA_SUCCESS || !launch(c.restore_fn, n_chunks_, args) ||
        real().dtoh(st, stats, sizeof st) != CUDA_SUCCESS)  // waits for the kernel
        return false;
    out.regions = st[0];
    out.bytes = st[1];
    if (first) {
        w_known_ = true;
        w_count_ = st[0];
        w_bytes_ = st[1];
    }
    if (mode == 2 && st[2] != 0) {
        core::replay::warn_once("changed_chunks: a kernel whose writes depend on the pass wrote memory its first pass "
                                "did not: restores of its launch hash every chunk again");
        ws_ok_ = false;
    }
    if (!device_ && st[0] != 0) {
        // Host shadow: the kernel listed the changed chunks; the host copies them back.
        std::vector<unsigned> idx;
        try {
            idx.resize(st[0]);
        } catch (...) {
            return false;
        }
        if (real().dtoh(idx.data(), list, idx.size() * 4) != CUDA_SUCCESS) return false;
        std::sort(idx.begin(), idx.end());
        if (!write_back(idx.data(), idx.size())) return false;
        if (first) {
            try {
                w_ = std::move(idx);
            } catch (...) {
                ws_ok_ = false;
            }
        }
    }
    return real().ctx_synchronize() == CUDA_SUCCESS;
}

bool memory::intact() noexcept { return regions_intact(); }

bool memory::read_shadow(std::size_t i, unsigned char* out) const noexcept {
    const region& r = regions_[i];
    if (chunks_) {  // the sparse shadow: chunk by chunk, zeros where a chunk has no copy
        const cache& c = *cache_;
        for (std::size_t k = c.first[i]; k < c.first[i + 1]; ++k) {
            const chunk_desc& d = c.table[k];
            unsigned char* to = out + (d.addr - r.base);
            const std::size_t at = c.slot[k];
            if (at == no_copy)
                std::memset(to, 0, d.bytes);
            else if (device_ ? real().dtoh(to, shadow_ + at, d.bytes) != CUDA_SUCCESS
                             : !host_->each(at, d.bytes, [&](char* h, std::size_t done, std::size_t n) {
                                   std::memcpy(to + done, h, n);
                                   return true;
                               }))
                return false;
        }
        return true;
    }
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
    for (std::size_t i = 0; i < regions_.size(); ++i) {
        const region& r = regions_[i];
        try {
            live.resize(r.size);
            kept.resize(r.size);
        } catch (...) {
            ++n;
            continue;
        }
        if (real().dtoh(live.data(), r.base, r.size) != CUDA_SUCCESS || !read_shadow(i, kept.data()) ||
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
    device_ = false;
    chunks_ = false;
    n_chunks_ = 0;
    copied_ = 0;
    restores_ = 0;
    w_.clear();
    w_count_ = w_bytes_ = 0;
    w_known_ = false;
    ws_ok_ = true;
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
    {
        std::lock_guard l2(g_l2_mutex);
        g_l2->erase(c);  // its memory went with the context
    }
    std::lock_guard lk(g_cache_mutex);
    for (auto it = g_cache->begin(); it != g_cache->end();)
        it = it->first.first == c ? g_cache->erase(it) : std::next(it);  // its buffers and module went with it
}

}  // namespace encore::cuda::snapshot
