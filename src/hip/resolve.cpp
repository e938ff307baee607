// src/hip/resolve.cpp — finding the real HIP runtime's functions, and encore's initialization as
// seen from HIP (see interposer.hpp).
#include "interposer.hpp"

#include "core/registration.hpp"
#include "core/registry.hpp"

#include <encore/tracing/tool.hpp>

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace encore::hip {
namespace {

// Where originals come from, decided once:
//   ENCORE_HIP_LIBRARY=path  that library (a test's stand-in runtime, another HIP build);
//   otherwise the next definition after libencore-hip in the process's search order
//   (RTLD_NEXT: libamdhip64 when encore is preloaded or linked ahead of it);
//   otherwise libamdhip64.so.5, loaded now (a program linked against libencore-hip only).
struct library {
    void* explicit_handle = nullptr;  // ENCORE_HIP_LIBRARY
    void* fallback = nullptr;         // libamdhip64.so.5 loaded by us
    bool use_explicit = false;
};

library& lib() {
    static library l = [] {
        library out;
        if (const char* path = std::getenv("ENCORE_HIP_LIBRARY"); path != nullptr && *path != '\0') {
            out.use_explicit = true;
            out.explicit_handle = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (out.explicit_handle == nullptr)
                std::fprintf(stderr, "[encore] libencore-hip: cannot load ENCORE_HIP_LIBRARY=%s: %s\n", path,
                             ::dlerror());
        }
        return out;
    }();
    return l;
}

std::mutex g_fallback_mutex;

derived_kinds g_derived;  // written once by on_configured, before initialization is published (release)

void deliver_runtime_initialization() noexcept {
    // The runtime's own version number (HIP_VERSION encoding, e.g. 50221153 for 5.2.21153),
    // asked through the original so the call is not traced.
    backend::deliver_runtime_initialization(ROCPROFILER_RUNTIME_INITIALIZATION_HIP, [] {
        int version = 0;
        if (void* p = find_original("hipRuntimeGetVersion")) {
            hipError_t (*get)(int*) = nullptr;
            std::memcpy(&get, &p, sizeof(get));
            if (get(&version) != hipSuccess) version = 0;
        }
        return static_cast<std::uint64_t>(version);
    });
}

// The kinds this library produces, declared when it is loaded (before any tool configures).
[[gnu::constructor]] void declare_kinds() { core::add_producer(tracing::produced_by::hip); }

}  // namespace

void* find_original(const char* name) noexcept {
    library& l = lib();
    if (l.use_explicit) return l.explicit_handle != nullptr ? ::dlsym(l.explicit_handle, name) : nullptr;
    if (void* p = ::dlsym(RTLD_NEXT, name)) return p;
    std::lock_guard lk(g_fallback_mutex);
    if (l.fallback == nullptr) l.fallback = ::dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
    return l.fallback != nullptr ? ::dlsym(l.fallback, name) : nullptr;
}

void on_configured() noexcept {
    g_derived.stream = configured_operations(kind::hip_stream).any();
    g_derived.event = configured_operations(kind::hip_event).any();
    g_derived.graph = configured_operations(kind::hip_graph).any();
    deliver_runtime_initialization();
}

const derived_kinds& configured_derived() noexcept { return g_derived; }

}  // namespace encore::hip
