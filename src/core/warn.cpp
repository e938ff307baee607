// src/core/warn.cpp — see warn.hpp.
#include "warn.hpp"

#include "core_lock.hpp"

#include <cstdarg>
#include <cstdio>
#include <exception>
#include <mutex>
#include <new>
#include <set>
#include <string>

namespace encore::core {

void warn(const char* format, ...) noexcept {
    // One write for the whole line (fputs of a buffer), so lines of two threads do not interleave.
    char line[1024];
    const int prefix = std::snprintf(line, sizeof line, "[encore] ");
    std::va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(line + prefix, sizeof line - prefix - 1, format, args);
    va_end(args);
    std::size_t len = prefix + (n < 0 ? 0 : static_cast<std::size_t>(n));
    if (len > sizeof line - 2) len = sizeof line - 2;  // cut, still one line
    line[len] = '\n';
    line[len + 1] = '\0';
    std::fputs(line, stderr);
}

std::string current_exception_text() noexcept {
    try {
        throw;
    } catch (const std::exception& e) {
        try {
            return std::string("an exception: ") + e.what();
        } catch (...) {
            return "an exception";
        }
    } catch (...) {
        return "an exception of a type that is not std::exception";
    }
}

namespace {
std::mutex g_seen_mutex;
}

void lock_warnings_for_fork() noexcept { g_seen_mutex.lock(); }
void unlock_warnings_after_fork() noexcept { g_seen_mutex.unlock(); }
void reset_warnings_lock_in_child() noexcept { ::new (&g_seen_mutex) std::mutex(); }

bool first_time(std::string_view key) noexcept {
    static auto* seen = new std::set<std::string, std::less<>>;  // never destroyed: used at exit
    const counted_lock lk(g_seen_mutex);
    if (seen->find(key) != seen->end()) return false;
    try {
        seen->emplace(key);
    } catch (...) {
        return false;
    }
    return true;
}

}  // namespace encore::core
