// src/core/registration.cpp — finding tools and running their initialize/finalize.
//
// Discovery order (each configure function is called once, duplicates dropped):
//   1. functions registered with rocprofiler_force_configure / encore::register_tool, in order;
//   2. `rocprofiler_configure` exported by any object already loaded in the process
//      (the executable first, then each library in link-map order);
//   3. libraries listed in ROCP_TOOL_LIBRARIES (':' separated, as the reference splits it: a path
//      may hold spaces), loaded with dlopen.
#include "registration.hpp"

#include "buffer.hpp"
#include "registry.hpp"
#include "replay.hpp"
#include "tool_table.hpp"
#include "warn.hpp"

#include <encore/tracing/tool.hpp>
#include <rocprofiler-sdk/version.h>

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace encore::core {
namespace {

// The tools found, and the lock over all of registration: tool_table.hpp.
std::vector<rocprofiler_configure_func_t> g_forced;  // guarded by g_reg_mutex

// Tools registered from C++ (encore::register_tool): what to call, and the configure result
// whose tool_data points at it. Stored by value in a vector whose capacity never changes, so the
// addresses handed out stay valid.
struct cxx_entry {
    int (*initialize)(void*);
    void (*finalize)(void*);
    void* data;
};
struct cxx_tool {
    const char* name;
    cxx_entry entry;
    rocprofiler_tool_configure_result_t result;
};
constexpr std::size_t max_cxx_tools = 64;
std::vector<cxx_tool>* g_cxx_tools = nullptr;  // guarded by g_reg_mutex; never freed (addresses handed out)
std::atomic<int> g_init_state{0};
std::atomic<int> g_fini_state{0};
bool g_atexit_registered = false;

void add_unique(std::vector<std::pair<rocprofiler_configure_func_t, std::string>>& out, rocprofiler_configure_func_t fn,
                std::string origin) {
    if (fn == nullptr) return;
    for (const auto& [f, o] : out)
        if (f == fn) return;
    out.emplace_back(fn, std::move(origin));
}

int collect_loaded(dl_phdr_info* info, size_t, void* data) {
    auto& out = *static_cast<std::vector<std::string>*>(data);
    out.emplace_back(info->dlpi_name != nullptr ? info->dlpi_name : "");
    return 0;
}

// `rocprofiler_configure` of every object already loaded (the executable first, then each
// library in link-map order).
void add_loaded(std::vector<std::pair<rocprofiler_configure_func_t, std::string>>& found) {
    std::vector<std::string> objects;
    ::dl_iterate_phdr(&collect_loaded, &objects);
    for (const auto& name : objects) {
        // The executable has an empty name; dlopen(nullptr) is its handle.
        void* h = ::dlopen(name.empty() ? nullptr : name.c_str(), RTLD_NOLOAD | RTLD_LAZY);
        if (h == nullptr) continue;
        // dlsym on a handle also searches its dependencies; the dedupe above keeps one entry.
        auto fn = reinterpret_cast<rocprofiler_configure_func_t>(::dlsym(h, "rocprofiler_configure"));
        add_unique(found, fn, name.empty() ? "executable" : name);
        ::dlclose(h);
    }
}

// Whether initializing now would find a tool: what rocprofiler-register checks before loading
// rocprofiler-sdk (a configure symbol, ROCP_TOOL_LIBRARIES set, a forced configure). A library
// listed in ROCP_TOOL_LIBRARIES counts before it is loaded, as there: loading it is initializing.
// What the walk of loaded objects found is left in `loaded` (empty when the walk was not needed),
// so that an initialization that follows under the same lock does not walk again.
bool tool_present(std::vector<std::pair<rocprofiler_configure_func_t, std::string>>& loaded) {
    if (!g_forced.empty() || (g_cxx_tools != nullptr && !g_cxx_tools->empty())) return true;
    if (const char* env = std::getenv("ROCP_TOOL_LIBRARIES"); env != nullptr && *env != '\0') return true;
    add_loaded(loaded);
    return !loaded.empty();
}

// Backends waiting for a tool (initialize_or_defer): run once, right after initialization.
std::vector<void (*)()> g_deferred;  // guarded by g_reg_mutex

// `loaded`: the loaded objects' tools, when tool_present() just walked them under the same lock
// (null: walk now).
std::vector<std::pair<rocprofiler_configure_func_t, std::string>> discover(
    const std::vector<std::pair<rocprofiler_configure_func_t, std::string>>* loaded) {
    std::vector<std::pair<rocprofiler_configure_func_t, std::string>> found;
    for (auto fn : g_forced) add_unique(found, fn, "rocprofiler_force_configure");
    if (loaded != nullptr)
        for (const auto& [fn, origin] : *loaded) add_unique(found, fn, origin);
    else
        add_loaded(found);

    if (const char* env = std::getenv("ROCP_TOOL_LIBRARIES"); env != nullptr) {
        const std::string list = env;
        std::size_t at = 0;
        while (at <= list.size()) {
            const auto end = std::min(list.find(':', at), list.size());
            const std::string path = list.substr(at, end - at);
            at = end + 1;
            if (path.empty()) continue;
            void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
            if (h == nullptr) {
                std::fprintf(stderr, "[encore] cannot load tool library %s: %s\n", path.c_str(), ::dlerror());
                continue;
            }
            auto fn = reinterpret_cast<rocprofiler_configure_func_t>(::dlsym(h, "rocprofiler_configure"));
            if (fn == nullptr)
                std::fprintf(stderr, "[encore] tool library %s does not export rocprofiler_configure\n", path.c_str());
            add_unique(found, fn, path);
        }
    }
    return found;
}

void finalize_tool(tool& t) {
    // Every time, not once: a tool that finalized itself early may have created contexts since
    // (its initialize still had configuration open); none may outlive its finalization.
    invalidate_client_contexts(t.id.handle);
    if (t.finalized) return;
    t.finalized = true;
    if (t.failed || t.result == nullptr || t.result->finalize == nullptr) return;
    try {
        t.result->finalize(t.result->tool_data);
    } catch (...) {
        warn("tool %s (%s) threw %s from its finalize", tool_name(t), t.origin.c_str(), current_exception_text().c_str());
    }
}

// rocprofiler_client_finalize_t handed to initialize: lets a tool finalize itself early.
void client_finalize(rocprofiler_client_id_t id) {
    // Its contexts stop first (finalize_tool would stop them anyway), then its buffers are
    // delivered and closed before its finalize runs: nothing reaches its buffer callbacks after
    // that, whatever other threads still write (no lock held: a buffer callback may itself call
    // into registration).
    invalidate_client_contexts(id.handle);
    close_buffers(id.handle, false);
    std::lock_guard lk(g_reg_mutex);
    for (auto& t : g_tools)
        if (t.id.handle == id.handle) finalize_tool(t);
}

void finalize_at_exit() { finalize(); }

// initialize's work, under g_reg_mutex; `loaded` as discover's.
void initialize_locked(const std::vector<std::pair<rocprofiler_configure_func_t, std::string>>* loaded) noexcept;

}  // namespace

void initialize() noexcept {
    std::vector<void (*)()> deferred;
    {
        std::lock_guard lk(g_reg_mutex);
        if (g_init_state.load(std::memory_order_acquire) != 0) return;  // done, or re-entered from a tool's init
        initialize_locked(nullptr);
        deferred.swap(g_deferred);
    }
    // Backends loaded before any tool install what the tools configured now (outside the lock:
    // installing may deliver records, whose callbacks may call into registration).
    for (auto ready : deferred) ready();
}

void initialize_or_defer(void (*ready)()) noexcept {
    if (ready == nullptr) return;
    std::vector<void (*)()> deferred;
    {
        std::lock_guard lk(g_reg_mutex);
        if (g_init_state.load(std::memory_order_acquire) == 0) {
            bool present = true;  // unsure (out of memory scanning): initialize, as before
            bool walked = false;
            std::vector<std::pair<rocprofiler_configure_func_t, std::string>> loaded;
            try {
                present = tool_present(loaded);
                walked = true;
            } catch (...) {
            }
            if (!present) {
                try {
                    g_deferred.push_back(ready);
                    return;
                } catch (...) {
                    // Cannot wait for a tool: initialize now (configuration locked), as before.
                }
            }
            // Initialized here, under the lock the walk ran under: nothing was loaded in between
            // by a path that takes it, and the walk is not repeated (one dlopen per loaded object).
            initialize_locked(walked && !loaded.empty() ? &loaded : nullptr);
            deferred.swap(g_deferred);
        }
    }
    for (auto other : deferred) other();
    ready();
}

void cancel_deferred(void (*ready)()) noexcept {
    std::lock_guard lk(g_reg_mutex);
    std::erase(g_deferred, ready);
}

namespace {

void initialize_locked(const std::vector<std::pair<rocprofiler_configure_func_t, std::string>>* loaded) noexcept {
    g_init_state.store(-1, std::memory_order_release);

    const auto found = discover(loaded);
    std::uint32_t priority = 0;
    if (g_cxx_tools != nullptr) {
        for (auto& c : *g_cxx_tools) {
            tool t;
            t.origin = "encore::register_tool";
            t.id.size = sizeof(rocprofiler_client_id_t);
            t.id.name = c.name;
            t.id.handle = static_cast<std::uint32_t>(g_tools.size()) + 1;
            t.result = &c.result;
            ++priority;
            g_tools.push_back(t);
        }
    }
    for (const auto& [fn, origin] : found) {
        tool t;
        t.configure = fn;
        t.origin = origin;
        t.id.size = sizeof(rocprofiler_client_id_t);
        t.id.handle = static_cast<std::uint32_t>(g_tools.size()) + 1;  // 0 = "no client"
        try {
            // The reference's arguments: the API level, encoded and as a string (docs/c-api.md#versions).
            t.result = fn(ROCPROFILER_SDK_VERSION, ROCPROFILER_SDK_VERSION_STRING, priority, &t.id);
        } catch (...) {
            warn("tool from %s threw %s from rocprofiler_configure; it is not loaded", origin.c_str(),
                 current_exception_text().c_str());
            continue;
        }
        if (t.result == nullptr) continue;  // the tool declined
        // Size 0: tools written for the reference leave it unset (Mneme's rocr_profile), and the
        // reference reads the struct whole: so does encore, with a note. A size between 1 and the
        // struct's is a struct from some other layout: refused.
        if (t.result->size == 0) {
            std::fprintf(stderr,
                         "[encore] tool from %s returned a configure result with size 0; read as the whole "
                         "struct, as rocprofiler-sdk does (set size = sizeof(rocprofiler_tool_configure_result_t))\n",
                         origin.c_str());
        } else if (t.result->size < sizeof(rocprofiler_tool_configure_result_t) - sizeof(void*)) {
            std::fprintf(stderr, "[encore] tool from %s returned a configure result of unknown size %zu; ignored\n",
                         origin.c_str(), t.result->size);
            continue;
        }
        ++priority;
        g_tools.push_back(t);
    }

    for (auto& t : g_tools) {
        if (t.result->initialize == nullptr) continue;
        set_configuration_open(true, t.id.handle);
        int rc = 0;
        try {
            rc = t.result->initialize(&client_finalize, t.result->tool_data);
        } catch (...) {
            // The tool boundary: the tool is disabled, not the process.
            set_configuration_open(false, 0);
            t.failed = true;
            warn("tool %s (%s) threw %s from its initialize; its contexts are disabled", tool_name(t), t.origin.c_str(),
                 current_exception_text().c_str());
            invalidate_client_contexts(t.id.handle);
            continue;
        }
        set_configuration_open(false, 0);
        // Finalized itself during initialize: what it created after that is disabled too.
        if (t.finalized) invalidate_client_contexts(t.id.handle);
        if (rc != 0) {
            t.failed = true;
            std::fprintf(stderr, "[encore] tool %s (%s) failed to initialize (returned %d); its contexts are disabled\n",
                         t.id.name != nullptr ? t.id.name : "<unnamed>", t.origin.c_str(), rc);
            invalidate_client_contexts(t.id.handle);
        }
    }

    if (!g_atexit_registered) {
        g_atexit_registered = true;
        std::atexit(&finalize_at_exit);
    }
    g_init_state.store(1, std::memory_order_release);
}

}  // namespace

void finalize() noexcept {
    // Everything buffered is delivered before any tool's finalize runs, and nothing after
    // (docs/buffer-tracing.md): every context stops (so threads still running at exit write only
    // what calls already in flight finish), then every buffer is flushed and closed, so that a
    // record written later reaches no tool that may have freed what its callback uses (issue 40
    // item 5: deliveries came during and after the tools' finalize). Outside the lock: a buffer
    // callback may call into registration.
    if (g_fini_state.load(std::memory_order_acquire) == 0) {
        stop_all_contexts();
        close_buffers(0, true);
    }
    std::lock_guard lk(g_reg_mutex);
    if (g_fini_state.load(std::memory_order_acquire) != 0) return;
    g_fini_state.store(-1, std::memory_order_release);
    // Before the tools' finalize, so the warning comes ahead of the tools' reports.
    warn_unproduced_kinds(configured_kinds());
    warn_undelivered_drops();
    for (auto it = g_tools.rbegin(); it != g_tools.rend(); ++it) finalize_tool(*it);
    stop_all_contexts();
    g_fini_state.store(1, std::memory_order_release);
}

int init_state() noexcept { return g_init_state.load(std::memory_order_acquire); }
int fini_state() noexcept { return g_fini_state.load(std::memory_order_acquire); }

// As rocprofiler-sdk does: one forced configure per process, and it initializes now. A tool that
// forces its configuration and then starts its contexts (Kineto's RocprofLogger, before the
// program's first HIP or HSA call) needs its initialize to have run when this returns; encore
// used to wait for the runtime's first call, so the tool started a context it had not made yet.
rocprofiler_status_t force_configure(rocprofiler_configure_func_t fn) noexcept {
    if (fn == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    {
        std::lock_guard lk(g_reg_mutex);
        // Initialized, initializing (a tool's initialize forcing another), or forced before.
        if (g_init_state.load(std::memory_order_acquire) != 0 || !g_forced.empty())
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        g_forced.push_back(fn);
    }
    initialize();  // takes the lock itself; a forced tool's failure is its own, not this call's
    return ROCPROFILER_STATUS_SUCCESS;
}

void reset_registration_for_testing() noexcept {
    std::lock_guard lk(g_reg_mutex);
    g_forced.clear();
    g_deferred.clear();
    if (g_cxx_tools != nullptr) g_cxx_tools->clear();
    g_tools.clear();
    g_init_state.store(0, std::memory_order_release);
    g_fini_state.store(0, std::memory_order_release);
    reset_for_testing();
}

// Here, above everything it resets, rather than in the registry: the registry's reset calling
// up into the buffers and replay made a call cycle (docs/architecture.md).
void reset_for_testing() noexcept {
    stop_all_contexts();
    buffers_reset_for_testing();
    buffer_services_reset_for_testing();
    replay::reset_for_testing();
    reset_registry_for_testing();
}

}  // namespace encore::core

namespace encore {

namespace {
using core::cxx_entry;
// rocprofiler_tool_initialize_t/_finalize_t adapters: tool_data points at the C++ tool's entry.
int cxx_initialize(rocprofiler_client_finalize_t, void* p) {
    auto* e = static_cast<cxx_entry*>(p);
    return e->initialize != nullptr ? e->initialize(e->data) : 0;
}
void cxx_finalize(void* p) {
    auto* e = static_cast<cxx_entry*>(p);
    if (e->finalize != nullptr) e->finalize(e->data);
}
}  // namespace

status register_tool(const char* name, int (*initialize)(void*), void (*finalize)(void*), void* data) noexcept {
    if (initialize == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard lk(core::g_reg_mutex);
    if (core::g_init_state.load(std::memory_order_acquire) != 0) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    try {
        if (core::g_cxx_tools == nullptr) {
            core::g_cxx_tools = new std::vector<core::cxx_tool>();  // lives as long as the process
            core::g_cxx_tools->reserve(core::max_cxx_tools);
        }
        if (core::g_cxx_tools->size() == core::max_cxx_tools) return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
        auto& t = core::g_cxx_tools->emplace_back(core::cxx_tool{name, cxx_entry{initialize, finalize, data}, {}});
        t.result = rocprofiler_tool_configure_result_t{sizeof(rocprofiler_tool_configure_result_t), &cxx_initialize,
                                                       &cxx_finalize, &t.entry};
    } catch (...) {
        return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    return ROCPROFILER_STATUS_SUCCESS;
}

void initialize() noexcept { core::initialize(); }

}  // namespace encore
