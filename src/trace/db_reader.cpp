// src/trace/db_reader.cpp — rocpd databases read after the fact (db_reader.hpp).
#include "db_reader.hpp"

#include "rocpd.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace encore::trace::rocpd {

std::int64_t row::i64(int col) const { return sqlite3_column_int64(s_, col); }
double row::f64(int col) const { return sqlite3_column_double(s_, col); }
std::string_view row::text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
    return p == nullptr ? std::string_view{}
                        : std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, col)));
}
bool row::null(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }

namespace {

// The timed tables, as rocpd's time window (time_window.py) finds them: every rocpd_* table with
// start and end columns, and rocpd_sample by its timestamp.
constexpr const char* timed_tables[] = {"rocpd_region",          "rocpd_kernel_dispatch", "rocpd_memory_copy",
                                        "rocpd_memory_allocate", "rocpd_graph_launch",    "rocpd_event_operation"};

// The schema's view statements, made temporary: a temporary view's names resolve in the
// temporary schema first, so these read the windowed rocpd_* views (a view in the file's own
// schema would keep reading the file's).
std::string as_temporary(std::string_view sql) {
    std::string out(sql);
    const std::string from = "CREATE VIEW ", to = "CREATE TEMP VIEW ";
    for (std::size_t at = 0; (at = out.find(from, at)) != std::string::npos; at += to.size())
        out.replace(at, from.size(), to);
    return out;
}

}  // namespace

reader::~reader() {
    if (db_ != nullptr) sqlite3_close(db_);
}

std::unique_ptr<reader> reader::open(const std::string& path, std::string* error) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        *error = path + ": " + std::strerror(errno);
        return nullptr;
    }
    if (S_ISDIR(st.st_mode)) {
        *error = path + ": a directory, not a rocpd database";
        return nullptr;
    }
    if (st.st_size == 0) {
        *error = path + ": an empty file, not a rocpd database";
        return nullptr;
    }
    std::unique_ptr<reader> r(new reader);
    r->path_ = path;
    if (sqlite3_open_v2(path.c_str(), &r->db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
        *error = path + ": " + (r->db_ != nullptr ? sqlite3_errmsg(r->db_) : "cannot open");
        return nullptr;
    }
    // Each process's tables carry its suffix; rocpd_metadata<suffix> names it.
    std::string err;
    const bool listed = r->each(
        "SELECT substr(name, 15) FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd\\_metadata\\_%' "
        "ESCAPE '\\' ORDER BY name",
        [&](const row& row) { r->suffixes_.emplace_back(row.text(0)); }, &err);
    if (!listed) {
        // SQLITE_NOTADB's message is "file is not a database".
        *error = path + ": not a SQLite database (" + std::string(sqlite3_errmsg(r->db_)) + ")";
        return nullptr;
    }
    if (r->suffixes_.empty()) {
        *error = path + ": not a rocpd database (no rocpd_metadata table)";
        return nullptr;
    }
    for (const auto& s : r->suffixes_) {
        std::string v;
        if (!r->each(
                "SELECT value FROM \"rocpd_metadata" + s + "\" WHERE tag = 'schema_version'",
                [&](const row& row) { v = row.text(0); }, error))
            return nullptr;
        r->versions_.push_back(v.empty() ? "(none)" : v);
    }
    std::int64_t views = 0;
    if (!r->each(
            "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name IN ('rocpd_region', "
            "'rocpd_kernel_dispatch', 'regions', 'kernels', 'memory_copies')",
            [&](const row& row) { views = row.i64(0); }, error))
        return nullptr;
    r->has_views_ = views == 5;
    return r;
}

bool reader::each(const std::string& sql, const std::function<void(const row&)>& each_row, std::string* error) const {
    sqlite3_stmt* s = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &s, &tail) != SQLITE_OK) {
        *error = path_ + ": " + sqlite3_errmsg(db_);
        return false;
    }
    int rc;
    const row r(s);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) each_row(r);
    if (rc != SQLITE_DONE) *error = path_ + ": " + sqlite3_errmsg(db_);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE;
}

bool reader::exec(const std::string& sql, std::string* error) const {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) == SQLITE_OK) return true;
    *error = path_ + ": " + (msg != nullptr ? msg : sqlite3_errmsg(db_));
    sqlite3_free(msg);
    return false;
}

bool reader::window(const time_window& w, std::string* error) {
    if (!has_views_) {
        *error = path_ + ": has no rocpd views to window";
        return false;
    }
    const std::string s = std::to_string(w.start), e = std::to_string(w.end);
    const std::string keep = w.inclusive ? "\"start\" >= " + s + " AND \"end\" <= " + e
                                         : "\"start\" <= " + e + " AND \"end\" >= " + s;
    std::string sql = "BEGIN;";
    for (const char* t : timed_tables)
        sql += std::string("CREATE TEMP VIEW \"") + t + "\" AS SELECT * FROM main.\"" + t + "\" WHERE " + keep + ";";
    sql += "CREATE TEMP VIEW \"rocpd_sample\" AS SELECT * FROM main.\"rocpd_sample\" WHERE \"timestamp\" BETWEEN " + s +
           " AND " + e + ";";
    sql += as_temporary(detail::data_views_sql()) + as_temporary(detail::summary_views_sql()) + "COMMIT;";
    return exec(sql, error);
}

bool reader::marker_time(const std::string& message, bool end, std::uint64_t& t, std::string* error) const {
    std::string literal = "'";
    for (const char c : message) literal += c == '\'' ? std::string("''") : std::string(1, c);
    literal += '\'';
    // rocpd's query (time_window.py): a MARKER_* row whose message is the name. A range is also
    // its push/start call's row, of the same message: the range's own row (MARKER_*_RANGE_API)
    // is taken first, the others (marks, a database without range rows) when there is none.
    std::uint64_t found = 0, matches = 0;
    int best = 2;
    const bool ok = each(
        std::string("SELECT \"") + (end ? "end" : "start") +
            "\", category LIKE 'MARKER\\_%RANGE\\_API' ESCAPE '\\' FROM regions_and_samples WHERE category LIKE "
            "'MARKER\\_%' ESCAPE '\\' AND json_valid(extdata) AND json_extract(extdata, '$.message') = " +
            literal,
        [&](const row& r) {
            const int rank = r.i64(1) != 0 ? 0 : 1;
            if (rank < best) {
                best = rank;
                matches = 0;
            }
            if (rank == best) {
                ++matches;
                found = static_cast<std::uint64_t>(r.i64(0));
            }
        },
        error);
    if (!ok) return false;
    const char* option = end ? "--end-marker" : "--start-marker";
    if (matches == 0) {
        *error = std::string(option) + " '" + message + "': no marker of that name (roctx ranges and marks, by message)";
        return false;
    }
    if (matches > 1) {
        *error = std::string(option) + " '" + message + "': " + std::to_string(matches) + " " +
                 (best == 0 ? "ranges" : "markers") + " of that name (ambiguous, as rocpd says too)";
        return false;
    }
    t = found;
    return true;
}

bool reader::bounds(std::uint64_t& first, std::uint64_t& last, std::string* error) const {
    bool any = false;
    const bool ok = each(
        "SELECT min(s), max(e) FROM ("
        "SELECT min(\"start\") AS s, max(\"end\") AS e FROM rocpd_region UNION ALL "
        "SELECT min(\"start\"), max(\"end\") FROM rocpd_kernel_dispatch UNION ALL "
        "SELECT min(\"start\"), max(\"end\") FROM rocpd_memory_copy UNION ALL "
        "SELECT min(\"start\"), max(\"end\") FROM rocpd_memory_allocate UNION ALL "
        "SELECT min(\"timestamp\"), max(\"timestamp\") FROM rocpd_sample)",
        [&](const row& r) {
            if (r.null(0)) return;
            any = true;
            first = static_cast<std::uint64_t>(r.i64(0));
            last = static_cast<std::uint64_t>(r.i64(1));
        },
        error);
    return ok && any;
}

}  // namespace encore::trace::rocpd
