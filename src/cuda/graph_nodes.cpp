// src/cuda/graph_nodes.cpp — CUDA graphs node by node (graph_nodes.hpp).
//
// At instantiation (cuGraphInstantiateWithFlags / WithParams) the source graph is walked once:
// its nodes (cuGraphGetNodes) in a dependency order (cuGraphGetEdges: a topological order, ties in
// the driver's listing order; a driver without it: the listing order), child graph nodes inlined
// (cuGraphChildGraphNodeGetGraph, 16 levels at most), empty nodes dropped. A kernel node keeps its
// function, grid, block, shared bytes, a copy of its arguments (cuGraphKernelNodeGetParams_v2,
// else v1; sizes from cuFuncGetParamInfo / cuKernelGetParamInfo, or its `extra` buffer) and the
// launch attributes set on it that a launch takes too (cuGraphKernelNodeGetAttribute: cooperative,
// cluster dimensions, priority, ...; launched with cuLaunchKernelEx); a memset
// node its CUDA_MEMSET_NODE_PARAMS, a memcpy node its CUDA_MEMCPY3D. Any other node (host, event
// record and wait, external semaphores, memory allocation and free, batch memory operations,
// conditional) declines the plan with a reason naming it, as do a kernel whose parameter sizes
// the driver does not give, a device-updatable kernel node (the device may change its
// parameters) and any call of the walk that fails. Kernel nodes are counted either
// way (range replay's dispatch_count of a graph entry).
//
// A launch of a planned exec (ops.cpp decides when) runs the nodes one by one on the launch's
// stream, in that order: each kernel node through the launcher it is given (the kernel replay
// entry, so selection, records and passes are those of a plain launch), memsets and copies
// through the driver's async calls (cuMemset*Async, cuMemcpy3DAsync_v2). One stream in a
// dependency order runs what the graph runs, in an order the graph allows.
//
// Not carried: a node's memory synchronization domain map (only the scope of its fences between
// domains; a replayed node runs with the default map).
#include "graph_nodes.hpp"

#include "kernels.hpp"
#include "real.hpp"
#include "tracker.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

namespace encore::cuda::graph_nodes {
namespace {

// The reasons, whole sentences (each said once by the caller).
constexpr const char* not_seen = "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): its exec "
                                 "was instantiated before encore's replay layers were in place";
constexpr const char* updated = "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): the exec "
                                "was changed after instantiation (cuGraphExec*SetParams, cuGraphExecUpdate, "
                                "cuGraphNodeSetEnabled)";
constexpr const char* unlisted = "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): the "
                                 "driver could not list the graph's nodes, edges or node parameters";
constexpr const char* too_deep = "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): child "
                                 "graphs nest more than 16 levels";
constexpr const char* no_memory = "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): host "
                                  "memory for the copies of its nodes' arguments could not be had";
constexpr const char* unknown_kernarg = "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): "
                                        "a kernel node's parameter sizes are not given by the driver "
                                        "(cuFuncGetParamInfo / cuKernelGetParamInfo, CUDA 12.4+) and it has no "
                                        "`extra` buffer";
constexpr const char* other_context = "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): a "
                                      "kernel node runs on another context than the instantiating thread's";
constexpr const char* device_updatable = "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): a "
                                         "kernel node is device-updatable (a kernel may change its parameters)";
constexpr const char* no_launch_ex = "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): a "
                                     "kernel node has launch attributes (cooperative, cluster dimensions, priority, "
                                     "...) and the driver lacks cuLaunchKernelEx";
constexpr const char* no_async = "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): the "
                                 "driver lacks the async memset or copy (cuMemset*Async, cuMemcpy3DAsync_v2) a node "
                                 "needs";

const char* declined_type(CUgraphNodeType t) noexcept {
    switch (static_cast<int>(t)) {
        case CU_GRAPH_NODE_TYPE_HOST:
            return "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): the graph has a host "
                   "node (the program's CPU function, ordered with the GPU work around it)";
        case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
            return "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): the graph has an "
                   "event record or wait node (an order with work outside the graph)";
        case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
        case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
            return "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): the graph has an "
                   "external semaphore node (an order with another API's work)";
        case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        case CU_GRAPH_NODE_TYPE_MEM_FREE:
            return "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): the graph has a memory "
                   "allocation or free node (graph-owned memory, which replay does not cover)";
        case 12:  // CU_GRAPH_NODE_TYPE_BATCH_MEM_OP (CUDA 11.7)
            return "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): the graph has a batch "
                   "memory operation node (waits on and writes to memory values)";
        case 13:  // CU_GRAPH_NODE_TYPE_CONDITIONAL (CUDA 12.3)
            return "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): the graph has a "
                   "conditional node (the device decides what runs)";
        default:
            return "a CUDA graph launch runs whole (its kernel nodes are not kernel-replayed): the graph has a node of "
                   "a type encore does not know";
    }
}

// CUDA_KERNEL_NODE_PARAMS_v2 (CUDA 12.0; v1 is its first ten fields), declared here: CUDA 11.8's
// cuda.h lacks it.
struct kernel_node_params {
    CUfunction func;
    unsigned grid[3];
    unsigned block[3];
    unsigned shared;
    void** kernel_params;
    void** extra;
    void* kern;  // CUkernel, used when func is null
    CUcontext ctx;
};
struct edge_data {  // CUgraphEdgeData (CUDA 12.3)
    unsigned char bytes[8];
};
using param_info_t = CUresult (*)(void* f, std::size_t index, std::size_t* offset, std::size_t* size);

struct graph_driver {
    param_info_t func_param_info = real_fn<param_info_t>("cuFuncGetParamInfo");
    param_info_t kernel_param_info = real_fn<param_info_t>("cuKernelGetParamInfo");
    CUresult (*nodes)(CUgraph, CUgraphNode*, std::size_t*) = real_fn<decltype(nodes)>("cuGraphGetNodes");
    CUresult (*node_type)(CUgraphNode, CUgraphNodeType*) = real_fn<decltype(node_type)>("cuGraphNodeGetType");
    CUresult (*edges_v2)(CUgraph, CUgraphNode*, CUgraphNode*, edge_data*,
                         std::size_t*) = real_fn<decltype(edges_v2)>("cuGraphGetEdges_v2");
    CUresult (*edges)(CUgraph, CUgraphNode*, CUgraphNode*, std::size_t*) = real_fn<decltype(edges)>("cuGraphGetEdges");
    CUresult (*child_graph)(CUgraphNode, CUgraph*) = real_fn<decltype(child_graph)>("cuGraphChildGraphNodeGetGraph");
    CUresult (*kernel_params_v2)(CUgraphNode, kernel_node_params*) = real_fn<decltype(kernel_params_v2)>(
        "cuGraphKernelNodeGetParams_v2");
    CUresult (*kernel_params_v1)(CUgraphNode,
                                 kernel_node_params*) = real_fn<decltype(kernel_params_v1)>("cuGraphKernelNodeGetParams");
    CUresult (*memset_params)(CUgraphNode,
                              CUDA_MEMSET_NODE_PARAMS*) = real_fn<decltype(memset_params)>("cuGraphMemsetNodeGetParams");
    CUresult (*memcpy_params)(CUgraphNode,
                              CUDA_MEMCPY3D*) = real_fn<decltype(memcpy_params)>("cuGraphMemcpyNodeGetParams");
    CUresult (*memset_d8)(CUdeviceptr, unsigned char, std::size_t,
                          CUstream) = real_fn<decltype(memset_d8)>("cuMemsetD8Async");
    CUresult (*memset_d16)(CUdeviceptr, unsigned short, std::size_t,
                           CUstream) = real_fn<decltype(memset_d16)>("cuMemsetD16Async");
    CUresult (*memset_d32)(CUdeviceptr, unsigned, std::size_t,
                           CUstream) = real_fn<decltype(memset_d32)>("cuMemsetD32Async");
    CUresult (*memset_2d8)(CUdeviceptr, std::size_t, unsigned char, std::size_t, std::size_t,
                           CUstream) = real_fn<decltype(memset_2d8)>("cuMemsetD2D8Async");
    CUresult (*memset_2d16)(CUdeviceptr, std::size_t, unsigned short, std::size_t, std::size_t,
                            CUstream) = real_fn<decltype(memset_2d16)>("cuMemsetD2D16Async");
    CUresult (*memset_2d32)(CUdeviceptr, std::size_t, unsigned, std::size_t, std::size_t,
                            CUstream) = real_fn<decltype(memset_2d32)>("cuMemsetD2D32Async");
    CUresult (*copy_3d)(const CUDA_MEMCPY3D*, CUstream) = real_fn<decltype(copy_3d)>("cuMemcpy3DAsync_v2");
    CUresult (*node_attribute)(CUgraphNode, CUkernelNodeAttrID, CUkernelNodeAttrValue*) =
        real_fn<decltype(node_attribute)>("cuGraphKernelNodeGetAttribute");
    CUresult (*launch_ex)(const CUlaunchConfig*, CUfunction, void**,
                          void**) = real_fn<decltype(launch_ex)>("cuLaunchKernelEx");
};
const graph_driver& drv() noexcept {
    static const graph_driver d;
    return d;
}

// ---- the plan ---------------------------------------------------------------------------------
enum class node_kind : unsigned char { kernel, memset, memcpy };
struct node {
    node_kind kind = node_kind::kernel;
    // kernel
    CUfunction f = nullptr;
    unsigned grid[3]{}, block[3]{}, shared = 0;
    kernel_args args;                      // copied at instantiation, bound once the plan is complete
    std::vector<CUlaunchAttribute> attrs;  // set on the node; when any, launched with cuLaunchKernelEx
    // memset, memcpy
    CUDA_MEMSET_NODE_PARAMS fill{};
    CUDA_MEMCPY3D copy{};
};
struct plan {
    std::vector<node> nodes;
    const char* declined = nullptr;  // the first reason
    std::uint64_t kernels = 0;
};

std::mutex g_mutex;
auto* g_plans = new std::unordered_map<CUgraphExec, std::shared_ptr<const plan>>;  // guarded; never destroyed

/// The nodes of `g` in a dependency order (true), or false with `p.declined` set.
bool ordered_nodes(CUgraph g, plan& p, std::vector<CUgraphNode>& out) {
    const auto& d = drv();
    std::size_t n = 0;
    if (d.nodes == nullptr || d.node_type == nullptr || d.nodes(g, nullptr, &n) != CUDA_SUCCESS) {
        p.declined = unlisted;
        return false;
    }
    std::vector<CUgraphNode> listed(n);
    if (n != 0 && d.nodes(g, listed.data(), &n) != CUDA_SUCCESS) {
        p.declined = unlisted;
        return false;
    }
    listed.resize(n);
    std::vector<CUgraphNode> from, to;
    std::size_t e = 0;
    CUresult r = CUDA_SUCCESS;
    if (d.edges_v2 != nullptr) {
        r = d.edges_v2(g, nullptr, nullptr, nullptr, &e);
        if (r == CUDA_SUCCESS && e != 0) {
            from.resize(e), to.resize(e);
            std::vector<edge_data> data(e);
            r = d.edges_v2(g, from.data(), to.data(), data.data(), &e);
        }
    } else if (d.edges != nullptr) {
        r = d.edges(g, nullptr, nullptr, &e);
        if (r == CUDA_SUCCESS && e != 0) {
            from.resize(e), to.resize(e);
            r = d.edges(g, from.data(), to.data(), &e);
        }
    }  // else: the listing order
    if (r != CUDA_SUCCESS) {
        p.declined = unlisted;
        return false;
    }
    e = std::min({e, from.size(), to.size()});
    // Kahn's algorithm, the next node always the first ready one in the listing order.
    std::unordered_map<CUgraphNode, std::size_t> index;
    for (std::size_t i = 0; i < n; ++i) index.emplace(listed[i], i);
    std::vector<std::size_t> waiting(n, 0);
    std::vector<std::vector<std::size_t>> after(n);
    for (std::size_t i = 0; i < e; ++i) {
        const auto a = index.find(from[i]), b = index.find(to[i]);
        if (a == index.end() || b == index.end()) {
            p.declined = unlisted;
            return false;
        }
        after[a->second].push_back(b->second);
        ++waiting[b->second];
    }
    std::set<std::size_t> ready;  // by listing order
    for (std::size_t i = 0; i < n; ++i)
        if (waiting[i] == 0) ready.insert(i);
    out.clear();
    while (!ready.empty()) {
        const std::size_t next = *ready.begin();
        ready.erase(ready.begin());
        out.push_back(listed[next]);
        for (std::size_t b : after[next])
            if (--waiting[b] == 0) ready.insert(b);
    }
    if (out.size() != n) {  // a cycle: not a graph the driver would have instantiated
        p.declined = unlisted;
        return false;
    }
    return true;
}

// The launch attributes (CUlaunchAttributeID) a kernel node can have that a launch takes too:
// access policy window, cooperative, cluster dimensions, cluster scheduling preference, priority,
// memory synchronization domain, preferred cluster dimensions (CUDA 12.8), NVLink-centric
// scheduling (CUDA 13). An attribute never set reads as zeros, its default, but for the cluster
// scheduling preference: a node nothing set reads CU_CLUSTER_SCHEDULING_POLICY_SPREAD (1) on
// driver 580.159.04 (benchmarks/cuda/graph_nodes_check.sh), the policy a launch without the
// attribute gets too, so that value is not carried either. An id the driver does not know is
// refused (11 and 16 there): not set. Not the domain map (9, read as {0, 1}): see the top.
constexpr int carried_attributes[] = {1, 2, 4, 5, 8, 10, 11, 16};
constexpr int cluster_dimension_attribute = 4;
constexpr int cluster_scheduling_attribute = 5;
constexpr int device_updatable_attribute = 13;  // graphs only (CUDA 12.4)

/// Whether `f` was compiled with its cluster size (__cluster_dims__:
/// CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 11, non-zero). Such a size cannot be set at run time, so
/// the node's cluster dimension (the compiled one) is not passed to the launch. False when the
/// driver cannot say (a CUkernel handle, a driver before CUDA 11.8).
bool compiled_cluster(CUfunction f) noexcept {
    return kernels::attribute(f, static_cast<CUfunction_attribute>(11)) > 0;
}

/// Whether the node's attribute `id` is set (its value not what a node nothing set reads), into `out`.
bool node_attribute(CUgraphNode gn, int id, CUlaunchAttributeValue& out) noexcept {
    const auto& d = drv();
    out = {};
    if (d.node_attribute == nullptr || d.node_attribute(gn, static_cast<CUkernelNodeAttrID>(id), &out) != CUDA_SUCCESS)
        return false;
    CUlaunchAttributeValue unset{};
    if (id == cluster_scheduling_attribute)
        unset.clusterSchedulingPolicyPreference = static_cast<CUclusterSchedulingPolicy>(1);
    return std::memcmp(&out, &unset, sizeof out) != 0;
}

/// The node's launch attributes a launch must be given, into `k` (a reason when it cannot be).
const char* keep_attributes(CUgraphNode gn, node& k) {
    CUlaunchAttributeValue v;
    if (node_attribute(gn, device_updatable_attribute, v)) return device_updatable;
    for (const int id : carried_attributes)
        if (node_attribute(gn, id, v) && !(id == cluster_dimension_attribute && compiled_cluster(k.f))) {
            CUlaunchAttribute a{};
            a.id = static_cast<CUlaunchAttributeID>(id);
            a.value = v;
            k.attrs.push_back(a);
        }
    return k.attrs.empty() || drv().launch_ex != nullptr ? nullptr : no_launch_ex;
}

/// A kernel node's launch, copied into `k` (a reason when it cannot be).
const char* keep_kernel(CUgraphNode gn, node& k) {
    const auto& d = drv();
    kernel_node_params kp{};
    if (d.kernel_params_v2 != nullptr) {
        if (d.kernel_params_v2(gn, &kp) != CUDA_SUCCESS) return unlisted;
    } else if (d.kernel_params_v1 == nullptr || d.kernel_params_v1(gn, &kp) != CUDA_SUCCESS) {  // v1: a prefix of v2
        return unlisted;
    }
    k.kind = node_kind::kernel;
    k.f = kp.func != nullptr ? kp.func : reinterpret_cast<CUfunction>(kp.kern);
    if (k.f == nullptr) return unlisted;
    if (kp.func == nullptr && kp.ctx != nullptr && kp.ctx != current_context()) return other_context;
    std::memcpy(k.grid, kp.grid, sizeof k.grid);
    std::memcpy(k.block, kp.block, sizeof k.block);
    k.shared = kp.shared;
    switch (copy_args(k.f, kp.kernel_params, kp.extra, k.args)) {
        case args_copied::ok: return keep_attributes(gn, k);
        case args_copied::unknown_form: return unknown_kernarg;
        case args_copied::unlisted: return unlisted;
    }
    return unlisted;
}

/// Whether the driver has the async memset a memset node needs (by element size; 2-D with rows).
bool can_issue(const CUDA_MEMSET_NODE_PARAMS& m) noexcept {
    const auto& d = drv();
    switch (m.elementSize) {
        case 1: return m.height <= 1 ? d.memset_d8 != nullptr : d.memset_2d8 != nullptr;
        case 2: return m.height <= 1 ? d.memset_d16 != nullptr : d.memset_2d16 != nullptr;
        default: return m.height <= 1 ? d.memset_d32 != nullptr : d.memset_2d32 != nullptr;
    }
}

/// Adds `g`'s nodes to `p` (child graphs inlined); kernel nodes are counted after a decline too.
void walk(CUgraph g, plan& p, int depth) {
    if (depth > 16) {
        if (p.declined == nullptr) p.declined = too_deep;
        return;
    }
    std::vector<CUgraphNode> nodes;
    if (!ordered_nodes(g, p, nodes)) return;
    const auto& d = drv();
    for (CUgraphNode gn : nodes) {
        CUgraphNodeType t{};
        if (d.node_type(gn, &t) != CUDA_SUCCESS) {
            if (p.declined == nullptr) p.declined = unlisted;
            continue;
        }
        const char* why = nullptr;
        switch (t) {
            case CU_GRAPH_NODE_TYPE_EMPTY: break;
            case CU_GRAPH_NODE_TYPE_GRAPH: {
                CUgraph child = nullptr;
                if (d.child_graph == nullptr || d.child_graph(gn, &child) != CUDA_SUCCESS)
                    why = unlisted;
                else
                    walk(child, p, depth + 1);
                break;
            }
            case CU_GRAPH_NODE_TYPE_KERNEL: {
                ++p.kernels;
                if (p.declined != nullptr) break;
                node k;
                why = keep_kernel(gn, k);
                if (why == nullptr) p.nodes.push_back(std::move(k));
                break;
            }
            case CU_GRAPH_NODE_TYPE_MEMSET: {
                if (p.declined != nullptr) break;
                node m;
                m.kind = node_kind::memset;
                if (d.memset_params == nullptr || d.memset_params(gn, &m.fill) != CUDA_SUCCESS)
                    why = unlisted;
                else if (!can_issue(m.fill))
                    why = no_async;
                else
                    p.nodes.push_back(std::move(m));
                break;
            }
            case CU_GRAPH_NODE_TYPE_MEMCPY: {
                if (p.declined != nullptr) break;
                node c;
                c.kind = node_kind::memcpy;
                if (d.memcpy_params == nullptr || d.memcpy_params(gn, &c.copy) != CUDA_SUCCESS)
                    why = unlisted;
                else if (d.copy_3d == nullptr)
                    why = no_async;
                else
                    p.nodes.push_back(std::move(c));
                break;
            }
            default: why = declined_type(t); break;
        }
        if (why != nullptr && p.declined == nullptr) p.declined = why;
    }
}

/// The plan of `graph`, made now.
std::shared_ptr<plan> make_plan(CUgraph graph) noexcept {
    std::shared_ptr<plan> p;
    try {
        p = std::make_shared<plan>();
    } catch (...) {
        return nullptr;
    }
    try {
        walk(graph, *p, 0);
        if (p->declined != nullptr) {
            p->nodes.clear();
            p->nodes.shrink_to_fit();
        }
        for (node& n : p->nodes)  // the nodes stay where they are from here on
            if (n.kind == node_kind::kernel) n.args.bind();
    } catch (...) {
        p->nodes.clear();
        p->declined = no_memory;
    }
    return p;
}

std::shared_ptr<const plan> plan_of(CUgraphExec exec) noexcept {
    std::lock_guard lk(g_mutex);
    const auto it = g_plans->find(exec);
    return it != g_plans->end() ? it->second : nullptr;
}

/// One kernel node's launch on a stream: launch_call's submit.
struct kernel_submit {
    const node* n;
    CUstream stream;  // the work stream
    static CUresult call(const void* self) {
        const auto& k = *static_cast<const kernel_submit*>(self);
        const node& n = *k.n;
        void** params = n.args.params();
        void** extra = n.args.extra();
        if (!n.attrs.empty()) {  // keep_attributes saw cuLaunchKernelEx
            CUlaunchConfig cfg{};
            cfg.gridDimX = n.grid[0], cfg.gridDimY = n.grid[1], cfg.gridDimZ = n.grid[2];
            cfg.blockDimX = n.block[0], cfg.blockDimY = n.block[1], cfg.blockDimZ = n.block[2];
            cfg.sharedMemBytes = n.shared;
            cfg.hStream = k.stream;
            cfg.attrs = const_cast<CUlaunchAttribute*>(n.attrs.data());  // the driver only reads them
            cfg.numAttrs = static_cast<unsigned>(n.attrs.size());
            return drv().launch_ex(&cfg, n.f, params, extra);
        }
        return real().launch_kernel(n.f, n.grid[0], n.grid[1], n.grid[2], n.block[0], n.block[1], n.block[2], n.shared,
                                    k.stream, params, extra);
    }
};

CUresult issue_memset(const CUDA_MEMSET_NODE_PARAMS& m, CUstream s) noexcept {
    const auto& d = drv();
    if (m.height <= 1) {
        switch (m.elementSize) {
            case 1: return d.memset_d8(m.dst, static_cast<unsigned char>(m.value), m.width, s);
            case 2: return d.memset_d16(m.dst, static_cast<unsigned short>(m.value), m.width, s);
            default: return d.memset_d32(m.dst, m.value, m.width, s);
        }
    }
    switch (m.elementSize) {
        case 1: return d.memset_2d8(m.dst, m.pitch, static_cast<unsigned char>(m.value), m.width, m.height, s);
        case 2: return d.memset_2d16(m.dst, m.pitch, static_cast<unsigned short>(m.value), m.width, m.height, s);
        default: return d.memset_2d32(m.dst, m.pitch, m.value, m.width, m.height, s);
    }
}

}  // namespace

bool param_sizes(CUfunction f, std::vector<std::size_t>& sizes) noexcept {
    for (param_info_t fn : {drv().func_param_info, drv().kernel_param_info}) {
        if (fn == nullptr) continue;
        sizes.clear();
        for (std::size_t i = 0;; ++i) {
            std::size_t off = 0, size = 0;
            const CUresult r = fn(reinterpret_cast<void*>(f), i, &off, &size);
            // Past the last parameter the driver says INVALID_VALUE (at 0: a kernel without any);
            // another error: not a handle of this kind (a CUkernel given to cuFuncGetParamInfo).
            if (r == CUDA_ERROR_INVALID_VALUE) return true;
            if (r != CUDA_SUCCESS) break;
            try {
                sizes.push_back(size);
            } catch (...) {
                return false;
            }
        }
    }
    return false;
}

args_copied copy_args(CUfunction f, void** params, void** extra, kernel_args& out) {
    if (params == nullptr && extra != nullptr) {
        const void* buffer = nullptr;
        const std::size_t* size = nullptr;
        for (void** x = extra; *x != CU_LAUNCH_PARAM_END; x += 2) {
            if (x[0] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                buffer = x[1];
            else if (x[0] == CU_LAUNCH_PARAM_BUFFER_SIZE)
                size = static_cast<const std::size_t*>(x[1]);
            else
                return args_copied::unknown_form;
        }
        if (buffer == nullptr || size == nullptr) return args_copied::unknown_form;
        out.bytes.assign(static_cast<const unsigned char*>(buffer), static_cast<const unsigned char*>(buffer) + *size);
        out.extra_form = true;
        out.extra_size = *size;
        return args_copied::ok;
    }
    std::vector<std::size_t> sizes;
    if (!param_sizes(f, sizes)) return args_copied::unknown_form;
    if (!sizes.empty() && params == nullptr) return args_copied::unlisted;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const std::size_t at = (out.bytes.size() + 15) / 16 * 16;
        out.bytes.resize(at + sizes[i]);
        if (sizes[i] != 0) std::memcpy(out.bytes.data() + at, params[i], sizes[i]);
        out.offsets.push_back(at);
    }
    return args_copied::ok;
}

void on_instantiate(CUgraphExec exec, CUgraph graph) noexcept {
    std::shared_ptr<const plan> p = make_plan(graph);  // made now: the program may destroy the graph next
    std::lock_guard lk(g_mutex);
    try {
        if (p)
            (*g_plans)[exec] = std::move(p);
        else
            g_plans->erase(exec);
    } catch (...) {
    }
}

std::uint64_t kernel_nodes(CUgraphExec exec) noexcept {
    const auto p = plan_of(exec);
    return p ? p->kernels : 0;
}

void on_update(CUgraphExec exec) noexcept {
    std::lock_guard lk(g_mutex);
    const auto it = g_plans->find(exec);
    if (it == g_plans->end() || it->second->declined == updated) return;
    try {
        auto p = std::make_shared<plan>();
        p->kernels = it->second->kernels;  // as instantiated (an update may change it: not followed)
        p->declined = updated;
        it->second = std::move(p);
    } catch (...) {
        g_plans->erase(it);  // unknown: declined too
    }
}

void forget(CUgraphExec exec) noexcept {
    std::lock_guard lk(g_mutex);
    g_plans->erase(exec);
}

const char* declined(CUgraphExec exec) noexcept {
    const auto p = plan_of(exec);
    return !p ? not_seen : p->declined;
}

bool launch(CUgraphExec exec, CUstream stream, bool per_thread, kernel_launcher kernel, CUresult& r) noexcept {
    const auto p = plan_of(exec);
    if (!p || p->declined != nullptr) return false;
    const CUstream ws = work_stream(stream, per_thread);
    r = CUDA_SUCCESS;
    for (const node& n : p->nodes) {
        switch (n.kind) {
            case node_kind::kernel: {
                const kernel_submit submit{&n, ws};
                launch_call c{};
                c.f = n.f;
                std::memcpy(c.grid, n.grid, sizeof c.grid);
                std::memcpy(c.block, n.block, sizeof c.block);
                c.shared = n.shared;
                c.stream = stream;
                c.per_thread = per_thread;
                c.submit = thunk{&kernel_submit::call, &submit};
                c.params = n.args.params();
                c.extra = n.args.extra();
                r = kernel(c);
                break;
            }
            case node_kind::memset: {
                tracker::work_hold hold;
                r = issue_memset(n.fill, ws);
                break;
            }
            case node_kind::memcpy: {
                tracker::work_hold hold;
                r = drv().copy_3d(&n.copy, ws);
                break;
            }
        }
        if (r != CUDA_SUCCESS) break;
    }
    return true;
}

}  // namespace encore::cuda::graph_nodes
