// src/core/enum_bits.hpp — an enum that comes from a C caller, read as its bits (private to
// libencore's C API files: c_api.cpp, counting_api.cpp, unsupported_services.cpp).
//
// A C caller may pass any integer where the C API takes an enum, and in C every such value is
// one of the enum type. In C++ loading a value outside the enum's range (a kind past 31, or
// negative) is undefined behaviour, so an enum that comes from the caller is read as its bits
// and checked before it is used as the enum (passed on, compared). The fuzz target (test/fuzz)
// finds such loads with clang's -fsanitize=enum.
#pragma once

#include <cstring>
#include <type_traits>

namespace encore::core {

template <class E>
std::underlying_type_t<E> bits_of(const E& e) noexcept {
    static_assert(std::is_enum_v<E>, "bits_of reads an enum's bits");
    std::underlying_type_t<E> v;
    std::memcpy(&v, &e, sizeof(v));
    return v;
}

}  // namespace encore::core
