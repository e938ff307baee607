// src/trace/db_reader.hpp — reads a rocpd database after the fact (one encore or rocprofv3 wrote,
// or one `encore-trace merge` made): opens it read-only, says clearly what is wrong with a file
// that is not one, and runs queries over AMD's views, optionally through a time window.
//
//   namespace rp = encore::trace::rocpd;
//   std::string err;
//   auto db = rp::reader::open("out/42_results.db", &err);
//   if (!db) { /* err: "out/42_results.db: not a rocpd database (no rocpd_metadata table)" */ }
//   db->window({.start = t0, .end = t1}, &err);            // rows that overlap [t0, t1] only
//   db->each("SELECT name, duration FROM kernels", [](const rp::row& r) {
//       std::printf("%s %lld\n", r.text(0).data(), (long long)r.i64(1));
//   }, &err);
//
// Layers: stats.cpp, merge.cpp and the converter's `convert` subcommand -> reader -> sqlite3.
// No dependency on libencore.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace encore::trace::rocpd {

/// One result row, valid inside the callback that receives it.
class row {
public:
    explicit row(sqlite3_stmt* s) : s_(s) {}
    std::int64_t i64(int col) const;
    double f64(int col) const;
    std::string_view text(int col) const;  // NULL: empty
    bool null(int col) const;

private:
    sqlite3_stmt* s_;
};

/// A time window in ns since the epoch (encore's and rocprofv3's timestamps). An event is kept
/// when it overlaps [start, end]; with `inclusive`, only when it lies inside it (rocpd convert's
/// --inclusive).
struct time_window {
    std::uint64_t start = 0;
    std::uint64_t end = UINT64_MAX;
    bool inclusive = false;
};

class reader {
public:
    /// Opens `path` read-only and checks that it is a rocpd database: a missing file, a file that
    /// is not SQLite, an empty one or one without rocpd's tables gives null with *error saying so.
    static std::unique_ptr<reader> open(const std::string& path, std::string* error);
    ~reader();
    reader(const reader&) = delete;
    reader& operator=(const reader&) = delete;

    sqlite3* handle() const { return db_; }
    const std::string& path() const { return path_; }

    /// Each process's table suffix ("_" + its UUID with underscores): one for a process's own
    /// database, several for a merged one.
    const std::vector<std::string>& suffixes() const { return suffixes_; }
    /// The schema_version of each suffix's rocpd_metadata, in suffixes() order.
    const std::vector<std::string>& versions() const { return versions_; }
    /// Whether the rocpd_* and data views exist (a writer that died before finishing left
    /// tables only; `encore-trace merge` rebuilds the views).
    bool has_views() const { return has_views_; }

    /// Runs `sql`, calling `each_row` per row. False with *error (the file named) on failure.
    bool each(const std::string& sql, const std::function<void(const row&)>& each_row, std::string* error) const;
    /// Runs statements that return no rows.
    bool exec(const std::string& sql, std::string* error) const;

    /// From now on every view reads only what `w` keeps: temporary views shadow the rocpd_* views
    /// of timed tables with the window's filter, and the data views (kernels, regions, ...) are
    /// recreated over them in the temporary schema, which names resolve first.
    bool window(const time_window& w, std::string* error);
    /// rocpd's marker window (time_window.py, --start-marker/--end-marker): the start (or, with
    /// `end`, the end) of the one marker range whose message is `message` (a `regions_and_samples`
    /// row of a MARKER_*_RANGE_API category), else of the one MARKER_* row of that message (a
    /// mark). False, *error saying which, when there is none or more than one.
    bool marker_time(const std::string& message, bool end, std::uint64_t& t, std::string* error) const;
    /// The first start and last end of any event (regions, samples, kernels, copies,
    /// allocations); false when there is none.
    bool bounds(std::uint64_t& first, std::uint64_t& last, std::string* error) const;

private:
    reader() = default;
    sqlite3* db_ = nullptr;
    std::string path_;
    std::vector<std::string> suffixes_, versions_;
    bool has_views_ = false;
};

}  // namespace encore::trace::rocpd
