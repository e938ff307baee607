// src/nvtx/nvtx.cpp — libencore-nvtx: encore's NVTX injection library. NVTX ranges and marks
// become the MARKER_* records roctx calls make (the reference's payloads and operations): this
// library fills NVTX's slots with functions that call libencore-roctx's traced roctx exports.
//
//   NVTX_INJECTION64_PATH=<libdir>/libencore-nvtx.so.0.1 ./program     (encore-trace --marker-trace)
//
//   nvtxMarkA/W/Ex, nvtxDomainMarkEx             -> roctxMarkA(message)
//   nvtxRangePushA/W/Ex, nvtxDomainRangePushEx   -> roctxRangePushA(message)
//   nvtxRangePop, nvtxDomainRangePop             -> roctxRangePop()
//   nvtxRangeStartA/W/Ex, nvtxDomainRangeStartEx -> roctxRangeStartA(message) (its id is NVTX's)
//   nvtxRangeEnd, nvtxDomainRangeEnd             -> roctxRangeStop(id)
//   nvtxNameOsThreadA/W (the calling thread)     -> roctxNameOsThread(name)
//   nvtxDomainCreateA/W, nvtxDomainRegisterStringA/W, nvtxDomainDestroy, nvtxInitialize: handles
//   and registered strings this library keeps (a registered message is resolved to its text).
// Wide strings are converted to UTF-8. A message NVTX gives no text for (no attributes, an unknown
// message type) is "". Not attached (NVTX makes them no-ops): categories, resources, the CUDA,
// CUDA runtime, OpenCL and sync modules (naming devices, streams, events). The domain is not part
// of the record (roctx has none), and push/pop share one stack per thread across domains, as
// roctx's do.
#include "nvtx_abi.hpp"

#include <roctracer/roctx.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>

namespace encore::nvtx {
namespace {

using abi::event_attributes;

// Registered strings and domains live until the process ends: NVTX hands out their handles
// as plain pointers, which a program may use from any thread at any time (even after
// nvtxDomainDestroy in a racing thread). Never destroyed: NVTX calls may come from other
// libraries' destructors.
struct registry {
    std::mutex m;
    std::deque<std::string> strings;  // deque: elements never move
};
registry& reg() {
    static auto* r = new registry;
    return *r;
}

const char* keep(std::string s) {
    auto& r = reg();
    std::lock_guard lk(r.m);
    return r.strings.emplace_back(std::move(s)).c_str();
}

/// UTF-8 of a wide string (UTF-32 on Linux); invalid code points become U+FFFD.
std::string utf8(const wchar_t* w) {
    std::string out;
    if (w == nullptr) return out;
    for (; *w != 0; ++w) {
        auto c = static_cast<std::uint32_t>(*w);
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
        if (c < 0x80) {
            out += static_cast<char>(c);
        } else if (c < 0x800) {
            out += static_cast<char>(0xC0 | (c >> 6));
            out += static_cast<char>(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out += static_cast<char>(0xE0 | (c >> 12));
            out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (c & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (c >> 18));
            out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (c & 0x3F));
        }
    }
    return out;
}

/// The event's message as text. `scratch` holds a converted wide message.
const char* message_of(const event_attributes* a, std::string& scratch) {
    // Fields past `size` were not written by the caller (an older, shorter struct).
    if (a == nullptr || a->size < offsetof(event_attributes, message) + sizeof(a->message)) return "";
    switch (a->message_type) {
        case abi::message_ascii: return a->message.ascii != nullptr ? a->message.ascii : "";
        case abi::message_unicode: scratch = utf8(a->message.unicode); return scratch.c_str();
        case abi::message_registered:
            // A registered handle is the text this library kept (register_string_*).
            return a->message.registered != nullptr ? reinterpret_cast<const char*>(a->message.registered) : "";
        default: return "";
    }
}

// ---- the functions NVTX's slots get ----------------------------------------------------------
void mark_a(const char* m) { roctxMarkA(m != nullptr ? m : ""); }
void mark_w(const wchar_t* m) { roctxMarkA(utf8(m).c_str()); }
void mark_ex(const event_attributes* a) {
    std::string s;
    roctxMarkA(message_of(a, s));
}
abi::range_id start_a(const char* m) { return roctxRangeStartA(m != nullptr ? m : ""); }
abi::range_id start_w(const wchar_t* m) { return roctxRangeStartA(utf8(m).c_str()); }
abi::range_id start_ex(const event_attributes* a) {
    std::string s;
    return roctxRangeStartA(message_of(a, s));
}
void range_end(abi::range_id id) { roctxRangeStop(id); }
int push_a(const char* m) { return roctxRangePushA(m != nullptr ? m : ""); }
int push_w(const wchar_t* m) { return roctxRangePushA(utf8(m).c_str()); }
int push_ex(const event_attributes* a) {
    std::string s;
    return roctxRangePushA(message_of(a, s));
}
int pop() { return roctxRangePop(); }
// NVTX names any OS thread; roctx only the calling one.
void name_os_thread_a(std::uint32_t tid, const char* name) {
    if (name != nullptr && tid == static_cast<std::uint32_t>(::syscall(SYS_gettid))) roctxNameOsThread(name);
}
void name_os_thread_w(std::uint32_t tid, const wchar_t* name) {
    if (name != nullptr) name_os_thread_a(tid, utf8(name).c_str());
}

void domain_mark_ex(const abi::domain_registration*, const event_attributes* a) { mark_ex(a); }
abi::range_id domain_start_ex(const abi::domain_registration*, const event_attributes* a) { return start_ex(a); }
void domain_end(const abi::domain_registration*, abi::range_id id) { range_end(id); }
int domain_push_ex(const abi::domain_registration*, const event_attributes* a) { return push_ex(a); }
int domain_pop(const abi::domain_registration*) { return pop(); }
// A handle is the kept text itself (message_of reads it back), so no lookup is needed.
const abi::string_registration* register_string_a(const abi::domain_registration*, const char* s) {
    return reinterpret_cast<const abi::string_registration*>(keep(s != nullptr ? s : ""));
}
const abi::string_registration* register_string_w(const abi::domain_registration*, const wchar_t* s) {
    return reinterpret_cast<const abi::string_registration*>(keep(utf8(s)));
}
const abi::domain_registration* domain_create_a(const char* name) {
    return reinterpret_cast<const abi::domain_registration*>(keep(name != nullptr ? name : ""));
}
const abi::domain_registration* domain_create_w(const wchar_t* name) {
    return reinterpret_cast<const abi::domain_registration*>(keep(utf8(name)));
}
void domain_destroy(const abi::domain_registration*) {}  // handles stay valid (see registry)
void initialize(const void*) {}

template <class F>
abi::function_pointer erase(F* f) {
    return reinterpret_cast<abi::function_pointer>(f);
}

struct slot {
    unsigned id;
    abi::function_pointer fn;
};

/// Writes `slots` into module m's table; false if that copy of NVTX has no such module. Only ids
/// below the table's size are written: an older NVTX has fewer slots.
bool attach(const abi::export_table_callbacks& cb, abi::module m, const slot* slots, std::size_t n) {
    abi::function_table table = nullptr;
    unsigned size = 0;
    if (cb.get_module_function_table(m, &table, &size) == 0 || table == nullptr) return false;
    for (std::size_t i = 0; i < n; ++i)
        if (slots[i].id < size && table[slots[i].id] != nullptr) *table[slots[i].id] = slots[i].fn;
    return true;
}

}  // namespace
}  // namespace encore::nvtx

/// NVTX's entry point (NvtxInitializeInjectionNvtxFunc_t), called once by each copy of NVTX in the
/// process: 1 when this library attached to it, 0 (NVTX then makes every call a no-op) when the
/// export table is missing or too old to hold the callbacks table.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    encore::nvtx::abi::get_export_table_t get_export_table) {
    using namespace encore::nvtx;
    if (get_export_table == nullptr) return 0;
    const auto* cb = static_cast<const abi::export_table_callbacks*>(get_export_table(abi::etid_callbacks));
    if (cb == nullptr || cb->struct_size < sizeof(abi::export_table_callbacks) || cb->get_module_function_table == nullptr)
        return 0;
    const slot core[] = {
        {abi::core_mark_ex, erase(&mark_ex)},
        {abi::core_mark_a, erase(&mark_a)},
        {abi::core_mark_w, erase(&mark_w)},
        {abi::core_range_start_ex, erase(&start_ex)},
        {abi::core_range_start_a, erase(&start_a)},
        {abi::core_range_start_w, erase(&start_w)},
        {abi::core_range_end, erase(&range_end)},
        {abi::core_range_push_ex, erase(&push_ex)},
        {abi::core_range_push_a, erase(&push_a)},
        {abi::core_range_push_w, erase(&push_w)},
        {abi::core_range_pop, erase(&pop)},
        {abi::core_name_os_thread_a, erase(&name_os_thread_a)},
        {abi::core_name_os_thread_w, erase(&name_os_thread_w)},
    };
    const slot core2[] = {
        {abi::core2_domain_mark_ex, erase(&domain_mark_ex)},
        {abi::core2_domain_range_start_ex, erase(&domain_start_ex)},
        {abi::core2_domain_range_end, erase(&domain_end)},
        {abi::core2_domain_range_push_ex, erase(&domain_push_ex)},
        {abi::core2_domain_range_pop, erase(&domain_pop)},
        {abi::core2_domain_register_string_a, erase(&register_string_a)},
        {abi::core2_domain_register_string_w, erase(&register_string_w)},
        {abi::core2_domain_create_a, erase(&domain_create_a)},
        {abi::core2_domain_create_w, erase(&domain_create_w)},
        {abi::core2_domain_destroy, erase(&domain_destroy)},
        {abi::core2_initialize, erase(&initialize)},
    };
    const bool attached = attach(*cb, abi::module_core, core, std::size(core));
    // An NVTX from before domains (v1) has no CORE2 module: the core functions still work.
    (void)attach(*cb, abi::module_core2, core2, std::size(core2));
    return attached ? 1 : 0;
}
