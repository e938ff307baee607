// src/libs/rccl.cpp — libencore-rccl's description of the real library (rccl.hpp).
#include "rccl.hpp"

#include "core/registry.hpp"

#include <cstring>

namespace encore::libs {
namespace {
// The kinds this library produces, declared when it is loaded (before any tool configures).
[[gnu::constructor]] void declare_kinds() { core::add_producer(tracing::produced_by::rccl); }
}  // namespace

backend::real_library& rccl_library::real() noexcept {
    // RCCL first: a process with both (an AMD build of a framework that bundles NCCL's name)
    // traces what the HIP streams run on.
    static backend::real_library lib{library, "ENCORE_RCCL_LIBRARY", {"librccl.so.1", "libnccl.so.2"}};
    return lib;
}

std::uint64_t rccl_library::version() noexcept {
    // NCCL_VERSION_CODE of the library itself (e.g. 22005 for 2.20.5), asked untraced.
    int v = 0;
    if (void* p = real().find("ncclGetVersion")) {
        ncclResult_t (*get)(int*) = nullptr;
        std::memcpy(&get, &p, sizeof(get));
        if (get(&v) != ncclSuccess) v = 0;
    }
    return static_cast<std::uint64_t>(v);
}

}  // namespace encore::libs
