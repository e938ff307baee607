// src/hsa/scratch.cpp — SCRATCH_MEMORY records.
//
// ROCr (ROCm >= 6.2) reports its scratch (private segment) memory management through the tools
// table of its HsaApiTable (`tools_`, after the members the ROCm 5.2 headers know): six slots it
// calls around each operation, START then END, on the thread that does it. The software runtime
// has the same table (docs/sim.md). encore puts its handlers there and calls the slots' previous
// functions after its own, so another tool's handlers keep working:
//   *_START -> ENTER of ALLOC, FREE or ASYNC_RECLAIM, with args.alloc_start (the dispatch id);
//   *_END   -> EXIT of the same operation, same correlation id and user_data, with
//              args.alloc_end (dispatch id, bytes, wave slots) for an allocation.
// The contexts are those subscribed at START. agent_id is the agent the queue was created on
// (encore wraps queue creation to know it; 0 for a queue created before encore loaded);
// queue_id is the queue's hsa_queue_t::id, as in dispatch records.
#include "scratch.hpp"

#include "backend/events.hpp"
#include "backend/slot_hook.hpp"
#include "core/warn.hpp"

#include <encore/tracing/tool.hpp>
#include <rocprofiler-sdk/callback_tracing.h>

#include <cstddef>
#include <mutex>
#include <memory>
#include <optional>
#include <unordered_map>

namespace encore::hsa {
namespace {

using backend::event;

// ROCr's layouts past the ROCm 5.2 headers (hsa_api_trace.h of ROCm >= 6.2): interface facts.
struct tools_table {
    ::ApiTableVersion version;
    hsa_amd_tool_event slots[6];  // alloc start/end, free start/end, async reclaim start/end
};
struct root_with_tools {
    ::HsaApiTable base;
    tools_table* tools_;
};
static_assert(offsetof(root_with_tools, tools_) == sizeof(::HsaApiTable));

tools_table* g_tools = nullptr;
hsa_amd_tool_event g_previous[6] = {};

std::mutex g_mutex;
std::unordered_map<const hsa_queue_t*, std::uint64_t> g_queue_agent;  // guarded by g_mutex
decltype(CoreApiTable::hsa_queue_create_fn) g_next_create = nullptr;
decltype(CoreApiTable::hsa_queue_destroy_fn) g_next_destroy = nullptr;

std::uint64_t agent_of(const hsa_queue_t* q) noexcept {
    std::lock_guard lk(g_mutex);
    const auto it = g_queue_agent.find(q);
    return it != g_queue_agent.end() ? it->second : 0;
}

hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                          void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                          uint32_t private_segment_size, uint32_t group_segment_size, hsa_queue_t** queue) {
    const hsa_status_t s = g_next_create(agent, size, type, callback, data, private_segment_size, group_segment_size,
                                         queue);
    if (s == HSA_STATUS_SUCCESS && queue != nullptr && *queue != nullptr) {
        try {
            std::lock_guard lk(g_mutex);
            g_queue_agent[*queue] = agent.handle;
        } catch (...) {
            // No memory to remember it: its scratch records carry agent 0.
        }
    }
    return s;
}

hsa_status_t queue_destroy(hsa_queue_t* queue) {
    const hsa_status_t s = g_next_destroy(queue);  // its scratch FREE runs inside: still known
    std::lock_guard lk(g_mutex);
    g_queue_agent.erase(queue);
    return s;
}

// The operation of a tool event kind, and whether it starts the operation.
struct event_op {
    rocprofiler_scratch_memory_operation_t op;
    bool start;
};
std::optional<event_op> op_of(hsa_amd_tool_event_kind_t k) noexcept {
    switch (k) {
        case HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_START: return event_op{ROCPROFILER_SCRATCH_MEMORY_ALLOC, true};
        case HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END: return event_op{ROCPROFILER_SCRATCH_MEMORY_ALLOC, false};
        case HSA_AMD_TOOL_EVENT_SCRATCH_FREE_START: return event_op{ROCPROFILER_SCRATCH_MEMORY_FREE, true};
        case HSA_AMD_TOOL_EVENT_SCRATCH_FREE_END: return event_op{ROCPROFILER_SCRATCH_MEMORY_FREE, false};
        case HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_START:
            return event_op{ROCPROFILER_SCRATCH_MEMORY_ASYNC_RECLAIM, true};
        case HSA_AMD_TOOL_EVENT_SCRATCH_ASYNC_RECLAIM_END:
            return event_op{ROCPROFILER_SCRATCH_MEMORY_ASYNC_RECLAIM, false};
        default: return std::nullopt;
    }
}

// An operation between its START and its END on this thread (the runtime does both on one
// thread, one operation of a kind at a time). On the heap: an event is ~1 KiB, and this library
// is loaded with dlopen, where static TLS is scarce.
thread_local event* t_open[ROCPROFILER_SCRATCH_MEMORY_LAST] = {};

hsa_status_t on_event(hsa_amd_tool_event_t e, int slot) {
    if (e.none != nullptr) {
        const hsa_amd_tool_event_kind_t k = e.none->kind;
        if (const auto eo = op_of(k)) {
            // Every scratch event starts with {kind, queue, flags}.
            const auto* common = e.scratch_free_start;
            rocprofiler_callback_tracing_scratch_memory_data_t p{};
            p.size = sizeof(p);
            p.queue_id.handle = common->queue != nullptr ? common->queue->id : 0;
            p.agent_id.handle = agent_of(common->queue);
            p.flags = static_cast<rocprofiler_scratch_alloc_flag_t>(common->flags);
            p.args_kind = k;
            if (k == HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_START)
                p.args.alloc_start.dispatch_id = e.scratch_alloc_start->dispatch_id;
            if (k == HSA_AMD_TOOL_EVENT_SCRATCH_ALLOC_END) {
                p.args.alloc_end.dispatch_id = e.scratch_alloc_end->dispatch_id;
                p.args.alloc_end.size = e.scratch_alloc_end->size;
                p.args.alloc_end.num_slots = e.scratch_alloc_end->num_slots;
            }
            event*& open = t_open[eo->op];
            if (eo->start) {
                delete open;  // a START whose END never came
                open = event::capture_heap(kind::scratch_memory, eo->op).release();
                if (open != nullptr) open->deliver(ROCPROFILER_CALLBACK_PHASE_ENTER, &p);
            } else if (open != nullptr) {
                open->deliver(ROCPROFILER_CALLBACK_PHASE_EXIT, &p);
                delete open;
                open = nullptr;
            }
        }
    }
    const hsa_amd_tool_event next = g_previous[slot];
    return next != nullptr ? next(e) : HSA_STATUS_SUCCESS;
}

template <int Slot>
hsa_status_t handler(hsa_amd_tool_event_t e) {
    return on_event(e, Slot);
}
constexpr hsa_amd_tool_event handlers[6] = {&handler<0>, &handler<1>, &handler<2>,
                                            &handler<3>, &handler<4>, &handler<5>};

}  // namespace

bool install_scratch_tracing(::HsaApiTable& table) noexcept {
    if (!configured_operations(kind::scratch_memory).any()) return false;
    auto& root = reinterpret_cast<root_with_tools&>(table);
    tools_table* t = table.version.minor_id >= sizeof(root_with_tools) ? root.tools_ : nullptr;
    if (t == nullptr || t->version.minor_id < sizeof(tools_table)) {
        core::warn("SCRATCH_MEMORY is configured, but this HSA runtime has no tools table (ROCm >= 6.2 has one): "
                   "no scratch records");
        return false;
    }
    if (backend::has_slot<&CoreApiTable::hsa_queue_create_fn>(table.core_) &&
        backend::has_slot<&CoreApiTable::hsa_queue_destroy_fn>(table.core_)) {
        g_next_create = table.core_->hsa_queue_create_fn;
        g_next_destroy = table.core_->hsa_queue_destroy_fn;
        table.core_->hsa_queue_create_fn = &queue_create;
        table.core_->hsa_queue_destroy_fn = &queue_destroy;
    }
    for (int i = 0; i < 6; ++i) {
        g_previous[i] = t->slots[i];
        t->slots[i] = handlers[i];
    }
    g_tools = t;
    return true;
}

void uninstall_scratch_tracing(::HsaApiTable& table) noexcept {
    if (g_tools != nullptr) {
        for (int i = 0; i < 6; ++i)
            if (g_tools->slots[i] == handlers[i]) g_tools->slots[i] = g_previous[i];
        g_tools = nullptr;
    }
    if (g_next_create != nullptr) {
        backend::unhook<&CoreApiTable::hsa_queue_create_fn>(table.core_, &queue_create, g_next_create);
        backend::unhook<&CoreApiTable::hsa_queue_destroy_fn>(table.core_, &queue_destroy, g_next_destroy);
        g_next_create = nullptr;
        g_next_destroy = nullptr;
    }
}

}  // namespace encore::hsa
