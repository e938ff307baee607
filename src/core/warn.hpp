// src/core/warn.hpp — how encore tells the user something went wrong: one line on stderr with the
// stable prefix "[encore] ", once per cause, never per call on a hot path.
//
//   static core::warn_once lost;                     // one per cause, at the site
//   lost("cannot watch a dispatch's completion; its COMPLETE record is lost");
//   if (core::first_time(name)) core::warn("%s: ...", name);   // one per distinct key
#pragma once

#include <encore/tracing/detail/core.hpp>  // ENCORE_API

#include <atomic>
#include <string>
#include <string_view>

namespace encore::core {

/// Prints "[encore] " + the formatted message + a newline to stderr.
ENCORE_API void warn(const char* format, ...) noexcept __attribute__((format(printf, 1, 2)));

/// True the first time this process asks about `key` (compared by content), false after. Memory
/// for the key that cannot be had counts as "seen before": a warning is lost, never repeated.
ENCORE_API bool first_time(std::string_view key) noexcept;

/// What the exception being handled says, for a warning ("an exception: what()"). Call only
/// inside a catch block.
std::string current_exception_text() noexcept;

/// fork(): first_time's lock held across it (registry.cpp's pthread_atfork handlers).
void lock_warnings_for_fork() noexcept;
void unlock_warnings_after_fork() noexcept;
void reset_warnings_lock_in_child() noexcept;

/// One cause's warning: printed by the first call only. Declare it static where the cause is
/// detected; a later call costs one relaxed exchange (the message needs no ordering with
/// anything else).
class warn_once {
public:
    template <class... A>
    void operator()(const char* format, A... args) noexcept {
        if (done_.exchange(true, std::memory_order_relaxed)) return;
        if constexpr (sizeof...(A) == 0)
            warn("%s", format);
        else
            warn(format, args...);
    }

private:
    std::atomic<bool> done_{false};
};

}  // namespace encore::core
