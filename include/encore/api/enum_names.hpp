// encore/api/enum_names.hpp — the customization point that prints enum values by name.
//
//   template <> struct encore::api::enum_names<hsa_status_t> {
//       static constexpr std::pair<hsa_status_t, const char*> values[] = {
//           {HSA_STATUS_SUCCESS, "HSA_STATUS_SUCCESS"}, ...};
//   };
//
// Tables for the HSA and HIP enums are generated (tools/gen_domains.py) into
// encore/domains/{hsa,hip}_enums.hpp. An enum without a table prints as its integer value.
#pragma once

#include <utility>

namespace encore::api {

/// Specialize with `static constexpr std::pair<E, const char*> values[]`.
template <class E>
struct enum_names;

template <class E>
concept named_enum = requires { enum_names<E>::values; };

/// The first name whose value equals v, or nullptr.
template <named_enum E>
[[nodiscard]] constexpr const char* enum_name(E v) noexcept {
    for (const auto& [value, name] : enum_names<E>::values)
        if (value == v) return name;
    return nullptr;
}

}  // namespace encore::api
