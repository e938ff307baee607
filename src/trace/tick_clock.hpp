// src/trace/tick_clock.hpp — the clock of encore-trace's API-call records: the CPU's time-stamp
// counter where the kernel itself keeps time with it, mapped to CLOCK_BOOTTIME by the converter.
//
// Why: a traced call is stamped twice (ENTER, EXIT). Through the vDSO, clock_gettime costs
// 23-25 ns here; the counter it reads (rdtsc) costs 9-10 ns. The two reads were a quarter of what
// `encore-trace -f rocpd` cost a call (benchmarks/RESULTS.md). So the tool stores the counter
// ("ticks") in api_call records and, now and then, a pair read together: the counter and
// CLOCK_BOOTTIME (rec::clock_sync; the hello and the goodbye carry one too). The converter
// turns ticks into CLOCK_BOOTTIME nanoseconds with those pairs (tick_map), so every output keeps
// the one clock the kernels', copies' and the reference's records use.
//
// When: x86-64, and the kernel's clocksource is "tsc" (it found the counter invariant and
// synchronized across CPUs, the test it applies before it keeps time with it). Elsewhere, or with
// ENCORE_TRACE_CLOCK=boottime, ticks are CLOCK_BOOTTIME nanoseconds and no pair is needed.
//
// Accuracy: a pair is exact to half its width (the ticks between the two counter reads around
// the clock's: about 50 here; a read preempted in between is wide, retried, and left out by the
// converter if it stayed wide). The converter keeps pairs at least 1000 widths apart and maps
// linearly between them, so a call's duration is off by at most about 1/1000 of itself (jitter
// over span) and a time by about a width, plus NTP's slewing of CLOCK_BOOTTIME between two kept
// pairs (at most 500 ppm of the gap; tens of ppm usually). Each thread writes a pair before its
// first call and then at intervals that double from 2^16 ticks to 2^25 (about 10 ms at 3 GHz).
// Past the last kept pair (a process killed early) the slope of the whole run carries on.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace encore::trace {

/// rec::hello_body::clock: what api_call records' times are.
inline constexpr std::uint32_t clock_boottime = 0;  // CLOCK_BOOTTIME ns: no mapping
inline constexpr std::uint32_t clock_tsc = 1;       // x86's time-stamp counter: mapped through the pairs

/// Ticks to CLOCK_BOOTTIME ns for one process image, from its pairs (any thread's, any order).
/// finish() keeps the pairs to map through: not wide (at most 8 times the median width, and the
/// two narrowest whatever they are), rising in both clocks, and at least 1000 median widths apart
/// (closer pairs would tilt the slope between them by their jitter: a short call could come out
/// 0 ns long). to_ns() interpolates between kept pairs and extrapolates past the ends with the
/// slope of the whole span. Without two pairs, ticks are ns (the tool wrote ns, or nothing to map).
class tick_map {
public:
    void add(std::uint64_t ticks, std::uint64_t ns, std::uint32_t width) { points_.push_back({ticks, ns, width}); }

    void finish() {
        cursor_ = 0;
        slope_ = 1.0;
        if (points_.size() < 2) return;
        std::vector<std::uint32_t> widths;
        for (const point& p : points_) widths.push_back(p.width);
        std::nth_element(widths.begin(), widths.begin() + widths.size() / 2, widths.end());
        const std::uint64_t median = std::max<std::uint64_t>(widths[widths.size() / 2], 16);
        std::vector<point> narrow;
        for (const point& p : points_)
            if (p.width <= 8 * median) narrow.push_back(p);
        if (narrow.size() < 2) {
            narrow = points_;
            std::partial_sort(narrow.begin(), narrow.begin() + 2, narrow.end(),
                              [](const point& a, const point& b) { return a.width < b.width; });
            narrow.resize(2);
        }
        std::sort(narrow.begin(), narrow.end(), [](const point& a, const point& b) { return a.ticks < b.ticks; });
        std::vector<point> rising;
        for (const point& p : narrow)
            if (rising.empty() || (p.ticks > rising.back().ticks && p.ns > rising.back().ns)) rising.push_back(p);
        if (rising.size() < 2) {
            points_ = rising;
            return;
        }
        slope_ = static_cast<double>(rising.back().ns - rising.front().ns) /
                 static_cast<double>(rising.back().ticks - rising.front().ticks);
        const std::uint64_t span = 1000 * median;
        points_.clear();
        for (const point& p : rising)
            if (points_.empty() || p.ticks - points_.back().ticks >= span) points_.push_back(p);
    }

    std::size_t points() const { return points_.size(); }
    double ns_per_tick() const { return slope_; }

    /// CLOCK_BOOTTIME ns of `ticks` (after finish()). Calls in rising order (a thread's records)
    /// cost O(1); any order works.
    std::uint64_t to_ns(std::uint64_t ticks) {
        if (points_.empty()) return ticks;
        if (points_.size() == 1 || ticks <= points_.front().ticks) return along(points_.front(), ticks, slope_);
        if (ticks >= points_.back().ticks) return along(points_.back(), ticks, slope_);
        // points_[cursor_].ticks <= ticks < points_[cursor_ + 1].ticks
        if (cursor_ + 1 >= points_.size() || ticks < points_[cursor_].ticks || ticks >= points_[cursor_ + 1].ticks) {
            const auto it = std::upper_bound(points_.begin(), points_.end(), ticks,
                                             [](std::uint64_t t, const point& p) { return t < p.ticks; });
            cursor_ = static_cast<std::size_t>(it - points_.begin()) - 1;
        }
        const point& a = points_[cursor_];
        const point& b = points_[cursor_ + 1];
        return along(a, ticks, static_cast<double>(b.ns - a.ns) / static_cast<double>(b.ticks - a.ticks));
    }

private:
    struct point {
        std::uint64_t ticks, ns;
        std::uint32_t width;
    };

    static std::uint64_t along(const point& p, std::uint64_t ticks, double s) {
        if (ticks >= p.ticks) return p.ns + static_cast<std::uint64_t>(static_cast<double>(ticks - p.ticks) * s);
        const auto back = static_cast<std::uint64_t>(static_cast<double>(p.ticks - ticks) * s);
        return back < p.ns ? p.ns - back : 0;
    }

    std::vector<point> points_;
    double slope_ = 1.0;
    std::size_t cursor_ = 0;
};

}  // namespace encore::trace
