// src/cuda/roles.hpp — which CUDA driver ops do something encore reports or replay must know of
// (launch, copy, allocate, free, ...), and how their arguments say it: one compile-time table,
// looked up by op id (roles[I]). What each role's layer does is in ops.hpp.
#pragma once

#include <encore/domains/cuda_driver.hpp>
#include <rocprofiler-sdk/fwd.h>

#include <array>
#include <cstddef>
#include <string_view>

namespace encore::cuda {

enum class role : unsigned char {
    none,              // forwarded as is
    launch,            // a kernel launch: KERNEL_DISPATCH records, replay
    alloc,             // device or pinned host memory: MEMORY_ALLOCATION records, the tracker
    free,              // its free (the size is the tracked allocation's); waits while a replay owns the context
    host_free,         // cuMemFreeHost: FREE records with the pinned allocation's size (host agent)
    vmm_create,        // cuMemCreate: VMEM_ALLOCATE records (the address is the allocation handle)
    vmm_release,       // cuMemRelease: VMEM_FREE records (the handle, its size)
    vmm_map,           // cuMemMap: a mapped range (tracker), covered once its device may access it
    vmm_access,        // cuMemSetAccess: which devices may read and write a mapped range (tracker)
    vmm_unmap,         // cuMemUnmap: the range is no longer covered
    vmm_reserve,       // cuMemAddressReserve: a reserved range (adjacent mappings in it are covered as one)
    vmm_address_free,  // cuMemAddressFree: its end
    copy,              // MEMORY_COPY records; waits while a replay owns the context
    other_work,        // other copies and memsets: not reported, wait while a replay owns the context
    graph_launch,      // node by node while kernel replay is active (graph_nodes.hpp), else whole (range replay)
    instantiate,       // cuGraphInstantiate*: the exec's plan of nodes made (graph_nodes.hpp)
    graph_update,      // cuGraphExec*SetParams, cuGraphExecUpdate, cuGraphNodeSetEnabled: the exec's plan declines
    graph_destroy,     // cuGraphExecDestroy: the exec's plan is forgotten
    global,            // a module variable's address handed out: covered by replay like an allocation
    unload,            // its module's (or library's) unload: the variables are dropped
    teardown,          // context destruction: its pending records first, then it is forgotten
    stream_destroy,    // cuStreamDestroy: what launches kept of the stream's handle is no longer trusted
};

/// How a launch lays out its arguments.
enum class launch_args : unsigned char {
    grid_block,  // (f, grid x/y/z, block x/y/z, shared bytes, stream, ...)
    config,      // (const CUlaunchConfig*, f, ...)
};
/// What memory an allocation (or a module variable) is, and where its size is.
enum class alloc_form : unsigned char {
    plain,     // (dptr, bytes, ...)
    pitched,   // (dptr, pitch, width, height, element size): pitch x height, known at EXIT
    managed,   // plain, managed memory (marks its context: replay declines there)
    host,      // (void** pp, bytes, ...): pinned host memory, never covered (records with the host agent)
    imported,  // (dptr, ...): another process's memory (pool or IPC import); size asked of the driver at EXIT,
               // marks its context (replay declines there)
};
/// How a copy names what it copies.
enum class copy_shape : unsigned char {
    linear,   // (dst, src, bytes[, stream])
    peer,     // (dst, dst context, src, src context, bytes[, stream]): device to device
    desc_2d,  // (const CUDA_MEMCPY2D*[, stream]): bytes = width x height, sides from memory types
    desc_3d,  // (const CUDA_MEMCPY3D*[, stream]): bytes = width x height x depth
};
/// Which context a teardown destroys.
enum class teardown_of : unsigned char {
    context,          // (ctx): cuCtxDestroy
    primary_release,  // (device): gone when its last reference is released
    primary_reset,    // (device): gone
};

/// One op's role and what its layer needs to know of its arguments (fields of other roles unused).
struct op_role {
    cuda::role role = cuda::role::none;
    bool per_thread = false;  // a _ptsz/_ptds export: its stream 0 is the calling thread's default stream
    launch_args launch = launch_args::grid_block;
    alloc_form alloc = alloc_form::plain;  // alloc, global
    copy_shape shape = copy_shape::linear;
    op_id direction = ROCPROFILER_MEMORY_COPY_NONE;  // linear: NONE classifies each side by its address
    bool async = false;   // copies: the last argument is a stream, the copy may end after the call returns
    bool memset = false;  // other_work: a cuMemset* (all its arguments are values: range replay re-issues it)
    teardown_of destroys = teardown_of::context;
};

/// The services whose configuration puts a role's layer in place (asked once per op).
struct wanted_by {
    bool replay = false, dispatches = false, copies = false, allocations = false;
    bool kernel_symbols = false;  // CODE_OBJECT: a launched function's name (kernels.hpp)
    bool counting = false;        // a dispatch counting service: launches counted (counters.hpp)
};
constexpr wanted_by services_of(role r) noexcept {
    switch (r) {
        case role::none: return {};
        case role::launch: return {.replay = true, .dispatches = true, .kernel_symbols = true};
        case role::alloc:
        case role::free:
        case role::vmm_create:
        case role::vmm_release: return {.replay = true, .allocations = true};
        case role::host_free: return {.allocations = true};
        case role::vmm_map:
        case role::vmm_access:
        case role::vmm_unmap:
        case role::vmm_reserve:
        case role::vmm_address_free: return {.replay = true};
        case role::copy: return {.replay = true, .copies = true};
        case role::other_work:
        case role::global: return {.replay = true};
        case role::graph_launch:  // node by node, each kernel node replayed or counted as a launch
        case role::instantiate:
        case role::graph_update:
        case role::graph_destroy: return {.replay = true, .counting = true};
        case role::unload: return {.replay = true, .kernel_symbols = true};
        case role::teardown: return {.replay = true, .dispatches = true, .copies = true};
        // Layered whenever launches are (role::launch): the two are resolved under one configuration.
        case role::stream_destroy: return {.dispatches = true};
    }
    return {};
}

namespace role_table {
// Called only for a name the domain lacks; being non-constexpr, it fails the consteval lookup
// with this name in the diagnostic.
void roles_hpp__no_such_op__check_the_name_against_cuda_driver_ops_inc();
/// An op's id by name: a name the CUDA_DRIVER_API declaration lacks does not compile. (Not
/// cuda_driver::id_of<"name">: each instantiation of that member of the 532-op domain costs
/// about 60 ms of compile time in every TU that includes this table.)
consteval op_id op(std::string_view name) {
    const auto id = domains::cuda_driver::find(name);
    if (!id) roles_hpp__no_such_op__check_the_name_against_cuda_driver_ops_inc();
    return *id;
}

struct entry {
    op_id id;
    op_role is;
};
constexpr op_role plain(role r) noexcept { return {.role = r}; }
constexpr op_role launch(launch_args a) noexcept { return {.role = role::launch, .launch = a}; }
constexpr op_role alloc(alloc_form f) noexcept { return {.role = role::alloc, .alloc = f}; }
constexpr op_role global(alloc_form f) noexcept { return {.role = role::global, .alloc = f}; }
constexpr op_role teardown(teardown_of t) noexcept { return {.role = role::teardown, .destroys = t}; }
constexpr bool sync = false, async = true;
constexpr op_id by_address = ROCPROFILER_MEMORY_COPY_NONE, h2d = ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE,
                d2h = ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST, d2d = ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE;
constexpr op_role copy(copy_shape s, op_id direction, bool is_async) noexcept {
    return {.role = role::copy, .shape = s, .direction = direction, .async = is_async};
}
using enum copy_shape;

/// Each entry also covers the op's per-thread-default-stream export (name_ptsz / name_ptds).
inline constexpr entry entries[] = {
    {op("cuLaunchKernel"), launch(launch_args::grid_block)},
    {op("cuLaunchCooperativeKernel"), launch(launch_args::grid_block)},
    {op("cuLaunchKernelEx"), launch(launch_args::config)},

    {op("cuMemAlloc_v2"), alloc(alloc_form::plain)},
    {op("cuMemAllocPitch_v2"), alloc(alloc_form::pitched)},
    {op("cuMemAllocManaged"), alloc(alloc_form::managed)},
    {op("cuMemAllocAsync"), alloc(alloc_form::plain)},
    {op("cuMemAllocFromPoolAsync"), alloc(alloc_form::plain)},
    {op("cuMemFree_v2"), plain(role::free)},
    {op("cuMemFreeAsync"), plain(role::free)},
    {op("cuMemCreate"), plain(role::vmm_create)},
    {op("cuMemRelease"), plain(role::vmm_release)},
    {op("cuMemMap"), plain(role::vmm_map)},
    {op("cuMemSetAccess"), plain(role::vmm_access)},
    {op("cuMemUnmap"), plain(role::vmm_unmap)},
    {op("cuMemAddressReserve"), plain(role::vmm_reserve)},
    {op("cuMemAddressFree"), plain(role::vmm_address_free)},
    {op("cuMemPoolImportPointer"), alloc(alloc_form::imported)},
    {op("cuIpcOpenMemHandle_v2"), alloc(alloc_form::imported)},
    {op("cuIpcCloseMemHandle"), plain(role::free)},
    {op("cuMemAllocHost_v2"), alloc(alloc_form::host)},
    {op("cuMemHostAlloc"), alloc(alloc_form::host)},
    {op("cuMemFreeHost"), plain(role::host_free)},

    {op("cuMemcpy"), copy(linear, by_address, sync)},
    {op("cuMemcpyAsync"), copy(linear, by_address, async)},
    {op("cuMemcpyHtoD_v2"), copy(linear, h2d, sync)},
    {op("cuMemcpyHtoDAsync_v2"), copy(linear, h2d, async)},
    {op("cuMemcpyDtoH_v2"), copy(linear, d2h, sync)},
    {op("cuMemcpyDtoHAsync_v2"), copy(linear, d2h, async)},
    {op("cuMemcpyDtoD_v2"), copy(linear, d2d, sync)},
    {op("cuMemcpyDtoDAsync_v2"), copy(linear, d2d, async)},
    {op("cuMemcpyPeer"), copy(peer, d2d, sync)},
    {op("cuMemcpyPeerAsync"), copy(peer, d2d, async)},
    {op("cuMemcpy2D_v2"), copy(desc_2d, by_address, sync)},
    {op("cuMemcpy2DUnaligned_v2"), copy(desc_2d, by_address, sync)},
    {op("cuMemcpy2DAsync_v2"), copy(desc_2d, by_address, async)},
    {op("cuMemcpy3D_v2"), copy(desc_3d, by_address, sync)},
    {op("cuMemcpy3DAsync_v2"), copy(desc_3d, by_address, async)},

    {op("cuGraphLaunch"), plain(role::graph_launch)},
    {op("cuGraphInstantiateWithFlags"), plain(role::instantiate)},
    {op("cuGraphInstantiateWithParams"), plain(role::instantiate)},
    {op("cuGraphExecKernelNodeSetParams_v2"), plain(role::graph_update)},
    {op("cuGraphExecMemcpyNodeSetParams"), plain(role::graph_update)},
    {op("cuGraphExecMemsetNodeSetParams"), plain(role::graph_update)},
    {op("cuGraphExecChildGraphNodeSetParams"), plain(role::graph_update)},
    {op("cuGraphExecNodeSetParams"), plain(role::graph_update)},
    {op("cuGraphExecUpdate_v2"), plain(role::graph_update)},
    {op("cuGraphNodeSetEnabled"), plain(role::graph_update)},
    {op("cuGraphExecDestroy"), plain(role::graph_destroy)},
    {op("cuModuleGetGlobal_v2"), global(alloc_form::plain)},
    {op("cuLibraryGetGlobal"), global(alloc_form::plain)},
    {op("cuLibraryGetManaged"), global(alloc_form::managed)},
    {op("cuModuleUnload"), plain(role::unload)},
    {op("cuLibraryUnload"), plain(role::unload)},
    {op("cuCtxDestroy_v2"), teardown(teardown_of::context)},
    {op("cuStreamDestroy_v2"), plain(role::stream_destroy)},
    {op("cuDevicePrimaryCtxRelease_v2"), teardown(teardown_of::primary_release)},
    {op("cuDevicePrimaryCtxReset_v2"), teardown(teardown_of::primary_reset)},
};
/// Every other op whose name starts so (array, 3-D peer and batched copies, memsets, and any
/// such op a later CUDA adds) is other_work: a replay never overlaps it.
inline constexpr std::string_view other_work_prefixes[] = {"cuMemcpy", "cuMemset"};

constexpr std::string_view without_per_thread_suffix(std::string_view n) noexcept {
    return n.ends_with("_ptsz") || n.ends_with("_ptds") ? n.substr(0, n.size() - 5) : n;
}
}  // namespace role_table

/// Op I's role: roles[I].
inline constexpr std::array<op_role, domains::cuda_driver::size> roles = [] {
    using D = domains::cuda_driver;
    std::array<op_role, D::size> out{};
    for (std::size_t i = 0; i < D::size; ++i) {
        const std::string_view base = role_table::without_per_thread_suffix(D::names[i]);
        for (const auto& e : role_table::entries)
            if (D::names[static_cast<std::size_t>(e.id)] == base) out[i] = e.is;
        if (out[i].role == role::none)
            for (const std::string_view p : role_table::other_work_prefixes)
                if (base.starts_with(p)) out[i].role = role::other_work;
        out[i].memset = out[i].role == role::other_work && base.starts_with("cuMemset");
        out[i].per_thread = base.size() != D::names[i].size();
    }
    return out;
}();

static_assert(
    [] {
        for (const auto& e : role_table::entries) {
            const std::string_view n = domains::cuda_driver::names[static_cast<std::size_t>(e.id)];
            if (role_table::without_per_thread_suffix(n) != n) return false;
        }
        return true;
    }(),
    "roles.hpp: list an op under its base name; its _ptsz/_ptds export is covered by the same entry");

}  // namespace encore::cuda
