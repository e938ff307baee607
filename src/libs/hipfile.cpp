// src/libs/hipfile.cpp — libencore-hipfile's own parts (hipfile.hpp): its producer bit, the
// library's version.
#include "hipfile.hpp"

#include "core/registry.hpp"

#include <cstring>

namespace encore::libs {
namespace {
[[gnu::constructor]] void declare_kinds() { core::add_producer(tracing::produced_by::hipfile); }
}  // namespace

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
