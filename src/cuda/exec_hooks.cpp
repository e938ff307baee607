// src/cuda/exec_hooks.cpp — exports that change a graph exec, without a typed wrapper.
//
// An exec changed after instantiation must have its plan declined (graph_nodes::on_update), or
// kernel replay would launch its nodes as they were instantiated: another kernel, or the old
// arguments. The typed graph_update ops do that in their role layer (ops.hpp). Two kinds of
// export make the same change without a typed wrapper: the v1 ABIs that programs built with CUDA
// 11 call (forward_exports.inc; CUDA 12's cuda.h maps both names to _v2), and the graph_update ops
// this build's cuda.h lacks (api::unavailable: a build against CUDA 11.8's header). Their jumps go
// through a hook instead, which declines the plan (whatever the call's result, as the role layer
// does) and then calls the driver. It does not trace the call: these have no op id.
#include "exec_hooks.hpp"

#include "graph_nodes.hpp"
#include "real.hpp"
#include "roles.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

namespace encore::cuda::exec_hooks {
namespace {

constexpr std::string_view v1_exec_changes[] = {"cuGraphExecUpdate", "cuGraphExecKernelNodeSetParams"};
constexpr std::size_t graph_update_ops = [] {
    std::size_t n = 0;
    for (const auto& r : roles) n += r.role == role::graph_update ? 1 : 0;
    return n;
}();
constexpr std::size_t slots = graph_update_ops + std::size(v1_exec_changes);  // one hook each at most

// The driver's function each hook calls; written at load only (bind).
std::array<void*, slots> g_real{};
std::size_t g_hooks = 0;

// Every export hooked here takes the exec first and at most six integer or pointer arguments in
// all (cuGraphExecUpdate v1 has the most: exec, graph, error node, result), so passing six
// registers on reaches the driver exactly as the program called it.
using six_args = CUresult (*)(std::uintptr_t, std::uintptr_t, std::uintptr_t, std::uintptr_t, std::uintptr_t,
                              std::uintptr_t);
template <std::size_t K>
CUresult hook(std::uintptr_t exec, std::uintptr_t a1, std::uintptr_t a2, std::uintptr_t a3, std::uintptr_t a4,
              std::uintptr_t a5) {
    graph_nodes::on_update(reinterpret_cast<CUgraphExec>(exec));
    six_args f = nullptr;
    std::memcpy(&f, &g_real[K], sizeof(f));
    return f(exec, a1, a2, a3, a4, a5);
}
constexpr auto g_hook_fns = []<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<six_args, sizeof...(K)>{&hook<K>...};
}
(std::make_index_sequence<slots>{});

// The slot's jump goes to a new hook, which calls what the slot held.
void take(void** slot) noexcept {
    if (slot == nullptr) return;  // not a trampoline here, or the driver lacks it
    // Within the slots: bind() takes each export once.
    if (void* real = hook_slot(slot, reinterpret_cast<void*>(g_hook_fns[g_hooks])); real != nullptr)
        g_real[g_hooks++] = real;
}

}  // namespace

void bind() noexcept {
    for (const std::string_view n : v1_exec_changes) take(forward_slot(n));
    for (std::size_t i = 0; i < roles.size(); ++i)
        if (roles[i].role == role::graph_update) take(unavailable_slot(i));
}

}  // namespace encore::cuda::exec_hooks
