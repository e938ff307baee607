// test/ompt/check_tool.cpp — an encore tool (rocprofiler_configure) that traces every OMPT
// operation and checks each record as it comes: ENTER and EXIT paired (same internal
// correlation id, the user_data ENTER set, the same thread and operation), the thread id the
// calling thread's, the arguments named as OpenMP names the callbacks' parameters and found
// in the payload's union member of the operation. Writes its counts per operation and phase,
// and what went wrong, to $ENCORE_OMPT_TRACE_OUT at encore's finalization, with count_tool.c's
// counts of the same moment in $ENCORE_OMPT_COUNT_SNAPSHOT (check_ompt.py compares them).
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int n_ops = ROCPROFILER_OMPT_ID_LAST;
std::atomic<long> g_counts[n_ops][3];  // NONE, ENTER, EXIT
std::atomic<long> g_errors{0};
std::atomic<std::uint64_t> g_seq{1};
std::mutex g_mutex;
struct open_rec {
    std::uint64_t seq, tid;
    int op;
};
std::unordered_map<std::uint64_t, open_rec>* g_open = new std::unordered_map<std::uint64_t, open_rec>;
std::vector<std::string>* g_problems = new std::vector<std::string>;
std::array<std::atomic<bool>, n_ops> g_names_checked{};
rocprofiler_context_id_t g_ctx{};

void problem(const std::string& what) {
    g_errors.fetch_add(1);
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_problems->size() < 20) g_problems->push_back(what);
}

// The OpenMP specification's parameter names, per operation (api_id.h order).
const std::vector<std::vector<const char*>> expected_names = {
    {"thread_type", "thread_data"},
    {"thread_data"},
    {"encountering_task_data", "encountering_task_frame", "parallel_data", "requested_parallelism", "flags", "codeptr_ra"},
    {"parallel_data", "encountering_task_data", "flags", "codeptr_ra"},
    {"encountering_task_data", "encountering_task_frame", "new_task_data", "flags", "has_dependences", "codeptr_ra"},
    {"prior_task_data", "prior_task_status", "next_task_data"},
    {"endpoint", "parallel_data", "task_data", "actual_parallelism", "index", "flags"},
    {"device_num", "type", "device", "lookup", "documentation"},
    {"device_num"},
    {"device_num", "filename", "offset_in_file", "vma_in_file", "bytes", "host_addr", "device_addr", "module_id"},
    {"kind", "endpoint", "parallel_data", "task_data", "codeptr_ra"},
    {"kind", "wait_id", "codeptr_ra"},
    {"task_data", "deps", "ndeps"},
    {"src_task_data", "sink_task_data"},
    {"work_type", "endpoint", "parallel_data", "task_data", "count", "codeptr_ra"},
    {"endpoint", "parallel_data", "task_data", "codeptr_ra"},
    {"kind", "endpoint", "parallel_data", "task_data", "codeptr_ra"},
    {"kind", "hint", "impl", "wait_id", "codeptr_ra"},
    {"kind", "wait_id", "codeptr_ra"},
    {"kind", "hint", "impl", "wait_id", "codeptr_ra"},
    {"kind", "wait_id", "codeptr_ra"},
    {"endpoint", "wait_id", "codeptr_ra"},
    {"thread_data", "codeptr_ra"},
    {"task_data", "flags", "codeptr_ra"},
    {"kind", "endpoint", "parallel_data", "task_data", "codeptr_ra"},
    {"parallel_data", "task_data", "kind", "instance"},
    {"kind", "endpoint", "device_num", "task_data", "target_task_data", "target_data", "codeptr_ra"},
    {"endpoint", "target_task_data", "target_data", "host_op_id", "optype", "src_address", "src_device_num",
     "dst_address", "dst_device_num", "bytes", "codeptr_ra"},
    {"endpoint", "target_data", "host_op_id", "requested_num_teams"},
    {"severity", "message", "length", "codeptr_ra"},
    {"callback_functions"},
};

struct arg_seen {
    std::vector<std::string> names;
    std::vector<const void*> addresses;
};

int collect(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const addr,
            int32_t, const char*, const char* name, const char*, int32_t, void* data) {
    auto* s = static_cast<arg_seen*>(data);
    s->names.emplace_back(name);
    s->addresses.push_back(addr);
    return 0;
}

// Where the union member's first and (for a few) other fields are: iteration must point there.
const void* member_address(const rocprofiler_callback_tracing_ompt_data_t* p, int op, std::size_t arg) {
    const auto& a = p->args;
    switch (op) {
        case ROCPROFILER_OMPT_ID_thread_begin:
            return arg == 0 ? static_cast<const void*>(&a.thread_begin.thread_type)
                            : static_cast<const void*>(&a.thread_begin.thread_data);
        case ROCPROFILER_OMPT_ID_parallel_begin:
            return arg == 3 ? static_cast<const void*>(&a.parallel_begin.requested_parallelism) : nullptr;
        case ROCPROFILER_OMPT_ID_task_create: return arg == 3 ? &a.task_create.flags : nullptr;
        case ROCPROFILER_OMPT_ID_implicit_task: return arg == 4 ? &a.implicit_task.index : nullptr;
        case ROCPROFILER_OMPT_ID_work: return arg == 4 ? static_cast<const void*>(&a.work.count) : nullptr;
        case ROCPROFILER_OMPT_ID_sync_region: return arg == 0 ? &a.sync_region.kind : nullptr;
        case ROCPROFILER_OMPT_ID_mutex_acquire: return arg == 3 ? &a.mutex_acquire.wait_id : nullptr;
        case ROCPROFILER_OMPT_ID_dispatch: return arg == 3 ? &a.dispatch.instance : nullptr;
        default: return nullptr;
    }
}

void check_args(const rocprofiler_callback_tracing_record_t& r) {
    const int op = static_cast<int>(r.operation);
    if (g_names_checked[static_cast<std::size_t>(op)].exchange(true)) return;
    arg_seen seen;
    const auto st = rocprofiler_iterate_callback_tracing_kind_operation_args(r, &collect, 1, &seen);
    if (st != ROCPROFILER_STATUS_SUCCESS) return problem("argument iteration failed for op " + std::to_string(op));
    const auto& want = expected_names[static_cast<std::size_t>(op)];
    if (seen.names.size() != want.size()) return problem("op " + std::to_string(op) + ": argument count");
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (seen.names[i] != want[i]) problem("op " + std::to_string(op) + ": argument " + seen.names[i]);
        const void* m = member_address(static_cast<const rocprofiler_callback_tracing_ompt_data_t*>(r.payload), op, i);
        if (m != nullptr && m != seen.addresses[i])
            problem("op " + std::to_string(op) + ": argument " + want[i] + " is not the union member's field");
    }
}

void on_record(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* user_data, void*) {
    if (r.kind != ROCPROFILER_CALLBACK_TRACING_OMPT || r.operation < 0 || r.operation >= n_ops)
        return problem("record of another kind or operation");
    const int op = static_cast<int>(r.operation);
    const auto* p = static_cast<const rocprofiler_callback_tracing_ompt_data_t*>(r.payload);
    if (p == nullptr || p->size != sizeof(*p)) return problem("payload size");
    const auto tid = static_cast<std::uint64_t>(::syscall(SYS_gettid));
    if (r.thread_id != tid) problem("thread id");
    if (r.correlation_id.internal == 0) problem("no internal correlation id");
    const int slot = r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER  ? 1
                     : r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT ? 2
                                                                  : 0;
    g_counts[op][slot].fetch_add(1, std::memory_order_relaxed);
    check_args(r);
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        user_data->value = g_seq.fetch_add(1);
        std::lock_guard<std::mutex> lock(g_mutex);
        if (!g_open->emplace(r.correlation_id.internal, open_rec{user_data->value, tid, op}).second)
            g_problems->push_back("internal correlation id reused"), g_errors.fetch_add(1);
    } else if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        std::lock_guard<std::mutex> lock(g_mutex);
        auto it = g_open->find(r.correlation_id.internal);
        if (it == g_open->end() || it->second.seq != user_data->value || it->second.tid != tid || it->second.op != op) {
            g_errors.fetch_add(1);
            if (g_problems->size() < 20) g_problems->push_back("EXIT without its ENTER, op " + std::to_string(op));
        } else {
            g_open->erase(it);
        }
    }
}

void write_results() {
    const char* path = std::getenv("ENCORE_OMPT_TRACE_OUT");
    FILE* f = path != nullptr ? std::fopen(path, "w") : nullptr;
    if (f == nullptr) return;
    int initialized = -1, finalized = -1;
    rocprofiler_ompt_is_initialized(&initialized);
    rocprofiler_ompt_is_finalized(&finalized);
    std::fprintf(f, "initialized %d\nfinalized %d\n", initialized, finalized);
    for (int op = 0; op < n_ops; ++op)
        std::fprintf(f, "op %d %ld %ld %ld\n", op, g_counts[op][0].load(), g_counts[op][1].load(),
                     g_counts[op][2].load());
    std::lock_guard<std::mutex> lock(g_mutex);
    std::fprintf(f, "open %zu\nerrors %ld\n", g_open->size(), g_errors.load());
    for (const auto& s : *g_problems) std::fprintf(f, "problem %s\n", s.c_str());
    std::fclose(f);
}

// At encore's finalization (its last delivery): this tool's counts, and count_tool.c's at the
// same moment (the runtime's callbacks after this point reach that tool only: docs/ompt.md).
void tool_fini(void*) {
    using snapshot_fn = void (*)(const char*);
    if (auto* snap = reinterpret_cast<snapshot_fn>(::dlsym(RTLD_DEFAULT, "encore_test_ompt_counts")))
        snap(std::getenv("ENCORE_OMPT_COUNT_SNAPSHOT"));
    write_results();
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (rocprofiler_create_context(&g_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_OMPT, nullptr, 0, &on_record,
                                                       nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

}  // namespace

ENCORE_TEST_TOOL("ompt_check_tool", &tool_init, &tool_fini)
