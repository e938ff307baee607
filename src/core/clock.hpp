// src/core/clock.hpp — encore's clock: every timestamp encore reports (rocprofiler_get_timestamp,
// records' start/end) is CLOCK_BOOTTIME in nanoseconds, as the reference's are.
#pragma once

#include <cstdint>
#include <ctime>

namespace encore::core {

[[nodiscard]] inline std::uint64_t now_ns() noexcept {
    timespec t{};
    ::clock_gettime(CLOCK_BOOTTIME, &t);
    return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(t.tv_nsec);
}

}  // namespace encore::core
