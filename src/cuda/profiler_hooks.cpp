// src/cuda/profiler_hooks.cpp — cuProfilerStart / cuProfilerStop as roctx's profiler control.
//
// CUDA programs mark the part of a run worth profiling with the driver's profiler API
// (cudaProfilerStart/Stop, torch.cuda.profiler.start/stop; Nsight Systems' capture range), where
// AMD's mark it with roctxProfilerResume/Pause (rocprofv3's --selected-regions). These exports
// have no prototype in cuda.h (cudaProfiler.h declares them), so they are forwarded untraced
// (forward_exports.inc). With ENCORE_CUDA_PROFILER_CONTROL=roctx (encore-trace sets it for
// --selected-regions) their jumps go through a hook that calls the driver, then libencore-roctx's
// roctxProfilerResume(0) after a start and roctxProfilerPause(0) after a stop: tools see them as
// MARKER_CONTROL_API calls, as libencore-nvtx makes NVTX ranges roctx's. The region follows what
// the program asked for whatever the driver answered (a stop refused for want of a context still
// ends it), and the driver's result is returned unchanged.
#include "profiler_hooks.hpp"

#include "core/warn.hpp"
#include "real.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace encore::cuda::profiler_hooks {
namespace {

using profiler_fn = CUresult (*)();         // cuProfilerStart, cuProfilerStop
using control_fn = int (*)(std::uint64_t);  // roctxProfilerResume, roctxProfilerPause

// Written at load only (bind).
void* g_real[2] = {nullptr, nullptr};          // the driver's start, stop
control_fn g_control[2] = {nullptr, nullptr};  // roctx's resume, pause

template <int K>
CUresult hook() {
    profiler_fn f = nullptr;
    std::memcpy(&f, &g_real[K], sizeof(f));
    const CUresult r = f();
    (void)g_control[K](0);
    return r;
}
constexpr profiler_fn g_hooks[2] = {&hook<0>, &hook<1>};

}  // namespace

void bind() noexcept {
    const char* v = std::getenv("ENCORE_CUDA_PROFILER_CONTROL");
    if (v == nullptr || *v == '\0') return;
    if (std::string_view(v) != "roctx") {
        core::warn("ENCORE_CUDA_PROFILER_CONTROL=%s: unknown (roctx is the one); cuProfilerStart/Stop forwarded as is",
                   v);
        return;
    }
    void* resume = ::dlsym(RTLD_DEFAULT, "roctxProfilerResume");
    void* pause = ::dlsym(RTLD_DEFAULT, "roctxProfilerPause");
    if (resume == nullptr || pause == nullptr) {
        core::warn("ENCORE_CUDA_PROFILER_CONTROL=roctx: no roctx in the process (preload libencore-roctx); "
                   "cuProfilerStart/Stop forwarded as is");
        return;
    }
    std::memcpy(&g_control[0], &resume, sizeof(resume));
    std::memcpy(&g_control[1], &pause, sizeof(pause));
    const std::string_view names[2] = {"cuProfilerStart", "cuProfilerStop"};
    for (int k = 0; k < 2; ++k) {
        void** slot = forward_slot(names[k]);
        if (slot == nullptr) continue;  // the driver lacks it: calls fail as before
        g_real[k] = hook_slot(slot, reinterpret_cast<void*>(g_hooks[k]));
    }
}

}  // namespace encore::cuda::profiler_hooks
