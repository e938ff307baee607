// test/trace/test_perfetto.cpp — the Perfetto trace writer (src/trace/perfetto.hpp): the encoder's
// wire format (varints at their edges, nested messages whose length needs more than a byte), and
// traces written to a file and read back by this test's own decoder, which replays them as
// Perfetto's importer does (per-sequence interned names, defaults and incremental clocks; each
// TYPE_SLICE_END closing the innermost open slice of its track): names, times, arguments, flows,
// the layout of events that overlap, and input that is not well formed.
#include "../../src/trace/perfetto.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace pf = encore::trace::perfetto;
namespace fs = std::filesystem;

static_assert(pf::varint_size(0) == 1 && pf::varint_size(127) == 1 && pf::varint_size(128) == 2);
static_assert(pf::varint_size(1ull << 32) == 5 && pf::varint_size(~0ull) == 10);

namespace {

// ---- a minimal protobuf reader ------------------------------------------------------------------

struct field {
    std::uint32_t number = 0;
    pf::wire type = pf::wire::varint;
    std::uint64_t value = 0;  // varint and fixed64
    std::string_view bytes;   // length-delimited
};

bool read_varint(std::string_view& s, std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && !s.empty(); shift += 7) {
        const auto b = static_cast<std::uint8_t>(s.front());
        s.remove_prefix(1);
        v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
        if (b < 0x80) return true;
    }
    return false;
}

// Every field of a message; `ok` false when the bytes are not a message (a length past the end, a
// wire type this format does not use).
std::vector<field> fields(std::string_view s, bool& ok) {
    std::vector<field> out;
    ok = true;
    while (!s.empty()) {
        std::uint64_t key = 0;
        if (!read_varint(s, key)) return ok = false, out;
        field f;
        f.number = static_cast<std::uint32_t>(key >> 3);
        f.type = static_cast<pf::wire>(key & 7);
        switch (f.type) {
            case pf::wire::varint:
                if (!read_varint(s, f.value)) return ok = false, out;
                break;
            case pf::wire::fixed64:
                if (s.size() < 8) return ok = false, out;
                for (int i = 0; i < 8; ++i)
                    f.value |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(s[i])) << (8 * i);
                s.remove_prefix(8);
                break;
            case pf::wire::bytes: {
                std::uint64_t n = 0;
                if (!read_varint(s, n) || n > s.size()) return ok = false, out;
                f.bytes = s.substr(0, n);
                s.remove_prefix(n);
                break;
            }
            default: return ok = false, out;
        }
        out.push_back(f);
    }
    return out;
}

std::vector<field> fields(std::string_view s) {
    bool ok = false;
    auto out = fields(s, ok);
    REQUIRE(ok);
    return out;
}

// ---- a trace replayed as Perfetto's importer reads it -------------------------------------------

struct track_info {
    std::uint64_t parent = 0;
    std::string name;
    std::int64_t pid = -1, tid = -1;
    bool process = false, thread = false;
    std::vector<std::string> cmdline;
};

struct event_info {
    std::uint64_t track = 0, ts = 0, end = 0;  // end: where its TYPE_SLICE_END put it
    int type = 0;                              // 1 begin, 3 instant
    std::string name, category;
    std::map<std::string, std::string> args;  // "i:256", "u:7", "p:0x1000", "s:text"
    std::uint64_t correlation = 0;
    std::vector<std::uint64_t> flows, terminating;
    int depth = 0;  // open slices on its track when it began
};

struct sequence_state {
    bool valid = false;
    std::uint64_t default_track = 0, clock = 0, last = 0;
    std::map<std::uint64_t, std::string> names, categories, annotations, values;
};

struct replay {
    std::map<std::uint64_t, track_info> tracks;
    std::vector<event_info> events;
    std::vector<std::string> problems;
    std::size_t packets = 0;
    std::map<std::uint64_t, int> interned_names;  // how often each event name string was interned

    const event_info* find(std::string_view name) const {
        for (const auto& e : events)
            if (e.name == name) return &e;
        return nullptr;
    }
    std::size_t count(std::string_view name) const {
        std::size_t n = 0;
        for (const auto& e : events) n += e.name == name;
        return n;
    }
};

std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

void intern_table(std::string_view table, std::map<std::uint64_t, std::string>& into) {
    std::uint64_t iid = 0;
    std::string name;
    for (const field& f : fields(table)) {
        if (f.number == 1) iid = f.value;
        if (f.number == 2) name = std::string(f.bytes);
    }
    into[iid] = name;
}

replay read_trace(const std::string& bytes) {
    replay r;
    std::map<std::uint32_t, sequence_state> sequences;
    std::map<std::uint64_t, std::vector<std::size_t>> open;  // per track: its open slices (event index)
    std::map<std::uint64_t, std::uint64_t> last_ts;          // per track
    bool ok = false;
    const auto problem = [&](const std::string& what) {
        r.problems.push_back("packet " + std::to_string(r.packets) + ": " + what);
    };
    for (const field& p : fields(bytes, ok)) {
        REQUIRE(p.number == 1);
        ++r.packets;
        std::uint32_t seq = 0;
        std::uint64_t flags = 0, ts = 0;
        bool has_ts = false;
        std::string_view event, descriptor, interned, defaults, snapshot;
        for (const field& f : fields(p.bytes)) {
            switch (f.number) {
                case 8: ts = f.value, has_ts = true; break;
                case 10: seq = static_cast<std::uint32_t>(f.value); break;
                case 13: flags = f.value; break;
                case 11: event = f.bytes; break;
                case 60: descriptor = f.bytes; break;
                case 12: interned = f.bytes; break;
                case 59: defaults = f.bytes; break;
                case 6: snapshot = f.bytes; break;
                case 87: break;
                default: problem("unexpected TracePacket field " + std::to_string(f.number));
            }
        }
        sequence_state& s = sequences[seq];
        if (flags & 1) {
            s = sequence_state{};
            s.valid = true;
        }
        if ((flags & 2) && !s.valid) problem("needs incremental state, none valid");
        if (!defaults.empty()) {
            for (const field& f : fields(defaults)) {
                if (f.number == 58) s.clock = f.value;
                if (f.number == 11)
                    for (const field& g : fields(f.bytes))
                        if (g.number == 11) s.default_track = g.value;
            }
        }
        if (!interned.empty()) {
            for (const field& f : fields(interned)) {
                if (f.number == 1) intern_table(f.bytes, s.categories);
                if (f.number == 2) {
                    intern_table(f.bytes, s.names);
                    for (const field& g : fields(f.bytes))
                        if (g.number == 1) ++r.interned_names[g.value];
                }
                if (f.number == 3) intern_table(f.bytes, s.annotations);
                if (f.number == 29) intern_table(f.bytes, s.values);
            }
        }
        if (!snapshot.empty()) {
            for (const field& c : fields(snapshot)) {
                std::uint64_t id = 0, t = 0;
                for (const field& g : fields(c.bytes)) {
                    if (g.number == 1) id = g.value;
                    if (g.number == 2) t = g.value;
                }
                if (id == s.clock) s.last = t;
            }
        }
        if (!descriptor.empty()) {
            track_info t;
            std::uint64_t uuid = 0;
            for (const field& f : fields(descriptor)) {
                if (f.number == 1) uuid = f.value;
                if (f.number == 2) t.name = std::string(f.bytes);
                if (f.number == 5) t.parent = f.value;
                if (f.number == 3) {
                    t.process = true;
                    for (const field& g : fields(f.bytes)) {
                        if (g.number == 1) t.pid = static_cast<std::int64_t>(g.value);
                        if (g.number == 2) t.cmdline.emplace_back(g.bytes);
                        if (g.number == 6) t.name = std::string(g.bytes);
                    }
                }
                if (f.number == 4) {
                    t.thread = true;
                    for (const field& g : fields(f.bytes)) {
                        if (g.number == 1) t.pid = static_cast<std::int64_t>(g.value);
                        if (g.number == 2) t.tid = static_cast<std::int64_t>(g.value);
                        if (g.number == 5) t.name = std::string(g.bytes);
                    }
                }
            }
            if (r.tracks.count(uuid) != 0) problem("track " + std::to_string(uuid) + " described twice");
            r.tracks[uuid] = t;
        }
        if (event.empty()) continue;
        if (!has_ts) problem("an event without a timestamp");
        if (s.clock == 64) {
            s.last += ts;
            ts = s.last;
        } else if (s.clock != 0) {
            problem("clock " + std::to_string(s.clock));
        }
        event_info e;
        e.track = s.default_track;
        e.ts = e.end = ts;
        for (const field& f : fields(event)) {
            const auto lookup = [&](const std::map<std::uint64_t, std::string>& m, std::uint64_t iid) {
                auto it = m.find(iid);
                if (it == m.end()) problem("iid " + std::to_string(iid) + " not interned");
                return it == m.end() ? std::string("?") : it->second;
            };
            switch (f.number) {
                case 9: e.type = static_cast<int>(f.value); break;
                case 11: e.track = f.value; break;
                case 10: e.name = lookup(s.names, f.value); break;
                case 3: e.category = lookup(s.categories, f.value); break;
                case 52: e.correlation = f.value; break;
                case 47: e.flows.push_back(f.value); break;
                case 48: e.terminating.push_back(f.value); break;
                case 4: {
                    std::string name, value;
                    for (const field& g : fields(f.bytes)) {
                        if (g.number == 1) name = lookup(s.annotations, g.value);
                        if (g.number == 4) value = "i:" + std::to_string(static_cast<std::int64_t>(g.value));
                        if (g.number == 3) value = "u:" + std::to_string(g.value);
                        if (g.number == 7) value = "p:" + hex(g.value);
                        if (g.number == 6) value = "s:" + std::string(g.bytes);
                        if (g.number == 17) value = "s:" + lookup(s.values, g.value);
                    }
                    e.args[name] = value;
                    break;
                }
                default: problem("unexpected TrackEvent field " + std::to_string(f.number));
            }
        }
        if (r.tracks.count(e.track) == 0) problem("an event on undescribed track " + std::to_string(e.track));
        if (auto it = last_ts.find(e.track); it != last_ts.end() && it->second > ts)
            problem("track " + std::to_string(e.track) + " goes back in time");
        last_ts[e.track] = ts;
        auto& stack = open[e.track];
        if (e.type == 2) {
            if (stack.empty()) {
                problem("an end with no slice open");
            } else {
                r.events[stack.back()].end = ts;
                stack.pop_back();
            }
            continue;
        }
        e.depth = static_cast<int>(stack.size());
        r.events.push_back(e);
        if (e.type == 1) stack.push_back(r.events.size() - 1);
    }
    REQUIRE(ok);
    for (const auto& [track, stack] : open)
        if (!stack.empty()) r.problems.push_back("track " + std::to_string(track) + ": slices never ended");
    return r;
}

struct temp_file {
    std::string path;
    temp_file() {
        std::string tmpl = (fs::temp_directory_path() / "encore_pftrace_XXXXXX").string();
        const int fd = mkstemp(tmpl.data());
        REQUIRE(fd >= 0);
        close(fd);
        path = tmpl;
    }
    ~temp_file() { std::remove(path.c_str()); }
    std::string read() const {
        std::ifstream in(path, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
};

std::string bytes_of(const pf::encoder& e) { return std::string(e.view()); }

replay write_and_read(pf::trace& t, const temp_file& f) {
    std::string err;
    REQUIRE(t.finish(err));
    return read_trace(f.read());
}

}  // namespace

// ---- the encoder ---------------------------------------------------------------------------------

TEST_CASE("varints at their edges") {
    const std::pair<std::uint64_t, std::string> cases[] = {
        {0, std::string("\x00", 1)},
        {127, "\x7f"},
        {128, "\x80\x01"},
        {300, "\xac\x02"},
        {1ull << 32, "\x80\x80\x80\x80\x10"},
        {~0ull, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"},
    };
    for (const auto& [v, expected] : cases) {
        pf::encoder e;
        e.varint(v);
        CHECK(bytes_of(e) == expected);
        CHECK(e.size() == pf::varint_size(v));
        std::string_view s = e.view();
        std::uint64_t back = 0;
        CHECK(read_varint(s, back));
        CHECK(back == v);
    }
}

TEST_CASE("fields: tags, negative ints, fixed64, bytes") {
    pf::encoder e;
    e.uint_field(1, 150);
    e.int_field(2, -1);  // int64: ten bytes of two's complement, as protoc reads it
    e.fixed64_field(47, 0x0102030405060708ull);
    e.bytes_field(100, "hi");
    CHECK(bytes_of(e) == std::string("\x08\x96\x01"
                                     "\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
                                     "\xf9\x02\x08\x07\x06\x05\x04\x03\x02\x01"
                                     "\xa2\x06\x02hi"));
    const auto f = fields(e.view());
    REQUIRE(f.size() == 4);
    CHECK(f[1].value == ~0ull);
    CHECK(f[2].type == pf::wire::fixed64);
    CHECK(f[2].value == 0x0102030405060708ull);
    CHECK(f[3].number == 100);
    CHECK(f[3].bytes == "hi");
}

TEST_CASE("nested messages: lengths of one byte and of more, three deep") {
    pf::encoder e;
    const auto outer = e.open(1);
    e.uint_field(1, 7);
    const auto middle = e.open(2);
    const auto inner = e.open(3);
    e.bytes_field(4, std::string(300, 'x'));  // the inner message needs a 2-byte length
    e.close(inner);
    e.uint_field(5, 9);  // written after the inner message moved up
    e.close(middle);
    const auto small = e.open(6);
    e.uint_field(1, 1);
    e.close(small);
    e.close(outer);

    const auto top = fields(e.view());
    REQUIRE(top.size() == 1);
    const auto o = fields(top[0].bytes);
    REQUIRE(o.size() == 3);
    CHECK(o[0].value == 7);
    CHECK(o[2].bytes.size() == 2);
    const auto m = fields(o[1].bytes);
    REQUIRE(m.size() == 2);
    CHECK(m[1].value == 9);
    const auto i = fields(m[0].bytes);
    REQUIRE(i.size() == 1);
    CHECK(i[0].bytes == std::string(300, 'x'));
    // Lengths are minimal. The outer message: tag, 2-byte length, 7 (2 bytes), the middle one (tag,
    // 2-byte length, the inner one (tag, 2-byte length, the string field: tag, 2-byte length, 300),
    // 9 (2 bytes)), the small one (4 bytes).
    CHECK(e.size() == 1 + 2 + 2 + (1 + 2 + (1 + 2 + (1 + 2 + 300)) + 2) + 4);
}

TEST_CASE("args: text values as integers where they are") {
    pf::trace t;
    temp_file f;
    std::string err;
    REQUIRE(t.open(f.path, err));
    const auto thread = t.thread(t.process(1, "p"), 1, 1, "");
    pf::args a;
    const char* values[] = {"256", "-1",     "18446744073709551615", "0",     "007",
                            "-0",  "0x1000", "HSA_STATUS",           "\"s\"", "99999999999999999999"};
    for (const char* v : values) a.add_text(t.intern(v), v);  // each value named by itself
    t.slice(thread, 10, 20, t.intern("call"), 0, a);
    const replay r = write_and_read(t, f);
    CHECK(r.problems.empty());
    const event_info* e = r.find("call");
    REQUIRE(e != nullptr);
    CHECK(e->args.at("256") == "i:256");
    CHECK(e->args.at("-1") == "i:-1");
    CHECK(e->args.at("18446744073709551615") == "u:18446744073709551615");
    CHECK(e->args.at("0") == "i:0");
    CHECK(e->args.at("007") == "s:007");
    CHECK(e->args.at("-0") == "s:-0");
    CHECK(e->args.at("0x1000") == "p:0x1000");  // a hex string used once: a pointer
    CHECK(e->args.at("HSA_STATUS") == "s:HSA_STATUS");
    CHECK(e->args.at("\"s\"") == "s:\"s\"");
    CHECK(e->args.at("99999999999999999999") == "s:99999999999999999999");
}

// ---- traces --------------------------------------------------------------------------------------

TEST_CASE("a trace: processes, threads, nested calls, GPU queues, flows, interning") {
    pf::trace t;
    temp_file f;
    std::string err;
    REQUIRE(t.open(f.path, err));
    const auto proc = t.process(42, "app", {"./app", "--size", "8"});
    const auto main = t.thread(proc, 42, 42, "main");
    const auto worker = t.thread(proc, 42, 43, "");
    const auto gpu = t.track(pf::no_track, "GPU agent 0 (gfx942)", pf::layout::flat);
    const auto queue = t.track(gpu, "queue 1", pf::layout::flat);
    const auto copies = t.track(gpu, "copies", pf::layout::flat);
    const auto hip = t.intern("HIP_RUNTIME_API"), hsa = t.intern("HSA_CORE_API");
    const auto launch = t.intern("hipLaunchKernel"), signal = t.intern("hsa_signal_store");
    const auto size = t.intern("size"), ptr = t.intern("ptr");
    pf::args a;

    // A thread's calls arrive as they ended: the inner ones first, the outer last.
    a.add_text(ptr, "0x7ffd0000");
    t.slice(main, 1010, 1020, signal, hsa, a, {2, pf::flow::out});
    t.slice(main, 1030, 1040, signal, hsa, a, {3, pf::flow::out});
    a.clear();
    a.add_text(size, "256");
    t.slice(main, 1000, 1100, launch, hip, a, {1, pf::flow::out});
    t.slice(main, 1100, 1200, launch, hip, a, {4, pf::flow::out});    // starts where the first ended
    t.slice(worker, 1050, 1050, launch, hip, a, {5, pf::flow::out});  // zero length
    t.instant(main, 1015, t.intern("MEMORY_ALLOCATION_ALLOCATE"), t.intern("MEMORY_ALLOCATION"), {}, {2});
    a.clear();
    // Two kernels of launch 1, one overlapping the other (concurrent on one queue), one of launch 4,
    // one whose launch was not traced.
    t.slice(queue, 1500, 1900, t.intern("vector_add"), t.intern("KERNEL_DISPATCH"), a, {1, pf::flow::in});
    t.slice(queue, 1600, 1700, t.intern("vector_add"), t.intern("KERNEL_DISPATCH"), a, {1, pf::flow::in});
    t.slice(queue, 2000, 2100, t.intern("scale"), t.intern("KERNEL_DISPATCH"), a, {4, pf::flow::in});
    t.slice(queue, 2200, 2300, t.intern("orphan"), t.intern("KERNEL_DISPATCH"), a, {99, pf::flow::in});
    t.slice(copies, 1200, 1300, t.intern("MEMORY_COPY_HOST_TO_DEVICE"), t.intern("MEMORY_COPY"), a);

    const replay r = write_and_read(t, f);
    for (const auto& p : r.problems) FAIL_CHECK(p);

    // Tracks: the process with its command line, two threads of it, the agent, its queue, the
    // queue's extra track for the overlapping kernel, the copies.
    std::map<std::string, std::uint64_t> by_name;
    for (const auto& [uuid, info] : r.tracks)
        by_name[info.name + (info.thread ? "/" + std::to_string(info.tid) : "")] = uuid;
    REQUIRE(r.tracks.size() == 7);
    const track_info& p = r.tracks.at(by_name.at("app"));
    CHECK(p.process);
    CHECK(p.pid == 42);
    CHECK(p.cmdline == std::vector<std::string>{"./app", "--size", "8"});
    CHECK(r.tracks.at(by_name.at("main/42")).pid == 42);
    CHECK(r.tracks.at(by_name.at("/43")).pid == 42);
    const std::uint64_t agent = by_name.at("GPU agent 0 (gfx942)");
    CHECK(r.tracks.at(by_name.at("queue 1")).parent == agent);
    CHECK(r.tracks.at(by_name.at("queue 1 #2")).parent == agent);
    CHECK(r.tracks.at(by_name.at("copies")).parent == agent);

    // Nesting: the calls inside hipLaunchKernel are its children; the allocation is inside the
    // first hsa_signal_store.
    REQUIRE(r.count("hipLaunchKernel") == 3);
    REQUIRE(r.count("hsa_signal_store") == 2);
    const event_info& outer = *r.find("hipLaunchKernel");
    CHECK(outer.ts == 1000);
    CHECK(outer.end == 1100);
    CHECK(outer.depth == 0);
    CHECK(outer.category == "HIP_RUNTIME_API");
    CHECK(outer.args.at("size") == "i:256");
    for (const auto& e : r.events) {
        if (e.name == "hsa_signal_store") {
            CHECK(e.depth == 1);
            CHECK(e.track == by_name.at("main/42"));
            CHECK(e.args.at("ptr") == "s:0x7ffd0000");  // repeated on the track: interned
        }
        if (e.name == "MEMORY_ALLOCATION_ALLOCATE") {
            CHECK(e.type == 3);
            CHECK(e.depth == 2);
            CHECK(e.correlation == 2);
        }
        if (e.name == "hipLaunchKernel" && e.ts == 1100) {
            CHECK(e.depth == 0);  // a sibling, not a child, of the call that ended at 1100
            CHECK(e.end == 1200);
        }
        if (e.name == "hipLaunchKernel" && e.ts == 1050) CHECK(e.end == 1050);
    }

    // Kernels: the overlapping one on the extra track, each with its flow from its launch.
    std::vector<const event_info*> kernels;
    for (const auto& e : r.events)
        if (e.category == "KERNEL_DISPATCH") kernels.push_back(&e);
    REQUIRE(kernels.size() == 4);
    CHECK(kernels[0]->track == by_name.at("queue 1"));
    CHECK(kernels[1]->track == by_name.at("queue 1 #2"));
    CHECK(kernels[1]->depth == 0);
    CHECK(kernels[1]->ts == 1600);
    CHECK(kernels[1]->end == 1700);
    CHECK(outer.flows.size() == 2);
    CHECK(kernels[0]->terminating.size() == 1);
    CHECK(kernels[1]->terminating.size() == 1);
    CHECK(kernels[0]->terminating[0] != kernels[1]->terminating[0]);
    for (const auto* k : {kernels[0], kernels[1]})
        CHECK(std::find(outer.flows.begin(), outer.flows.end(), k->terminating[0]) != outer.flows.end());
    CHECK(kernels[2]->terminating.size() == 1);
    CHECK(kernels[3]->terminating.empty());  // its launch is not in the trace
    CHECK(kernels[3]->correlation == 99);    // still correlated by id

    // Correlation ids on calls: where something shares them.
    for (const auto& e : r.events) {
        if (e.name == "hsa_signal_store" && e.ts == 1010) CHECK(e.correlation == 2);  // its allocation
        if (e.name == "hsa_signal_store" && e.ts == 1030) CHECK(e.correlation == 0);  // nothing
        if (e.name == "hipLaunchKernel" && e.ts == 1050) CHECK(e.correlation == 0);
    }

    // Interning: each name once per sequence that uses it; vector_add twice on the two queue tracks.
    for (const auto& [iid, n] : r.interned_names) CHECK(n <= 2);
}

TEST_CASE("bad input: unknown tracks, ends before starts, strings of any bytes, empty traces") {
    SUBCASE("an empty trace is a valid file") {
        pf::trace t;
        temp_file f;
        std::string err;
        REQUIRE(t.open(f.path, err));
        const replay r = write_and_read(t, f);
        CHECK(r.packets == 0);
    }
    SUBCASE("empty strings: names, values, the first string the trace keeps") {
        pf::trace t;
        temp_file f;
        std::string err;
        REQUIRE(t.open(f.path, err));
        const auto thread = t.thread(t.process(7, ""), 7, 7, "");
        pf::args a;
        a.add_string(0, "");
        a.add_string(t.intern(""), "");
        t.slice(thread, 1, 2, t.intern(""), t.intern(""), a);
        t.slice(thread, 3, 4, 0, 0, a);
        const replay r = write_and_read(t, f);
        CHECK(r.problems.empty());
        REQUIRE(r.events.size() == 2);
        CHECK(r.events[0].args.at("") == "s:");
    }
    SUBCASE("a process with a thread and no events: descriptors only") {
        pf::trace t;
        temp_file f;
        std::string err;
        REQUIRE(t.open(f.path, err));
        t.thread(t.process(7, ""), 7, 8, "");
        const replay r = write_and_read(t, f);
        CHECK(r.problems.empty());
        CHECK(r.tracks.size() == 2);
        CHECK(r.events.empty());
    }
    SUBCASE("events that are not well formed") {
        pf::trace t;
        temp_file f;
        std::string err;
        REQUIRE(t.open(f.path, err));
        const auto thread = t.thread(t.process(7, "p"), 7, 7,
                                     "\xff"
                                     "bad\xc3");
        pf::args a;
        const std::string text("caf\xc3\xa9 \xff\x00", 8);  // args keep views: it must outlive the calls
        a.add_string(t.intern("text"), text);
        a.add_string(0, "no name");
        t.slice(thread, 500, 100, t.intern("backwards"), 0, a);  // ends before it starts
        t.slice(12345, 1, 2, t.intern("nowhere"), 0, a);         // no such track
        t.slice(thread, 100, 900, 99999, 99999, a);              // no such strings
        t.slice(thread, 200, 1000, t.intern("crossing"), 0, a);  // crosses the one before's end
        t.instant(thread, 950, t.intern(std::string("\x80", 1)), 0, a);
        const replay r = write_and_read(t, f);
        for (const auto& p : r.problems) FAIL_CHECK(p);
        CHECK(r.count("nowhere") == 0);
        const event_info* b = r.find("backwards");
        REQUIRE(b != nullptr);
        CHECK(b->ts == 500);
        CHECK(b->end == 500);
        CHECK(b->args.at("text") == std::string("s:caf\xc3\xa9 \xc3\xbf\x00", 11));  // \xff as U+00FF
        CHECK(r.find("\xc2\x80") != nullptr);
        const event_info* c = r.find("crossing");
        REQUIRE(c != nullptr);
        CHECK(c->end == 1000);
        CHECK(r.tracks.at(c->track).name == "\xc3\xbf"
                                            "bad\xc3\x83 #2");
        CHECK(r.events.size() == 4);  // the unnamed one among them
    }
    SUBCASE("more overlapping events than tracks beside one: left out, said") {
        pf::trace t;
        temp_file f;
        std::string err;
        REQUIRE(t.open(f.path, err));
        const auto q = t.track(pf::no_track, "queue", pf::layout::flat);
        for (int i = 0; i < 300; ++i) t.slice(q, 100 + i, 10000, t.intern("k"), 0, {});
        const replay r = write_and_read(t, f);
        CHECK(r.problems.empty());
        CHECK(r.events.size() == 256);
        CHECK(t.left_out() == 44);
    }
    SUBCASE("a file that cannot be created; finish without a file") {
        pf::trace t;
        std::string err;
        CHECK_FALSE(t.open("/nonexistent-dir/x.pftrace", err));
        CHECK(err.find("/nonexistent-dir/x.pftrace") != std::string::npos);
        pf::trace u;
        CHECK_FALSE(u.finish(err));
    }
}

TEST_CASE("many events: written in chunks, timestamps exact") {
    pf::trace t;
    temp_file f;
    std::string err;
    REQUIRE(t.open(f.path, err));
    const auto thread = t.thread(t.process(1, "p"), 1, 1, "");
    const auto name = t.intern("call"), arg = t.intern("i");
    pf::args a;
    std::uint64_t ts = 1ull << 40;
    for (int i = 0; i < 200000; ++i) {
        a.clear();
        a.add_int(arg, i);
        t.slice(thread, ts, ts + 7 + static_cast<std::uint64_t>(i % 1000), name, 0, a,
                {static_cast<std::uint64_t>(i + 1)});
        ts += 2000;
    }
    const replay r = write_and_read(t, f);
    CHECK(r.problems.empty());
    REQUIRE(r.events.size() == 200000);
    CHECK(r.events[123456].ts == (1ull << 40) + 123456ull * 2000);
    CHECK(r.events[123456].end == r.events[123456].ts + 7 + 456);
    CHECK(r.events[123456].args.at("i") == "i:123456");
    CHECK(r.interned_names.at(name) == 1);
}
