// The runtime's entry: the API table every exported function calls through (exports.cpp), and
// hsa_init and hsa_shut_down (reference counted) with the tool libraries of HSA_TOOLS_LIB:
// loaded (OnLoad) at the first hsa_init, unloaded (OnUnload) at the last hsa_shut_down.
//
// The table: each slot starts as a stub, then each part of the runtime installs its functions;
// tools may replace slots. One file with hsa_init and hsa_shut_down because hsa_shut_down is
// itself a slot of the table it resets: filling the table installs it, and it refills the table
// (in two files, they called each other: docs/architecture.md, no call cycles).
#include "sim_internal.hpp"
#include "slots.inc"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
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

struct TableHolder {
    HsaApiTableContainer c;
    ApiRoot root{};
    TableHolder() { reset(); }
    void reset() {
        reset_tables();
        root.base = c.root;
        root.base.version.minor_id = sizeof(ApiRoot);
        root.tools_ = &tools_table();
        root.pc_sampling_ext_ = nullptr;
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
HsaApiTableContainer& api_table_container() { return holder().c; }
void api_table_reset() {
    holder().reset();
    tools_table_reset();
}

// ---- hsa_init, hsa_shut_down, the tool libraries --------------------------------------------


namespace {

auto& g_init_mu = leaky<std::recursive_mutex>();
int g_refcount = 0;
struct Tool {
    std::string path;
    void* handle;
};
auto& g_tools = leaky<std::vector<Tool>>();

// HSA_TOOLS_LIB as ROCr reads it: names separated by spaces (not ':', tabs or newlines); a
// backslash makes the next character literal; "..." quotes a name with spaces and ends it.
// Unlike ROCr (which loops forever there), a trailing lone backslash is dropped; empty names
// are skipped.
std::vector<std::string> split_tools(const char* env) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    auto flush = [&] {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
    };
    for (const char* p = env; *p != '\0'; ++p) {
        if (*p == '\\') {
            if (p[1] != '\0') cur += *++p;
        } else if (*p == '"') {
            if (quoted) flush();
            quoted = !quoted;
        } else if (*p == ' ' && !quoted) {
            flush();
        } else {
            cur += *p;
        }
    }
    flush();
    return out;
}

void load_tools() {
    const char* env = getenv("HSA_TOOLS_LIB");
    if (!env || !*env) return;
    std::vector<std::string> failed;
    for (const std::string& lib : split_tools(env)) {
        void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char* err = dlerror();
            report("failed to load tool library %s: %s", lib.c_str(), err ? err : "unknown error");
            failed.push_back(lib);
            continue;
        }
        using OnLoadFn = bool (*)(HsaApiTable*, uint64_t, uint64_t, const char* const*);
        auto on_load = reinterpret_cast<OnLoadFn>(dlsym(h, "OnLoad"));
        if (on_load) {
            std::vector<const char*> names;
            for (auto& f : failed) names.push_back(f.c_str());
            names.push_back(nullptr);
            auto& c = api_table_container();
            const CoreApiTable core = c.core;
            const AmdExtTable amd = c.amd_ext;
            const FinalizerExtTable fin = c.finalizer_ext;
            const ImageExtTable img = c.image_ext;
            const ToolsApiTable tools = tools_table();
            if (!on_load(&api_table(), 1, failed.size(), names.data())) {
                // As ROCr: the tool is counted as failed and closed without calling its OnUnload.
                // Unlike ROCr, slots it replaced are restored (they would point into unmapped code).
                report("tool library %s: OnLoad returned false; unloading it", lib.c_str());
                c.core = core;
                c.amd_ext = amd;
                c.finalizer_ext = fin;
                c.image_ext = img;
                tools_table() = tools;
                dlclose(h);
                failed.push_back(lib);
                continue;
            }
        }
        g_tools.push_back({lib, h});
    }
}

void unload_tools() {
    using OnUnloadFn = void (*)();
    for (auto it = g_tools.rbegin(); it != g_tools.rend(); ++it)
        if (auto un = reinterpret_cast<OnUnloadFn>(dlsym(it->handle, "OnUnload"))) un();
    for (auto it = g_tools.rbegin(); it != g_tools.rend(); ++it) dlclose(it->handle);
    g_tools.clear();
}

hsa_status_t impl_init() {
    std::lock_guard<std::recursive_mutex> lk(g_init_mu);
    if (g_refcount == INT_MAX) return HSA_STATUS_ERROR_REFCOUNT_OVERFLOW;
    if (g_refcount++ > 0) return HSA_STATUS_SUCCESS;
    create_agents();
    signals_startup();
    g_initialized.store(true, std::memory_order_release);
    load_tools();  // tools may call back into the (initialized) runtime
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_shut_down() {
    std::lock_guard<std::recursive_mutex> lk(g_init_mu);
    if (g_refcount == 0) return HSA_STATUS_ERROR_NOT_INITIALIZED;
    if (g_refcount > 1) {
        --g_refcount;
        return HSA_STATUS_SUCCESS;
    }
    unload_tools();  // OnUnload may still call the runtime
    g_refcount = 0;
    g_initialized.store(false, std::memory_order_release);
    queues_shutdown();
    copies_shutdown();
    signals_shutdown();
    loader_shutdown();
    memory_shutdown();
    destroy_agents();
    api_table_reset();  // tools' replacements die with them
    return HSA_STATUS_SUCCESS;
}

}  // namespace

void install_init(HsaApiTable& t) {
    CoreApiTable& c = *t.core_;
    c.hsa_init_fn = impl_init;
    c.hsa_shut_down_fn = impl_shut_down;
}

}  // namespace encore::sim
