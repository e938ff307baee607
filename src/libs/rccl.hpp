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
#include "backend/forwarding.hpp"

#include <encore/domains/rccl.hpp>

#include <type_traits>

namespace encore::libs {

struct rccl_library {
    static constexpr const char* library = "libencore-rccl";
    static constexpr const char* runtime = "the RCCL / NCCL library";
    static constexpr rocprofiler_runtime_initialization_operation_t initialization = ROCPROFILER_RUNTIME_INITIALIZATION_RCCL;
    static backend::real_library& real() noexcept;
    static std::uint64_t version() noexcept;
    /// A function the real library lacks (NVIDIA's NCCL has no MSCCL functions) fails with the
    /// code NCCL gives a failed system call: the library could not be reached.
    template <class R>
    static R missing_result() noexcept {
        if constexpr (std::is_same_v<R, ncclResult_t>)
            return ncclSystemError;
        else if constexpr (std::is_same_v<R, const char*>)
            return "<encore: this function is missing from the RCCL / NCCL library>";
    }
};
using rccl_policy = backend::forwarding_policy<rccl_library>;

}  // namespace encore::libs

template <std::size_t I>
struct encore::tracing::initial_next<encore::domains::rccl, I> {
    static constexpr auto value = &encore::backend::lazy<encore::domains::rccl, I, encore::libs::rccl_policy>::first_call;
};
