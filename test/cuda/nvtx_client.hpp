// test/cuda/nvtx_client.hpp — the client side of NVTX v3 for the front-end test program, written
// for the test (Debian ships no NVTX v3 headers): the functions the program calls, with NVTX's
// names and signatures, each calling through a slot that starts at "load the injection": the
// first call reads NVTX_INJECTION64_PATH, dlopens it and calls its InitializeInjectionNvtx2 with
// this copy's export table, as nvtxDetail/nvtxInit.h does; slots the injection did not fill, or
// every slot when there is none, stay no-ops. One copy per program (header-only, like NVTX).
#pragma once

#include "nvtx/nvtx_abi.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>

using nvtxRangeId_t = encore::nvtx::abi::range_id;
using nvtxDomainHandle_t = const encore::nvtx::abi::domain_registration*;
using nvtxStringHandle_t = const encore::nvtx::abi::string_registration*;
// nvtxEventAttributes_t as NVTX declares it for programs (its member names); the injection
// reads it as encore::nvtx::abi::event_attributes, which must have the same layout.
struct nvtxEventAttributes_t {
    std::uint16_t version;
    std::uint16_t size;
    std::uint32_t category;
    std::int32_t colorType;
    std::uint32_t color;
    std::int32_t payloadType;
    std::int32_t reserved0;
    union {
        std::uint64_t ullValue;
        std::int64_t llValue;
        double dValue;
    } payload;
    std::int32_t messageType;
    union {
        const char* ascii;
        const wchar_t* unicode;
        nvtxStringHandle_t registered;
    } message;
};
static_assert(sizeof(nvtxEventAttributes_t) == sizeof(encore::nvtx::abi::event_attributes) &&
              offsetof(nvtxEventAttributes_t, messageType) == offsetof(encore::nvtx::abi::event_attributes, message_type) &&
              offsetof(nvtxEventAttributes_t, message) == offsetof(encore::nvtx::abi::event_attributes, message));
constexpr std::uint16_t NVTX_VERSION = 3;
constexpr std::uint16_t NVTX_EVENT_ATTRIB_STRUCT_SIZE = sizeof(nvtxEventAttributes_t);
constexpr std::int32_t NVTX_MESSAGE_TYPE_ASCII = encore::nvtx::abi::message_ascii;
constexpr std::int32_t NVTX_MESSAGE_TYPE_UNICODE = encore::nvtx::abi::message_unicode;
constexpr std::int32_t NVTX_MESSAGE_TYPE_REGISTERED = encore::nvtx::abi::message_registered;

namespace nvtx_client {
namespace abi = encore::nvtx::abi;

struct slots {
    void (*mark_a)(const char*) = nullptr;
    void (*mark_ex)(const nvtxEventAttributes_t*) = nullptr;
    nvtxRangeId_t (*start_a)(const char*) = nullptr;
    void (*end)(nvtxRangeId_t) = nullptr;
    int (*push_a)(const char*) = nullptr;
    int (*push_w)(const wchar_t*) = nullptr;
    int (*pop)() = nullptr;
    void (*domain_mark_ex)(nvtxDomainHandle_t, const nvtxEventAttributes_t*) = nullptr;
    int (*domain_push_ex)(nvtxDomainHandle_t, const nvtxEventAttributes_t*) = nullptr;
    int (*domain_pop)(nvtxDomainHandle_t) = nullptr;
    nvtxStringHandle_t (*register_string_a)(nvtxDomainHandle_t, const char*) = nullptr;
    nvtxDomainHandle_t (*domain_create_a)(const char*) = nullptr;
};
inline slots g_slots;
// The tables NVTX hands out: pointers to this copy's slots by callback id (0 unused); the
// slots this test has no function for point at a sink.
inline abi::function_pointer g_unused_sink = nullptr;
inline abi::function_pointer* g_core[abi::core_name_os_thread_w + 1];
inline abi::function_pointer* g_core2[abi::core2_initialize + 1];

template <class F>
abi::function_pointer* at(F& slot) {
    return reinterpret_cast<abi::function_pointer*>(&slot);
}

inline int get_module_function_table(abi::module m, abi::function_table* out, unsigned* size) {
    if (m == abi::module_core) {
        *out = g_core;
        *size = std::size(g_core);
        return 1;
    }
    if (m == abi::module_core2) {
        *out = g_core2;
        *size = std::size(g_core2);
        return 1;
    }
    return 0;
}
inline const abi::export_table_callbacks g_callbacks{sizeof(abi::export_table_callbacks), &get_module_function_table};
inline const void* get_export_table(std::uint32_t id) { return id == abi::etid_callbacks ? &g_callbacks : nullptr; }

inline void init_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (auto& p : g_core) p = &g_unused_sink;
        for (auto& p : g_core2) p = &g_unused_sink;
        g_core[0] = g_core2[0] = nullptr;
        g_core[abi::core_mark_a] = at(g_slots.mark_a);
        g_core[abi::core_mark_ex] = at(g_slots.mark_ex);
        g_core[abi::core_range_start_a] = at(g_slots.start_a);
        g_core[abi::core_range_end] = at(g_slots.end);
        g_core[abi::core_range_push_a] = at(g_slots.push_a);
        g_core[abi::core_range_push_w] = at(g_slots.push_w);
        g_core[abi::core_range_pop] = at(g_slots.pop);
        g_core2[abi::core2_domain_mark_ex] = at(g_slots.domain_mark_ex);
        g_core2[abi::core2_domain_range_push_ex] = at(g_slots.domain_push_ex);
        g_core2[abi::core2_domain_range_pop] = at(g_slots.domain_pop);
        g_core2[abi::core2_domain_register_string_a] = at(g_slots.register_string_a);
        g_core2[abi::core2_domain_create_a] = at(g_slots.domain_create_a);
        const char* path = std::getenv("NVTX_INJECTION64_PATH");
        if (path == nullptr) return;
        void* h = dlopen(path, RTLD_LAZY);
        if (h == nullptr) return;
        using init_t = int (*)(abi::get_export_table_t);
        auto init = reinterpret_cast<init_t>(dlsym(h, "InitializeInjectionNvtx2"));
        if (init == nullptr || init(&get_export_table) == 0) g_slots = {};  // failed: all no-ops
    });
}

}  // namespace nvtx_client

// The NVTX functions the test program calls (NVTX's names and signatures).
inline void nvtxMarkA(const char* m) {
    nvtx_client::init_once();
    if (nvtx_client::g_slots.mark_a) nvtx_client::g_slots.mark_a(m);
}
inline void nvtxMarkEx(const nvtxEventAttributes_t* a) {
    nvtx_client::init_once();
    if (nvtx_client::g_slots.mark_ex) nvtx_client::g_slots.mark_ex(a);
}
inline nvtxRangeId_t nvtxRangeStartA(const char* m) {
    nvtx_client::init_once();
    return nvtx_client::g_slots.start_a ? nvtx_client::g_slots.start_a(m) : 0;
}
inline void nvtxRangeEnd(nvtxRangeId_t id) {
    nvtx_client::init_once();
    if (nvtx_client::g_slots.end) nvtx_client::g_slots.end(id);
}
inline int nvtxRangePushA(const char* m) {
    nvtx_client::init_once();
    return nvtx_client::g_slots.push_a ? nvtx_client::g_slots.push_a(m) : -2;
}
inline int nvtxRangePushW(const wchar_t* m) {
    nvtx_client::init_once();
    return nvtx_client::g_slots.push_w ? nvtx_client::g_slots.push_w(m) : -2;
}
inline int nvtxRangePop() {
    nvtx_client::init_once();
    return nvtx_client::g_slots.pop ? nvtx_client::g_slots.pop() : -2;
}
inline nvtxDomainHandle_t nvtxDomainCreateA(const char* name) {
    nvtx_client::init_once();
    return nvtx_client::g_slots.domain_create_a ? nvtx_client::g_slots.domain_create_a(name) : nullptr;
}
inline nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t d, const char* s) {
    nvtx_client::init_once();
    return nvtx_client::g_slots.register_string_a ? nvtx_client::g_slots.register_string_a(d, s) : nullptr;
}
inline int nvtxDomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    nvtx_client::init_once();
    return nvtx_client::g_slots.domain_push_ex ? nvtx_client::g_slots.domain_push_ex(d, a) : -2;
}
inline int nvtxDomainRangePop(nvtxDomainHandle_t d) {
    nvtx_client::init_once();
    return nvtx_client::g_slots.domain_pop ? nvtx_client::g_slots.domain_pop(d) : -2;
}
inline void nvtxDomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    nvtx_client::init_once();
    if (nvtx_client::g_slots.domain_mark_ex) nvtx_client::g_slots.domain_mark_ex(d, a);
}
