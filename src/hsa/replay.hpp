// src/hsa/replay.hpp — kernel replay of one HSA dispatch (replay.cpp): the HSA side of the
// backend-neutral flow in core/replay.hpp (exclusive use of the agent, snapshot, one pass per
// submission of the packet, restore, the program's signal last).
#pragma once

#include <encore/domains/detail/hsa_table.hpp>  // hsa_amd_queue_intercept_packet_writer

#include <cstdint>

namespace encore::hsa {

struct queue_state;

/// Runs the single-packet kernel dispatch `pkt`, submitted on `qs`, through the replay service
/// (which may run it once, or decline and run it once). The caller checked that the service is
/// active and that this is not a dispatch from inside a replay.
void replay_dispatch(queue_state& qs, const hsa_kernel_dispatch_packet_t& pkt,
                     hsa_amd_queue_intercept_packet_writer writer) noexcept;

/// Waits until `s` drops below 1, at most timeout_ns (false on timeout). Range replay's passes too.
[[nodiscard]] bool wait_signal(hsa_signal_t s, std::uint64_t timeout_ns) noexcept;

}  // namespace encore::hsa
