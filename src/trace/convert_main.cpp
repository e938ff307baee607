// src/trace/convert_main.cpp — encore-trace-convert: what encore-trace runs after the program
// ended, and what a user runs on a record folder kept with --keep-records.
//
//   encore-trace-convert [-f rocpd,json,csv,pftrace] [-d DIR] [--output-file NAME] [--load LIBRARY]
//                        [--print-calls] [--no-summary] RECORDS_DIR
//
// Exit status: 0 when every process converted, 1 when something could not be written or read
// (each reason on stderr), 2 for a wrong command line.
#include "convert.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace {

constexpr const char* usage =
    "usage: encore-trace-convert [-f|--output-format rocpd,json,csv,pftrace] [-d|--output-directory DIR]\n"
    "                            [--output-file NAME] [--load LIBRARY] [--print-calls] [--no-summary] RECORDS_DIR\n";

bool split_formats(std::string_view list, std::vector<std::string>& out) {
    while (!list.empty()) {
        const auto comma = list.find(',');
        const std::string_view f = list.substr(0, comma);
        if (f != "rocpd" && f != "json" && f != "csv" && f != "pftrace") {
            std::fprintf(stderr, "encore-trace-convert: unknown output format '%.*s' (rocpd, json, csv, pftrace)\n",
                         static_cast<int>(f.size()), f.data());
            return false;
        }
        out.emplace_back(f);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    encore::trace::convert_options o;
    std::string records;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const auto value = [&](const char* what) -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "encore-trace-convert: %s needs a value\n%s", what, usage);
                return nullptr;
            }
            return argv[++i];
        };
        if (a == "-f" || a == "--output-format") {
            const char* v = value("-f");
            if (v == nullptr || !split_formats(v, o.formats)) return 2;
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
            if (::dlopen(v, RTLD_NOW | RTLD_LOCAL) == nullptr)
                std::fprintf(stderr, "encore-trace-convert: %s (arguments of its kinds convert as argument words)\n",
                             ::dlerror());
        } else if (a == "--print-calls") {
            o.print_calls = true;
        } else if (a == "--no-summary") {
            o.summary = false;
        } else if (a == "-h" || a == "--help") {
            std::fputs(usage, stdout);
            return 0;
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
    struct stat st {};
    if (records.empty() || ::stat(records.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        std::fprintf(stderr, "encore-trace-convert: %s: not a record folder\n%s",
                     records.empty() ? "(none given)" : records.c_str(), usage);
        return 2;
    }
    const encore::trace::convert_result r = encore::trace::convert(records, o);
    for (const auto& e : r.errors) std::fprintf(stderr, "encore-trace-convert: %s\n", e.c_str());
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
