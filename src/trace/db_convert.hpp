// src/trace/db_convert.hpp — a rocpd database (one process's, or a merged one) into the outputs
// encore-trace writes from records: a Perfetto trace, the Chrome trace-event JSON, rocprofv3's
// CSV files. `encore-trace convert` runs these after the fact; everything is read through AMD's
// views, so a time window (reader::window) or a merged database applies to every output alike.
//
//   std::string err;
//   auto db = encore::trace::rocpd::reader::open("all.db", &err);
//   std::vector<std::string> written;
//   encore::trace::db_convert::convert(*db, "out/all", {"pftrace", "csv"}, written, &err);
//   // out/all_results.pftrace, out/all_kernel_trace.csv, out/all_hsa_api_trace.csv, ...
//
// The outputs have the tracks and columns of the record path's (docs/trace.md): a process track
// per process of the database (a merged one has several), its threads with API calls (arguments
// from rocpd_arg) and marker ranges, a track per GPU agent and queue with kernels and per copy
// direction with copies, allocations as instants, flows from a call to its kernels and copies by
// the internal correlation id (rocpd_event.stack_id). Records hold what the database does not
// (a thread's name is all rocpd keeps of it), so the two may differ in such details.
#pragma once

#include "db_reader.hpp"

#include <string>
#include <vector>

namespace encore::trace::db_convert {

/// Writes `<stem>_results.pftrace`, `<stem>_trace.json`, `<stem>_*_trace.csv` for the formats
/// asked ("pftrace", "json", "csv"); appends what it wrote.
bool convert(const rocpd::reader& db, const std::string& stem, const std::vector<std::string>& formats,
             std::vector<std::string>& written, std::string* error);

}  // namespace encore::trace::db_convert
