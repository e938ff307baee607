// encore/api/domain.hpp — a traced API: its kind, its table (if any) and its operations.
//
//   namespace encore::domains {
//   struct hsa_core : api::domain<"HSA_CORE_API", kind::hsa_core_api, ::CoreApiTable,
//       api::op<"hsa_init", &::CoreApiTable::hsa_init_fn>,
//       api::op<"hsa_shut_down", &::CoreApiTable::hsa_shut_down_fn>,
//       /* ... every slot, in table order ... */> {};
//   }
//   static_assert(encore::domains::hsa_core::id_of<"hsa_shut_down">() == 1);
//
// Derived here, each a fold over the op pack (no recursion):
//   ids          op id = position in the declaration (append-only: ids are ABI)
//   names        names[], c_names[], find(name), id_of<"name">() (unknown name: compile error,
//                encore_error_unknown_operation<"name", "DOMAIN">)
//   dispatch     api::visit<D>(id, f) calls f(std::integral_constant<std::size_t, I>) through a
//                jump table; api::for_each_op<D>(f) folds over every op
//   tables       api::slot_offset<D, I>(), api::slot_present<D, I>(table) — never past the size
//                the runtime reported in table.version.minor_id
// The wrapper and argument iteration are derived in encore/tracing/.
#pragma once

#include <encore/api/fixed_string.hpp>
#include <encore/api/kind.hpp>
#include <encore/api/op.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace encore::api {

/// Table type of a domain whose operations are exported symbols rather than table slots.
struct no_table {};

/// Never defined: naming it is the error a misspelt operation name gives (id_of, encore::ops), so
/// the first error line spells the name and the domain's — `encore_error_unknown_operation<
/// fixed_string<16>{"hsa_queue_creat"}, fixed_string<13>{"HSA_CORE_API"}>` (GCC; clang 14 prints
/// the strings as character codes) — where a failed lookup inside domain<...> gave first a 30 KB
/// line spelling the domain's whole op list (HSA's core table). Check the spelling against the
/// domain's declaration (include/encore/domains/).
template <fixed_string Operation, fixed_string Domain>
struct encore_error_unknown_operation;

namespace detail {
/// The error above when `Known` is false; keyed on the two names alone, so the lines that lead to
/// it stay short (the domain's own type, inside domain<...>, spells every op).
template <fixed_string Operation, fixed_string Domain, bool Known>
consteval op_id check_operation_name() {
    if constexpr (!Known) static_cast<void>(sizeof(encore_error_unknown_operation<Operation, Domain>));
    return -1;  // never used: with Known true the caller has the id, with false this does not compile
}

template <std::size_t N>
constexpr bool all_unique(std::array<std::string_view, N> names) {
    std::sort(names.begin(), names.end());
    return std::adjacent_find(names.begin(), names.end()) == names.end();
}
}  // namespace detail

template <fixed_string Name, kind Kind, class Table, class... Ops>
struct domain {
    using table_type = Table;
    using ops = type_list<Ops...>;
    template <std::size_t I>
    using op_at = detail::nth<I, Ops...>;

    static constexpr kind id = Kind;
    static constexpr std::string_view name = Name.view();
    static constexpr auto fixed_name = Name;  // a template argument: encore::ops's error names it
    [[nodiscard]] static constexpr const char* c_name() noexcept { return Name.c_str(); }
    static constexpr std::size_t size = sizeof...(Ops);
    /// API domains number operations from 0 (the reference: `*_ID_NONE = -1`).
    static constexpr op_id first_op = 0;
    static constexpr bool has_table = !std::is_same_v<Table, no_table>;

    static constexpr std::array<std::string_view, size> names{Ops::name...};
    static constexpr std::array<const char*, size> c_names{Ops::c_name()...};

    static_assert(size <= max_ops_per_kind, "encore: raise max_ops_per_kind for this domain");
    static_assert(detail::all_unique(names), "encore: two operations of a domain share a name");
    static_assert(((Ops::is_slot == has_table) && ...),
                  "encore: a domain over a table lists op<> slots; a domain over symbols "
                  "(api::no_table) lists fn<> entries");

    /// The id of the operation called `n`, if any.
    [[nodiscard]] static constexpr std::optional<op_id> find(std::string_view n) noexcept {
        for (std::size_t i = 0; i < size; ++i)
            if (names[i] == n) return static_cast<op_id>(i);
        return std::nullopt;
    }

    /// The id of the operation called `N`; a misspelt name does not compile, and the first error
    /// names it and the domain (encore_error_unknown_operation; only the "required from" line
    /// before it, a member of domain<...>, still spells the op list: encore::ops avoids that too).
    template <fixed_string N>
    [[nodiscard]] static consteval op_id id_of() {
        constexpr auto found = find(N.view());
        if constexpr (!found)
            return detail::check_operation_name<N, Name, false>();
        else
            return *found;
    }

    [[nodiscard]] static constexpr bool contains(op_id o) noexcept {
        return o >= 0 && static_cast<std::size_t>(o) < size;
    }
};

/// A kind whose operations are events rather than API functions (code objects, dispatches,
/// copies...). Its operations are numbered from 1, as in the reference (NONE = 0); it carries
/// no argument list, only its payload struct.
template <fixed_string Name, kind Kind, fixed_string... OpNames>
struct event_domain {
    static constexpr kind id = Kind;
    static constexpr std::string_view name = Name.view();
    [[nodiscard]] static constexpr const char* c_name() noexcept { return Name.c_str(); }
    static constexpr std::size_t size = sizeof...(OpNames);
    static constexpr op_id first_op = 1;
    static constexpr std::array<std::string_view, size> names{OpNames.view()...};
    static constexpr std::array<const char*, size> c_names{OpNames.c_str()...};

    [[nodiscard]] static constexpr bool contains(op_id o) noexcept {
        return o >= first_op && static_cast<std::size_t>(o) < size + first_op;
    }
    [[nodiscard]] static constexpr std::optional<op_id> find(std::string_view n) noexcept {
        for (std::size_t i = 0; i < size; ++i)
            if (names[i] == n) return static_cast<op_id>(i) + first_op;
        return std::nullopt;
    }
};

// ---- projections over a domain's operations ------------------------------------------------------
// Free functions keyed on the domain's own (short) name, not members of domain<...>: a member's
// symbol and debug names would spell the whole op list, once per operation.

/// Calls f(std::integral_constant<std::size_t, I>{}) for every operation of D, in id order.
template <class D, class F>
constexpr void for_each_op(F&& f) {
    [&]<std::size_t... I>(std::index_sequence<I...>) { (f(std::integral_constant<std::size_t, I>{}), ...); }
    (std::make_index_sequence<D::size>{});
}

namespace detail {
template <class D, class F, std::size_t I>
void visit_thunk(F& f) {
    f(std::integral_constant<std::size_t, I>{});
}
template <class D, class F, std::size_t... I>
constexpr auto visit_table(std::index_sequence<I...>) {
    return std::array<void (*)(F&), sizeof...(I)>{&visit_thunk<D, F, I>...};
}
}  // namespace detail

/// Runtime id -> compile-time op: calls f(std::integral_constant<std::size_t, I>{}) for I == o
/// through a jump table. Returns false (and calls nothing) for an id D does not have.
template <class D, class F>
bool visit(op_id o, F&& f) {
    if (!D::contains(o)) return false;
    using FR = std::remove_reference_t<F>;
    static constexpr auto table = detail::visit_table<D, FR>(std::make_index_sequence<D::size>{});
    table[static_cast<std::size_t>(o)](f);
    return true;
}

/// Byte offset of operation I's slot in D's table.
template <class D, std::size_t I>
requires D::has_table [[nodiscard]] std::size_t slot_offset() noexcept {
    using T = typename D::table_type;
    // offsetof for a pointer-to-member, measured on a zeroed object.
    alignas(T) static const std::byte probe[sizeof(T)]{};
    const auto* t = reinterpret_cast<const T*>(probe);
    return static_cast<std::size_t>(reinterpret_cast<const std::byte*>(&(t->*D::template op_at<I>::slot)) - probe);
}

/// Whether the runtime's table is large enough to hold operation I's slot. Tables report their
/// size in `version.minor_id`; an older runtime's table lacks the later slots.
template <class D, std::size_t I>
requires D::has_table [[nodiscard]] bool slot_present(const typename D::table_type& t) noexcept {
    return slot_offset<D, I>() + sizeof(void*) <= static_cast<std::size_t>(t.version.minor_id);
}

template <class D>
concept api_domain = requires {
    typename D::ops;
    typename D::table_type;
    { D::id } -> std::convertible_to<kind>;
};

}  // namespace encore::api
