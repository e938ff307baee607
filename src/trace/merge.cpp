// src/trace/merge.cpp — rocpd databases merged into one (merge.hpp).
#include "merge.hpp"

#include "db_reader.hpp"
#include "rocpd.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sys/stat.h>

namespace encore::trace::merge {

namespace detail {

std::vector<std::string> per_process_views() {
    std::vector<std::string> out;
    const std::string_view sql = rocpd::detail::views_sql();
    constexpr std::string_view create = "CREATE VIEW \"";
    for (std::size_t at = 0; (at = sql.find(create, at)) != std::string_view::npos;) {
        at += create.size();
        const std::size_t end = sql.find('"', at);
        if (end == std::string_view::npos) break;
        out.emplace_back(sql.substr(at, end - at));
    }
    return out;
}

std::string union_view(std::string_view view, const std::vector<std::string>& suffixes) {
    // SQLITE_MAX_COMPOUND_SELECT is 500 by default: each nested group stays below it, and so does
    // the outer compound up to 400 * 400 processes.
    constexpr std::size_t group = 400;
    const auto arms = [&](std::size_t from, std::size_t to) {
        std::string s;
        for (std::size_t i = from; i < to; ++i)
            s += std::string(i == from ? "" : " UNION ALL ") + "SELECT * FROM \"" + std::string(view) + suffixes[i] + '"';
        return s;
    };
    std::string body;
    if (suffixes.size() <= group) {
        body = arms(0, suffixes.size());
    } else {
        for (std::size_t i = 0; i < suffixes.size(); i += group)
            body += std::string(i == 0 ? "" : " UNION ALL ") + "SELECT * FROM (" +
                    arms(i, std::min(suffixes.size(), i + group)) + ')';
    }
    return "CREATE VIEW \"" + std::string(view) + "\" AS " + body + ";\n";
}

}  // namespace detail

namespace {

// The output connection; closed (and its file removed unless kept) on every way out.
struct output_db {
    sqlite3* db = nullptr;
    std::string path;
    bool keep = false;
    ~output_db() {
        if (db != nullptr) sqlite3_close(db);
        if (!keep && !path.empty()) std::remove(path.c_str());
    }
    bool exec(const std::string& sql, std::string* error, const std::string& what) {
        char* msg = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) == SQLITE_OK) return true;
        *error = what + ": " + (msg != nullptr ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return false;
    }
};

std::string quoted(std::string_view s) {  // an SQL string literal
    std::string out = "'";
    for (const char c : s) {
        if (c == '\'') out += '\'';
        out += c;
    }
    return out + '\'';
}

std::string real_path(const std::string& p) {
    char buf[PATH_MAX];
    return ::realpath(p.c_str(), buf) != nullptr ? std::string(buf) : p;
}

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

bool merge(const std::string& output, const std::vector<std::string>& inputs, const options& o, std::string* error,
           result* r) {
    if (inputs.empty()) {
        *error = "no input databases";
        return false;
    }
    // Every input checked before anything is written: a rocpd database, of the schema whose views
    // are rebuilt here, and no process twice.
    struct input {
        std::string path;
        std::vector<std::string> suffixes;
    };
    std::vector<input> in;
    std::map<std::string, std::string> owner;  // suffix -> the input that has it
    const std::string out_real = real_path(output);
    for (const auto& path : inputs) {
        if (real_path(path) == out_real) {
            *error = path + ": is the output too (merge writes a new file)";
            return false;
        }
        auto db = rocpd::reader::open(path, error);
        if (db == nullptr) return false;
        for (std::size_t i = 0; i < db->suffixes().size(); ++i) {
            const std::string& v = db->versions()[i];
            if (v != rocpd::schema_version) {
                *error = path + ": rocpd schema version " + v + " (process " + db->suffixes()[i].substr(1) +
                         "); encore-trace merge merges schema " + std::string(rocpd::schema_version) +
                         ", the one encore writes, and never mixes versions";
                return false;
            }
            const auto [it, added] = owner.emplace(db->suffixes()[i], path);
            if (!added) {
                *error = path + ": its process " + db->suffixes()[i].substr(1) + " is in " + it->second +
                         " too (each process is merged once)";
                return false;
            }
        }
        in.push_back({path, db->suffixes()});
    }

    struct stat st {};
    if (::stat(output.c_str(), &st) == 0) {
        if (!o.force) {
            *error = output + ": exists (--force replaces it)";
            return false;
        }
        if (S_ISDIR(st.st_mode)) {
            *error = output + ": is a directory";
            return false;
        }
    }
    output_db out;
    out.path = output + ".merging-" + std::to_string(::getpid());
    std::remove(out.path.c_str());
    if (sqlite3_open_v2(out.path.c_str(), &out.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
        *error = output + ": " + (out.db != nullptr ? sqlite3_errmsg(out.db) : "cannot create");
        return false;
    }
    // Written once, start to end, and renamed into place only when whole: no journal, no fsync
    // until the end (as the writer does, rocpd.hpp).
    if (!out.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;", error, output)) return false;

    std::set<std::string> tables;  // every table copied, to build each view over those that exist
    for (const input& i : in) {
        // ATTACH cannot run inside a transaction: one transaction per input.
        if (!out.exec("ATTACH DATABASE " + quoted(i.path) + " AS src", error, i.path)) return false;
        std::vector<std::pair<std::string, std::string>> create;  // table, its CREATE statement
        std::vector<std::string> indexes;
        sqlite3_stmt* s = nullptr;
        const std::string list =
            "SELECT type, name, sql FROM src.sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL "
            "ORDER BY type DESC, rowid";
        if (sqlite3_prepare_v2(out.db, list.c_str(), -1, &s, nullptr) != SQLITE_OK) {
            *error = i.path + ": " + sqlite3_errmsg(out.db);
            return false;
        }
        while (sqlite3_step(s) == SQLITE_ROW) {
            const std::string type = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
            const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
            const std::string sql = reinterpret_cast<const char*>(sqlite3_column_text(s, 2));
            // A process's tables and indexes end with its suffix; sqlite_sequence and views are
            // the file's own, rebuilt below.
            bool own = false;
            for (const auto& suffix : i.suffixes)
                own = own || ends_with(name, suffix) || name.find(suffix + "_") != name.npos;
            if (!own) continue;
            if (type == "table")
                create.emplace_back(name, sql);
            else
                indexes.push_back(sql);
        }
        sqlite3_finalize(s);
        std::string sql = "BEGIN;";
        for (const auto& [name, ddl] : create) {
            sql += ddl + ";\nINSERT INTO main.\"" + name + "\" SELECT * FROM src.\"" + name + "\";\n";
            tables.insert(name);
        }
        for (const auto& ddl : indexes) sql += ddl + ";\n";
        sql += "COMMIT;";
        if (!out.exec(sql, error, i.path + " into " + output)) return false;
        if (!out.exec("DETACH DATABASE src", error, i.path)) return false;
    }

    // The views: each rocpd_* view over the tables of every process that has it, then the data
    // and summary views, unchanged: they join rows of one process on (id, guid).
    std::vector<std::string> suffixes;
    for (const input& i : in) suffixes.insert(suffixes.end(), i.suffixes.begin(), i.suffixes.end());
    std::string views = "BEGIN;";
    for (const std::string& v : detail::per_process_views()) {
        std::vector<std::string> have;
        for (const auto& s : suffixes)
            if (tables.count(v + s) != 0) have.push_back(s);
        if (have.empty()) {
            *error = output + ": no input has a " + v + " table";
            return false;
        }
        views += detail::union_view(v, have);
    }
    views += std::string(rocpd::detail::data_views_sql()) + std::string(rocpd::detail::summary_views_sql()) + "COMMIT;";
    if (!out.exec(views, error, output)) return false;
    if (sqlite3_close(out.db) != SQLITE_OK) {
        *error = output + ": " + sqlite3_errmsg(out.db);
        return false;
    }
    out.db = nullptr;
    if (std::rename(out.path.c_str(), output.c_str()) != 0) {
        *error = output + ": " + std::strerror(errno);
        return false;
    }
    out.keep = true;
    if (r != nullptr) {
        r->inputs = in.size();
        r->processes = suffixes.size();
    }
    return true;
}

}  // namespace encore::trace::merge
