// Tests for encore/tracing/kinds.hpp: the one list of kinds and the folds over it.
#include <encore/domains/libs.hpp>
#include <encore/tracing/kinds.hpp>
#include <encore/tracing/payload.hpp>
#include <rocprofiler-sdk/rocprofiler.h>

#include <doctest/doctest.h>

#include "../support/tool_fixture.hpp"

#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

using namespace encore;
using namespace encore::tracing;

// Each fold reads the right column of the right line (kinds at both ends and in the middle).
static_assert(kind_name(kind::hsa_core_api) == std::string_view("HSA_CORE_API"));
static_assert(kind_name(kind::memory_copy) == std::string_view("MEMORY_COPY"));
static_assert(kind_name(kind::cuda_driver_api) == std::string_view("CUDA_DRIVER_API"));
static_assert(kind_name(kind::none) == nullptr && kind_name(kind::last) == nullptr);
static_assert(std::is_same_v<payload_of<kind::hip_compiler_api>::type, rocprofiler_callback_tracing_hip_api_data_t>);
static_assert(
    std::is_same_v<payload_of<kind::marker_core_range_api>::type, rocprofiler_callback_tracing_marker_api_data_t>);
static_assert(std::is_same_v<payload_of<kind::kernel_dispatch>::type, rocprofiler_callback_tracing_kernel_dispatch_data_t>);
static_assert(std::is_same_v<payload_of<kind::cuda_driver_api>::type, generic_api_data>);
static_assert(request_kind_of(kind::hsa_finalize_ext_api) ==
              ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HSA_FINALIZE_EXT_API);
static_assert(request_kind_of(kind::marker_core_range_api) ==
              ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MARKER_CORE_RANGE_API);
static_assert(request_kind_of(kind::code_object) == ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE);
static_assert(request_kind_of(kind::hip_event) == ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE);
static_assert(producers_of(kind::kernel_dispatch) == (produced_by::hsa | produced_by::cuda));
static_assert(producers_of(kind::scratch_memory) == produced_by::hsa);
// RUNTIME_INITIALIZATION's producers follow from producer_table (every library that reports its
// runtime's initialization): the set it had when it was spelled out by hand, every library of
// encore/domains/libs.hpp included.
static_assert(producers_of(kind::runtime_initialization) == (produced_by::hsa | produced_by::hip | produced_by::marker |
                                                             produced_by::cuda | encore::domains::library_producers));
static_assert((encore::domains::library_producers & (produced_by::rccl | produced_by::rocdecode | produced_by::rocjpeg |
                                                     produced_by::rocshmem | produced_by::hipfile)) ==
              (produced_by::rccl | produced_by::rocdecode | produced_by::rocjpeg | produced_by::rocshmem |
               produced_by::hipfile));
// The producers: libencore, its five backends (hsa, hip, marker, cuda, ompt) and one per library.
static_assert(produced_by::count == 6 + encore::domains::libraries::size);
static_assert(kind_decl_of<kind::hsa_core_api>::iterates_args && !kind_decl_of<kind::memory_copy>::iterates_args);
static_assert(operations_of(kind::cuda_driver_api) == operations::at_load &&
              operations_of(kind::ompt) == operations::domain);
static_assert(producers_of(kind::ompt) == produced_by::ompt &&
              std::is_same_v<payload_of<kind::ompt>::type, rocprofiler_callback_tracing_ompt_data_t>);

TEST_CASE("every kind's name in the list is the C API's name query") {
    for (int k = ROCPROFILER_CALLBACK_TRACING_NONE + 1; k < ROCPROFILER_CALLBACK_TRACING_LAST; ++k) {
        const char* name = nullptr;
        uint64_t len = 0;
        const auto kk = static_cast<rocprofiler_callback_tracing_kind_t>(k);
        REQUIRE(rocprofiler_query_callback_tracing_kind_name(kk, &name, &len) == ROCPROFILER_STATUS_SUCCESS);
        CAPTURE(k);
        CHECK(std::string_view(name, len) == kind_name(static_cast<kind>(k)));
    }
}

TEST_CASE("a kind has operations in this process exactly where the list says libencore declares them") {
    // This program loads libencore only: a backend's own domain (CUDA, registered at its load)
    // is not here, so its kind is a name like the kinds nothing declares yet.
    for (int k = ROCPROFILER_CALLBACK_TRACING_NONE + 1; k < ROCPROFILER_CALLBACK_TRACING_LAST; ++k) {
        int n = 0;
        const auto st = rocprofiler_iterate_callback_tracing_kind_operations(
            static_cast<rocprofiler_callback_tracing_kind_t>(k),
            [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, void* count) {
                ++*static_cast<int*>(count);
                return 0;
            },
            &n);
        CAPTURE(k);
        // A build without HIP's headers has no domain whose types are HIP's (HIP's, the libraries').
        const bool hip_typed = k == ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API ||
                               k == ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API ||
                               (tracing::producers_of(static_cast<kind>(k)) != 0 &&
                                (tracing::producers_of(static_cast<kind>(k)) & ~encore::domains::library_producers) == 0);
        if (operations_of(static_cast<kind>(k)) == operations::domain && (ENCORE_HIP_HEADERS || !hip_typed)) {
            CHECK(st == ROCPROFILER_STATUS_SUCCESS);
            CHECK(n > 0);
        } else {
            CHECK(st == ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
            CHECK(n == 0);
        }
    }
}

TEST_CASE("the request kinds named in the list are every request kind, each once") {
    bool seen[ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST] = {};
    for (std::size_t k = 1; k < kind_count; ++k) {
        const auto r = request_kind_of(static_cast<kind>(k));
        if (r == ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE) continue;
        CAPTURE(k);
        CHECK_FALSE(seen[r]);
        seen[r] = true;
    }
    for (int r = ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE + 1; r < ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST;
         ++r) {
        CAPTURE(r);
        CHECK(seen[r]);
    }
}

TEST_CASE("every valid kind is configurable, produced in this process or not") {
    // This program loads libencore only (not libencore-hip, -roctx, -hsa or -cuda): every kind
    // configures anyway, as in the reference, so a tool that stops at the first error starts.
    // Invalid ids still get KIND_NOT_FOUND.
    std::vector<rocprofiler_status_t> st;
    std::vector<rocprofiler_status_t> invalid;
    test_support::run_tool([&] {
        rocprofiler_context_id_t ctx{};
        REQUIRE(rocprofiler_create_context(&ctx) == ROCPROFILER_STATUS_SUCCESS);
        const auto cb = [](rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {};
        for (int k = ROCPROFILER_CALLBACK_TRACING_NONE + 1; k < ROCPROFILER_CALLBACK_TRACING_LAST; ++k)
            st.push_back(rocprofiler_configure_callback_tracing_service(
                ctx, static_cast<rocprofiler_callback_tracing_kind_t>(k), nullptr, 0, cb, nullptr));
        for (int k : {static_cast<int>(ROCPROFILER_CALLBACK_TRACING_NONE),
                      static_cast<int>(ROCPROFILER_CALLBACK_TRACING_LAST), -1, 1 << 20})
            invalid.push_back(rocprofiler_configure_callback_tracing_service(
                ctx, static_cast<rocprofiler_callback_tracing_kind_t>(k), nullptr, 0, cb, nullptr));
        return 0;
    });
    REQUIRE(st.size() == kind_count - 1);
    for (std::size_t i = 0; i < st.size(); ++i) {
        CAPTURE(kind_name(static_cast<kind>(i + 1)));
        CHECK(st[i] == ROCPROFILER_STATUS_SUCCESS);
    }
    for (auto s : invalid) CHECK(s == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
}
