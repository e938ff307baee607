// src/trace/convert_main.cpp — encore-trace-convert: what encore-trace runs after the program
// ended, and what a user runs on a record folder kept with --keep-records; its subcommands work on
// rocpd databases after the fact (`encore-trace merge` and `encore-trace convert` run them).
//
//   encore-trace-convert [-f rocpd,json,csv,pftrace] [-d DIR] [--output-file NAME] [--combined-dir DIR]
//                        [--launcher-pid PID --child-status N|--child-signal N] [--load LIBRARY] [--print-calls]
//                        [--no-summary] [--stats] [-S] [-D] [--summary-groups RE...]
//                        [--summary-output-file stdout|stderr|NAME] [-u UNIT] [--] RECORDS_DIR
//   encore-trace-convert merge -o OUT.db [--force] IN.db...
//   encore-trace-convert convert [-f pftrace,json,csv] [--start T] [--end T] [--start-marker MSG]
//                                [--end-marker MSG] [--inclusive] [-d DIR] [--output-file NAME]
//                                [--stats] [-S] [-D] [--summary-groups RE...] [-u UNIT] IN.db...
//   encore-trace-convert stats [--stats] [-S] [-D] [--summary-groups RE...] [-u UNIT] [-d DIR] IN.db...
// Several IN.db are read as one (merged into a temporary database first), as rocpd convert does.
//
// Exit status: 0 when everything converted, 1 when something could not be written or read (each
// reason on stderr), 2 for a wrong command line.
#include "convert.hpp"

#if ENCORE_TRACE_ROCPD
#    include "db_convert.hpp"
#    include "db_reader.hpp"
#    include "merge.hpp"
#    include "stats.hpp"
#endif

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <utility>
#include <cstdint>
#include <regex>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr const char* usage =
    "usage: encore-trace-convert [-f|--output-format rocpd,json,csv,pftrace] [-d|--output-directory DIR]\n"
    "                            [--output-file NAME] [--combined-dir DIR] [--launcher-pid PID --child-status N|--child-signal N]\n"
    "                            [--load LIBRARY] [--print-calls] [--no-summary]\n"
    "                            [--stats] [-S|--summary] [-D|--summary-per-domain] [--summary-groups RE...]\n"
    "                            [--summary-output-file stdout|stderr|NAME] [-u|--summary-units sec|msec|usec|nsec]\n"
    "                            [--kernel-include-regex RE] [--kernel-exclude-regex RE]\n"
    "                            [-P|--collection-period DELAY:TIME:REPEAT [--collection-period-unit U]] [--] RECORDS_DIR\n"
    "       encore-trace-convert merge -o|--output OUT.db [--force] IN.db...\n"
    "       encore-trace-convert convert [-f|--output-format pftrace,json,csv] [--start T|--start-marker MSG]\n"
    "                            [--end T|--end-marker MSG] [--inclusive] [-d DIR] [--output-file NAME]\n"
    "                            [--stats] [-S] [-D] [--summary-groups RE...] [--summary-output-file F] [-u UNIT] [--] IN.db...\n"
    "       encore-trace-convert stats [--stats] [-S] [-D] [--summary-groups RE...] [-u UNIT] [-d DIR] [--start T] [--end T] IN.db...\n"
    "  (T: ns since the epoch, as the databases' timestamps, or a percentage of the run: 25%;\n"
    "   MSG: a roctx range's message; several IN.db give one set of outputs, stem `out`)\n";

bool split_formats(std::string_view list, std::vector<std::string>& out, std::initializer_list<std::string_view> known) {
    while (!list.empty()) {
        const auto comma = list.find(',');
        const std::string_view f = list.substr(0, comma);
        if (std::find(known.begin(), known.end(), f) == known.end()) {
            std::string names;
            for (const auto k : known) names += std::string(names.empty() ? "" : ", ") + std::string(k);
            std::fprintf(stderr, "encore-trace-convert: unknown output format '%.*s' (%s)\n",
                         static_cast<int>(f.size()), f.data(), names.c_str());
            return false;
        }
        out.emplace_back(f);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return true;
}

bool make_dirs(const std::string& path) {
    for (std::size_t at = 0; at != std::string::npos;) {
        at = path.find('/', at + 1);
        const std::string dir = path.substr(0, at);
        if (!dir.empty() && ::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
            std::fprintf(stderr, "encore-trace-convert: cannot create %s: %s\n", dir.c_str(), std::strerror(errno));
            return false;
        }
    }
    return true;
}

#if ENCORE_TRACE_ROCPD
namespace st = encore::trace::stats;

// --stats, -S, -D, --summary-groups, --summary-output-file and -u, shared by every command that
// has a database.
struct stats_request {
    bool csv = false;
    st::summaries print;  // -S, -D, --summary-groups, -u (rocprofv3's default unit: nsec)
    // --summary-output-file: empty or "stderr" prints on stderr, "stdout" on stdout (either case,
    // as rocprofv3.py takes them); any other NAME writes <stem>_NAME.txt per database.
    std::string output;
    bool any() const { return csv || print.any(); }
};

bool same_word(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// Takes argv[i] (and its values) if it is one of the statistics options; -1 for a wrong value.
int stats_option(int argc, char** argv, int& i, stats_request& s) {
    const std::string_view a = argv[i];
    if (a == "--stats") {
        s.csv = true;
    } else if (a == "-S" || a == "--summary") {
        s.print.total = true;
    } else if (a == "-D" || a == "--summary-per-domain") {
        s.print.per_domain = true;
    } else if (a == "--summary-groups") {
        // rocprofv3's nargs='+': every argument up to the next option.
        const int first = i + 1;
        for (; i + 1 < argc && argv[i + 1][0] != '-'; ++i) {
            try {
                (void)std::regex(argv[i + 1]);
            } catch (const std::regex_error& e) {
                std::fprintf(stderr, "encore-trace-convert: --summary-groups '%s': not a regular expression (%s)\n",
                             argv[i + 1], e.what());
                return -1;
            }
            s.print.groups.emplace_back(argv[i + 1]);
        }
        if (i + 1 == first) {
            std::fprintf(stderr, "encore-trace-convert: --summary-groups needs a regular expression (or more)\n");
            return -1;
        }
    } else if (a == "--summary-output-file") {
        if (i + 1 >= argc || argv[i + 1][0] == '\0' || std::strchr(argv[i + 1], '/') != nullptr) {
            std::fprintf(stderr, "encore-trace-convert: --summary-output-file needs stdout, stderr or a file name (no '/': "
                                 "the file goes next to the outputs)\n");
            return -1;
        }
        s.output = argv[++i];
    } else if (a == "-u" || a == "--summary-units") {
        if (i + 1 >= argc || !st::parse_unit(argv[i + 1], s.print.u)) {
            std::fprintf(stderr, "encore-trace-convert: %s takes sec, msec, usec or nsec\n", argv[i]);
            return -1;
        }
        ++i;
    } else {
        return 0;
    }
    return 1;
}

// Statistics of one database: `<stem>_*_stats.csv` (--stats) and the summaries (-S, -D,
// --summary-groups) on stderr, stdout or `<stem>_NAME.txt` (--summary-output-file).
bool stats_of(const encore::trace::rocpd::reader& db, const std::string& stem, const stats_request& s,
              std::vector<std::string>& written, std::string label = {}) {
    std::vector<st::table> tables;
    std::string error;
    if (!st::compute(db, tables, &error) || (s.csv && !st::write_csv(tables, stem, written, &error))) {
        std::fprintf(stderr, "encore-trace-convert: %s\n", error.c_str());
        return false;
    }
    if (!s.print.any()) return true;
    std::FILE* out = stderr;
    std::string file;
    if (same_word(s.output, "stdout")) {
        out = stdout;
    } else if (!s.output.empty() && !same_word(s.output, "stderr")) {
        // rocprofv3's get_output_stream: <output path>/<output prefix>_<NAME>.txt, not indented.
        file = stem + '_' + s.output + ".txt";
        if ((out = std::fopen(file.c_str(), "w")) == nullptr) {
            std::fprintf(stderr, "encore-trace-convert: %s: %s\n", file.c_str(), std::strerror(errno));
            return false;
        }
    }
    if (label.empty()) label = db.path().substr(db.path().rfind('/') + 1);
    std::vector<std::string> unmatched;
    bool ok = st::print_summaries(tables, s.print, out, " (" + label + ")", file.empty() ? "    " : "", unmatched,
                                  &error);
    if (!ok) std::fprintf(stderr, "encore-trace-convert: %s\n", error.c_str());
    for (const auto& g : unmatched)
        std::fprintf(stderr, "[encore-trace] summary group '%s' matched no domain of %s\n", g.c_str(), label.c_str());
    if (!file.empty()) {
        if (std::fclose(out) != 0) {
            std::fprintf(stderr, "encore-trace-convert: %s: %s\n", file.c_str(), std::strerror(errno));
            return false;
        }
        written.push_back(file);
    }
    return ok;
}

// `--start`/`--end` values: ns since the epoch, or a percentage of the database's time span.
bool parse_time(const char* text, std::uint64_t first, std::uint64_t last, std::uint64_t& out) {
    char* end = nullptr;
    errno = 0;
    if (std::strchr(text, '%') != nullptr) {
        const double pct = std::strtod(text, &end);
        if (end == text || *end != '%' || end[1] != '\0' || pct < 0 || pct > 100) return false;
        out = first + static_cast<std::uint64_t>(static_cast<double>(last - first) * pct / 100.0);
        return true;
    }
    out = std::strtoull(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' && text[0] != '-';
}

// The stem of an input's outputs: out/1234_results.db -> DIR/1234, like the record path's.
std::string stem_of(const std::string& input, const std::string& dir, const std::string& name) {
    std::string base = name.empty() ? input.substr(input.rfind('/') + 1) : name;
    for (const std::string_view tail : {"_results.db", ".db"})
        if (name.empty() && base.size() > tail.size() && base.compare(base.size() - tail.size(), tail.size(), tail) == 0) {
            base.resize(base.size() - tail.size());
            break;
        }
    return dir + '/' + base;
}

int merge_command(int argc, char** argv) {
    std::string output;
    std::vector<std::string> inputs;
    encore::trace::merge::options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "-o" || a == "--output") {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "encore-trace-convert merge: %s needs a file\n%s", argv[i], usage);
                return 2;
            }
            output = argv[++i];
        } else if (a == "-i" || a == "--input") {  // rocpd merge's spelling
            if (i + 1 >= argc) {
                std::fprintf(stderr, "encore-trace-convert merge: %s needs a file\n%s", argv[i], usage);
                return 2;
            }
            inputs.emplace_back(argv[++i]);
        } else if (a == "--force") {
            o.force = true;
        } else if (a == "-h" || a == "--help") {
            std::fputs(usage, stdout);
            return 0;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "encore-trace-convert merge: unknown option %s\n%s", argv[i], usage);
            return 2;
        } else {
            inputs.emplace_back(a);
        }
    }
    if (output.empty() || inputs.empty()) {
        std::fprintf(stderr, "encore-trace-convert merge: needs -o OUT.db and at least one input database\n%s", usage);
        return 2;
    }
    std::string error;
    encore::trace::merge::result r;
    if (!encore::trace::merge::merge(output, inputs, o, &error, &r)) {
        std::fprintf(stderr, "encore-trace-convert merge: %s\n", error.c_str());
        return 1;
    }
    std::fprintf(stderr, "[encore-trace] merged %llu processes from %llu databases into %s\n",
                 static_cast<unsigned long long>(r.processes), static_cast<unsigned long long>(r.inputs), output.c_str());
    return 0;
}

// A temporary merge of several inputs (convert's and stats' several databases read as one),
// removed when done.
struct temporary_db {
    std::string path;
    ~temporary_db() {
        if (!path.empty()) std::remove(path.c_str());
    }
};

// `convert` and `stats`: the inputs as one (rocpd convert's way: a merged database, or several
// merged first into a temporary database in DIR, give one set of outputs with a process track per
// process), through the time window when one is asked: --start/--end as timestamps or
// percentages, or --start-marker/--end-marker (rocpd's: the start of the marker range of that
// message, the end of the one of that message).
int database_command(int argc, char** argv, bool stats_only) {
    const char* what = stats_only ? "stats" : "convert";
    std::vector<std::string> formats, inputs;
    std::string dir = ".", name;
    const char* start = nullptr;
    const char* end = nullptr;
    const char* start_marker = nullptr;
    const char* end_marker = nullptr;
    bool inclusive = false;
    stats_request s;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const auto value = [&]() -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "encore-trace-convert %s: %s needs a value\n%s", what, argv[i], usage);
                return nullptr;
            }
            return argv[++i];
        };
        if (const int taken = stats_option(argc, argv, i, s); taken != 0) {
            if (taken < 0) return 2;
        } else if (!stats_only && (a == "-f" || a == "--output-format")) {
            const char* v = value();
            if (v == nullptr || !split_formats(v, formats, {"pftrace", "json", "csv"})) return 2;
        } else if (a == "-d" || a == "--output-directory") {
            const char* v = value();
            if (v == nullptr) return 2;
            dir = v;
        } else if (!stats_only && a == "--output-file") {
            const char* v = value();
            if (v == nullptr) return 2;
            name = v;
        } else if (a == "--start") {
            if ((start = value()) == nullptr) return 2;
        } else if (a == "--end") {
            if ((end = value()) == nullptr) return 2;
        } else if (a == "--start-marker") {
            if ((start_marker = value()) == nullptr) return 2;
        } else if (a == "--end-marker") {
            if ((end_marker = value()) == nullptr) return 2;
        } else if (a == "--inclusive") {
            inclusive = true;
        } else if (a == "-i" || a == "--input") {
            const char* v = value();
            if (v == nullptr) return 2;
            inputs.emplace_back(v);
        } else if (a == "-h" || a == "--help") {
            std::fputs(usage, stdout);
            return 0;
        } else if (a == "--") {
            inputs.insert(inputs.end(), argv + i + 1, argv + argc);
            break;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "encore-trace-convert %s: unknown option %s\n%s", what, argv[i], usage);
            return 2;
        } else {
            inputs.emplace_back(a);
        }
    }
    if (stats_only && !s.print.any()) s.print.total = true;
    if (inputs.empty()) {
        std::fprintf(stderr, "encore-trace-convert %s: no input database\n%s", what, usage);
        return 2;
    }
    if (formats.empty() && !s.any()) {
        std::fprintf(stderr,
                     "encore-trace-convert convert: nothing to write (-f pftrace,json,csv, --stats, -S, -D or "
                     "--summary-groups)\n%s",
                     usage);
        return 2;
    }
    // rocpd's time window: a timestamp and a marker for the same end are refused.
    if ((start != nullptr && start_marker != nullptr) || (end != nullptr && end_marker != nullptr)) {
        std::fprintf(stderr, "encore-trace-convert %s: give --%s or --%s-marker, not both\n", what,
                     start != nullptr && start_marker != nullptr ? "start" : "end",
                     start != nullptr && start_marker != nullptr ? "start" : "end");
        return 2;
    }
    const bool summary_file = !s.output.empty() && !same_word(s.output, "stdout") && !same_word(s.output, "stderr");
    if ((!formats.empty() || s.csv || summary_file || inputs.size() > 1) && !make_dirs(dir)) return 1;
    std::string error;
    temporary_db merged;
    std::string label = inputs[0].substr(inputs[0].rfind('/') + 1);
    if (inputs.size() > 1) {
        // Several inputs: merged into one database first (each input checked as `merge` checks
        // it), so that every output has every process, kept apart by its guid.
        merged.path = dir + "/.encore-" + what + "-" + std::to_string(::getpid()) + ".db";
        encore::trace::merge::options mo;
        mo.force = true;
        if (!encore::trace::merge::merge(merged.path, inputs, mo, &error)) {
            merged.path.clear();
            std::fprintf(stderr, "encore-trace-convert %s: %s\n", what, error.c_str());
            return 1;
        }
        label = std::to_string(inputs.size()) + " databases";
    }
    const std::string& input = inputs.size() > 1 ? merged.path : inputs[0];
    auto db = encore::trace::rocpd::reader::open(input, &error);
    if (db == nullptr) {
        std::fprintf(stderr, "encore-trace-convert %s: %s\n", what, error.c_str());
        return 1;
    }
    if (start != nullptr || end != nullptr || start_marker != nullptr || end_marker != nullptr) {
        std::uint64_t first = 0, last = 0;
        encore::trace::rocpd::time_window w;
        w.inclusive = inclusive;
        if (!db->has_views()) {
            std::fprintf(stderr, "encore-trace-convert %s: %s: has no rocpd views (its writer did not finish)\n", what,
                         input.c_str());
            return 1;
        }
        if (!db->bounds(first, last, &error)) first = last = 0;
        if ((start != nullptr && !parse_time(start, first, last, w.start)) ||
            (end != nullptr && !parse_time(end, first, last, w.end))) {
            std::fprintf(stderr, "encore-trace-convert %s: --start/--end take ns since the epoch or N%%\n", what);
            return 2;
        }
        if ((start_marker != nullptr && !db->marker_time(start_marker, false, w.start, &error)) ||
            (end_marker != nullptr && !db->marker_time(end_marker, true, w.end, &error))) {
            std::fprintf(stderr, "encore-trace-convert %s: %s: %s\n", what, label.c_str(), error.c_str());
            return 1;
        }
        if (w.end < w.start) {
            std::fprintf(stderr, "encore-trace-convert %s: %s (%llu) before %s (%llu)\n", what,
                         end_marker != nullptr ? "--end-marker's end" : "--end", static_cast<unsigned long long>(w.end),
                         start_marker != nullptr ? "--start-marker's start" : "--start",
                         static_cast<unsigned long long>(w.start));
            return start_marker != nullptr || end_marker != nullptr ? 1 : 2;
        }
        if (!db->window(w, &error)) {
            std::fprintf(stderr, "encore-trace-convert %s: %s\n", what, error.c_str());
            return 1;
        }
    }
    // The outputs' stem: --output-file, else the input's name (rocpd's default "out" for several).
    const std::string stem = stem_of(inputs.size() > 1 && name.empty() ? "out" : inputs[0], dir, name);
    bool ok = true;
    std::vector<std::string> written;
    if (!formats.empty() && !encore::trace::db_convert::convert(*db, stem, formats, written, &error)) {
        std::fprintf(stderr, "encore-trace-convert %s: %s\n", what, error.c_str());
        ok = false;
    }
    if (s.any() && !stats_of(*db, stem, s, written, label)) ok = false;
    for (const auto& f : written) std::fprintf(stderr, "[encore-trace] wrote %s\n", f.c_str());
    return ok ? 0 : 1;
}
#endif

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1) {
        const std::string_view command = argv[1];
        if (command == "merge" || command == "convert" || command == "stats") {
#if ENCORE_TRACE_ROCPD
            return command == "merge" ? merge_command(argc - 1, argv + 1)
                                      : database_command(argc - 1, argv + 1, command == "stats");
#else
            std::fprintf(stderr,
                         "encore-trace-convert %s: this build has no SQLite (apt-get install libsqlite3-dev, "
                         "then reconfigure)\n",
                         argv[1]);
            return 2;
#endif
        }
    }
    encore::trace::convert_options o;
    std::string records;
    std::string period_text, period_unit = "sec";
    bool check_only = false;  // --check: the options are checked, nothing is converted (encore-trace
                              // asks before it starts the program)
#if ENCORE_TRACE_ROCPD
    stats_request stats;
#endif
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const auto value = [&](const char* what) -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "encore-trace-convert: %s needs a value\n%s", what, usage);
                return nullptr;
            }
            return argv[++i];
        };
#if ENCORE_TRACE_ROCPD
        if (const int taken = stats_option(argc, argv, i, stats); taken != 0) {
            if (taken < 0) return 2;
            continue;
        }
#else
        if (a == "--stats" || a == "-S" || a == "--summary" || a == "-D" || a == "--summary-per-domain" ||
            a == "--summary-groups" || a == "--summary-output-file" || a == "-u" || a == "--summary-units") {
            std::fprintf(stderr,
                         "encore-trace-convert: %s needs a build with SQLite (the statistics are computed "
                         "from the rocpd database)\n",
                         argv[i]);
            return 2;
        }
#endif
        if (a == "-f" || a == "--output-format") {
            const char* v = value("-f");
            if (v == nullptr || !split_formats(v, o.formats, {"rocpd", "json", "csv", "pftrace"})) return 2;
        } else if (a == "-d" || a == "--output-directory") {
            const char* v = value("-d");
            if (v == nullptr) return 2;
            o.output_dir = v;
        } else if (a == "--output-file") {
            const char* v = value("--output-file");
            if (v == nullptr) return 2;
            o.output_file = v;
        } else if (a == "--load") {
            // A library whose kinds' arguments the records carry (encore's libcuda.so.1 for the CUDA
            // driver API): loaded, its kinds register with libencore, and their arguments format
            // by name instead of as argument words.
            const char* v = value("--load");
            if (v == nullptr) return 2;
            // Loaded for its declarations, not to run a program: encore-trace's request to make
            // CUDA's profiler API roctx's control (--selected-regions) would only be warned about
            // here, where no roctx is loaded.
            ::unsetenv("ENCORE_CUDA_PROFILER_CONTROL");
            if (::dlopen(v, RTLD_NOW | RTLD_LOCAL) == nullptr)
                std::fprintf(stderr, "encore-trace-convert: %s (arguments of its kinds convert as argument words)\n",
                             ::dlerror());
        } else if (a == "--kernel-include-regex" || a == "--kernel-exclude-regex") {
            const char* v = value(argv[i]);
            if (v == nullptr) return 2;
            try {
                (a == "--kernel-include-regex" ? o.kernel_include : o.kernel_exclude) = std::regex(v);
            } catch (const std::regex_error& e) {
                std::fprintf(stderr, "encore-trace-convert: %s: not a regular expression (%s)\n", v, e.what());
                return 2;
            }
        } else if (a == "-P" || a == "--collection-period") {
            const char* v = value("-P");
            if (v == nullptr) return 2;
            period_text = v;
        } else if (a == "--collection-period-unit") {
            const char* v = value("--collection-period-unit");
            if (v == nullptr) return 2;
            period_unit = v;
        } else if (a == "--combined-dir") {
            const char* v = value("--combined-dir");
            if (v == nullptr || *v == '\0') return 2;
            o.combined_dir = v;
        } else if (a == "--launcher-pid" || a == "--child-status" || a == "--child-signal") {
            const char* v = value(argv[i]);
            char* end = nullptr;
            const long n = v != nullptr ? std::strtol(v, &end, 10) : -1;
            if (v == nullptr || end == v || *end != '\0' || n < 0 || n > INT32_MAX) {
                std::fprintf(stderr, "encore-trace-convert: %s needs a whole number\n", argv[i - 1]);
                return 2;
            }
            if (a == "--launcher-pid")
                o.launcher_pid = n;
            else if (a == "--child-status")
                o.child_status = static_cast<int>(n);
            else
                o.child_signal = static_cast<int>(n);
        } else if (a == "--check") {
            check_only = true;
        } else if (a == "--print-calls") {
            o.print_calls = true;
        } else if (a == "--no-summary") {
            o.summary = false;
        } else if (a == "-h" || a == "--help") {
            std::fputs(usage, stdout);
            return 0;
        } else if (a == "--" && i + 1 < argc && records.empty()) {
            // `-- FOLDER`: the folder, whatever its name (a --summary-groups list ends here);
            // encore-trace-run appends its options after it.
            records = argv[++i];
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "encore-trace-convert: unknown option %s\n%s", argv[i], usage);
            return 2;
        } else if (records.empty()) {
            records = a;
        } else {
            std::fprintf(stderr, "encore-trace-convert: one record folder only\n%s", usage);
            return 2;
        }
    }
    if (!period_text.empty()) {
        const auto period = encore::trace::parse_collection_period(period_text, period_unit);
        if (!period) {
            std::fprintf(stderr,
                         "encore-trace-convert: -P %s %s: needs DELAY:TIME:REPEAT (whole numbers, TIME > 0) in "
                         "hour, min, sec, msec, usec or nsec\n",
                         period_text.c_str(), period_unit.c_str());
            return 2;
        }
        o.collection_period = *period;
    }
    if (check_only) return 0;
    struct stat st {};
    if (records.empty() || ::stat(records.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        std::fprintf(stderr, "encore-trace-convert: %s: not a record folder\n%s",
                     records.empty() ? "(none given)" : records.c_str(), usage);
        return 2;
    }
#if ENCORE_TRACE_ROCPD
    // The statistics come from the rocpd database: written for them when not asked for, and
    // removed after.
    const bool stats_db_only = stats.any() && std::find(o.formats.begin(), o.formats.end(), "rocpd") == o.formats.end();
    if (stats_db_only) o.formats.emplace_back("rocpd");
#endif
    encore::trace::convert_result r = encore::trace::convert(records, o);
    for (const auto& e : r.errors) std::fprintf(stderr, "encore-trace-convert: %s\n", e.c_str());
#if ENCORE_TRACE_ROCPD
    if (stats.any()) {
        std::vector<std::string> kept, stats_files;
        constexpr std::string_view tail = "_results.db";
        for (const auto& f : r.written) {
            const bool db = f.size() > tail.size() && f.compare(f.size() - tail.size(), tail.size(), tail) == 0;
            if (db) {
                std::string error;
                auto reader = encore::trace::rocpd::reader::open(f, &error);
                if (reader == nullptr) {
                    std::fprintf(stderr, "encore-trace-convert: %s\n", error.c_str());
                    r.ok = false;
                } else if (!stats_of(*reader, f.substr(0, f.size() - tail.size()), stats, stats_files)) {
                    r.ok = false;
                }
            }
            if (db && stats_db_only)
                ::unlink(f.c_str());
            else
                kept.push_back(f);
        }
        r.written = std::move(kept);
        r.written.insert(r.written.end(), stats_files.begin(), stats_files.end());
    }
#endif
    if (r.filtered != 0)
        std::fprintf(stderr, "[encore-trace] %llu records left out by the kernel filters and collection periods\n",
                     static_cast<unsigned long long>(r.filtered));
    if (r.dropped != 0)
        std::fprintf(stderr,
                     "[encore-trace] %llu records could not be recorded (a full disk, or calls from a signal handler "
                     "inside a traced call): not in the outputs\n",
                     static_cast<unsigned long long>(r.dropped));
    if (r.torn != 0)
        std::fprintf(stderr,
                     "[encore-trace] %llu threads were cut mid-record when the program died: every record "
                     "they completed is in the outputs\n",
                     static_cast<unsigned long long>(r.torn));
    for (const auto& f : r.written) std::fprintf(stderr, "[encore-trace] wrote %s\n", f.c_str());
    return r.ok ? 0 : 1;
}
