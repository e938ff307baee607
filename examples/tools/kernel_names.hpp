// examples/tools/kernel_names.hpp — a kernel's name as a user knows it, for the example tools'
// reports (api_trace, replay_bench): CODE_OBJECT kernel-symbol records carry the symbol, which
// is mangled for C++ kernels on both vendors and ends in ".kd" (the kernel descriptor) on AMD.
#pragma once

#include <cxxabi.h>

#include <cstdlib>
#include <string>

namespace example_tools {

/// The symbol demangled, without an AMDGPU kernel descriptor's ".kd"; as written when it is not a
/// mangled name (extern "C" kernels, Triton's).
inline std::string readable_kernel_name(const char* symbol) {
    std::string s = symbol != nullptr ? symbol : "";
    if (s.size() > 3 && s.compare(s.size() - 3, 3, ".kd") == 0) s.resize(s.size() - 3);
    int status = 0;
    char* dm = abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status);
    if (status == 0 && dm != nullptr) s = dm;
    std::free(dm);
    return s;
}

}  // namespace example_tools
