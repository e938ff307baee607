// src/libs/rccl.cpp — libencore-rccl's own parts (rccl.hpp): the library's version.
#include "rccl.hpp"

#include <cstring>

namespace encore::libs {

std::uint64_t rccl_library::version() noexcept {
    int v = 0;
    if (void* p = real().find("ncclGetVersion")) {
        ncclResult_t (*get)(int*) = nullptr;
        std::memcpy(&get, &p, sizeof(get));
        if (get(&v) != ncclSuccess) v = 0;
    }
    return static_cast<std::uint64_t>(v);
}

}  // namespace encore::libs
