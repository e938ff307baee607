// Tests for the kit's address set (src/backend/address_set.hpp): inserts keep or replace a range
// starting at the same address, erases hand each node to `gone` once, lookups find exact starts
// and containing ranges, walks run in address order, ids are unique, changes() counts every
// change and nothing else, and readers sharing the lock run beside writers (under TSan in CI).
#include "backend/address_set.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <set>
#include <thread>
#include <vector>

namespace {

using encore::backend::address_node;
using encore::backend::address_set;
using encore::backend::bytes_of;

std::atomic<bool> g_fail_alloc{false};  // the next node allocations fail
std::atomic<long> g_live_items{0};      // items constructed and not yet destroyed

struct item : address_node {
    int payload = 0;

    item() noexcept { g_live_items.fetch_add(1, std::memory_order_relaxed); }
    item(const item&) = delete;
    ~item() { g_live_items.fetch_sub(1, std::memory_order_relaxed); }

    // The set allocates with new (std::nothrow): a test can make that fail.
    static void* operator new(std::size_t n, const std::nothrow_t& t) noexcept {
        return g_fail_alloc.load(std::memory_order_relaxed) ? nullptr : ::operator new(n, t);
    }
    static void operator delete(void* p) noexcept { ::operator delete(p); }
};

std::vector<std::uint64_t> bases_of(auto&& nodes) {
    std::vector<std::uint64_t> out;
    for (const auto& n : nodes) out.push_back(n.base);
    return out;
}

}  // namespace

TEST_CASE("insert keeps a range already starting there; ids are unique; changes counts inserts") {
    {
        address_set<item> s;
        auto lk = s.lock();
        CHECK(s.changes() == 0);
        const auto a = s.insert(0x1000, 0x100, 7, [](item& x) { x.payload = 1; });
        REQUIRE(a.node != nullptr);
        CHECK(a.added);
        CHECK(a.node->base == 0x1000);
        CHECK(a.node->size == 0x100);
        CHECK(a.node->device == 7);
        CHECK(a.node->payload == 1);
        CHECK(s.changes() == 1);

        const auto again = s.insert(0x1000, 0x200, 8, [](item& x) { x.payload = 2; });
        CHECK_FALSE(again.added);
        CHECK(again.node == a.node);  // the one kept, untouched
        CHECK(again.node->size == 0x100);
        CHECK(again.node->payload == 1);
        CHECK(s.changes() == 1);  // nothing changed
        CHECK(g_live_items.load() == 1);

        const auto b = s.insert(0x3000, 0x10, 7);
        REQUIRE(b.node != nullptr);
        CHECK(b.added);
        CHECK(b.node->payload == 0);
        CHECK(b.node->id != a.node->id);
        CHECK(s.size() == 2);
        CHECK(s.changes() == 2);
    }
    CHECK(g_live_items.load() == 0);  // the set deletes what it holds
}

TEST_CASE("replace hands the old node to gone and gives the new one a new id") {
    address_set<item> s;
    auto lk = s.lock();
    const auto a = s.insert(0x1000, 0x100, 1, [](item& x) { x.payload = 1; });
    const std::uint64_t old_id = a.node->id;
    int gone_calls = 0, gone_payload = 0;
    const auto r = s.replace(
        0x1000, 0x400, 2, [](item& x) { x.payload = 2; },
        [&](const item& old) {
            ++gone_calls;
            gone_payload = old.payload;
        });
    REQUIRE(r.node != nullptr);
    CHECK_FALSE(r.added);  // replaced
    CHECK(gone_calls == 1);
    CHECK(gone_payload == 1);
    CHECK(r.node->id != old_id);
    CHECK(r.node->size == 0x400);
    CHECK(r.node->device == 2);
    CHECK(s.find(0x1000) == r.node);
    CHECK(s.size() == 1);
    CHECK(s.changes() == 2);
    CHECK(g_live_items.load() == 1);

    const auto fresh = s.replace(0x9000, 0x10, 2);  // nothing there: an insert
    CHECK(fresh.added);
    CHECK(s.size() == 2);
    CHECK(s.changes() == 3);
}

TEST_CASE("out of memory: nothing changes") {
    address_set<item> s;
    auto lk = s.lock();
    (void)s.insert(0x1000, 0x100, 1, [](item& x) { x.payload = 1; });
    g_fail_alloc = true;
    const auto a = s.insert(0x2000, 0x100, 1);
    int gone_calls = 0;
    const auto r = s.replace(
        0x1000, 0x100, 1, [](item&) {}, [&](const item&) { ++gone_calls; });
    g_fail_alloc = false;
    CHECK(a.node == nullptr);
    CHECK_FALSE(a.added);
    CHECK(r.node == nullptr);
    CHECK(gone_calls == 0);
    CHECK(s.size() == 1);
    CHECK(s.find(0x1000)->payload == 1);  // the old one stays
    CHECK(s.changes() == 1);
}

TEST_CASE("erase by base or node hands each node to gone once; misses change nothing") {
    address_set<item> s;
    auto lk = s.lock();
    for (std::uint64_t b : {0x1000, 0x2000, 0x3000})
        (void)s.insert(b, 0x100, 1, [b](item& x) { x.payload = static_cast<int>(b >> 12); });
    std::vector<int> gone;
    auto note = [&](const item& x) { gone.push_back(x.payload); };
    CHECK(s.erase(0x2000, note));
    CHECK_FALSE(s.erase(0x2000, note));
    CHECK_FALSE(s.erase(0x1001, note));  // not a start
    CHECK(gone == std::vector<int>{2});
    CHECK(s.changes() == 4);
    s.erase(*s.find(0x3000), note);
    CHECK(gone == std::vector<int>{2, 3});
    CHECK(s.changes() == 5);
    CHECK(s.size() == 1);
    CHECK(s.find(0x3000) == nullptr);
    CHECK(g_live_items.load() == 1);
}

TEST_CASE("find matches starts only; containing finds the range around an address") {
    address_set<item> s;
    auto lk = s.lock();
    (void)s.insert(0x1000, 0x100, 1);
    (void)s.insert(0x1100, 0x100, 1);  // adjacent
    (void)s.insert(0x4000, 0x1, 2);
    const auto& cs = s;
    CHECK(cs.find(0x1000) != nullptr);
    CHECK(cs.find(0x1001) == nullptr);
    CHECK(cs.find(0x0) == nullptr);
    CHECK(s.containing(0xfff) == nullptr);  // before the first
    CHECK(s.containing(0x1000)->base == 0x1000);
    CHECK(s.containing(0x10ff)->base == 0x1000);
    CHECK(cs.containing(0x1100)->base == 0x1100);  // the end is exclusive
    CHECK(s.containing(0x1200) == nullptr);        // a gap
    CHECK(s.containing(0x4000)->base == 0x4000);
    CHECK(s.containing(0x4001) == nullptr);  // past the last
    CHECK(s.changes() == 3);                 // lookups change nothing
}

TEST_CASE("walks run in address order, filtered by device or a predicate; bytes_of sums them") {
    address_set<item> s;
    auto lk = s.lock();
    const std::uint64_t order[] = {0x5000, 0x1000, 0x9000, 0x3000, 0x7000, 0x2000};
    for (std::uint64_t b : order) (void)s.insert(b, b >> 8, (b >> 12) % 2);  // odd pages: device 1
    CHECK(bases_of(s) == std::vector<std::uint64_t>{0x1000, 0x2000, 0x3000, 0x5000, 0x7000, 0x9000});
    CHECK(bases_of(s.of_device(1)) == std::vector<std::uint64_t>{0x1000, 0x3000, 0x5000, 0x7000, 0x9000});
    CHECK(bases_of(s.of_device(0)) == std::vector<std::uint64_t>{0x2000});
    CHECK(bases_of(s.of_device(3)).empty());
    CHECK(bases_of(s.where([](const item& x) { return x.base > 0x4000; })) ==
          std::vector<std::uint64_t>{0x5000, 0x7000, 0x9000});
    CHECK(bytes_of(s.of_device(1)) == 0x10 + 0x30 + 0x50 + 0x70 + 0x90);
    CHECK(bytes_of(s.of_device(3)) == 0);
    const auto& cs = s;
    CHECK(bases_of(cs.of_device(0)) == std::vector<std::uint64_t>{0x2000});

    // A walk may change the nodes' own fields.
    for (item& x : s.of_device(0)) x.payload = 9;
    CHECK(s.find(0x2000)->payload == 9);
}

TEST_CASE("erase_if erases what the predicate holds for, through gone, and counts it") {
    address_set<item> s;
    auto lk = s.lock();
    for (std::uint64_t b = 1; b <= 10; ++b) (void)s.insert(b << 12, 0x10, b % 3);
    int gone = 0;
    CHECK(s.erase_if([](const item& x) { return x.device == 0; }, [&](const item&) { ++gone; }) == 3);
    CHECK(gone == 3);
    CHECK(s.size() == 7);
    CHECK(s.changes() == 13);
    CHECK(bases_of(s.of_device(0)).empty());
    CHECK(s.erase_if([](const item&) { return false; }) == 0);
    CHECK(s.changes() == 13);
    CHECK(s.erase_if([](const item&) { return true; }) == 7);
    CHECK(s.empty());
    CHECK(g_live_items.load() == 0);
}

TEST_CASE("ids stay unique across frees and reallocations at the same address") {
    address_set<item> s;
    auto lk = s.lock();
    std::set<std::uint64_t> ids;
    for (int round = 0; round < 100; ++round) {
        const auto a = s.insert(0x1000, 0x100, 1);
        const auto b = s.replace(0x2000, 0x100, 1);
        CHECK(ids.insert(a.node->id).second);
        CHECK(ids.insert(b.node->id).second);
        CHECK(s.erase(0x1000));
    }
    CHECK(ids.size() == 200);
}

TEST_CASE("readers sharing the lock beside writers see a consistent set") {
    address_set<item> s;
    constexpr int writers = 3, readers = 3, rounds = 2000;
    constexpr std::uint64_t band = 1ull << 32;  // each writer's own addresses
    std::atomic<long> bad{0};

    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w)
        threads.emplace_back([&, w] {
            const std::uint64_t lo = (static_cast<std::uint64_t>(w) + 1) * band;
            for (int i = 0; i < rounds; ++i) {
                const std::uint64_t b = lo + static_cast<std::uint64_t>(i % 64) * 0x1000;
                auto lk = s.lock();
                if (i % 3 == 2)
                    (void)s.erase(b);
                else if (i % 3 == 1)
                    (void)s.replace(b, 0x800, static_cast<std::uint64_t>(w), [i](item& x) { x.payload = i; });
                else
                    (void)s.insert(b, 0x800, static_cast<std::uint64_t>(w), [i](item& x) { x.payload = i; });
                lk.unlock();
                std::this_thread::yield();
            }
        });
    // Bounded, and yielding between holds: glibc's shared_mutex prefers readers, so readers that
    // never paused could keep the writers out.
    for (int r = 0; r < readers; ++r)
        threads.emplace_back([&, r] {
            std::uint64_t seen = 0;
            for (int i = 0; i < rounds; ++i) {
                const std::uint64_t now = s.changes();  // without the lock
                if (now < seen) bad.fetch_add(1);
                seen = now;
                {
                    auto lk = s.lock_shared();
                    std::uint64_t last = 0;
                    std::set<std::uint64_t> ids;
                    for (const item& x : s.of_device(static_cast<std::uint64_t>(r % writers))) {
                        if (x.base <= last || x.size != 0x800 || !ids.insert(x.id).second) bad.fetch_add(1);
                        last = x.base;
                        const item* c = s.containing(x.base + 0x7ff);
                        if (c != &x || s.find(x.base) != &x) bad.fetch_add(1);
                    }
                }
                std::this_thread::yield();
            }
        });
    for (auto& t : threads) t.join();
    CHECK(bad.load() == 0);
    auto lk = s.lock_shared();
    CHECK(s.changes() > 0);
    for (const item& x : s) CHECK(x.size == 0x800);
}
