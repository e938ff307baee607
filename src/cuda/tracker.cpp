// src/cuda/tracker.cpp — the allocation tracker (see tracker.hpp): each context's allocations and
// module variables in the kit's address set (backend/address_set.hpp), grouped by context, fed
// by the per-op layers (ops.hpp) while a replay service or allocation records are configured.
// (VMM mappings, pinned host sizes and the shrink count both files keep: vmm.cpp.)
#include "tracker.hpp"

#include "real.hpp"

#include "backend/address_set.hpp"

#include <algorithm>
#include <map>

namespace encore::cuda::tracker {
namespace {

/// An allocation or a module variable; its context is the set's `device`.
struct allocation : backend::address_node {
    memory kind = memory::device;
    const void* owner = nullptr;  // a module variable's module (null: an allocation)
};
std::uint64_t key(CUcontext c) noexcept { return reinterpret_cast<std::uintptr_t>(c); }
CUcontext context_of(const allocation& a) noexcept { return reinterpret_cast<CUcontext>(a.device); }

struct context_marks {
    long managed = 0;   // live managed allocations
    long imported = 0;  // live imported pointers
};
void count(context_marks& m, memory kind, long by) {
    if (kind == memory::managed) m.managed += by;
    if (kind == memory::imported) m.imported += by;
}
// Never destroyed (frees at exit). Its lock guards g_marks too.
auto* g_tracker = new backend::address_set<allocation>;
auto* g_marks = new std::map<CUcontext, context_marks>;

/// An allocation replaced or freed: its context's marks no longer count it.
void uncount(const allocation& a) noexcept {
    if (auto m = g_marks->find(context_of(a)); m != g_marks->end()) count(m->second, a.kind, -1);
}

}  // namespace

void on_alloc(CUdeviceptr p, std::size_t size, memory kind) noexcept {
    const CUcontext c = current_context();
    const auto lk = g_tracker->lock();
    try {
        auto& marks = (*g_marks)[c];
        // An address the driver handed out again before its free was seen replaces the old one.
        const auto [a, added] = g_tracker->replace(
            p, size, key(c), [kind](allocation& x) { x.kind = kind; }, uncount);
        if (a == nullptr) return;
        if (!added) note_shrink();
        count(marks, kind, 1);
    } catch (...) {
    }
}

void on_free(CUdeviceptr p) noexcept {
    const auto lk = g_tracker->lock();
    if (g_tracker->erase(p, uncount)) note_shrink();
}

void on_global(CUdeviceptr p, std::size_t size, const void* owner) noexcept {
    const CUcontext c = current_context();
    const auto lk = g_tracker->lock();
    (void)g_tracker->replace(
        p, size, key(c), [owner](allocation& x) { x.owner = owner; }, uncount);
}

void on_unload(const void* owner) noexcept {
    const auto lk = g_tracker->lock();
    if (owner != nullptr) (void)g_tracker->erase_if([owner](const allocation& a) { return a.owner == owner; });
    note_shrink();
}

std::size_t size_of(CUdeviceptr p) noexcept {
    const auto lk = g_tracker->lock_shared();
    const allocation* a = g_tracker->find(p);
    return a != nullptr ? a->size : 0;
}

std::size_t driver_size_of(CUdeviceptr p) noexcept {
    CUdeviceptr base = 0;
    std::size_t size = 0;
    if (p == 0 || real().mem_get_address_range == nullptr || real().mem_get_address_range(&base, &size, p) != CUDA_SUCCESS)
        return 0;
    return base == p ? size : 0;  // an interior pointer is not an allocation (its free fails)
}

uncovered uncovered_in(CUcontext c) noexcept {
    const auto lk = g_tracker->lock_shared();
    const auto it = g_marks->find(c);
    if (it == g_marks->end()) return {};
    return {it->second.managed > 0, it->second.imported > 0};
}

std::vector<range> covered(CUcontext c, std::uint64_t device) {
    std::vector<range> out;
    {
        const auto lk = g_tracker->lock_shared();
        for (const allocation& a : g_tracker->of_device(key(c)))
            if (a.kind == memory::device) out.push_back(range{a.base, a.size});
    }
    // VMM mappings never overlap driver allocations (disjoint address ranges): merged by address.
    const std::size_t n = out.size();
    add_vmm_ranges(device, out);
    std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), out.end(),
                       [](const range& a, const range& b) { return a.base < b.base; });
    return out;
}

void forget(CUcontext c) noexcept {
    const auto lk = g_tracker->lock();
    (void)g_tracker->erase_if([k = key(c)](const allocation& a) { return a.device == k; });
    g_marks->erase(c);
    note_shrink();
}

}  // namespace encore::cuda::tracker
