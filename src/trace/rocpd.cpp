// src/trace/rocpd.cpp — the rocpd SQLite writer (rocpd.hpp): ids, interning, prepared inserts.
//
// How rows are filled follows rocprofv3's generateRocpd.cpp, so that AMD's tools find what they
// look for: every record gets a rocpd_event row (its category string, correlation ids) that the
// record's own row points at; API calls with a duration are regions, instants (start == end) are
// samples on a track per (thread, category); queue and stream 0 are "Default Queue" and "Default
// Stream", the others "Queue N" / "Stream N" in order of first use.
//
// Speed: the file is written once, after the run, by the launcher, so durability while writing
// buys nothing: no journal, no fsync, one exclusive transaction (or one per rows_per_commit rows),
// statements prepared once and bound with SQLITE_STATIC (the caller's strings outlive the step).
#include "rocpd.hpp"

#include "json.hpp"

#include <sqlite3.h>
#include <sys/utsname.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <type_traits>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace encore::trace::rocpd {

namespace detail {

std::string substitute(std::string_view sql, std::string_view uuid_suffix, std::string_view guid) {
    std::string out;
    out.reserve(sql.size() + sql.size() / 8);
    constexpr std::string_view uuid_key = "{{uuid}}", guid_key = "{{guid}}";
    std::size_t i = 0;
    while (i < sql.size()) {
        if (sql.compare(i, uuid_key.size(), uuid_key) == 0) {
            out += uuid_suffix;
            i += uuid_key.size();
        } else if (sql.compare(i, guid_key.size(), guid_key) == 0) {
            out += guid;
            i += guid_key.size();
        } else {
            out += sql[i++];
        }
    }
    return out;
}

namespace {
std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
}  // namespace

std::string uuid_v7(std::uint64_t unix_ns, std::uint64_t seed) {
    // RFC 9562: 48-bit Unix milliseconds, version 7, 12 + 62 bits of randomness (here derived
    // from the seed, so that one process's database always gets one uuid for one seed).
    const std::uint64_t ms = unix_ns / 1000000ULL;
    std::uint64_t state = seed;
    const std::uint64_t r1 = splitmix64(state), r2 = splitmix64(state);
    std::array<unsigned char, 16> b{};
    for (int i = 0; i < 6; ++i) b[static_cast<std::size_t>(i)] = static_cast<unsigned char>(ms >> (40 - 8 * i));
    b[6] = static_cast<unsigned char>(0x70 | ((r1 >> 8) & 0x0f));
    b[7] = static_cast<unsigned char>(r1);
    for (int i = 0; i < 8; ++i) b[static_cast<std::size_t>(8 + i)] = static_cast<unsigned char>(r2 >> (56 - 8 * i));
    b[8] = static_cast<unsigned char>(0x80 | (b[8] & 0x3f));
    char text[37];
    std::snprintf(text, sizeof text, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                  b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return text;
}

}  // namespace detail

namespace {

// FNV-1a: a hash that is the same in every build, so one machine gets one node id in every
// database encore writes on it (std::hash, which rocprofv3 uses, may differ between libraries).
std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 0xcbf29ce484222325ULL) {
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::string read_first_line(const char* path) {
    std::ifstream in(path);
    std::string line;
    if (in) std::getline(in, line);
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
    return line;
}


// sqlite3 stores 64-bit signed integers; ids and addresses above 2^63 keep their bits.
sqlite3_int64 i64(std::uint64_t v) { return static_cast<sqlite3_int64>(v); }

// Heterogeneous lookup: interning a string_view allocates only for a string seen the first time.
struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

class statement {
public:
    statement() = default;
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;
    ~statement() { sqlite3_finalize(stmt_); }

    bool prepare(sqlite3* db, const std::string& sql, std::string& err) {
        if (sqlite3_prepare_v3(db, sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt_,
                               nullptr) != SQLITE_OK) {
            err = std::string("rocpd: cannot prepare statement: ") + sqlite3_errmsg(db);
            return false;
        }
        return true;
    }
    statement& i(int col, sqlite3_int64 v) {
        sqlite3_bind_int64(stmt_, col, v);
        return *this;
    }
    statement& u(int col, std::uint64_t v) { return i(col, i64(v)); }
    statement& d(int col, double v) {
        sqlite3_bind_double(stmt_, col, v);
        return *this;
    }
    statement& null(int col) {
        sqlite3_bind_null(stmt_, col);
        return *this;
    }
    // The text must live until run() returns (SQLITE_STATIC: sqlite does not copy it).
    statement& t(int col, std::string_view v) {
        sqlite3_bind_text(stmt_, col, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
        return *this;
    }
    statement& t_or_null(int col, std::string_view v) { return v.empty() ? null(col) : t(col, v); }
    bool run(std::string& err) {
        const int rc = sqlite3_step(stmt_);
        sqlite3_reset(stmt_);
        if (rc != SQLITE_DONE) {
            err = std::string("rocpd: insert failed: ") + sqlite3_errmsg(sqlite3_db_handle(stmt_));
            return false;
        }
        return true;
    }

private:
    sqlite3_stmt* stmt_ = nullptr;
};

// Inserts rows a batch at a time: one statement execution per batch instead of per row, which
// matters because every table is AUTOINCREMENT (schema), whose sqlite_sequence bookkeeping runs
// once per statement: 2.5x the cost of a row without it, measured with bench_rocpd. Rows are bound
// straight into a multi-row `INSERT ... VALUES (row), (row), ...` (25% faster than `INSERT ...
// SELECT ... LIMIT ?`, which would take partial batches too) and kept, so that a partial batch at
// a commit goes row by row through a one-row statement. Same binding interface as `statement`;
// texts are copied into slots that live until the batch is stepped.
class batch {
public:
    // 256 rows: past this, larger batches measured no faster; fewer where the sqlite library
    // allows fewer bound parameters (999 before 3.32).
    static constexpr int max_rows = 256;

    batch() = default;
    batch(const batch&) = delete;
    batch& operator=(const batch&) = delete;
    ~batch() {
        sqlite3_finalize(many_);
        sqlite3_finalize(one_);
    }

    bool prepare(sqlite3* db, const std::string& into, int ncols, std::string& err) {
        ncols_ = ncols;
        rows_ = std::max(1, std::min(max_rows, sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, -1) / ncols));
        std::string row = "(";
        for (int c = 0; c < ncols; ++c) row += c ? ",?" : "?";
        row += ')';
        std::string sql = into + " VALUES " + row;
        bool ok = sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &one_, nullptr) == SQLITE_OK;
        for (int r = 1; r < rows_; ++r) sql += "," + row;
        ok = ok && sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &many_, nullptr) == SQLITE_OK;
        if (!ok) err = std::string("rocpd: cannot prepare statement: ") + sqlite3_errmsg(db);
        const auto n = static_cast<std::size_t>(rows_ * ncols);
        texts_.resize(n);
        values_.resize(n);
        return ok;
    }
    batch& i(int col, sqlite3_int64 v) {
        values_[static_cast<std::size_t>(base_ + col - 1)] = {kind::integer, v};
        sqlite3_bind_int64(many_, base_ + col, v);
        return *this;
    }
    batch& u(int col, std::uint64_t v) { return i(col, i64(v)); }
    batch& null(int col) {
        values_[static_cast<std::size_t>(base_ + col - 1)] = {kind::null, 0};
        sqlite3_bind_null(many_, base_ + col);
        return *this;
    }
    batch& t(int col, std::string_view v) {
        const auto k = static_cast<std::size_t>(base_ + col - 1);
        texts_[k].assign(v);
        values_[k] = {kind::text, 0};
        sqlite3_bind_text(many_, base_ + col, texts_[k].data(), static_cast<int>(v.size()), SQLITE_STATIC);
        return *this;
    }
    // Ends the row; inserts the batch when it is full.
    bool run(std::string& err) {
        ++filled_;
        base_ = filled_ * ncols_;
        return filled_ < rows_ || flush(err);
    }
    bool flush(std::string& err) {
        const int rows = filled_;
        filled_ = base_ = 0;
        if (rows == rows_) return step(many_, err);
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < ncols_; ++c) {
                const auto k = static_cast<std::size_t>(r * ncols_ + c);
                switch (values_[k].what) {
                    case kind::null: sqlite3_bind_null(one_, c + 1); break;
                    case kind::integer: sqlite3_bind_int64(one_, c + 1, values_[k].v); break;
                    case kind::text:
                        sqlite3_bind_text(one_, c + 1, texts_[k].data(), static_cast<int>(texts_[k].size()),
                                          SQLITE_STATIC);
                        break;
                }
            }
            if (!step(one_, err)) return false;
        }
        return true;
    }

private:
    enum class kind : unsigned char { null, integer, text };
    struct value {
        kind what;
        sqlite3_int64 v;
    };
    static bool step(sqlite3_stmt* s, std::string& err) {
        const int rc = sqlite3_step(s);
        sqlite3_reset(s);
        if (rc != SQLITE_DONE) {
            err = std::string("rocpd: insert failed: ") + sqlite3_errmsg(sqlite3_db_handle(s));
            return false;
        }
        return true;
    }
    sqlite3_stmt* many_ = nullptr;
    sqlite3_stmt* one_ = nullptr;
    int ncols_ = 0, rows_ = 1, filled_ = 0, base_ = 0;
    std::vector<std::string> texts_;
    std::vector<value> values_;
};

bool exec(sqlite3* db, const std::string& sql, std::string& err) {
    char* msg = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
        err = std::string("rocpd: ") + (msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return false;
    }
    return true;
}

bool one_of(std::string_view v, std::initializer_list<std::string_view> set) {
    for (auto s : set)
        if (v == s) return true;
    return false;
}

}  // namespace

void fill_from_system(process_info& p) {
    if (p.machine_id.empty()) p.machine_id = read_first_line("/etc/machine-id");
    if (p.machine_id.empty()) p.machine_id = read_first_line("/var/lib/dbus/machine-id");
    utsname u{};
    if (uname(&u) == 0) {
        if (p.system_name.empty()) p.system_name = u.sysname;
        if (p.hostname.empty()) p.hostname = u.nodename;
        if (p.release.empty()) p.release = u.release;
        if (p.version.empty()) p.version = u.version;
        if (p.hardware_name.empty()) p.hardware_name = u.machine;
#ifdef _GNU_SOURCE
        if (p.domain_name.empty()) p.domain_name = u.domainname;
#endif
    }
    if (p.machine_id.empty()) p.machine_id = p.hostname;  // a container without a machine id
}

// Closes the file after the statements, which are members declared after it (destroyed first).
struct connection {
    sqlite3* db = nullptr;
    connection() = default;
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;
    ~connection() { sqlite3_close_v2(db); }
};

struct writer::impl {
    connection conn;
    sqlite3* db = nullptr;  // conn.db
    std::string* err = nullptr;
    options opts;
    std::string uuid, guid, suffix;
    std::int64_t nid = 0;
    std::uint64_t pid = 0, ppid = 0;
    std::int64_t next_event = 1, next_string = 1, next_track = 1;
    std::uint64_t rows = 0;

    std::unordered_map<std::string, std::int64_t, string_hash, std::equal_to<>> strings;
    std::unordered_set<std::uint64_t> threads, queues, streams, symbols, code_objects;
    std::unordered_map<std::uint64_t, std::int64_t> agents;                 // handle -> rocpd id
    std::map<std::pair<std::uint64_t, std::int64_t>, std::int64_t> tracks;  // (tid, category) -> id

    statement s_string, s_thread, s_agent, s_queue, s_stream, s_code_object, s_symbol, s_track;
    batch s_event, s_arg, s_region, s_sample, s_dispatch, s_copy, s_alloc;  // the bulk of the rows
    std::string json;                                                       // scratch for extdata


    std::string table(std::string_view name) const { return "\"" + std::string(name) + suffix + "\""; }

    bool fail(std::string msg) {
        *err = std::move(msg);
        return false;
    }

    // One more row; commits every opts.rows_per_commit rows.
    bool count(std::uint64_t n = 1) {
        rows += n;
        if (opts.rows_per_commit == 0 || rows < opts.rows_per_commit) return true;
        rows = 0;
        return flush() && exec(db, "COMMIT; BEGIN", *err);
    }

    bool flush() {
        return s_event.flush(*err) && s_arg.flush(*err) && s_region.flush(*err) && s_sample.flush(*err) &&
               s_dispatch.flush(*err) && s_copy.flush(*err) && s_alloc.flush(*err);
    }

    bool intern(std::string_view s, std::int64_t& id) {
        if (auto it = strings.find(s); it != strings.end()) {
            id = it->second;
            return true;
        }
        id = next_string++;
        strings.emplace(std::string(s), id);
        return s_string.i(1, id).t(2, s).run(*err) && count();
    }

    bool ensure_thread(std::uint64_t tid, const thread_info* info = nullptr) {
        if (threads.count(tid)) return true;
        threads.insert(tid);
        s_thread.u(1, tid).i(2, nid).u(3, ppid).u(4, pid).u(5, tid);
        if (info) {
            s_thread.t_or_null(6, info->name);
            info->start_ns ? s_thread.u(7, info->start_ns) : s_thread.null(7);
            info->end_ns ? s_thread.u(8, info->end_ns) : s_thread.null(8);
        } else {
            s_thread.null(6).null(7).null(8);
        }
        return s_thread.run(*err) && count();
    }

    bool ensure_named(std::unordered_set<std::uint64_t>& set, statement& s, std::uint64_t id, std::string_view name,
                      std::string_view what) {
        if (set.count(id)) return true;
        std::string fallback;
        if (name.empty()) {
            // rocprofv3's names: the default is id 0, the others numbered in order of first use.
            fallback = id == 0 ? "Default " + std::string(what)
                               : std::string(what) + " " + std::to_string(set.size() - (set.count(0) ? 1 : 0));
            name = fallback;
        }
        set.insert(id);
        return s.u(1, id).i(2, nid).u(3, pid).t(4, name).run(*err) && count();
    }
    // A queue or stream named after a record made it exist (or the default one): rare, so no
    // prepared statement of its own.
    bool rename(std::string_view info_table, std::uint64_t id, std::string_view name) {
        statement s;
        return s.prepare(db, "UPDATE " + table(info_table) + " SET name = ?1 WHERE id = ?2", *err) &&
               s.t(1, name).u(2, id).run(*err);
    }
    bool ensure_queue(std::uint64_t id) { return ensure_named(queues, s_queue, id, {}, "Queue"); }
    bool ensure_stream(std::uint64_t id) { return ensure_named(streams, s_stream, id, {}, "Stream"); }

    bool agent_id(std::uint64_t handle, std::int64_t& id) {
        auto it = agents.find(handle);
        if (it == agents.end())
            return fail("rocpd: unknown agent handle " + std::to_string(handle) + " (add_agent first)");
        id = it->second;
        return true;
    }

    bool event(std::int64_t category_id, const correlation& c, std::string_view extdata, std::int64_t& id) {
        id = next_event++;
        return s_event.i(1, id)
                   .i(2, category_id)
                   .u(3, c.internal)
                   .u(4, c.ancestor)
                   .u(5, c.external)
                   .t(6, extdata.empty() ? std::string_view("{}") : extdata)
                   .run(*err) &&
               count();
    }

    bool prepare_all() {
        auto ins = [&](auto& s, std::string_view name, std::string_view cols, int n) {
            const std::string into = "INSERT INTO " + table(name) + " (" + std::string(cols) + ")";
            if constexpr (std::is_same_v<std::decay_t<decltype(s)>, batch>) {
                return s.prepare(db, into, n, *err);
            } else {
                std::string sql = into + " VALUES (";
                for (int k = 1; k <= n; ++k) sql += (k > 1 ? ",?" : "?") + std::to_string(k);
                return s.prepare(db, sql + ")", *err);
            }
        };
        return ins(s_string, "rocpd_string", "id,string", 2) &&
               ins(s_thread, "rocpd_info_thread", "id,nid,ppid,pid,tid,name,start,\"end\"", 8) &&
               ins(s_agent, "rocpd_info_agent",
                   "id,nid,pid,type,absolute_index,logical_index,type_index,uuid,name,model_name,"
                   "vendor_name,product_name,user_name,extdata",
                   14) &&
               ins(s_queue, "rocpd_info_queue", "id,nid,pid,name", 4) &&
               ins(s_stream, "rocpd_info_stream", "id,nid,pid,name", 4) &&
               ins(s_code_object, "rocpd_info_code_object",
                   "id,nid,pid,agent_id,uri,load_base,load_size,load_delta,storage_type,extdata", 10) &&
               ins(s_symbol, "rocpd_info_kernel_symbol",
                   "id,nid,pid,code_object_id,kernel_name,display_name,kernel_object,"
                   "kernarg_segment_size,kernarg_segment_alignment,group_segment_size,"
                   "private_segment_size,sgpr_count,arch_vgpr_count,accum_vgpr_count,extdata",
                   15) &&
               ins(s_event, "rocpd_event", "id,category_id,stack_id,parent_stack_id,correlation_id,extdata", 6) &&
               ins(s_arg, "rocpd_arg", "event_id,position,type,name,value", 5) &&
               ins(s_region, "rocpd_region", "nid,pid,tid,start,\"end\",name_id,event_id", 7) &&
               ins(s_track, "rocpd_track", "id,nid,pid,tid,name_id", 5) &&
               ins(s_sample, "rocpd_sample", "track_id,timestamp,event_id", 3) &&
               ins(s_dispatch, "rocpd_kernel_dispatch",
                   "nid,pid,tid,agent_id,kernel_id,dispatch_id,queue_id,stream_id,start,\"end\","
                   "private_segment_size,group_segment_size,workgroup_size_x,workgroup_size_y,"
                   "workgroup_size_z,grid_size_x,grid_size_y,grid_size_z,graph_exec_id,"
                   "graph_node_id,region_name_id,event_id",
                   22) &&
               ins(s_copy, "rocpd_memory_copy",
                   "nid,pid,tid,start,\"end\",name_id,dst_agent_id,dst_address,src_agent_id,"
                   "src_address,size,queue_id,stream_id,event_id",
                   14) &&
               ins(s_alloc, "rocpd_memory_allocate",
                   "nid,pid,tid,agent_id,type,level,start,\"end\",address,size,queue_id,stream_id,"
                   "event_id,extdata",
                   14);
    }
};

writer::writer(std::unique_ptr<impl> p) : impl_(std::move(p)), uuid_(impl_->uuid), guid_(impl_->guid) {
    impl_->err = &error_;
}

writer::~writer() {
    if (!finished_) finish(nullptr);
}


std::unique_ptr<writer> writer::open(const std::string& path, const process_info& process, std::string* error,
                                     const options& opts) {
    std::string err;
    auto set_error = [&](std::string msg) {
        if (error) *error = std::move(msg);
        return nullptr;
    };
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return set_error("rocpd: " + path + " exists; not overwriting it");
    if (process.machine_id.empty()) return set_error("rocpd: process_info.machine_id is empty (call fill_from_system)");

    auto p = std::make_unique<impl>();
    p->err = &err;
    p->opts = opts;
    p->pid = process.pid;
    p->ppid = process.ppid;

    // The guid names this process's rows in merged databases; seeded as rocprofv3 seeds it (machine,
    // pid, ppid, start), timed now so that ids sort by creation like rocprofv3's.
    const auto now_ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    std::uint64_t seed = fnv1a(process.machine_id);
    seed = fnv1a(
        std::to_string(process.pid) + "/" + std::to_string(process.ppid) + "/" + std::to_string(process.start_ns), seed);
    p->guid = detail::uuid_v7(now_ns, seed);
    p->uuid = p->guid;
    for (char& c : p->uuid)
        if (c == '-') c = '_';
    p->suffix = "_" + p->uuid;

    const std::uint64_t node_hash = fnv1a(process.machine_id) %
                                    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    p->nid = static_cast<std::int64_t>(node_hash % std::numeric_limits<std::uint32_t>::max());

    const int rc = sqlite3_open_v2(path.c_str(), &p->conn.db,
                                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    p->db = p->conn.db;
    if (rc != SQLITE_OK) {
        std::string msg = "rocpd: cannot create " + path + ": " + (p->db ? sqlite3_errmsg(p->db) : "out of memory");
        return set_error(std::move(msg));
    }
    // Written once, read later: no rollback journal, no fsync while writing (a crash mid-write
    // leaves a file to discard, which a crashed converter leaves anyway). 64 KiB pages: 4% faster
    // than 4 KiB in bench_rocpd, and fewer, larger reads for the views' full scans later.
    const std::string pragmas = "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                                "PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-262144;"
                                "PRAGMA foreign_keys=OFF;";
    if (!exec(p->db, pragmas, err) || !exec(p->db, "BEGIN", err) ||
        !exec(p->db, detail::substitute(detail::tables_sql(), p->suffix, p->guid), err) ||
        // Indexes before the rows: the rows come in key order (event ids), so each index entry is
        // an append; 10% less CPU than building the indexes at finish() (bench_rocpd, 2 M regions).
        (opts.create_indexes && !exec(p->db, detail::substitute(detail::indexes_sql(), p->suffix, p->guid), err)) ||
        !p->prepare_all()) {
        p.reset();
        std::filesystem::remove(path, ec);
        return set_error(err);
    }

    // rocpd_metadata: the version, its parts, the creation time, and the uuid as the table suffix
    // (with its leading '_') and the guid, as rocprofv3 writes them.
    const std::string_view v = schema_version;
    const auto dot1 = v.find('.'), dot2 = v.rfind('.');
    const std::string meta = "INSERT INTO " + p->table("rocpd_metadata") + " (tag, value) VALUES ('schema_version', '" +
                             std::string(v) + "'), ('schema_version_major', '" + std::string(v.substr(0, dot1)) +
                             "'), ('schema_version_minor', '" + std::string(v.substr(dot1 + 1, dot2 - dot1 - 1)) +
                             "'), ('schema_version_patch', '" + std::string(v.substr(dot2 + 1)) +
                             "'), ('schema_creation_time', CURRENT_TIMESTAMP), ('uuid', '" + p->suffix +
                             "'), ('guid', '" + p->guid + "')";

    statement node, proc;
    bool ok = exec(p->db, meta, err) &&
              node.prepare(p->db,
                           "INSERT INTO " + p->table("rocpd_info_node") +
                               " (id,hash,machine_id,system_name,hostname,release,version,hardware_name,"
                               "domain_name) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)",
                           err) &&
              node.i(1, p->nid)
                  .u(2, node_hash)
                  .t(3, process.machine_id)
                  .t(4, process.system_name)
                  .t(5, process.hostname)
                  .t(6, process.release)
                  .t(7, process.version)
                  .t(8, process.hardware_name)
                  .t(9, process.domain_name)
                  .run(err) &&
              proc.prepare(p->db,
                           "INSERT INTO " + p->table("rocpd_info_process") +
                               " (id,nid,ppid,pid,init,fini,start,\"end\",command,environment,extdata)"
                               " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
                           err) &&
              proc.u(1, process.pid)
                  .i(2, p->nid)
                  .u(3, process.ppid)
                  .u(4, process.pid)
                  .u(5, process.start_ns)
                  .u(6, process.end_ns)
                  .u(7, process.start_ns)
                  .u(8, process.end_ns)
                  .t(9, process.command)
                  .t(10, process.environment_json.empty() ? std::string_view("{}") : process.environment_json)
                  .t(11, process.extdata_json.empty() ? std::string_view("{}") : process.extdata_json)
                  .run(err) &&
              p->ensure_queue(0) && p->ensure_stream(0);
    if (!ok) {
        p.reset();
        std::filesystem::remove(path, ec);
        return set_error(err);
    }
    return std::unique_ptr<writer>(new writer(std::move(p)));
}

bool writer::add_agent(const agent_info& a) {
    if (finished_) return false;
    auto& p = *impl_;
    if (!one_of(a.type, {"CPU", "GPU", "NIC"}))
        return p.fail("rocpd: agent type must be CPU, GPU or NIC, not '" + a.type + "'");
    if (p.agents.count(a.handle)) return p.fail("rocpd: agent handle " + std::to_string(a.handle) + " added twice");
    const std::int64_t id = a.absolute_index;
    if (!p.s_agent.i(1, id)
             .i(2, p.nid)
             .u(3, p.pid)
             .t(4, a.type)
             .i(5, a.absolute_index)
             .i(6, a.logical_index)
             .i(7, a.type_index)
             .u(8, a.uuid)
             .t(9, a.name)
             .t(10, a.model_name)
             .t(11, a.vendor_name)
             .t(12, a.product_name)
             .t(13, a.user_name.empty() ? a.product_name : a.user_name)
             .t(14, a.extdata_json.empty() ? std::string_view("{}") : a.extdata_json)
             .run(error_))
        return false;
    p.agents.emplace(a.handle, id);
    // rocprofv3 interns agents' names; done here so that a merge sees the same rocpd_string.
    std::int64_t ignored = 0;
    return p.intern(a.name, ignored) && p.count();
}

bool writer::add_thread(const thread_info& t) {
    if (finished_) return false;
    if (impl_->threads.count(t.tid))
        return impl_->fail("rocpd: thread " + std::to_string(t.tid) + " added twice (add threads before their records)");
    return impl_->ensure_thread(t.tid, &t);
}

bool writer::add_queue(std::uint64_t queue_id, const std::string& name) {
    if (finished_) return false;
    auto& p = *impl_;
    return p.queues.count(queue_id) ? p.rename("rocpd_info_queue", queue_id, name)
                                    : p.ensure_named(p.queues, p.s_queue, queue_id, name, "Queue");
}

bool writer::add_stream(std::uint64_t stream_id, const std::string& name) {
    if (finished_) return false;
    auto& p = *impl_;
    return p.streams.count(stream_id) ? p.rename("rocpd_info_stream", stream_id, name)
                                      : p.ensure_named(p.streams, p.s_stream, stream_id, name, "Stream");
}

bool writer::add_code_object(const code_object& c) {
    if (finished_) return false;
    auto& p = *impl_;
    std::int64_t agent = 0;
    if (!p.agent_id(c.agent, agent)) return false;
    if (!c.storage_type.empty() && !one_of(c.storage_type, {"FILE", "MEMORY"}))
        return p.fail("rocpd: code object storage_type must be FILE or MEMORY, not '" + c.storage_type + "'");
    // extdata carries what the code_objects view extracts (rocprofv3 stores its whole record).
    p.json = "{\"size\":" + std::to_string(c.size) + ",\"storage_type\":" + json_string(c.storage_type) +
             ",\"memory_base\":" + std::to_string(c.memory_base) + ",\"memory_size\":" + std::to_string(c.memory_size) +
             ",\"uri\":" + json_string(c.uri) + "}";
    if (!p.s_code_object.u(1, c.code_object_id)
             .i(2, p.nid)
             .u(3, p.pid)
             .i(4, agent)
             .t_or_null(5, c.uri)
             .u(6, c.load_base)
             .u(7, c.load_size)
             .i(8, c.load_delta)
             .t_or_null(9, c.storage_type)
             .t(10, p.json)
             .run(error_))
        return false;
    p.code_objects.insert(c.code_object_id);
    std::int64_t ignored = 0;
    return c.uri.empty() ? p.count() : p.intern(c.uri, ignored) && p.count();
}

bool writer::add_kernel_symbol(const kernel_symbol& k) {
    if (finished_) return false;
    auto& p = *impl_;
    const std::string& display = k.display_name.empty() ? k.kernel_name : k.display_name;
    p.json = "{\"kernel_id\":" + std::to_string(k.kernel_id) + ",\"code_object_id\":" + std::to_string(k.code_object_id) +
             ",\"kernel_name\":" + json_string(k.kernel_name) + ",\"formatted_kernel_name\":" + json_string(display) +
             ",\"demangled_kernel_name\":" + json_string(display) +
             ",\"truncated_kernel_name\":" + json_string(display) + ",\"size\":" + std::to_string(k.size) +
             ",\"kernel_code_entry_byte_offset\":" + std::to_string(k.kernel_code_entry_byte_offset) +
             ",\"kernel_address\":{\"handle\":" + std::to_string(k.kernel_object) + "}}";
    if (!p.s_symbol.u(1, k.kernel_id)
             .i(2, p.nid)
             .u(3, p.pid)
             .u(4, k.code_object_id)
             .t(5, k.kernel_name)
             .t(6, display)
             .u(7, k.kernel_object)
             .u(8, k.kernarg_segment_size)
             .u(9, k.kernarg_segment_alignment)
             .u(10, k.group_segment_size)
             .u(11, k.private_segment_size)
             .u(12, k.sgpr_count)
             .u(13, k.arch_vgpr_count)
             .u(14, k.accum_vgpr_count)
             .t(15, p.json)
             .run(error_))
        return false;
    p.symbols.insert(k.kernel_id);
    std::int64_t ignored = 0;
    return p.intern(k.kernel_name, ignored) && p.intern(display, ignored) && p.count();
}

bool writer::add_region(const region& r) {
    if (finished_) return false;
    auto& p = *impl_;
    std::int64_t category = 0, name = 0, event = 0;
    if (!p.intern(r.category, category) || !p.intern(r.name, name) || !p.ensure_thread(r.tid)) return false;
    std::string_view extdata;
    if (!r.message.empty()) {
        p.json = "{\"message\":";
        p.json += json_string(r.message);
        p.json += '}';
        extdata = p.json;
    }
    if (!p.event(category, r.corr, extdata, event)) return false;
    for (const arg& a : r.args)
        if (!p.s_arg.i(1, event).u(2, a.position).t(3, a.type).t(4, a.name).t(5, a.value).run(error_)) return false;
    if (r.start_ns != r.end_ns)
        return p.s_region.i(1, p.nid).u(2, p.pid).u(3, r.tid).u(4, r.start_ns).u(5, r.end_ns).i(6, name).i(7, event).run(error_) &&
               p.count(1 + r.args.size());
    // An instant (roctxMark, a call timed as one point) is a sample on the thread's track of
    // its category, as rocprofv3 writes it.
    const auto key = std::make_pair(r.tid, category);
    auto it = p.tracks.find(key);
    if (it == p.tracks.end()) {
        const std::int64_t track = p.next_track++;
        if (!p.s_track.i(1, track).i(2, p.nid).u(3, p.pid).u(4, r.tid).i(5, category).run(error_)) return false;
        it = p.tracks.emplace(key, track).first;
    }
    return p.s_sample.i(1, it->second).u(2, r.start_ns).i(3, event).run(error_) && p.count(1 + r.args.size());
}

bool writer::add_dispatch(const kernel_dispatch& d) {
    if (finished_) return false;
    auto& p = *impl_;
    std::int64_t agent = 0, category = 0, region_name = 0, event = 0;
    if (!p.agent_id(d.agent, agent) || !p.intern("KERNEL_DISPATCH", category) ||
        !p.intern(d.region_name, region_name) || !p.ensure_thread(d.tid) || !p.ensure_queue(d.queue_id) ||
        !p.ensure_stream(d.stream_id) || !p.event(category, d.corr, {}, event))
        return false;
    return p.s_dispatch.i(1, p.nid)
               .u(2, p.pid)
               .u(3, d.tid)
               .i(4, agent)
               .u(5, d.kernel_id)
               .u(6, d.dispatch_id)
               .u(7, d.queue_id)
               .u(8, d.stream_id)
               .u(9, d.start_ns)
               .u(10, d.end_ns)
               .u(11, d.private_segment_size)
               .u(12, d.group_segment_size)
               .u(13, d.workgroup[0])
               .u(14, d.workgroup[1])
               .u(15, d.workgroup[2])
               .u(16, d.grid[0])
               .u(17, d.grid[1])
               .u(18, d.grid[2])
               .u(19, d.graph_exec_id)
               .u(20, d.graph_node_id)
               .i(21, region_name)
               .i(22, event)
               .run(error_) &&
           p.count();
}

bool writer::add_copy(const memory_copy& c) {
    if (finished_) return false;
    auto& p = *impl_;
    std::int64_t dst = 0, src = 0, category = 0, name = 0, event = 0;
    if (!p.agent_id(c.dst_agent, dst) || !p.agent_id(c.src_agent, src) || !p.intern("MEMORY_COPY", category) ||
        !p.intern(c.name, name) || !p.ensure_thread(c.tid) || !p.ensure_stream(c.stream_id) ||
        (c.queue_id && !p.ensure_queue(*c.queue_id)) || !p.event(category, c.corr, {}, event))
        return false;
    p.s_copy.i(1, p.nid)
        .u(2, p.pid)
        .u(3, c.tid)
        .u(4, c.start_ns)
        .u(5, c.end_ns)
        .i(6, name)
        .i(7, dst)
        .u(8, c.dst_address)
        .i(9, src)
        .u(10, c.src_address)
        .u(11, c.size)
        .u(13, c.stream_id)
        .i(14, event);
    c.queue_id ? p.s_copy.u(12, *c.queue_id) : p.s_copy.null(12);
    return p.s_copy.run(error_) && p.count();
}

bool writer::add_allocation(const memory_allocation& m) {
    if (finished_) return false;
    auto& p = *impl_;
    if (!one_of(m.type, {"ALLOC", "FREE", "REALLOC", "RECLAIM"}))
        return p.fail("rocpd: allocation type must be ALLOC, FREE, REALLOC or RECLAIM, not '" + m.type + "'");
    if (!one_of(m.level, {"REAL", "VIRTUAL", "SCRATCH"}))
        return p.fail("rocpd: allocation level must be REAL, VIRTUAL or SCRATCH, not '" + m.level + "'");
    std::int64_t agent = 0, category = 0, event = 0;
    const std::string_view cat = !m.category.empty()    ? std::string_view(m.category)
                                 : m.level == "SCRATCH" ? std::string_view("SCRATCH_MEMORY")
                                                        : std::string_view("MEMORY_ALLOCATION");
    if ((m.agent && !p.agent_id(*m.agent, agent)) || !p.intern(cat, category) || !p.ensure_thread(m.tid) ||
        !p.ensure_queue(m.queue_id) || !p.ensure_stream(m.stream_id) || !p.event(category, m.corr, {}, event))
        return false;
    p.s_alloc.i(1, p.nid)
        .u(2, p.pid)
        .u(3, m.tid)
        .t(5, m.type)
        .t(6, m.level)
        .u(7, m.start_ns)
        .u(8, m.end_ns)
        .u(9, m.address)
        .u(10, m.size)
        .u(11, m.queue_id)
        .u(12, m.stream_id)
        .i(13, event);
    m.agent ? p.s_alloc.i(4, agent) : p.s_alloc.null(4);
    std::string extdata = m.flags ? "{\"flags\":" + std::to_string(*m.flags) + "}" : std::string("{}");
    p.s_alloc.t(14, extdata);
    return p.s_alloc.run(error_) && p.count();
}

bool writer::finish(std::string* error) {
    if (finished_) {
        if (error && !finish_ok_) *error = error_;
        return finish_ok_;
    }
    finished_ = true;
    auto& p = *impl_;
    std::string err;
    p.err = &err;
    const bool ok = p.flush() && exec(p.db, "COMMIT", err) &&
                    exec(p.db,
                         "BEGIN;" + detail::substitute(detail::views_sql(), p.suffix, p.guid) +
                             std::string(detail::data_views_sql()) + std::string(detail::summary_views_sql()) + "COMMIT;",
                         err);
    impl_.reset();  // finalizes the statements and closes the file
    finish_ok_ = ok;
    if (!ok) {
        error_ = err;
        if (error) *error = err;
    }
    return ok;
}

}  // namespace encore::trace::rocpd
