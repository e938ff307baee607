// examples/tools/api_trace.cpp — a tracing tool: prints every HSA / HIP / CUDA / marker / RCCL API
// call (and OpenMP callback, --ompt-trace) with its arguments and return value, and a
// per-function summary at exit; records kernel dispatches (with their GPU start/end times) and
// summarizes them per kernel; optionally writes a Perfetto/Chrome trace and CSV files.
//
// It is a rocprofiler_configure tool (loaded through ROCP_TOOL_LIBRARIES, see encore-trace) that
// uses encore's C++ API: the domains it traces are chosen at compile time (`traced` below), and
// arguments print through encore's guarded formatter.
//
// Environment:
//   ENCORE_TRACE_DOMAINS=LIST  which APIs to trace, comma-separated: hsa, hip (HIP runtime and
//                              compiler APIs: needs libencore-hip in the process), cuda (the CUDA
//                              driver API: needs libencore-cuda as the process's libcuda.so.1),
//                              marker (roctx, and NVTX through libencore-nvtx: needs
//                              libencore-roctx), ompt (OpenMP callbacks: needs libencore-ompt as
//                              the OpenMP runtime's tool; a callback is an instant, a begin/end
//                              pair one call), rccl (RCCL / NCCL: needs libencore-rccl);
//                              default hsa. encore-trace sets it.
//   ENCORE_TRACE_QUIET=1       print only the summary
//   ENCORE_TRACE_OUTPUT=DIR    also write into DIR (created if missing; checked at start: if a
//                              file cannot be created there the tool says why and traces nothing):
//     trace.json        Chrome trace-event JSON, array format (open it in https://ui.perfetto.dev):
//                       API calls on their threads, roctx/NVTX push/pop and start/stop ranges as
//                       slices, allocations on the calling thread, kernel dispatches on one track
//                       per queue (CUDA: per stream) and copies on a "copies" track under the GPU
//                       ("GPU agent <n>", "CUDA device <n>"); ts/dur in microseconds
//     api_trace.csv     one row per API call
//     kernel_trace.csv  one row per kernel dispatch
//     memory_copy_trace.csv        one row per memory copy (direction, bytes, GPU times)
//     memory_allocation_trace.csv  one row per allocation or free (address, bytes)
//   Each record is written (write(2)) before the traced call or the dispatch callback returns, so
//   what the program did survives _exit, SIGKILL and crashes. At exit, and on a fatal signal or
//   SIGINT/SIGTERM/SIGHUP/SIGQUIT (see dying_output.hpp), trace.json gets its end (an "end of
//   trace" instant event and the closing `]`); a file cut short (SIGKILL, _exit) lacks only the
//   `]`, which trace-event readers add themselves.
#include "dying_output.hpp"
#include "kernel_names.hpp"

#include <encore/config.h>
#if ENCORE_HIP_HEADERS
#    include <encore/domains/hip.hpp>
#endif
#if ENCORE_HSA_HEADERS
#    include <encore/domains/hsa.hpp>
#endif
#include <encore/domains/marker.hpp>
#include <encore/domains/ompt.hpp>
#if ENCORE_HIP_HEADERS
#    include <encore/domains/rccl.hpp>
#endif
#include <encore/encore.hpp>
#include <encore/tracing/agents.hpp>
#include <rocprofiler-sdk/cuda/driver_api_id.h>
#include <rocprofiler-sdk/marker/api_id.h>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace d = encore::domains;
// The domains this tool can trace (compile-time choice); ENCORE_TRACE_DOMAINS picks among them.
// A build without HSA's or HIP's headers (encore/config.h) has the markers and OMPT only; CUDA's driver
// API comes through the C API (on_cuda_call).
#if ENCORE_HSA_HEADERS
using hsa_domains = std::tuple<d::hsa_core, d::hsa_amd_ext>;
#else
using hsa_domains = std::tuple<>;
#endif
#if ENCORE_HIP_HEADERS
using hip_domains = std::tuple<d::hip_runtime, d::hip_compiler, d::rccl>;  // libencore-rccl needs HIP's headers
#else
using hip_domains = std::tuple<>;
#endif
using traced = decltype(std::tuple_cat(hsa_domains{}, hip_domains{},
                                       std::tuple<d::marker_core, d::marker_control, d::marker_name, d::ompt>{}));

template <class Domain>
constexpr const char* group_of() {
    constexpr encore::kind k = Domain::id;
    if constexpr (k == encore::kind::hsa_core_api || k == encore::kind::hsa_amd_ext_api)
        return "hsa";
    else if constexpr (k == encore::kind::hip_runtime_api || k == encore::kind::hip_compiler_api)
        return "hip";
    else if constexpr (k == encore::kind::ompt)
        return "ompt";
    else if constexpr (k == encore::kind::rccl_api)
        return "rccl";
    else
        return "marker";
}

struct kernel_stats {
    std::size_t count = 0;
    std::uint64_t total_ns = 0;
};

// Calls per operation, per domain: atomics in static storage, so the signal path can read them.
template <class Domain>
std::array<std::atomic<std::size_t>, Domain::size> g_op_counts{};

std::mutex g_mutex;
std::map<std::uint64_t, kernel_stats> g_kernels;  // by kernel id; guarded by g_mutex
bool g_finalized = false;                         // guarded by g_mutex
bool g_quiet = false;
std::string g_output;           // ENCORE_TRACE_OUTPUT ("" = no files)
std::string g_domains = "hsa";  // ENCORE_TRACE_DOMAINS
bool g_cuda = false;            // the CUDA driver API is traced (ENCORE_TRACE_DOMAINS has cuda)
std::uint64_t g_pid = 0;

bool selected(std::string_view group) {
    std::string_view list = g_domains;
    while (!list.empty()) {
        const auto comma = list.find(',');
        if (list.substr(0, comma) == group) return true;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return false;
}

// Open roctx push ranges per thread: (message, start), closed by the matching pop. Guarded by
// g_mutex.
std::map<std::uint64_t, std::vector<std::pair<std::string, std::uint64_t>>> g_open_ranges;

// GPU tracks of trace.json: one process per GPU agent, one thread per queue; named by metadata
// events written with the first dispatch on each. Guarded by g_mutex.
std::map<std::uint64_t, std::pair<std::uint64_t, std::string>> g_agent_pids;    // handle -> pid, label
std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> g_queue_tids;  // (agent, queue) -> tid

std::uint64_t now_ns() {
    rocprofiler_timestamp_t t = 0;
    rocprofiler_get_timestamp(&t);
    return t;
}

// ---- the output files, written as records come ---------------------------------------------------

// A record is written whole or not at all: `writers` counts the threads between their check of
// `closed` and the end of their writes, so whoever finishes the trace (exit, a signal) sets
// `closed`, waits for `writers` to drain, and only then writes the end; a record that finds
// `closed` set is dropped (counted). Both are seq_cst: a writer sees `closed` or the finisher
// sees the writer.
struct outputs {
    int json = -1, api = -1, kernel = -1, copy = -1, allocation = -1;
    std::atomic<int> writers{0};
    std::atomic<bool> closed{false};
    std::atomic<bool> ended{false};  // the end is written
    off_t json_before_end = -1;      // trace.json's size before the end, to take it back (resume)
    std::atomic<std::uint64_t> api_records{0}, dispatch_records{0}, copy_records{0}, allocation_records{0}, dropped{0},
        write_errors{0};
};
outputs g_out;

bool emit(std::string_view json, int csv_fd, std::string_view csv) {
    g_out.writers.fetch_add(1);
    bool ok = false;
    if (!g_out.closed.load()) {
        ok = dying_output::write_all(g_out.json, json);
        ok = dying_output::write_all(csv_fd, csv) && ok;
        if (!ok) g_out.write_errors.fetch_add(1, std::memory_order_relaxed);
    } else {
        g_out.dropped.fetch_add(1, std::memory_order_relaxed);
    }
    g_out.writers.fetch_sub(1);
    return ok;
}

// The length of the valid UTF-8 sequence at s[i] (2 to 4 bytes), or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
    return n;
}

void json_string(std::string& out, std::string_view s) {
    out += '"';
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char ch = s[i];
        const auto c = static_cast<unsigned char>(ch);
        // UTF-8 text (an NVTX wide-string message, a name) as it is; other high bytes below.
        if (const std::size_t n = c >= 0x80 ? utf8_sequence(s, i) : 0; n != 0) {
            out.append(s.substr(i, n));
            i += n - 1;
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20 || c >= 0x80) {  // other bytes >= 0x80 as Latin-1: always valid JSON
                    char buf[8];
                    std::snprintf(buf, sizeof(buf), "\\u%04x", c);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

void csv_field(std::string& out, std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
        out += s;
        return;
    }
    out += '"';
    for (const char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

// Microseconds with nanosecond precision, as Chrome trace-event ts/dur want them.
std::string us(std::uint64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
    return buf;
}

std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
    return buf;
}

// Kernel names by kernel id, from CODE_OBJECT's kernel symbol records (the dispatch record carries
// only the id). A symbol registers before any dispatch of it; written under g_names_mutex, which
// dispatch callbacks (on the runtime's completion thread) take to read.
std::mutex g_names_mutex;
std::map<std::uint64_t, std::string> g_kernel_names;

using example_tools::readable_kernel_name;  // demangled, without ".kd" (kernel_names.hpp)

// The kernel's name, or "kernel <id>" for a kernel whose symbol was never reported (a code
// object loaded before the tool started).
std::string kernel_name(std::uint64_t kernel_id) {
    {
        std::lock_guard lk(g_names_mutex);
        if (auto it = g_kernel_names.find(kernel_id); it != g_kernel_names.end() && !it->second.empty())
            return it->second;
    }
    return "kernel " + std::to_string(kernel_id);
}

void on_code_object(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation != ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER || r.phase != ROCPROFILER_CALLBACK_PHASE_LOAD)
        return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(r.payload);
    std::string name = readable_kernel_name(p->kernel_name);
    std::lock_guard lk(g_names_mutex);
    g_kernel_names[p->kernel_id] = std::move(name);
}

const char* kind_name(rocprofiler_callback_tracing_kind_t k) {
    const char* n = nullptr;
    return rocprofiler_query_callback_tracing_kind_name(k, &n, nullptr) == ROCPROFILER_STATUS_SUCCESS && n ? n : "?";
}

// The GPU agent's index among GPU agents (-1 if unknown) and a label for its process track.
std::pair<int, std::string> gpu_label(rocprofiler_agent_id_t id) {
    if (const rocprofiler_agent_v0_t* a = encore::find_agent(id); a != nullptr)
        return {a->logical_node_type_id, "GPU agent " + std::to_string(a->logical_node_type_id) + " (" + a->name + ")"};
    // libencore-cuda's agent ids are CUDA device ordinals (it registers no agents).
    if (g_cuda && id.handle < 4096) return {static_cast<int>(id.handle), "CUDA device " + std::to_string(id.handle)};
    return {-1, "GPU agent " + hex(id.handle)};
}

// A metadata event naming a process or thread track, as an element after the first.
void json_meta(std::string& j, const char* what, std::uint64_t p, std::uint64_t t, const std::string& name) {
    j += ",\n{\"ph\":\"M\",\"name\":\"";
    j += what;
    j += "\",\"pid\":" + std::to_string(p) + ",\"tid\":" + std::to_string(t) + ",\"args\":{\"name\":";
    json_string(j, name);
    j += "}}";
}

// An API call (or a roctx range) as a trace.json element (after the first) and an api_trace.csv row.
void format_call(std::string& j, std::string& csv, const char* kind, const char* op, std::uint64_t corr,
                 std::uint64_t tid, std::uint64_t start, std::uint64_t end, std::string_view args_json,
                 std::string_view ret) {
    j += ",\n{\"ph\":\"X\",\"cat\":";
    json_string(j, kind);
    j += ",\"name\":";
    json_string(j, op);
    j += ",\"pid\":" + std::to_string(g_pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + us(start) +
         ",\"dur\":" + us(end >= start ? end - start : 0) + ",\"args\":{";
    j += args_json;
    if (!ret.empty()) {
        j += "\"return\":";
        json_string(j, ret);
        j += ',';
    }
    j += "\"correlation_id\":" + std::to_string(corr) + "}}";
    csv += std::to_string(corr) + ',' + std::to_string(tid) + ',';
    csv_field(csv, kind);
    csv += ',';
    csv_field(csv, op);
    csv += ',' + std::to_string(start) + ',' + std::to_string(end) + ',';
    csv_field(csv, ret);
    csv += '\n';
}

// Open roctx/NVTX start-stop ranges, process-wide (a range may end on another thread): the range
// id as formatted -> (message, start). Guarded by g_mutex.
std::map<std::string, std::pair<std::string, std::uint64_t>> g_started_ranges;

// The end of one traced call, whatever its API: printed, and written to trace.json and
// api_trace.csv (with roctx/NVTX ranges as slices of their own). `name` is the function as the
// summary prints it, `c_name` as trace.json names it, `ret` its formatted return value.
// A call's arguments as printed (`line`: "a=1, b=2"), as trace.json's args, and the first one.
struct formatted_args {
    std::uint64_t correlation = 0;
    std::string line, args_json, first_arg;
};

// Arguments through the C API (libencore instantiates every domain's printers once), following
// pointers `depth` deep (2 at EXIT; 1 at ENTER, where a deeper read would warn that out-parameters
// are not written yet).
void format_args(const encore::record& r, formatted_args& out, int depth = 2) {
    out.correlation = r.correlation_id.internal;
    out.line.clear(), out.args_json.clear(), out.first_arg.clear();
    struct arg_sink {
        formatted_args* out;
        bool print, keep;
    } sink{&out, !g_quiet, g_out.json >= 0};
    if (!sink.print && !sink.keep) return;
    rocprofiler_iterate_callback_tracing_kind_operation_args(
        r,
        [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const, int32_t,
           const char*, const char* name, const char* value, int32_t, void* data) {
            auto* k = static_cast<arg_sink*>(data);
            if (k->print) {
                if (n != 0) k->out->line += ", ";
                k->out->line += name;
                k->out->line += '=';
                k->out->line += value;
            }
            if (k->keep) {
                if (n == 0) k->out->first_arg = value;
                json_string(k->out->args_json, name);
                k->out->args_json += ':';
                json_string(k->out->args_json, value);
                k->out->args_json += ',';
            }
            return 0;
        },
        depth, &sink);
}

// Whether an operation frees or destroys what its arguments point at (hsa_queue_destroy, ...):
// those are formatted at ENTER, while that memory is valid; read at EXIT they printed freed
// memory (hsa_queue_destroy's queue as type=1024334536, base_address=0xf4bba118a50853e3).
bool invalidates_args(std::string_view op) {
    static constexpr std::string_view words[] = {"destroy", "Destroy", "free",   "Free",      "release",
                                                 "Release", "unload",  "Unload", "shut_down", "Unregister"};
    return std::any_of(std::begin(words), std::end(words), [&](std::string_view w) { return op.find(w) != op.npos; });
}

// The arguments of this thread's call formatted at its ENTER (one at a time: such calls do not
// nest), taken by its EXIT if the correlation id matches.
thread_local formatted_args t_entered;

void trace_call(const encore::record& r, std::uint64_t start, std::string_view name, const char* c_name,
                const std::string& ret) {
    const std::uint64_t end = now_ns();
    const bool keep = g_out.json >= 0;
    formatted_args args;
    if (t_entered.correlation == r.correlation_id.internal && t_entered.correlation != 0) {
        args = std::move(t_entered);
        t_entered.correlation = 0;
    } else {
        format_args(r, args);
    }
    std::string line, &args_json = args.args_json, &first_arg = args.first_arg;
    if (!g_quiet) {
        line += name;
        line += '(';
        line += args.line;
    }
    std::string j, csv;
    const char* const kind = kind_name(r.kind);
    if (keep) format_call(j, csv, kind, c_name, r.correlation_id.internal, r.thread_id, start, end, args_json, ret);
    const bool marker = r.kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API;
    // The lock only to print (whole lines, in order) and for roctx/NVTX ranges.
    if (!g_quiet || (keep && marker)) {
        std::lock_guard lk(g_mutex);
        if (g_finalized) return;
        if (!g_quiet) {
            line += ')';
            if (!ret.empty()) line += " -> " + ret;
            std::fprintf(stderr, "[api-trace] tid=%llu corr=%llu %s\n", static_cast<unsigned long long>(r.thread_id),
                         static_cast<unsigned long long>(r.correlation_id.internal), line.c_str());
        }
        // A range as a slice: push/pop on the thread, from the push's start to the pop's end;
        // start/stop by the range id the start returned.
        const auto range = [&](const std::string& message, std::uint64_t from) {
            std::string arg;
            json_string(arg, "message");
            arg += ':';
            json_string(arg, message);
            arg += ',';
            format_call(j, csv, kind, "roctx range", r.correlation_id.internal, r.thread_id, from, end, arg, "");
        };
        if (keep && marker) {
            if (r.operation == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA) {
                g_open_ranges[r.thread_id].emplace_back(std::move(first_arg), start);
            } else if (r.operation == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop) {
                auto& open = g_open_ranges[r.thread_id];
                if (!open.empty()) {
                    range(open.back().first, open.back().second);
                    open.pop_back();
                }
            } else if (r.operation == ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA) {
                g_started_ranges[ret] = {std::move(first_arg), start};
            } else if (r.operation == ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop) {
                if (auto it = g_started_ranges.find(first_arg); it != g_started_ranges.end()) {
                    range(it->second.first, it->second.second);
                    g_started_ranges.erase(it);
                }
            }
        }
    }
    if (keep && emit(j, g_out.api, csv)) g_out.api_records.fetch_add(1, std::memory_order_relaxed);
}

// Per operation of a domain: invalidates_args of its name.
template <class Domain>
const std::vector<bool> g_invalidating = [] {
    std::vector<bool> v(Domain::size);
    for (std::size_t i = 0; i < Domain::size; ++i) v[i] = invalidates_args(Domain::names[i]);
    return v;
}();

template <class Domain>
void on_call(const encore::record& r, rocprofiler_user_data_t& ud) {
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud.value = now_ns();  // handed back at EXIT
        if (g_invalidating<Domain>[static_cast<std::size_t>(r.operation)]) format_args(r, t_entered, 1);
        return;
    }
    // A single OMPT callback (phase NONE) is a call that takes no time.
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_NONE)
        ud.value = now_ns();
    else if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT)
        return;
    std::string ret;
    if (!g_quiet || g_out.json >= 0)
        encore::api::visit<Domain>(r.operation, [&](auto I) {
            using op = typename Domain::template op_at<I>;
            if constexpr (!std::is_void_v<typename op::return_type>) {
                encore::format_context ctx{ret, 1};  // 1: a returned string prints as text
                encore::format_value(ctx, encore::tracing::retval_of<Domain, I>(r.payload));
            }
        });
    g_op_counts<Domain>[static_cast<std::size_t>(r.operation)].fetch_add(1, std::memory_order_relaxed);
    trace_call(r, ud.value, Domain::names[static_cast<std::size_t>(r.operation)],
               Domain::c_names[static_cast<std::size_t>(r.operation)], ret);
}

// ---- CUDA driver API (libencore-cuda), through the C API only --------------------------------
// The tool does not compile the CUDA domain (it builds without cuda.h): names come from the
// C API's operation-name query, arguments from its iteration, the return value (a CUresult) from
// the payload's retval bytes (encore::tracing::generic_api_data).
constexpr std::size_t cuda_ops = ROCPROFILER_CUDA_DRIVER_API_ID_LAST;
std::array<std::atomic<std::size_t>, cuda_ops> g_cuda_counts{};
std::array<const char*, cuda_ops> g_cuda_names{};  // filled at initialization

void on_cuda_call(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud->value = now_ns();
        if (r.operation >= 0 && static_cast<std::size_t>(r.operation) < cuda_ops &&
            g_cuda_names[static_cast<std::size_t>(r.operation)] != nullptr &&
            invalidates_args(g_cuda_names[static_cast<std::size_t>(r.operation)])) {
            const encore::record& rec = r;
            format_args(rec, t_entered, 1);
        }
        return;
    }
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT || r.operation < 0 || static_cast<std::size_t>(r.operation) >= cuda_ops)
        return;
    const auto op = static_cast<std::size_t>(r.operation);
    std::int32_t result = 0;
    std::memcpy(&result, static_cast<const encore::tracing::generic_api_data*>(r.payload)->retval, sizeof(result));
    g_cuda_counts[op].fetch_add(1, std::memory_order_relaxed);
    const char* name = g_cuda_names[op] != nullptr ? g_cuda_names[op] : "?";
    trace_call(r, ud->value, name, name, std::to_string(result));
}

// The trace.json track of a GPU agent's queue (or its copies): (pid, tid), named by metadata
// events appended to `j` the first time; `agent`, if given, gets the agent's short label. Called
// under g_mutex.
std::pair<std::uint64_t, std::uint64_t> gpu_track(std::string& j, rocprofiler_agent_id_t id, std::uint64_t track,
                                                  const std::string& track_name, std::string* agent) {
    auto it = g_agent_pids.find(id.handle);
    if (it == g_agent_pids.end()) {
        auto [index, label] = gpu_label(id);
        // GPU tracks: pids above any real pid (pid_max <= 2^22), ordered by agent index.
        const std::uint64_t pid = (1ull << 30) + static_cast<std::uint64_t>(
                                                     index >= 0 ? index : 4096 + static_cast<int>(g_agent_pids.size()));
        json_meta(j, "process_name", pid, 0, label);
        it = g_agent_pids.emplace(id.handle, std::make_pair(pid, index >= 0 ? "GPU " + std::to_string(index) : label)).first;
    }
    if (agent != nullptr) *agent = it->second.second;
    const auto key = std::make_pair(id.handle, track);
    auto q = g_queue_tids.find(key);
    if (q == g_queue_tids.end()) {
        q = g_queue_tids.emplace(key, g_queue_tids.size() + 1).first;
        json_meta(j, "thread_name", it->second.first, q->second, track_name);
    }
    return {it->second.first, q->second};
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    const auto& i = p->dispatch_info;
    std::string j, csv;
    std::uint64_t gpu_pid = 0, queue_tid = 0;
    std::string agent;
    {
        std::lock_guard lk(g_mutex);
        if (g_finalized) return;
        auto& k = g_kernels[i.kernel_id];
        ++k.count;
        if (p->end_timestamp >= p->start_timestamp) k.total_ns += p->end_timestamp - p->start_timestamp;
        if (g_out.json < 0) return;
        std::tie(gpu_pid, queue_tid) = gpu_track(j, i.agent_id, i.queue_id.handle,
                                                 "queue " + std::to_string(i.queue_id.handle), &agent);
    }
    const std::uint64_t start = p->start_timestamp, end = p->end_timestamp, dur = end >= start ? end - start : 0;
    const std::string grid = std::to_string(i.grid_size.x) + 'x' + std::to_string(i.grid_size.y) + 'x' +
                             std::to_string(i.grid_size.z);
    const std::string wg = std::to_string(i.workgroup_size.x) + 'x' + std::to_string(i.workgroup_size.y) + 'x' +
                           std::to_string(i.workgroup_size.z);
    j += ",\n{\"ph\":\"X\",\"cat\":\"KERNEL_DISPATCH\",\"name\":";
    json_string(j, kernel_name(i.kernel_id));
    j += ",\"pid\":" + std::to_string(gpu_pid) + ",\"tid\":" + std::to_string(queue_tid) + ",\"ts\":" + us(start) +
         ",\"dur\":" + us(dur) + ",\"args\":{\"dispatch_id\":" + std::to_string(i.dispatch_id) + ",\"kernel_id\":\"" +
         std::to_string(i.kernel_id) + "\",\"agent_id\":\"" + hex(i.agent_id.handle) +
         "\",\"queue_id\":" + std::to_string(i.queue_id.handle) + ",\"grid\":\"" + grid + "\",\"workgroup\":\"" + wg +
         "\",\"correlation_id\":" + std::to_string(r.correlation_id.internal) + "}}";
    csv += std::to_string(i.dispatch_id) + ',' + hex(i.agent_id.handle) + ',';
    csv_field(csv, agent);
    csv += ',' + std::to_string(i.queue_id.handle) + ',' + std::to_string(i.kernel_id) + ',';
    csv_field(csv, kernel_name(i.kernel_id));
    csv += ',' + std::to_string(i.grid_size.x) + ',' + std::to_string(i.grid_size.y) + ',' +
           std::to_string(i.grid_size.z) + ',' + std::to_string(i.workgroup_size.x) + ',' +
           std::to_string(i.workgroup_size.y) + ',' + std::to_string(i.workgroup_size.z) + ',' + std::to_string(start) +
           ',' + std::to_string(end) + ',' + std::to_string(dur) + ',' + std::to_string(r.correlation_id.internal) + '\n';
    if (emit(j, g_out.kernel, csv)) g_out.dispatch_records.fetch_add(1, std::memory_order_relaxed);
}

// ---- memory copies and allocations ---------------------------------------------------------------
// Summed per operation (copy direction, allocation kind) for the summary. Guarded by g_mutex.
struct memory_stats {
    std::size_t count = 0;
    std::uint64_t bytes = 0, total_ns = 0;
};
std::map<std::string, memory_stats> g_copies, g_allocations;

const char* operation_name(rocprofiler_callback_tracing_kind_t k, rocprofiler_tracing_operation_t op) {
    const char* n = nullptr;
    return rocprofiler_query_callback_tracing_kind_operation_name(k, op, &n, nullptr) == ROCPROFILER_STATUS_SUCCESS && n
               ? n
               : "?";
}

// A copy at EXIT (its GPU start and end): a slice on the "copies" track of the GPU it involves
// (host to host: the host's), a memory_copy_trace.csv row.
void on_copy(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_memory_copy_data_t*>(r.payload);
    const std::string op = operation_name(r.kind, r.operation);
    const std::uint64_t start = p->start_timestamp, end = p->end_timestamp, dur = end >= start ? end - start : 0;
    // The GPU side: the destination's agent unless it is host memory (CUDA: UINT64_MAX; HSA: a
    // CPU agent, which find_agent knows and gpu_label names too).
    const rocprofiler_agent_id_t gpu = p->dst_agent_id.handle != ~0ull ? p->dst_agent_id : p->src_agent_id;
    std::string j, csv;
    std::uint64_t pid = g_pid, tid = r.thread_id;
    {
        std::lock_guard lk(g_mutex);
        if (g_finalized) return;
        auto& st = g_copies[op];
        ++st.count;
        st.bytes += p->bytes;
        st.total_ns += dur;
        if (g_out.json < 0) return;
        if (gpu.handle != ~0ull) std::tie(pid, tid) = gpu_track(j, gpu, ~0ull, "copies", nullptr);
    }
    j += ",\n{\"ph\":\"X\",\"cat\":\"MEMORY_COPY\",\"name\":";
    json_string(j, op);
    j += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + us(start) +
         ",\"dur\":" + us(dur) + ",\"args\":{\"bytes\":" + std::to_string(p->bytes) + ",\"src\":\"" +
         hex(p->src_address.value) + "\",\"dst\":\"" + hex(p->dst_address.value) + "\",\"src_agent\":\"" +
         hex(p->src_agent_id.handle) + "\",\"dst_agent\":\"" + hex(p->dst_agent_id.handle) +
         "\",\"correlation_id\":" + std::to_string(r.correlation_id.internal) + "}}";
    csv += std::to_string(r.correlation_id.internal) + ',' + std::to_string(r.thread_id) + ',' + op + ',' +
           hex(p->src_agent_id.handle) + ',' + hex(p->dst_agent_id.handle) + ',' + hex(p->src_address.value) + ',' +
           hex(p->dst_address.value) + ',' + std::to_string(p->bytes) + ',' + std::to_string(start) + ',' +
           std::to_string(end) + ',' + std::to_string(dur) + '\n';
    if (emit(j, g_out.copy, csv)) g_out.copy_records.fetch_add(1, std::memory_order_relaxed);
}

// An allocation or free at EXIT: a slice on the calling thread (the call's host time), a
// memory_allocation_trace.csv row.
void on_allocation(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_memory_allocation_data_t*>(r.payload);
    const std::string op = operation_name(r.kind, r.operation);
    const std::uint64_t start = p->start_timestamp, end = p->end_timestamp;
    {
        std::lock_guard lk(g_mutex);
        if (g_finalized) return;
        auto& st = g_allocations[op];
        ++st.count;
        st.bytes += p->allocation_size;
        st.total_ns += end >= start ? end - start : 0;
        if (g_out.json < 0) return;
    }
    std::string j, csv;
    j += ",\n{\"ph\":\"X\",\"cat\":\"MEMORY_ALLOCATION\",\"name\":";
    json_string(j, op);
    j += ",\"pid\":" + std::to_string(g_pid) + ",\"tid\":" + std::to_string(r.thread_id) + ",\"ts\":" + us(start) +
         ",\"dur\":" + us(end >= start ? end - start : 0) + ",\"args\":{\"address\":\"" + hex(p->address.value) +
         "\",\"bytes\":" + std::to_string(p->allocation_size) + ",\"agent_id\":\"" + hex(p->agent_id.handle) +
         "\",\"correlation_id\":" + std::to_string(r.correlation_id.internal) + "}}";
    csv += std::to_string(r.correlation_id.internal) + ',' + std::to_string(r.thread_id) + ',' + op + ',' +
           hex(p->agent_id.handle) + ',' + hex(p->address.value) + ',' + std::to_string(p->allocation_size) + ',' +
           std::to_string(start) + ',' + std::to_string(end) + '\n';
    if (emit(j, g_out.allocation, csv)) g_out.allocation_records.fetch_add(1, std::memory_order_relaxed);
}

// Creates DIR if missing and the five files in it (truncated), each with its header; trace.json
// starts its array with the host process's name, so every later element begins with ",\n" and the
// file cut after any whole record is a valid array but for its closing bracket.
bool open_outputs(const std::string& dir) {
    if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
        std::fprintf(stderr, "encore-trace: cannot write %s: %s (not tracing)\n", dir.c_str(), std::strerror(errno));
        return false;
    }
    int* fds[] = {&g_out.json, &g_out.api, &g_out.kernel, &g_out.copy, &g_out.allocation};
    const char* names[] = {"trace.json", "api_trace.csv", "kernel_trace.csv", "memory_copy_trace.csv",
                           "memory_allocation_trace.csv"};
    for (int n = 0; n < 5; ++n) {
        const std::string path = dir + '/' + names[n];
        *fds[n] = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
        if (*fds[n] < 0) {
            std::fprintf(stderr, "encore-trace: cannot write %s: %s (not tracing)\n", path.c_str(), std::strerror(errno));
            for (int k = 0; k < n; ++k) {
                ::close(*fds[k]);
                *fds[k] = -1;
            }
            return false;
        }
    }
    std::string j = "[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(g_pid) +
                    ",\"tid\":0,\"args\":{\"name\":";
    json_string(j, "host (pid " + std::to_string(g_pid) + ")");
    j += "}}";
    const bool ok =
        dying_output::write_all(g_out.json, j) &&
        dying_output::write_all(g_out.api, "correlation_id,thread_id,kind,operation,start_ns,end_ns,return_value\n") &&
        dying_output::write_all(g_out.kernel,
                                "dispatch_id,agent_id,agent,queue_id,kernel_id,kernel_name,grid_x,grid_y,grid_z,"
                                "workgroup_x,workgroup_y,workgroup_z,start_ns,end_ns,duration_ns,correlation_id\n") &&
        dying_output::write_all(g_out.copy,
                                "correlation_id,thread_id,operation,src_agent_id,dst_agent_id,src_address,dst_address,"
                                "bytes,start_ns,end_ns,duration_ns\n") &&
        dying_output::write_all(g_out.allocation,
                                "correlation_id,thread_id,operation,agent_id,address,bytes,start_ns,end_ns\n");
    if (!ok) {
        std::fprintf(stderr, "encore-trace: cannot write %s: %s (not tracing)\n", dir.c_str(), std::strerror(errno));
        for (int* fd : fds) {
            ::close(*fd);
            *fd = -1;
        }
    }
    return ok;
}

// Finishes trace.json: stops the writers, appends an "end of trace" instant event (why, and what
// was written) and the closing bracket. Async-signal-safe; once (false if it was already done).
bool end_trace(const char* why) noexcept {
    if (g_out.json < 0 || g_out.closed.exchange(true)) return false;
    // A writer interrupted by this very signal on this thread never drains: wait a bounded time.
    for (int n = 0; n < 4000 && g_out.writers.load() != 0; ++n) dying_output::pause_us(50);
    g_out.json_before_end = ::lseek(g_out.json, 0, SEEK_END);
    dying_output::fixed_text<512> t;
    t.add(",\n{\"ph\":\"i\",\"s\":\"g\",\"name\":\"end of trace (")
        .add(why)
        .add(")\",\"pid\":")
        .add(g_pid)
        .add(",\"tid\":0,\"ts\":")
        .add_us(dying_output::boottime_ns())
        .add(",\"args\":{\"api_calls\":")
        .add(g_out.api_records.load())
        .add(",\"kernel_dispatches\":")
        .add(g_out.dispatch_records.load())
        .add(",\"memory_copies\":")
        .add(g_out.copy_records.load())
        .add(",\"memory_allocations\":")
        .add(g_out.allocation_records.load())
        .add("}}\n]\n");
    dying_output::write_all(g_out.json, t.view());
    g_out.ended.store(true);
    return true;
}

// The signal path (dying_output::hooks): the end of trace.json, then a summary on stderr when the
// program is about to die of the signal.
void on_fatal(int sig, bool dying) noexcept {
    if (!end_trace(dying_output::signal_name(sig)))
        for (int n = 0; n < 4000 && !g_out.ended.load(); ++n) dying_output::pause_us(50);  // another thread's
    if (!dying) return;
    dying_output::fixed_text<1024> t;
    t.add("[api-trace] ")
        .add(dying_output::signal_name(sig))
        .add(": the program dies; ")
        .add(g_out.api_records.load())
        .add(" API calls and ")
        .add(g_out.dispatch_records.load())
        .add(" kernel dispatches are in ")
        .add(g_output)
        .add("/trace.json (ended), api_trace.csv, kernel_trace.csv, memory_copy_trace.csv, "
             "memory_allocation_trace.csv\n");
    dying_output::write_all(2, t.view());
    // The calls per function, in the order of the domains' tables (no sorting here).
    std::apply(
        [](auto... dom) {
            (
                [](auto x) {
                    using D = decltype(x);
                    for (std::size_t op = 0; op < D::size; ++op) {
                        const std::size_t n = g_op_counts<D>[op].load(std::memory_order_relaxed);
                        if (n == 0) continue;
                        dying_output::fixed_text<256> l;
                        l.add("[api-trace] ").add_right(n, 8).add("  ").add(D::names[op]).add("\n");
                        dying_output::write_all(2, l.view());
                    }
                }(dom),
                ...);
        },
        traced{});
    for (std::size_t op = 0; op < cuda_ops; ++op) {
        const std::size_t n = g_cuda_counts[op].load(std::memory_order_relaxed);
        if (n == 0 || g_cuda_names[op] == nullptr) continue;
        dying_output::fixed_text<256> l;
        l.add("[api-trace] ").add_right(n, 8).add("  ").add(g_cuda_names[op]).add("\n");
        dying_output::write_all(2, l.view());
    }
}

// The program's own handler took the signal and returned: take the end back, go on writing.
void on_resume(int) noexcept {
    if (!g_out.ended.load() || g_out.json_before_end < 0) return;
    if (::ftruncate(g_out.json, g_out.json_before_end) != 0) return;  // then the trace stays ended
    g_out.ended.store(false);
    g_out.closed.store(false);
}

int initialize(rocprofiler_client_finalize_t, void*) {
    g_quiet = std::getenv("ENCORE_TRACE_QUIET") != nullptr;
    g_pid = static_cast<std::uint64_t>(::getpid());
    if (const char* dom = std::getenv("ENCORE_TRACE_DOMAINS"); dom != nullptr && *dom != '\0') g_domains = dom;
    g_cuda = selected("cuda");
    if (const char* out = std::getenv("ENCORE_TRACE_OUTPUT"); out != nullptr && *out != '\0') {
        g_output = out;
        // Checked now, not at exit: a run that cannot keep its trace is not traced.
        if (!open_outputs(g_output)) return 1;
    }
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    int failed = 0;
    std::apply(
        [&](auto... dom) {
            (
                [&](auto x) {
                    using D = decltype(x);
                    if (!selected(group_of<D>())) return;
                    // A kind whose library is not loaded configures too; encore says at exit
                    // that it produced nothing, and why.
                    if (ctx.trace<D>(&on_call<D>) != ROCPROFILER_STATUS_SUCCESS) ++failed;
                }(dom),
                ...);
        },
        traced{});
    if (g_cuda) {
        for (std::size_t op = 0; op < cuda_ops; ++op)
            (void)rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API,
                                                                         static_cast<rocprofiler_tracing_operation_t>(op),
                                                                         &g_cuda_names[op], nullptr);
        if (rocprofiler_configure_callback_tracing_service(ctx.id(), ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, nullptr,
                                                           0, &on_cuda_call, nullptr) != ROCPROFILER_STATUS_SUCCESS)
            ++failed;
    }
    // Kernel dispatches, copies and allocations exist where libencore-hsa or libencore-cuda is
    // loaded.
    const rocprofiler_status_t s = rocprofiler_configure_callback_tracing_service(
        ctx.id(), ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0, &on_dispatch, nullptr);
    if (s != ROCPROFILER_STATUS_SUCCESS) ++failed;
    if (rocprofiler_configure_callback_tracing_service(ctx.id(), ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, nullptr, 0,
                                                       &on_copy, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        ++failed;
    if (rocprofiler_configure_callback_tracing_service(ctx.id(), ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, nullptr,
                                                       0, &on_allocation, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        ++failed;
    // Kernel symbols, for the kernels' names (libencore-hsa: with each code object; libencore-cuda:
    // at a function's first launch).
    if (rocprofiler_configure_callback_tracing_service(ctx.id(), ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, nullptr, 0,
                                                       &on_code_object, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        ++failed;
    if (failed != 0 || ctx.start() != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (g_out.json >= 0) dying_output::install({&on_fatal, &on_resume});
    // A forked child that goes on without exec must not write into the parent's files.
    if (g_out.json >= 0) ::pthread_atfork(nullptr, nullptr, [] { g_out.closed.store(true); });
    return 0;
}

void finalize(void*) {
    std::lock_guard lk(g_mutex);
    if (g_finalized) return;
    g_finalized = true;
    std::vector<std::pair<std::string_view, std::size_t>> rows;
    std::apply(
        [&](auto... dom) {
            (
                [&](auto x) {
                    using D = decltype(x);
                    for (std::size_t op = 0; op < D::size; ++op)
                        if (const std::size_t n = g_op_counts<D>[op].load(); n != 0) rows.emplace_back(D::names[op], n);
                }(dom),
                ...);
        },
        traced{});
    for (std::size_t op = 0; op < cuda_ops; ++op)
        if (const std::size_t n = g_cuda_counts[op].load(); n != 0 && g_cuda_names[op] != nullptr)
            rows.emplace_back(g_cuda_names[op], n);
    std::stable_sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second > b.second; });
    std::size_t total = 0;
    for (auto& [n, c] : rows) total += c;
    std::fprintf(stderr, "[api-trace] %zu API calls traced (%s), %zu distinct functions\n", total, g_domains.c_str(),
                 rows.size());
    for (auto& [name, count] : rows)
        std::fprintf(stderr, "[api-trace] %8zu  %.*s\n", count, static_cast<int>(name.size()), name.data());
    // Per kernel by name: one kernel loaded for two GPUs (or twice) has two ids, one row.
    std::map<std::string, kernel_stats> by_name;
    std::size_t dispatches = 0;
    for (auto& [id, k] : g_kernels) {
        auto& n = by_name[kernel_name(id)];
        n.count += k.count;
        n.total_ns += k.total_ns;
        dispatches += k.count;
    }
    std::vector<std::pair<std::string, kernel_stats>> kernels(by_name.begin(), by_name.end());
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](auto& a, auto& b) { return a.second.total_ns > b.second.total_ns; });
    std::fprintf(stderr, "[api-trace] %zu kernel dispatches, %zu distinct kernels\n", dispatches, kernels.size());
    for (auto& [name, k] : kernels)
        std::fprintf(stderr, "[api-trace] %8zu  %s  total %s us, mean %s us\n", k.count, name.c_str(),
                     us(k.total_ns).c_str(), us(k.count != 0 ? k.total_ns / k.count : 0).c_str());
    const auto memory = [](const char* what, const std::map<std::string, memory_stats>& stats) {
        std::size_t n = 0;
        for (auto& [op, st] : stats) n += st.count;
        if (n == 0) return;
        std::fprintf(stderr, "[api-trace] %zu %s\n", n, what);
        for (auto& [op, st] : stats)
            std::fprintf(stderr, "[api-trace] %8zu  %s  %" PRIu64 " bytes, total %s us\n", st.count, op.c_str(),
                         st.bytes, us(st.total_ns).c_str());
    };
    memory("memory copies", g_copies);
    memory("memory allocations and frees", g_allocations);
    if (g_out.json >= 0) {
        end_trace("exit");
        // The files stay open: a late record (a thread still running at exit) finds `closed` and is
        // dropped; the kernel closes them when the process ends.
        const std::uint64_t errors = g_out.write_errors.load(), dropped = g_out.dropped.load();
        std::fprintf(stderr,
                     "[api-trace] %s %s/trace.json, api_trace.csv, kernel_trace.csv, memory_copy_trace.csv, "
                     "memory_allocation_trace.csv (%" PRIu64 " API calls, %" PRIu64 " dispatches, %" PRIu64
                     " copies, %" PRIu64 " allocations)\n",
                     errors == 0 ? "wrote" : "FAILED to write some records to", g_output.c_str(),
                     g_out.api_records.load(), g_out.dispatch_records.load(), g_out.copy_records.load(),
                     g_out.allocation_records.load());
        if (dropped != 0)
            std::fprintf(stderr, "[api-trace] %" PRIu64 " records came after the trace ended and are not in it\n",
                         dropped);
    }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "encore-api-trace";
    static rocprofiler_tool_configure_result_t result{sizeof(result), &initialize, &finalize, nullptr};
    return &result;
}
