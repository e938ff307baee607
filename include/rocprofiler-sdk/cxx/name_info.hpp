// rocprofiler-sdk/cxx/name_info.hpp — every tracing kind's name and its operations' names in one
// table, filled from the C API's name queries, under the reference SDK's names. C++17.
//
//   auto names = rocprofiler::sdk::get_callback_tracing_names();   // callback_name_info
//   std::string_view k = names.at(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API);   // "HSA_CORE_API"
//   std::string_view o = names.at(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
//                                 ROCPROFILER_HSA_CORE_API_ID_hsa_init);      // "hsa_init"
//   for (const auto& kind : names)              // indexed by kind value, from 0 (NONE: no name)
//       for (auto [op, name] : kind.items())    // every operation id up to the kind's last
//           std::cout << kind.name << "::" << *name << '\n';
//
// As in the reference, the table is indexed by value: ids that have no name (kind 0, an event
// kind's operation 0) are entries holding the empty value, and at()/operator[] throw
// std::out_of_range past the last entry. The value type is std::string_view (the names live as
// long as libencore), std::string or const char* (callback_name_info_t<std::string>).
#pragma once

#include <rocprofiler-sdk/buffer_tracing.h>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/cxx/details/mpl.hpp>

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace rocprofiler {
namespace sdk {
namespace utility {

/// One kind: its value, its name, and its operations' names indexed by operation id.
template <typename EnumT, typename ValueT = std::string_view>
struct name_info_impl {
    using support_type = mpl::string_support<ValueT>;
    using enum_type = EnumT;
    using value_type = ValueT;
    using return_type = typename support_type::return_type;
    using item_type = std::pair<rocprofiler_tracing_operation_t, const value_type*>;
    using item_array_t = std::vector<item_type>;

    static_assert(support_type::value, "name_info holds names as const char*, std::string_view or std::string "
                                       "(rocprofiler::sdk::mpl::string_support)");

    /// The kind's name.
    return_type operator()() const { return name; }
    /// The name of operation `idx` (std::out_of_range past the last).
    return_type operator()(size_t idx) const { return operations.at(idx); }
    return_type operator[](size_t idx) const { return operations.at(idx); }

    /// (operation id, address of its name) for every id from 0 to the last, gaps included.
    item_array_t items() const;

    EnumT value = static_cast<EnumT>(0);
    value_type name = {};
    std::vector<value_type> operations = {};
};

/// Every kind of one enumeration, indexed by kind value.
template <typename EnumT, typename ValueT = std::string_view>
struct name_info {
    using value_type = name_info_impl<EnumT, ValueT>;
    using enum_type = EnumT;
    using support_type = typename value_type::support_type;
    using return_type = typename value_type::return_type;
    using item_type = const value_type*;
    using item_array_t = std::vector<item_type>;

    /// Records kind `idx`'s name (the table grows to hold it).
    void emplace(EnumT idx, const char* name);
    /// Records the name of operation `opidx` of kind `idx`.
    void emplace(EnumT idx, rocprofiler_tracing_operation_t opidx, const char* name);

    /// Kind `idx`'s name / its operation `opidx`'s name (std::out_of_range when absent).
    return_type at(EnumT idx) const;
    return_type at(EnumT idx, rocprofiler_tracing_operation_t opidx) const;

    /// The address of every entry, in kind order.
    item_array_t items() const;

    decltype(auto) size() const { return impl.size(); }
    decltype(auto) begin() { return impl.begin(); }
    decltype(auto) begin() const { return impl.begin(); }
    decltype(auto) end() { return impl.end(); }
    decltype(auto) end() const { return impl.end(); }

    value_type& operator[](size_t idx) { return impl.at(idx); }
    const value_type& operator[](size_t idx) const { return impl.at(idx); }

private:
    value_type& slot(EnumT idx);

    std::vector<value_type> impl = {};
};

}  // namespace utility

template <typename Tp = std::string_view>
using callback_name_info_t = utility::name_info<rocprofiler_callback_tracing_kind_t, Tp>;
using callback_name_info = callback_name_info_t<std::string_view>;

/// The names of every callback tracing kind and operation libencore knows in this process.
template <typename Tp = std::string_view>
callback_name_info_t<Tp> get_callback_tracing_names();

template <typename Tp = std::string_view>
using buffer_name_info_t = utility::name_info<rocprofiler_buffer_tracing_kind_t, Tp>;
using buffer_name_info = buffer_name_info_t<std::string_view>;

/// The names of every buffer tracing kind and operation.
template <typename Tp = std::string_view>
buffer_name_info_t<Tp> get_buffer_tracing_names();

}  // namespace sdk
}  // namespace rocprofiler

#include <rocprofiler-sdk/cxx/details/name_info.hpp>
