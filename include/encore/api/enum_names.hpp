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

#include <type_traits>
#include <utility>

namespace encore::api {

/// Specialize with `static constexpr std::pair<E, const char*> values[]`.
template <class E>
struct enum_names;

template <class E>
concept named_enum = requires {
    enum_names<E>::values;
};

/// The first name whose value equals the raw value v, or nullptr. Takes the underlying integer:
/// a traced call may pass any bit pattern, and loading one outside the enum's range as the enum
/// type is undefined behaviour.
template <named_enum E>
[[nodiscard]] constexpr const char* enum_name_of_value(std::underlying_type_t<E> v) noexcept {
    for (const auto& [value, name] : enum_names<E>::values)
        if (static_cast<std::underlying_type_t<E>>(value) == v) return name;
    return nullptr;
}

/// The first name whose value equals v, or nullptr.
template <named_enum E>
[[nodiscard]] constexpr const char* enum_name(E v) noexcept {
    return enum_name_of_value<E>(static_cast<std::underlying_type_t<E>>(v));
}

}  // namespace encore::api
