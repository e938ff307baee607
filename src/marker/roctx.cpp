// src/marker/roctx.cpp — the roctx functions' own behaviour (what runs with or without a tool).
#include "roctx.hpp"

#include "../core/registration.hpp"
#include "../core/registry.hpp"
#include "../hsa/events.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace encore::roctx {
namespace {

// Open push/pop ranges of this thread. Only the depth is kept: the records carry the messages
// and a tool pairs a pop with its push (the innermost open one). initial-exec: one load from the
// thread pointer instead of a __tls_get_addr call (4 bytes of glibc's static TLS surplus when
// the library is dlopen'ed).
__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;
// Process-wide range ids (roctxRangeStartA); never 0, so 0 can mean "no range".
std::atomic<roctx_range_id_t> g_next_range{1};

std::atomic<bool> g_done{false};
std::mutex g_init_mutex;
thread_local bool t_initializing = false;

[[gnu::constructor]] void declare_kinds() {
    for (kind k : {kind::marker_core_api, kind::marker_control_api, kind::marker_name_api, kind::runtime_initialization})
        core::set_kind_produced(k, true);
}

}  // namespace

void mark(const char*) {}

int range_push(const char*) { return t_depth++; }

int range_pop() {
    if (t_depth == 0) return -1;  // unbalanced: nothing to close
    return --t_depth;
}

roctx_range_id_t range_start(const char*) { return g_next_range.fetch_add(1, std::memory_order_relaxed); }

void range_stop(roctx_range_id_t) {}

int get_thread_id(roctx_thread_id_t* tid) {
    if (tid == nullptr) return -1;
    *tid = static_cast<roctx_thread_id_t>(::syscall(SYS_gettid));
    return 0;
}

int profiler_pause(roctx_thread_id_t) { return 0; }
int profiler_resume(roctx_thread_id_t) { return 0; }

int name_os_thread(const char* name) { return name == nullptr ? -1 : 0; }
int name_hsa_agent(const char* name, const hsa_agent_s*) { return name == nullptr ? -1 : 0; }
int name_hip_device(const char* name, int) { return name == nullptr ? -1 : 0; }
int name_hip_stream(const char* name, const ihipStream_t*) { return name == nullptr ? -1 : 0; }

init_result ensure_initialized() noexcept {
    if (g_done.load(std::memory_order_acquire)) return init_result::done_before;
    if (t_initializing) return init_result::in_progress_here;  // a tool's init calling roctx
    std::lock_guard lk(g_init_mutex);
    if (g_done.load(std::memory_order_relaxed)) return init_result::done_before;
    t_initializing = true;
    const bool fresh = core::init_state() == 0;
    core::initialize();
    t_initializing = false;
    if (core::init_state() != 1) return init_result::in_progress_here;  // inside another runtime's init
    if (auto e = hsa::event::capture(kind::runtime_initialization, ROCPROFILER_RUNTIME_INITIALIZATION_MARKER)) {
        // version: libencore-roctx's own interface version (1); there is no runtime below it.
        rocprofiler_callback_tracing_runtime_initialization_data_t p{sizeof(p), 1, 0};
        e->deliver(ROCPROFILER_CALLBACK_PHASE_NONE, &p);
    }
    g_done.store(true, std::memory_order_release);
    return fresh ? init_result::done_now : init_result::done_before;
}

}  // namespace encore::roctx
