// src/backend/drain.hpp — bounded waits for work a backend started and must see finish (records
// still in flight when a runtime unloads, a replay's drain): never an unbounded hang.
//
//   if (!backend::wait_until([&] { return in_flight.load() == 0; }, std::chrono::seconds(10)))
//       ...;  // timed out: say what is lost
//   backend::drain(in_flight, std::chrono::seconds(10), "dispatches did not complete ...");
#pragma once

#include "core/warn.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace encore::backend {

/// Waits until done() holds or `limit` has passed; returns done(). The first waits yield (such a
/// wait usually ends within microseconds: a completion handler finishing); then it sleeps `nap`
/// between checks (each sleep costs tens of microseconds of timer slack).
template <class Done>
bool wait_until(Done&& done, std::chrono::nanoseconds limit,
                std::chrono::microseconds nap = std::chrono::microseconds(100)) noexcept {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (unsigned spins = 0; !done(); ++spins) {
        if (std::chrono::steady_clock::now() >= deadline) return done();
        if (spins < 2000)
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(nap);
    }
    return true;
}

/// Waits (bounded) for `in_flight` to reach 0; if it does not, warns with the count left and
/// `lost`, which completes the sentence "<count> <lost>" (e.g. "dispatches did not complete ...").
/// Returns whether everything finished.
inline bool drain(const std::atomic<std::int64_t>& in_flight, std::chrono::nanoseconds limit, const char* lost) noexcept {
    if (wait_until([&] { return in_flight.load(std::memory_order_acquire) <= 0; }, limit)) return true;
    core::warn("%lld %s", static_cast<long long>(in_flight.load(std::memory_order_acquire)), lost);
    return false;
}

}  // namespace encore::backend
