// src/cuda/cupti.hpp — kernel GPU times from NVIDIA's CUPTI activity API, the cheaper of the two
// timing sources of KERNEL_DISPATCH records (records.cpp; the other is a pair of CUDA events per
// launch). CUPTI is loaded at run time (never a link dependency) when the first launch that wants
// a COMPLETE record is made, and only if ENCORE_CUDA_DISPATCH_TIMING allows it (docs/cuda.md).
//
//   if (cupti::active(&on_times)) {       // decided once per process
//       const bool pushed = cupti::push(key);   // key: encore's, unique per launch
//       r = launch();
//       if (pushed) cupti::pop();
//   }                                     // later, on CUPTI's thread: on_times(key, start, end, true)
#pragma once

#include <cstddef>
#include <cstdint>

namespace encore::cuda::cupti {

/// Receives the GPU times (encore's clock, CLOCK_BOOTTIME ns) of a kernel launched with `key`
/// pushed; `timed` false: CUPTI had no times for it. Returns whether `key` was a launch waiting
/// for its times (a correlation id may have been paired with more than one key: each is offered
/// in turn, newest first, until one is taken). Runs on CUPTI's delivery thread or on a thread
/// calling flush(), never with a lock of this file held.
using times_fn = bool (*)(std::uint64_t key, std::uint64_t start_ns, std::uint64_t end_ns, bool timed) noexcept;

/// Whether dispatch times come from CUPTI. The first call decides, for the process: it reads
/// ENCORE_CUDA_DISPATCH_TIMING (auto | cupti | events), loads and initializes CUPTI unless
/// `events`, and says once on stderr why CUPTI is not used when it was found or asked for and
/// failed. `on_times` is what the first call passes; later calls' are ignored.
bool active(times_fn on_times) noexcept;
/// Around a launch on this thread: `key` as CUPTI's external correlation id (kind CUSTOM2) of the
/// launch's driver call. false: not pushed (the launch gets no times from CUPTI).
bool push(std::uint64_t key) noexcept;
void pop() noexcept;
/// Whether CUPTI evidently does not pair encore's keys with kernel records: no kernel record was
/// ever paired with a key while at least `threshold` arrived unpaired and `waiting` (encore's
/// launches still waiting for times) is at least `threshold` too. A safety net for a CUPTI that
/// writes its correlation records differently from what cupti.cpp expects.
bool pairing_broken(std::size_t waiting, std::size_t threshold) noexcept;
/// Has CUPTI hand over the buffers it completed (`forced`: also the records it has not
/// completed); their records reach `on_times` before this returns. No-op unless active.
void flush(bool forced) noexcept;

}  // namespace encore::cuda::cupti
