// src/libs/hipfile.cpp — libencore-hipfile's own parts (hipfile.hpp): the library's version.
#include "hipfile.hpp"

#include <cstring>

namespace encore::libs {

std::uint64_t hipfile_library::version() noexcept {
    unsigned major = 0, minor = 0, patch = 0;
    if (void* p = real().find("hipFileGetVersion")) {
        hipFileError_t (*get)(unsigned*, unsigned*, unsigned*) = nullptr;
        std::memcpy(&get, &p, sizeof(get));
        if (get(&major, &minor, &patch).err != hipFileSuccess) return 0;
    }
    return std::uint64_t{major} * 10000 + std::uint64_t{minor} * 100 + patch;
}

}  // namespace encore::libs
