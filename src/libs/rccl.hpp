// src/libs/rccl.hpp — libencore-rccl: the RCCL / NCCL interposer (prelude of its generated
// export files, see tools/gen_exports.py).
//
// Every function of the RCCL_API declaration (encore/domains/rccl.hpp) is exported with its C
// signature and forwards through its wrapper to the real library: librccl.so.1 on AMD,
// libnccl.so.2 on NVIDIA (the same functions), found as backend/forwarding.hpp says
// (ENCORE_RCCL_LIBRARY overrides). The first call runs encore's initialization if nothing did
// yet and delivers RUNTIME_INITIALIZATION / RCCL with the library's ncclGetVersion.
#pragma once

#include "backend/exports.hpp"
#include "library.hpp"

#include <encore/domains/rccl.hpp>

namespace encore::libs {

struct rccl_library : library<rccl_library> {
    static constexpr const char* library = "libencore-rccl";
    static constexpr const char* runtime = "the RCCL / NCCL library";
    static constexpr const char* env = "ENCORE_RCCL_LIBRARY";
    // RCCL first: a process with both traces what runs on the HIP streams.
    static constexpr const char* sonames[] = {"librccl.so.1", "libnccl.so.2"};
    static constexpr auto initialization = ROCPROFILER_RUNTIME_INITIALIZATION_RCCL;
    /// NVIDIA's NCCL has no MSCCL functions: they fail with the code NCCL gives a failed system
    /// call (the library could not be reached).
    static constexpr auto missing_status = ncclSystemError;
    /// NCCL_VERSION_CODE of the library itself (22005 for 2.20.5), asked untraced.
    static std::uint64_t version() noexcept;
};

template <>
struct policy_of<domains::rccl> {
    using type = backend::forwarding_policy<rccl_library>;
};

}  // namespace encore::libs
