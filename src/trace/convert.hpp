// src/trace/convert.hpp — turns the record folders a traced run left (record_file.hpp, records.hpp)
// into what a user reads: a rocpd SQLite database per process (AMD's schema: rocpd.hpp), the
// Chrome trace-event JSON, a Perfetto trace (perfetto.hpp), CSV files, every call printed, a
// summary. Runs in encore-trace after the program ended however it ended (convert_main.cpp),
// never inside the traced program.
//
//   encore::trace::convert_options o;
//   o.formats = {"rocpd", "json"};
//   o.output_dir = "out";
//   encore::trace::convert_result r = encore::trace::convert("/tmp/encore-records-123", o);
//
// Arguments are formatted here, from the bytes the tool copied at the call, through libencore's
// argument iteration at dereference depth 0: a pointer prints as its address and is never read
// (the process that owned it is gone); strings the call passed were copied at the call.
#pragma once

#include "period.hpp"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace encore::trace {

struct convert_options {
    std::vector<std::string> formats;  // "rocpd", "json", "csv", "pftrace"; none: only the summary
    std::string output_dir = ".";      // created if missing
    // The file names' stem, per process: %pid% in it becomes the process id. Default: "%pid%"
    // (rocprofv3's `<pid>_results.db`, `<pid>_kernel_trace.csv`, ...).
    std::string output_file = "%pid%";
    // Kernel filters (rocprofv3's --kernel-include-regex / --kernel-exclude-regex, here applied to
    // tracing): a dispatch is kept when its kernel's name as shown (demangled) matches
    // `kernel_include` (when set) and not `kernel_exclude` (when set); ECMAScript syntax, searched.
    std::optional<std::regex> kernel_include, kernel_exclude;
    // Collection periods (rocprofv3's -P start_delay:collection_time:repeat): from the process's
    // start, `delay_ns` left out, then `length_ns` kept, the cycle `repeat` times (0: forever). A
    // record is kept when it started inside a kept span (a marker range: when its push did).
    std::optional<trace::collection_period> collection_period;
    // encore-trace -o DIR: every process's records into one set of files in DIR, as encore's first
    // tool wrote them: trace.json (one Chrome trace for all processes, each ended by an "end of
    // trace (WHY)" event), api_trace.csv, kernel_trace.csv, memory_copy_trace.csv and
    // memory_allocation_trace.csv with that tool's columns and a process_id column. "": none.
    std::string combined_dir;
    // The launcher's pid (encore-trace-run) and how its child ended, its exit status or the signal
    // it died of: names the end of the child's trace when it left no goodbye. -1 / 0: unknown.
    std::int64_t launcher_pid = -1;
    int child_status = -1, child_signal = 0;
    bool print_calls = false;  // every call on `out`, one line each, in each thread's order
    bool summary = true;       // per function, per kernel, per copy direction on `out`
    std::FILE* out = stderr;
};

struct convert_result {
    bool ok = true;
    std::vector<std::string> errors;   // each with its file
    std::vector<std::string> written;  // the files written
    std::uint64_t processes = 0, calls = 0, dispatches = 0, copies = 0, allocations = 0;
    std::uint64_t dropped = 0;   // records the program's threads could not record (record_file)
    std::uint64_t torn = 0;      // threads whose last record was cut by the process's death
    std::uint64_t filtered = 0;  // records the kernel filters and collection periods left out
};

/// Converts every process folder under `records_root`.
convert_result convert(const std::string& records_root, const convert_options& options);

}  // namespace encore::trace
