// src/cuda/gate.cpp — the per-context replay gates (gate.hpp).
#include "gate.hpp"

#include "real.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>

namespace encore::cuda::tracker {
namespace {

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
