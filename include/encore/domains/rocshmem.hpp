// encore/domains/rocshmem.hpp — the ROCSHMEM_API domain: rocSHMEM's host stream functions, one
// operation per slot of its rocshmemApiFuncTable, numbered and with parameters named as the
// reference SDK does (rocprofiler-sdk/rocshmem/api_id.h, rocshmem/api_args.h).
//
//   static_assert(encore::domains::rocshmem::id_of<"putmem_on_stream">() == ROCPROFILER_ROCSHMEM_API_ID_putmem_on_stream);
//
// The operations are named after the table's slots, not after symbols: rocSHMEM's functions are
// C++ (namespace rocshmem), and its C interface is the table. libencore-rocshmem interposes the
// table's accessor, RocshmemGetFunctionTable (docs/libraries.md); `slots` below says which slot
// each operation is.
#pragma once

#include <encore/api/domain.hpp>
#include <rocprofiler-sdk/rocshmem/details/api_trace.h>

#include <tuple>

namespace encore::domains {

// clang-format off
struct rocshmem : api::domain<"ROCSHMEM_API", kind::rocshmem_api, api::no_table,
    api::fn<"barrier_all_on_stream", void(hipStream_t), "stream">,
    api::fn<"quiet_on_stream", void(hipStream_t), "stream">,
    api::fn<"sync_all_on_stream", void(hipStream_t), "stream">,
    api::fn<"alltoallmem_on_stream", void(rocshmem_team_t, void*, const void*, size_t, hipStream_t),
            "team", "dest", "source", "size", "stream">,
    api::fn<"broadcastmem_on_stream", void(rocshmem_team_t, void*, const void*, size_t, int, hipStream_t),
            "team", "dest", "source", "nelems", "pe_root", "stream">,
    api::fn<"getmem_on_stream", void(void*, const void*, size_t, int, hipStream_t), "dest", "source", "nelems", "pe", "stream">,
    api::fn<"putmem_on_stream", void(void*, const void*, size_t, int, hipStream_t), "dest", "source", "nelems", "pe", "stream">,
    api::fn<"putmem_signal_on_stream", void(void*, const void*, size_t, uint64_t*, uint64_t, int, int, hipStream_t),
            "dest", "source", "nelems", "sig_addr", "signal", "sig_op", "pe", "stream">,
    api::fn<"signal_wait_until_on_stream", void(uint64_t*, int, uint64_t, hipStream_t),
            "sig_addr", "cmp", "cmp_value", "stream">> {};
// clang-format on

/// Operation I's slot in rocSHMEM's table, in id order (the types must be the domain's).
inline constexpr auto rocshmem_slots = std::tuple{
    &rocshmemApiFuncTable::barrier_all_on_stream_fn,      &rocshmemApiFuncTable::quiet_on_stream_fn,
    &rocshmemApiFuncTable::sync_all_on_stream_fn,         &rocshmemApiFuncTable::alltoallmem_on_stream_fn,
    &rocshmemApiFuncTable::broadcastmem_on_stream_fn,     &rocshmemApiFuncTable::getmem_on_stream_fn,
    &rocshmemApiFuncTable::putmem_on_stream_fn,           &rocshmemApiFuncTable::putmem_signal_on_stream_fn,
    &rocshmemApiFuncTable::signal_wait_until_on_stream_fn};
static_assert(std::tuple_size_v<decltype(rocshmem_slots)> == rocshmem::size, "one table slot per operation");
static_assert(
    []<std::size_t... I>(std::index_sequence<I...>) {
        return (std::is_same_v<std::remove_cvref_t<decltype(rocshmemApiFuncTable{}.*std::get<I>(rocshmem_slots))>,
                               typename rocshmem::op_at<I>::function_type*> &&
                ...);
    }(std::make_index_sequence<rocshmem::size>{}),
    "each operation's slot has the operation's function type");

}  // namespace encore::domains
