// src/hsa/range_log.hpp — what an HSA range's recording accepts besides dispatches: the copies and
// fills its thread makes into the range's agent's memory, kept as entries in submission order
// among the dispatches and re-issued in every later pass. Header only.
//
// memory.cpp (the copy and fill wrappers) sits below range_replay.cpp (the recording, hsa_range)
// in libencore-hsa's call order, so it reaches the recording through this interface:
//
//   if (auto* log = dynamic_cast<range_log*>(core::range_replay::current())) log->add(entry);
#pragma once

#include "core/range_replay.hpp"

#include <hsa/hsa.h>

#include <cstddef>
#include <cstdint>

namespace encore::hsa {

/// One copy or fill of a range, as its passes re-issue it.
struct range_copy {
    enum class form : std::uint8_t {
        copy,        // hsa_memory_copy: re-issued synchronously
        async_copy,  // hsa_amd_memory_async_copy: re-issued without the program's dependencies,
                     // with encore's completion signal, waited for (the replay timeout)
        fill,        // hsa_amd_memory_fill: re-issued with the program's arguments
    };
    form what = form::copy;
    void* dst = nullptr;
    /// A copy's source. For a host-to-device copy (`from_host`) the bytes it points at are copied
    /// when the entry is recorded, and the passes copy from encore's copy of them: the program may
    /// reuse its buffer as soon as the call returned (or its async copy completed).
    const void* src = nullptr;
    bool from_host = false;
    std::size_t bytes = 0;    // a fill: `count`, in 32-bit words
    std::uint32_t value = 0;  // a fill's word
    hsa_agent_t dst_agent{};  // an async copy's agents, as the program gave them
    hsa_agent_t src_agent{};
};

/// The HSA recording of one range (range_replay.cpp's hsa_range), as the copy wrappers see it.
class range_log : public core::range_replay::recording {
public:
    /// Records `c` after the dispatches and entries recorded so far. A reason when it cannot be
    /// kept (the recording is full, no host memory for a host-to-device copy's bytes).
    virtual const core::range_replay::decline_reason* add(const range_copy& c) noexcept = 0;
};

}  // namespace encore::hsa
