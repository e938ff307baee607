// src/libs/rocjpeg.hpp — libencore-rocjpeg, the whole producer of ROCJPEG_API: the rocJPEG
// interposer (prelude of its generated export files, see tools/gen_exports.py). Every function of
// the ROCJPEG_API declaration (encore/domains/rocjpeg.hpp) is exported with its C signature and
// forwards through its wrapper to the real librocjpeg, found as backend/forwarding.hpp says
// (ENCORE_ROCJPEG_LIBRARY overrides). Its wrappers declare ROCJPEG_API produced when the library
// loads (library.hpp); the library is one line of encore/domains/libs.hpp.
#pragma once

#include "backend/exports.hpp"
#include "library.hpp"

#include <encore/domains/rocjpeg.hpp>

namespace encore::libs {

struct rocjpeg_library : library<rocjpeg_library> {
    static constexpr const char* library = "libencore-rocjpeg";
    static constexpr const char* runtime = "the rocJPEG library";
    static constexpr const char* env = "ENCORE_ROCJPEG_LIBRARY";
    static constexpr const char* sonames[] = {"librocjpeg.so.0", "librocjpeg.so"};
    static constexpr auto initialization = ROCPROFILER_RUNTIME_INITIALIZATION_ROCJPEG;
    static constexpr auto missing_status = ROCJPEG_STATUS_NOT_IMPLEMENTED;
    /// rocJPEG has no function that says its version: the record's version is 0 (unknown).
    static std::uint64_t version() noexcept { return 0; }
};

template <>
struct policy_of<domains::rocjpeg> {
    using type = backend::forwarding_policy<rocjpeg_library>;
};

}  // namespace encore::libs
