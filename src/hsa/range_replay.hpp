// src/hsa/range_replay.hpp — range replay on HSA (range_replay.cpp): what a thread with an open
// range submits is recorded (pass 0 runs as submitted), and at the range's end the recording is
// re-executed on a private queue of the agent, from the snapshot taken before its first dispatch.
#pragma once

#include <encore/domains/detail/hsa_table.hpp>  // hsa_amd_queue_intercept_packet_writer

#include <cstdint>

namespace encore::hsa {

struct queue_state;

/// A packet batch on `qs` while some range is open (core::range_replay::any_open()). On a thread
/// with an open range the batch is submitted the ordinary way, and recorded while the range
/// records (returns true: done); on another thread a dispatch on a range's agent declines that
/// range (returns false: the caller submits it).
bool range_submit(queue_state& qs, const void* pkts, std::uint64_t count, hsa_amd_queue_intercept_packet_writer writer,
                  std::uint64_t enqueue_mask, std::uint64_t complete_mask) noexcept;

}  // namespace encore::hsa
