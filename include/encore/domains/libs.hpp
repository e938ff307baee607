// encore/domains/libs.hpp — the library API kinds, declared once: one domain per traced library,
// each interposed by its own libencore-<name> (src/libs/, docs/libraries.md).
//
//   static_assert(encore::domains::library_name<encore::domains::rocjpeg>.view() == "rocjpeg");
//   encore::domains::for_each_library([]<class D>() { std::puts(D::c_name()); });   // RCCL_API, ...
//
// `libraries` is the list every library site iterates: libencore registers each one's names and
// argument printers (src/core/domains_libs.cpp), the payload unions' check is generated for each
// (tools/gen_lib_domains.py, which fails to compile when its own list differs), and the tests run
// each interposer (test/libs). src/libs/meson.build's list of interposers is checked against this
// one by the libs_declared test. A new library is one line here; docs/architecture.md says the rest.
#pragma once

#include <encore/api/fixed_string.hpp>
#include <encore/api/op.hpp>
#include <encore/domains/hipfile.hpp>
#include <encore/domains/rccl.hpp>
#include <encore/domains/rocdecode.hpp>
#include <encore/domains/rocjpeg.hpp>
#include <encore/domains/rocshmem.hpp>
#include <encore/tracing/kinds.hpp>

#include <bit>
#include <cstddef>
#include <string_view>

namespace encore::domains {

/// Every library API domain, in the order of their kinds' producer bits (checked below).
using libraries = api::type_list<rccl, rocdecode, rocjpeg, rocshmem, hipfile>;

/// Calls f.template operator()<D>() for each library domain D, in list order.
template <class F>
constexpr void for_each_library(F&& f) {
    [&]<class... D>(api::type_list<D...>) { (f.template operator()<D>(), ...); }(libraries{});
}

/// The short name of library domain D ("rocjpeg"): its kind's name less "_API", in lower case. It
/// names the interposer (libencore-rocjpeg), its sources (src/libs/rocjpeg.*), its domain header
/// and its entry in src/libs/meson.build.
template <class D>
inline constexpr auto library_name = [] {
    constexpr std::string_view kind = D::name;
    static_assert(kind.ends_with("_API"), "a library domain is named like its kind, <LIBRARY>_API");
    char out[kind.size() - 4 + 1]{};
    for (std::size_t i = 0; i + 4 < kind.size(); ++i)
        out[i] = kind[i] >= 'A' && kind[i] <= 'Z' ? static_cast<char>(kind[i] - 'A' + 'a') : kind[i];
    return api::fixed_string<kind.size() - 4 + 1>(out);
}();

/// The producer bits of every library (tracing/kinds.hpp's producer_table).
inline constexpr std::uint32_t library_producers = [] {
    std::uint32_t bits = 0;
    for_each_library([&]<class D>() { bits |= tracing::producers_of(D::id); });
    return bits;
}();

namespace detail {
template <class D>
constexpr bool library_decl_ok() {
    constexpr std::uint32_t bit = tracing::producers_of(D::id);
    static_assert(std::has_single_bit(bit),
                  "a library kind's kind_list line (tracing/kinds.hpp) names one producer: its own produced_by:: bit");
    static_assert(tracing::producer_table[std::countr_zero(bit)].reports_runtime_initialization,
                  "a library's producer_table line (tracing/kinds.hpp) says it reports RUNTIME_INITIALIZATION");
    static_assert(tracing::operations_of(D::id) == tracing::operations::domain,
                  "a library kind's kind_list line says operations::domain (libencore registers its names)");
    return true;
}
}  // namespace detail

static_assert([]<class... D>(api::type_list<D...>) { return (detail::library_decl_ok<D>() && ...); }(libraries{}));
static_assert(
    [] {
        std::uint32_t last = 0;
        bool ordered = true;
        for_each_library([&]<class D>() {
            ordered = ordered && tracing::producers_of(D::id) > last;
            last = tracing::producers_of(D::id);
        });
        return ordered;
    }(),
    "libraries: one entry per library, in the order of their produced_by:: bits");

}  // namespace encore::domains
