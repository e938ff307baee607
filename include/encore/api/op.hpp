// encore/api/op.hpp — one operation of a traced API, declared once.
//
//   api::op<"hsa_queue_create", &CoreApiTable::hsa_queue_create_fn,
//           "agent", "size", "type", "callback", "data",
//           "private_segment_size", "group_segment_size", "queue">      // a table slot
//   api::fn<"hipMalloc", hipError_t(void**, size_t), "ptr", "size">     // an exported symbol
//   api::unavailable<"cuMemcpyBatchAsync_v2">      // a name (and id) without a prototype here
//
// Types always come from the slot (`R (*T::*)(A...)`) or the symbol's prototype: the
// declaration only adds names. Everything else — ids, the wrapper, argument iteration — is
// derived from it in domain.hpp and the tracing layer.
#pragma once

#include <encore/api/fixed_string.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>

namespace encore::api {

template <class... T>
struct type_list {
    static constexpr std::size_t size = sizeof...(T);
};

namespace detail {

/// Constant-time pack indexing (no recursion): each element is a distinct base class.
template <std::size_t I, class T>
struct indexed {
    using type = T;
};
template <class Seq, class... T>
struct indexer;
template <std::size_t... I, class... T>
struct indexer<std::index_sequence<I...>, T...> : indexed<I, T>... {};
template <std::size_t I, class T>
indexed<I, T> select(indexed<I, T>);

template <std::size_t I, class... T>
using nth = typename decltype(select<I>(indexer<std::index_sequence_for<T...>, T...>{}))::type;

/// Where each argument lives in the captured copy: the layout a C compiler gives
/// `struct { A0 a0; A1 a1; ... }`, so the C API's per-call structs can alias it.
template <class... A>
struct c_layout {
    static constexpr std::size_t count = sizeof...(A);
    static constexpr std::size_t align = [] {
        std::size_t a = 1;
        ((a = alignof(A) > a ? alignof(A) : a), ...);
        return a;
    }();
    static constexpr std::array<std::size_t, count> offsets = [] {
        std::array<std::size_t, count> out{};
        std::size_t at = 0, i = 0;
        ((at = (at + alignof(A) - 1) / alignof(A) * alignof(A), out[i++] = at, at += sizeof(A)), ...);
        return out;
    }();
    static constexpr std::size_t size = [] {
        std::size_t at = 0;
        ((at = (at + alignof(A) - 1) / alignof(A) * alignof(A) + sizeof(A)), ...);
        return (at + align - 1) / align * align;
    }();
};

template <class R, class... A>
struct signature {
    static_assert((std::is_trivially_copyable_v<A> && ...),
                  "encore: traced functions take C types; an argument is not trivially copyable");
    using return_type = R;
    using function_type = R(A...);
    using pointer_type = R (*)(A...);
    using args = type_list<A...>;
    using layout = c_layout<A...>;
    static constexpr std::size_t arity = sizeof...(A);
    template <std::size_t I>
    using arg = nth<I, A...>;
};

template <class T>
struct slot_signature {
    static_assert(sizeof(T) == 0, "encore: op<Name, Slot, ...> needs Slot = &Table::field, where the field is a "
                                  "function pointer `R (*)(A...)`");
};
template <class T, class R, class... A>
struct slot_signature<R (*T::*)(A...)> : signature<R, A...> {
    using table_type = T;
};

template <class S>
struct fn_signature {
    static_assert(sizeof(S) == 0, "encore: fn<Name, Sig, ...> needs Sig to be a function type such as "
                                  "`hipError_t(void**, size_t)`");
};
template <class R, class... A>
struct fn_signature<R(A...)> : signature<R, A...> {};

template <class Sig, fixed_string Name, fixed_string... Params>
struct op_base : Sig {
    static_assert(sizeof...(Params) == Sig::arity,
                  "encore: name every parameter of the op's function, in order: the number of "
                  "parameter names differs from the function's arity (see the op named in this "
                  "instantiation)");
    static constexpr std::string_view name = Name.view();
    [[nodiscard]] static constexpr const char* c_name() noexcept { return Name.c_str(); }
    static constexpr std::array<std::string_view, sizeof...(Params)> param_names{Params.view()...};
    static constexpr std::array<const char*, sizeof...(Params)> param_c_names{Params.c_str()...};
};

}  // namespace detail

/// An operation over a runtime table slot (`&Table::field`).
template <fixed_string Name, auto Slot, fixed_string... Params>
struct op : detail::op_base<detail::slot_signature<decltype(Slot)>, Name, Params...> {
    static constexpr auto slot = Slot;
    static constexpr bool is_slot = true;
    static constexpr bool available = true;
};

/// An operation over an exported symbol with the function type `Sig`.
template <fixed_string Name, class Sig, fixed_string... Params>
struct fn : detail::op_base<detail::fn_signature<Sig>, Name, Params...> {
    static constexpr bool is_slot = false;
    static constexpr bool available = true;
};

/// An exported symbol whose prototype this build's headers do not declare (a symbol domain built
/// against an older runtime header than its op list was generated from): it keeps the op's id
/// and name, but has no function type, so no wrapper, export or install can be instantiated for
/// it (they do not compile). It carries no arguments; the library forwards the symbol untraced.
template <fixed_string Name>
struct unavailable {
    static constexpr bool is_slot = false;
    static constexpr bool available = false;
    static constexpr std::string_view name = Name.view();
    [[nodiscard]] static constexpr const char* c_name() noexcept { return Name.c_str(); }
    using args = type_list<>;
    using layout = detail::c_layout<>;
    static constexpr std::size_t arity = 0;
    template <std::size_t>
    using arg = struct no_argument;  // incomplete: there are none (arity 0)
    static constexpr std::array<std::string_view, 0> param_names{};
    static constexpr std::array<const char*, 0> param_c_names{};
};

/// The by-value copy of one call's arguments, laid out as a C struct of those arguments.
/// `arg_value_addr` in argument iteration points into it.
template <class Op, class = typename Op::args>
struct captured_args;
template <class Op, class... A>
struct captured_args<Op, type_list<A...>> {
    using layout = typename Op::layout;
    alignas(layout::align) std::byte storage[layout::size == 0 ? 1 : layout::size];

    captured_args() = default;
    explicit captured_args(std::in_place_t, A... a) noexcept {
        std::size_t i = 0;
        ((::new (static_cast<void*>(storage + layout::offsets[i++])) A(a)), ...);
    }

    template <std::size_t I>
    [[nodiscard]] auto& get() noexcept {
        return *std::launder(reinterpret_cast<typename Op::template arg<I>*>(storage + layout::offsets[I]));
    }
    template <std::size_t I>
    [[nodiscard]] const auto& get() const noexcept {
        return *std::launder(reinterpret_cast<const typename Op::template arg<I>*>(storage + layout::offsets[I]));
    }
};

}  // namespace encore::api
