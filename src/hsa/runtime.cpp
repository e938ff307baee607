// src/hsa/runtime.cpp — the HSA runtime's own functions and the mapping of its clock onto
// encore's (runtime.hpp): the state every other file of libencore-hsa reads.
#include "runtime.hpp"

#include "core/clock.hpp"

#include <cstring>

namespace encore::hsa {
namespace {

originals g_runtime;
double g_ns_per_tick = 1.0;
std::int64_t g_offset_ns = 0;

// The runtime's timestamps count ticks of its own clock; map them onto CLOCK_BOOTTIME (the clock
// of every encore timestamp) once, at load.
void calibrate_clock() noexcept {
    std::uint64_t freq = 0, now = 0;
    if (g_runtime.core.hsa_system_get_info_fn == nullptr ||
        g_runtime.core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq) != HSA_STATUS_SUCCESS ||
        freq == 0)
        return;
    g_ns_per_tick = 1e9 / static_cast<double>(freq);
    const std::uint64_t before = core::now_ns();
    if (g_runtime.core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP, &now) != HSA_STATUS_SUCCESS) return;
    const std::uint64_t after = core::now_ns();
    g_offset_ns = static_cast<std::int64_t>((before + after) / 2) -
                  static_cast<std::int64_t>(static_cast<double>(now) * g_ns_per_tick);
}

template <class T>
void copy_table(T& out, const T* in) noexcept {
    if (in == nullptr) return;
    // Copy no more than the runtime reports; later slots stay null.
    const std::size_t n = in->version.minor_id < sizeof(T) ? in->version.minor_id : sizeof(T);
    std::memcpy(&out, in, n);
}

}  // namespace

const originals& runtime() noexcept { return g_runtime; }

void adopt_runtime(const ::HsaApiTable& table) noexcept {
    copy_table(g_runtime.core, table.core_);
    copy_table(g_runtime.amd, table.amd_ext_);
    calibrate_clock();
}

std::uint64_t to_encore_ns(std::uint64_t ticks) noexcept {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<double>(ticks) * g_ns_per_tick) + g_offset_ns);
}

}  // namespace encore::hsa
