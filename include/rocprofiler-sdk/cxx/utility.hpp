// rocprofiler-sdk/cxx/utility.hpp — small formatting helpers tools use in their output, under
// the reference SDK's names. C++17.
//
//   std::cout << rocprofiler::sdk::utility::as_hex(record.correlation_id.internal, 16);  // 0x00...2a
#pragma once

#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>
#include <type_traits>

namespace rocprofiler {
namespace sdk {
namespace utility {

/// "0x" and the value in hexadecimal, zero-padded to `width` digits. Pointers print their address.
template <typename Tp>
std::string as_hex(Tp val, size_t width = 0) {
    static_assert(std::is_pointer<Tp>::value || std::is_integral<Tp>::value || std::is_enum<Tp>::value,
                  "as_hex prints integers, enums and pointers");
    uintptr_t bits = 0;
    if constexpr (std::is_pointer<Tp>::value)
        bits = reinterpret_cast<uintptr_t>(val);
    else
        bits = static_cast<uintptr_t>(val);
    std::ostringstream out;
    out << "0x" << std::hex << std::setfill('0') << std::setw(static_cast<int>(width)) << bits;
    return out.str();
}

}  // namespace utility
}  // namespace sdk
}  // namespace rocprofiler
