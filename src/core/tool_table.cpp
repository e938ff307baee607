// src/core/tool_table.cpp — the registered tools and the registration lock (see tool_table.hpp).
#include "tool_table.hpp"

#include <new>

namespace encore::core {

std::recursive_mutex g_reg_mutex;
std::vector<tool> g_tools;  // guarded by g_reg_mutex

const char* tool_name(const tool& t) noexcept { return t.id.name != nullptr ? t.id.name : "<unnamed>"; }

std::string client_name(std::uint32_t client) {
    std::string name = "<unknown>";
    // try_lock: a callback may throw while another thread initializes tools under it.
    std::unique_lock lk(g_reg_mutex, std::try_to_lock);
    if (lk.owns_lock())
        for (const auto& t : g_tools)
            if (t.id.handle == client) name = tool_name(t);
    return name;
}

void lock_registration_for_fork() noexcept { g_reg_mutex.lock(); }
void unlock_registration_after_fork() noexcept { g_reg_mutex.unlock(); }
void reset_registration_lock_in_child() noexcept { ::new (&g_reg_mutex) std::recursive_mutex(); }

}  // namespace encore::core
