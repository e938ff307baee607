// test/c_api/test_api_args_hip.cpp — the HIP payload union's per-function members
// (rocprofiler-sdk/hip/api_args.h) on real records: HIP calls against the real libamdhip64.so.5
// with libencore-hip preloaded (no GPU here: the runtime returns hipErrorNoDevice, which the
// retval member must carry). The program is its own tool.
//
// For each call: the member read in C++ (data->args.hipMalloc.size), the same member read by
// C11 code (api_args_c.c), argument iteration's value and address for that parameter in the
// same record, and what the program passed all agree.
#include "../support/tool_stub.hpp"

#include "api_args_c.h"
#include "api_args_record.hpp"

#include <encore/encore.hpp>
#include <rocprofiler-sdk/hip/runtime_api_id.h>

#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

using namespace api_args_test;

namespace {

using hip_seen = seen<rocprofiler_callback_tracing_hip_api_data_t>;
std::vector<hip_seen> g_hip;
rocprofiler_status_t g_configured = ROCPROFILER_STATUS_ERROR;
bool g_started = false;

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    g_configured = rocprofiler_configure_callback_tracing_service(
        ctx, ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, nullptr, 0,
        [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) { keep(g_hip, r); }, nullptr);
    g_started = rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS;
    return 0;
}

constexpr auto EXIT = ROCPROFILER_CALLBACK_PHASE_EXIT;

/// The record of the call just made, with its iteration done and its retval as the program saw it.
hip_seen exited(int op, hipError_t got) {
    const auto r = last(g_hip, op, EXIT);
    REQUIRE(r);
    REQUIRE(r->iterate_status == ROCPROFILER_STATUS_SUCCESS);
    CHECK(r->data.retval.hipError_t_retval == got);
    CHECK(c_hip_error_retval(&r->data) == static_cast<int>(got));
    return *r;
}

}  // namespace

ENCORE_TEST_TOOL("test-api-args-hip", &tool_init, nullptr)

TEST_CASE("hip: members of HIP runtime calls") {
    int count = -1;
    (void)hipGetDeviceCount(&count);  // initializes the tool if nothing did yet
    REQUIRE(g_started);
    REQUIRE(g_configured == ROCPROFILER_STATUS_SUCCESS);

    {
        INFO("hipMalloc: ptr, size; retval hipError_t_retval");
        void* p = nullptr;
        const hipError_t got = hipMalloc(&p, 1 << 20);
        const auto r = exited(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, got);
        const auto& a = r.data.args.hipMalloc;
        CHECK(a.ptr == &p);
        CHECK(c_hip_malloc_ptr(&r.data) == static_cast<void*>(&p));
        CHECK(a.size == 1 << 20);
        CHECK(c_hip_malloc_size(&r.data) == 1 << 20);
        REQUIRE(r.args.size() == 2);
        CHECK(r.args[0].name == "ptr");
        CHECK(r.args[0].offset == offset_in_args(r, a.ptr));
        CHECK(r.args[1].name == "size");
        CHECK(r.args[1].offset == offset_in_args(r, a.size));
        CHECK(r.args[1].value == std::to_string(1 << 20));
    }
    {
        INFO("hipMemcpy: dst, src, sizeBytes, kind");
        char src[256] = {1, 2, 3};
        char dst[256] = {};
        const hipError_t got = hipMemcpy(dst, src, sizeof src, hipMemcpyHostToDevice);
        const auto r = exited(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy, got);
        const auto& a = r.data.args.hipMemcpy;
        CHECK(a.dst == static_cast<void*>(dst));
        CHECK(a.src == static_cast<const void*>(src));
        CHECK(a.sizeBytes == sizeof src);
        CHECK(c_hip_memcpy_size_bytes(&r.data) == sizeof src);
        CHECK(a.kind == hipMemcpyHostToDevice);
        CHECK(c_hip_memcpy_kind(&r.data) == hipMemcpyHostToDevice);
        const auto* kind = arg(r, "kind");
        REQUIRE(kind != nullptr);
        CHECK(kind->value == "hipMemcpyHostToDevice");
        CHECK(kind->offset == offset_in_args(r, a.kind));
        CHECK(static_cast<std::size_t>(kind->offset) == c_hip_memcpy_kind_offset());
        const auto* bytes = arg(r, "sizeBytes");
        REQUIRE(bytes != nullptr);
        CHECK(bytes->value == "256");
    }
    {
        INFO("hipLaunchKernel: a by-value dim3 is read as rocprofiler_dim3_t");
        static_assert(std::is_same_v<decltype(rocprofiler_hip_api_args_t{}.hipLaunchKernel.numBlocks), rocprofiler_dim3_t>);
        static int kernel_stub;
        const hipError_t got = hipLaunchKernel(&kernel_stub, dim3(2, 3, 4), dim3(64, 1, 1), nullptr, 128, nullptr);
        const auto r = exited(ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel, got);
        const auto& a = r.data.args.hipLaunchKernel;
        CHECK(a.function_address == &kernel_stub);
        CHECK(a.numBlocks.x == 2);
        CHECK(a.numBlocks.y == 3);
        CHECK(c_hip_launch_kernel_grid_y(&r.data) == 3);
        CHECK(a.numBlocks.z == 4);
        CHECK(a.dimBlocks.x == 64);
        CHECK(a.sharedMemBytes == 128);
        CHECK(a.stream == nullptr);
        const auto* blocks = arg(r, "numBlocks");
        REQUIRE(blocks != nullptr);
        CHECK(blocks->offset == offset_in_args(r, a.numBlocks));
    }
    {
        INFO("hipModuleLaunchKernel: the reference's parameter name `func` (HIP 5.2 says `f`)");
        const hipError_t got = hipModuleLaunchKernel(nullptr, 1, 2, 3, 4, 5, 6, 0, nullptr, nullptr, nullptr);
        const auto r = exited(ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel, got);
        const auto& a = r.data.args.hipModuleLaunchKernel;
        CHECK(a.func == nullptr);
        CHECK(a.gridDimY == 2);
        CHECK(a.blockDimZ == 6);
        REQUIRE(!r.args.empty());
        CHECK(r.args[0].name == "func");
        CHECK(r.args[0].offset == offset_in_args(r, a.func));
        const auto* y = arg(r, "gridDimY");
        REQUIRE(y != nullptr);
        CHECK(y->value == "2");
        CHECK(y->offset == offset_in_args(r, a.gridDimY));
    }
    {
        INFO("hipGetDeviceCount: an out-pointer");
        int n = -1;
        const hipError_t got = hipGetDeviceCount(&n);
        const auto r = exited(ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceCount, got);
        CHECK(r.data.args.hipGetDeviceCount.count == &n);
    }
}

TEST_CASE("hip: the reference's operations ROCm 5.2 lacks: ids, names, members, a traced call") {
    int count = -1;
    (void)hipGetDeviceCount(&count);
    REQUIRE(g_started);
    // Names at the reference's values.
    const auto name_of = [](int op) {
        const char* name = nullptr;
        std::size_t len = 0;
        const auto st = rocprofiler_query_callback_tracing_kind_operation_name(
            ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, static_cast<rocprofiler_tracing_operation_t>(op), &name, &len);
        return st == ROCPROFILER_STATUS_SUCCESS && name != nullptr ? std::string(name, len) : std::string("?");
    };
    CHECK(name_of(306) == "hipModuleLaunchCooperativeKernel");
    CHECK(name_of(388) == "hipExtModuleLaunchKernel");
    CHECK(name_of(389) == "hipHccModuleLaunchKernel");
    CHECK(name_of(537) == "hipModuleGetLoadingMode");
    CHECK(name_of(ROCPROFILER_HIP_RUNTIME_API_ID_hipGetProcAddress) == "hipGetProcAddress");

    // Proton's switch, compiled as C, reads the members where C++ wrote them.
    rocprofiler_callback_tracing_hip_api_data_t d{};
    auto* const s = reinterpret_cast<hipStream_t>(0x1234);
    d.args.hipExtModuleLaunchKernel.stream = s;
    CHECK(c_hip_launch_stream(ROCPROFILER_HIP_RUNTIME_API_ID_hipExtModuleLaunchKernel, &d) == static_cast<void*>(s));
    d = {};
    d.args.hipModuleLaunchCooperativeKernel.stream = s;
    CHECK(c_hip_launch_stream(ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchCooperativeKernel, &d) ==
          static_cast<void*>(s));
    CHECK(c_hip_launch_stream(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, &d) == nullptr);

    // libencore-hip exports hipModuleLaunchCooperativeKernel, so a runtime that has it gets it
    // traced. ROCm 5.2's library lacks it (no 5.2 program calls it): a call through the export
    // fails with hipErrorSharedObjectSymbolNotFound, and the record carries the arguments.
    using launch_fn = hipError_t (*)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, hipStream_t, void**);
    void* sym = dlsym(RTLD_DEFAULT, "hipModuleLaunchCooperativeKernel");
    REQUIRE(sym != nullptr);
    Dl_info info{};
    REQUIRE(dladdr(sym, &info) != 0);
    CHECK(std::string(info.dli_fname).find("libencore-hip") != std::string::npos);
    launch_fn f = nullptr;
    std::memcpy(&f, &sym, sizeof f);
    const hipError_t got = f(nullptr, 7, 1, 1, 64, 1, 1, 0, s, nullptr);
    CHECK(got == hipErrorSharedObjectSymbolNotFound);
    const auto r = exited(ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchCooperativeKernel, got);
    CHECK(r.data.args.hipModuleLaunchCooperativeKernel.gridDimX == 7);
    CHECK(r.data.args.hipModuleLaunchCooperativeKernel.blockDimX == 64);
    CHECK(c_hip_launch_stream(ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchCooperativeKernel, &r.data) ==
          static_cast<void*>(s));
    const auto* grid = arg(r, "gridDimX");
    REQUIRE(grid != nullptr);
    CHECK(grid->value == "7");
}

int main(int argc, char** argv) {
    doctest::Context ctx(argc, argv);
    return ctx.run();
}
