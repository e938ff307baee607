// src/trace/demangle.hpp — a kernel's name as users and rocprofv3 show it: the symbol demangled,
// without an AMDGPU kernel descriptor's ".kd"; as written when it is not a mangled name (extern
// "C" kernels, Triton's). One function, because the tool's record-time kernel filters must match
// the names the converter writes and filters on.
#pragma once

#include <cxxabi.h>

#include <cstdlib>
#include <string>

namespace encore::trace {

inline std::string demangled(std::string s) {
    if (s.size() > 3 && s.compare(s.size() - 3, 3, ".kd") == 0) s.resize(s.size() - 3);
    int status = 0;
    char* dm = abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status);
    if (status == 0 && dm != nullptr) s = dm;
    std::free(dm);
    return s;
}

}  // namespace encore::trace
