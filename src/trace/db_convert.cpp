// src/trace/db_convert.cpp — a rocpd database into Perfetto, JSON and CSV (db_convert.hpp).
#include "db_convert.hpp"

#include "json.hpp"
#include "perfetto.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>

namespace encore::trace::db_convert {

namespace {

namespace pf = encore::trace::perfetto;

// The operation of an allocation row, as the record path's CSV names it (rocprofiler's operation
// names); the database keeps only its type and level.
constexpr const char* allocation_operation =
    "CASE WHEN level = 'SCRATCH' THEN (CASE type WHEN 'ALLOC' THEN 'SCRATCH_MEMORY_ALLOC' WHEN 'FREE' THEN "
    "'SCRATCH_MEMORY_FREE' ELSE 'SCRATCH_MEMORY_ASYNC_RECLAIM' END) "
    "WHEN level = 'VIRTUAL' THEN (CASE type WHEN 'ALLOC' THEN 'MEMORY_ALLOCATION_VMEM_ALLOCATE' ELSE "
    "'MEMORY_ALLOCATION_VMEM_FREE' END) "
    "ELSE (CASE type WHEN 'ALLOC' THEN 'MEMORY_ALLOCATION_ALLOCATE' WHEN 'FREE' THEN 'MEMORY_ALLOCATION_FREE' "
    "ELSE 'MEMORY_ALLOCATION_' || coalesce(type, '') END) END";

class out_file {
public:
    ~out_file() {
        if (f_ != nullptr) std::fclose(f_);
    }
    bool open(const std::string& path, std::string* error) {
        path_ = path;
        f_ = std::fopen(path.c_str(), "w");
        if (f_ == nullptr) *error = path + ": " + std::strerror(errno);
        if (f_ != nullptr) std::setvbuf(f_, nullptr, _IOFBF, 1 << 20);
        return f_ != nullptr;
    }
    void put(std::string_view s) { std::fwrite(s.data(), 1, s.size(), f_); }
    bool close(std::string* error) {
        const bool ok = std::ferror(f_) == 0 && std::fclose(f_) == 0;
        f_ = nullptr;
        if (!ok) *error = path_ + ": " + std::strerror(errno);
        return ok;
    }
    const std::string& path() const { return path_; }

private:
    std::FILE* f_ = nullptr;
    std::string path_;
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

std::string us(std::int64_t ns) {
    char buf[32];
    const std::uint64_t v = ns < 0 ? 0 : static_cast<std::uint64_t>(ns);
    std::snprintf(buf, sizeof buf, "%" PRIu64 ".%03" PRIu64, v / 1000, v % 1000);
    return buf;
}

std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return buf;
}

// A prepared statement stepped by hand (the Perfetto writer reads regions and their arguments
// side by side).
class cursor {
public:
    cursor(const rocpd::reader& db, const std::string& sql, std::string* error) : db_(db) {
        if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &s_, nullptr) != SQLITE_OK) {
            *error = db.path() + ": " + sqlite3_errmsg(db.handle());
            s_ = nullptr;
        }
    }
    ~cursor() { sqlite3_finalize(s_); }
    bool ok() const { return s_ != nullptr; }
    /// The next row; false at the end or on an error (then *error says which).
    bool next(std::string* error) {
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc != SQLITE_DONE) *error = db_.path() + ": " + sqlite3_errmsg(db_.handle());
        done_ = true;
        return false;
    }
    bool done() const { return done_; }
    rocpd::row row() const { return rocpd::row(s_); }

private:
    const rocpd::reader& db_;
    sqlite3_stmt* s_ = nullptr;
    bool done_ = false;
};

// ---- CSV: rocprofv3's files, the record path's columns ------------------------------------------

bool write_csv(const rocpd::reader& db, const std::string& stem, std::vector<std::string>& written, std::string* error) {
    out_file kernel, copy, alloc;
    if (!kernel.open(stem + "_kernel_trace.csv", error) || !copy.open(stem + "_memory_copy_trace.csv", error) ||
        !alloc.open(stem + "_memory_allocation_trace.csv", error))
        return false;
    kernel.put("\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
               "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\","
               "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\","
               "\"Grid_Size_Z\"\n");
    copy.put("\"Kind\",\"Direction\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\","
             "\"Start_Timestamp\",\"End_Timestamp\",\"Bytes\"\n");
    alloc.put("\"Kind\",\"Operation\",\"Agent_Id\",\"Allocation_Size\",\"Address\",\"Correlation_Id\","
              "\"Start_Timestamp\",\"End_Timestamp\"\n");
    const auto i = [](const rocpd::row& r, int c) { return std::to_string(r.i64(c)); };
    bool ok = db.each(
        "SELECT agent_abs_index, queue_id, tid, dispatch_id, kernel_id, name, stack_id, start, \"end\", lds_size, "
        "scratch_size, workgroup_x, workgroup_y, workgroup_z, grid_x, grid_y, grid_z FROM kernels ORDER BY start",
        [&](const rocpd::row& r) {
            std::string line = "KERNEL_DISPATCH";
            for (int c = 0; c < 17; ++c) line += ',' + (c == 5 ? csv_field(r.text(c)) : i(r, c));
            kernel.put(line + '\n');
        },
        error);
    ok = ok && db.each(
                   "SELECT name, src_agent_abs_index, dst_agent_abs_index, stack_id, start, \"end\", size "
                   "FROM memory_copies ORDER BY start",
                   [&](const rocpd::row& r) {
                       copy.put("MEMORY_COPY," + csv_field(r.text(0)) + ',' + i(r, 1) + ',' + i(r, 2) + ',' + i(r, 3) +
                                ',' + i(r, 4) + ',' + i(r, 5) + ',' + i(r, 6) + '\n');
                   },
                   error);
    ok = ok &&
         db.each(
             std::string("SELECT ") + allocation_operation +
                 ", agent_abs_index, size, address, stack_id, start, \"end\" FROM memory_allocations "
                 "ORDER BY start",
             [&](const rocpd::row& r) {
                 alloc.put("MEMORY_ALLOCATION," + std::string(r.text(0)) + ',' + (r.null(1) ? std::string() : i(r, 1)) +
                           ',' + i(r, 2) + ',' + hex(static_cast<std::uint64_t>(r.i64(3))) + ',' + i(r, 4) + ',' +
                           i(r, 5) + ',' + i(r, 6) + '\n');
             },
             error);
    // One API file per domain, as the record path's: HSA_CORE_API and HSA_AMD_EXT_API ->
    // hsa_api_trace, MARKER_* -> marker_api_trace (marker ranges by their message), ...
    std::map<std::string, std::unique_ptr<out_file>> api;
    ok = ok && db.each(
                   "SELECT category, name, pid, tid, stack_id, start, \"end\" FROM regions ORDER BY start",
                   [&](const rocpd::row& r) {
                       const std::string_view kind = r.text(0);
                       std::string domain(kind.substr(0, kind.find('_')));
                       for (auto& c : domain) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                       if (domain.empty()) domain = "unknown";
                       auto it = api.find(domain);
                       if (it == api.end()) {
                           it = api.emplace(domain, std::make_unique<out_file>()).first;
                           if (!it->second->open(stem + '_' + domain + "_api_trace.csv", error)) {
                               api.erase(it);
                               return;
                           }
                           it->second->put("\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\","
                                           "\"Start_Timestamp\",\"End_Timestamp\"\n");
                       }
                       it->second->put(csv_field(kind) + ',' + csv_field(r.text(1)) + ',' + i(r, 2) + ',' + i(r, 3) +
                                       ',' + i(r, 4) + ',' + i(r, 5) + ',' + i(r, 6) + '\n');
                   },
                   error);
    for (out_file* f : {&kernel, &copy, &alloc}) {
        ok = f->close(error) && ok;
        written.push_back(f->path());
    }
    for (auto& [d, f] : api) {
        ok = f->close(error) && ok;
        written.push_back(f->path());
    }
    return ok;
}

// ---- the processes of a database ----------------------------------------------------------------

struct process {
    std::int64_t pid = 0;
    std::string command;
};

bool read_processes(const rocpd::reader& db, std::map<std::string, std::size_t>& by_guid, std::vector<process>& out,
                    std::string* error) {
    return db.each(
        "SELECT guid, pid, coalesce(command, '') FROM processes ORDER BY start, pid",
        [&](const rocpd::row& r) {
            if (by_guid.emplace(std::string(r.text(0)), out.size()).second)
                out.push_back({r.i64(1), std::string(r.text(2))});
        },
        error);
}

// A flow id unique in the file: correlation ids are per process, so a merged database's
// processes are told apart by the high bits.
std::uint64_t flow_id(std::size_t process, std::int64_t correlation) {
    return (static_cast<std::uint64_t>(process) << 48) | (static_cast<std::uint64_t>(correlation) & ((1ull << 48) - 1));
}

// ---- JSON: Chrome trace events, as the record path writes them --------------------------------

bool write_json(const rocpd::reader& db, const std::string& path, std::vector<std::string>& written, std::string* error) {
    std::map<std::string, std::size_t> by_guid;
    std::vector<process> procs;
    if (!read_processes(db, by_guid, procs, error)) return false;
    out_file f;
    if (!f.open(path, error)) return false;
    f.put("[");
    bool first = true;
    const auto put = [&](const std::string& e) {
        f.put(first ? "\n" : ",\n");
        f.put(e);
        first = false;
    };
    for (const auto& p : procs)
        put("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(p.pid) +
            ",\"tid\":0,\"args\":{\"name\":" + json_string("host (pid " + std::to_string(p.pid) + ")") + "}}");
    // GPU queues and copy tracks as named threads of the process: ids above any real tid.
    std::map<std::pair<std::int64_t, std::string>, std::int64_t> tracks;
    const auto track = [&](std::int64_t pid, const std::string& name) {
        auto [it, added] = tracks.try_emplace({pid, name}, 0);
        if (added) {
            it->second = (1ll << 40) + static_cast<std::int64_t>(tracks.size());
            put("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(pid) +
                ",\"tid\":" + std::to_string(it->second) + ",\"args\":{\"name\":" + json_string(name) + "}}");
        }
        return it->second;
    };
    const auto event = [](std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid,
                          std::int64_t start, std::int64_t end) {
        return "{\"ph\":\"X\",\"cat\":" + json_string(cat) + ",\"name\":" + json_string(name) +
               ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + us(start) +
               ",\"dur\":" + us(end >= start ? end - start : 0) + ",\"args\":{";
    };
    bool ok = db.each(
        "SELECT category, name, pid, tid, start, \"end\", stack_id FROM regions ORDER BY start",
        [&](const rocpd::row& r) {
            put(event(r.text(0), r.text(1), r.i64(2), r.i64(3), r.i64(4), r.i64(5)) +
                "\"correlation_id\":" + std::to_string(r.i64(6)) + "}}");
        },
        error);
    ok = ok && db.each(
                   "SELECT name, pid, agent_abs_index, queue_id, start, \"end\", dispatch_id, grid_x, grid_y, "
                   "grid_z, workgroup_x, workgroup_y, workgroup_z, stack_id FROM kernels ORDER BY start",
                   [&](const rocpd::row& r) {
                       const auto tid = track(r.i64(1), "GPU agent " + std::to_string(r.i64(2)) + " queue " +
                                                            std::to_string(r.i64(3)));
                       put(event("KERNEL_DISPATCH", r.text(0), r.i64(1), tid, r.i64(4), r.i64(5)) +
                           "\"dispatch_id\":" + std::to_string(r.i64(6)) + ",\"grid\":\"" + std::to_string(r.i64(7)) +
                           'x' + std::to_string(r.i64(8)) + 'x' + std::to_string(r.i64(9)) + "\",\"workgroup\":\"" +
                           std::to_string(r.i64(10)) + 'x' + std::to_string(r.i64(11)) + 'x' +
                           std::to_string(r.i64(12)) + "\",\"correlation_id\":" + std::to_string(r.i64(13)) + "}}");
                   },
                   error);
    ok = ok && db.each(
                   "SELECT name, pid, CASE WHEN dst_agent_type = 'GPU' THEN dst_agent_abs_index ELSE "
                   "src_agent_abs_index END, start, \"end\", size, stack_id FROM memory_copies ORDER BY start",
                   [&](const rocpd::row& r) {
                       const auto tid = track(r.i64(1), "GPU agent " + std::to_string(r.i64(2)) + " copies");
                       put(event("MEMORY_COPY", r.text(0), r.i64(1), tid, r.i64(3), r.i64(4)) + "\"bytes\":" +
                           std::to_string(r.i64(5)) + ",\"correlation_id\":" + std::to_string(r.i64(6)) + "}}");
                   },
                   error);
    ok = ok && db.each(
                   std::string("SELECT ") + allocation_operation +
                       ", pid, tid, start, \"end\", address, size, stack_id FROM memory_allocations ORDER BY start",
                   [&](const rocpd::row& r) {
                       put(event("MEMORY_ALLOCATION", r.text(0), r.i64(1), r.i64(2), r.i64(3), r.i64(4)) +
                           "\"address\":\"" + hex(static_cast<std::uint64_t>(r.i64(5))) + "\",\"bytes\":" +
                           std::to_string(r.i64(6)) + ",\"correlation_id\":" + std::to_string(r.i64(7)) + "}}");
                   },
                   error);
    f.put("\n]\n");
    ok = f.close(error) && ok;
    written.push_back(path);
    return ok;
}

// ---- Perfetto: the record path's tracks, from the views ------------------------------------------

bool write_pftrace(const rocpd::reader& db, const std::string& path, std::vector<std::string>& written,
                   std::string* error) {
    std::map<std::string, std::size_t> by_guid;
    std::vector<process> procs;
    if (!read_processes(db, by_guid, procs, error)) return false;
    pf::trace t;
    if (!t.open(path, *error)) return false;
    std::vector<pf::track_id> process_tracks;
    for (const auto& p : procs) {
        std::string name = p.command.substr(0, p.command.find(' '));
        name = name.substr(name.rfind('/') + 1);
        process_tracks.push_back(t.process(p.pid, name, {p.command}));
    }
    const auto proc_of = [&](std::string_view guid) -> std::size_t {
        const auto it = by_guid.find(std::string(guid));
        return it == by_guid.end() ? SIZE_MAX : it->second;
    };
    std::map<std::pair<std::size_t, std::int64_t>, pf::track_id> threads;
    const auto thread = [&](std::size_t p, std::int64_t tid) {
        auto [it, added] = threads.try_emplace({p, tid}, 0);
        if (added) it->second = t.thread(process_tracks[p], procs[p].pid, tid, "");
        return it->second;
    };
    // A process's GPU agents: top-level tracks as the record path draws them, under the process
    // where the database holds several (a merged one), so that each process's GPUs stay apart.
    std::map<std::pair<std::size_t, std::int64_t>, pf::track_id> agents;
    std::map<std::tuple<std::size_t, std::int64_t, std::string>, pf::track_id> queues;
    const auto gpu_track = [&](std::size_t p, std::int64_t agent, std::string_view agent_name, const std::string& name) {
        auto [a, added] = agents.try_emplace({p, agent}, 0);
        if (added)
            a->second = t.track(procs.size() > 1 ? process_tracks[p] : pf::no_track,
                                "GPU agent " + std::to_string(agent) +
                                    (agent_name.empty() ? std::string() : " (" + std::string(agent_name) + ")"),
                                pf::layout::flat);
        auto [q, qadded] = queues.try_emplace({p, agent, name}, 0);
        if (qadded) q->second = t.track(a->second, name, pf::layout::flat);
        return q->second;
    };

    // Calls and marker ranges on their threads, each call with its arguments: regions and
    // rocpd_arg are read side by side, both in (guid, event_id) order.
    pf::args a;
    std::vector<std::pair<pf::string_id, std::string>> values;
    {
        cursor regions(db,
                       "SELECT guid, tid, category, name, start, \"end\", event_id, stack_id FROM regions "
                       "ORDER BY guid, event_id",
                       error);
        cursor args(db, "SELECT guid, event_id, name, value FROM rocpd_arg ORDER BY guid, event_id, position", error);
        if (!regions.ok() || !args.ok()) return false;
        bool have_arg = args.next(error);
        while (regions.next(error)) {
            const rocpd::row r = regions.row();
            const std::string guid(r.text(0));
            const std::int64_t event = r.i64(6);
            values.clear();
            while (have_arg) {
                const rocpd::row g = args.row();
                const int c = g.text(0).compare(guid);
                if (c > 0 || (c == 0 && g.i64(1) > event)) break;
                if (c == 0 && g.i64(1) == event) values.emplace_back(t.intern(g.text(2)), std::string(g.text(3)));
                have_arg = args.next(error);
            }
            const std::size_t p = proc_of(guid);
            if (p == SIZE_MAX) continue;
            a.clear();
            for (const auto& [name, value] : values) a.add_text(name, value);
            const std::string_view category = r.text(2);
            const bool range = category == "MARKER_CORE_RANGE_API";
            t.slice(thread(p, r.i64(1)), static_cast<std::uint64_t>(r.i64(4)), static_cast<std::uint64_t>(r.i64(5)),
                    t.intern(r.text(3)), t.intern(category), a,
                    {flow_id(p, r.i64(7)), range ? pf::flow::none : pf::flow::out});
        }
        if (!error->empty()) return false;
    }
    const pf::string_id dispatch_id = t.intern("dispatch_id"), grid = t.intern("grid"),
                        workgroup = t.intern("workgroup"), lds = t.intern("lds_bytes"),
                        scratch = t.intern("scratch_bytes"), bytes = t.intern("bytes"), address = t.intern("address"),
                        agent = t.intern("agent");
    const pf::string_id kernel_cat = t.intern("KERNEL_DISPATCH"), copy_cat = t.intern("MEMORY_COPY"),
                        alloc_cat = t.intern("MEMORY_ALLOCATION");
    bool ok = db.each(
        "SELECT k.guid, k.agent_abs_index, coalesce((SELECT ag.name FROM rocpd_info_agent ag WHERE ag.id = "
        "k.agent_abs_index AND ag.guid = k.guid), ''), k.queue_id, k.name, k.start, k.\"end\", k.dispatch_id, "
        "k.grid_x, k.grid_y, k.grid_z, k.workgroup_x, k.workgroup_y, k.workgroup_z, k.lds_size, k.scratch_size, "
        "k.stack_id FROM kernels k",
        [&](const rocpd::row& r) {
            const std::size_t p = proc_of(r.text(0));
            if (p == SIZE_MAX) return;
            a.clear();
            const std::string g = std::to_string(r.i64(8)) + 'x' + std::to_string(r.i64(9)) + 'x' +
                                  std::to_string(r.i64(10));
            const std::string w = std::to_string(r.i64(11)) + 'x' + std::to_string(r.i64(12)) + 'x' +
                                  std::to_string(r.i64(13));
            a.add_uint(dispatch_id, static_cast<std::uint64_t>(r.i64(7)));
            a.add_string(grid, g);
            a.add_string(workgroup, w);
            a.add_uint(lds, static_cast<std::uint64_t>(r.i64(14)));
            a.add_uint(scratch, static_cast<std::uint64_t>(r.i64(15)));
            t.slice(gpu_track(p, r.i64(1), r.text(2), "queue " + std::to_string(r.i64(3))),
                    static_cast<std::uint64_t>(r.i64(5)), static_cast<std::uint64_t>(r.i64(6)), t.intern(r.text(4)),
                    kernel_cat, a, {flow_id(p, r.i64(16)), pf::flow::in});
        },
        error);
    ok = ok && db.each(
                   "SELECT guid, CASE WHEN dst_agent_type = 'GPU' THEN dst_agent_abs_index ELSE src_agent_abs_index "
                   "END, CASE WHEN dst_agent_type = 'GPU' THEN dst_device ELSE src_device END, name, start, \"end\", "
                   "size, stack_id FROM memory_copies",
                   [&](const rocpd::row& r) {
                       const std::size_t p = proc_of(r.text(0));
                       if (p == SIZE_MAX) return;
                       a.clear();
                       a.add_uint(bytes, static_cast<std::uint64_t>(r.i64(6)));
                       t.slice(gpu_track(p, r.i64(1), r.text(2), "copies " + std::string(r.text(3))),
                               static_cast<std::uint64_t>(r.i64(4)), static_cast<std::uint64_t>(r.i64(5)),
                               t.intern(r.text(3)), copy_cat, a, {flow_id(p, r.i64(7)), pf::flow::in});
                   },
                   error);
    ok = ok && db.each(
                   std::string("SELECT guid, tid, ") + allocation_operation +
                       ", start, address, size, agent_abs_index, stack_id FROM memory_allocations",
                   [&](const rocpd::row& r) {
                       const std::size_t p = proc_of(r.text(0));
                       if (p == SIZE_MAX) return;
                       a.clear();
                       a.add_pointer(address, static_cast<std::uint64_t>(r.i64(4)));
                       a.add_uint(bytes, static_cast<std::uint64_t>(r.i64(5)));
                       if (!r.null(6)) a.add_uint(agent, static_cast<std::uint64_t>(r.i64(6)));
                       t.instant(thread(p, r.i64(1)), static_cast<std::uint64_t>(r.i64(3)), t.intern(r.text(2)),
                                 alloc_cat, a, {flow_id(p, r.i64(7)), pf::flow::none});
                   },
                   error);
    if (!ok) return false;
    if (!t.finish(*error)) return false;
    written.push_back(path);
    return true;
}

}  // namespace

bool convert(const rocpd::reader& db, const std::string& stem, const std::vector<std::string>& formats,
             std::vector<std::string>& written, std::string* error) {
    if (!db.has_views()) {
        *error = db.path() + ": has no rocpd views (its writer did not finish); `encore-trace merge -o OUT.db " +
                 db.path() + "` rebuilds them";
        return false;
    }
    bool ok = true;
    for (const auto& f : formats) {
        std::string e;
        bool done = true;
        if (f == "pftrace")
            done = write_pftrace(db, stem + "_results.pftrace", written, &e);
        else if (f == "json")
            done = write_json(db, stem + "_trace.json", written, &e);
        else if (f == "csv")
            done = write_csv(db, stem, written, &e);
        else
            e = "unknown output format '" + f + "' (pftrace, json, csv)", done = false;
        if (!done) {
            if (!error->empty()) *error += '\n';
            *error += e;
            ok = false;
        }
    }
    return ok;
}

}  // namespace encore::trace::db_convert
