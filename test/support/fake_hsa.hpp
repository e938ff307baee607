// test/support/fake_hsa.hpp — an HSA API table filled with small functions of the real HSA
// signatures, so wrappers and argument iteration are tested over real prototypes without a
// runtime. (End-to-end HSA tests run on the software HSA runtime, src/sim.)
#pragma once

#include <encore/domains/detail/hsa_table.hpp>

#include <atomic>

namespace fake_hsa {

struct counters {
    std::atomic<int> init{0}, shut_down{0}, signal_load{0}, queue_create{0}, agent_get_info{0}, signal_create{0},
        get_symbol{0}, pool_allocate{0};
};
counters& calls();

/// A table container whose core and AMD-extension slots point at the fake functions (other
/// slots stay null). version.minor_id is the full size unless `core_size` is given.
struct tables {
    ::HsaApiTable root{};
    ::CoreApiTable core{};
    ::AmdExtTable amd{};
    ::ImageExtTable image{};
    ::FinalizerExtTable finalizer{};
    explicit tables(std::uint32_t core_size = sizeof(::CoreApiTable));
};

inline constexpr hsa_signal_value_t signal_value = 42;
inline constexpr std::uint64_t queue_handle_base = 0x1000;

}  // namespace fake_hsa
