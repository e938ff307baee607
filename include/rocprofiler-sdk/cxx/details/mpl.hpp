// rocprofiler-sdk/cxx/details/mpl.hpp — the type traits the C++ helpers are built on, under the
// reference SDK's names (rocprofiler::sdk::mpl). C++17.
//
//   static_assert(rocprofiler::sdk::mpl::string_support<std::string_view>::value);
//   static_assert(rocprofiler::sdk::mpl::is_string_type<const std::string&>::value);
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

namespace rocprofiler {
namespace sdk {
namespace mpl {

/// Tp without reference, cv-qualifiers and array/function decay.
template <typename Tp>
struct unqualified_identity {
    using type = std::remove_cv_t<std::decay_t<Tp>>;
};
template <typename Tp>
using unqualified_identity_t = typename unqualified_identity<Tp>::type;

template <typename Tp, typename Up>
struct is_same_unqualified_identity : std::is_same<unqualified_identity_t<Tp>, unqualified_identity_t<Up>> {};

/// How a name is stored in the name tables (name_info.hpp): `value` says whether Tp can hold
/// one, operator() makes one from the C string a query returns, default_value() fills the gaps
/// (an operation id without a name).
template <typename Tp>
struct string_support {
    using type = Tp;
    using return_type = void;
    static constexpr bool value = false;
    static constexpr void default_value() {}
};

template <>
struct string_support<const char*> {
    using type = const char*;
    using return_type = const char*;
    static constexpr bool value = true;
    static constexpr type default_value() { return nullptr; }
    type operator()(const char* s) const { return s; }
};

template <>
struct string_support<std::string_view> {
    using type = std::string_view;
    using return_type = std::string_view;
    static constexpr bool value = true;
    static constexpr type default_value() { return {}; }
    type operator()(const char* s) const { return s != nullptr ? type{s} : type{}; }
};

template <>
struct string_support<std::string> {
    using type = std::string;
    using return_type = std::string;
    static constexpr bool value = true;
    static type default_value() { return {}; }
    type operator()(const char* s) const { return s != nullptr ? type{s} : type{}; }
};

namespace impl {
template <typename Tp>
struct is_string_type : std::false_type {};
template <>
struct is_string_type<std::string> : std::true_type {};
template <>
struct is_string_type<std::string_view> : std::true_type {};
template <>
struct is_string_type<char*> : std::true_type {};
template <>
struct is_string_type<const char*> : std::true_type {};
}  // namespace impl

/// Whether Tp (qualifiers ignored) is one of the string types a C string converts to.
template <typename Tp>
struct is_string_type : impl::is_string_type<unqualified_identity_t<Tp>> {};

/// For a static_assert that must fail only when a template is instantiated.
template <typename Tp>
struct assert_false {
    static constexpr bool value = false;
};

}  // namespace mpl
}  // namespace sdk
}  // namespace rocprofiler
