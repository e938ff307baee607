// src/libs/rccl.cpp — libencore-rccl's own parts (rccl.hpp): its producer bit, the library's version.
#include "rccl.hpp"

#include "core/registry.hpp"

#include <cstring>

namespace encore::libs {
namespace {
// The kinds this library produces, declared when it is loaded (before any tool configures).
[[gnu::constructor]] void declare_kinds() { core::add_producer(tracing::produced_by::rccl); }
}  // namespace

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
