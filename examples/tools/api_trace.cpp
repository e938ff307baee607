// examples/tools/api_trace.cpp — a tracing tool: prints every HSA / HIP / marker API call with
// its arguments and return value, and a per-function summary at exit; records kernel dispatches
// (with their GPU start/end times) and summarizes them per kernel; optionally writes a
// Perfetto/Chrome trace and CSV files.
//
// It is a rocprofiler_configure tool (loaded through ROCP_TOOL_LIBRARIES, see encore-trace) that
// uses encore's C++ API: the domains it traces are chosen at compile time (`traced` below), and
// arguments print through encore's guarded formatter.
//
// Environment:
//   ENCORE_TRACE_DOMAINS=LIST  which APIs to trace, comma-separated: hsa, hip (HIP runtime and
//                              compiler APIs: needs libencore-hip in the process), marker (roctx:
//                              needs libencore-roctx); default hsa. encore-trace sets it.
//   ENCORE_TRACE_QUIET=1       print only the summary
//   ENCORE_TRACE_OUTPUT=DIR    also write, at exit, into DIR (which must exist):
//     trace.json        Chrome trace-event JSON (open it in https://ui.perfetto.dev): API calls
//                       on their threads, roctx push/pop ranges as slices on their threads,
//                       kernel dispatches on one track per queue under "GPU agent <n>"; ts/dur
//                       in microseconds
//     api_trace.csv     one row per API call
//     kernel_trace.csv  one row per kernel dispatch
//   Everything is kept in memory until exit.
#include <encore/domains/hip.hpp>
#include <encore/domains/hsa.hpp>
#include <encore/domains/marker.hpp>
#include <encore/encore.hpp>
#include <encore/tracing/agents.hpp>
#include <rocprofiler-sdk/marker/api_id.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
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
using traced = std::tuple<d::hsa_core, d::hsa_amd_ext, d::hip_runtime, d::hip_compiler, d::marker_core,
                          d::marker_control, d::marker_name>;

template <class Domain>
constexpr const char* group_of() {
    if constexpr (std::is_same_v<Domain, d::hsa_core> || std::is_same_v<Domain, d::hsa_amd_ext>)
        return "hsa";
    else if constexpr (std::is_same_v<Domain, d::hip_runtime> || std::is_same_v<Domain, d::hip_compiler>)
        return "hip";
    else
        return "marker";
}

struct api_call {
    std::uint64_t corr = 0, tid = 0, start = 0, end = 0;
    rocprofiler_callback_tracing_kind_t kind{};
    const char* op = "";
    std::string ret;  // empty for void functions
    std::vector<std::pair<std::string, std::string>> args;
};

struct kernel_dispatch {
    rocprofiler_kernel_dispatch_info_t info{};
    std::uint64_t start = 0, end = 0, corr = 0;
};

struct kernel_stats {
    std::size_t count = 0;
    std::uint64_t total_ns = 0;
};

std::mutex g_mutex;
std::map<std::string, std::size_t> g_counts;      // guarded by g_mutex
std::map<std::uint64_t, kernel_stats> g_kernels;  // by kernel id; guarded by g_mutex
std::vector<api_call> g_calls;                    // only with an output dir; guarded by g_mutex
std::vector<kernel_dispatch> g_dispatches;        // only with an output dir; guarded by g_mutex
bool g_finalized = false;                         // guarded by g_mutex
bool g_quiet = false;
std::string g_output;           // ENCORE_TRACE_OUTPUT ("" = no files)
std::string g_domains = "hsa";  // ENCORE_TRACE_DOMAINS

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

std::uint64_t now_ns() {
    rocprofiler_timestamp_t t = 0;
    rocprofiler_get_timestamp(&t);
    return t;
}

template <class Domain>
void on_call(const encore::record& r, rocprofiler_user_data_t& ud) {
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        ud.value = now_ns();  // handed back at EXIT
        return;
    }
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    const std::uint64_t end = now_ns();
    const bool keep = !g_output.empty();
    api_call call;
    std::string line;
    struct arg_sink {
        std::string* line;
        api_call* call;
        bool keep;
    } sink{&line, &call, keep};
    line += Domain::names[static_cast<std::size_t>(r.operation)];
    line += '(';
    // Arguments through the C API (libencore instantiates every domain's printers once).
    rocprofiler_iterate_callback_tracing_kind_operation_args(
        r,
        [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const, int32_t,
           const char*, const char* name, const char* value, int32_t, void* data) {
            auto* k = static_cast<arg_sink*>(data);
            if (n != 0) *k->line += ", ";
            *k->line += name;
            *k->line += '=';
            *k->line += value;
            if (k->keep) k->call->args.emplace_back(name, value);
            return 0;
        },
        2, &sink);
    line += ')';
    encore::api::visit<Domain>(r.operation, [&](auto I) {
        using op = typename Domain::template op_at<I>;
        if constexpr (!std::is_void_v<typename op::return_type>) {
            encore::format_context ctx{call.ret, 1};  // 1: a returned string prints as text
            encore::format_value(ctx, encore::tracing::retval_of<Domain, I>(r.payload));
            line += " -> ";
            line += call.ret;
        }
    });
    const char* name = Domain::c_names[static_cast<std::size_t>(r.operation)];
    std::lock_guard lk(g_mutex);
    if (g_finalized) return;
    ++g_counts[std::string(Domain::names[static_cast<std::size_t>(r.operation)])];
    if (!g_quiet)
        std::fprintf(stderr, "[api-trace] tid=%llu corr=%llu %s\n", static_cast<unsigned long long>(r.thread_id),
                     static_cast<unsigned long long>(r.correlation_id.internal), line.c_str());
    if constexpr (std::is_same_v<Domain, d::marker_core>) {
        // roctx push/pop: a range slice on the thread, from the push's start to the pop's end.
        if (keep && r.operation == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA) {
            std::string msg = call.args.empty() ? std::string() : call.args[0].second;
            g_open_ranges[r.thread_id].emplace_back(std::move(msg), ud.value);
        } else if (keep && r.operation == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop) {
            auto& open = g_open_ranges[r.thread_id];
            if (!open.empty()) {
                api_call range;
                range.tid = r.thread_id;
                range.start = open.back().second;
                range.end = end;
                range.kind = ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API;
                range.op = "roctx range";
                range.args.emplace_back("message", open.back().first);
                range.corr = r.correlation_id.internal;
                open.pop_back();
                g_calls.push_back(std::move(range));
            }
        }
    }
    if (keep) {
        call.corr = r.correlation_id.internal;
        call.tid = r.thread_id;
        call.start = ud.value;
        call.end = end;
        call.kind = r.kind;
        call.op = name;
        g_calls.push_back(std::move(call));
    }
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation != ROCPROFILER_KERNEL_DISPATCH_COMPLETE) return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    if (g_finalized) return;
    auto& k = g_kernels[p->dispatch_info.kernel_id];
    ++k.count;
    if (p->end_timestamp >= p->start_timestamp) k.total_ns += p->end_timestamp - p->start_timestamp;
    if (!g_output.empty())
        g_dispatches.push_back({p->dispatch_info, p->start_timestamp, p->end_timestamp, r.correlation_id.internal});
}

int initialize(rocprofiler_client_finalize_t, void*) {
    g_quiet = std::getenv("ENCORE_TRACE_QUIET") != nullptr;
    if (const char* dom = std::getenv("ENCORE_TRACE_DOMAINS"); dom != nullptr && *dom != '\0') g_domains = dom;
    if (const char* out = std::getenv("ENCORE_TRACE_OUTPUT"); out != nullptr) g_output = out;
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    int failed = 0;
    std::apply(
        [&](auto... dom) {
            (
                [&](auto x) {
                    using D = decltype(x);
                    if (!selected(group_of<D>())) return;
                    const auto st = ctx.trace<D>(&on_call<D>);
                    if (st == ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED)
                        std::fprintf(stderr, "[api-trace] %s is not produced in this process (is %s loaded?)\n",
                                     D::c_name(),
                                     std::string_view(group_of<D>()) == "hip" ? "libencore-hip" : "libencore-roctx");
                    else if (st != ROCPROFILER_STATUS_SUCCESS)
                        ++failed;
                }(dom),
                ...);
        },
        traced{});
    // Kernel dispatches exist where libencore-hsa is loaded; elsewhere the kind is not produced.
    const rocprofiler_status_t s = rocprofiler_configure_callback_tracing_service(
        ctx.id(), ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0, &on_dispatch, nullptr);
    if (s != ROCPROFILER_STATUS_SUCCESS && s != ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED) ++failed;
    return failed == 0 && ctx.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

// ---- output files -------------------------------------------------------------------------------

void json_string(std::string& out, std::string_view s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20 || c >= 0x80) {  // bytes >= 0x80 as Latin-1: always valid JSON
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

std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
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

// Kernels are named by their id: the kernel dispatch record carries no symbol name.
std::string kernel_name(std::uint64_t kernel_id) { return "kernel " + std::to_string(kernel_id); }

const char* kind_name(rocprofiler_callback_tracing_kind_t k) {
    const char* n = nullptr;
    return rocprofiler_query_callback_tracing_kind_name(k, &n, nullptr) == ROCPROFILER_STATUS_SUCCESS && n ? n : "?";
}

bool write_file(const std::string& path, const std::string& text) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        std::fprintf(stderr, "[api-trace] cannot write %s\n", path.c_str());
        return false;
    }
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    return (std::fclose(f) == 0) && ok;
}

// The GPU agent's index among GPU agents (-1 if unknown) and a label for its process track.
std::pair<int, std::string> gpu_label(rocprofiler_agent_id_t id) {
    if (const rocprofiler_agent_v0_t* a = encore::find_agent(id); a != nullptr)
        return {a->logical_node_type_id, "GPU agent " + std::to_string(a->logical_node_type_id) + " (" + a->name + ")"};
    return {-1, "GPU agent " + hex(id.handle)};
}

void write_outputs() {
    const std::string dir = g_output;
    const auto pid = static_cast<std::uint64_t>(::getpid());
    // api_trace.csv
    std::string csv = "correlation_id,thread_id,kind,operation,start_ns,end_ns,return_value\n";
    for (const auto& c : g_calls)
        csv += std::to_string(c.corr) + ',' + std::to_string(c.tid) + ',' + csv_field(kind_name(c.kind)) + ',' +
               csv_field(c.op) + ',' + std::to_string(c.start) + ',' + std::to_string(c.end) + ',' + csv_field(c.ret) +
               '\n';
    bool ok = write_file(dir + "/api_trace.csv", csv);

    // kernel_trace.csv; the JSON tracks: one process per GPU agent, one thread per queue.
    std::map<std::uint64_t, std::pair<std::uint64_t, std::string>> agent_pids;    // handle -> pid, label
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> queue_tids;  // (agent, queue) -> tid
    csv = "dispatch_id,agent_id,agent,queue_id,kernel_id,kernel_name,grid_x,grid_y,grid_z,workgroup_x,workgroup_y,workgroup_z,"
          "start_ns,end_ns,duration_ns,correlation_id\n";
    for (const auto& d : g_dispatches) {
        const auto& i = d.info;
        auto [index, label] = gpu_label(i.agent_id);
        // GPU tracks: pids above any real pid (pid_max <= 2^22), ordered by agent index.
        if (!agent_pids.contains(i.agent_id.handle))
            agent_pids[i.agent_id.handle] = {
                (1ull << 30) + static_cast<std::uint64_t>(index >= 0 ? index : 4096 + static_cast<int>(agent_pids.size())),
                label};
        const auto qkey = std::make_pair(i.agent_id.handle, i.queue_id.handle);
        if (!queue_tids.contains(qkey)) queue_tids[qkey] = queue_tids.size() + 1;
        csv += std::to_string(i.dispatch_id) + ',' + hex(i.agent_id.handle) + ',' +
               csv_field(index >= 0 ? "GPU " + std::to_string(index) : label) + ',' + std::to_string(i.queue_id.handle) +
               ',' + std::to_string(i.kernel_id) + ',' + csv_field(kernel_name(i.kernel_id)) + ',' +
               std::to_string(i.grid_size.x) + ',' + std::to_string(i.grid_size.y) + ',' + std::to_string(i.grid_size.z) +
               ',' + std::to_string(i.workgroup_size.x) + ',' + std::to_string(i.workgroup_size.y) + ',' +
               std::to_string(i.workgroup_size.z) + ',' + std::to_string(d.start) + ',' + std::to_string(d.end) + ',' +
               std::to_string(d.end >= d.start ? d.end - d.start : 0) + ',' + std::to_string(d.corr) + '\n';
    }
    ok = write_file(dir + "/kernel_trace.csv", csv) && ok;

    // trace.json
    std::string j = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    auto sep = [&] {
        if (!first) j += ",\n";
        first = false;
    };
    auto meta = [&](const char* what, std::uint64_t p, std::uint64_t t, const std::string& name) {
        sep();
        j += "{\"ph\":\"M\",\"name\":\"";
        j += what;
        j += "\",\"pid\":" + std::to_string(p) + ",\"tid\":" + std::to_string(t) + ",\"args\":{\"name\":";
        json_string(j, name);
        j += "}}";
    };
    meta("process_name", pid, 0, "host (pid " + std::to_string(pid) + ")");
    for (const auto& [handle, pl] : agent_pids) meta("process_name", pl.first, 0, pl.second);
    for (const auto& [key, tid] : queue_tids)
        meta("thread_name", agent_pids[key.first].first, tid, "queue " + std::to_string(key.second));
    for (const auto& c : g_calls) {
        sep();
        j += "{\"ph\":\"X\",\"cat\":";
        json_string(j, kind_name(c.kind));
        j += ",\"name\":";
        json_string(j, c.op);
        j += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(c.tid) + ",\"ts\":" + us(c.start) +
             ",\"dur\":" + us(c.end >= c.start ? c.end - c.start : 0) + ",\"args\":{";
        for (const auto& [name, value] : c.args) {
            json_string(j, name);
            j += ':';
            json_string(j, value);
            j += ',';
        }
        if (!c.ret.empty()) {
            j += "\"return\":";
            json_string(j, c.ret);
            j += ',';
        }
        j += "\"correlation_id\":" + std::to_string(c.corr) + "}}";
    }
    for (const auto& d : g_dispatches) {
        const auto& i = d.info;
        sep();
        j += "{\"ph\":\"X\",\"cat\":\"KERNEL_DISPATCH\",\"name\":";
        json_string(j, kernel_name(i.kernel_id));
        j += ",\"pid\":" + std::to_string(agent_pids[i.agent_id.handle].first) +
             ",\"tid\":" + std::to_string(queue_tids[{i.agent_id.handle, i.queue_id.handle}]) +
             ",\"ts\":" + us(d.start) + ",\"dur\":" + us(d.end >= d.start ? d.end - d.start : 0) +
             ",\"args\":{\"dispatch_id\":" + std::to_string(i.dispatch_id) + ",\"kernel_id\":\"" +
             std::to_string(i.kernel_id) + "\",\"agent_id\":\"" + hex(i.agent_id.handle) +
             "\",\"queue_id\":" + std::to_string(i.queue_id.handle) + ",\"grid\":\"" + std::to_string(i.grid_size.x) +
             'x' + std::to_string(i.grid_size.y) + 'x' + std::to_string(i.grid_size.z) + "\",\"workgroup\":\"" +
             std::to_string(i.workgroup_size.x) + 'x' + std::to_string(i.workgroup_size.y) + 'x' +
             std::to_string(i.workgroup_size.z) + "\",\"correlation_id\":" + std::to_string(d.corr) + "}}";
    }
    j += "\n]}\n";
    ok = write_file(dir + "/trace.json", j) && ok;
    std::fprintf(stderr,
                 "[api-trace] %s %s/trace.json, api_trace.csv, kernel_trace.csv (%zu API calls, %zu dispatches)\n",
                 ok ? "wrote" : "FAILED to write", dir.c_str(), g_calls.size(), g_dispatches.size());
}

void finalize(void*) {
    std::lock_guard lk(g_mutex);
    if (g_finalized) return;
    g_finalized = true;
    std::vector<std::pair<std::string, std::size_t>> rows(g_counts.begin(), g_counts.end());
    std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second > b.second; });
    std::size_t total = 0;
    for (auto& [n, c] : rows) total += c;
    std::fprintf(stderr, "[api-trace] %zu API calls traced (%s), %zu distinct functions\n", total, g_domains.c_str(),
                 rows.size());
    for (auto& [name, count] : rows) std::fprintf(stderr, "[api-trace] %8zu  %s\n", count, name.c_str());
    std::size_t dispatches = 0;
    for (auto& [id, k] : g_kernels) dispatches += k.count;
    std::fprintf(stderr, "[api-trace] %zu kernel dispatches, %zu distinct kernels\n", dispatches, g_kernels.size());
    for (auto& [id, k] : g_kernels)
        std::fprintf(stderr, "[api-trace] %8zu  %s  total %s us, mean %s us\n", k.count, kernel_name(id).c_str(),
                     us(k.total_ns).c_str(), us(k.count != 0 ? k.total_ns / k.count : 0).c_str());
    if (!g_output.empty()) write_outputs();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "encore-api-trace";
    static rocprofiler_tool_configure_result_t result{sizeof(result), &initialize, &finalize, nullptr};
    return &result;
}
