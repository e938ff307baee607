// src/cuda/graph_nodes.hpp — the nodes of an instantiated CUDA graph (graph_nodes.cpp): a plan
// made when the exec is instantiated (the program may destroy its graph right after), which
// launches the exec's nodes one by one on the launch's stream while kernel replay is active, so
// that each kernel node is replayed like a plain launch; and its kernel nodes counted (a graph
// entry's dispatch_count in range replay).
#pragma once

#include "calls.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace encore::cuda::graph_nodes {

/// The parameter sizes of `f` (a CUfunction, or a CUkernel cast to one) from the driver
/// (cuFuncGetParamInfo / cuKernelGetParamInfo, CUDA 12.4+); false when it cannot say.
bool param_sizes(CUfunction f, std::vector<std::size_t>& sizes) noexcept;

/// A launch's kernel arguments, copied (range replay's recorded launches, graph plans' kernel
/// nodes): the `extra` form's buffer whole (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE), else each
/// of `params` at a 16-byte-aligned offset of `bytes`, its size from param_sizes.
struct kernel_args {
    std::vector<unsigned char> bytes;
    std::vector<std::size_t> offsets;  // of each parameter in `bytes` (the params form)
    bool extra_form = false;
    std::size_t extra_size = 0;

    /// Points the launch form at `bytes`: after the copy, and again whenever `bytes` may have
    /// moved (the owner was moved). May throw std::bad_alloc.
    void bind() {
        param_ptrs_.clear();
        for (std::size_t off : offsets) param_ptrs_.push_back(bytes.data() + off);
        if (extra_form) {
            extra_ptrs_[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
            extra_ptrs_[1] = bytes.data();
            extra_ptrs_[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
            extra_ptrs_[3] = &extra_size;
            extra_ptrs_[4] = CU_LAUNCH_PARAM_END;
        }
    }
    /// cuLaunchKernel's kernelParams and extra for the copy (one of them null), once bound; void**
    /// as the driver's prototype takes them (it only reads through them).
    void** params() const noexcept { return extra_form ? nullptr : const_cast<void**>(param_ptrs_.data()); }
    void** extra() const noexcept { return extra_form ? const_cast<void**>(extra_ptrs_) : nullptr; }

private:
    std::vector<void*> param_ptrs_;
    void* extra_ptrs_[5]{};
};
/// What copy_args found.
enum class args_copied { ok, unknown_form, unlisted };
/// Copies `params` (or, when it is null, `extra`) of a launch of `f` into `out`: unknown_form when
/// `extra` has entries other than the buffer pair or the sizes are unknown; unlisted when the
/// kernel has parameters and neither is given. May throw std::bad_alloc.
args_copied copy_args(CUfunction f, void** params, void** extra, kernel_args& out);

/// `graph` was instantiated as `exec`: its plan is made (nodes in a dependency order, child
/// graphs inlined, kernel arguments copied), or declined with the reason.
void on_instantiate(CUgraphExec exec, CUgraph graph) noexcept;
/// The exec's kernel nodes, child graphs included; 0 when encore did not see its instantiation or
/// the driver cannot list them.
std::uint64_t kernel_nodes(CUgraphExec exec) noexcept;
/// The exec was (or may have been) changed after instantiation: its plan is declined.
void on_update(CUgraphExec exec) noexcept;
/// The exec is destroyed: its plan is forgotten.
void forget(CUgraphExec exec) noexcept;

/// Why the exec is not launched node by node (a whole sentence), or null when it can be.
const char* declined(CUgraphExec exec) noexcept;

/// A kernel node's launch (the kernel replay entry, replay::launch), its result.
using kernel_launcher = CUresult (*)(const launch_call&);
/// Launches the exec's nodes one by one on `stream` (a per-thread export's stream 0: the thread's
/// default stream), in the plan's order: kernel nodes through `kernel`, memset and memcpy nodes
/// through the driver's async calls. `r`: the first failing result (the rest are not launched),
/// else CUDA_SUCCESS. False (nothing launched) when the exec has no plan or it declined.
bool launch(CUgraphExec exec, CUstream stream, bool per_thread, kernel_launcher kernel, CUresult& r) noexcept;

}  // namespace encore::cuda::graph_nodes
