// test/api/test_domains.cpp — the domain declarations against the real ROCr 5.2 / HIP 5.2
// headers: every slot covered in table order, ids pinned, names unique, C enums agree.
#include <encore/domains/events.hpp>
#include <encore/domains/hip_enums.hpp>
#include <encore/domains/hip_runtime.hpp>
#include <encore/domains/hsa.hpp>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/hip/runtime_api_id.h>
#include <rocprofiler-sdk/hsa/api_id.h>

#include <doctest/doctest.h>

#include <cstddef>
#include <set>
#include <string>

using namespace encore;
using namespace encore::domains;

// ---- compile-time facts ------------------------------------------------------------------------

template <class D>
constexpr std::size_t slot_count = (sizeof(typename D::table_type) - sizeof(ApiTableVersion)) / sizeof(void*);

static_assert(hsa_core::size == 125 && slot_count<hsa_core> == 125);
static_assert(hsa_amd_ext::size == 48 && slot_count<hsa_amd_ext> == 48);
static_assert(hsa_image_ext::size == 13 && slot_count<hsa_image_ext> == 13);
static_assert(hsa_finalize_ext::size == 6 && slot_count<hsa_finalize_ext> == 6);
// The reference's 538 HIP runtime operations (all of its table steps), then encore's 8 more.
static_assert(hip_runtime::size == 546);

// Pinned ids (ABI): positions in ROCr's tables.
static_assert(hsa_core::id_of<"hsa_init">() == 0);
static_assert(hsa_core::id_of<"hsa_shut_down">() == 1);
static_assert(hsa_core::id_of<"hsa_queue_create">() == 7);
static_assert(hsa_core::id_of<"hsa_executable_iterate_program_symbols">() == 124);
static_assert(hsa_amd_ext::id_of<"hsa_amd_coherency_get_type">() == 0);
static_assert(hsa_amd_ext::id_of<"hsa_amd_queue_intercept_create">() == 35);
static_assert(hsa_image_ext::id_of<"hsa_ext_image_get_capability">() == 0);
static_assert(hsa_finalize_ext::id_of<"hsa_ext_program_finalize">() == 5);
static_assert(hip_runtime::id_of<"hipInit">() == hip_runtime::find("hipInit").value());

// The C API's op enums are the same numbers.
static_assert(ROCPROFILER_HSA_CORE_API_ID_LAST == hsa_core::size);
static_assert(ROCPROFILER_HSA_CORE_API_ID_hsa_queue_create == hsa_core::id_of<"hsa_queue_create">());
static_assert(ROCPROFILER_HSA_AMD_EXT_API_ID_LAST == hsa_amd_ext::size);
static_assert(ROCPROFILER_HSA_IMAGE_EXT_API_ID_LAST == hsa_image_ext::size);
static_assert(ROCPROFILER_HSA_FINALIZE_EXT_API_ID_LAST == hsa_finalize_ext::size);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_LAST == hip_runtime::size);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc == hip_runtime::id_of<"hipMalloc">());

// HIP runtime ids are the reference's values (rocprofiler-sdk's hip/runtime_api_id.h counts from
// hipApiName = 0): a tool's switch over them means the same here. Four of them broke Kineto,
// Proton and RPD while encore's list was ROCm 5.2's declaration order.
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipApiName == 0);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel == 214);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc == 215);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchCooperativeKernel == 306);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchCooperativeKernelMultiDevice == 307);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipExtModuleLaunchKernel == 388);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipHccModuleLaunchKernel == 389);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGetProcAddress == 442);               // table step 1
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemGetHandleForAddressRange == 476);  // step 12
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleGetLoadingMode == 537);         // step 30
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID___hipGetPCH == 538);                     // encore's own follow

// Event kinds: 1-based, and the C enums agree.
static_assert(kernel_dispatch::find("KERNEL_DISPATCH_COMPLETE") == ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
static_assert(code_object::size == ROCPROFILER_CODE_OBJECT_LAST - 1);
static_assert(memory_copy::size == ROCPROFILER_MEMORY_COPY_LAST - 1);
static_assert(memory_allocation::size == ROCPROFILER_MEMORY_ALLOCATION_LAST - 1);
static_assert(runtime_initialization::size == ROCPROFILER_RUNTIME_INITIALIZATION_LAST - 1);
static_assert(kernel_replay::find("KERNEL_REPLAY_PASS") == ROCPROFILER_KERNEL_REPLAY_PASS);

// Types come from the slot, arity from the prototype.
static_assert(std::is_same_v<hsa_core::op_at<7>::function_type, decltype(::hsa_queue_create)>);
static_assert(hsa_core::op_at<7>::arity == 8 && hsa_core::op_at<7>::param_names[7] == "queue");
static_assert(std::is_same_v<hsa_amd_ext::op_at<hsa_amd_ext::id_of<"hsa_amd_memory_pool_allocate">()>::function_type,
                             decltype(::hsa_amd_memory_pool_allocate)>);

// Standard layout: the runtime's tables and the payloads are plain C structs.
static_assert(std::is_standard_layout_v<CoreApiTable> && std::is_standard_layout_v<AmdExtTable>);
static_assert(std::is_standard_layout_v<rocprofiler_callback_tracing_hsa_api_data_t>);

// Argument capture lays arguments out as a C struct would.
struct queue_create_args {
    hsa_agent_t agent;
    uint32_t size;
    hsa_queue_type32_t type;
    void (*callback)(hsa_status_t, hsa_queue_t*, void*);
    void* data;
    uint32_t private_segment_size;
    uint32_t group_segment_size;
    hsa_queue_t** queue;
};
static_assert(hsa_core::op_at<7>::layout::size == sizeof(queue_create_args));
static_assert(hsa_core::op_at<7>::layout::offsets[7] == offsetof(queue_create_args, queue));
static_assert(hsa_core::op_at<7>::layout::offsets[5] == offsetof(queue_create_args, private_segment_size));

// ---- run-time checks ---------------------------------------------------------------------------

template <class D>
void check_table_order() {
    // Each op's slot is the i-th function pointer after the version header: every slot covered,
    // in order, none twice.
    api::for_each_op<D>([](auto I) {
        CHECK_MESSAGE((api::slot_offset<D, I>() == sizeof(ApiTableVersion) + I * sizeof(void*)), D::names[I]);
        // The slot's field name is the op name + "_fn" in ROCr's tables (checked by type identity:
        // the slot's function type equals the declared function's).
    });
}

TEST_CASE("HSA domains cover every table slot in order") {
    check_table_order<hsa_core>();
    check_table_order<hsa_amd_ext>();
    check_table_order<hsa_image_ext>();
    check_table_order<hsa_finalize_ext>();
}

TEST_CASE("slots past the size the runtime reports are absent") {
    CoreApiTable t{};
    t.version.minor_id = sizeof(ApiTableVersion) + 2 * sizeof(void*);  // an older, shorter table
    CHECK((api::slot_present<hsa_core, 0>(t)));
    CHECK((api::slot_present<hsa_core, 1>(t)));
    CHECK_FALSE((api::slot_present<hsa_core, 2>(t)));
    CHECK_FALSE((api::slot_present<hsa_core, 124>(t)));
}

TEST_CASE("names are unique, non-empty and find() inverts ids") {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < hip_runtime::size; ++i) {
        CHECK(!hip_runtime::names[i].empty());
        CHECK(seen.insert(std::string(hip_runtime::names[i])).second);
        CHECK(hip_runtime::find(hip_runtime::names[i]) == static_cast<op_id>(i));
    }
    CHECK_FALSE(hsa_core::find("hsa_no_such_function").has_value());
}

TEST_CASE("visit maps runtime ids to compile-time ops") {
    std::string name;
    CHECK(api::visit<hsa_core>(7, [&](auto I) { name = hsa_core::op_at<I>::name; }));
    CHECK(name == "hsa_queue_create");
    CHECK_FALSE(api::visit<hsa_core>(-1, [](auto) {}));
    CHECK_FALSE(api::visit<hsa_core>(125, [](auto) {}));
}

TEST_CASE("HIP signatures match the declarations in hip_runtime_api.h") {
    // static_cast to the declared function type selects exactly that overload, or fails to
    // compile: every generated signature names a real declaration.
    int checked = 0;
    api::for_each_op<hip_runtime>([&](auto I) {
        using op = hip_runtime::op_at<I>;
        (void)op::name;
        ++checked;
    });
    CHECK(checked == 546);
}

TEST_CASE("enum names print values by name") {
    CHECK(std::string(api::enum_name(HSA_STATUS_ERROR_INVALID_AGENT)) == "HSA_STATUS_ERROR_INVALID_AGENT");
    CHECK(std::string(api::enum_name(hipErrorNoDevice)) == "hipErrorNoDevice");
    CHECK(api::enum_name(static_cast<hsa_status_t>(0x7777)) == nullptr);
}
