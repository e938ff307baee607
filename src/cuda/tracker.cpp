// src/cuda/tracker.cpp — the allocation tracker (see tracker.hpp). Fed
// by the per-op layers (ops.hpp) while a replay service or allocation records are configured.
// (VMM mappings, pinned host sizes and the shrink count both files keep: vmm.cpp.)
#include "tracker.hpp"

#include "real.hpp"

#include <algorithm>
#include <map>
#include <mutex>

namespace encore::cuda::tracker {
namespace {

struct allocation {
    std::size_t size;
    CUcontext ctx;
    memory kind;
    const void* owner = nullptr;  // a module variable's module (null: an allocation)
};
struct context_marks {
    long managed = 0;   // live managed allocations
    long imported = 0;  // live imported pointers
};
void count(context_marks& m, memory kind, long by) {
    if (kind == memory::managed) m.managed += by;
    if (kind == memory::imported) m.imported += by;
}
std::mutex g_tracker_mutex;
auto* g_tracker = new std::map<CUdeviceptr, allocation>;  // guarded; never destroyed (frees at exit)
auto* g_marks = new std::map<CUcontext, context_marks>;   // guarded by g_tracker_mutex

}  // namespace

void on_alloc(CUdeviceptr p, std::size_t size, memory kind) noexcept {
    const CUcontext c = current_context();
    std::lock_guard lk(g_tracker_mutex);
    try {
        auto& marks = (*g_marks)[c];
        const auto [it, added] = g_tracker->try_emplace(p, allocation{size, c, kind});
        if (!added) {  // an address the driver handed out again before its free was seen
            if (auto m = g_marks->find(it->second.ctx); m != g_marks->end()) count(m->second, it->second.kind, -1);
            it->second = allocation{size, c, kind};
            note_shrink();
        }
        count(marks, kind, 1);
    } catch (...) {
    }
}

void on_free(CUdeviceptr p) noexcept {
    std::lock_guard lk(g_tracker_mutex);
    const auto it = g_tracker->find(p);
    if (it == g_tracker->end()) return;
    if (auto m = g_marks->find(it->second.ctx); m != g_marks->end()) count(m->second, it->second.kind, -1);
    g_tracker->erase(it);
    note_shrink();
}

void on_global(CUdeviceptr p, std::size_t size, const void* owner) noexcept {
    const CUcontext c = current_context();
    std::lock_guard lk(g_tracker_mutex);
    try {
        (*g_tracker)[p] = allocation{size, c, memory::device, owner};
    } catch (...) {
    }
}

void on_unload(const void* owner) noexcept {
    std::lock_guard lk(g_tracker_mutex);
    for (auto it = g_tracker->begin(); it != g_tracker->end();)
        it = it->second.owner == owner && owner != nullptr ? g_tracker->erase(it) : std::next(it);
    note_shrink();
}

std::size_t size_of(CUdeviceptr p) noexcept {
    std::lock_guard lk(g_tracker_mutex);
    const auto it = g_tracker->find(p);
    return it != g_tracker->end() ? it->second.size : 0;
}

std::size_t driver_size_of(CUdeviceptr p) noexcept {
    CUdeviceptr base = 0;
    std::size_t size = 0;
    if (p == 0 || real().mem_get_address_range == nullptr || real().mem_get_address_range(&base, &size, p) != CUDA_SUCCESS)
        return 0;
    return base == p ? size : 0;  // an interior pointer is not an allocation (its free fails)
}

uncovered uncovered_in(CUcontext c) noexcept {
    std::lock_guard lk(g_tracker_mutex);
    const auto it = g_marks->find(c);
    if (it == g_marks->end()) return {};
    return {it->second.managed > 0, it->second.imported > 0};
}

std::vector<range> covered(CUcontext c, std::uint64_t device) {
    std::vector<range> out;
    {
        std::lock_guard lk(g_tracker_mutex);
        for (const auto& [p, a] : *g_tracker)
            if (a.ctx == c && a.kind == memory::device) out.push_back(range{p, a.size});
    }
    // VMM mappings never overlap driver allocations (disjoint address ranges): merged by address.
    const std::size_t n = out.size();
    add_vmm_ranges(device, out);
    std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), out.end(),
                       [](const range& a, const range& b) { return a.base < b.base; });
    return out;
}

void forget(CUcontext c) noexcept {
    std::lock_guard lk(g_tracker_mutex);
    for (auto it = g_tracker->begin(); it != g_tracker->end();)
        it = it->second.ctx == c ? g_tracker->erase(it) : std::next(it);
    g_marks->erase(c);
    note_shrink();
}

}  // namespace encore::cuda::tracker
