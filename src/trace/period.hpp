// src/trace/period.hpp — rocprofv3's collection periods (-P DELAY:TIME:REPEAT with
// --collection-period-unit), shared by the converter, which keeps what started inside them, and
// the tool, which records only around them (tool.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace encore::trace {

/// From a process's start, `delay_ns` left out, then `length_ns` kept, the cycle `repeat` times
/// (0: forever).
struct collection_period {
    std::uint64_t delay_ns = 0, length_ns = 0, repeat = 0;
};

/// "DELAY:TIME:REPEAT" (three whole numbers, TIME > 0) in `unit` (hour, min, sec, msec, usec,
/// nsec); nothing when malformed or when DELAY or TIME in ns would not fit 64 bits.
inline std::optional<collection_period> parse_collection_period(std::string_view text, std::string_view unit) {
    static constexpr std::pair<std::string_view, std::uint64_t> units[] = {
        {"hour", 3600'000'000'000ull}, {"min", 60'000'000'000ull}, {"sec", 1'000'000'000ull},
        {"msec", 1'000'000ull},        {"usec", 1'000ull},         {"nsec", 1ull}};
    std::uint64_t scale = 0;
    for (const auto& [name, ns] : units)
        if (unit == name) scale = ns;
    std::uint64_t v[3] = {0, 0, 0};
    for (int field = 0; field < 3; ++field) {
        const std::size_t colon = text.find(':');
        if ((colon == std::string_view::npos) != (field == 2)) return std::nullopt;  // exactly two ':'
        const std::string_view part = text.substr(0, colon);
        if (part.empty() || part.size() > 19 ||
            !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return std::nullopt;
        v[field] = std::strtoull(std::string(part).c_str(), nullptr, 10);
        text = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
    }
    if (scale == 0 || v[1] == 0 || v[0] > UINT64_MAX / scale || v[1] > UINT64_MAX / scale) return std::nullopt;
    return collection_period{v[0] * scale, v[1] * scale, v[2]};
}

/// Whether time `t` lies in a kept span of `c` counted from `origin` (same clock).
inline bool in_collection_period(const collection_period& c, std::uint64_t origin, std::uint64_t t) {
    if (t < origin || c.length_ns == 0) return false;
    const std::uint64_t cycle = c.delay_ns + c.length_ns;
    const std::uint64_t off = t - origin;
    if (c.repeat != 0 && off / cycle >= c.repeat) return false;
    return off % cycle >= c.delay_ns;
}

}  // namespace encore::trace
