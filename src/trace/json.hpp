// src/trace/json.hpp — a string as a JSON string literal, for the record path's writers (the
// converter's trace.json, rocpd's JSON columns). Valid UTF-8 (an NVTX message in any language)
// stays as it is; control characters and bytes that are not UTF-8 are escaped, so the output is
// always valid JSON whatever the program passed.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace encore::trace {

/// The length of the valid UTF-8 sequence of 2 to 4 bytes at s[i], or 0.
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
    return n;
}

/// Appends s escaped (without the quotes).
inline void json_escape_into(std::string& out, std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (const std::size_t n = c >= 0x80 ? utf8_sequence(s, i) : 0; n != 0) {
            out.append(s.substr(i, n));
            i += n - 1;
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20 || c >= 0x80) {  // a byte that is not UTF-8: as its Latin-1 character
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
}

/// s as a JSON string literal, quotes included.
inline std::string json_string(std::string_view s) {
    std::string out = "\"";
    json_escape_into(out, s);
    out += '"';
    return out;
}

}  // namespace encore::trace
