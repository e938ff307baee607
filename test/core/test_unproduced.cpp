// Every valid kind configures in any process; at finalization encore says, once per kind, which
// configured kinds produced nothing and why; a kind configured before its library loaded fires
// once the library is there. This program links libencore only and dlopens libencore-roctx
// (ENCORE_ROCTX_LIB) in the last case.
#include <encore/domains/libs.hpp>
#include <rocprofiler-sdk/rocprofiler.h>

#include <doctest/doctest.h>

#include "../../src/core/registration.hpp"
#include "../support/stderr_capture.hpp"
#include "../support/tool_fixture.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#ifndef ENCORE_ROCTX_LIB
#    error "build with -DENCORE_ROCTX_LIB=\"<path of libencore-roctx.so>\""
#endif

namespace {

using test_support::occurrences;
using test_support::stderr_of;

std::atomic<int> g_calls{0};
void counting_cb(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) { ++g_calls; }

void configure_in_tool(const std::vector<rocprofiler_callback_tracing_kind_t>& kinds, int copies = 1) {
    static std::vector<rocprofiler_callback_tracing_kind_t> s_kinds;
    static int s_copies = 1;
    s_kinds = kinds;
    s_copies = copies;
    test_support::run_tool([] {
        for (int c = 0; c < s_copies; ++c) {
            rocprofiler_context_id_t ctx{};
            REQUIRE(rocprofiler_create_context(&ctx) == ROCPROFILER_STATUS_SUCCESS);
            for (auto k : s_kinds)
                REQUIRE(rocprofiler_configure_callback_tracing_service(ctx, k, nullptr, 0, counting_cb, nullptr) ==
                        ROCPROFILER_STATUS_SUCCESS);
            REQUIRE(rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS);
        }
        return 0;
    });
}

}  // namespace

TEST_CASE("finalization names each configured kind that nothing produced, with the reason, once") {
    // Two contexts configure the same kinds: still one line per kind.
    configure_in_tool({ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                       ROCPROFILER_CALLBACK_TRACING_OMPT, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
                       ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API},
                      2);
    const std::string out = stderr_of([] { encore::core::finalize(); });
    CAPTURE(out);
    CHECK(occurrences(out, "[encore] HIP_RUNTIME_API was configured but produced nothing: libencore-hip is not loaded "
                           "in this process (run under encore-trace --hip-trace, or LD_PRELOAD libencore-hip.so)\n") == 1);
    // OMPT's producer is libencore-ompt, started by the OpenMP runtime: not in this process.
    CHECK(occurrences(out, "[encore] OMPT was configured but produced nothing: libencore-ompt is not the OpenMP "
                           "runtime's tool in this process (run under encore-trace --ompt-trace, or set "
                           "OMP_TOOL_LIBRARIES to libencore-ompt.so") == 1);
    // A kind two libraries produce names both.
    CHECK(occurrences(out, "[encore] KERNEL_DISPATCH was configured but produced nothing: libencore-hsa is not the HSA "
                           "runtime's tools library in this process") == 1);
    const auto dispatch_line = out.substr(out.find("KERNEL_DISPATCH"),
                                          out.find('\n', out.find("KERNEL_DISPATCH")) - out.find("KERNEL_DISPATCH"));
    CHECK(dispatch_line.find("; and libencore-cuda (encore's libcuda.so.1) is not loaded") != std::string::npos);
    CHECK(occurrences(out, "[encore] CUDA_DRIVER_API was configured but produced nothing: libencore-cuda") == 1);
    // libencore's own HSA wrappers produce HSA_CORE_API; kinds nobody configured are not named.
    CHECK(occurrences(out, "HSA_CORE_API") == 0);
    CHECK(occurrences(out, "ROCDECODE_API") == 0);
    CHECK(occurrences(out, "was configured but produced nothing") == 4);
    // Finalization runs once: a second call says nothing.
    CHECK(stderr_of([] { encore::core::finalize(); }).empty());
}

TEST_CASE("kinds missing for one reason share one line; under encore-trace the HSA reason is the runtime's start") {
    // encore-trace sets HSA_TOOLS_LIB to libencore-hsa: telling the user to set it would be wrong;
    // what is true is that the program never started the HSA runtime (a HIP program where ROCm
    // 5.2's HIP cannot start, an OpenMP program).
    ::setenv("HSA_TOOLS_LIB", "/opt/encore/lib/libencore-hsa.so", 1);
    configure_in_tool({ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
                       ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                       ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY, ROCPROFILER_CALLBACK_TRACING_OMPT});
    const std::string out = stderr_of([] { encore::core::finalize(); });
    ::unsetenv("HSA_TOOLS_LIB");
    CAPTURE(out);
    CHECK(occurrences(out, "[encore] CODE_OBJECT, KERNEL_DISPATCH, MEMORY_COPY, MEMORY_ALLOCATION were configured but "
                           "produced nothing: the program never started the HSA runtime (hsa_init), which loads "
                           "libencore-hsa from HSA_TOOLS_LIB; and libencore-cuda (encore's libcuda.so.1) is not "
                           "loaded in this process (see docs/cuda.md)\n") == 1);
    CHECK(occurrences(out, "[encore] SCRATCH_MEMORY was configured but produced nothing: the program never started "
                           "the HSA runtime (hsa_init)") == 1);
    CHECK(occurrences(out, "[encore] OMPT was configured but produced nothing: libencore-ompt") == 1);
    CHECK(occurrences(out, "produced nothing") == 3);
    CHECK(occurrences(out, "set HSA_TOOLS_LIB") == 0);
}

TEST_CASE("no warning when every configured kind is produced, or nothing is configured") {
    configure_in_tool({ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API});
    CHECK(occurrences(stderr_of([] { encore::core::finalize(); }), "produced nothing") == 0);
    configure_in_tool({});
    CHECK(occurrences(stderr_of([] { encore::core::finalize(); }), "produced nothing") == 0);
}

TEST_CASE("a kind configured before its library is loaded fires once the library is there") {
    configure_in_tool({ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, ROCPROFILER_CALLBACK_TRACING_OMPT});
    g_calls = 0;
    void* lib = ::dlopen(ENCORE_ROCTX_LIB, RTLD_NOW | RTLD_GLOBAL);
    REQUIRE_MESSAGE(lib != nullptr, ::dlerror());
    auto* mark = reinterpret_cast<void (*)(const char*)>(::dlsym(lib, "roctxMarkA"));
    REQUIRE(reinterpret_cast<void*>(mark) != nullptr);
    mark("after the tool configured MARKER_CORE_API");
    CHECK(g_calls.load() == 2);  // ENTER and EXIT
    const std::string out = stderr_of([] { encore::core::finalize(); });
    CAPTURE(out);
    CHECK(occurrences(out, "MARKER_CORE_API") == 0);  // produced now
    CHECK(occurrences(out, "[encore] OMPT was configured but produced nothing") == 1);
    // The library stays loaded (-z nodelete); closing the handle is still balanced.
    CHECK(::dlclose(lib) == 0);
}

TEST_CASE("the library API kinds name their interposer when it is not loaded") {
    std::vector<rocprofiler_callback_tracing_kind_t> kinds;
    encore::domains::for_each_library([&]<class D>() {
        kinds.push_back(static_cast<rocprofiler_callback_tracing_kind_t>(D::id));
    });
    configure_in_tool(kinds);
    const std::string out = stderr_of([] { encore::core::finalize(); });
    CAPTURE(out);
    CHECK(occurrences(out, "[encore] RCCL_API was configured but produced nothing: libencore-rccl is not loaded in "
                           "this process (run under encore-trace --rccl-trace, or LD_PRELOAD libencore-rccl.so)\n") == 1);
    CHECK(occurrences(out, "[encore] ROCJPEG_API was configured but produced nothing: libencore-rocjpeg is not "
                           "loaded in this process (LD_PRELOAD libencore-rocjpeg.so)\n") == 1);
    // Every library of encore/domains/libs.hpp, each once, by its interposer's name.
    encore::domains::for_each_library([&]<class D>() {
        const std::string lib(encore::domains::library_name<D>.view());
        CHECK_MESSAGE(occurrences(out, "[encore] " + std::string(D::name) +
                                           " was configured but produced nothing: libencore-" + lib +
                                           " is not loaded in this process") == 1,
                      std::string(D::name));
    });
    CHECK(occurrences(out, "was configured but produced nothing") == encore::domains::libraries::size);
}
