// src/trace/rocpd.hpp — writes one process's trace as a rocpd SQLite database (AMD's schema).
//
// rocpd is the SQLite format of AMD's rocprofiler-sdk (rocprofv3 --output-format rocpd). A
// database written here has the per-process tables of schema 3.0.3 (named `<table>_<uuid>`),
// the `rocpd_*` views over them, and the data and summary views (`regions`, `kernels`,
// `top_kernels`, ...), so AMD's `rocpd convert`, `rocpd summary` and `rocpd query` read it as
// they read rocprofv3's. Rows are filled the way rocprofv3 fills them (generateRocpd.cpp):
// categories are kind names ("HSA_CORE_API", "KERNEL_DISPATCH", "MEMORY_COPY", ...), names are
// operation names, ids of processes, threads, agents, queues, streams, code objects and kernel
// symbols are the caller's own ids.
//
// The launcher writes a database once, after the traced process ended, so the writer is built for
// bulk: prepared statements, multi-row inserts, one transaction, no journal, no fsync.
//
//   namespace rp = encore::trace::rocpd;
//   rp::process_info proc{.pid = 42, .ppid = 1, .start_ns = t0, .end_ns = t1, .command = "./app"};
//   rp::fill_from_system(proc);                       // hostname, machine id, uname fields
//   std::string err;
//   auto db = rp::writer::open("out/42_results.db", proc, &err);
//   if (!db) { /* err says why */ }
//   db->add_agent({.handle = 7, .type = "GPU", .absolute_index = 1, .name = "gfx942"});
//   db->add_region({.tid = 42, .start_ns = a, .end_ns = b, .corr = {.internal = 1},
//                   .category = "HSA_CORE_API", .name = "hsa_init"});
//   if (!db->finish(&err)) { /* ... */ }
//
// Layers: callers (encore-trace's converter) -> writer (this header) -> sqlite3 C API. No
// dependency on libencore.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace encore::trace::rocpd {

// The rocpd schema the writer produces; written to rocpd_metadata as schema_version and its parts.
inline constexpr std::string_view schema_version = "3.0.3";

// The process (rocpd_info_process) and the machine it ran on (rocpd_info_node).
struct process_info {
    std::uint64_t pid = 0;
    std::uint64_t ppid = 0;
    std::uint64_t start_ns = 0;           // written as both init and start, as rocprofv3 does
    std::uint64_t end_ns = 0;             // written as both fini and end
    std::string command{};                // argv joined with spaces
    std::string environment_json = "{}";  // JSON object {"NAME": "value", ...}
    std::string extdata_json = "{}";      // the tool's configuration, as JSON (free form)
    // rocpd_info_node: machine_id must not be empty (fill_from_system reads /etc/machine-id).
    std::string machine_id{}, hostname{}, system_name{}, release{}, version{}, hardware_name{}, domain_name{};
};

// Fills the node fields left empty from this machine: /etc/machine-id (hostname when absent) and
// uname(2). For the launcher, which converts on the machine the program ran on.
void fill_from_system(process_info& p);

// A thread (rocpd_info_thread, id = tid). Threads a record names but nobody added are added with
// no name, as rocprofv3 does for every thread.
struct thread_info {
    std::uint64_t tid = 0;
    std::string name{};                      // empty: NULL
    std::uint64_t start_ns = 0, end_ns = 0;  // 0: NULL
};

// An agent (rocpd_info_agent). Its rocpd id is absolute_index, as rocprofv3's is (the views show
// it as agent_abs_index); records name agents by handle.
struct agent_info {
    std::uint64_t handle = 0;  // the caller's agent id, used by dispatches, copies, allocations
    std::string type{};        // "CPU", "GPU" or "NIC"
    std::int64_t absolute_index = 0, logical_index = 0, type_index = 0;
    std::uint64_t uuid = 0;  // rocprofiler's device_id
    std::string name{}, model_name{}, vendor_name{}, product_name{};
    std::string user_name{};          // empty: product_name, as rocprofv3 writes
    std::string extdata_json = "{}";  // the full agent description, free-form JSON
};

// A code object (rocpd_info_code_object, id = code_object_id). The code_objects view shows only
// code objects whose agent was added.
struct code_object {
    std::uint64_t code_object_id = 0;
    std::uint64_t agent = 0;  // agent handle
    std::string uri{};
    std::uint64_t load_base = 0, load_size = 0;
    std::int64_t load_delta = 0;
    std::string storage_type{};  // "FILE", "MEMORY" or empty (NULL, as rocprofv3 leaves it)
    std::uint64_t size = 0, memory_base = 0, memory_size = 0;  // into extdata
};

// A kernel symbol (rocpd_info_kernel_symbol, id = kernel_id).
struct kernel_symbol {
    std::uint64_t kernel_id = 0, code_object_id = 0;
    std::string kernel_name{};   // as loaded (mangled, with .kd)
    std::string display_name{};  // what views and summaries show: demangled (rocprofv3's formatted)
    std::uint64_t kernel_object = 0;
    std::uint32_t kernarg_segment_size = 0, kernarg_segment_alignment = 0;
    std::uint32_t group_segment_size = 0, private_segment_size = 0;
    std::uint32_t sgpr_count = 0, arch_vgpr_count = 0, accum_vgpr_count = 0;
    std::uint64_t size = 0, kernel_code_entry_byte_offset = 0;  // into extdata
};

// One argument of an API call (rocpd_arg).
struct arg {
    std::uint32_t position = 0;
    std::string type{}, name{}, value{};
};

// Correlation ids as rocprofv3 stores them in rocpd_event: stack_id = internal, parent_stack_id =
// ancestor (the internal id of the enclosing call; internal for device records), correlation_id =
// external.
struct correlation {
    std::uint64_t internal = 0, ancestor = 0, external = 0;
};

// An API call or a marker (rocpd_region, or rocpd_sample when start == end: roctxMark).
// category is the kind name ("HSA_CORE_API", "HIP_RUNTIME_API", "MARKER_CORE_API",
// "MARKER_CORE_RANGE_API", ...) and name the operation ("hsa_queue_create", "roctxRangePushA").
// A marker's text goes in message (event extdata {"message": ...}, where AMD's tools read it).
struct region {
    std::uint64_t tid = 0, start_ns = 0, end_ns = 0;
    correlation corr{};
    std::string category{}, name{};
    std::string message{};  // empty: no message
    std::vector<arg> args{};
};

// A kernel dispatch (rocpd_kernel_dispatch), category "KERNEL_DISPATCH".
struct kernel_dispatch {
    std::uint64_t tid = 0, agent = 0, kernel_id = 0, dispatch_id = 0;
    std::uint64_t queue_id = 0, stream_id = 0;  // 0: the default queue / stream
    std::uint64_t start_ns = 0, end_ns = 0;
    correlation corr{};  // rocprofv3 writes ancestor = internal for dispatches
    std::uint32_t private_segment_size = 0, group_segment_size = 0;
    std::uint32_t workgroup[3] = {1, 1, 1}, grid[3] = {1, 1, 1};
    std::uint64_t graph_exec_id = 0, graph_node_id = 0;
    std::string region_name{};  // the kernels view's `region` (a kernel-rename range); may be empty
};

// A memory copy (rocpd_memory_copy), category "MEMORY_COPY".
struct memory_copy {
    std::uint64_t tid = 0, start_ns = 0, end_ns = 0;
    correlation corr{};
    std::uint64_t dst_agent = 0, src_agent = 0;  // agent handles
    std::uint64_t dst_address = 0, src_address = 0, size = 0;
    std::optional<std::uint64_t> queue_id{};  // rocprofv3 leaves it NULL
    std::uint64_t stream_id = 0;
    std::string name{};  // the operation, e.g. "MEMORY_COPY_HOST_TO_DEVICE"
};

// A memory allocation or release (rocpd_memory_allocate). category defaults to
// "SCRATCH_MEMORY" for level SCRATCH and "MEMORY_ALLOCATION" otherwise.
struct memory_allocation {
    std::uint64_t tid = 0, start_ns = 0, end_ns = 0;
    correlation corr{};
    std::optional<std::uint64_t> agent{};  // handle; rocprofv3 sets it for ALLOC only
    std::uint64_t address = 0, size = 0;
    std::uint64_t queue_id = 0, stream_id = 0;
    std::string type{};                   // "ALLOC", "FREE", "REALLOC" or "RECLAIM"
    std::string level{};                  // "REAL", "VIRTUAL" or "SCRATCH"
    std::optional<std::int64_t> flags{};  // extdata {"flags": N}: the scratch_memory view's alloc_flags
    std::string category{};
};

// Tuning knobs, each with its trade-off.
struct options {
    // Indexes on the columns the views join on that are not primary keys (arguments, dispatches
    // and counter values by event): region_args and counter queries without a sort of the whole
    // table each time, for ~15% more writing time.
    bool create_indexes = true;
    // Rows per commit; 0: one transaction for the whole file. Smaller bounds what a crash in the
    // middle loses, at a small cost per commit.
    std::uint64_t rows_per_commit = 0;
};

// One process's database. Not thread-safe: one thread at a time (the connection is opened
// without sqlite's mutexes). Rows of the bulk tables (events, arguments, regions, samples,
// dispatches, copies, allocations) reach the file in batches; a write error that only the file
// system can cause (a full disk) is then reported by a later add_* or by finish().
class writer {
public:
    // Creates the database at path (refusing to overwrite an existing file), its tables and
    // metadata rows (schema_version, uuid, guid), the node and process rows, and begins a
    // transaction. Returns null with *error set on failure.
    static std::unique_ptr<writer> open(const std::string& path, const process_info& process, std::string* error,
                                        const options& opts = {});

    writer(const writer&) = delete;
    writer& operator=(const writer&) = delete;
    ~writer();  // finishes if finish() was not called (errors are then lost: call finish)

    // Each returns false when the row was not written; error() then says why. A record naming an
    // agent that was not added is refused (the views join agents with INNER JOIN).
    bool add_agent(const agent_info& a);
    bool add_thread(const thread_info& t);
    // Names a queue or stream (rocpd_info_queue/_stream, id = the caller's id). Records create
    // the ones they name ("Queue N", "Stream N"; 0 is "Default Queue" / "Default Stream", present
    // from the start), so these only rename, whenever they are called.
    bool add_queue(std::uint64_t queue_id, const std::string& name);
    bool add_stream(std::uint64_t stream_id, const std::string& name);
    bool add_code_object(const code_object& c);
    bool add_kernel_symbol(const kernel_symbol& k);
    bool add_region(const region& r);
    bool add_dispatch(const kernel_dispatch& d);
    bool add_copy(const memory_copy& c);
    bool add_allocation(const memory_allocation& m);

    // Commits, creates the views, closes the file. Idempotent: a second call returns
    // the first one's result.
    bool finish(std::string* error);

    const std::string& error() const { return error_; }
    const std::string& uuid() const { return uuid_; }  // the table suffix without its '_'
    const std::string& guid() const { return guid_; }  // the UUIDv7, with dashes

    struct impl;

private:
    explicit writer(std::unique_ptr<impl> p);
    std::unique_ptr<impl> impl_;
    std::string uuid_, guid_;  // kept past finish()
    std::string error_;
    bool finished_ = false, finish_ok_ = false;
};

namespace detail {
// The SQL text of the schema, with {{uuid}} (the table suffix, "_" + uuid) and {{guid}}
// placeholders (rocpd_schema.cpp). Exposed for tests and for rebuilding views after a merge.
std::string_view tables_sql();
std::string_view views_sql();          // rocpd_* views over the per-process tables
std::string_view data_views_sql();     // kernels, regions, memory_copies, ...
std::string_view summary_views_sql();  // top_kernels, busy, top
std::string_view indexes_sql();
std::string substitute(std::string_view sql, std::string_view uuid_suffix, std::string_view guid);
// A UUIDv7 (RFC 9562) from a time in ns since the epoch and a seed: deterministic per process.
std::string uuid_v7(std::uint64_t unix_ns, std::uint64_t seed);
}  // namespace detail

}  // namespace encore::trace::rocpd
