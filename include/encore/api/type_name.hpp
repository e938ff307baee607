// encore/api/type_name.hpp — readable C++ type names at compile time.
//
//   static_assert(encore::api::type_name<hsa_queue_t**>() == "hsa_queue_t**");
//
// Argument iteration reports `typeid(T).name()` (mangled, as the reference does); this is the
// readable spelling, for code of encore's own that prints a type it knows at compile time. The
// name is read from the compiler's signature of a function template and stored once per type as
// a static NUL-terminated array, so callers may hand out `c_str()`.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace encore::api {
namespace detail {

template <class T>
constexpr std::string_view raw_type_name() noexcept {
#if defined(__clang__) || defined(__GNUC__)
    constexpr std::string_view fn = __PRETTY_FUNCTION__;
    // GCC: "... raw_type_name() [with T = int; std::string_view = ...]"
    // clang: "... raw_type_name() [T = int]"
    constexpr auto start = fn.find("T = ") + 4;
    constexpr auto end = fn.find_first_of(";]", start);
    return fn.substr(start, end - start);
#else
#    error "encore: type_name needs GCC or clang (__PRETTY_FUNCTION__)"
#endif
}

constexpr bool ident_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

template <class T>
struct type_name_storage {
    static constexpr std::string_view raw = raw_type_name<T>();
    // Compilers print a typedef'd struct by its tag; HSA declares every struct as
    // `typedef struct hsa_x_s {...} hsa_x_t`, and users know it as hsa_x_t. Rewrite the tag of
    // identifiers starting "hsa_" and ending "_s" (same length, so done in place).
    static constexpr auto value = [] {
        std::array<char, raw.size() + 1> out{};
        for (std::size_t i = 0; i < raw.size(); ++i) out[i] = raw[i];
        for (std::size_t i = 0; i < raw.size();) {
            if (!ident_char(raw[i])) {
                ++i;
                continue;
            }
            std::size_t j = i;
            while (j < raw.size() && ident_char(raw[j])) ++j;
            const auto word = raw.substr(i, j - i);
            if (word.size() > 6 && word.substr(0, 4) == "hsa_" && word.substr(word.size() - 2) == "_s")
                out[j - 1] = 't';
            i = j;
        }
        return out;
    }();
};

}  // namespace detail

/// The readable name of T, e.g. "hsa_agent_t", "const char*", "unsigned int".
template <class T>
[[nodiscard]] constexpr std::string_view type_name() noexcept {
    return {detail::type_name_storage<T>::value.data(), detail::type_name_storage<T>::raw.size()};
}

/// Same as type_name, as a NUL-terminated string with static storage duration.
template <class T>
[[nodiscard]] constexpr const char* type_name_c_str() noexcept {
    return detail::type_name_storage<T>::value.data();
}

}  // namespace encore::api
