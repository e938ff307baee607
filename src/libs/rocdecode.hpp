// src/libs/rocdecode.hpp — libencore-rocdecode: the rocDecode interposer (prelude of its generated
// export files, see tools/gen_exports.py). Every function of the ROCDECODE_API declaration
// (encore/domains/rocdecode.hpp) is exported with its C signature and forwards through its
// wrapper to the real librocdecode, found as backend/forwarding.hpp says
// (ENCORE_ROCDECODE_LIBRARY overrides).
#pragma once

#include "backend/exports.hpp"
#include "library.hpp"

#include <encore/domains/rocdecode.hpp>

namespace encore::libs {

struct rocdecode_library : library<rocdecode_library> {
    static constexpr const char* library = "libencore-rocdecode";
    static constexpr const char* runtime = "the rocDecode library";
    static constexpr const char* env = "ENCORE_ROCDECODE_LIBRARY";
    static constexpr const char* sonames[] = {"librocdecode.so.0", "librocdecode.so"};
    static constexpr auto initialization = ROCPROFILER_RUNTIME_INITIALIZATION_ROCDECODE;
    static constexpr auto missing_status = ROCDEC_NOT_IMPLEMENTED;
    /// rocDecode has no function that says its version: the record's version is 0 (unknown).
    static std::uint64_t version() noexcept { return 0; }
};

template <>
struct policy_of<domains::rocdecode> {
    using type = backend::forwarding_policy<rocdecode_library>;
};

}  // namespace encore::libs
