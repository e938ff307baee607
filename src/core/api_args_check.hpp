// src/core/api_args_check.hpp — what the generated api_args_check.cpp asserts, per operation of
// an API domain and per parameter, about the C payload unions (rocprofiler-sdk/*/api_args.h):
// that the union member named like the function aliases encore::api::captured_args<Op>.
//
//   static_assert(op_matches<hsa_core, 7>("hsa_queue_create", sizeof(U::hsa_queue_create), 8));
//   static_assert(arg_matches<hsa_core, 7, 1, decltype(std::declval<U>().hsa_queue_create.size)>(
//       offsetof(U, hsa_queue_create.size)));
#pragma once

#include <encore/api/op.hpp>
#include <encore/domains/detail/hip_api.hpp>
#include <rocprofiler-sdk/fwd.h>

#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace encore::core::api_args_check {

/// The C field type the headers use for a parameter type: itself, except a by-value dim3 (a C++
/// class with constructors in HIP's headers), which the reference declares as rocprofiler_dim3_t.
template <class T>
struct c_field {
    using type = T;
};
template <>
struct c_field<dim3> {
    static_assert(sizeof(dim3) == sizeof(rocprofiler_dim3_t) && alignof(dim3) == alignof(rocprofiler_dim3_t) &&
                      offsetof(dim3, z) == offsetof(rocprofiler_dim3_t, z),
                  "encore: dim3 and rocprofiler_dim3_t no longer share a layout");
    using type = rocprofiler_dim3_t;
};

/// Operation I of D is the function `name`, has `fields` parameters, and its captured copy has
/// the C struct's size (a function without parameters: 1 byte each, the `no_args` field).
template <class D, std::size_t I>
consteval bool op_matches(std::string_view name, std::size_t c_size, std::size_t fields) {
    using Op = typename D::template op_at<I>;
    return Op::name == name && Op::arity == fields && sizeof(api::captured_args<Op>) == c_size;
}

/// Parameter J of operation I of D sits at the C field's offset and has the C field's type.
template <class D, std::size_t I, std::size_t J, class CField>
consteval bool arg_matches(std::size_t c_offset) {
    using Op = typename D::template op_at<I>;
    return Op::layout::offsets[J] == c_offset &&
           std::is_same_v<typename c_field<typename Op::template arg<J>>::type, CField>;
}

}  // namespace encore::core::api_args_check
