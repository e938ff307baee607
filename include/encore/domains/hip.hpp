// encore/domains/hip.hpp — the HIP domains (runtime and compiler API), their enum names and
// printable structs.
#pragma once

#include <encore/api/arg_fields.hpp>
#include <encore/domains/hip_compiler.hpp>
#include <encore/domains/hip_enums.hpp>
#include <encore/domains/hip_runtime.hpp>

#include <tuple>

// Structs that print field by field (others print as bytes).
template <>
struct encore::arg_fields<dim3> {
    static constexpr auto value = std::tuple{field{"x", &dim3::x}, field{"y", &dim3::y}, field{"z", &dim3::z}};
};
