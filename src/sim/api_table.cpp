// The API table every exported entry point calls through (exports.cpp): each slot starts as a
// stub, then each part of the runtime installs its functions; tools may replace slots.
#include "sim_internal.hpp"
#include "slots.inc"

#include <type_traits>

namespace encore::sim {

namespace {

template <typename F>
struct Stub;
template <typename R, typename... A>
struct Stub<R (*)(A...)> {
    static R fn(A...) {
        if constexpr (std::is_same_v<R, hsa_status_t>) {
            return initialized() ? HSA_STATUS_ERROR : HSA_STATUS_ERROR_NOT_INITIALIZED;
        } else if constexpr (!std::is_void_v<R>) {
            return R{};
        }
    }
};

hsa_status_t no_tool_event(hsa_amd_tool_event_t) { return HSA_STATUS_SUCCESS; }

struct TableHolder {
    HsaApiTableContainer c;
    ApiRoot root{};
    ToolsApiTable tools{};
    TableHolder() { reset(); }
    void reset() {
        reset_tables();
        root.base = c.root;
        root.base.version.minor_id = sizeof(ApiRoot);
        root.tools_ = &tools;
        root.pc_sampling_ext_ = nullptr;
        tools.version = {1, sizeof(ToolsApiTable), 0, 0};
        tools.hsa_amd_tool_scratch_event_alloc_start_fn = &no_tool_event;
        tools.hsa_amd_tool_scratch_event_alloc_end_fn = &no_tool_event;
        tools.hsa_amd_tool_scratch_event_free_start_fn = &no_tool_event;
        tools.hsa_amd_tool_scratch_event_free_end_fn = &no_tool_event;
        tools.hsa_amd_tool_scratch_event_async_reclaim_start_fn = &no_tool_event;
        tools.hsa_amd_tool_scratch_event_async_reclaim_end_fn = &no_tool_event;
    }
    void reset_tables() {
        HsaApiTableContainer fresh;
        c.root.version = fresh.root.version;
        c.core.version = fresh.core.version;
        c.amd_ext.version = fresh.amd_ext.version;
        c.finalizer_ext.version = fresh.finalizer_ext.version;
        c.image_ext.version = fresh.image_ext.version;
        c.root.core_ = &c.core;
        c.root.amd_ext_ = &c.amd_ext;
        c.root.finalizer_ext_ = &c.finalizer_ext;
        c.root.image_ext_ = &c.image_ext;
        HsaApiTable& t = c.root;
#define SIM_FILL_STUB(member, Type, name) t.member->name##_fn = &Stub<decltype(Type::name##_fn)>::fn;
        ENCORE_SIM_API_SLOTS(SIM_FILL_STUB)
#undef SIM_FILL_STUB
        install_init(t);
        install_system_info(t);
        install_agent_info(t);
        install_isa(t);
        install_status_strings(t);
        install_signals(t);
        install_memory(t);
        install_queues(t);
        install_loader(t);
    }
};

TableHolder& holder() {
    static TableHolder h;
    return h;
}

}  // namespace

std::vector<const char*> unimplemented_slots() {
    std::vector<const char*> out;
    TableHolder fresh;
    HsaApiTable& t = fresh.c.root;
#define SIM_CHECK_STUB(member, Type, name) \
    if (t.member->name##_fn == &Stub<decltype(Type::name##_fn)>::fn) out.push_back(#name);
    ENCORE_SIM_API_SLOTS(SIM_CHECK_STUB)
#undef SIM_CHECK_STUB
    return out;
}

// The root handed to tools and read by every export: the extended one (its sub-table pointers
// are c's).
HsaApiTable& api_table() { return holder().root.base; }
ToolsApiTable& tools_table() { return holder().tools; }
HsaApiTableContainer& api_table_container() { return holder().c; }
void api_table_reset() { holder().reset(); }

}  // namespace encore::sim
