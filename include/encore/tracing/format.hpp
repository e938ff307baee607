// encore/tracing/format.hpp — how an argument value prints, and iterating a call's arguments.
//
//   encore::tracing::for_each_arg<hsa_core, I>(payload, /*max_deref=*/2,
//       [](const encore::tracing::arg_info& a) { std::printf("%s %s = %s\n", a.type, a.name, a.value); });
//
// How a type prints, in priority order (the first that applies wins):
//   1. a specialization encore::arg_formatter<T> with `static void format(format_context&, const T&)`
//   2. an ADL function `encore_format_arg(encore::format_context&, const T&)` found for T
//   3. built-ins: C strings (quoted and escaped as a C string literal, read through a guarded
//      path, at most 256 bytes of them), enums by name
//      (encore::api::enum_names), HSA-style handles ("handle=0x..."), arithmetic values, pointers
//      (followed while fewer than max_dereference_count dereferences were done, each read
//      guarded: a bad pointer prints "<invalid pointer 0x...>" and never faults), structs with an
//      encore::arg_fields<T> declaration field by field, other objects as their bytes.
// Dereferencing never crashes the process: memory is read with process_vm_readv on ourselves,
// which reports EFAULT instead of raising SIGSEGV.
#pragma once

#include <encore/api/arg_fields.hpp>
#include <encore/api/domain.hpp>
#include <encore/api/enum_names.hpp>
#include <encore/api/type_name.hpp>
#include <encore/tracing/detail/core.hpp>
#include <encore/tracing/payload.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>

namespace encore {

/// Where a value is formatted, and how deep pointers may still be followed.
struct format_context {
    std::string& out;
    int max_deref;       // dereferences allowed in total for this argument
    int deref_done = 0;  // dereferences done so far on the current path
    int deref_max_seen = 0;
};

/// Customization point 1: specialize with `static void format(format_context&, const T&)`.
template <class T>
struct arg_formatter;

void format_value(format_context& ctx, const auto& v);

namespace detail_format {

/// Any object pointer (cv-qualified too) as a plain address.
template <class T>
const void* address_of(T* p) noexcept {
    return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p));
}

template <class T>
concept has_formatter = requires(format_context& c, const T& v) {
    arg_formatter<T>::format(c, v);
};
template <class T>
concept has_adl_hook = requires(format_context& c, const T& v) {
    encore_format_arg(c, v);
};
template <class T>
concept has_fields = requires {
    arg_fields<T>::value;
};
template <class T>
concept handle_like = std::is_class_v<T> && sizeof(T) == sizeof(std::uint64_t) && requires(const T& v) {
    { v.handle } -> std::convertible_to<std::uint64_t>;
};
// clang-format 14 breaks this concept's template arguments apart:
// clang-format off
template <class T>
concept c_string = std::is_same_v<std::remove_cv_t<T>, char*> || std::is_same_v<std::remove_cv_t<T>, const char*>;
// clang-format on

template <class T>
concept followable_pointer = std::is_pointer_v<T> && !std::is_void_v<std::remove_pointer_t<T>> &&
                             !std::is_function_v<std::remove_pointer_t<T>> && requires {
    sizeof(std::remove_pointer_t<T>);
};  // complete types only

inline void format_pointer_value(format_context& ctx, const void* p) {
    if (p == nullptr)
        ctx.out += "(null)";
    else
        fmt::format_to(std::back_inserter(ctx.out), "{}", p);
}

// Length of the well-formed UTF-8 sequence that starts s[0..n), or 0 if none does (a lone
// continuation byte, an overlong form, a surrogate, past U+10FFFF, or cut short at n).
inline std::size_t utf8_sequence(const unsigned char* s, std::size_t n) noexcept {
    const unsigned char c = s[0];
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0) lo = 0xa0;  // overlong
        if (c == 0xed) hi = 0x9f;  // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0) lo = 0x90;  // overlong
        if (c == 0xf4) hi = 0x8f;  // past U+10FFFF
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (std::size_t i = 2; i < len; ++i)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return len;
}

// Appends s[0..n) as the inside of a C string literal, so that a value string is one line and
// reads back as the bytes the program passed: \" \\ \n \t \r as such; other control bytes, DEL
// and bytes that are no part of well-formed UTF-8 as three-digit octal (\ooo: an octal escape
// ends after three digits, so a digit that follows cannot extend it as it would a \x escape).
// Well-formed UTF-8 stays as it is: names and paths stay readable, and the string stays valid
// UTF-8 for the JSON writer.
inline void append_c_literal(std::string& out, const char* s, std::size_t n) {
    const auto* u = reinterpret_cast<const unsigned char*>(s);
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = u[i];
        const char* esc = c == '"'    ? "\\\""
                          : c == '\\' ? "\\\\"
                          : c == '\n' ? "\\n"
                          : c == '\t' ? "\\t"
                          : c == '\r' ? "\\r"
                                      : nullptr;
        if (esc != nullptr) {
            out += esc;
            ++i;
        } else if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
            ++i;
        } else if (const std::size_t len = c >= 0x80 ? utf8_sequence(u + i, n - i) : 0; len != 0) {
            out.append(s + i, len);
            i += len;
        } else {
            const char octal[4] = {'\\', static_cast<char>('0' + (c >> 6)), static_cast<char>('0' + ((c >> 3) & 7)),
                                   static_cast<char>('0' + (c & 7))};
            out.append(octal, sizeof(octal));
            ++i;
        }
    }
}

inline void format_c_string(format_context& ctx, const char* s) {
    if (s == nullptr) {
        ctx.out += "(null)";
        return;
    }
    if (ctx.deref_done >= ctx.max_deref) {
        format_pointer_value(ctx, s);
        return;
    }
    char buf[257];
    bool truncated = false;
    const long n = tracing::detail::guarded_read_string(buf, s, sizeof(buf) - 1, truncated);
    if (n < 0) {
        fmt::format_to(std::back_inserter(ctx.out), "<invalid pointer {}>", static_cast<const void*>(s));
        return;
    }
    const int depth = ctx.deref_done + 1;
    if (depth > ctx.deref_max_seen) ctx.deref_max_seen = depth;
    // Truncation counts the program's bytes (at most 256), never the escaped text: an escape
    // sequence is appended whole or not at all, so "..." never follows half of one.
    ctx.out += '"';
    append_c_literal(ctx.out, buf, static_cast<std::size_t>(n));
    ctx.out += truncated ? "\"..." : "\"";
}

}  // namespace detail_format

/// Formats one value by the priority order described at the top of this header.
void format_value(format_context& ctx, const auto& v) {
    using T = std::remove_cvref_t<decltype(v)>;
    namespace d = detail_format;
    if constexpr (d::has_formatter<T>) {
        arg_formatter<T>::format(ctx, v);
    } else if constexpr (d::has_adl_hook<T>) {
        encore_format_arg(ctx, v);
    } else if constexpr (d::c_string<T>) {
        d::format_c_string(ctx, v);
    } else if constexpr (std::is_enum_v<T>) {
        // Read the bits as the underlying integer: the caller may have passed a value outside
        // the enum's range, and loading that as T is undefined behaviour.
        std::underlying_type_t<T> raw;
        std::memcpy(&raw, &v, sizeof(raw));
        if constexpr (api::named_enum<T>) {
            if (const char* n = api::enum_name_of_value<T>(raw)) {
                ctx.out += n;
                return;
            }
        }
        fmt::format_to(std::back_inserter(ctx.out), "{}", raw);
    } else if constexpr (std::is_same_v<T, bool>) {
        // Read as its byte: a forged record (or a C caller's _Bool-sized int) may hold any
        // value, and loading one other than 0 or 1 as bool is undefined behaviour.
        unsigned char raw;
        static_assert(sizeof(raw) == sizeof(bool));
        std::memcpy(&raw, &v, sizeof(raw));
        if (raw <= 1)
            ctx.out += raw != 0 ? "true" : "false";
        else
            fmt::format_to(std::back_inserter(ctx.out), "{}", raw);
    } else if constexpr (std::is_arithmetic_v<T>) {
        fmt::format_to(std::back_inserter(ctx.out), "{}", v);
    } else if constexpr (d::handle_like<T>) {
        fmt::format_to(std::back_inserter(ctx.out), "handle={:#x}", static_cast<std::uint64_t>(v.handle));
    } else if constexpr (d::has_fields<T>) {
        ctx.out += '{';
        bool first = true;
        std::apply(
            [&](const auto&... f) {
                ((ctx.out += first ? "" : ", ", first = false, ctx.out += f.name, ctx.out += '=',
                  format_value(ctx, v.*(f.member))),
                 ...);
            },
            arg_fields<T>::value);
        ctx.out += '}';
    } else if constexpr (d::followable_pointer<T>) {
        using P = std::remove_cv_t<std::remove_pointer_t<T>>;
        if (v == nullptr || ctx.deref_done >= ctx.max_deref) {
            d::format_pointer_value(ctx, d::address_of(v));
        } else {
            alignas(P) std::byte buf[sizeof(P)];
            if (!tracing::detail::guarded_read(buf, d::address_of(v), sizeof(P))) {
                fmt::format_to(std::back_inserter(ctx.out), "<invalid pointer {}>", d::address_of(v));
                return;
            }
            ++ctx.deref_done;
            if (ctx.deref_done > ctx.deref_max_seen) ctx.deref_max_seen = ctx.deref_done;
            format_value(ctx, *std::launder(reinterpret_cast<const P*>(buf)));
            --ctx.deref_done;
        }
    } else if constexpr (std::is_pointer_v<T>) {
        // void* and function pointers: the address only.
        d::format_pointer_value(ctx, reinterpret_cast<const void*>(v));
    } else if constexpr (std::is_array_v<T>) {
        ctx.out += '[';
        for (std::size_t i = 0; i < std::extent_v<T>; ++i) {
            if (i) ctx.out += ", ";
            format_value(ctx, v[i]);
        }
        ctx.out += ']';
    } else {
        // An object with no declared fields: its bytes, so nothing is hidden.
        const auto* b = reinterpret_cast<const unsigned char*>(&v);
        ctx.out += "{bytes:";
        for (std::size_t i = 0; i < sizeof(T) && i < 64; ++i)
            fmt::format_to(std::back_inserter(ctx.out), "{:02x}", b[i]);
        if (sizeof(T) > 64) ctx.out += "...";
        ctx.out += '}';
    }
}

namespace tracing {

/// Pointer depth of a type: int == 0, int* == 1, int** == 2.
template <class T>
constexpr int indirection_count() {
    if constexpr (std::is_pointer_v<T>)
        return 1 + indirection_count<std::remove_cv_t<std::remove_pointer_t<T>>>();
    else
        return 0;
}

/// The arg_type string of a parameter of type T: typeid(T).name(), the mangled spelling the
/// reference passes. A tool built without RTTI (-fno-rtti: no typeid) gets encore's readable
/// spelling instead, and the docs say so.
template <class T>
const char* arg_type_name() noexcept {
#if defined(__GXX_RTTI) || defined(__cpp_rtti)
    return typeid(T).name();
#else
    return api::type_name_c_str<T>();
#endif
}

/// One argument of a traced call, as argument iteration reports it.
struct arg_info {
    std::uint32_t number;   // 0-based position
    const void* address;    // the captured copy of the value
    int indirection_count;  // pointer depth of the parameter's type
    const char* type;       // typeid(T).name() of the parameter's type, as the reference passes it
    const char* name;       // parameter name from the declaration
    const char* value;      // the value as a string
    int dereference_count;  // dereferences actually done while formatting `value`
};

/// Calls f(const arg_info&) for each argument of operation I of Domain in `payload`, in order;
/// stops early when f returns something that converts to true (a C-style "non-zero stops").
template <class Domain, std::size_t I, class F>
void for_each_arg(const void* payload, int max_deref, F&& f) {
    using op = typename Domain::template op_at<I>;
    const auto& args = args_of<Domain, I>(payload);
    std::string value;
    value.reserve(128);
    [&]<std::size_t... J>(std::index_sequence<J...>) {
        bool stop = false;
        [[maybe_unused]] auto one = [&](auto j) {
            if (stop) return;
            using T = typename op::template arg<j>;
            value.clear();
            format_context ctx{value, max_deref < 0 ? 0 : max_deref};
            format_value(ctx, args.template get<j>());
            const arg_info info{static_cast<std::uint32_t>(j()),
                                &args.template get<j>(),
                                indirection_count<T>(),
                                arg_type_name<T>(),
                                op::param_c_names[j],
                                value.c_str(),
                                ctx.deref_max_seen};
            if constexpr (std::is_void_v<decltype(f(info))>)
                f(info);
            else
                stop = static_cast<bool>(f(info));
        };
        (one(std::integral_constant<std::size_t, J>{}), ...);
    }
    (std::make_index_sequence<op::arity>{});
}

/// Runtime op id form of for_each_arg. Returns false for an op id the domain does not have.
template <class Domain, class F>
bool for_each_arg(op_id o, const void* payload, int max_deref, F&& f) {
    return api::visit<Domain>(o, [&](auto I) { for_each_arg<Domain, I>(payload, max_deref, f); });
}

}  // namespace tracing
}  // namespace encore
