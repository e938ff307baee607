// src/hsa/range_replay.cpp — range replay on HSA (range_replay.hpp): hsa_range, the
// core::range_replay::recording of one range. Recording happens in the intercept handler of the
// range's thread; at end the agent is held exclusively (replay_gate), pass 0's end state is
// captured, and each pass writes the recorded packets (arguments staged in kernarg memory of
// encore's) to a private queue of the agent, one at a time, each waited for. The copies and fills
// the range's thread made into the agent's memory (memory.cpp, through range_log.hpp) are entries
// of the same log, re-issued in their place between the dispatches, each waited for too.
//
// Memory: the start snapshot is a host copy taken without write tracking (the application runs
// between it and the passes, and another thread's kernel replay on the agent may arm tracking on
// the same regions meanwhile); what pass 0 left is kept as the chunks that differ from it (one
// compare, no second copy). Under changed_chunks the restore before pass 1 compares each chunk and
// writes those that differ (the ROCr way); then, with the agent held, the start snapshot is
// write-tracked, so the restores between later passes write only what the passes changed
// (full_copy writes everything). The final restore compares and writes back pass 0's state.
#include "range_replay.hpp"

#include "code_object.hpp"
#include "dispatch_records.hpp"
#include "packets.hpp"
#include "range_log.hpp"
#include "replay.hpp"
#include "replay_gate.hpp"
#include "replay_memory.hpp"
#include "runtime.hpp"

#include "core/range_replay.hpp"
#include "core/replay.hpp"

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

namespace encore::hsa {
namespace {

namespace rr = core::range_replay;

// The reasons, each a static object the core hands to the tool (first one wins).
constexpr rr::decline_reason multi_queue{ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_QUEUE,
                                         "a range that submits to a second queue is not replayed"};
constexpr rr::decline_reason multi_agent{ROCPROFILER_RANGE_REPLAY_STATUS_MULTI_AGENT,
                                         "a range that submits to a second agent is not replayed"};
constexpr rr::decline_reason concurrent{ROCPROFILER_RANGE_REPLAY_STATUS_CONCURRENT_DISPATCH,
                                        "another thread dispatched to a range's agent while it was open: the range "
                                        "is not replayed"};
constexpr rr::decline_reason unknown_kernarg{ROCPROFILER_RANGE_REPLAY_STATUS_UNKNOWN_KERNARG_SIZE,
                                             "a range dispatched a kernel whose argument size is unknown (not of a "
                                             "frozen executable): the range is not replayed"};
constexpr rr::decline_reason odd_packet{ROCPROFILER_RANGE_REPLAY_STATUS_UNSUPPORTED_QUEUE_PATH,
                                        "a range submitted a packet that is neither a kernel dispatch nor a barrier: "
                                        "the range is not replayed"};
constexpr rr::decline_reason too_large{ROCPROFILER_RANGE_REPLAY_STATUS_PROGRAM_TOO_LARGE,
                                       "a range of more than 65536 entries (dispatches, copies, fills) is not "
                                       "replayed"};
constexpr rr::decline_reason snapshot_failed{ROCPROFILER_RANGE_REPLAY_STATUS_SNAPSHOT_FAILED,
                                             "the range's start snapshot could not be taken (budget, host memory, "
                                             "a copy, or the drain timed out): the range is not replayed"};
constexpr rr::decline_reason staging_failed{ROCPROFILER_RANGE_REPLAY_STATUS_STAGING_FAILED,
                                            "no kernarg memory, queue or end snapshot for the range's passes: the "
                                            "range is not replayed"};
constexpr rr::decline_reason timed_out{ENCORE_RANGE_REPLAY_STATUS_TIMED_OUT,
                                       "timed out waiting for the range's agent (ENCORE_REPLAY_TIMEOUT_MS): the range "
                                       "is not replayed"};
constexpr rr::decline_reason pass_stuck{ENCORE_RANGE_REPLAY_STATUS_TIMED_OUT,
                                        "a dispatch of a range's pass did not complete within ENCORE_REPLAY_TIMEOUT_MS: "
                                        "no further passes"};
constexpr rr::decline_reason copy_stuck{ENCORE_RANGE_REPLAY_STATUS_TIMED_OUT,
                                        "an async copy of a range's pass did not complete within "
                                        "ENCORE_REPLAY_TIMEOUT_MS: no further passes"};
constexpr rr::decline_reason copy_failed{ROCPROFILER_RANGE_REPLAY_STATUS_MEMORY_COPY_IN_RANGE,
                                         "the runtime refused a copy or fill of a range's pass: no further passes"};

constexpr std::size_t max_entries = 65536;
constexpr std::size_t staged_align = 64;

// One entry of a range's log: a kernel dispatch, or a copy or fill (`copy`, when `is_copy`).
struct recorded {
    bool is_copy = false;
    hsa_kernel_dispatch_packet_t pkt{};
    std::uint64_t dispatch_id = 0;
    range_copy copy{};
    std::size_t staged_offset = 0;  // into the staged bytes: the kernel arguments, a host copy's bytes
    std::size_t staged_size = 0;
};

// The first CPU agent's kernarg pool (where the passes' arguments are staged).
hsa_amd_memory_pool_t kernarg_pool() noexcept {
    static const hsa_amd_memory_pool_t pool = [] {
        struct search {
            hsa_amd_memory_pool_t found{};
        } s;
        const auto& rt = runtime();
        rt.core.hsa_iterate_agents_fn(
            [](hsa_agent_t a, void* data) {
                hsa_device_type_t type{};
                if (runtime().core.hsa_agent_get_info_fn(a, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS ||
                    type != HSA_DEVICE_TYPE_CPU)
                    return HSA_STATUS_SUCCESS;
                runtime().amd.hsa_amd_agent_iterate_memory_pools_fn(
                    a,
                    [](hsa_amd_memory_pool_t p, void* d) {
                        std::uint32_t flags = 0;
                        hsa_amd_segment_t seg{};
                        if (runtime().amd.hsa_amd_memory_pool_get_info_fn(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg) ==
                                HSA_STATUS_SUCCESS &&
                            seg == HSA_AMD_SEGMENT_GLOBAL &&
                            runtime().amd.hsa_amd_memory_pool_get_info_fn(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS,
                                                                          &flags) == HSA_STATUS_SUCCESS &&
                            (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) != 0) {
                            static_cast<search*>(d)->found = p;
                            return HSA_STATUS_INFO_BREAK;
                        }
                        return HSA_STATUS_SUCCESS;
                    },
                    data);
                return static_cast<search*>(data)->found.handle != 0 ? HSA_STATUS_INFO_BREAK : HSA_STATUS_SUCCESS;
            },
            &s);
        return s.found;
    }();
    return pool;
}

class hsa_range final : public range_log {
public:
    explicit hsa_range(std::shared_ptr<queue_state> qs) noexcept : qs_(std::move(qs)) {}
    ~hsa_range() override { finish(); }

    encore_replay_snapshot_policy_t default_policy() const noexcept override {
        return replay_memory::write_tracking_available() ? ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS
                                                         : ENCORE_REPLAY_SNAPSHOT_FULL_COPY;
    }

    // The start snapshot, before the range's first dispatch runs: the agent drained, then copied.
    const rr::decline_reason* start(const core::replay::options& opt) noexcept override {
        opt_ = opt;
        if (replay_gate::take_exclusive(agent(), std::chrono::nanoseconds(opt_.wait_timeout_ns)) !=
            replay_gate::exclusive::held)
            return &timed_out;
        core::replay::memory_stats st;
        const char* why = start_.take(agent(), opt_, st, /*track_writes=*/false);
        replay_gate::release_exclusive(agent());
        if (why != nullptr) return &snapshot_failed;
        snapshot_bytes_ = st.bytes;
        return nullptr;
    }

    // One kernel dispatch of pass 0, before it is submitted.
    const rr::decline_reason* add(const hsa_kernel_dispatch_packet_t& pkt, std::uint64_t dispatch_id) noexcept {
        if (log_.size() >= max_entries) return &too_large;
        std::uint64_t size = 0;
        if (!kernarg_size_of(pkt.kernel_object, size) || (size != 0 && pkt.kernarg_address == nullptr))
            return &unknown_kernarg;
        recorded r;
        r.pkt = pkt;
        r.dispatch_id = dispatch_id;
        if (!stage(pkt.kernarg_address, size, r) || !keep(r)) return &staging_failed;
        ++dispatches_;
        return nullptr;
    }

    // A copy or fill of pass 0, before it is issued (memory.cpp checked it is the agent's).
    const rr::decline_reason* add(const range_copy& c) noexcept override {
        if (log_.size() >= max_entries) return &too_large;
        recorded r;
        r.is_copy = true;
        r.copy = c;
        if (c.what != range_copy::form::fill && c.from_host && !stage(c.src, c.bytes, r)) return &staging_failed;
        if (c.what == range_copy::form::async_copy) async_copies_ = true;
        return keep(r) ? nullptr : &staging_failed;
    }

    [[nodiscard]] const queue_state* queue() const noexcept { return qs_.get(); }
    [[nodiscard]] std::uint64_t agent() const noexcept override { return qs_->agent.handle; }
    [[nodiscard]] std::uint64_t dispatch_count() const noexcept override { return dispatches_; }
    [[nodiscard]] std::uint64_t snapshot_bytes() const noexcept override { return snapshot_bytes_; }

    const rr::decline_reason* prepare() noexcept override {
        if (replay_gate::take_exclusive(agent(), std::chrono::nanoseconds(opt_.wait_timeout_ns)) !=
            replay_gate::exclusive::held)
            return &timed_out;
        held_ = true;
        if (final_.take(start_) != nullptr) return &staging_failed;
        const auto& rt = runtime();
        if (rt.core.hsa_queue_create_fn(qs_->agent, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX,
                                        &queue_) != HSA_STATUS_SUCCESS) {
            queue_ = nullptr;
            return &staging_failed;
        }
        (void)rt.amd.hsa_amd_profiling_set_profiler_enabled_fn(queue_, 1);
        if (!staging_.empty()) {
            const hsa_amd_memory_pool_t pool = kernarg_pool();
            if (pool.handle == 0 ||
                rt.amd.hsa_amd_memory_pool_allocate_fn(pool, staging_.size(), 0, &staged_) != HSA_STATUS_SUCCESS) {
                staged_ = nullptr;
                return &staging_failed;
            }
            (void)rt.amd.hsa_amd_agents_allow_access_fn(1, &qs_->agent, nullptr, staged_);
            std::memcpy(staged_, staging_.data(), staging_.size());
        }
        if (async_copies_ && rt.core.hsa_signal_create_fn(1, 0, nullptr, &copy_done_) != HSA_STATUS_SUCCESS) {
            copy_done_ = {};
            return &staging_failed;
        }
        return nullptr;
    }

    bool restore_start() noexcept override {
        core::replay::memory_stats st;
        if (!start_.restore(st)) return false;
        // The first restore compared (or copied) everything; from now on, with the agent held,
        // write tracking is safe to arm and later restores write only what the passes changed.
        start_.arm();
        return true;
    }
    bool restore_final() noexcept override {
        core::replay::memory_stats st;
        return final_.restore(start_, st);
    }
    std::uint64_t diverging_from_start() noexcept override { return start_.differing_regions(); }
    std::uint64_t diverging_from_final() noexcept override { return final_.differing_regions(start_); }

    const rr::decline_reason* run_pass(std::uint64_t, std::uint64_t contexts) noexcept override {
        for (const auto& r : log_) {
            if (r.is_copy) {
                if (const rr::decline_reason* d = reissue(r); d != nullptr) return d;
                continue;
            }
            hsa_kernel_dispatch_packet_t pkt = r.pkt;
            pkt.kernarg_address = r.staged_size != 0 ? static_cast<std::byte*>(staged_) + r.staged_offset : nullptr;
            pkt.completion_signal = {};
            hsa_kernel_dispatch_packet_t out;
            dispatch_record* d = begin_pass(*qs_, pkt, r.dispatch_id, contexts, out);
            if (d == nullptr) return &staging_failed;
            write(out);
            if (!wait_signal(out.completion_signal, opt_.wait_timeout_ns)) {
                strand(d);      // the runtime may still complete it
                stuck_ = true;  // the private queue is left to the runtime (not destroyed)
                return &pass_stuck;
            }
            end_pass(*qs_, d, hsa_signal_t{});
        }
        return nullptr;
    }

    void finish() noexcept override {
        const auto& rt = runtime();
        if (queue_ != nullptr && !stuck_) rt.core.hsa_queue_destroy_fn(queue_);
        queue_ = nullptr;
        if (staged_ != nullptr && !stuck_) rt.amd.hsa_amd_memory_pool_free_fn(staged_);
        staged_ = nullptr;
        // A copy that timed out may still signal it: then it stays the runtime's.
        if (copy_done_.handle != 0 && !stuck_) rt.core.hsa_signal_destroy_fn(copy_done_);
        copy_done_ = {};
        start_.release();
        final_.release();
        if (held_) replay_gate::release_exclusive(agent());
        held_ = false;
    }

private:
    // Copies `size` bytes at `from` into the staged bytes, at an aligned offset noted in `r`.
    bool stage(const void* from, std::size_t size, recorded& r) noexcept {
        try {
            const std::size_t off = (staging_.size() + staged_align - 1) / staged_align * staged_align;
            staging_.resize(off + size);
            if (size != 0) std::memcpy(staging_.data() + off, from, size);
            r.staged_offset = off;
            r.staged_size = size;
        } catch (...) {
            return false;
        }
        return true;
    }
    bool keep(const recorded& r) noexcept {
        try {
            log_.push_back(r);
        } catch (...) {
            return false;
        }
        return true;
    }

    // A copy or fill of the log, issued again (the agent is this thread's: no gate) and complete
    // when this returns. An async copy waits for nothing of the program's (the pass is serial: what
    // it depended on ran before it) and signals encore's signal, not the program's (which pass 0
    // fired once).
    const rr::decline_reason* reissue(const recorded& r) noexcept {
        const auto& rt = runtime();
        const range_copy& c = r.copy;
        if (c.bytes == 0) return nullptr;  // pass 0's call did nothing either
        const void* src = c.from_host ? static_cast<const std::byte*>(staged_) + r.staged_offset : c.src;
        switch (c.what) {
            case range_copy::form::fill:
                return rt.amd.hsa_amd_memory_fill_fn(c.dst, c.value, c.bytes) == HSA_STATUS_SUCCESS ? nullptr
                                                                                                    : &copy_failed;
            case range_copy::form::copy:
                return rt.core.hsa_memory_copy_fn(c.dst, src, c.bytes) == HSA_STATUS_SUCCESS ? nullptr : &copy_failed;
            case range_copy::form::async_copy:
                rt.core.hsa_signal_store_screlease_fn(copy_done_, 1);
                if (rt.amd.hsa_amd_memory_async_copy_fn(c.dst, c.dst_agent, src, c.src_agent, c.bytes, 0, nullptr,
                                                        copy_done_) != HSA_STATUS_SUCCESS)
                    return &copy_failed;
                if (!wait_signal(copy_done_, opt_.wait_timeout_ns)) {
                    stuck_ = true;  // the runtime may still read the staged bytes and signal copy_done_
                    return &copy_stuck;
                }
                return nullptr;
        }
        return &copy_failed;
    }

    // One packet on the private queue (the AQL protocol: slot, body, header last, doorbell).
    void write(const hsa_kernel_dispatch_packet_t& pkt) noexcept {
        const auto& rt = runtime();
        const std::uint64_t idx = rt.core.hsa_queue_add_write_index_screlease_fn(queue_, 1);
        while (idx - rt.core.hsa_queue_load_read_index_scacquire_fn(queue_) >= queue_->size) {
        }
        auto* slot = static_cast<hsa_kernel_dispatch_packet_t*>(queue_->base_address) + (idx & (queue_->size - 1));
        std::memcpy(reinterpret_cast<char*>(slot) + 4, reinterpret_cast<const char*>(&pkt) + 4, sizeof(pkt) - 4);
        std::uint32_t first = 0;
        std::memcpy(&first, &pkt, sizeof(first));
        __atomic_store_n(reinterpret_cast<std::uint32_t*>(slot), first, __ATOMIC_RELEASE);
        rt.core.hsa_signal_store_screlease_fn(queue_->doorbell_signal, static_cast<hsa_signal_value_t>(idx));
    }

    std::shared_ptr<queue_state> qs_;
    core::replay::options opt_{};
    replay_memory::snapshot start_;
    replay_memory::delta final_;  // what pass 0 left, as changes over start_
    std::uint64_t snapshot_bytes_ = 0;
    std::vector<recorded> log_;
    std::uint64_t dispatches_ = 0;
    std::vector<std::byte> staging_;  // kernel arguments and host-to-device copies' bytes, staged_ at prepare
    void* staged_ = nullptr;
    hsa_signal_t copy_done_{};  // the passes' async copies' completion (one at a time)
    bool async_copies_ = false;
    hsa_queue_t* queue_ = nullptr;
    bool held_ = false;
    bool stuck_ = false;
};

}  // namespace

bool range_submit(queue_state& qs, const void* pkts, std::uint64_t count, hsa_amd_queue_intercept_packet_writer writer,
                  std::uint64_t enqueue_mask, std::uint64_t complete_mask) noexcept {
    const auto* in = static_cast<const hsa_kernel_dispatch_packet_t*>(pkts);
    bool dispatches = false;
    for (std::uint64_t i = 0; i < count; ++i) dispatches = dispatches || is_kernel_dispatch(&in[i]);
    if (!rr::open_here()) {
        if (dispatches) rr::decline_agent(qs.agent.handle, concurrent);
        return false;
    }
    // A thread with an open range submits the ordinary way from here on, replayed range or not:
    // its dispatches are pass 0 (never kernel-replayed one by one), recorded while it records.
    rr::recording* const current = rr::current();
    auto* rec = dynamic_cast<hsa_range*>(current);
    // A range libencore-cuda started on this thread (both backends loaded): HSA work is a second agent.
    if (current != nullptr && rec == nullptr) {
        if (dispatches) rr::decline(multi_agent);
    } else if (dispatches && rr::recording_here()) {
        if (rec == nullptr) {
            auto r = std::make_unique<hsa_range>(qs.shared_from_this());
            // Bound to its agent before the snapshot, as on CUDA: another thread's dispatch on the
            // agent from now on declines the range (concurrent), never runs unrecorded between the
            // snapshot and the binding (its effects would be undone by each pass's restore).
            rec = r.get();
            rr::attach(std::move(r));
            if (const rr::decline_reason* d = rr::start(*rec); d != nullptr) rr::decline(*d);
        } else if (rec->queue() != &qs) {
            rr::decline(rec->agent() == qs.agent.handle ? multi_queue : multi_agent);
        }
    }
    for (std::uint64_t i = 0; i < count; ++i) {
        gate_if_needed(qs, &in[i], writer);
        if (!is_kernel_dispatch(&in[i])) {
            // A barrier orders what the range submits; the passes run one dispatch at a time anyway.
            std::uint16_t header;
            std::memcpy(&header, &in[i], sizeof(header));
            const unsigned type = (header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
            if (type != HSA_PACKET_TYPE_BARRIER_AND && type != HSA_PACKET_TYPE_BARRIER_OR) rr::decline(odd_packet);
            writer(&in[i], 1);
            continue;
        }
        const std::uint64_t id = next_dispatch_id();
        if (rec != nullptr && rr::recording_here())
            if (const rr::decline_reason* d = rec->add(in[i], id); d != nullptr) rr::decline(*d);
        submit_ordinary(qs, in[i], writer, enqueue_mask, complete_mask, id);
    }
    return true;
}

}  // namespace encore::hsa
