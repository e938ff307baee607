// test/trace/test_tick_clock.cpp — the converter's mapping of the tool's tick counter to
// CLOCK_BOOTTIME (src/trace/tick_clock.hpp), on synthetic pairs: exact on a linear clock, past
// both ends, with pairs read while preempted (wide), pairs closer than their jitter allows, pairs
// that go backwards, queries out of order, and the degenerate cases (no pair, one pair).
#include "../../src/trace/tick_clock.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>

using encore::trace::tick_map;

namespace {

// A 3 GHz counter: ns = 1e12 + ticks / 3.
constexpr std::uint64_t base_ns = 1000000000000ull;
std::uint64_t truth(std::uint64_t ticks) { return base_ns + ticks / 3; }
std::int64_t off(std::uint64_t got, std::uint64_t want) {
    return static_cast<std::int64_t>(got) - static_cast<std::int64_t>(want);
}

}  // namespace

TEST_CASE("no pair: ticks are ns; one pair: an offset from it") {
    tick_map none;
    none.finish();
    CHECK(none.points() == 0);
    CHECK(none.to_ns(12345) == 12345);

    tick_map one;
    one.add(1000, 5000, 40);
    one.finish();
    CHECK(one.points() == 1);
    CHECK(one.to_ns(1000) == 5000);
    CHECK(one.to_ns(1500) == 5500);  // slope 1: the tool wrote ns
    CHECK(one.to_ns(0) == 4000);
}

TEST_CASE("a linear clock maps exactly, inside and past both ends") {
    tick_map m;
    for (std::uint64_t t = 3000000; t <= 3000000000ull; t += 30000000) m.add(t, truth(t), 60);
    m.finish();
    CHECK(m.points() >= 2);
    CHECK(m.ns_per_tick() == doctest::Approx(1.0 / 3).epsilon(1e-9));
    for (std::uint64_t t : {0ull, 2999999ull, 3000000ull, 123456789ull, 2999999999ull, 3000000000ull, 6000000000ull})
        CHECK(std::llabs(off(m.to_ns(t), truth(t))) <= 1);
}

TEST_CASE("a pair read while preempted (wide, its midpoint 5 ms late) is left out") {
    // Pairs 10 ms apart; the 8th was read with a 10 ms preemption between the clock and the second
    // counter read: its midpoint lies 5 ms after its clock, still between its neighbours.
    tick_map m;
    const std::uint64_t step = 30000000;
    for (std::uint64_t i = 0; i < 20; ++i) {
        const std::uint64_t t = i * step;
        if (i == 7)
            m.add(t + step / 2, truth(t), static_cast<std::uint32_t>(step));
        else
            m.add(t, truth(t), 60);
    }
    m.finish();
    for (std::uint64_t t = 0; t < 20 * step; t += step / 7) CHECK(std::llabs(off(m.to_ns(t), truth(t))) <= 1);
    // A short call where the wide pair would have bent the line keeps its length.
    const std::uint64_t enter = 7 * step + 1000, exit = enter + 300;
    CHECK(m.to_ns(exit) - m.to_ns(enter) == doctest::Approx(100).epsilon(0.02));
}

TEST_CASE("pairs closer than 1000 widths: their jitter does not tilt a call's length") {
    // Threads' first pairs come microseconds apart; each is off by up to half its width.
    tick_map m;
    const std::int64_t jitter[] = {25, -25, 20, -20, 25, -25};
    for (std::uint64_t i = 0; i < 6; ++i) {
        const std::uint64_t t = 10000 + i * 600;  // 200 ns apart
        m.add(t, static_cast<std::uint64_t>(static_cast<std::int64_t>(truth(t)) + jitter[i] / 3), 50);
    }
    for (std::uint64_t t = 100000; t <= 30000000; t += 100000) m.add(t, truth(t), 50);
    m.finish();
    for (std::uint64_t i = 0; i < 5; ++i) {  // a 150 ns call inside each 200 ns gap between them
        const std::uint64_t enter = 10000 + i * 600 + 50;
        const std::uint64_t len = m.to_ns(enter + 450) - m.to_ns(enter);
        CHECK(len >= 149);
        CHECK(len <= 151);
    }
}

TEST_CASE("pairs that go backwards in either clock are dropped") {
    tick_map m;
    for (std::uint64_t t = 0; t <= 300000000; t += 3000000) m.add(t, truth(t), 60);
    m.add(150000000, truth(150000000) - 5000, 60);  // ns behind its neighbours' line
    m.add(150000001, truth(100000000), 60);         // ns going backwards
    m.finish();
    std::uint64_t last = 0;
    for (std::uint64_t t = 0; t <= 300000000; t += 1000003) {
        const std::uint64_t ns = m.to_ns(t);
        CHECK(ns >= last);
        last = ns;
        CHECK(std::llabs(off(ns, truth(t))) <= 2000);
    }
}

TEST_CASE("queries in any order give the same answers (the cursor is only a shortcut)") {
    tick_map m;
    for (std::uint64_t t = 0; t <= 3000000000ull; t += 3000000 + (t % 7)) m.add(t, truth(t) + (t / 3000000) % 3, 60);
    m.finish();
    tick_map fresh = m;
    for (std::uint64_t k = 0; k < 100; ++k) {
        const std::uint64_t t = 3000000000ull - k * 29999989;
        tick_map again = fresh;
        CHECK(m.to_ns(t) == again.to_ns(t));
    }
}

TEST_CASE("every pair wide: the two narrowest still give the slope") {
    tick_map m;
    m.add(0, truth(0), 9000);
    m.add(300000000, truth(300000000), 8000);
    m.add(600000000, truth(600000000), 500000);
    m.finish();
    CHECK(m.points() >= 1);
    CHECK(std::llabs(off(m.to_ns(450000000), truth(450000000))) <= 1);
}
