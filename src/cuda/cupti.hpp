// src/cuda/cupti.hpp — kernel GPU times from NVIDIA's CUPTI activity API, the cheaper of the two
// timing sources of KERNEL_DISPATCH records (records.cpp; the other is a pair of CUDA events per
// launch). CUPTI is loaded at run time (never a link dependency) when the first launch that wants
// a COMPLETE record is made, and only if ENCORE_CUDA_DISPATCH_TIMING allows it (docs/cuda.md).
//
//   if (cupti::active(&on_times)) {                 // decided once per process
//       std::uint64_t ids = cupti::stream_key(cupti::context_key(ctx), ctx, stream, per_thread);
//       cupti::queued_launch q(ids, key, grid, block);  // key: encore's, unique per launch; 0: none
//       r = launch();
//       if (r != CUDA_SUCCESS) q.rejected();
//   }                                               // later, on CUPTI's thread: on_times(key, start, end, true)
//
// Two pairing methods (ENCORE_CUPTI_PAIRING): `stream` (the default) pairs each kernel record with
// the oldest launch encore queued on the record's stream; `external` pushes the key as CUPTI's
// external correlation id around the launch (push()/pop()), which CUDA 13's CUPTI did not pair
// with kernels launched through the CUDA runtime (docs/cuda.md, "GPU times").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace encore::cuda::cupti {

/// Receives the GPU times (encore's clock, CLOCK_BOOTTIME ns) of a kernel launched with `key`
/// pushed; `timed` false: CUPTI had no times for it. Returns whether `key` was a launch waiting
/// for its times (a correlation id may have been paired with more than one key: each is offered
/// in turn, newest first, until one is taken). Runs on CUPTI's delivery thread or on a thread
/// calling flush(), never with a lock of this file held.
using times_fn = bool (*)(std::uint64_t key, std::uint64_t start_ns, std::uint64_t end_ns, bool timed) noexcept;

/// One kernel record's times for `key` (timed false: none), as stream-order pairing hands them
/// over: all of one CUPTI buffer's at once, so the receiver takes its lock once per buffer and
/// not twice per record (the launching threads contend for it). Buffers are handed over one at
/// a time (never two batches at once).
struct completion {
    std::uint64_t key, start_ns, end_ns;
    bool timed;
};
using batch_fn = void (*)(const completion* c, std::size_t n) noexcept;

/// Whether dispatch times come from CUPTI. The first call decides, for the process: it reads
/// ENCORE_CUDA_DISPATCH_TIMING (auto | cupti | events), loads and initializes CUPTI unless
/// `events`, and says once on stderr why CUPTI is not used when it was found or asked for and
/// failed. `on_times` is what the first call passes; later calls' are ignored.
/// `on_batch` (optional) receives stream-order pairing's completions a buffer at a time; without
/// it each goes to `on_times`.
bool active(times_fn on_times, batch_fn on_batch = nullptr) noexcept;
enum class pairing : unsigned char { stream, external };
/// The method active() chose (meaningful once it returned true).
pairing method() noexcept;

/// CUPTI's id of context `ctx` as the high half of a stream key ((id + 1) << 32; 0: CUPTI cannot
/// name it), to be cached by the caller for the context's lifetime.
std::uint64_t context_key(void* ctx) noexcept;
/// The stream key of `stream` of that context (context_key | CUPTI's stream id; 0: unknown).
/// `stream` null with `per_thread`: the calling thread's default stream; null without: the legacy
/// default stream (CU_STREAM_LEGACY / CU_STREAM_PER_THREAD are taken as such).
std::uint64_t stream_key(std::uint64_t context_key, void* ctx, void* stream, bool per_thread) noexcept;

/// A launch on one stream, for stream-order pairing: the constructor queues an entry (`key`, or 0:
/// a launch whose record is awaited only to keep the stream's order, e.g. a replay pass or a launch
/// no tool wants the COMPLETE of) and holds the stream's submission order until destroyed, so
/// entries are queued in the order the driver receives the launches. Construct it right before the
/// driver call; `ids` 0 queues nothing.
class queued_launch {
public:
    queued_launch(std::uint64_t ids, std::uint64_t key, const unsigned grid[3], const unsigned block[3]) noexcept;
    ~queued_launch();
    queued_launch(const queued_launch&) = delete;
    queued_launch& operator=(const queued_launch&) = delete;
    /// Whether the entry was queued (false: no times will come from CUPTI for it).
    [[nodiscard]] bool queued() const noexcept { return q_ != nullptr; }
    /// The driver rejected the launch: its entry is taken back (no kernel record will come).
    void rejected() noexcept;

private:
    void* q_ = nullptr;
    std::uint64_t key_ = 0;
    std::uint64_t index_ = 0;  // the entry's place in its stream's queue
};

/// Around a launch on this thread (pairing::external): `key` as CUPTI's external correlation id (kind CUSTOM2) of the
/// launch's driver call. false: not pushed (the launch gets no times from CUPTI).
bool push(std::uint64_t key) noexcept;
void pop() noexcept;
/// Whether CUPTI evidently does not pair encore's launches with kernel records: `never_paired`, no
/// kernel record was ever paired while at least `threshold` arrived unpaired and `waiting`
/// (encore's launches still waiting for times) is at least `threshold` too (a CUPTI that writes
/// its records differently from what cupti.cpp expects); `drifting`, stream-order pairing had to
/// resynchronize (or CUPTI reported dropped records) more than `drift_limit` times.
enum class health : unsigned char { ok, never_paired, drifting };
health pairing_health(std::size_t waiting, std::size_t threshold) noexcept;
/// Resynchronizations and dropped-record reports so far (for the fallback's message).
std::uint64_t drift_events() noexcept;
/// With ENCORE_CUPTI_STATS=1, at exit: on stderr, how kernel records were paired (paired, matched
/// no launch, without times, skipped by resynchronizations, still waiting) and the first records
/// that matched no launch, each with its stream's oldest waiting entry.
void report() noexcept;
/// CUPTI is no longer used for times: its kernel records are turned off.
void stop() noexcept;
/// libcupti, found as for dispatch times (ENCORE_CUPTI_LIBRARY, one already loaded, CUDA_HOME,
/// beside libcudart, the loader's path), for the counter source (counters.cpp); null when none
/// loads. `path`: what was loaded (or asked for).
void* open_library(std::string& path) noexcept;
/// Has CUPTI hand over the buffers it completed (`forced`: also the records it has not
/// completed); their records reach `on_times` before this returns. No-op unless active.
void flush(bool forced) noexcept;

}  // namespace encore::cuda::cupti
