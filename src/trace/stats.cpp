// src/trace/stats.cpp — rocprofv3's statistics from a rocpd database (stats.hpp).
#include "stats.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>
#include <map>
#include <regex>

namespace encore::trace::stats {

double entry::stddev() const {
    // rocprofv3's statistics<>::get_stddev: the sample deviation, 0 below two samples.
    return calls < 2 ? 0.0 : std::sqrt(std::abs(m2 / static_cast<double>(calls - 1)));
}

std::uint64_t table::total_ns() const {
    std::uint64_t t = 0;
    for (const auto& e : entries) t += e.total_ns;
    return t;
}

namespace detail {

void merge_into(entry& a, const entry& b) {
    if (b.calls == 0) return;
    if (a.calls == 0) {
        const std::string name = a.name;
        a = b;
        a.name = name;
        return;
    }
    // Chan et al.'s pairwise update: exact where a single pass over sums of squares would lose
    // the variance of long kernels to cancellation.
    const double na = static_cast<double>(a.calls), nb = static_cast<double>(b.calls);
    const double delta = b.mean_ns - a.mean_ns;
    a.m2 += b.m2 + delta * delta * na * nb / (na + nb);
    a.mean_ns = (a.mean_ns * na + b.mean_ns * nb) / (na + nb);
    a.calls += b.calls;
    a.total_ns += b.total_ns;
    a.min_ns = std::min(a.min_ns, b.min_ns);
    a.max_ns = std::max(a.max_ns, b.max_ns);
}

std::pair<std::string, std::string> api_domain(std::string_view category) {
    std::string token(category.substr(0, category.find('_')));
    if (token.empty()) token = "unknown";
    std::string lower = token, upper = token;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return {lower + "_api_stats", upper + "_API"};
}

std::string format_value(double v) {
    // rocprofv3's stats_formatter (lib/output/statistics.cpp).
    char buf[64];
    std::snprintf(buf, sizeof buf, v > 1.0e-2 ? "%.6f" : "%.8e", v);
    return buf;
}

std::string format_percentage(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, v >= 1.0 ? "%.2f" : v > 1.0e-2 ? "%.4f" : "%.3e", v);
    return buf;
}

}  // namespace detail

namespace {

// Each source gives (category, name, duration) rows; the statistics are one SQL pass per source,
// grouped by category and name, the deviation a second pass over the same rows against each
// group's mean (materialized once, so a view with joins is read once).
struct source {
    const char* what;
    const char* sql;
};
constexpr source sources[] = {
    {"kernels", "SELECT 'KERNEL_DISPATCH' AS c, coalesce(name, '') AS n, duration AS x FROM kernels"},
    {"regions", "SELECT coalesce(category, '') AS c, coalesce(name, '') AS n, duration AS x FROM regions_and_samples"},
    {"memory_copies", "SELECT 'MEMORY_COPY' AS c, coalesce(name, '') AS n, duration AS x FROM memory_copies"},
    // The database keeps an allocation's type and level; rocprofv3 names the operation.
    {"memory_allocations",
     "SELECT CASE WHEN level = 'SCRATCH' THEN 'SCRATCH_MEMORY' ELSE 'MEMORY_ALLOCATION' END AS c, "
     "CASE WHEN level = 'SCRATCH' THEN (CASE type WHEN 'ALLOC' THEN 'SCRATCH_MEMORY_ALLOC' "
     "WHEN 'FREE' THEN 'SCRATCH_MEMORY_FREE' WHEN 'RECLAIM' THEN 'SCRATCH_MEMORY_ASYNC_RECLAIM' "
     "ELSE 'SCRATCH_MEMORY_' || coalesce(type, '') END) "
     "WHEN level = 'VIRTUAL' THEN (CASE type WHEN 'ALLOC' THEN 'MEMORY_ALLOCATION_VMEM_ALLOCATE' "
     "WHEN 'FREE' THEN 'MEMORY_ALLOCATION_VMEM_FREE' ELSE 'MEMORY_ALLOCATION_VMEM_' || coalesce(type, '') END) "
     "ELSE (CASE type WHEN 'ALLOC' THEN 'MEMORY_ALLOCATION_ALLOCATE' WHEN 'FREE' THEN 'MEMORY_ALLOCATION_FREE' "
     "ELSE 'MEMORY_ALLOCATION_' || coalesce(type, '') END) END AS n, duration AS x FROM memory_allocations"},
};

std::string grouped(const char* rows) {
    return std::string("WITH d AS MATERIALIZED (") + rows +
           "), g AS (SELECT c, n, count(*) AS calls, sum(x) AS total, min(x) AS lo, max(x) AS hi, avg(x) AS mean "
           "FROM d GROUP BY c, n) "
           "SELECT g.c, g.n, g.calls, g.total, g.lo, g.hi, g.mean, total((d.x - g.mean) * (d.x - g.mean)) "
           "FROM d JOIN g ON g.c = d.c AND g.n = d.n GROUP BY g.c, g.n";
}

// The file and column name of a category; everything that is not a device event is an API.
std::pair<std::string, std::string> domain_of(const std::string& category) {
    if (category == "KERNEL_DISPATCH") return {"kernel_stats", "KERNEL_DISPATCH"};
    if (category == "MEMORY_COPY") return {"memory_copy_stats", "MEMORY_COPY"};
    if (category == "MEMORY_ALLOCATION") return {"memory_allocation_stats", "MEMORY_ALLOCATION"};
    if (category == "SCRATCH_MEMORY") return {"scratch_memory_stats", "SCRATCH_MEMORY"};
    return detail::api_domain(category);
}

// rocprofv3's order of domains (its domain_type), then the others by name.
int rank_of(const std::string& file) {
    constexpr const char* order[] = {"hsa_api_stats",  "hip_api_stats",          "marker_api_stats",
                                     "kernel_stats",   "memory_copy_stats",      "scratch_memory_stats",
                                     "rccl_api_stats", "memory_allocation_stats"};
    for (int i = 0; i < static_cast<int>(std::size(order)); ++i)
        if (file == order[i]) return i;
    return static_cast<int>(std::size(order));
}

bool by_total(const entry& a, const entry& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
}

std::string csv_string(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

std::string csv_row(const entry& e, double percentage) {
    return csv_string(e.name) + ',' + std::to_string(e.calls) + ',' + std::to_string(e.total_ns) + ',' +
           detail::format_value(e.mean_ns) + ',' + detail::format_percentage(percentage) + ',' +
           std::to_string(e.min_ns) + ',' + std::to_string(e.max_ns) + ',' + detail::format_value(e.stddev()) + '\n';
}

bool write_file(const std::string& path, const std::string& text, std::string* error) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        *error = path + ": " + std::strerror(errno);
        return false;
    }
    const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const bool closed = std::fclose(f) == 0;
    if (!wrote || !closed) *error = path + ": " + std::strerror(errno);
    return wrote && closed;
}

constexpr const char* csv_header =
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n";

// fmt's "{}" of a double: the shortest text that reads back as the same value.
std::string shortest(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string pad(std::string_view s, std::size_t width, char align) {
    if (s.size() >= width) return std::string(s);
    const std::size_t room = width - s.size();
    const std::size_t left = align == '<' ? 0 : align == '>' ? room : room / 2;
    return std::string(left, ' ') + std::string(s) + std::string(room - left, ' ');
}

}  // namespace

bool compute(const rocpd::reader& db, std::vector<table>& out, std::string* error) {
    if (!db.has_views()) {
        *error = db.path() + ": has no rocpd views (its writer did not finish); `encore-trace merge -o OUT.db " +
                 db.path() + "` rebuilds them";
        return false;
    }
    std::map<std::string, table> tables;  // by file
    std::map<std::string, std::map<std::string, entry>> entries;
    for (const source& s : sources) {
        const bool ok = db.each(
            grouped(s.sql),
            [&](const rocpd::row& r) {
                const auto [file, column] = domain_of(std::string(r.text(0)));
                auto& t = tables[file];
                t.file = file;
                t.domain = column;
                entry e;
                e.name = r.text(1);
                e.calls = static_cast<std::uint64_t>(r.i64(2));
                e.total_ns = static_cast<std::uint64_t>(r.i64(3));
                e.min_ns = static_cast<std::uint64_t>(r.i64(4));
                e.max_ns = static_cast<std::uint64_t>(r.i64(5));
                e.mean_ns = r.f64(6);
                e.m2 = r.f64(7);
                auto& into = entries[file][e.name];
                into.name = e.name;
                detail::merge_into(into, e);
            },
            error);
        if (!ok) return false;
    }
    out.clear();
    for (auto& [file, t] : tables) {
        for (auto& [name, e] : entries[file]) t.entries.push_back(std::move(e));
        std::sort(t.entries.begin(), t.entries.end(), by_total);
        out.push_back(std::move(t));
    }
    std::stable_sort(out.begin(), out.end(), [](const table& a, const table& b) {
        const int ra = rank_of(a.file), rb = rank_of(b.file);
        return ra != rb ? ra < rb : a.file < b.file;
    });
    return true;
}

bool write_csv(const std::vector<table>& tables, const std::string& stem, std::vector<std::string>& written,
               std::string* error) {
    std::uint64_t all = 0;
    std::vector<entry> domains;
    for (const table& t : tables) {
        if (t.entries.empty()) continue;
        const double total = static_cast<double>(t.total_ns());
        std::string text = csv_header;
        entry d;
        d.name = t.domain;
        for (const entry& e : t.entries) {
            text += csv_row(e, total > 0 ? static_cast<double>(e.total_ns) / total * 100.0 : 0.0);
            detail::merge_into(d, e);
        }
        const std::string path = stem + '_' + t.file + ".csv";
        if (!write_file(path, text, error)) return false;
        written.push_back(path);
        all += d.total_ns;
        domains.push_back(std::move(d));
    }
    if (domains.empty()) return true;
    std::sort(domains.begin(), domains.end(), by_total);
    std::string text = csv_header;
    for (const entry& d : domains)
        text += csv_row(d, all > 0 ? static_cast<double>(d.total_ns) / static_cast<double>(all) * 100.0 : 0.0);
    const std::string path = stem + "_domain_stats.csv";
    if (!write_file(path, text, error)) return false;
    written.push_back(path);
    return true;
}

bool parse_unit(std::string_view s, unit& u) {
    if (s == "sec")
        u = unit::sec;
    else if (s == "msec")
        u = unit::msec;
    else if (s == "usec")
        u = unit::usec;
    else if (s == "nsec")
        u = unit::nsec;
    else
        return false;
    return true;
}

void print_summary(const std::vector<table>& tables, unit u, std::FILE* out, const std::string& title,
                   const std::string& indent) {
    struct line {
        const entry* e;
        const std::string* domain;
    };
    std::vector<line> lines;
    std::uint64_t all = 0;
    std::size_t name_width = 40, domain_width = 12;
    for (const table& t : tables)
        for (const entry& e : t.entries) {
            lines.push_back({&e, &t.domain});
            all += e.total_ns;
            name_width = std::max(name_width, e.name.size());
            domain_width = std::max(domain_width, t.domain.size());
        }
    if (lines.empty()) return;
    std::stable_sort(lines.begin(), lines.end(), [](const line& a, const line& b) { return by_total(*a.e, *b.e); });
    const char* unit_name = u == unit::sec ? "sec" : u == unit::msec ? "msec" : u == unit::usec ? "usec" : "nsec";
    const auto in_unit = [&](std::uint64_t ns) {
        return u == unit::nsec ? std::to_string(ns) : shortest(static_cast<double>(ns) / static_cast<double>(u));
    };
    const auto sci = [&](double ns) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3e", ns / static_cast<double>(u));
        return std::string(buf);
    };
    // rocprofv3's layout (lib/output/generateStats.cpp).
    std::string text = "\n" + indent + title + ":\n\n";
    const std::string with_unit = std::string(" (") + unit_name + ")";
    text += indent + "| " + pad("NAME", name_width, '^') + " | " + pad("DOMAIN", domain_width, '^') + " | " +
            pad("CALLS", 15, '^') + " | " + pad("DURATION" + with_unit, 15, '^') + " | " +
            pad("AVERAGE" + with_unit, 15, '^') + " | " + pad("PERCENT (INC)", 13, '^') + " | " +
            pad("MIN" + with_unit, 15, '^') + " | " + pad("MAX" + with_unit, 15, '^') + " | " + pad("STDDEV", 15, '^') +
            " |\n";
    text += indent + "|-" + std::string(name_width, '-') + "-|-" + std::string(domain_width, '-') + "-|-" +
            std::string(15, '-') + "-|-" + std::string(15, '-') + "-|-" + std::string(15, '-') + "-|-" +
            std::string(13, '-') + "-|-" + std::string(15, '-') + "-|-" + std::string(15, '-') + "-|-" +
            std::string(15, '-') + "-|\n";
    for (const line& l : lines) {
        const entry& e = *l.e;
        const double percent = all > 0 ? static_cast<double>(e.total_ns) / static_cast<double>(all) * 100.0 : 0.0;
        text += indent + "| " + pad(e.name, name_width, '<') + " | " + pad(*l.domain, domain_width, '<') + " | " +
                pad(std::to_string(e.calls), 15, '>') + " | " + pad(in_unit(e.total_ns), 15, '>') + " | " +
                pad(sci(e.mean_ns), 15, '>') + " | " + pad(std::to_string(percent), 13, '>') + " | " +
                pad(in_unit(e.min_ns), 15, '>') + " | " + pad(in_unit(e.max_ns), 15, '>') + " | " +
                pad(sci(e.stddev()), 15, '>') + " |\n";
    }
    text += "\n";
    std::fputs(text.c_str(), out);
    std::fflush(out);
}

bool print_summaries(const std::vector<table>& tables, const summaries& s, std::FILE* out, const std::string& what,
                     const std::string& indent, std::vector<std::string>& unmatched, std::string* error) {
    if (s.per_domain)
        for (const table& t : tables)
            if (!t.entries.empty()) print_summary({t}, s.u, out, t.domain + " SUMMARY" + what, indent);
    for (const std::string& g : s.groups) {
        std::regex re;
        try {
            re = std::regex(g);
        } catch (const std::regex_error& e) {
            *error = "--summary-groups " + g + ": not a regular expression (" + e.what() + ")";
            return false;
        }
        // rocprofv3 matches the domain's column name whole (std::regex_match).
        std::vector<table> group;
        std::string names;
        for (const table& t : tables)
            if (!t.entries.empty() && std::regex_match(t.domain, re)) {
                names += (names.empty() ? "" : " + ") + t.domain;
                group.push_back(t);
            }
        if (group.empty())
            unmatched.push_back(g);
        else
            print_summary(group, s.u, out, names + " SUMMARY" + what, indent);
    }
    if (s.total) print_summary(tables, s.u, out, "SUMMARY" + what, indent);
    return true;
}

}  // namespace encore::trace::stats
