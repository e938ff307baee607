// rocprofiler-sdk/cxx/details/name_info.hpp — how the name tables of <rocprofiler-sdk/cxx/name_info.hpp>
// are filled. One collector walks any kind enumeration through the C API's four name functions;
// which functions answer for an enumeration is a `tracing_names_api` specialization, so the
// callback and buffer tables differ only in that (a new enumeration is one more specialization).
#pragma once

#include <rocprofiler-sdk/cxx/name_info.hpp>

#include <cstddef>
#include <exception>
#include <type_traits>

namespace rocprofiler {
namespace sdk {
namespace utility {
namespace detail {
// Whether a kind value can index the table (C enums of negative values have a signed type).
template <typename EnumT>
constexpr bool has_index(EnumT idx) {
    using U = std::underlying_type_t<EnumT>;
    if constexpr (std::is_signed<U>::value)
        return static_cast<U>(idx) >= 0;
    else
        return true;
}
}  // namespace detail

template <typename EnumT, typename ValueT>
typename name_info_impl<EnumT, ValueT>::item_array_t name_info_impl<EnumT, ValueT>::items() const {
    item_array_t out;
    out.reserve(operations.size());
    for (size_t i = 0; i < operations.size(); ++i)
        out.emplace_back(static_cast<rocprofiler_tracing_operation_t>(i), &operations[i]);
    return out;
}

template <typename EnumT, typename ValueT>
typename name_info<EnumT, ValueT>::value_type& name_info<EnumT, ValueT>::slot(EnumT idx) {
    // Grow only: kinds may arrive in any order, and an entry once named keeps its name.
    const auto i = static_cast<size_t>(idx);
    if (impl.size() <= i) {
        const size_t first_new = impl.size();
        impl.resize(i + 1);
        for (size_t k = first_new; k < impl.size(); ++k) impl[k].value = static_cast<EnumT>(k);
    }
    return impl[i];
}

template <typename EnumT, typename ValueT>
void name_info<EnumT, ValueT>::emplace(EnumT idx, const char* name) {
    if (!detail::has_index(idx)) return;  // a negative id has no place in the table
    slot(idx).name = support_type{}(name);
}

template <typename EnumT, typename ValueT>
void name_info<EnumT, ValueT>::emplace(EnumT idx, rocprofiler_tracing_operation_t opidx, const char* name) {
    if (!detail::has_index(idx) || opidx < 0) return;
    auto& ops = slot(idx).operations;
    const auto o = static_cast<size_t>(opidx);
    if (ops.size() <= o) ops.resize(o + 1, support_type::default_value());
    ops[o] = support_type{}(name);
}

template <typename EnumT, typename ValueT>
typename name_info<EnumT, ValueT>::return_type name_info<EnumT, ValueT>::at(EnumT idx) const {
    return impl.at(static_cast<size_t>(idx)).name;
}

template <typename EnumT, typename ValueT>
typename name_info<EnumT, ValueT>::return_type name_info<EnumT, ValueT>::at(EnumT idx,
                                                                            rocprofiler_tracing_operation_t opidx) const {
    return impl.at(static_cast<size_t>(idx)).operations.at(static_cast<size_t>(opidx));
}

template <typename EnumT, typename ValueT>
typename name_info<EnumT, ValueT>::item_array_t name_info<EnumT, ValueT>::items() const {
    item_array_t out;
    out.reserve(impl.size());
    for (const auto& kind : impl) out.emplace_back(&kind);
    return out;
}

namespace detail {

/// The C functions that name the kinds of enumeration EnumT and their operations.
template <typename EnumT>
struct tracing_names_api {
    static_assert(mpl::assert_false<EnumT>::value, "no name queries are declared for this kind enumeration");
};

template <>
struct tracing_names_api<rocprofiler_callback_tracing_kind_t> {
    using kind_type = rocprofiler_callback_tracing_kind_t;
    static rocprofiler_status_t iterate_kinds(rocprofiler_callback_tracing_kind_cb_t cb, void* data) {
        return rocprofiler_iterate_callback_tracing_kinds(cb, data);
    }
    static rocprofiler_status_t iterate_operations(kind_type k, rocprofiler_callback_tracing_kind_operation_cb_t cb,
                                                   void* data) {
        return rocprofiler_iterate_callback_tracing_kind_operations(k, cb, data);
    }
    static rocprofiler_status_t kind_name(kind_type k, const char** name) {
        return rocprofiler_query_callback_tracing_kind_name(k, name, nullptr);
    }
    static rocprofiler_status_t operation_name(kind_type k, rocprofiler_tracing_operation_t op, const char** name) {
        return rocprofiler_query_callback_tracing_kind_operation_name(k, op, name, nullptr);
    }
};

template <>
struct tracing_names_api<rocprofiler_buffer_tracing_kind_t> {
    using kind_type = rocprofiler_buffer_tracing_kind_t;
    static rocprofiler_status_t iterate_kinds(rocprofiler_buffer_tracing_kind_cb_t cb, void* data) {
        return rocprofiler_iterate_buffer_tracing_kinds(cb, data);
    }
    static rocprofiler_status_t iterate_operations(kind_type k, rocprofiler_buffer_tracing_kind_operation_cb_t cb,
                                                   void* data) {
        return rocprofiler_iterate_buffer_tracing_kind_operations(k, cb, data);
    }
    static rocprofiler_status_t kind_name(kind_type k, const char** name) {
        return rocprofiler_query_buffer_tracing_kind_name(k, name, nullptr);
    }
    static rocprofiler_status_t operation_name(kind_type k, rocprofiler_tracing_operation_t op, const char** name) {
        return rocprofiler_query_buffer_tracing_kind_operation_name(k, op, name, nullptr);
    }
};

/// Fills a name_info from the C API. The C iteration calls back through C frames, so nothing
/// may unwind through it: an exception thrown while storing a name (std::bad_alloc) stops the
/// walk and is rethrown to the caller once the C function has returned.
template <typename EnumT, typename ValueT>
struct name_collector {
    using api = tracing_names_api<EnumT>;
    name_info<EnumT, ValueT> names;
    std::exception_ptr error;

    static int on_operation(EnumT kind, rocprofiler_tracing_operation_t op, void* data) noexcept {
        auto* self = static_cast<name_collector*>(data);
        const char* name = nullptr;
        if (api::operation_name(kind, op, &name) != ROCPROFILER_STATUS_SUCCESS || name == nullptr) return 0;
        try {
            self->names.emplace(kind, op, name);
        } catch (...) {
            self->error = std::current_exception();
            return 1;  // stop iterating
        }
        return 0;
    }

    static int on_kind(EnumT kind, void* data) noexcept {
        auto* self = static_cast<name_collector*>(data);
        const char* name = nullptr;
        if (api::kind_name(kind, &name) == ROCPROFILER_STATUS_SUCCESS && name != nullptr) {
            try {
                self->names.emplace(kind, name);
            } catch (...) {
                self->error = std::current_exception();
                return 1;
            }
        }
        // A kind without operations (NOT_IMPLEMENTED) keeps its name and an empty list.
        (void)api::iterate_operations(kind, &name_collector::on_operation, data);
        return self->error ? 1 : 0;
    }

    name_info<EnumT, ValueT> collect() {
        (void)api::iterate_kinds(&name_collector::on_kind, this);
        if (error) std::rethrow_exception(error);
        return std::move(names);
    }
};

}  // namespace detail
}  // namespace utility

template <typename Tp>
callback_name_info_t<Tp> get_callback_tracing_names() {
    return utility::detail::name_collector<rocprofiler_callback_tracing_kind_t, Tp>{}.collect();
}

template <typename Tp>
buffer_name_info_t<Tp> get_buffer_tracing_names() {
    return utility::detail::name_collector<rocprofiler_buffer_tracing_kind_t, Tp>{}.collect();
}

}  // namespace sdk
}  // namespace rocprofiler
