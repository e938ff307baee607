// src/cuda/tracker.cpp — the allocation tracker and the per-context gates (see tracker.hpp). Fed
// by the per-op layers (ops.hpp) while a replay service or allocation records are configured.
#include "tracker.hpp"

#include "real.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>

namespace encore::cuda::tracker {
namespace {

struct allocation {
    std::size_t size;
    CUcontext ctx;
    bool managed;
    const void* owner = nullptr;  // a module variable's module (null: an allocation)
};
struct context_marks {
    long managed = 0;  // live managed allocations
    bool vmm = false;  // cuMemMap was used (mappings are not tracked)
};
std::mutex g_tracker_mutex;
auto* g_tracker = new std::map<CUdeviceptr, allocation>;  // guarded; never destroyed (frees at exit)
auto* g_marks = new std::map<CUcontext, context_marks>;   // guarded by g_tracker_mutex

struct gate {
    std::shared_mutex lock;
};
std::mutex g_gates_mutex;
auto* g_gates = new std::map<CUcontext, std::unique_ptr<gate>>;  // never destroyed (nor any gate)
thread_local CUcontext t_exclusive = nullptr;                    // the context this thread replays on

gate& gate_of(CUcontext c) {
    std::lock_guard lk(g_gates_mutex);
    auto& g = (*g_gates)[c];
    if (!g) g = std::make_unique<gate>();
    return *g;
}

}  // namespace

void on_alloc(CUdeviceptr p, std::size_t size, bool managed) noexcept {
    const CUcontext c = current_context();
    std::lock_guard lk(g_tracker_mutex);
    try {
        (*g_tracker)[p] = allocation{size, c, managed};
        if (managed) ++(*g_marks)[c].managed;
    } catch (...) {
    }
}

void on_free(CUdeviceptr p) noexcept {
    std::lock_guard lk(g_tracker_mutex);
    const auto it = g_tracker->find(p);
    if (it == g_tracker->end()) return;
    if (it->second.managed) --(*g_marks)[it->second.ctx].managed;
    g_tracker->erase(it);
}

void on_global(CUdeviceptr p, std::size_t size, const void* owner) noexcept {
    const CUcontext c = current_context();
    std::lock_guard lk(g_tracker_mutex);
    try {
        (*g_tracker)[p] = allocation{size, c, false, owner};
    } catch (...) {
    }
}

void on_unload(const void* owner) noexcept {
    std::lock_guard lk(g_tracker_mutex);
    for (auto it = g_tracker->begin(); it != g_tracker->end();)
        it = it->second.owner == owner && owner != nullptr ? g_tracker->erase(it) : std::next(it);
}

void on_vmm_map() noexcept {
    const CUcontext c = current_context();
    std::lock_guard lk(g_tracker_mutex);
    try {
        (*g_marks)[c].vmm = true;
    } catch (...) {
    }
}

std::size_t size_of(CUdeviceptr p) noexcept {
    std::lock_guard lk(g_tracker_mutex);
    const auto it = g_tracker->find(p);
    return it != g_tracker->end() ? it->second.size : 0;
}

uncovered uncovered_in(CUcontext c) noexcept {
    std::lock_guard lk(g_tracker_mutex);
    const auto it = g_marks->find(c);
    if (it == g_marks->end()) return {};
    return {it->second.managed > 0, it->second.vmm};
}

std::vector<range> covered(CUcontext c) {
    std::vector<range> out;
    std::lock_guard lk(g_tracker_mutex);
    for (const auto& [p, a] : *g_tracker)
        if (a.ctx == c && !a.managed) out.push_back(range{p, a.size});
    return out;
}

void forget(CUcontext c) noexcept {
    std::lock_guard lk(g_tracker_mutex);
    for (auto it = g_tracker->begin(); it != g_tracker->end();)
        it = it->second.ctx == c ? g_tracker->erase(it) : std::next(it);
    g_marks->erase(c);
}

work_hold::work_hold() noexcept : work_hold(current_context()) {}

work_hold::work_hold(CUcontext c) noexcept {
    if (c == nullptr || c == t_exclusive) return;
    gate& g = gate_of(c);
    g.lock.lock_shared();
    gate_ = &g;
}

work_hold::~work_hold() {
    if (gate_ != nullptr) static_cast<gate*>(gate_)->lock.unlock_shared();
}

bool exclusive_use::acquire(CUcontext c, std::chrono::nanoseconds limit) noexcept {
    using namespace std::chrono;
    gate* g = &gate_of(c);
    const auto deadline = steady_clock::now() + limit;
    while (!g->lock.try_lock()) {
        if (steady_clock::now() >= deadline) return false;
        std::this_thread::yield();
    }
    gate_ = g;
    ctx_ = c;
    t_exclusive = c;
    return true;
}

void exclusive_use::release() noexcept {
    if (gate_ != nullptr && t_exclusive == ctx_) {
        t_exclusive = nullptr;
        static_cast<gate*>(gate_)->lock.unlock();
    }
    gate_ = nullptr;
}

}  // namespace encore::cuda::tracker
