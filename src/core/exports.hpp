// src/core/exports.hpp — what tools/gen_exports.py's generated definitions spell.
//
// Each exported function of a symbol domain is generated as
//   extern "C" ENCORE_EXPORT ret_t<D, I> name(arg_t<D, I, 0> a0, ...) { return forward<D, I>(a0, ...); }
// and the library's prelude header defines forward<D, I> (the interposer: the domain's
// wrapper). The types come from the domain declaration, never from the generator.
#pragma once

#include <encore/api/domain.hpp>

#include <cstddef>

#define ENCORE_EXPORT __attribute__((visibility("default")))

namespace encore::exports {

template <class D, std::size_t I>
using ret_t = typename D::template op_at<I>::return_type;
template <class D, std::size_t I, std::size_t J>
using arg_t = typename D::template op_at<I>::template arg<J>;

}  // namespace encore::exports
