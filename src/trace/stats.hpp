// src/trace/stats.hpp — rocprofv3's statistics (--stats, -S/--summary), computed from a rocpd
// database by SQL over its views: the database is the source of truth, so the statistics of a
// merged database are those of all its processes.
//
//   namespace st = encore::trace::stats;
//   std::string err;
//   auto db = encore::trace::rocpd::reader::open("out/42_results.db", &err);
//   std::vector<st::table> tables;
//   if (!db || !st::compute(*db, tables, &err)) { /* err says why */ }
//   st::write_csv(tables, "out/42", written, &err);    // out/42_kernel_stats.csv, ...
//   st::print_summary(tables, st::unit::usec, stderr);  // rocprofv3's SUMMARY table
//   st::summaries s{.per_domain = true, .groups = {"HSA_API|KERNEL_DISPATCH"}};
//   st::print_summaries(tables, s, stderr, "", "    ", unmatched, &err);  // -D, --summary-groups
//
// What, as rocprofv3 names and shapes it (source/lib/output/generateCSV.cpp, domain_type.cpp):
// one table per domain, file `<stem>_<file>.csv`, columns
// "Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev", rows by
// total duration, largest first; Percentage is of the table's total, StdDev the sample standard
// deviation (n - 1).
//   kernel_stats          kernels by name (the `kernels` view)
//   <domain>_api_stats    API calls by operation, a file per domain (HSA_CORE_API and
//                         HSA_AMD_EXT_API -> hsa_api_stats, HIP_* -> hip_api_stats, CUDA_* ->
//                         cuda_api_stats, ...; the `regions` view)
//   marker_api_stats      roctx/NVTX calls by operation and marker ranges by message
//   memory_copy_stats     copies by direction (MEMORY_COPY_HOST_TO_DEVICE, ...)
//   memory_allocation_stats, scratch_memory_stats   allocations and frees by operation
//   domain_stats          one row per domain (its column name: HSA_API, KERNEL_DISPATCH, ...)
#pragma once

#include "db_reader.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace encore::trace::stats {

struct entry {
    std::string name;
    std::uint64_t calls = 0, total_ns = 0, min_ns = 0, max_ns = 0;
    double mean_ns = 0;
    double m2 = 0;  // the sum of squared deviations from the mean (merges exactly; see merge_into)
    double stddev() const;
};

struct table {
    std::string file;            // "kernel_stats", "hsa_api_stats", ...
    std::string domain;          // rocprofv3's column name: "KERNEL_DISPATCH", "HSA_API", ...
    std::vector<entry> entries;  // by total duration, largest first
    std::uint64_t total_ns() const;
};

/// Statistics of every domain the database has rows of, in rocprofv3's order of domains.
bool compute(const rocpd::reader& db, std::vector<table>& out, std::string* error);

/// Writes `<stem>_<file>.csv` per table and `<stem>_domain_stats.csv`; appends the paths.
bool write_csv(const std::vector<table>& tables, const std::string& stem, std::vector<std::string>& written,
               std::string* error);

/// The unit of the printed summary (-u); the CSV files are in ns whatever it is.
enum class unit : std::uint64_t { nsec = 1, usec = 1000, msec = 1000000, sec = 1000000000 };
/// "sec", "msec", "usec", "nsec"; false for anything else.
bool parse_unit(std::string_view s, unit& u);

/// rocprofv3's "ROCPROFV3 SUMMARY" table of all domains together (name, domain, calls, duration,
/// average, percent of the whole, min, max, stddev). `title` names what it covers; `indent` starts
/// every line (rocprofv3 indents on a terminal, not in a file).
void print_summary(const std::vector<table>& tables, unit u, std::FILE* out, const std::string& title = "SUMMARY",
                   const std::string& indent = "    ");

/// The summaries rocprofv3 prints after a run, each a print_summary table over some domains,
/// in its order (lib/output/generateStats.cpp): one per domain (-D, "KERNEL_DISPATCH SUMMARY"),
/// one per group (--summary-groups: the domains whose column name a regular expression matches
/// whole, "HSA_API + KERNEL_DISPATCH SUMMARY"), then all domains together (-S, "SUMMARY").
struct summaries {
    bool total = false;               // -S/--summary
    bool per_domain = false;          // -D/--summary-per-domain
    std::vector<std::string> groups;  // --summary-groups: ECMAScript regular expressions
    unit u = unit::nsec;              // -u
    bool any() const { return total || per_domain || !groups.empty(); }
};

/// Prints `s`'s tables; `what` follows each title (" (42_results.db)"). A group that matches no
/// domain prints nothing and is appended to `unmatched`. False (and *error) for a group that is
/// not a regular expression.
bool print_summaries(const std::vector<table>& tables, const summaries& s, std::FILE* out, const std::string& what,
                     const std::string& indent, std::vector<std::string>& unmatched, std::string* error);

namespace detail {
/// Adds b's statistics to a's (count, sum, min, max, and the exact combined variance).
void merge_into(entry& a, const entry& b);
/// The CSV file and column name of a region category: "HSA_AMD_EXT_API" -> {"hsa_api_stats", "HSA_API"}.
std::pair<std::string, std::string> api_domain(std::string_view category);
/// rocprofv3's formatting of a stats CSV row's floating values and percentages.
std::string format_value(double v);
std::string format_percentage(double v);
}  // namespace detail

}  // namespace encore::trace::stats
