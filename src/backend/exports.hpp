// src/backend/exports.hpp — what tools/gen_exports.py's generated definitions spell.
//
// Each exported function of a symbol domain is generated as
//   extern "C" ENCORE_EXPORT ret_t<D, I> name(arg_t<D, I, 0> a0, ...) { return forward<D, I>(a0, ...); }
// and forward<D, I> (backend/interposer.hpp, included by the library's prelude header) is the
// domain's wrapper. The types come from the domain declaration, never from the generator.
// An op without a prototype in this build (api::unavailable) is generated as
//   ENCORE_EXPORT_UNAVAILABLE(D, I, name);
// a jump through encore_unavailable_exports[I], which the library defines (hidden, one entry per
// op id of D) and fills with the real functions when it loads: the export stays, untraced.
#pragma once

#include <encore/api/domain.hpp>

#include <cstddef>

#define ENCORE_EXPORT __attribute__((visibility("default")))

#if defined(__x86_64__)
#    define ENCORE_EXPORT_UNAVAILABLE(D, I, NAME)                                                                      \
        static_assert(!D::op_at<I>::available && D::names[I] == #NAME,                                                 \
                      "ENCORE_EXPORT_UNAVAILABLE: op " #I " is not api::unavailable<\"" #NAME "\">");                  \
        asm(".text\n.globl " #NAME "\n.type " #NAME ", @function\n" #NAME ":\n\tjmp *encore_unavailable_exports+8*" #I \
            "(%rip)\n.size " #NAME ", .-" #NAME "\n")
#endif

namespace encore::exports {

template <class D, std::size_t I>
using ret_t = typename D::template op_at<I>::return_type;
template <class D, std::size_t I, std::size_t J>
using arg_t = typename D::template op_at<I>::template arg<J>;

}  // namespace encore::exports
