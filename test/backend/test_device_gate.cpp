// Tests for the per-device replay gate (src/backend/device_gate.hpp): lookups of many keys, shared
// holds against an exclusive take, drains, timeouts, the replaying thread's own submissions,
// generations, the overflow gate. Threads throughout: run under ThreadSanitizer in CI (suite unit).
// Each case uses keys of its own; the overflow case fills the table, so it comes last (file order).
#include "backend/device_gate.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

namespace {

using encore::backend::device_gate;
using namespace std::chrono_literals;

constexpr auto long_limit = std::chrono::seconds(20);        // a wait that must succeed
constexpr auto short_limit = std::chrono::milliseconds(20);  // a wait that must time out

// Waits (bounded) until `done` holds; returns it.
template <class Done>
bool eventually(Done&& done) {
    const auto deadline = std::chrono::steady_clock::now() + long_limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() >= deadline) return done();
        std::this_thread::sleep_for(100us);
    }
    return true;
}

}  // namespace

TEST_CASE("each key has its own gate, found again at the same address") {
    const std::size_t before = device_gate::key_count();
    std::set<const device_gate*> gates;
    for (std::uint64_t k = 0x1000; k < 0x1000 + 64; ++k) gates.insert(&device_gate::of(k));
    CHECK(gates.size() == 64);
    CHECK(device_gate::key_count() == before + 64);
    for (std::uint64_t k = 0x1000; k < 0x1000 + 64; ++k) CHECK(gates.count(&device_gate::of(k)) == 1);
    CHECK(device_gate::key_count() == before + 64);  // no entry added by a second lookup

    // Lookups racing with appends from several threads agree on one gate per key.
    std::vector<std::thread> threads;
    std::vector<const device_gate*> seen(4 * 32);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (std::uint64_t i = 0; i < 32; ++i) seen[t * 32 + i] = &device_gate::of(0x2000 + i);
        });
    for (auto& t : threads) t.join();
    for (int t = 1; t < 4; ++t)
        for (int i = 0; i < 32; ++i) CHECK(seen[t * 32 + i] == seen[i]);
    CHECK(device_gate::key_count() == before + 64 + 32);
}

TEST_CASE("an exclusive take waits for every shared hold, and shared holds wait for it") {
    constexpr std::uint64_t key = 0x3000;
    device_gate& g = device_gate::of(key);
    std::atomic<int> holding{0};
    std::atomic<bool> let_holders_go{false};
    std::vector<std::thread> holders;
    for (int t = 0; t < 4; ++t)
        holders.emplace_back([&] {
            g.lock_shared();
            holding.fetch_add(1);
            while (!let_holders_go.load()) std::this_thread::sleep_for(100us);
            g.unlock_shared();
        });
    REQUIRE(eventually([&] { return holding.load() == 4; }));

    std::atomic<int> status{-1};
    std::atomic<bool> let_taker_go{false};
    std::thread taker([&] {
        status.store(static_cast<int>(device_gate::take_exclusive(key, long_limit)));
        while (!let_taker_go.load()) std::this_thread::sleep_for(100us);
        device_gate::release_exclusive(key);
    });
    std::this_thread::sleep_for(30ms);
    CHECK(status.load() == -1);  // still waiting for the holders

    let_holders_go.store(true);
    for (auto& t : holders) t.join();
    REQUIRE(eventually([&] { return status.load() != -1; }));
    CHECK(status.load() == static_cast<int>(device_gate::exclusive::held));

    // Another thread's submission now waits until the replay releases.
    CHECK_FALSE(g.try_lock_shared());
    std::atomic<bool> submitted{false};
    std::thread submitter([&] {
        g.lock_shared();
        submitted.store(true);
        g.unlock_shared();
    });
    std::this_thread::sleep_for(20ms);
    CHECK_FALSE(submitted.load());
    let_taker_go.store(true);
    taker.join();
    submitter.join();
    CHECK(submitted.load());
    REQUIRE(g.try_lock_shared());
    g.unlock_shared();
}

TEST_CASE("a drain waits for the work in flight, and a completion handler's work joins it") {
    constexpr std::uint64_t key = 0x3100;
    device_gate& g = device_gate::of(key);
    g.started();
    g.started();
    std::atomic<int> status{-1};
    std::atomic<bool> let_taker_go{false};
    std::thread taker([&] {
        status.store(static_cast<int>(device_gate::take_exclusive(key, long_limit)));
        while (!let_taker_go.load()) std::this_thread::sleep_for(100us);
        device_gate::release_exclusive(key);
    });
    // The taker holds the lock and drains: a submission from a completion handler joins the count.
    REQUIRE(eventually([&] {
        if (!g.try_lock_shared()) return true;
        g.unlock_shared();
        return false;
    }));
    const std::uint64_t gen = g.generation();
    CHECK(g.join_drain());
    CHECK(g.generation() == gen + 1);
    g.finished();
    g.finished();
    std::this_thread::sleep_for(20ms);
    CHECK(status.load() == -1);  // the joined work is still in flight
    g.finished();                // the joined work completes
    REQUIRE(eventually([&] { return status.load() != -1; }));
    CHECK(status.load() == static_cast<int>(device_gate::exclusive::held));
    let_taker_go.store(true);
    taker.join();
    // With the lock free, a completion handler's work holds it like any other.
    CHECK_FALSE(g.join_drain());
    g.unlock_shared();
}

TEST_CASE("a take that cannot get the lock or the drain in time says which, and holds nothing") {
    constexpr std::uint64_t key = 0x3200;
    device_gate& g = device_gate::of(key);
    std::atomic<bool> holding{false};
    std::atomic<bool> let_go{false};
    std::thread holder([&] {
        g.lock_shared();
        holding.store(true);
        while (!let_go.load()) std::this_thread::sleep_for(100us);
        g.unlock_shared();
    });
    REQUIRE(eventually([&] { return holding.load(); }));
    CHECK(device_gate::take_exclusive(key, short_limit) == device_gate::exclusive::lock_timed_out);
    CHECK(device_gate::held_exclusively() == 0);
    let_go.store(true);
    holder.join();

    g.started();  // never finished within the limit
    CHECK(device_gate::take_exclusive(key, short_limit) == device_gate::exclusive::drain_timed_out);
    CHECK(device_gate::held_exclusively() == 0);
    CHECK(g.try_lock_shared());  // the lock was given back
    g.unlock_shared();
    g.finished();
    CHECK(device_gate::take_exclusive(key, short_limit) == device_gate::exclusive::held);
    CHECK(device_gate::release_exclusive(key));
}

TEST_CASE("the replaying thread's own submissions pass; other keys and threads do not") {
    constexpr std::uint64_t key = 0x3300, other = 0x3301;
    CHECK(device_gate::held_exclusively() == 0);
    REQUIRE(device_gate::take_exclusive(key, long_limit) == device_gate::exclusive::held);
    CHECK(device_gate::held_exclusively() == key);
    std::uint64_t seen_elsewhere = 1;
    std::thread([&] { seen_elsewhere = device_gate::held_exclusively(); }).join();
    CHECK(seen_elsewhere == 0);
    CHECK_FALSE(device_gate::release_exclusive(other));  // not held: nothing
    CHECK(device_gate::held_exclusively() == key);
    CHECK(device_gate::release_exclusive(key));
    CHECK_FALSE(device_gate::release_exclusive(key));  // twice: nothing
    CHECK(device_gate::held_exclusively() == 0);

    // Key 0 (no device) holds nothing and succeeds.
    CHECK(device_gate::lock_exclusive(0, short_limit));
    CHECK(device_gate::drain(0, short_limit));
    CHECK_FALSE(device_gate::release_exclusive(0));
}

TEST_CASE("the generation counts shared holds, from every thread") {
    constexpr std::uint64_t key = 0x3400;
    device_gate& g = device_gate::of(key);
    const std::uint64_t start = device_gate::generation(key);
    CHECK(start == 0);
    for (int i = 0; i < 3; ++i) {
        g.lock_shared();
        g.unlock_shared();
    }
    REQUIRE(g.try_lock_shared());
    g.unlock_shared();
    CHECK(device_gate::generation(key) == 4);
    g.started();  // counting work in flight is not a submission's hold
    g.finished();
    CHECK(device_gate::generation(key) == 4);

    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 1000; ++i) {
                g.lock_shared();
                g.unlock_shared();
            }
        });
    for (auto& t : threads) t.join();
    // Read under the exclusive lock, as a replay reads it.
    REQUIRE(device_gate::take_exclusive(key, long_limit) == device_gate::exclusive::held);
    CHECK(device_gate::generation(key) == 4 + 4000);
    CHECK(device_gate::release_exclusive(key));
    CHECK(device_gate::generation(0x3401) == 0);  // another key's is its own
}

TEST_CASE("keys past max_keys share one overflow gate; earlier keys keep theirs") {
    constexpr std::uint64_t base = 0x10000;
    device_gate* first = &device_gate::of(base);
    for (std::uint64_t k = base; device_gate::key_count() < device_gate::max_keys; ++k) (void)device_gate::of(k);
    CHECK(device_gate::key_count() == device_gate::max_keys);
    device_gate* a = &device_gate::of(0x900000);
    device_gate* b = &device_gate::of(0x900001);
    CHECK(a == b);
    CHECK(a != first);
    CHECK(&device_gate::of(base) == first);
    CHECK(device_gate::key_count() == device_gate::max_keys);
    // The overflow gate works as a gate.
    REQUIRE(device_gate::take_exclusive(0x900000, long_limit) == device_gate::exclusive::held);
    CHECK_FALSE(b->try_lock_shared());
    CHECK(device_gate::release_exclusive(0x900000));
    REQUIRE(b->try_lock_shared());
    b->unlock_shared();
}
