// encore/tracing/kinds.hpp — every callback tracing kind, declared once: its id and name, the
// payload its records point at, whether its arguments iterate, the libraries that produce it,
// its external correlation id request kind, and where its operations are declared.
//
//   using P = encore::tracing::payload_of<encore::kind::memory_copy>::type;
//   static_assert(encore::tracing::kind_decl_of<encore::kind::memory_copy>::name.view() == "MEMORY_COPY");
//   static_assert(encore::tracing::request_kind_of(encore::kind::kernel_dispatch) ==
//                 ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH);
//
// The kind-name queries, payload_of, the external-id request mapping and "is this kind produced
// in this process" (src/core/kinds.cpp) are folds over `kind_list`. Adding a kind is one line
// here (its operations, if any, in a domain under encore/domains/) plus its producer: see
// docs/architecture.md.
#pragma once

#include <encore/api/fixed_string.hpp>
#include <encore/api/kind.hpp>
#include <encore/api/op.hpp>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/experimental/range_replay.h>
#include <rocprofiler-sdk/fwd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>

namespace encore::tracing {

/// Payload of API kinds without a C payload struct of their own (CUDA_DRIVER_API):
/// `{size, args, retval}` like the HSA/HIP structs.
struct generic_api_data {
    std::uint64_t size;
    alignas(8) std::byte args[256];
    alignas(8) std::byte retval[32];
};

/// The payload of a kind whose operations each have their own struct (CODE_OBJECT: load vs
/// kernel-symbol records); the reference documents one struct per operation.
struct payload_by_operation {};
/// The payload of a kind encore does not produce yet: no struct is defined.
struct payload_undefined {};

/// The libraries that produce a kind's records (a set: KERNEL_DISPATCH comes from libencore-hsa
/// and libencore-cuda). A kind is produced in a process once one of them is present.
namespace produced_by {
inline constexpr std::uint32_t nothing = 0;
inline constexpr std::uint32_t core = 1u << 0;       // libencore: the HSA API wrappers it installs over any table
inline constexpr std::uint32_t hsa = 1u << 1;        // libencore-hsa, once the HSA runtime loaded it (OnLoad)
inline constexpr std::uint32_t hip = 1u << 2;        // libencore-hip, once loaded
inline constexpr std::uint32_t marker = 1u << 3;     // libencore-roctx, once loaded
inline constexpr std::uint32_t cuda = 1u << 4;       // libencore-cuda, once loaded
inline constexpr std::uint32_t ompt = 1u << 5;       // libencore-ompt, once loaded (the OpenMP runtime starts it)
inline constexpr std::uint32_t rccl = 1u << 6;       // libencore-rccl, once loaded
inline constexpr std::uint32_t rocdecode = 1u << 7;  // libencore-rocdecode, once loaded
inline constexpr std::uint32_t rocjpeg = 1u << 8;    // libencore-rocjpeg, once loaded
inline constexpr std::uint32_t rocshmem = 1u << 9;   // libencore-rocshmem, once loaded
inline constexpr std::uint32_t hipfile = 1u << 10;   // libencore-hipfile, once loaded
}  // namespace produced_by

/// One producer library: its bit above, whether it reports RUNTIME_INITIALIZATION (the runtime it
/// interposes was initialized, or loaded; libencore (core) wraps tables others install and reports
/// nothing of its own), and what the finalization warning says when a configured kind only it
/// produces produced nothing: what is missing and how a user gets it into the process.
struct producer_decl {
    std::uint32_t bit;
    bool reports_runtime_initialization;
    const char* missing;
};

/// Every producer, in bit order (checked below). A new producer library is one line here and its
/// bit: produced_by::count, RUNTIME_INITIALIZATION's producers and the finalization warning
/// follow from it, and a line out of order or without its sentence fails to compile.
inline constexpr producer_decl producer_table[] = {
    {produced_by::core, false, "libencore is not loaded"},  // never said (libencore is where it is said)
    {produced_by::hsa, true,
     "libencore-hsa is not the HSA runtime's tools library in this process (run under encore-trace, "
     "or set HSA_TOOLS_LIB to libencore-hsa.so)"},
    {produced_by::hip, true,
     "libencore-hip is not loaded in this process (run under encore-trace --hip-trace, or LD_PRELOAD "
     "libencore-hip.so)"},
    {produced_by::marker, true,
     "libencore-roctx is not loaded in this process (link the program with it, or LD_PRELOAD "
     "libencore-roctx.so)"},
    {produced_by::cuda, true, "libencore-cuda (encore's libcuda.so.1) is not loaded in this process (see docs/cuda.md)"},
    {produced_by::ompt, false,
     "libencore-ompt is not the OpenMP runtime's tool in this process (run under encore-trace --ompt-trace, "
     "or set OMP_TOOL_LIBRARIES to libencore-ompt.so; the runtime must be LLVM's libomp: docs/ompt.md)"},
    {produced_by::rccl, true,
     "libencore-rccl is not loaded in this process (run under encore-trace --rccl-trace, or LD_PRELOAD "
     "libencore-rccl.so)"},
    {produced_by::rocdecode, true,
     "libencore-rocdecode is not loaded in this process (LD_PRELOAD libencore-rocdecode.so)"},
    {produced_by::rocjpeg, true, "libencore-rocjpeg is not loaded in this process (LD_PRELOAD libencore-rocjpeg.so)"},
    {produced_by::rocshmem, true, "libencore-rocshmem is not loaded in this process (LD_PRELOAD libencore-rocshmem.so)"},
    {produced_by::hipfile, true, "libencore-hipfile is not loaded in this process (LD_PRELOAD libencore-hipfile.so)"},
};

namespace produced_by {
inline constexpr std::size_t count = std::size(producer_table);
/// Every bit a producer may have: a kind that names a bit outside it fails to compile.
inline constexpr std::uint32_t all = count >= 32 ? ~0u : (1u << count) - 1;
/// The producers of RUNTIME_INITIALIZATION records.
inline constexpr std::uint32_t runtime_initializers = [] {
    std::uint32_t bits = 0;
    for (const producer_decl& p : producer_table)
        if (p.reports_runtime_initialization) bits |= p.bit;
    return bits;
}();
}  // namespace produced_by

static_assert(
    [] {
        for (std::size_t i = 0; i < std::size(producer_table); ++i)
            if (producer_table[i].bit != 1u << i || producer_table[i].missing == nullptr ||
                producer_table[i].missing[0] == '\0')
                return false;
        return true;
    }(),
    "producer_table: one line per produced_by:: bit, in bit order, each with its sentence");

/// Where a kind's operation names (and argument iteration) come from.
enum class operations : std::uint8_t {
    domain,   // a domain libencore compiles (encore/domains/): src/core/kinds.cpp binds it
    at_load,  // a domain of a backend built apart (CUDA: needs cuda.h), registered when it loads
    none,     // no operations in encore yet: the kind is a name
};

template <kind K, api::fixed_string Name, class Payload, bool IteratesArgs, std::uint32_t Producers, operations Ops,
          rocprofiler_external_correlation_id_request_kind_t Request = ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE>
struct kind_decl {
    static constexpr kind id = K;
    static constexpr auto name = Name;
    using payload = Payload;
    static constexpr bool iterates_args = IteratesArgs;
    static constexpr std::uint32_t producers = Producers;
    static constexpr operations ops = Ops;
    static constexpr rocprofiler_external_correlation_id_request_kind_t request = Request;
};

// clang-format off
/// Every kind, in id order (checked below). Columns: id, name, payload, arguments iterate,
/// producers, operations, external correlation id request kind.
using kind_list = api::type_list<
    kind_decl<kind::hsa_core_api, "HSA_CORE_API", rocprofiler_callback_tracing_hsa_api_data_t, true,
              produced_by::core, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_CORE_API>,
    kind_decl<kind::hsa_amd_ext_api, "HSA_AMD_EXT_API", rocprofiler_callback_tracing_hsa_api_data_t, true,
              produced_by::core, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_AMD_EXT_API>,
    kind_decl<kind::hsa_image_ext_api, "HSA_IMAGE_EXT_API", rocprofiler_callback_tracing_hsa_api_data_t, true,
              produced_by::core, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_IMAGE_EXT_API>,
    kind_decl<kind::hsa_finalize_ext_api, "HSA_FINALIZE_EXT_API", rocprofiler_callback_tracing_hsa_api_data_t, true,
              produced_by::core, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_FINALIZE_EXT_API>,
    kind_decl<kind::hip_runtime_api, "HIP_RUNTIME_API", rocprofiler_callback_tracing_hip_api_data_t, true,
              produced_by::hip, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API>,
    kind_decl<kind::hip_compiler_api, "HIP_COMPILER_API", rocprofiler_callback_tracing_hip_api_data_t, true,
              produced_by::hip, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_COMPILER_API>,
    kind_decl<kind::marker_core_api, "MARKER_CORE_API", rocprofiler_callback_tracing_marker_api_data_t, true,
              produced_by::marker, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CORE_API>,
    kind_decl<kind::marker_control_api, "MARKER_CONTROL_API", rocprofiler_callback_tracing_marker_api_data_t, true,
              produced_by::marker, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CONTROL_API>,
    kind_decl<kind::marker_name_api, "MARKER_NAME_API", rocprofiler_callback_tracing_marker_api_data_t, true,
              produced_by::marker, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_NAME_API>,
    kind_decl<kind::code_object, "CODE_OBJECT", payload_by_operation, false,
              produced_by::hsa | produced_by::cuda, operations::domain>,
    kind_decl<kind::scratch_memory, "SCRATCH_MEMORY", rocprofiler_callback_tracing_scratch_memory_data_t, false,
              produced_by::hsa, operations::domain>,
    kind_decl<kind::kernel_dispatch, "KERNEL_DISPATCH", rocprofiler_callback_tracing_kernel_dispatch_data_t, false,
              produced_by::hsa | produced_by::cuda, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH>,
    kind_decl<kind::memory_copy, "MEMORY_COPY", rocprofiler_callback_tracing_memory_copy_data_t, false,
              produced_by::hsa | produced_by::cuda, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY>,
    kind_decl<kind::rccl_api, "RCCL_API", rocprofiler_callback_tracing_rccl_api_data_t, true,
              produced_by::rccl, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_RCCL_API>,
    kind_decl<kind::ompt, "OMPT", rocprofiler_callback_tracing_ompt_data_t, true,
              produced_by::ompt, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_OMPT>,
    kind_decl<kind::memory_allocation, "MEMORY_ALLOCATION", rocprofiler_callback_tracing_memory_allocation_data_t, false,
              produced_by::hsa | produced_by::cuda, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_ALLOCATION>,
    kind_decl<kind::runtime_initialization, "RUNTIME_INITIALIZATION", rocprofiler_callback_tracing_runtime_initialization_data_t, false,
              produced_by::runtime_initializers, operations::domain>,
    kind_decl<kind::rocdecode_api, "ROCDECODE_API", rocprofiler_callback_tracing_rocdecode_api_data_t, true,
              produced_by::rocdecode, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_ROCDECODE_API>,
    kind_decl<kind::rocjpeg_api, "ROCJPEG_API", rocprofiler_callback_tracing_rocjpeg_api_data_t, true,
              produced_by::rocjpeg, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_ROCJPEG_API>,
    kind_decl<kind::hip_stream, "HIP_STREAM", rocprofiler_callback_tracing_hip_stream_data_t, false,
              produced_by::hip, operations::domain>,
    kind_decl<kind::marker_core_range_api, "MARKER_CORE_RANGE_API", rocprofiler_callback_tracing_marker_api_data_t, true,
              produced_by::marker, operations::domain, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CORE_RANGE_API>,
    kind_decl<kind::hip_graph, "HIP_GRAPH", rocprofiler_callback_tracing_hip_graph_data_t, false,
              produced_by::hip, operations::domain>,
    kind_decl<kind::rocshmem_api, "ROCSHMEM_API", rocprofiler_callback_tracing_rocshmem_api_data_t, true,
              produced_by::rocshmem, operations::domain>,
    kind_decl<kind::hipfile_api, "HIPFILE_API", rocprofiler_callback_tracing_hipfile_api_data_t, true,
              produced_by::hipfile, operations::domain>,
    kind_decl<kind::kernel_replay, "KERNEL_REPLAY", rocprofiler_callback_tracing_kernel_replay_data_t, false,
              produced_by::hsa | produced_by::cuda, operations::domain>,
    kind_decl<kind::hip_event, "HIP_EVENT", rocprofiler_callback_tracing_hip_event_data_t, false,
              produced_by::hip, operations::domain>,
    kind_decl<kind::cuda_driver_api, "CUDA_DRIVER_API", generic_api_data, true,
              produced_by::cuda, operations::at_load>,
    kind_decl<kind::range_replay, "RANGE_REPLAY", rocprofiler_callback_tracing_range_replay_data_t, false,
              produced_by::hsa | produced_by::cuda, operations::domain>>;
// clang-format on

namespace detail {
template <std::size_t I, class List>
struct nth_decl;
template <std::size_t I, class... D>
struct nth_decl<I, api::type_list<D...>> {
    using type = api::detail::nth<I, D...>;
};
}  // namespace detail

/// The declaration of kind K (the list is in id order: the (K-1)th entry).
template <kind K>
requires(K > kind::none &&
         K < kind::last) using kind_decl_of = typename detail::nth_decl<static_cast<std::size_t>(K) - 1, kind_list>::type;

namespace detail {
/// One value per kind, indexed by kind id (index 0: kind::none), from a projection of its decl.
template <class T, class Project>
consteval std::array<T, kind_count> per_kind(Project project) {
    return []<class... D>(api::type_list<D...>, Project p) {
        std::array<T, kind_count> out{};
        ((out[static_cast<std::size_t>(D::id)] = p.template operator()<D>()), ...);
        return out;
    }(kind_list{}, project);
}
}  // namespace detail

static_assert(kind_list::size == kind_count - 1, "kind_list: one declaration per kind, none missing");
static_assert(
    []<class... D>(api::type_list<D...>) { return (((D::producers & ~produced_by::all) == 0) && ...); }(kind_list{}),
    "kind_list: a kind names a producer bit that producer_table does not declare");
static_assert(
    []<class... D>(api::type_list<D...>) {
        std::size_t i = 0;
        return ((static_cast<std::size_t>(D::id) == ++i) && ...);
    }(kind_list{}),
    "kind_list: declarations in id order");

/// The name of kind k ("HSA_CORE_API"), or null for none/last/out of range.
[[nodiscard]] constexpr const char* kind_name(kind k) noexcept {
    constexpr auto names = detail::per_kind<const char*>([]<class D>() { return D::name.c_str(); });
    const auto i = static_cast<std::size_t>(k);
    return i > 0 && i < kind_count ? names[i] : nullptr;
}

/// The external correlation id request kind that covers kind k (NONE: requests never cover it).
[[nodiscard]] constexpr rocprofiler_external_correlation_id_request_kind_t request_kind_of(kind k) noexcept {
    constexpr auto requests = detail::per_kind<rocprofiler_external_correlation_id_request_kind_t>([]<class D>() {
        return D::request;
    });
    const auto i = static_cast<std::size_t>(k);
    return i > 0 && i < kind_count ? requests[i] : ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE;
}

/// The libraries that produce kind k (produced_by:: bits).
[[nodiscard]] constexpr std::uint32_t producers_of(kind k) noexcept {
    constexpr auto producers = detail::per_kind<std::uint32_t>([]<class D>() { return D::producers; });
    const auto i = static_cast<std::size_t>(k);
    return i > 0 && i < kind_count ? producers[i] : produced_by::nothing;
}

/// Where kind k's operations come from.
[[nodiscard]] constexpr operations operations_of(kind k) noexcept {
    constexpr auto ops = detail::per_kind<operations>([]<class D>() { return D::ops; });
    const auto i = static_cast<std::size_t>(k);
    return i > 0 && i < kind_count ? ops[i] : operations::none;
}

/// The payload struct kind K's records point at.
template <kind K>
struct payload_of {
    using type = typename kind_decl_of<K>::payload;
};

}  // namespace encore::tracing

// ---- buffer tracing kinds (rocprofiler-sdk/buffer_tracing.h) -----------------------------------
//
//   static_assert(encore::tracing::buffer_source_of(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH) ==
//                 encore::kind::kernel_dispatch);
//
// A buffer tracing kind is made from one callback kind's records (src/core/buffer_tracing.cpp
// puts an adapter where a callback goes) or from nothing encore has (buffer-only kinds). The
// kind-name query and the source mapping are folds over `buffer_kind_list`.
namespace encore::tracing {

/// How a buffer kind's record is made from its source kind's callback records.
enum class buffered_as : std::uint8_t {
    nothing,                 // no source in encore: configuring it succeeds, no record is ever written
    api,                     // a traced call: start at ENTER (kept in user_data), the record at EXIT
    api_ext,                 // api, plus the call's arguments and return value
    kernel_dispatch,         // at COMPLETE, with the dispatch's GPU start/end
    memory_copy,             // at EXIT, with the copy's start/end
    memory_allocation,       // at EXIT
    scratch_memory,          // start at ENTER (the runtime's *_START event), the record at EXIT (*_END)
    runtime_initialization,  // at the record (phase NONE)
};

template <rocprofiler_buffer_tracing_kind_t B, api::fixed_string Name, kind Source, buffered_as How>
struct buffer_kind_decl {
    static constexpr rocprofiler_buffer_tracing_kind_t id = B;
    static constexpr auto name = Name;
    static constexpr kind source = Source;
    static constexpr buffered_as how = How;
};

// clang-format off
/// Every buffer tracing kind, in id order (checked below). Columns: id, name, the callback kind
/// its records come from (none: buffer-only), how they are made.
using buffer_kind_list = api::type_list<
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_HSA_CORE_API, "HSA_CORE_API", kind::hsa_core_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API, "HSA_AMD_EXT_API", kind::hsa_amd_ext_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API, "HSA_IMAGE_EXT_API", kind::hsa_image_ext_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API, "HSA_FINALIZE_EXT_API", kind::hsa_finalize_ext_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, "HIP_RUNTIME_API", kind::hip_runtime_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API, "HIP_COMPILER_API", kind::hip_compiler_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API, "MARKER_CORE_API", kind::marker_core_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_MARKER_CONTROL_API, "MARKER_CONTROL_API", kind::marker_control_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API, "MARKER_NAME_API", kind::marker_name_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, "MEMORY_COPY", kind::memory_copy, buffered_as::memory_copy>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, "KERNEL_DISPATCH", kind::kernel_dispatch, buffered_as::kernel_dispatch>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY, "SCRATCH_MEMORY", kind::scratch_memory, buffered_as::scratch_memory>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT, "CORRELATION_ID_RETIREMENT", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_RCCL_API, "RCCL_API", kind::rccl_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_OMPT, "OMPT", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION, "MEMORY_ALLOCATION", kind::memory_allocation, buffered_as::memory_allocation>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_RUNTIME_INITIALIZATION, "RUNTIME_INITIALIZATION", kind::runtime_initialization, buffered_as::runtime_initialization>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_ROCDECODE_API, "ROCDECODE_API", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_ROCJPEG_API, "ROCJPEG_API", kind::rocjpeg_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_HIP_STREAM, "HIP_STREAM", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API_EXT, "HIP_RUNTIME_API_EXT", kind::hip_runtime_api, buffered_as::api_ext>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API_EXT, "HIP_COMPILER_API_EXT", kind::hip_compiler_api, buffered_as::api_ext>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_ROCDECODE_API_EXT, "ROCDECODE_API_EXT", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_MIGRATE, "KFD_EVENT_PAGE_MIGRATE", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_FAULT, "KFD_EVENT_PAGE_FAULT", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_KFD_EVENT_QUEUE, "KFD_EVENT_QUEUE", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_KFD_EVENT_UNMAP_FROM_GPU, "KFD_EVENT_UNMAP_FROM_GPU", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_KFD_EVENT_DROPPED_EVENTS, "KFD_EVENT_DROPPED_EVENTS", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_KFD_PAGE_MIGRATE, "KFD_PAGE_MIGRATE", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_KFD_PAGE_FAULT, "KFD_PAGE_FAULT", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_KFD_QUEUE, "KFD_QUEUE", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_MARKER_CORE_RANGE_API, "MARKER_CORE_RANGE_API", kind::marker_core_range_api, buffered_as::api>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_PAGE_MIGRATION, "PAGE_MIGRATION", kind::none, buffered_as::nothing>,
    buffer_kind_decl<ROCPROFILER_BUFFER_TRACING_CUDA_DRIVER_API, "CUDA_DRIVER_API", kind::cuda_driver_api, buffered_as::api>>;
// clang-format on

inline constexpr std::size_t buffer_kind_count = ROCPROFILER_BUFFER_TRACING_LAST;

static_assert(buffer_kind_list::size == buffer_kind_count - 1, "buffer_kind_list: one declaration per buffer kind");
static_assert(
    []<class... D>(api::type_list<D...>) {
        std::size_t i = 0;
        return ((static_cast<std::size_t>(D::id) == ++i) && ...);
    }(buffer_kind_list{}),
    "buffer_kind_list: declarations in id order");

namespace detail {
template <class T, class Project>
consteval std::array<T, buffer_kind_count> per_buffer_kind(Project project) {
    return []<class... D>(api::type_list<D...>, Project p) {
        std::array<T, buffer_kind_count> out{};
        ((out[static_cast<std::size_t>(D::id)] = p.template operator()<D>()), ...);
        return out;
    }(buffer_kind_list{}, project);
}
}  // namespace detail

/// The name of buffer kind b ("KERNEL_DISPATCH"), or null for NONE/LAST/out of range.
[[nodiscard]] constexpr const char* buffer_kind_name(std::int64_t b) noexcept {
    constexpr auto names = detail::per_buffer_kind<const char*>([]<class D>() { return D::name.c_str(); });
    return b > 0 && b < static_cast<std::int64_t>(buffer_kind_count) ? names[static_cast<std::size_t>(b)] : nullptr;
}

/// The callback kind buffer kind b's records come from (kind::none: buffer-only, or no kind).
[[nodiscard]] constexpr kind buffer_source_of(std::int64_t b) noexcept {
    constexpr auto sources = detail::per_buffer_kind<kind>([]<class D>() { return D::source; });
    return b > 0 && b < static_cast<std::int64_t>(buffer_kind_count) ? sources[static_cast<std::size_t>(b)] : kind::none;
}

/// How buffer kind b's records are made.
[[nodiscard]] constexpr buffered_as buffered_as_of(std::int64_t b) noexcept {
    constexpr auto how = detail::per_buffer_kind<buffered_as>([]<class D>() { return D::how; });
    return b > 0 && b < static_cast<std::int64_t>(buffer_kind_count) ? how[static_cast<std::size_t>(b)]
                                                                     : buffered_as::nothing;
}

}  // namespace encore::tracing
