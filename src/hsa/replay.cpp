// src/hsa/replay.cpp — kernel replay passes on HSA (replay.hpp): hsa_replay, the
// core::replay::dispatch_backend that locks the agent, snapshots, submits each pass of one
// dispatch and waits for it, restores, and fires the program's completion signal last.
#include "replay.hpp"

#include "dispatch_records.hpp"
#include "packets.hpp"
#include "replay_gate.hpp"
#include "replay_memory.hpp"
#include "runtime.hpp"

#include "backend/events.hpp"
#include "core/replay.hpp"

#include <encore/tracing/detail/core.hpp>

#include <chrono>
#include <memory>

namespace encore::hsa {
namespace {

std::uint64_t ticks_per_ms() noexcept {
    static const std::uint64_t v = [] {
        std::uint64_t f = 0;
        if (runtime().core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &f) != HSA_STATUS_SUCCESS || f == 0)
            f = 1'000'000'000;
        return f / 1000 > 0 ? f / 1000 : 1;
    }();
    return v;
}

}  // namespace

// Not backend::wait_until: this blocks in the runtime, 100 ms at a time, rather than polling.
bool wait_signal(hsa_signal_t s, std::uint64_t timeout_ns) noexcept {
    using namespace std::chrono;
    const auto deadline = steady_clock::now() + nanoseconds(timeout_ns);
    while (runtime().core.hsa_signal_wait_scacquire_fn(s, HSA_SIGNAL_CONDITION_LT, 1, 100 * ticks_per_ms(),
                                                       HSA_WAIT_STATE_BLOCKED) >= 1) {
        if (steady_clock::now() >= deadline) return false;
    }
    return true;
}

namespace {

// One single-packet dispatch going through the replay service (core::replay drives it).
class hsa_replay final : public core::replay::dispatch_backend {
public:
    hsa_replay(std::shared_ptr<queue_state> qs, const hsa_kernel_dispatch_packet_t& pkt,
               hsa_amd_queue_intercept_packet_writer writer, std::uint64_t dispatch_id) noexcept
        : qs_(std::move(qs)), pkt_(pkt), writer_(writer), dispatch_id_(dispatch_id) {}

    encore_replay_snapshot_policy_t default_policy() const noexcept override {
        // Measured (benchmarks/RESULTS.md): with write tracking, restoring only changed chunks
        // wins at every written fraction up to ~all of the footprint; comparing (ROCr) costs a
        // full read-back, so there the full copy is the default.
        return replay_memory::write_tracking_available() ? ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS
                                                         : ENCORE_REPLAY_SNAPSHOT_FULL_COPY;
    }

    void run_once() noexcept override {
        const auto [enqueue_mask, complete_mask] = backend::subscribed_pair(kind::kernel_dispatch,
                                                                            ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
                                                                            ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
        submit_ordinary(*qs_, pkt_, writer_, enqueue_mask, complete_mask, dispatch_id_);
    }

    const char* acquire(const core::replay::options& opt) noexcept override {
        opt_ = opt;
        switch (replay_gate::take_exclusive(agent(), std::chrono::nanoseconds(opt_.wait_timeout_ns))) {
            case replay_gate::exclusive::held: return nullptr;
            case replay_gate::exclusive::lock_timed_out:
                return "timed out waiting for exclusive use of the agent: the dispatch runs once";
            case replay_gate::exclusive::drain_timed_out:
                return "timed out draining the agent's queues and copies: the dispatch runs once";
        }
        return nullptr;
    }

    const char* snapshot(core::replay::memory_stats& out) noexcept override {
        const char* why = snap_.take(agent(), opt_, out);
        if (why != nullptr) release();
        return why;
    }

    const char* run_pass(std::uint64_t, std::uint64_t contexts) noexcept override {
        if (stuck_) return "a pass did not complete";
        hsa_kernel_dispatch_packet_t pkt;
        dispatch_record* d = begin_pass(*qs_, pkt_, dispatch_id_, contexts, pkt);
        if (d == nullptr) return "cannot create a completion signal for a pass";
        writer_(&pkt, 1);
        // Per-pass drain: the pass has completed and its COMPLETE is delivered (here, on this
        // thread) before PASS EXIT, so passes never overlap and the restore is safe.
        if (!wait_signal(pkt.completion_signal, opt_.wait_timeout_ns)) {
            stuck_ = true;
            strand(d);  // the runtime may still complete it
            return "a pass did not complete within the wait bound (ENCORE_REPLAY_TIMEOUT_MS): no further passes";
        }
        end_pass(*qs_, d, pkt_.completion_signal);
        return nullptr;
    }

    // Write tracking already restores only what each pass wrote (replay_memory.cpp).
    bool restore(core::replay::memory_stats& out, std::uint64_t, std::uint64_t) noexcept override {
        return snap_.restore(out);
    }

    void finish() noexcept override {
        const hsa_signal_t app = pkt_.completion_signal;
        if (app.handle != 0) {
            if (stuck_) {
                // After the pass still running, in queue order.
                const auto b = barrier_with(app);
                writer_(&b, 1);
            } else {
                runtime().core.hsa_signal_subtract_screlease_fn(app, 1);
            }
        }
        snap_.release();
        release();
    }

    bool checksum(std::uint64_t& out) noexcept override { return snap_.checksum(out); }

private:
    std::uint64_t agent() const noexcept { return qs_->agent.handle; }
    void release() noexcept { replay_gate::release_exclusive(agent()); }

    std::shared_ptr<queue_state> qs_;
    hsa_kernel_dispatch_packet_t pkt_;
    hsa_amd_queue_intercept_packet_writer writer_;
    std::uint64_t dispatch_id_;
    core::replay::options opt_{};
    replay_memory::snapshot snap_;
    bool stuck_ = false;
};

}  // namespace

void replay_dispatch(queue_state& qs, const hsa_kernel_dispatch_packet_t& in,
                     hsa_amd_queue_intercept_packet_writer writer) noexcept {
    // The whole sequence (CONFIG, every pass's ENQUEUE/COMPLETE) shares one correlation id: the
    // submitting call's, or one made for it.
    auto* t = tracing::detail::this_thread();
    const bool own_id = t->current == 0;
    if (own_id) t->current = tracing::detail::next_id(t);
    gate_if_needed(qs, &in, writer);
    hsa_kernel_dispatch_packet_t pkt = in;
    rocprofiler_callback_tracing_kernel_dispatch_data_t p{};
    const std::uint64_t id = next_dispatch_id();
    fill_info(p, qs, pkt, id);
    hsa_replay backend(qs.shared_from_this(), pkt, writer, id);
    core::replay::replay_dispatch(p.dispatch_info, backend);
    if (own_id) t->current = 0;
}

}  // namespace encore::hsa
