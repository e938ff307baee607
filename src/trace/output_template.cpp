// src/trace/output_template.cpp — see output_template.hpp.
#include "output_template.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace encore::trace {
namespace {

const char* first_set(const process_dir& d, std::initializer_list<std::string_view> names) {
    for (std::string_view n : names)
        if (const char* v = d.env(n); v != nullptr && *v != '\0') return v;
    return nullptr;
}

const char* rank_of(const process_dir& d) {
    return first_set(d, {"SLURM_PROCID", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "OMPI_COMM_WORLD_RANK",
                         "MPI_RANKID", "MPI_LOCALRANKID", "MPI_RANK", "RANK"});
}

}  // namespace

std::string expand_output_template(const std::string& pattern, const process_dir& d, bool file_name,
                                   std::vector<std::string>* unknown) {
    std::string out;
    const auto put = [&](std::string_view v) {
        for (char c : v) out += file_name && c == '/' ? '_' : c;
    };
    for (std::size_t i = 0; i < pattern.size();) {
        const std::string_view rest = std::string_view(pattern).substr(i);
        // %env{NAME}%, $env{NAME} and %q{NAME}%: the name runs to the closing brace.
        const bool env_form = rest.starts_with("%env{") || rest.starts_with("$env{") || rest.starts_with("%q{");
        if (env_form) {
            const std::size_t open = rest.find('{');
            const std::size_t close = rest.find('}', open);
            if (close != std::string_view::npos) {
                const std::string_view name = rest.substr(open + 1, close - open - 1);
                std::size_t end = close + 1;
                if (rest[0] == '%' && end < rest.size() && rest[end] == '%') ++end;  // the closing %
                if (const char* v = d.env(name)) put(v);
                i += end;
                continue;
            }
        }
        if (rest[0] != '%') {
            out += rest[0];
            ++i;
            continue;
        }
        // %word% forms first, then the one-letter short forms (%p, %r, %s, %j).
        const std::size_t close = rest.find('%', 1);
        const std::string_view word = close == std::string_view::npos ? std::string_view{} : rest.substr(1, close - 1);
        std::string value;
        bool known = true;
        if (word == "pid") {
            value = std::to_string(d.pid);
        } else if (word == "ppid") {
            value = std::to_string(d.ppid);
        } else if (word == "hostname") {
            value = d.hostname;
        } else if (word == "rank") {
            const char* r = rank_of(d);
            value = r != nullptr ? r : "0";
        } else if (word == "size") {
            const char* s = first_set(d, {"SLURM_NTASKS", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE",
                                          "MPI_NRANKS", "WORLD_SIZE"});
            value = s != nullptr ? s : "1";
        } else if (word == "nid") {
            const char* r = rank_of(d);
            value = r != nullptr ? r : std::to_string(d.pid);
        } else if (word == "job") {
            const char* j = first_set(d, {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID"});
            value = j != nullptr ? j : "0";
        } else {
            known = false;
        }
        if (known) {
            put(value);
            i += close + 1;
            continue;
        }
        // Short forms: %p, %r, %s, %j (one letter, no closing %).
        if (rest.size() >= 2 && (rest[1] == 'p' || rest[1] == 'r' || rest[1] == 's' || rest[1] == 'j')) {
            const std::string full = std::string("%") +
                                     (rest[1] == 'p'   ? "pid"
                                      : rest[1] == 'r' ? "rank"
                                      : rest[1] == 's' ? "size"
                                                       : "job") +
                                     "%";
            out += expand_output_template(full, d, file_name, unknown);
            i += 2;
            continue;
        }
        // Reported only when it looks like one (%name%): "100%_%" is text.
        const bool name_like = !word.empty() && std::isalpha(static_cast<unsigned char>(word[0])) != 0 &&
                               std::all_of(word.begin(), word.end(), [](char c) {
                                   return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
                               });
        if (unknown != nullptr && name_like) unknown->emplace_back(rest.substr(0, close + 1));
        out += '%';
        ++i;
    }
    return out;
}

}  // namespace encore::trace
