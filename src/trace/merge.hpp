// src/trace/merge.hpp — several processes' rocpd databases into one, as AMD's `rocpd merge` does:
// the per-process tables of every input side by side in one file (each process's tables already
// carry its own `_<uuid>` suffix, so nothing is renamed or renumbered), and the `rocpd_*` views
// rebuilt as a UNION ALL over all of them, the data and summary views over those. A merged
// database reads through AMD's views as one (`SELECT count(*) FROM kernels` counts every
// process's kernels), and merges again.
//
//   std::string err;
//   encore::trace::merge::options o;   // o.force: replace an existing output
//   if (!encore::trace::merge::merge("all.db", {"out/1_results.db", "out/2_results.db"}, o, &err))
//       { /* err says why: an input that is not rocpd, of another schema version, merged twice */ }
//
// Layers: encore-trace-convert's `merge` subcommand -> merge -> db_reader (checks the inputs) and
// rocpd.hpp's schema text (the views) -> sqlite3.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace encore::trace::merge {

struct options {
    // Replace an existing output. Off: an existing file is refused, so a merge never destroys a
    // database by a slip of argument order.
    bool force = false;
};

struct result {
    std::uint64_t inputs = 0, processes = 0;
};

/// Merges `inputs` into `output`. Every input must be rocpd schema rocpd::schema_version (the one
/// whose views encore rebuilds); mixed or other versions are refused, as is a process found in two
/// inputs. The output is written beside itself under a temporary name and renamed at the end: a
/// failed merge leaves nothing.
bool merge(const std::string& output, const std::vector<std::string>& inputs, const options& o, std::string* error,
           result* r = nullptr);

namespace detail {
/// The rocpd_* views of the schema (rocpd_metadata, rocpd_string, ...), from its SQL text.
std::vector<std::string> per_process_views();
/// `CREATE VIEW "<view>"` over `<view><suffix>` for every suffix: UNION ALL, nested in groups
/// where there are more than SQLite's 500 terms a compound SELECT may have.
std::string union_view(std::string_view view, const std::vector<std::string>& suffixes);
}  // namespace detail

}  // namespace encore::trace::merge
