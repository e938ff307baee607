// src/cuda/gate.cpp — the per-context replay gates (gate.hpp): the kit's device gates
// (backend/device_gate.cpp) keyed by context pointer, their lock part only. CUDA counts no work in
// flight (a replay synchronizes the context itself), so exclusive_use takes the lock without a
// drain, and no completion handler joins one.
#include "gate.hpp"

#include "backend/device_gate.hpp"
#include "real.hpp"

#include <cstdint>

namespace encore::cuda::tracker {
namespace {

using backend::device_gate;

std::uint64_t key_of(CUcontext c) noexcept { return reinterpret_cast<std::uintptr_t>(c); }

}  // namespace

work_hold::work_hold() noexcept : work_hold(current_context()) {}

work_hold::work_hold(CUcontext c) noexcept {
    const std::uint64_t key = key_of(c);
    if (key == 0 || key == device_gate::held_exclusively()) return;
    device_gate& g = device_gate::of(key);
    g.lock_shared();
    gate_ = &g;
}

work_hold::~work_hold() {
    if (gate_ != nullptr) gate_->unlock_shared();
}

bool exclusive_use::acquire(CUcontext c, std::chrono::nanoseconds limit) noexcept {
    if (!device_gate::lock_exclusive(key_of(c), limit)) return false;
    ctx_ = c;
    return true;
}

void exclusive_use::release() noexcept {
    if (ctx_ != nullptr) device_gate::release_exclusive(key_of(ctx_));
    ctx_ = nullptr;
}

}  // namespace encore::cuda::tracker
