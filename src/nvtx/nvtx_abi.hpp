// src/nvtx/nvtx_abi.hpp — the parts of NVTX's injection interface encore's NVTX library uses:
// NVTX v3 is header-only, and each copy of it in a process (the program, each library built with
// it) loads the library named by NVTX_INJECTION64_PATH at its first NVTX call and calls its
// InitializeInjectionNvtx2(getExportTable). The library asks getExportTable(NVTX_ETID_CALLBACKS)
// for each module's table of function-pointer slots and writes its functions into them; slots it
// leaves alone become no-ops. The ids, enumerator values and struct layouts below are NVTX's
// (nvToolsExt.h, nvtxDetail/nvtxTypes.h), declared here so encore builds without NVTX's headers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace encore::nvtx::abi {

/// Export table ids (NvtxExportTableID).
enum : std::uint32_t { etid_callbacks = 1, etid_versioninfo = 3 };

/// Callback modules (NvtxCallbackModule).
enum module : int { module_core = 1, module_cuda = 2, module_opencl = 3, module_cudart = 4, module_core2 = 5 };

/// Slots of module_core (NvtxCallbackIdCore).
enum : unsigned {
    core_mark_ex = 1,
    core_mark_a = 2,
    core_mark_w = 3,
    core_range_start_ex = 4,
    core_range_start_a = 5,
    core_range_start_w = 6,
    core_range_end = 7,
    core_range_push_ex = 8,
    core_range_push_a = 9,
    core_range_push_w = 10,
    core_range_pop = 11,
    core_name_category_a = 12,
    core_name_category_w = 13,
    core_name_os_thread_a = 14,
    core_name_os_thread_w = 15,
};

/// Slots of module_core2, the domain API (NvtxCallbackIdCore2).
enum : unsigned {
    core2_domain_mark_ex = 1,
    core2_domain_range_start_ex = 2,
    core2_domain_range_end = 3,
    core2_domain_range_push_ex = 4,
    core2_domain_range_pop = 5,
    core2_domain_resource_create = 6,
    core2_domain_resource_destroy = 7,
    core2_domain_name_category_a = 8,
    core2_domain_name_category_w = 9,
    core2_domain_register_string_a = 10,
    core2_domain_register_string_w = 11,
    core2_domain_create_a = 12,
    core2_domain_create_w = 13,
    core2_domain_destroy = 14,
    core2_initialize = 15,
};

using function_pointer = void (*)();
/// A module's table: an array of pointers to the slots (index = callback id; 0 unused).
using function_table = function_pointer**;

struct export_table_callbacks {  // NvtxExportTableCallbacks
    std::size_t struct_size;
    /// The module's table and its size (callback ids below it are valid); 0 if the module is
    /// unknown to that copy of NVTX.
    int (*get_module_function_table)(module m, function_table* out_table, unsigned* out_size);
};

using get_export_table_t = const void* (*)(std::uint32_t export_table_id);  // NvtxGetExportTableFunc_t

/// nvtxEventAttributes_t (version 2, NVTX_EVENT_ATTRIB_STRUCT_SIZE bytes).
enum : std::int32_t { message_unknown = 0, message_ascii = 1, message_unicode = 2, message_registered = 3 };
struct string_registration;  // nvtxStringHandle_t points to one (the injection's own)
struct domain_registration;  // nvtxDomainHandle_t likewise
struct event_attributes {
    std::uint16_t version;
    std::uint16_t size;
    std::uint32_t category;
    std::int32_t color_type;
    std::uint32_t color;
    std::int32_t payload_type;
    std::int32_t reserved0;
    union {
        std::uint64_t ull_value;
        std::int64_t ll_value;
        double d_value;
        std::uint32_t ui_value;
        std::int32_t i_value;
        float f_value;
    } payload;
    std::int32_t message_type;
    union {
        const char* ascii;
        const wchar_t* unicode;
        const string_registration* registered;
    } message;
};
static_assert(sizeof(event_attributes) == 48 && offsetof(event_attributes, message_type) == 32 &&
                  offsetof(event_attributes, message) == 40,
              "nvtxEventAttributes_v2's layout");

using range_id = std::uint64_t;  // nvtxRangeId_t

}  // namespace encore::nvtx::abi
