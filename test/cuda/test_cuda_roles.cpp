// test/cuda/test_cuda_roles.cpp — libencore-cuda's table of op roles (src/cuda/roles.hpp): what
// each listed op is, that a per-thread-stream export has its base op's role, and which ops are
// left alone.
#include "cuda/roles.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <map>

using encore::domains::cuda_driver;
using namespace encore::cuda;

namespace {
constexpr const op_role& of(std::string_view name) { return roles[static_cast<std::size_t>(*cuda_driver::find(name))]; }
}  // namespace

// Launches: both argument layouts, and the per-thread-stream export.
static_assert(of("cuLaunchKernel").role == role::launch && !of("cuLaunchKernel").per_thread);
static_assert(of("cuLaunchKernel_ptsz").role == role::launch && of("cuLaunchKernel_ptsz").per_thread);
static_assert(of("cuLaunchKernelEx_ptsz").launch == launch_args::config);
static_assert(of("cuLaunchCooperativeKernel").launch == launch_args::grid_block);
static_assert(of("cuLaunchCooperativeKernelMultiDevice").role == role::none);

// Copies: shape, direction, async, per thread.
static_assert(of("cuMemcpyHtoDAsync_v2_ptsz").role == role::copy && of("cuMemcpyHtoDAsync_v2_ptsz").async &&
              of("cuMemcpyHtoDAsync_v2_ptsz").per_thread &&
              of("cuMemcpyHtoDAsync_v2_ptsz").direction == ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE);
static_assert(of("cuMemcpy").direction == ROCPROFILER_MEMORY_COPY_NONE && !of("cuMemcpy").async);
static_assert(of("cuMemcpyPeerAsync").shape == copy_shape::peer &&
              of("cuMemcpyPeerAsync").direction == ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE);
static_assert(of("cuMemcpy2DUnaligned_v2_ptds").shape == copy_shape::desc_2d && !of("cuMemcpy2DUnaligned_v2_ptds").async);
static_assert(of("cuMemcpy3DAsync_v2").shape == copy_shape::desc_3d && of("cuMemcpy3DAsync_v2").async);
// Other copies and memsets are gated for replay, not reported.
static_assert(of("cuMemcpyAtoH_v2").role == role::other_work && of("cuMemcpy3DPeerAsync_ptsz").role == role::other_work);
static_assert(of("cuMemcpyBatchAsync_v2").role == role::other_work && of("cuMemsetD8_v2_ptds").role == role::other_work);

// Memory.
static_assert(of("cuMemAllocPitch_v2").role == role::alloc && of("cuMemAllocPitch_v2").alloc == alloc_form::pitched);
static_assert(of("cuMemAllocManaged").alloc == alloc_form::managed && of("cuMemAllocAsync_ptsz").role == role::alloc);
static_assert(of("cuMemFreeAsync_ptsz").role == role::free && of("cuMemFree_v2").role == role::free);
// Pinned host memory: allocation records (host agent), never covered by replay; registering
// existing memory is not an allocation.
static_assert(of("cuMemAllocHost_v2").alloc == alloc_form::host && of("cuMemHostAlloc").alloc == alloc_form::host &&
              of("cuMemFreeHost").role == role::host_free && of("cuMemHostRegister_v2").role == role::none);
static_assert(services_of(role::host_free).allocations && !services_of(role::host_free).replay);
// VMM: handles are allocation records; mappings, access and unmaps feed the tracker for replay.
static_assert(of("cuMemCreate").role == role::vmm_create && of("cuMemRelease").role == role::vmm_release &&
              of("cuMemMap").role == role::vmm_map && of("cuMemSetAccess").role == role::vmm_access &&
              of("cuMemUnmap").role == role::vmm_unmap && of("cuMemMapArrayAsync").role == role::none &&
              of("cuMemAddressReserve").role == role::vmm_reserve &&
              of("cuMemAddressFree").role == role::vmm_address_free);
static_assert(services_of(role::vmm_map).replay && !services_of(role::vmm_map).allocations &&
              services_of(role::vmm_create).allocations);
static_assert(of("cuMemPoolImportPointer").alloc == alloc_form::imported && of("cuMemPoolTrimTo").role == role::none);
static_assert(of("cuIpcOpenMemHandle_v2").alloc == alloc_form::imported && of("cuIpcCloseMemHandle").role == role::free);
static_assert(of("cuLibraryGetManaged").role == role::global && of("cuLibraryGetManaged").alloc == alloc_form::managed);
static_assert(of("cuModuleGetGlobal_v2").alloc == alloc_form::plain && of("cuLibraryUnload").role == role::unload);

// Graphs and contexts.
static_assert(of("cuGraphLaunch_ptsz").role == role::graph_launch);
// Range replay counts an exec's kernel nodes when it is instantiated.
static_assert(of("cuGraphInstantiateWithFlags").role == role::instantiate &&
              of("cuGraphInstantiateWithParams_ptsz").role == role::instantiate && services_of(role::instantiate).replay);
// Kernel replay launches an exec node by node from a plan made at instantiation: changes to the exec
// decline the plan, its destruction forgets it.
static_assert(of("cuGraphExecKernelNodeSetParams_v2").role == role::graph_update &&
              of("cuGraphExecUpdate_v2").role == role::graph_update &&
              of("cuGraphNodeSetEnabled").role == role::graph_update && services_of(role::graph_update).replay);
static_assert(of("cuGraphExecDestroy").role == role::graph_destroy && services_of(role::graph_destroy).replay);
// A destroyed stream's handle may come back for a new stream: launches' kept CUPTI stream keys
// are checked again after one (records::destroy_stream), wherever launches are layered.
static_assert(of("cuStreamDestroy_v2").role == role::stream_destroy &&
              services_of(role::stream_destroy).dispatches == services_of(role::launch).dispatches);
static_assert(of("cuCtxDestroy_v2").destroys == teardown_of::context &&
              of("cuDevicePrimaryCtxReset_v2").destroys == teardown_of::primary_reset &&
              of("cuDevicePrimaryCtxRelease_v2").destroys == teardown_of::primary_release);

// Which services put each role's layer in place.
static_assert(services_of(role::launch).dispatches && !services_of(role::launch).copies);
static_assert(services_of(role::teardown).dispatches && services_of(role::teardown).copies &&
              !services_of(role::teardown).allocations);
static_assert(services_of(role::other_work).replay && !services_of(role::other_work).copies);
// Kernel names (CODE_OBJECT symbols) need the launch layer, and the unload layer to forget them.
static_assert(services_of(role::launch).kernel_symbols && services_of(role::unload).kernel_symbols &&
              !services_of(role::copy).kernel_symbols && !services_of(role::global).kernel_symbols);

TEST_CASE("CUDA op roles: how many ops have each") {
    std::map<role, int> n;
    for (const op_role& r : roles) ++n[r.role];
    // Against either header (ids and names do not depend on it): 127 ops have a role.
    CHECK(cuda_driver::size - n[role::none] == 127);
    CHECK(n[role::launch] == 6);  // 3 launches, each with its _ptsz export
    CHECK(n[role::copy] == 30);   // 15 copies, each with its _ptds/_ptsz export
    CHECK(n[role::alloc] == 11);  // cuMemAllocAsync and cuMemAllocFromPoolAsync have _ptsz exports
    CHECK(n[role::host_free] == 1);
    CHECK(n[role::vmm_map] == 1);
    CHECK(n[role::vmm_access] == 1);
    CHECK(n[role::vmm_unmap] == 1);
    CHECK(n[role::free] == 4);
    CHECK(n[role::teardown] == 3);
    CHECK(n[role::stream_destroy] == 1);
    CHECK(n[role::instantiate] == 3);   // WithFlags, WithParams and its _ptsz export
    CHECK(n[role::graph_update] == 7);  // the exec's changes that the node-by-node plan does not follow
    CHECK(n[role::graph_destroy] == 1);
}
