// src/hsa/packets.hpp — the AQL packet headers encore reads (is it a kernel dispatch, has it the
// barrier bit) and the barrier-AND packets it writes into intercepted queues. Header only.
#pragma once

#include <hsa/hsa.h>

#include <cstdint>
#include <cstring>

namespace encore::hsa {

inline bool is_kernel_dispatch(const void* pkt) noexcept {
    std::uint16_t header;
    std::memcpy(&header, pkt, sizeof(header));
    return ((header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1)) ==
           HSA_PACKET_TYPE_KERNEL_DISPATCH;
}

inline bool has_barrier_bit(const void* pkt) noexcept {
    std::uint16_t header;
    std::memcpy(&header, pkt, sizeof(header));
    return ((header >> HSA_PACKET_HEADER_BARRIER) & 1u) != 0;
}

/// A barrier-AND packet (system-scope fences) that signals `completion` when it retires.
inline hsa_barrier_and_packet_t barrier_with(hsa_signal_t completion, bool barrier_bit = true) noexcept {
    hsa_barrier_and_packet_t barrier{};
    barrier.header = static_cast<std::uint16_t>((HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) |
                                                ((barrier_bit ? 1u : 0u) << HSA_PACKET_HEADER_BARRIER) |
                                                (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                                                (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
    barrier.completion_signal = completion;
    return barrier;
}

}  // namespace encore::hsa
