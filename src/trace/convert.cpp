// src/trace/convert.cpp — record folders to rocpd, JSON, CSV, printed calls and a summary
// (convert.hpp). Two passes over each process's thread files: the first gathers what records
// refer to (operation names, agents, kernel names), the second streams calls and events to the
// writers, so memory stays bounded by the names, not by the number of records.
#include "convert.hpp"
#include "demangle.hpp"

#include "json.hpp"
#include "output_template.hpp"
#include "perfetto.hpp"
#include "record_file.hpp"
#include "records.hpp"
#include "tick_clock.hpp"
#if ENCORE_TRACE_ROCPD
#    include "rocpd.hpp"
#endif

#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>

namespace encore::trace {
namespace {

// ---- what a process's records refer to ------------------------------------------------------------

struct kind_names {
    std::string name;
    std::int64_t first_op = 0;
    std::vector<std::string> ops;
    const std::string& op(std::int64_t id) const {
        static const std::string unknown = "?";
        const auto i = id - first_op;
        return i >= 0 && static_cast<std::size_t>(i) < ops.size() ? ops[static_cast<std::size_t>(i)] : unknown;
    }
};

struct agent {
    std::uint64_t handle = 0;
    std::int32_t type = 0, logical_index = 0, type_index = 0;
    std::string name;
};

struct kernel {
    std::uint64_t code_object_id = 0;
    std::uint32_t private_segment_size = 0, group_segment_size = 0;
    std::string symbol, display;
};

struct process {
    const process_dir* dir = nullptr;
    bool hello = false, goodbye = false;
    std::uint64_t filtered_at_record = 0;  // dispatches the tool's kernel filters did not record
    rec::hello_body info{};
    std::uint64_t end_ns = 0;  // the tool's finalization (goodbye), else 0: the process was cut short
    std::map<std::uint32_t, kind_names> kinds;
    std::map<std::uint64_t, agent> agents;
    std::unordered_map<std::uint64_t, kernel> kernels;
    tick_map ticks;  // api_call times to CLOCK_BOOTTIME (clock_tsc), from the hello's and clock_sync pairs

    const std::string& kind_name(std::uint32_t k) const {
        static const std::string unknown = "?";
        auto it = kinds.find(k);
        return it != kinds.end() ? it->second.name : unknown;
    }
    const std::string& op_name(std::uint32_t k, std::int64_t op) const {
        static const std::string unknown = "?";
        auto it = kinds.find(k);
        return it != kinds.end() ? it->second.op(op) : unknown;
    }
    std::string kernel_name(std::uint64_t id) const {
        auto it = kernels.find(id);
        return it != kernels.end() && !it->second.display.empty() ? it->second.display : "kernel " + std::to_string(id);
    }
};

template <class T>
bool read_body(const void* body, std::uint32_t n, T& out) {
    if (n < sizeof(T)) return false;
    std::memcpy(&out, body, sizeof(T));
    return true;
}

// An event record of type Body, read whole (else skipped), counted and handed to `f`.
template <class Body, class F>
void to_writers(const void* body, std::uint32_t n, std::uint64_t& count, F&& f) {
    Body b;
    if (!read_body(body, n, b)) return;
    ++count;
    f(b);
}

// The text after a fixed body, NUL-bounded inside [at, end).
std::string bounded_string(const char* at, const char* end) {
    if (at >= end) return {};
    return std::string(at, ::strnlen(at, static_cast<std::size_t>(end - at)));
}

void gather(process& p, std::uint16_t type, const void* body, std::uint32_t n) {
    const auto* bytes = static_cast<const char*>(body);
    switch (type) {
        case rec::hello:
            // Read as far as it goes: a hello of another layout is refused by its version.
            if (n >= 8) {
                p.info = rec::hello_body{};
                std::memcpy(&p.info, body, std::min<std::size_t>(n, sizeof(p.info)));
                p.hello = true;
                if (p.info.clock == clock_tsc) p.ticks.add(p.info.start_ticks, p.info.start_ns, p.info.start_width);
            }
            break;
        case rec::clock_sync: {
            rec::clock_sync_body b;
            if (read_body(body, n, b)) p.ticks.add(b.ticks, b.ns, b.width);
            break;
        }
        case rec::goodbye: {
            // Read as far as it goes: a goodbye of an older tool has no `filtered`.
            rec::goodbye_body g;
            std::memcpy(&g, body, std::min<std::size_t>(n, sizeof(g)));
            p.goodbye = true;
            p.filtered_at_record = g.filtered;
            break;
        }
        case rec::names: {
            rec::names_body b;
            if (!read_body(body, n, b) || sizeof(b) + b.bytes > n) break;
            kind_names k;
            k.first_op = b.first_op;
            const char* at = bytes + sizeof(b);
            const char* end = at + b.bytes;
            k.name = bounded_string(at, end);
            at += k.name.size() + 1;
            for (std::uint32_t i = 0; i < b.op_count && at < end; ++i) {
                k.ops.push_back(bounded_string(at, end));
                at += k.ops.back().size() + 1;
            }
            p.kinds[b.kind] = std::move(k);
            break;
        }
        case rec::agent: {
            rec::agent_body b;
            if (!read_body(body, n, b)) break;
            agent a{b.handle, b.type, b.logical_index, b.type_index, bounded_string(bytes + sizeof(b), bytes + n)};
            p.agents[b.handle] = std::move(a);
            break;
        }
        case rec::kernel_symbol: {
            rec::kernel_symbol_body b;
            if (!read_body(body, n, b)) break;
            kernel k;
            k.code_object_id = b.code_object_id;
            k.private_segment_size = b.private_segment_size;
            k.group_segment_size = b.group_segment_size;
            k.symbol = bounded_string(bytes + sizeof(b), bytes + n);
            k.display = demangled(k.symbol);
            p.kernels[b.kernel_id] = std::move(k);
            break;
        }
        default: break;
    }
}

// ---- arguments ---------------------------------------------------------------------------------

struct arg_text {
    std::uint32_t position = 0;
    std::string type, name, value;
};

std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return buf;
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + '"';
}

// A call's arguments as text, from the bytes the tool copied: a payload of the kind's size is
// made of them (its size field, the call's arguments, the rest of them zero) and formatted at
// depth 0 through the C API's argument iteration. Converting millions of calls, the strings of the
// previous call's arguments are reused (assign keeps their capacity): a fresh vector of fresh
// strings per call was a malloc per argument field.
//
// The payload is built in `scratch`, a buffer in the caller's stack frame: the C API reads a
// payload without trusting its pointer (guarded_read), which costs a process_vm_readv system call
// for memory anywhere but the live stack, where it is a plain copy (perf: the system call and
// its getpid were a fifth of converting 1 M calls). Payloads larger than `scratch` (none of
// encore's kinds today) are built on the heap.
class arg_formatter {
public:
    static constexpr std::size_t scratch_size = 16384;

    /// The call's arguments into `out` (its previous contents reused).
    void format(const rec::api_call_body& b, const std::byte* args, const char* text, std::vector<arg_text>& out,
                std::string& retval, std::byte* scratch) {
        used_ = 0;
        format_retval(b, retval, scratch);
        if (b.text_kind == rec::text_formatted) {
            // name=value lines, formatted at the call (--args-depth).
            std::string_view t(text, b.text_size);
            std::uint32_t i = 0;
            while (!t.empty()) {
                const auto nl = t.find('\n');
                const std::string_view line = t.substr(0, nl);
                const auto eq = line.find('=');
                put(out, i++, "", line.substr(0, eq), eq == line.npos ? std::string_view{} : line.substr(eq + 1));
                if (nl == t.npos) break;
                t.remove_prefix(nl + 1);
            }
            out.resize(used_);
            return;
        }
        const auto kind = static_cast<rocprofiler_callback_tracing_kind_t>(b.kind);
        const auto op = static_cast<rocprofiler_tracing_operation_t>(b.operation);
        const encore_operation_payload_layout_t& l = layout(kind, op);
        if (l.payload_size != 0 && l.args_offset + l.args_size <= l.payload_size) {
            std::byte* buf = scratch;
            if (l.payload_size > scratch_size) {
                auto& heap = payload_[b.kind];
                if (heap.size() != l.payload_size) heap.assign(l.payload_size, std::byte{0});
                buf = heap.data();
            }
            // What the iteration reads: the size field and this operation's arguments (what the
            // record holds, the rest zero). The other bytes of the payload are never formatted.
            const std::uint64_t size = l.payload_size;
            std::memcpy(buf, &size, sizeof(size));
            const std::uint64_t given = std::min<std::uint64_t>(b.args_size, l.args_size);
            std::memcpy(buf + l.args_offset, args, given);
            std::memset(buf + l.args_offset + given, 0, l.args_size - given);
            rocprofiler_callback_tracing_record_t r{};
            r.kind = kind;
            r.operation = op;
            r.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
            r.payload = buf;
            struct sink {
                arg_formatter* self;
                std::vector<arg_text>* out;
            } k{this, &out};
            rocprofiler_iterate_callback_tracing_kind_operation_args(
                r,
                [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const,
                   int32_t, const char* type, const char* name, const char* value, int32_t, void* data) {
                    auto* k = static_cast<sink*>(data);
                    k->self->put(*k->out, n, k->self->type_text(type), name != nullptr ? name : "",
                                 value != nullptr ? value : "");
                    return 0;
                },
                0, &k);
        } else {
            // A kind whose library this process does not have: the argument words as passed.
            for (std::uint32_t i = 0; i + 8 <= b.args_size; i += 8) {
                std::uint64_t w = 0;
                std::memcpy(&w, args + i, sizeof(w));
                put(out, i / 8, "", "arg" + std::to_string(i / 8), hex(w));
            }
        }
        out.resize(used_);
        // The strings the call passed, copied at the call: <index><bytes>\0 each.
        const char* at = text;
        const char* end = text + b.text_size;
        while (at + 1 < end) {
            const auto index = static_cast<std::uint8_t>(*at);
            const std::string s = bounded_string(at + 1, end);
            for (auto& a : out)
                if (a.position == index) a.value = quoted(s) + (b.truncated ? "..." : "");
            at += 2 + s.size();
        }
    }

private:
    // The return value as its type prints (an enum by name) through the C API, from the record's
    // first 8 bytes of it; as an integer where the kind's layout is not known here.
    void format_retval(const rec::api_call_body& b, std::string& retval, std::byte* scratch) {
        retval.clear();
        if (b.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
        const auto kind = static_cast<rocprofiler_callback_tracing_kind_t>(b.kind);
        const auto op = static_cast<rocprofiler_tracing_operation_t>(b.operation);
        const encore_operation_payload_layout_t& l = layout(kind, op);
        if (l.payload_size == 0 || l.payload_size > scratch_size || l.retval_size == 0 ||
            l.retval_offset + l.retval_size > l.payload_size) {
            retval = std::to_string(static_cast<std::int32_t>(b.retval));
            return;
        }
        const std::uint64_t size = l.payload_size;
        std::memcpy(scratch, &size, sizeof(size));
        const std::uint64_t kept = std::min<std::uint64_t>(l.retval_size, sizeof(b.retval));
        std::memcpy(scratch + l.retval_offset, &b.retval, kept);
        std::memset(scratch + l.retval_offset + kept, 0, l.retval_size - kept);
        rocprofiler_callback_tracing_record_t r{};
        r.kind = kind;
        r.operation = op;
        r.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
        r.payload = scratch;
        char text[256];
        std::size_t length = 0;
        if (encore_format_callback_tracing_retval(r, 0, text, sizeof text, &length) == ROCPROFILER_STATUS_SUCCESS)
            retval.assign(text, std::min(length, sizeof text - 1));
        else
            retval = std::to_string(static_cast<std::int32_t>(b.retval));
    }
    void put(std::vector<arg_text>& out, std::uint32_t position, std::string_view type, std::string_view name,
             std::string_view value) {
        if (used_ == out.size()) out.emplace_back();
        arg_text& a = out[used_++];
        a.position = position;
        a.type.assign(type);
        a.name.assign(name);
        a.value.assign(value);
    }
    // encore_query_operation_payload_layout, once per operation (payload_size 0: not known here).
    const encore_operation_payload_layout_t& layout(rocprofiler_callback_tracing_kind_t kind,
                                                    rocprofiler_tracing_operation_t op) {
        const auto key = (static_cast<std::uint64_t>(kind) << 32) | static_cast<std::uint32_t>(op);
        auto it = layouts_.find(key);
        if (it == layouts_.end()) {
            encore_operation_payload_layout_t l{};
            l.size = sizeof(l);
            if (encore_query_operation_payload_layout(kind, op, &l) != ROCPROFILER_STATUS_SUCCESS) l.payload_size = 0;
            it = layouts_.emplace(key, l).first;
        }
        return it->second;
    }

    // An argument's type as rocprofv3 writes it: the C API's typeid(T).name(), demangled
    // ("PKc" -> "char const*"), once per type (the pointer is the same for every call).
    const std::string& type_text(const char* type) {
        auto it = types_.find(type);
        if (it == types_.end()) it = types_.emplace(type, type != nullptr ? demangled(type) : std::string{}).first;
        return it->second;
    }

    std::size_t used_ = 0;
    std::unordered_map<const char*, std::string> types_;
    std::unordered_map<std::uint32_t, std::vector<std::byte>> payload_;
    std::unordered_map<std::uint64_t, encore_operation_payload_layout_t> layouts_;
};

// ---- writers -----------------------------------------------------------------------------------

struct call_view {
    std::uint64_t tid = 0;
    const rec::api_call_body* body = nullptr;
    const std::string* kind = nullptr;
    const std::string* op = nullptr;
    const std::vector<arg_text>* args = nullptr;  // null when no writer asked for them
    const std::string* retval = nullptr;          // as text ("" for none); with args
    std::string message;                          // a marker's message (its first string argument)
};

struct range_view {  // a marker range: push..pop or start..stop
    std::uint64_t tid = 0, start = 0, end = 0, correlation = 0;
    std::string message;
    std::string operation;  // roctxRangePushA or roctxRangeStartA
};

std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\r\n") == s.npos) return std::string(s);
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}


std::string us(std::uint64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
    return buf;
}

class writer_base {
public:
    virtual ~writer_base() = default;
    virtual bool wants_args() const { return false; }
    virtual void call(const call_view&) {}
    virtual void range(const range_view&) {}
    virtual void dispatch(std::uint64_t /*tid*/, const rec::dispatch_body&) {}
    virtual void copy(const rec::memory_copy_body&) {}
    virtual void allocation(const rec::allocation_body&) {}
    virtual bool finish(std::string& /*error*/) { return true; }
};

// The file a writer makes: refuses to overwrite nothing (the launcher picks a fresh folder), but
// reports a failure to open or write with the path.
//
// Written as PATH.partial and renamed to PATH once whole: a full disk (or a file size limit)
// leaves no cut file that a reader would take for a trace (issue 40 item 14: a trace.json cut
// mid-record); the partial file is removed and the error says why.
struct out_file {
    std::FILE* f = nullptr;
    std::string path;
    bool failed = false;
    int error_number = 0;  // the first failure's errno
    bool open(const std::string& p) {
        path = p;
        f = std::fopen((p + ".partial").c_str(), "w");
        if (f == nullptr) fail();
        return !failed;
    }
    void put(std::string_view s) {
        if (f != nullptr && !failed && std::fwrite(s.data(), 1, s.size(), f) != s.size()) fail();
    }
    bool close(std::string& error) {
        if (f != nullptr) {
            if (std::fclose(f) != 0) fail();
            f = nullptr;
            const std::string partial = path + ".partial";
            if (failed)
                ::unlink(partial.c_str());
            else if (std::rename(partial.c_str(), path.c_str()) != 0)
                fail();
        }
        if (failed) error = path + ": " + std::strerror(error_number) + " (not written)";
        return !failed;
    }

private:
    void fail() {
        if (!failed) error_number = errno != 0 ? errno : EIO;
        failed = true;
    }
};

// A Chrome trace-event array being written: "[", elements separated by ",\n", "]" at the end. One
// per process (-f json) or one for every process (combined_dir: encore-trace -o).
struct json_sink {
    out_file file;
    bool first = true;
    void element(std::string_view e) {
        file.put(first ? "[\n" : ",\n");
        first = false;
        file.put(e);
    }
    bool finish(std::string& error) {
        file.put(first ? "[\n]\n" : "\n]\n");
        return file.close(error);
    }
};

// A process's part of a JSON trace: its host track (calls, marker ranges, allocations), one process
// track per GPU agent with one thread track per queue (and one for copies), and an instant event
// saying how the process ended. `gpu_base` keeps the GPU tracks of processes apart in a combined
// trace (pids above any real pid: pid_max <= 2^22).
class json_writer final : public writer_base {
public:
    json_writer(const process& p, json_sink& sink, std::uint64_t gpu_base, std::string end_reason)
        : p_(p), sink_(sink), gpu_base_(gpu_base), end_reason_(std::move(end_reason)) {
        const std::uint64_t pid = p.dir->pid;
        sink_.element("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) +
                      ",\"tid\":0,\"args\":{\"name\":" + json_string("host (pid " + std::to_string(pid) + ")") + "}}");
    }
    // A writer of its own file (-f json): closes it in finish().
    json_writer(const process& p, std::unique_ptr<json_sink> own, std::string end_reason)
        : json_writer(p, *own, 1ull << 30, std::move(end_reason)) {
        own_ = std::move(own);
    }
    bool wants_args() const override { return true; }
    void call(const call_view& c) override {
        ++calls_;
        seen(c.body->end_ns);
        std::string j = "{\"ph\":\"X\",\"cat\":" + json_string(*c.kind) + ",\"name\":" + json_string(*c.op) +
                        ",\"pid\":" + std::to_string(p_.dir->pid) + ",\"tid\":" + std::to_string(c.tid) +
                        ",\"ts\":" + us(c.body->start_ns) +
                        ",\"dur\":" + us(c.body->end_ns >= c.body->start_ns ? c.body->end_ns - c.body->start_ns : 0) +
                        ",\"args\":{";
        for (const auto& a : *c.args) j += json_string(a.name) + ':' + json_string(a.value) + ',';
        if (c.retval != nullptr && !c.retval->empty()) j += "\"return\":" + json_string(*c.retval) + ',';
        j += "\"correlation_id\":" + std::to_string(c.body->correlation_id) + "}}";
        sink_.element(j);
    }
    void range(const range_view& r) override {
        seen(r.end);
        sink_.element("{\"ph\":\"X\",\"cat\":\"MARKER_CORE_API\",\"name\":" + json_string(r.message) +
                      ",\"pid\":" + std::to_string(p_.dir->pid) + ",\"tid\":" + std::to_string(r.tid) +
                      ",\"ts\":" + us(r.start) + ",\"dur\":" + us(r.end >= r.start ? r.end - r.start : 0) +
                      ",\"args\":{\"range\":" + json_string(r.operation) +
                      ",\"correlation_id\":" + std::to_string(r.correlation) + "}}");
    }
    void dispatch(std::uint64_t, const rec::dispatch_body& d) override {
        ++dispatches_;
        seen(d.end_ns);
        const auto [pid, tid] = track(d.agent, d.queue, "queue " + std::to_string(d.queue));
        sink_.element("{\"ph\":\"X\",\"cat\":\"KERNEL_DISPATCH\",\"name\":" + json_string(p_.kernel_name(d.kernel_id)) +
                      ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
                      ",\"ts\":" + us(d.start_ns) + ",\"dur\":" + us(d.end_ns >= d.start_ns ? d.end_ns - d.start_ns : 0) +
                      ",\"args\":{\"dispatch_id\":" + std::to_string(d.dispatch_id) + ",\"kernel_id\":\"" +
                      std::to_string(d.kernel_id) + "\",\"agent_id\":\"" + hex(d.agent) +
                      "\",\"queue_id\":" + std::to_string(d.queue) + ",\"grid\":\"" + std::to_string(d.grid[0]) + 'x' +
                      std::to_string(d.grid[1]) + 'x' + std::to_string(d.grid[2]) + "\",\"workgroup\":\"" +
                      std::to_string(d.workgroup[0]) + 'x' + std::to_string(d.workgroup[1]) + 'x' +
                      std::to_string(d.workgroup[2]) + "\",\"correlation_id\":" + std::to_string(d.correlation_id) +
                      "}}");
    }
    void copy(const rec::memory_copy_body& c) override {
        ++copies_;
        seen(c.end_ns);
        const std::uint64_t gpu = c.dst_agent != ~0ull ? c.dst_agent : c.src_agent;
        const auto [pid, tid] = track(gpu, ~0ull, "copies");
        sink_.element("{\"ph\":\"X\",\"cat\":\"MEMORY_COPY\",\"name\":" +
                      json_string(p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, c.operation)) +
                      ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
                      ",\"ts\":" + us(c.start_ns) + ",\"dur\":" + us(c.end_ns >= c.start_ns ? c.end_ns - c.start_ns : 0) +
                      ",\"args\":{\"bytes\":" + std::to_string(c.bytes) + ",\"src\":\"" + hex(c.src_address) +
                      "\",\"dst\":\"" + hex(c.dst_address) + "\",\"src_agent\":\"" + hex(c.src_agent) +
                      "\",\"dst_agent\":\"" + hex(c.dst_agent) +
                      "\",\"correlation_id\":" + std::to_string(c.correlation_id) + "}}");
    }
    void allocation(const rec::allocation_body& a) override {
        ++allocations_;
        seen(a.end_ns);
        sink_.element("{\"ph\":\"X\",\"cat\":\"MEMORY_ALLOCATION\",\"name\":" +
                      json_string(p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, a.operation)) +
                      ",\"pid\":" + std::to_string(p_.dir->pid) + ",\"tid\":" + std::to_string(a.thread_id) +
                      ",\"ts\":" + us(a.start_ns) + ",\"dur\":" + us(a.end_ns >= a.start_ns ? a.end_ns - a.start_ns : 0) +
                      ",\"args\":{\"address\":\"" + hex(a.address) + "\",\"bytes\":" + std::to_string(a.bytes) +
                      ",\"agent_id\":\"" + hex(a.agent) + "\",\"correlation_id\":" + std::to_string(a.correlation_id) +
                      "}}");
    }
    bool finish(std::string& error) override {
        // How the process ended, at its end (the tool's finalization, else its last record), with
        // what it left: a reader sees a SIGKILL as such instead of a trace that merely stops.
        const std::uint64_t end = p_.end_ns != 0 ? p_.end_ns : last_ns_;
        sink_.element("{\"ph\":\"i\",\"s\":\"p\",\"name\":" + json_string("end of trace (" + end_reason_ + ")") +
                      ",\"pid\":" + std::to_string(p_.dir->pid) + ",\"tid\":0,\"ts\":" + us(end) +
                      ",\"args\":{\"api_calls\":" + std::to_string(calls_) + ",\"kernel_dispatches\":" +
                      std::to_string(dispatches_) + ",\"memory_copies\":" + std::to_string(copies_) +
                      ",\"memory_allocations\":" + std::to_string(allocations_) + "}}");
        return own_ == nullptr || own_->finish(error);
    }

private:
    void seen(std::uint64_t t) { last_ns_ = t > last_ns_ ? t : last_ns_; }
    std::pair<std::uint64_t, std::uint64_t> track(std::uint64_t agent_handle, std::uint64_t queue,
                                                  const std::string& name) {
        auto it = pids_.find(agent_handle);
        if (it == pids_.end()) {
            std::string label = "GPU agent " + hex(agent_handle);
            std::uint64_t index = 4096 + pids_.size();
            if (auto a = p_.agents.find(agent_handle); a != p_.agents.end()) {
                label = "GPU agent " + std::to_string(a->second.type_index) + " (" + a->second.name + ")";
                index = static_cast<std::uint64_t>(a->second.type_index);
            } else if (agent_handle < 4096) {  // libencore-cuda's agents are device ordinals
                label = "CUDA device " + std::to_string(agent_handle);
                index = agent_handle;
            }
            if (gpu_base_ != (1ull << 30)) label += " of pid " + std::to_string(p_.dir->pid);
            it = pids_.emplace(agent_handle, gpu_base_ + index).first;
            sink_.element("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(it->second) +
                          ",\"tid\":0,\"args\":{\"name\":" + json_string(label) + "}}");
        }
        const auto key = std::make_pair(agent_handle, queue);
        auto q = tids_.find(key);
        if (q == tids_.end()) {
            q = tids_.emplace(key, tids_.size() + 1).first;
            sink_.element("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(it->second) +
                          ",\"tid\":" + std::to_string(q->second) + ",\"args\":{\"name\":" + json_string(name) + "}}");
        }
        return {it->second, q->second};
    }

    const process& p_;
    json_sink& sink_;
    std::unique_ptr<json_sink> own_;
    std::uint64_t gpu_base_;
    std::string end_reason_;
    std::uint64_t calls_ = 0, dispatches_ = 0, copies_ = 0, allocations_ = 0, last_ns_ = 0;
    std::map<std::uint64_t, std::uint64_t> pids_;
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> tids_;
};

// encore-trace -o DIR: one set of files for every process of the run (a program that forks,
// execs or runs others adds its records beside the first's instead of truncating them):
// trace.json, and the CSV files of encore's first tool with their columns, plus the process id.
struct combined_outputs {
    std::string dir;
    json_sink json;
    out_file api, kernel, copy, alloc;
    std::uint64_t processes = 0;  // the next process's index (its GPU tracks' place in trace.json)
    bool open(const std::string& d, std::string& error) {
        dir = d;
        if (::mkdir(d.c_str(), 0777) != 0 && errno != EEXIST) {
            error = "cannot create " + d + ": " + std::strerror(errno);
            return false;
        }
        out_file* files[] = {&json.file, &api, &kernel, &copy, &alloc};
        const char* names[] = {"trace.json", "api_trace.csv", "kernel_trace.csv", "memory_copy_trace.csv",
                               "memory_allocation_trace.csv"};
        for (int n = 0; n < 5; ++n)
            if (!files[n]->open(d + '/' + names[n])) {
                error = d + '/' + names[n] + ": " + std::strerror(errno);
                return false;
            }
        api.put("correlation_id,thread_id,kind,operation,start_ns,end_ns,return_value,process_id\n");
        kernel.put("dispatch_id,agent_id,agent,queue_id,kernel_id,kernel_name,grid_x,grid_y,grid_z,workgroup_x,"
                   "workgroup_y,workgroup_z,start_ns,end_ns,duration_ns,correlation_id,process_id\n");
        copy.put("correlation_id,thread_id,operation,src_agent_id,dst_agent_id,src_address,dst_address,bytes,start_ns,"
                 "end_ns,duration_ns,process_id\n");
        alloc.put("correlation_id,thread_id,operation,agent_id,address,bytes,start_ns,end_ns,process_id\n");
        return true;
    }
    std::vector<std::string> paths() const { return {json.file.path, api.path, kernel.path, copy.path, alloc.path}; }
    bool finish(std::vector<std::string>& errors) {
        std::string error;
        bool ok = true;
        for (out_file* f : {&api, &kernel, &copy, &alloc})
            if (!f->close(error)) ok = false, errors.push_back(error);
        if (!json.finish(error)) ok = false, errors.push_back(error);
        return ok;
    }
};

// A process's rows of the combined CSV files (combined_outputs).
class combined_csv_writer final : public writer_base {
public:
    combined_csv_writer(const process& p, combined_outputs& out) : p_(p), out_(out), pid_(std::to_string(p.dir->pid)) {}
    bool wants_args() const override { return true; }  // the return value
    void call(const call_view& c) override {
        out_.api.put(std::to_string(c.body->correlation_id) + ',' + std::to_string(c.tid) + ',' + csv_field(*c.kind) +
                     ',' + csv_field(*c.op) + ',' + std::to_string(c.body->start_ns) + ',' +
                     std::to_string(c.body->end_ns) + ',' + csv_field(c.retval != nullptr ? *c.retval : "") + ',' +
                     pid_ + '\n');
    }
    void dispatch(std::uint64_t, const rec::dispatch_body& d) override {
        out_.kernel.put(
            std::to_string(d.dispatch_id) + ',' + hex(d.agent) + ',' + csv_field(agent_label(d.agent)) + ',' +
            std::to_string(d.queue) + ',' + std::to_string(d.kernel_id) + ',' + csv_field(p_.kernel_name(d.kernel_id)) +
            ',' + std::to_string(d.grid[0]) + ',' + std::to_string(d.grid[1]) + ',' + std::to_string(d.grid[2]) + ',' +
            std::to_string(d.workgroup[0]) + ',' + std::to_string(d.workgroup[1]) + ',' +
            std::to_string(d.workgroup[2]) + ',' + std::to_string(d.start_ns) + ',' + std::to_string(d.end_ns) + ',' +
            std::to_string(d.end_ns >= d.start_ns ? d.end_ns - d.start_ns : 0) + ',' +
            std::to_string(d.correlation_id) + ',' + pid_ + '\n');
    }
    void copy(const rec::memory_copy_body& c) override {
        out_.copy.put(std::to_string(c.correlation_id) + ',' + std::to_string(c.thread_id) + ',' +
                      csv_field(p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, c.operation)) + ',' +
                      hex(c.src_agent) + ',' + hex(c.dst_agent) + ',' + hex(c.src_address) + ',' + hex(c.dst_address) +
                      ',' + std::to_string(c.bytes) + ',' + std::to_string(c.start_ns) + ',' + std::to_string(c.end_ns) +
                      ',' + std::to_string(c.end_ns >= c.start_ns ? c.end_ns - c.start_ns : 0) + ',' + pid_ + '\n');
    }
    void allocation(const rec::allocation_body& a) override {
        out_.alloc.put(std::to_string(a.correlation_id) + ',' + std::to_string(a.thread_id) + ',' +
                       csv_field(p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, a.operation)) + ',' +
                       hex(a.agent) + ',' + hex(a.address) + ',' + std::to_string(a.bytes) + ',' +
                       std::to_string(a.start_ns) + ',' + std::to_string(a.end_ns) + ',' + pid_ + '\n');
    }

private:
    // The agent as the first tool named it: "GPU <type index>", a CUDA device's ordinal.
    std::string agent_label(std::uint64_t handle) const {
        if (auto a = p_.agents.find(handle); a != p_.agents.end()) return "GPU " + std::to_string(a->second.type_index);
        if (handle < 4096) return "GPU " + std::to_string(handle);
        return "GPU agent " + hex(handle);
    }
    const process& p_;
    combined_outputs& out_;
    std::string pid_;
};

// The Perfetto trace (perfetto.hpp, docs/trace.md): the process, a track per thread (its calls,
// marker ranges and allocations), per GPU agent a track per queue and per copy direction, flows
// from each call to the kernels and copies of its correlation id.
class pftrace_writer final : public writer_base {
public:
    pftrace_writer(const process& p, const std::string& path, std::string& error) : p_(p) {
        ok_ = trace_.open(path, error);
        const std::vector<std::string>& argv = p.dir->cmdline;
        std::string name = !argv.empty() ? argv.front() : p.dir->exe;
        name = name.substr(name.rfind('/') + 1);
        process_ = trace_.process(p.dir->pid, name, argv);
        kernel_ = trace_.intern("KERNEL_DISPATCH");
        copy_ = trace_.intern("MEMORY_COPY");
        allocation_ = trace_.intern("MEMORY_ALLOCATION");
        range_ = trace_.intern("MARKER_CORE_RANGE_API");
        names_ = {trace_.intern("dispatch_id"), trace_.intern("grid"),          trace_.intern("workgroup"),
                  trace_.intern("lds_bytes"),   trace_.intern("scratch_bytes"), trace_.intern("bytes"),
                  trace_.intern("address"),     trace_.intern("agent"),         trace_.intern("operation"),
                  trace_.intern("return")};
    }
    bool ok() const { return ok_; }
    bool wants_args() const override { return true; }
    void call(const call_view& c) override {
        op_ids& op = ops_[c.op];
        if (op.kind != c.kind) {  // the first call of the op (or "?" of another kind)
            op = {trace_.intern(*c.op), trace_.intern(*c.kind), c.kind, {}};
        }
        args_.clear();
        for (std::size_t i = 0; i < c.args->size(); ++i) {
            const arg_text& a = (*c.args)[i];
            if (i == op.args.size()) op.args.emplace_back(a.name, trace_.intern(a.name));
            if (op.args[i].first != a.name) op.args[i] = {a.name, trace_.intern(a.name)};
            args_.add_text(op.args[i].second, a.value);
        }
        if (c.retval != nullptr && !c.retval->empty()) args_.add_text(names_.ret, *c.retval);
        trace_.slice(thread(c.tid), c.body->start_ns, c.body->end_ns, op.name, op.category, args_,
                     {c.body->correlation_id, perfetto::flow::out});
    }
    void range(const range_view& r) override {
        args_.clear();
        args_.add_string(names_.operation, r.operation);
        trace_.slice(thread(r.tid), r.start, r.end, trace_.intern(r.message.empty() ? r.operation : r.message), range_,
                     args_, {r.correlation, perfetto::flow::none});
    }
    void dispatch(std::uint64_t, const rec::dispatch_body& d) override {
        auto [it, added] = kernels_.try_emplace(d.kernel_id, 0);
        if (added) it->second = trace_.intern(p_.kernel_name(d.kernel_id));
        args_.clear();
        args_.add_uint(names_.dispatch_id, d.dispatch_id);
        const auto dims = [](const std::uint32_t(&v)[3]) {
            char buf[48];
            std::snprintf(buf, sizeof buf, "%ux%ux%u", v[0], v[1], v[2]);
            return std::string(buf);
        };
        const std::string grid = dims(d.grid), workgroup = dims(d.workgroup);
        args_.add_string(names_.grid, grid);
        args_.add_string(names_.workgroup, workgroup);
        args_.add_uint(names_.lds_bytes, d.group_segment_size);
        args_.add_uint(names_.scratch_bytes, d.private_segment_size);
        trace_.slice(gpu_track(d.agent, d.queue, "queue " + std::to_string(d.queue)), d.start_ns, d.end_ns, it->second,
                     kernel_, args_, {d.correlation_id, perfetto::flow::in});
    }
    void copy(const rec::memory_copy_body& c) override {
        const std::string& op = p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, c.operation);
        const std::uint64_t gpu = c.dst_agent != ~0ull ? c.dst_agent : c.src_agent;
        args_.clear();
        args_.add_uint(names_.bytes, c.bytes);
        // Queues are numbered from 0 up: copy tracks take the ids above them, one per direction.
        trace_.slice(gpu_track(gpu, ~0ull - static_cast<std::uint32_t>(c.operation), "copies " + op), c.start_ns,
                     c.end_ns, trace_.intern(op), copy_, args_, {c.correlation_id, perfetto::flow::in});
    }
    void allocation(const rec::allocation_body& a) override {
        args_.clear();
        args_.add_pointer(names_.address, a.address);
        args_.add_uint(names_.bytes, a.bytes);
        // The args keep views of their strings until the event is added: the text must outlive it.
        const std::string agent = a.agent != 0 ? hex(a.agent) : std::string();
        if (a.agent != 0) args_.add_string(names_.agent, agent);
        trace_.instant(thread(a.thread_id), a.start_ns,
                       trace_.intern(p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, a.operation)),
                       allocation_, args_, {a.correlation_id, perfetto::flow::none});
    }
    bool finish(std::string& error) override {
        const bool ok = trace_.finish(error);
        if (trace_.left_out() != 0)
            std::fprintf(stderr,
                         "[encore-trace] pftrace: %" PRIu64 " events overlapped 256 others on one track: left out\n",
                         trace_.left_out());
        return ok;
    }

private:
    struct op_ids {
        perfetto::string_id name = 0, category = 0;
        const std::string* kind = nullptr;
        std::vector<std::pair<std::string, perfetto::string_id>> args;  // as the op's last call named them
    };
    perfetto::track_id thread(std::uint64_t tid) {
        auto [it, added] = threads_.try_emplace(tid, 0);
        if (added) it->second = trace_.thread(process_, p_.dir->pid, static_cast<std::int64_t>(tid), "");
        return it->second;
    }
    perfetto::track_id gpu_track(std::uint64_t agent_handle, std::uint64_t queue, const std::string& name) {
        auto a = agents_.find(agent_handle);
        if (a == agents_.end()) {
            std::string label = "GPU agent " + hex(agent_handle);
            if (auto k = p_.agents.find(agent_handle); k != p_.agents.end())
                label = "GPU agent " + std::to_string(k->second.type_index) + " (" + k->second.name + ")";
            else if (agent_handle < 4096)  // libencore-cuda's agents are device ordinals
                label = "CUDA device " + std::to_string(agent_handle);
            a = agents_.emplace(agent_handle, trace_.track(perfetto::no_track, label, perfetto::layout::flat)).first;
        }
        auto [q, added] = queues_.try_emplace({agent_handle, queue}, 0);
        if (added) q->second = trace_.track(a->second, name, perfetto::layout::flat);
        return q->second;
    }

    const process& p_;
    perfetto::trace trace_;
    bool ok_ = false;
    perfetto::track_id process_ = perfetto::no_track;
    perfetto::string_id kernel_ = 0, copy_ = 0, allocation_ = 0, range_ = 0;
    struct {  // argument names of the GPU side, allocations and marker ranges
        perfetto::string_id dispatch_id, grid, workgroup, lds_bytes, scratch_bytes, bytes, address, agent, operation, ret;
    } names_{};
    perfetto::args args_;
    std::unordered_map<const std::string*, op_ids> ops_;  // process's names never move
    std::unordered_map<std::uint64_t, perfetto::string_id> kernels_;
    std::unordered_map<std::uint64_t, perfetto::track_id> threads_;
    std::map<std::uint64_t, perfetto::track_id> agents_;
    std::map<std::pair<std::uint64_t, std::uint64_t>, perfetto::track_id> queues_;
};

// rocprofv3's CSV files and columns (its kernel_trace, <domain>_api_trace, memory_copy_trace,
// memory_allocation_trace); one API file per kind seen.
class csv_writer final : public writer_base {
public:
    csv_writer(const process& p, std::string stem, bool& ok) : p_(p), stem_(std::move(stem)) {
        ok = kernel_.open(stem_ + "_kernel_trace.csv") && copy_.open(stem_ + "_memory_copy_trace.csv") &&
             alloc_.open(stem_ + "_memory_allocation_trace.csv");
        kernel_.put("\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
                    "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\","
                    "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\","
                    "\"Grid_Size_Z\"\n");
        copy_.put("\"Kind\",\"Direction\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\","
                  "\"Start_Timestamp\",\"End_Timestamp\",\"Bytes\"\n");
        alloc_.put("\"Kind\",\"Operation\",\"Agent_Id\",\"Allocation_Size\",\"Address\",\"Correlation_Id\","
                   "\"Start_Timestamp\",\"End_Timestamp\"\n");
    }
    void call(const call_view& c) override {
        auto& f = api_file(*c.kind);
        f.put(csv_field(*c.kind) + ',' + csv_field(*c.op) + ',' + std::to_string(p_.dir->pid) + ',' +
              std::to_string(c.tid) + ',' + std::to_string(c.body->correlation_id) + ',' +
              std::to_string(c.body->start_ns) + ',' + std::to_string(c.body->end_ns) + '\n');
    }
    void dispatch(std::uint64_t tid, const rec::dispatch_body& d) override {
        kernel_.put("KERNEL_DISPATCH," + std::to_string(d.agent) + ',' + std::to_string(d.queue) + ',' +
                    std::to_string(tid) + ',' + std::to_string(d.dispatch_id) + ',' + std::to_string(d.kernel_id) +
                    ',' + csv_field(p_.kernel_name(d.kernel_id)) + ',' + std::to_string(d.correlation_id) + ',' +
                    std::to_string(d.start_ns) + ',' + std::to_string(d.end_ns) + ',' +
                    std::to_string(d.group_segment_size) + ',' + std::to_string(d.private_segment_size) + ',' +
                    std::to_string(d.workgroup[0]) + ',' + std::to_string(d.workgroup[1]) + ',' +
                    std::to_string(d.workgroup[2]) + ',' + std::to_string(d.grid[0]) + ',' + std::to_string(d.grid[1]) +
                    ',' + std::to_string(d.grid[2]) + '\n');
    }
    void copy(const rec::memory_copy_body& c) override {
        copy_.put("MEMORY_COPY," + csv_field(p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, c.operation)) + ',' +
                  std::to_string(c.src_agent) + ',' + std::to_string(c.dst_agent) + ',' +
                  std::to_string(c.correlation_id) + ',' + std::to_string(c.start_ns) + ',' + std::to_string(c.end_ns) +
                  ',' + std::to_string(c.bytes) + '\n');
    }
    void allocation(const rec::allocation_body& a) override {
        alloc_.put("MEMORY_ALLOCATION," +
                   csv_field(p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, a.operation)) + ',' +
                   std::to_string(a.agent) + ',' + std::to_string(a.bytes) + ',' + hex(a.address) + ',' +
                   std::to_string(a.correlation_id) + ',' + std::to_string(a.start_ns) + ',' +
                   std::to_string(a.end_ns) + '\n');
    }
    bool finish(std::string& error) override {
        bool ok = kernel_.close(error);
        ok = copy_.close(error) && ok;
        ok = alloc_.close(error) && ok;
        for (auto& [k, f] : api_) ok = f->close(error) && ok;
        return ok;
    }
    std::vector<std::string> files() const {
        std::vector<std::string> out{kernel_.path, copy_.path, alloc_.path};
        for (auto& [k, f] : api_) out.push_back(f->path);
        return out;
    }

private:
    out_file& api_file(const std::string& kind) {
        // HSA_CORE_API and HSA_AMD_EXT_API -> hsa_api_trace, HIP_RUNTIME_API -> hip_api_trace,
        // MARKER_CORE_API -> marker_api_trace, CUDA_DRIVER_API -> cuda_api_trace: rocprofv3's
        // file per domain.
        std::string domain = kind.substr(0, kind.find('_'));
        std::transform(domain.begin(), domain.end(), domain.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        auto it = api_.find(domain);
        if (it == api_.end()) {
            it = api_.emplace(domain, std::make_unique<out_file>()).first;
            it->second->open(stem_ + '_' + domain + "_api_trace.csv");
            it->second->put("\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\","
                            "\"Start_Timestamp\",\"End_Timestamp\"\n");
        }
        return *it->second;
    }

    const process& p_;
    std::string stem_;
    out_file kernel_, copy_, alloc_;
    std::map<std::string, std::unique_ptr<out_file>> api_;  // by domain
};

#if ENCORE_TRACE_ROCPD
// rocpd: one database per process in AMD's schema (rocpd.hpp). Every agent a record names must be
// in rocpd_info_agent (AMD's views join on it): CUDA devices (ordinals) and the host side of a
// copy (UINT64_MAX on CUDA) are added as agents of their own when no agent record described them.
class rocpd_writer final : public writer_base {
public:
    rocpd_writer(const process& p, const std::string& path, std::string& error) : p_(p), path_(path) {
        rocpd::process_info info;
        info.pid = static_cast<std::uint64_t>(p.dir->pid);
        info.ppid = static_cast<std::uint64_t>(p.dir->ppid);
        info.start_ns = p.info.start_ns;
        info.end_ns = p.goodbye ? p.end_ns : p.info.start_ns;
        for (const auto& a : p.dir->cmdline) info.command += (info.command.empty() ? "" : " ") + a;
        info.hostname = p.dir->hostname;
        // The environment as rocprofv3 keeps it (rocpd_info_process.environment): a JSON object.
        info.environment_json = "{";
        for (const std::string& e : p.dir->environ) {
            const auto eq = e.find('=');
            if (eq == std::string::npos || eq == 0) continue;
            if (info.environment_json.size() > 1) info.environment_json += ',';
            info.environment_json += json_string(std::string_view(e).substr(0, eq)) + ':' +
                                     json_string(std::string_view(e).substr(eq + 1));
        }
        info.environment_json += '}';
        rocpd::fill_from_system(info);
        // No indexes of encore's own: rocprofv3's databases have none either, and building them
        // is a quarter of the writer's time (benchmarks/RESULTS.md); a user who queries one
        // region's arguments often can add them.
        rocpd::options o;
        o.create_indexes = false;
        db_ = rocpd::writer::open(path, info, &error, o);
        if (db_ == nullptr) return;
        for (const auto& [h, a] : p.agents)
            add_agent(h, a.type == ROCPROFILER_AGENT_TYPE_CPU ? "CPU" : "GPU", a.name, a.logical_index, a.type_index);
        for (const auto& [id, k] : p.kernels) {
            rocpd::kernel_symbol s;
            s.kernel_id = id;
            s.code_object_id = k.code_object_id;
            s.kernel_name = k.symbol;
            s.display_name = k.display;
            s.private_segment_size = k.private_segment_size;
            s.group_segment_size = k.group_segment_size;
            kept(db_->add_kernel_symbol(s));
        }
    }
    bool ok() const { return db_ != nullptr; }
    bool wants_args() const override { return true; }
    void call(const call_view& c) override {
        thread(c.tid);
        rocpd::region& r = region_;  // reused: its strings keep their capacity from call to call
        r.tid = c.tid;
        r.start_ns = c.body->start_ns;
        r.end_ns = c.body->end_ns;
        r.corr = {};
        r.corr.internal = c.body->correlation_id;
        r.category = *c.kind;
        r.name = *c.op;
        r.message = c.message;
        r.args.resize(c.args->size());
        for (std::size_t i = 0; i < c.args->size(); ++i) {
            const arg_text& a = (*c.args)[i];
            r.args[i].position = a.position;
            r.args[i].type = a.type;
            r.args[i].name = a.name;
            r.args[i].value = a.value;
        }
        kept(db_->add_region(r));
    }
    void range(const range_view& m) override {
        thread(m.tid);
        rocpd::region r;
        r.tid = m.tid;
        r.start_ns = m.start;
        r.end_ns = m.end;
        r.corr.internal = m.correlation;
        // As rocprofv3 writes a range: named by its operation, its text in the event's message.
        r.category = "MARKER_CORE_RANGE_API";
        r.name = m.operation;
        r.message = m.message;
        kept(db_->add_region(r));
    }
    void dispatch(std::uint64_t tid, const rec::dispatch_body& d) override {
        thread(tid);
        gpu(d.agent);
        rocpd::kernel_dispatch k;
        k.tid = tid;
        k.agent = d.agent;
        k.kernel_id = d.kernel_id;
        if (p_.kernels.find(d.kernel_id) == p_.kernels.end() && unnamed_.insert(d.kernel_id).second) {
            rocpd::kernel_symbol s;  // a kernel loaded before the tool started: named by its id
            s.kernel_id = d.kernel_id;
            s.kernel_name = s.display_name = p_.kernel_name(d.kernel_id);
            kept(db_->add_kernel_symbol(s));
        }
        k.dispatch_id = d.dispatch_id;
        k.queue_id = d.queue;
        k.start_ns = d.start_ns;
        k.end_ns = d.end_ns;
        k.corr.internal = k.corr.ancestor = d.correlation_id;
        k.private_segment_size = d.private_segment_size;
        k.group_segment_size = d.group_segment_size;
        std::copy(std::begin(d.workgroup), std::end(d.workgroup), k.workgroup);
        std::copy(std::begin(d.grid), std::end(d.grid), k.grid);
        if (queues_.insert(d.queue).second) kept(db_->add_queue(d.queue, "queue " + std::to_string(d.queue)));
        kept(db_->add_dispatch(k));
    }
    void copy(const rec::memory_copy_body& c) override {
        thread(c.thread_id);
        host_or_gpu(c.src_agent);
        host_or_gpu(c.dst_agent);
        rocpd::memory_copy m;
        m.tid = c.thread_id;
        m.start_ns = c.start_ns;
        m.end_ns = c.end_ns;
        m.corr.internal = m.corr.ancestor = c.correlation_id;
        m.src_agent = c.src_agent;
        m.dst_agent = c.dst_agent;
        m.src_address = c.src_address;
        m.dst_address = c.dst_address;
        m.size = c.bytes;
        m.name = p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, c.operation);
        kept(db_->add_copy(m));
    }
    void allocation(const rec::allocation_body& a) override {
        thread(a.thread_id);
        rocpd::memory_allocation m;
        m.tid = a.thread_id;
        m.start_ns = a.start_ns;
        m.end_ns = a.end_ns;
        m.corr.internal = m.corr.ancestor = a.correlation_id;
        const bool free = a.operation == ROCPROFILER_MEMORY_ALLOCATION_FREE ||
                          a.operation == ROCPROFILER_MEMORY_ALLOCATION_VMEM_FREE;
        if (!free && a.agent != 0) {
            host_or_gpu(a.agent);
            m.agent = a.agent;
        }
        m.address = a.address;
        m.size = a.bytes;
        m.type = free ? "FREE" : "ALLOC";
        m.level = a.operation == ROCPROFILER_MEMORY_ALLOCATION_VMEM_ALLOCATE ||
                          a.operation == ROCPROFILER_MEMORY_ALLOCATION_VMEM_FREE
                      ? "VIRTUAL"
                      : "REAL";
        kept(db_->add_allocation(m));
    }
    // Fails when a row was refused or the file could not be completed: a database missing rows is
    // not passed off as the run's (the records stay with encore-trace, which keeps them then).
    bool finish(std::string& error) override {
        const bool ok = db_->finish(&error);
        if (ok && refused_ != 0)
            error = path_ + ": " + std::to_string(refused_) + " rows were not written (the first: " + first_refusal_ +
                    ")";
        if (!ok) error = path_ + ": " + error;
        if (!ok || refused_ != 0) {
            ::unlink(path_.c_str());  // as the other formats: no cut file left
            return false;
        }
        return true;
    }

private:
    // An add_* that returned false: the row is not in the database (rocpd.hpp), counted.
    void kept(bool ok) {
        if (ok) return;
        if (refused_++ == 0) first_refusal_ = db_->error();
    }
    void add_agent(std::uint64_t handle, const char* type, const std::string& name, std::int64_t logical,
                   std::int64_t type_index) {
        if (!added_.insert(handle).second) return;
        rocpd::agent_info a;
        a.handle = handle;
        a.type = type;
        a.absolute_index = a.logical_index = logical;
        a.type_index = type_index;
        a.name = a.model_name = a.product_name = name;
        kept(db_->add_agent(a));
    }
    void gpu(std::uint64_t handle) {
        if (added_.count(handle) != 0) return;
        const bool ordinal = handle < 4096;  // libencore-cuda's agents are device ordinals
        add_agent(handle, "GPU", ordinal ? "CUDA device " + std::to_string(handle) : "GPU agent " + hex(handle),
                  ordinal ? static_cast<std::int64_t>(handle) : static_cast<std::int64_t>(1000 + added_.size()),
                  ordinal ? static_cast<std::int64_t>(handle) : 0);
    }
    void host_or_gpu(std::uint64_t handle) {
        if (added_.count(handle) != 0) return;
        if (handle == ~0ull)
            add_agent(handle, "CPU", "host", static_cast<std::int64_t>(2000 + added_.size()), 0);
        else
            gpu(handle);
    }
    void thread(std::uint64_t tid) {
        if (threads_.insert(tid).second) kept(db_->add_thread({tid, {}, 0, 0}));
    }

    const process& p_;
    std::unique_ptr<rocpd::writer> db_;
    rocpd::region region_;
    std::set<std::uint64_t> added_, threads_, queues_, unnamed_;
    std::string path_;
    std::uint64_t refused_ = 0;
    std::string first_refusal_;
};
#endif

// Every call on one line, as the program's threads made them (per thread, in order).
class print_writer final : public writer_base {
public:
    explicit print_writer(std::FILE* out) : out_(out) {}
    bool wants_args() const override { return true; }
    void call(const call_view& c) override {
        std::string line = "[encore-trace] tid=" + std::to_string(c.tid) +
                           " corr=" + std::to_string(c.body->correlation_id) + ' ' + *c.op + '(';
        bool first = true;
        for (const auto& a : *c.args) {
            if (!first) line += ", ";
            first = false;
            line += a.name + '=' + a.value;
        }
        line += ")";
        if (c.body->phase == ROCPROFILER_CALLBACK_PHASE_EXIT && c.retval != nullptr && !c.retval->empty())
            line += " -> " + *c.retval;
        line += '\n';
        std::fputs(line.c_str(), out_);
    }

private:
    std::FILE* out_;
};

// The summary: calls per function, dispatches per kernel, copies and allocations per operation.
class summary_writer final : public writer_base {
public:
    explicit summary_writer(const process& p) : p_(p) {}
    void call(const call_view& c) override {
        kinds_.insert(*c.kind);
        auto& s = calls_[*c.op];
        ++s.count;
        s.ns += c.body->end_ns >= c.body->start_ns ? c.body->end_ns - c.body->start_ns : 0;
    }
    void dispatch(std::uint64_t, const rec::dispatch_body& d) override {
        auto& s = kernels_[p_.kernel_name(d.kernel_id)];
        ++s.count;
        s.ns += d.end_ns >= d.start_ns ? d.end_ns - d.start_ns : 0;
    }
    void copy(const rec::memory_copy_body& c) override {
        auto& s = copies_[p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, c.operation)];
        ++s.count;
        s.bytes += c.bytes;
        s.ns += c.end_ns >= c.start_ns ? c.end_ns - c.start_ns : 0;
    }
    void allocation(const rec::allocation_body& a) override {
        auto& s = allocations_[p_.op_name(ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION, a.operation)];
        ++s.count;
        s.bytes += a.bytes;
    }
    void print(std::FILE* out) const {
        const auto by_time = [](const auto& m) {
            std::vector<std::pair<std::string, stat>> v(m.begin(), m.end());
            std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second.ns > b.second.ns; });
            return v;
        };
        std::uint64_t n = 0;
        for (auto& [k, s] : calls_) n += s.count;
        std::string kinds;
        for (const auto& k : kinds_) kinds += (kinds.empty() ? " (" : ", ") + k;
        if (!kinds.empty()) kinds += ')';
        std::fprintf(out, "[encore-trace] pid %d: %" PRIu64 " API calls%s, %zu distinct functions\n", p_.dir->pid, n,
                     kinds.c_str(), calls_.size());
        for (auto& [name, s] : by_time(calls_))
            std::fprintf(out, "[encore-trace] %8" PRIu64 "  %s  total %s us\n", s.count, name.c_str(), us(s.ns).c_str());
        n = 0;
        for (auto& [k, s] : kernels_) n += s.count;
        if (n != 0) {
            std::fprintf(out, "[encore-trace] pid %d: %" PRIu64 " kernel dispatches, %zu distinct kernels\n",
                         p_.dir->pid, n, kernels_.size());
            for (auto& [name, s] : by_time(kernels_))
                std::fprintf(out, "[encore-trace] %8" PRIu64 "  %s  total %s us, mean %s us\n", s.count, name.c_str(),
                             us(s.ns).c_str(), us(s.count != 0 ? s.ns / s.count : 0).c_str());
        }
        const auto memory = [&](const char* what, const std::map<std::string, stat>& m, bool timed) {
            std::uint64_t count = 0;
            for (auto& [k, s] : m) count += s.count;
            if (count == 0) return;
            std::fprintf(out, "[encore-trace] pid %d: %" PRIu64 " %s\n", p_.dir->pid, count, what);
            for (auto& [name, s] : m)
                if (timed)
                    std::fprintf(out, "[encore-trace] %8" PRIu64 "  %s  %" PRIu64 " bytes, total %s us\n", s.count,
                                 name.c_str(), s.bytes, us(s.ns).c_str());
                else
                    std::fprintf(out, "[encore-trace] %8" PRIu64 "  %s  %" PRIu64 " bytes\n", s.count, name.c_str(),
                                 s.bytes);
        };
        memory("memory copies", copies_, true);
        memory("memory allocations and frees", allocations_, false);
    }

private:
    struct stat {
        std::uint64_t count = 0, ns = 0, bytes = 0;
    };
    const process& p_;
    std::set<std::string> kinds_;
    std::map<std::string, stat> calls_, kernels_, copies_, allocations_;
};

// ---- one process ---------------------------------------------------------------------------------

// The process's folder and file stem, placeholders expanded (output_template.hpp); the folder is
// made here, per process, since a placeholder can give each process one of its own.
std::string stem_for(const convert_options& o, const process_dir& d, convert_result& result) {
    std::vector<std::string> unknown;
    const std::string dir = expand_output_template(o.output_dir, d, false, &unknown);
    const std::string name = expand_output_template(o.output_file, d, true, &unknown);
    for (const auto& u : unknown) {
        const std::string note = "unknown placeholder " + u + " (kept as written)";
        if (std::find(result.errors.begin(), result.errors.end(), note) == result.errors.end())
            result.errors.push_back(note);
    }
    for (std::size_t at = 0; at != std::string::npos;) {
        at = dir.find('/', at + 1);
        const std::string part = dir.substr(0, at);
        if (!part.empty() && ::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST) {
            result.ok = false;
            result.errors.push_back("cannot create " + part + ": " + std::strerror(errno));
            break;
        }
    }
    return dir + '/' + name;
}

bool has(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// Pass 1 over a process's files: what its records refer to.
void gather_process(process& p, convert_result& result) {
    for (const auto& t : p.dir->threads) {
        const read_result r = read_thread(t.path, [&](std::uint16_t type, const void* body, std::uint32_t n) {
            gather(p, type, body, n);
        });
        if (r.torn) ++result.torn;
        for (const auto d : r.drops) result.dropped += d;
    }
    p.ticks.finish();
}

// A fork child (no exec) wrote no names, agents or kernel symbols of its own (tool.cpp's
// on_fork_child): it has its parent's, those of the latest folder of its parent's pid opened
// before its own. What the child learned itself (a kind first used after the fork) stays.
// A child that wrote agents of its own started the tool itself (forked before its parent's
// runtime started, as GPU workers are): it inherits nothing, since its parent's agents are other
// handles under the same indexes and would take its own agents' rows in the database.
void inherit_from_parent(process& child, const std::vector<std::unique_ptr<process>>& all) {
    if (!child.agents.empty()) return;
    const process* parent = nullptr;
    for (const auto& q : all)
        if (q.get() != &child && q->dir->pid == child.dir->ppid &&
            q->dir->open_monotonic_ns <= child.dir->open_monotonic_ns &&
            (parent == nullptr || q->dir->open_monotonic_ns > parent->dir->open_monotonic_ns))
            parent = q.get();
    if (parent == nullptr) return;
    for (const auto& [k, names] : parent->kinds) child.kinds.emplace(k, names);
    for (const auto& [h, a] : parent->agents) child.agents.emplace(h, a);
    for (const auto& [id, k] : parent->kernels) child.kernels.emplace(id, k);
}

// How a process ended, as its trace's end names it: "exit" when the tool's finalization ran;
// "exec" when a later folder has its pid (the program image was replaced); for the launcher's
// child, the signal it died of or _exit(status); else "no exit" (a signal, _exit, or still
// running when the launcher's child ended).
std::string end_reason_of(const process& p, const convert_options& o, const std::vector<std::unique_ptr<process>>& all) {
    if (p.goodbye) return "exit";
    for (const auto& q : all)
        if (q.get() != &p && q->dir->pid == p.dir->pid && q->dir->open_monotonic_ns > p.dir->open_monotonic_ns)
            return "exec";
    if (o.launcher_pid > 0 && p.dir->ppid == o.launcher_pid) {
        if (o.child_signal > 0) {
            const char* abbrev = ::sigabbrev_np(o.child_signal);
            return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(o.child_signal);
        }
        if (o.child_status >= 0) return "_exit(" + std::to_string(o.child_status) + ")";
    }
    return "no exit";
}

// Pass 2: a process's calls and events to the writers (and to `combined`, when not null).
void convert_process(process& p, const convert_options& o, convert_result& result, combined_outputs* combined,
                     const std::string& end_reason) {
    const process_dir& dir = *p.dir;
    if (!p.hello) {
        result.errors.push_back(dir.path + ": no records of encore-trace's tool (not converted)");
        return;
    }
    if (p.info.layout != rec::layout_version) {
        result.ok = false;
        result.errors.push_back(dir.path + ": records of layout " + std::to_string(p.info.layout) +
                                ", this converter reads " + std::to_string(rec::layout_version));
        return;
    }
    const std::string stem = o.formats.empty() ? std::string() : stem_for(o, dir, result);
    std::vector<std::unique_ptr<writer_base>> writers;
    std::vector<std::string> files;
    if (has(o.formats, "json")) {
        auto sink = std::make_unique<json_sink>();
        if (!sink->file.open(stem + "_trace.json")) {
            result.ok = false;
            result.errors.push_back(stem + "_trace.json: " + std::strerror(errno));
        } else {
            files.push_back(stem + "_trace.json");
            writers.push_back(std::make_unique<json_writer>(p, std::move(sink), end_reason));
        }
    }
    if (combined != nullptr) {
        // Past the first process, each its own range of GPU track pids (8192 agents apiece).
        writers.push_back(std::make_unique<json_writer>(p, combined->json, (1ull << 30) + 8192 * combined->processes++,
                                                        end_reason));
        writers.push_back(std::make_unique<combined_csv_writer>(p, *combined));
    }
    if (has(o.formats, "pftrace")) {
        std::string error;
        auto w = std::make_unique<pftrace_writer>(p, stem + "_results.pftrace", error);
        if (!w->ok()) {
            result.ok = false;
            result.errors.push_back(error);
        } else {
            files.push_back(stem + "_results.pftrace");
            writers.push_back(std::move(w));
        }
    }
    if (has(o.formats, "csv")) {
        bool ok = false;
        auto w = std::make_unique<csv_writer>(p, stem, ok);
        if (!ok) {
            result.ok = false;
            result.errors.push_back(stem + "_*.csv: " + std::strerror(errno));
        } else {
            writers.push_back(std::move(w));
        }
    }
    csv_writer* csv = nullptr;
    for (auto& w : writers)
        if (auto* c = dynamic_cast<csv_writer*>(w.get())) csv = c;
    if (has(o.formats, "rocpd")) {
#if ENCORE_TRACE_ROCPD
        std::string error;
        auto w = std::make_unique<rocpd_writer>(p, stem + "_results.db", error);
        if (!w->ok()) {
            result.ok = false;
            result.errors.push_back(stem + "_results.db: " + error);
        } else {
            files.push_back(stem + "_results.db");
            writers.push_back(std::move(w));
        }
#else
        result.ok = false;
        result.errors.push_back("rocpd: this build has no SQLite (apt-get install libsqlite3-dev, then reconfigure)");
#endif
    }
    result.filtered += p.filtered_at_record;
    if (o.print_calls) writers.push_back(std::make_unique<print_writer>(o.out));
    auto* summary = o.summary ? new summary_writer(p) : nullptr;
    if (summary != nullptr) writers.emplace_back(summary);
    const bool args = std::any_of(writers.begin(), writers.end(), [](auto& w) { return w->wants_args(); });

    // The filters (convert_options): a kernel's verdict once per kernel; periods from the
    // process's start (the kernel's start time of it, on the records' clock), else the tool's.
    std::unordered_map<std::uint64_t, bool> kernel_kept;
    const auto kernel_ok = [&](std::uint64_t kernel_id) {
        if (!o.kernel_include && !o.kernel_exclude) return true;
        auto [it, added] = kernel_kept.try_emplace(kernel_id, true);
        if (added) {
            const std::string name = p.kernel_name(kernel_id);
            it->second = (!o.kernel_include || std::regex_search(name, *o.kernel_include)) &&
                         (!o.kernel_exclude || !std::regex_search(name, *o.kernel_exclude));
        }
        return it->second;
    };
    const std::uint64_t period_origin = dir.start_boottime_ns != 0 ? dir.start_boottime_ns : p.info.start_ns;
    const auto in_period = [&](std::uint64_t t) {
        return !o.collection_period || in_collection_period(*o.collection_period, period_origin, t);
    };
    arg_formatter formatter;
    alignas(64) std::byte payload_scratch[arg_formatter::scratch_size];  // the live stack: see arg_formatter
    std::vector<arg_text> call_args;
    std::string call_retval;
    // Marker ranges: push/pop per thread (a thread's file is in its order), start/stop by id.
    std::map<std::uint64_t, std::vector<range_view>> pushed;
    std::map<std::uint64_t, range_view> started;
    for (const auto& t : dir.threads) {
        const auto tid = static_cast<std::uint64_t>(t.tid);
        read_thread(t.path, [&](std::uint16_t type, const void* body, std::uint32_t n) {
            const auto* bytes = static_cast<const std::byte*>(body);
            switch (type) {
                case rec::api_call: {
                    rec::api_call_body b;
                    if (!read_body(body, n, b) || sizeof(b) + b.args_size + b.text_size > n) return;
                    if (p.info.clock == clock_tsc) {
                        // A call stays a call (an instant is start == end): at least 1 ns long.
                        const bool call = b.end_ns > b.start_ns;
                        b.start_ns = p.ticks.to_ns(b.start_ns);
                        b.end_ns = std::max(b.start_ns + (call ? 1 : 0), p.ticks.to_ns(b.end_ns));
                    }
                    const bool kept = in_period(b.start_ns);
                    const bool marker_call = b.kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API;
                    if (!kept) {
                        ++result.filtered;
                        if (!marker_call) return;  // a marker's call still opens or closes its range
                    } else {
                        ++result.calls;
                    }
                    call_view c;
                    c.tid = tid;
                    c.body = &b;
                    c.kind = &p.kind_name(b.kind);
                    c.op = &p.op_name(b.kind, b.operation);
                    const auto* text = reinterpret_cast<const char*>(bytes + sizeof(b) + b.args_size);
                    if (args) {
                        formatter.format(b, bytes + sizeof(b), text, call_args, call_retval, payload_scratch);
                    } else {
                        call_args.clear();
                        call_retval.clear();
                    }
                    c.args = &call_args;
                    c.retval = &call_retval;
                    const bool marker = marker_call;
                    if (marker && !call_args.empty()) {
                        const std::string& v = call_args.front().value;
                        c.message = v.size() >= 2 && v.front() == '"' ? v.substr(1, v.rfind('"') - 1) : v;
                    }
                    if (kept)
                        for (auto& w : writers) w->call(c);
                    if (marker) {
                        const std::string& op = *c.op;
                        if (op == "roctxRangePushA") {
                            pushed[tid].push_back({tid, b.start_ns, 0, b.correlation_id, c.message, op});
                        } else if (op == "roctxRangePop" && !pushed[tid].empty()) {
                            range_view r = pushed[tid].back();
                            pushed[tid].pop_back();
                            r.end = b.end_ns;
                            if (in_period(r.start))
                                for (auto& w : writers) w->range(r);
                        } else if (op == "roctxRangeStartA") {
                            started[b.retval] = {tid, b.start_ns, 0, b.correlation_id, c.message, op};
                        } else if (op == "roctxRangeStop" && !call_args.empty()) {
                            const auto id = std::strtoull(call_args.front().value.c_str(), nullptr, 0);
                            if (auto it = started.find(id); it != started.end()) {
                                it->second.end = b.end_ns;
                                if (in_period(it->second.start))
                                    for (auto& w : writers) w->range(it->second);
                                started.erase(it);
                            }
                        }
                    }
                    break;
                }
                case rec::dispatch:
                    to_writers<rec::dispatch_body>(body, n, result.dispatches, [&](const rec::dispatch_body& d) {
                        if (!kernel_ok(d.kernel_id) || !in_period(d.start_ns)) {
                            ++result.filtered;
                            --result.dispatches;
                            return;
                        }
                        for (auto& w : writers) w->dispatch(d.thread_id != 0 ? d.thread_id : tid, d);
                    });
                    break;
                case rec::memory_copy:
                    to_writers<rec::memory_copy_body>(body, n, result.copies, [&](const rec::memory_copy_body& c) {
                        if (!in_period(c.start_ns)) {
                            ++result.filtered;
                            --result.copies;
                            return;
                        }
                        for (auto& w : writers) w->copy(c);
                    });
                    break;
                case rec::allocation:
                    to_writers<rec::allocation_body>(body, n, result.allocations, [&](const rec::allocation_body& a) {
                        if (!in_period(a.start_ns)) {
                            ++result.filtered;
                            --result.allocations;
                            return;
                        }
                        for (auto& w : writers) w->allocation(a);
                    });
                    break;
                default: break;
            }
        });
    }
    for (auto& w : writers) {
        std::string error;
        if (!w->finish(error)) {
            result.ok = false;
            result.errors.push_back(error);
        }
    }
    if (csv != nullptr)
        for (auto& f : csv->files()) files.push_back(f);
    if (summary != nullptr) summary->print(o.out);
    // Only what is there: a writer that failed removed its file (no cut file is left).
    for (auto& f : files)
        if (exists(f)) result.written.push_back(f);
    ++result.processes;
}

}  // namespace

convert_result convert(const std::string& records_root, const convert_options& options) {
    convert_result result;
    const std::vector<process_dir> dirs = list_processes(records_root);
    std::vector<std::unique_ptr<process>> all;
    for (const process_dir& d : dirs) {
        if (!d.meta_valid) {
            result.errors.push_back(d.path + ": " + d.error);
            continue;
        }
        auto p = std::make_unique<process>();
        p->dir = &d;
        gather_process(*p, result);
        all.push_back(std::move(p));
    }
    for (auto& p : all) inherit_from_parent(*p, all);
    std::unique_ptr<combined_outputs> combined;
    if (!options.combined_dir.empty()) {
        combined = std::make_unique<combined_outputs>();
        std::string error;
        if (!combined->open(options.combined_dir, error)) {
            result.ok = false;
            result.errors.push_back(error);
            combined.reset();
        }
    }
    for (auto& p : all) convert_process(*p, options, result, combined.get(), end_reason_of(*p, options, all));
    if (combined != nullptr) {
        if (!combined->finish(result.errors)) result.ok = false;
        for (auto& f : combined->paths())
            if (exists(f)) result.written.push_back(f);
    }
    return result;
}

}  // namespace encore::trace
