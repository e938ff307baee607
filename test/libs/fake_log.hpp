// test/libs/fake_log.hpp — how the fake libraries of test/libs/ record their calls, shared with
// the tests that compare against them: "name(a0,a1,...);" per call, every argument as the
// integer its bits make (pointers as addresses, enums as their value, a struct passed by value
// as its first 8 bytes).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace fake_log {

template <class T>
std::uint64_t bits(const T& v) {
    if constexpr (std::is_pointer_v<T>) {
        return reinterpret_cast<std::uintptr_t>(v);
    } else if constexpr (std::is_enum_v<T>) {
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    } else if constexpr (std::is_integral_v<T>) {
        return static_cast<std::uint64_t>(v);
    } else {
        std::uint64_t out = 0;
        std::memcpy(&out, &v, sizeof(T) < sizeof(out) ? sizeof(T) : sizeof(out));
        return out;
    }
}

template <class... A>
std::string call(const char* name, const A&... a) {
    std::string s = name;
    s += '(';
    bool first = true;
    ((s += first ? "" : ",", first = false, s += std::to_string(bits(a))), ...);
    s += ");";
    return s;
}

}  // namespace fake_log
