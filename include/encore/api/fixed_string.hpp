// encore/api/fixed_string.hpp — a string usable as a template argument.
//
// Lets a domain declaration spell op and parameter names as plain literals
// (`api::op<"hsa_init", &CoreApiTable::hsa_init_fn>`) with no stringizing macro.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace encore::api {

template <std::size_t N>
struct fixed_string {
    char value[N]{};

    constexpr fixed_string(const char (&s)[N]) noexcept {
        std::copy_n(s, N, value);
    }  // NOLINT(google-explicit-constructor)

    [[nodiscard]] constexpr std::string_view view() const noexcept { return {value, N - 1}; }
    [[nodiscard]] constexpr const char* c_str() const noexcept { return value; }
    [[nodiscard]] static constexpr std::size_t size() noexcept { return N - 1; }
};

}  // namespace encore::api
