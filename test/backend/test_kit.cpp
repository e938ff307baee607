// Tests for the backend kit (src/backend/) and core/warn.hpp: slot hooks honour the table's
// reported size and put back only their own function, bounded waits end, warnings print once.
#include "backend/drain.hpp"
#include "backend/slot_hook.hpp"
#include "core/warn.hpp"
#include "../support/stderr_capture.hpp"

#include <hsa/hsa_api_trace.h>

#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <thread>

namespace {

hsa_status_t mine_destroy(hsa_queue_t*) { return HSA_STATUS_SUCCESS; }
hsa_status_t original_destroy(hsa_queue_t*) { return HSA_STATUS_ERROR; }
hsa_status_t other_tool_destroy(hsa_queue_t*) { return HSA_STATUS_ERROR_INVALID_QUEUE; }

using test_support::stderr_of;

}  // namespace

TEST_CASE("hook writes a slot only where the table reports it, unhook only its own function") {
    CoreApiTable t{};
    const auto offset = offsetof(CoreApiTable, hsa_queue_destroy_fn);
    t.version.minor_id = static_cast<uint32_t>(offset);  // a table that ends just before the slot
    CHECK_FALSE(encore::backend::has_slot<&CoreApiTable::hsa_queue_destroy_fn>(&t));
    CHECK_FALSE(encore::backend::hook<&CoreApiTable::hsa_queue_destroy_fn>(&t, &mine_destroy));
    CHECK((t.hsa_queue_destroy_fn == nullptr));
    CHECK_FALSE(encore::backend::hook<&CoreApiTable::hsa_queue_destroy_fn>(static_cast<CoreApiTable*>(nullptr),
                                                                           &mine_destroy));

    t.version.minor_id = static_cast<uint32_t>(offset + sizeof(void*));  // the slot is the last one
    t.hsa_queue_destroy_fn = &original_destroy;
    REQUIRE(encore::backend::hook<&CoreApiTable::hsa_queue_destroy_fn>(&t, &mine_destroy));
    CHECK((t.hsa_queue_destroy_fn == &mine_destroy));
    encore::backend::unhook<&CoreApiTable::hsa_queue_destroy_fn>(&t, &mine_destroy, &original_destroy);
    CHECK((t.hsa_queue_destroy_fn == &original_destroy));

    // Another tool wrapped the slot after encore: its chain stays.
    REQUIRE(encore::backend::hook<&CoreApiTable::hsa_queue_destroy_fn>(&t, &mine_destroy));
    t.hsa_queue_destroy_fn = &other_tool_destroy;
    encore::backend::unhook<&CoreApiTable::hsa_queue_destroy_fn>(&t, &mine_destroy, &original_destroy);
    CHECK((t.hsa_queue_destroy_fn == &other_tool_destroy));
}

TEST_CASE("wait_until ends when the condition holds, and at its limit when it never does") {
    using namespace std::chrono;
    std::atomic<bool> flag{false};
    std::thread setter([&] {
        std::this_thread::sleep_for(milliseconds(5));
        flag.store(true);
    });
    CHECK(encore::backend::wait_until([&] { return flag.load(); }, seconds(10)));
    setter.join();

    const auto start = steady_clock::now();
    CHECK_FALSE(encore::backend::wait_until([] { return false; }, milliseconds(20)));
    const auto took = steady_clock::now() - start;
    CHECK(took >= milliseconds(20));
    CHECK(took < seconds(5));
}

TEST_CASE("drain reports what is left when the work does not finish") {
    std::atomic<std::int64_t> in_flight{3};
    std::string err = stderr_of([&] {
        CHECK_FALSE(encore::backend::drain(in_flight, std::chrono::milliseconds(10), "copies are lost"));
    });
    CHECK(err == "[encore] 3 copies are lost\n");
    in_flight = 0;
    err = stderr_of([&] { CHECK(encore::backend::drain(in_flight, std::chrono::milliseconds(10), "x")); });
    CHECK(err.empty());
}

TEST_CASE("warn_once prints its first call only; first_time compares keys by content") {
    static encore::core::warn_once w;
    const std::string err = stderr_of([] {
        w("lost %d records", 7);
        w("lost %d records", 8);
    });
    CHECK(err == "[encore] lost 7 records\n");

    const std::string a = "test_kit key", b = "test_kit key";  // same content, other storage
    CHECK(encore::core::first_time(a));
    CHECK_FALSE(encore::core::first_time(b));
    CHECK(encore::core::first_time("test_kit other key"));
}
