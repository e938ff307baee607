// src/libs/hipfile.hpp — libencore-hipfile: the hipFile interposer (prelude of its generated
// export files, see tools/gen_exports.py). Every function of the HIPFILE_API declaration
// (encore/domains/hipfile.hpp) is exported with its C signature and forwards through its wrapper
// to the real libhipfile, found as backend/forwarding.hpp says (ENCORE_HIPFILE_LIBRARY overrides).
#pragma once

#include "backend/exports.hpp"
#include "library.hpp"

#include <encore/domains/hipfile.hpp>

#include <cerrno>
#include <type_traits>

namespace encore::libs {

struct hipfile_library : library<hipfile_library> {
    static constexpr const char* library = "libencore-hipfile";
    static constexpr const char* runtime = "the hipFile library";
    static constexpr const char* env = "ENCORE_HIPFILE_LIBRARY";
    static constexpr const char* sonames[] = {"libhipfile.so.0", "libhipfile.so"};
    static constexpr auto initialization = ROCPROFILER_RUNTIME_INITIALIZATION_HIPFILE;
    /// hipFileGetVersion's major * 10000 + minor * 100 + patch, asked untraced (0 if it fails).
    static std::uint64_t version() noexcept;
    /// A function the real library lacks fails the way hipFile says its library is not there:
    /// hipFileDriverNotInitialized, or -1 with errno ENOSYS where the result is a count.
    template <class R>
    static R missing_result() noexcept {
        if constexpr (std::is_same_v<R, hipFileError_t>) {
            return hipFileError_t{hipFileDriverNotInitialized, hipSuccess};
        } else if constexpr (std::is_same_v<R, ssize_t> || std::is_same_v<R, int64_t>) {
            errno = ENOSYS;
            return -1;
        } else {
            return libs::library<hipfile_library>::missing_result<R>();  // (`library` here is the name)
        }
    }
};

template <>
struct policy_of<domains::hipfile> {
    using type = backend::forwarding_policy<hipfile_library>;
};

}  // namespace encore::libs
