// encore/api/arg_fields.hpp — the declaration of a struct's printable fields, part of declaring
// an API (beside encore/api/enum_names.hpp): argument printing (encore/tracing/format.hpp) prints
// a struct with such a declaration field by field.
//
//   template <> struct encore::arg_fields<hsa_dim3_t> {
//       static constexpr auto value = std::tuple{encore::field{"x", &hsa_dim3_t::x}, ...};
//   };
#pragma once

namespace encore {

/// Specialize with `static constexpr auto value = std::tuple{field{...}, ...}`.
template <class T>
struct arg_fields;

template <class C, class M>
struct field {
    const char* name;
    M C::*member;
};
// Spelled out for compilers without class template argument deduction for aggregates (clang
// before 17, which the fuzz build uses); C++20 compilers that have it deduce the same.
template <class C, class M>
field(const char*, M C::*) -> field<C, M>;

}  // namespace encore
