// src/core/tool_table.hpp — the registered tools and the registration lock (private to libencore).
//
//   std::lock_guard lk(core::g_reg_mutex);
//   for (const auto& t : core::g_tools) ...;                     // registration.cpp
//   const std::string name = core::client_name(ctx->client);    // callback_threw (registry.cpp)
//
// registration.cpp fills the table while it finds and initializes tools. Below it, the registry
// needs the table too: its fork handlers hold the lock across fork(), and callback_threw names the
// tool it disables. Both reach the table here, so nothing below registration.cpp calls up into it
// (docs/architecture.md: no call cycles).
#pragma once

#include <rocprofiler-sdk/registration.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace encore::core {

struct tool {
    rocprofiler_configure_func_t configure = nullptr;
    rocprofiler_tool_configure_result_t* result = nullptr;
    rocprofiler_client_id_t id{};
    std::string origin;
    bool failed = false;
    bool finalized = false;
};

extern std::recursive_mutex g_reg_mutex;
extern std::vector<tool> g_tools;  // guarded by g_reg_mutex

[[nodiscard]] const char* tool_name(const tool& t) noexcept;
/// The name of the tool whose client id is `client`, or "<unknown>" (none, or the lock is held:
/// a callback may throw while another thread initializes tools under it). May throw bad_alloc.
[[nodiscard]] std::string client_name(std::uint32_t client);

/// fork(): the registration lock held across it (registry.cpp's pthread_atfork handlers).
void lock_registration_for_fork() noexcept;
void unlock_registration_after_fork() noexcept;
/// The child's side: the lock made anew (a recursive lock's owner is a tid; the child's thread
/// has another, so it could not unlock the copy).
void reset_registration_lock_in_child() noexcept;

}  // namespace encore::core
