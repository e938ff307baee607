// src/trace/perfetto.cpp — the Perfetto trace writer (perfetto.hpp): the strings, the tracks and
// their events, kept until finish, then laid out and encoded.
//
// Field numbers are Perfetto's (protos/perfetto/trace/...); test/trace/perfetto_trace.proto holds
// the same subset for protoc, and test_perfetto.cpp decodes what is written here.
#include "perfetto.hpp"

#include "json.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <unordered_map>

namespace encore::trace::perfetto {

// ---- field numbers -------------------------------------------------------------------------------

namespace pb {
// Trace
constexpr std::uint32_t trace_packet = 1;
// TracePacket
constexpr std::uint32_t packet_timestamp = 8, packet_clock_snapshot = 6, packet_sequence_id = 10,
                        packet_track_event = 11, packet_interned_data = 12, packet_sequence_flags = 13,
                        packet_defaults = 59, packet_track_descriptor = 60, packet_first_on_sequence = 87;
constexpr std::uint64_t seq_incremental_state_cleared = 1, seq_needs_incremental_state = 2;
// TracePacketDefaults, TrackEventDefaults
constexpr std::uint32_t defaults_timestamp_clock_id = 58, defaults_track_event = 11, track_event_defaults_track = 11;
// ClockSnapshot, ClockSnapshot.Clock
constexpr std::uint32_t snapshot_clocks = 1, clock_id = 1, clock_timestamp = 2, clock_is_incremental = 3;
constexpr std::uint64_t clock_boottime = 6;   // BuiltinClock BOOTTIME: every encore timestamp
constexpr std::uint64_t clock_sequence = 64;  // the first sequence-scoped clock id
// TrackDescriptor, ProcessDescriptor, ThreadDescriptor
constexpr std::uint32_t track_uuid = 1, track_name = 2, track_process = 3, track_thread = 4, track_parent = 5;
constexpr std::uint32_t process_pid = 1, process_cmdline = 2, process_name = 6;
constexpr std::uint32_t thread_pid = 1, thread_tid = 2, thread_name = 5;
// TrackEvent
constexpr std::uint32_t event_category_iids = 3, event_debug_annotations = 4, event_type = 9, event_name_iid = 10,
                        event_flow_ids = 47, event_terminating_flow_ids = 48, event_correlation_id = 52;
constexpr std::uint64_t type_slice_begin = 1, type_slice_end = 2, type_instant = 3;
// DebugAnnotation
constexpr std::uint32_t annotation_name_iid = 1, annotation_uint = 3, annotation_int = 4, annotation_string = 6,
                        annotation_pointer = 7, annotation_string_iid = 17;
// InternedData; EventCategory, EventName, DebugAnnotationName, InternedString are each {iid = 1, name/str = 2}
constexpr std::uint32_t interned_categories = 1, interned_event_names = 2, interned_annotation_names = 3,
                        interned_string_values = 29, interned_iid = 1, interned_name = 2;
}  // namespace pb

void encoder::grow(std::size_t n) {
    std::size_t cap = std::max<std::size_t>(cap_ * 2, 4096);
    while (cap - size_ < n) cap *= 2;
    auto bigger = std::make_unique<std::uint8_t[]>(cap);
    if (size_ != 0) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    cap_ = cap;
}

// ---- arguments -----------------------------------------------------------------------------------

namespace {

// A decimal integer as the formatter prints one (no sign but '-', no leading zero).
bool parse_decimal(std::string_view s, bool& negative, std::uint64_t& v) {
    negative = !s.empty() && s[0] == '-';
    if (negative) s.remove_prefix(1);
    if (s.empty() || s.size() > 20 || (s[0] == '0' && s.size() > 1)) return false;
    v = 0;
    for (const char c : s) {
        if (c < '0' || c > '9') return false;
        const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
        if (v > (~0ull - d) / 10) return false;
        v = v * 10 + d;
    }
    return !(negative && (v == 0 || v > (1ull << 63)));
}

// 0x followed by hex digits as %#lx prints them: written as a pointer where it is not repeated.
bool parse_hex(std::string_view s, std::uint64_t& v) {
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || s[1] != 'x' || (s[2] == '0' && s.size() > 3)) return false;
    v = 0;
    for (std::size_t i = 2; i < s.size(); ++i) {
        const char c = s[i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return false;
        v = (v << 4) | static_cast<std::uint64_t>(d);
    }
    return true;
}

bool ascii(std::string_view s) {
    for (const char c : s)
        if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
}

// Protobuf strings are UTF-8: valid sequences stay, any other byte becomes its Latin-1 character
// (as json.hpp escapes it), so a message of any bytes reads back as the same characters.
void utf8_into(std::string& out, std::string_view s) {
    out.clear();
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            out += static_cast<char>(c);
        } else if (const std::size_t n = utf8_sequence(s, i); n != 0) {
            out.append(s.substr(i, n));
            i += n - 1;
        } else {
            out += static_cast<char>(0xC0 | (c >> 6));
            out += static_cast<char>(0x80 | (c & 0x3F));
        }
    }
}

bool valid_utf8(std::string_view s) {
    if (ascii(s)) return true;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (static_cast<unsigned char>(s[i]) < 0x80) continue;
        const std::size_t n = utf8_sequence(s, i);
        if (n == 0) return false;
        i += n - 1;
    }
    return true;
}

}  // namespace

void args::add_text(string_id name, std::string_view v) {
    bool negative = false;
    std::uint64_t n = 0;
    if (parse_decimal(v, negative, n)) {
        if (negative) {
            add_int(name, static_cast<std::int64_t>(0 - n));
        } else if (n > static_cast<std::uint64_t>(INT64_MAX)) {
            add_uint(name, n);
        } else {
            add_int(name, static_cast<std::int64_t>(n));
        }
        return;
    }
    add_string(name, v);
}

// ---- the trace's state ---------------------------------------------------------------------------

namespace {

// An event as kept until finish: 48 bytes; its arguments are in its track's arena.
struct event {
    std::uint64_t start = 0, end = 0;
    std::uint64_t correlation = 0;
    std::uint64_t args = 0;  // offset in the track's arena; grows with arrival, so it also orders
    string_id name = 0, category = 0;
    bool instant = false;
    flow dir = flow::none;
    std::uint16_t flow_index = 0;  // an `in` event: which of its correlation's (its flow id)
};
static_assert(sizeof(event) == 48);

// The arena's argument kinds: a string id (interned) or the string's bytes (the table was full).
enum arg_kind : std::uint8_t { arg_int, arg_uint, arg_pointer, arg_string_id, arg_string_bytes };

enum class track_kind : std::uint8_t { process, thread, named };

struct track_data {
    track_kind kind = track_kind::named;
    layout how = layout::nested;
    std::uint64_t uuid = 0, parent_uuid = 0;
    std::int64_t pid = 0, tid = 0;
    std::string name;
    std::vector<std::string> cmdline;
    std::vector<event> events;
    std::vector<std::uint8_t> arena;
    bool has_in = false;
};

// A track as written: the track itself or an extra one beside it, each its own packet sequence.
struct lane {
    std::uint64_t uuid = 0;
    std::uint32_t sequence = 0;
    std::uint64_t last_ts = 0;        // the sequence's incremental clock
    std::vector<std::uint64_t> open;  // ends of the slices open on it, innermost last
};

// A correlation id of events other than `out` ones: how many `in` events it has, and whether its
// `out` event was written.
struct flow_state {
    std::uint16_t ins = 0;
    bool out = false;
};

constexpr std::size_t max_lanes = 256;         // per track; beyond: left out
constexpr std::uint16_t max_flows = 64;        // flows per correlation id
constexpr std::size_t max_strings = 1u << 22;  // interned values beyond this are written inline
constexpr std::size_t flush_bytes = 4u << 20;  // the file is written in chunks of about this
constexpr std::size_t string_block = 1u << 20;

std::uint64_t flow_id(std::uint64_t correlation, std::uint16_t index) { return (correlation << 6) | index; }

void put_varint(std::vector<std::uint8_t>& a, std::uint64_t v) {
    while (v >= 0x80) {
        a.push_back(static_cast<std::uint8_t>(v | 0x80));
        v >>= 7;
    }
    a.push_back(static_cast<std::uint8_t>(v));
}

std::uint64_t get_varint(const std::uint8_t*& p) {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        const std::uint8_t b = *p++;
        v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
        if (b < 0x80) return v;
    }
}

}  // namespace

struct trace::state {
    std::FILE* file = nullptr;
    std::string path;
    bool failed = false;
    int error = 0;
    encoder out;

    // Strings: ids from 1, bytes in blocks that never move (the map's keys view them).
    std::vector<std::string_view> strings{std::string_view{}};
    std::unordered_map<std::string_view, string_id> ids;
    std::vector<std::unique_ptr<char[]>> blocks;
    std::size_t block_used = string_block;
    std::string scratch;

    std::vector<track_data> tracks;
    std::unordered_map<std::uint64_t, flow_state> correlated;
    std::uint64_t next_uuid = 0;
    std::uint32_t next_sequence = 1;
    std::uint64_t left_out = 0;

    // Per string, while one track is written: which track marked it last, its roles there and how
    // often the track uses it as a value (2 means "more than once").
    std::vector<std::uint32_t> stamp;
    std::vector<std::uint8_t> roles, uses;
    std::vector<string_id> used;

    string_id find_or_add(std::string_view s, bool bounded) {
        if (!valid_utf8(s)) {
            std::string fixed;
            utf8_into(fixed, s);
            return find_or_add_valid(fixed, bounded);
        }
        return find_or_add_valid(s, bounded);
    }
    string_id find_or_add_valid(std::string_view s, bool bounded) {
        if (auto it = ids.find(s); it != ids.end()) return it->second;
        if (bounded && strings.size() >= max_strings) return 0;
        const std::string_view kept = keep(s);
        const auto id = static_cast<string_id>(strings.size());
        strings.push_back(kept);
        ids.emplace(kept, id);
        return id;
    }
    std::string_view keep(std::string_view s) {
        if (s.empty()) return {};
        if (s.size() > string_block / 4) {
            blocks.push_back(std::make_unique<char[]>(s.size()));
            std::memcpy(blocks.back().get(), s.data(), s.size());
            return {blocks.back().get(), s.size()};
        }
        if (string_block - block_used < s.size()) {
            blocks.push_back(std::make_unique<char[]>(string_block));
            block_used = 0;
        }
        char* at = blocks.back().get() + block_used;
        std::memcpy(at, s.data(), s.size());
        block_used += s.size();
        return {at, s.size()};
    }

    track_data* find(track_id t) { return t < tracks.size() ? &tracks[t] : nullptr; }

    track_id add_track(track_data t) {
        t.uuid = ++next_uuid;
        tracks.push_back(std::move(t));
        return static_cast<track_id>(tracks.size() - 1);
    }

    void add_event(track_id id, std::uint64_t start, std::uint64_t end, string_id name, string_id category,
                   const args& a, link l, bool instant) {
        track_data* t = find(id);
        if (t == nullptr) return;
        event e;
        e.start = start;
        e.end = std::max(start, end);
        e.name = name < strings.size() ? name : 0;
        e.category = category < strings.size() ? category : 0;
        e.instant = instant;
        e.correlation = l.correlation;
        e.dir = l.correlation != 0 ? l.direction : flow::none;
        if (l.correlation != 0 && e.dir != flow::out) {
            flow_state& f = correlated[l.correlation];
            if (e.dir == flow::in) {
                e.flow_index = f.ins;
                if (f.ins < max_flows) ++f.ins;
                t->has_in = true;
            }
        }
        e.args = t->arena.size();
        put_varint(t->arena, a.items_.size());
        for (const auto& item : a.items_) {
            put_varint(t->arena, item.name < strings.size() ? item.name : 0);
            if (item.k != args::kind_string) {
                t->arena.push_back(item.k == args::kind_int    ? arg_int
                                   : item.k == args::kind_uint ? arg_uint
                                                               : arg_pointer);
                put_varint(t->arena, item.number);
                continue;
            }
            if (const string_id s = find_or_add(item.text, true); s != 0) {
                t->arena.push_back(arg_string_id);
                put_varint(t->arena, s);
                continue;
            }
            std::string_view text = item.text;
            if (!valid_utf8(text)) {
                utf8_into(scratch, text);
                text = scratch;
            }
            t->arena.push_back(arg_string_bytes);
            put_varint(t->arena, text.size());
            t->arena.insert(t->arena.end(), text.begin(), text.end());
        }
        t->events.push_back(e);
    }

    // ---- writing ----

    void flush() {
        if (file != nullptr && out.size() != 0 && std::fwrite(out.data(), 1, out.size(), file) != out.size()) {
            if (!failed) error = errno;
            failed = true;
        }
        out.clear();
    }
    void packet_done() {
        if (out.size() >= flush_bytes) flush();
    }

    void descriptor(const track_data& t, std::uint64_t uuid, std::uint64_t parent, std::string_view name) {
        const auto p = out.open(pb::trace_packet);
        const auto d = out.open(pb::packet_track_descriptor);
        out.uint_field(pb::track_uuid, uuid);
        if (t.kind == track_kind::process && uuid == t.uuid) {
            const auto pd = out.open(pb::track_process);
            out.int_field(pb::process_pid, t.pid);
            for (const auto& a : t.cmdline) out.bytes_field(pb::process_cmdline, a);
            if (!name.empty()) out.bytes_field(pb::process_name, name);
            out.close(pd);
        } else if (t.kind == track_kind::thread && uuid == t.uuid) {
            const auto td = out.open(pb::track_thread);
            out.int_field(pb::thread_pid, t.pid);
            out.int_field(pb::thread_tid, t.tid);
            if (!name.empty()) out.bytes_field(pb::thread_name, name);
            out.close(td);
        } else {
            if (parent != 0) out.uint_field(pb::track_parent, parent);
            out.bytes_field(pb::track_name, name);
        }
        out.close(d);
        out.close(p);
        packet_done();
    }

    // The interned names a track's events use, marked in stamp/roles/uses.
    enum role : std::uint8_t { role_event = 1, role_category = 2, role_annotation = 4, role_value = 8 };
    void mark(std::uint32_t track_stamp, string_id id, std::uint8_t role) {
        if (id == 0 || id >= stamp.size()) return;
        if (stamp[id] != track_stamp) {
            stamp[id] = track_stamp;
            roles[id] = 0;
            uses[id] = 0;
            used.push_back(id);
        }
        roles[id] |= role;
        if (role == role_value && uses[id] < 2) ++uses[id];
    }
    void collect(const track_data& t, std::uint32_t track_stamp) {
        used.clear();
        for (const event& e : t.events) {
            mark(track_stamp, e.name, role_event);
            mark(track_stamp, e.category, role_category);
            const std::uint8_t* p = t.arena.data() + e.args;
            for (std::uint64_t n = get_varint(p); n != 0; --n) {
                mark(track_stamp, static_cast<string_id>(get_varint(p)), role_annotation);
                const std::uint8_t k = *p++;
                const std::uint64_t v = get_varint(p);
                if (k == arg_string_id) mark(track_stamp, static_cast<string_id>(v), role_value);
                if (k == arg_string_bytes) p += v;
            }
        }
        std::sort(used.begin(), used.end());
    }
    bool interned_value(string_id id) const { return uses[id] >= 2; }

    // A sequence's first packet: the incremental state cleared, the defaults (this lane's track, the
    // sequence's incremental clock), every name its track uses, and the clock's start.
    void sequence_start(lane& l, std::uint64_t t0) {
        l.sequence = next_sequence++;
        l.last_ts = t0;
        const auto p = out.open(pb::trace_packet);
        out.uint_field(pb::packet_sequence_id, l.sequence);
        out.bool_field(pb::packet_first_on_sequence, true);
        out.uint_field(pb::packet_sequence_flags, pb::seq_incremental_state_cleared);
        const auto d = out.open(pb::packet_defaults);
        out.uint_field(pb::defaults_timestamp_clock_id, pb::clock_sequence);
        const auto te = out.open(pb::defaults_track_event);
        out.uint_field(pb::track_event_defaults_track, l.uuid);
        out.close(te);
        out.close(d);
        const auto in = out.open(pb::packet_interned_data);
        const auto entries = [&](std::uint32_t field, std::uint8_t role) {
            for (const string_id id : used) {
                if ((roles[id] & role) == 0 || (role == role_value && !interned_value(id))) continue;
                const auto e = out.open(field);
                out.uint_field(pb::interned_iid, id);
                out.bytes_field(pb::interned_name, strings[id]);
                out.close(e);
            }
        };
        entries(pb::interned_event_names, role_event);
        entries(pb::interned_categories, role_category);
        entries(pb::interned_annotation_names, role_annotation);
        entries(pb::interned_string_values, role_value);
        out.close(in);
        const auto cs = out.open(pb::packet_clock_snapshot);
        for (const std::uint64_t clock : {pb::clock_boottime, pb::clock_sequence}) {
            const auto c = out.open(pb::snapshot_clocks);
            out.uint_field(pb::clock_id, clock);
            out.uint_field(pb::clock_timestamp, t0);
            if (clock == pb::clock_sequence) out.bool_field(pb::clock_is_incremental, true);
            out.close(c);
        }
        out.close(cs);
        out.close(p);
        packet_done();
    }

    // The packet of one TrackEvent on a lane's sequence, its timestamp a delta on the lane's clock.
    std::size_t event_start(lane& l, std::uint64_t ts, std::uint64_t type, std::size_t& te) {
        const auto p = out.open(pb::trace_packet);
        out.uint_field(pb::packet_timestamp, ts - l.last_ts);
        l.last_ts = ts;
        out.uint_field(pb::packet_sequence_id, l.sequence);
        out.uint_field(pb::packet_sequence_flags, pb::seq_needs_incremental_state);
        te = out.open(pb::packet_track_event);
        out.uint_field(pb::event_type, type);
        return p;
    }
    void event_done(std::size_t p, std::size_t te) {
        out.close(te);
        out.close(p);
        packet_done();
    }

    void slice_end(lane& l, std::uint64_t ts) {
        std::size_t te = 0;
        const auto p = event_start(l, ts, pb::type_slice_end, te);
        event_done(p, te);
    }

    void begin(lane& l, const track_data& t, const event& e) {
        std::size_t te = 0;
        const auto p = event_start(l, e.start, e.instant ? pb::type_instant : pb::type_slice_begin, te);
        if (e.name != 0) out.uint_field(pb::event_name_iid, e.name);
        if (e.category != 0) out.uint_field(pb::event_category_iids, e.category);
        // An `out` event's correlation id is written where it correlates it with another event.
        flow_state* f = nullptr;
        if (e.correlation != 0) {
            auto it = correlated.find(e.correlation);
            f = it != correlated.end() ? &it->second : nullptr;
            if (f != nullptr || e.dir != flow::out) out.uint_field(pb::event_correlation_id, e.correlation);
        }
        const std::uint8_t* a = t.arena.data() + e.args;
        for (std::uint64_t n = get_varint(a); n != 0; --n) {
            const auto d = out.open(pb::event_debug_annotations);
            const std::uint64_t name = get_varint(a);
            if (name != 0) out.uint_field(pb::annotation_name_iid, name);
            const std::uint8_t k = *a++;
            const std::uint64_t v = get_varint(a);
            switch (k) {
                case arg_int: out.int_field(pb::annotation_int, static_cast<std::int64_t>(v)); break;
                case arg_uint: out.uint_field(pb::annotation_uint, v); break;
                case arg_pointer: out.uint_field(pb::annotation_pointer, v); break;
                case arg_string_id: {
                    const auto id = static_cast<string_id>(v);
                    std::uint64_t pointer = 0;
                    if (interned_value(id))
                        out.uint_field(pb::annotation_string_iid, id);
                    else if (parse_hex(strings[id], pointer))  // once only: a pointer is shorter
                        out.uint_field(pb::annotation_pointer, pointer);
                    else
                        out.bytes_field(pb::annotation_string, strings[id]);
                    break;
                }
                default:
                    out.bytes_field(pb::annotation_string,
                                    std::string_view(reinterpret_cast<const char*>(a), static_cast<std::size_t>(v)));
                    a += v;
            }
            out.close(d);
        }
        if (f != nullptr && e.dir == flow::out) {
            f->out = true;
            for (std::uint16_t i = 0; i < f->ins; ++i) out.fixed64_field(pb::event_flow_ids, flow_id(e.correlation, i));
        } else if (f != nullptr && e.dir == flow::in && f->out && e.flow_index < max_flows) {
            out.fixed64_field(pb::event_terminating_flow_ids, flow_id(e.correlation, e.flow_index));
        }
        event_done(p, te);
    }

    // A track's events, sorted (by start, the longer first, the later-arriving first: of two
    // identical intervals the one that ended last in its thread's records is the outer), each on
    // the first of its lanes where it nests (nested) or overlaps nothing (flat).
    void write_track(track_data& t, std::uint32_t track_stamp) {
        if (t.events.empty()) return;
        const auto before = [](const event& a, const event& b) {
            if (a.start != b.start) return a.start < b.start;
            if (a.end != b.end) return a.end > b.end;
            return a.args > b.args;
        };
        if (!std::is_sorted(t.events.begin(), t.events.end(), before))
            std::sort(t.events.begin(), t.events.end(), before);
        collect(t, track_stamp);
        std::vector<lane> lanes;
        for (const event& e : t.events) {
            lane* at = nullptr;
            for (lane& l : lanes) {
                while (!l.open.empty() && l.open.back() <= e.start) {
                    slice_end(l, l.open.back());
                    l.open.pop_back();
                }
                const bool fits = l.open.empty() || (t.how == layout::nested && l.open.back() >= e.end);
                if (fits) {
                    at = &l;
                    break;
                }
            }
            if (at == nullptr) {
                if (lanes.size() == max_lanes) {
                    ++left_out;
                    continue;
                }
                lanes.emplace_back();
                at = &lanes.back();
                if (lanes.size() == 1) {
                    at->uuid = t.uuid;
                } else {
                    at->uuid = ++next_uuid;
                    std::string name = !t.name.empty()                ? t.name
                                       : t.kind == track_kind::thread ? "thread " + std::to_string(t.tid)
                                                                      : "process " + std::to_string(t.pid);
                    name += " #" + std::to_string(lanes.size());
                    descriptor(t, at->uuid, t.kind == track_kind::named ? t.parent_uuid : t.uuid, name);
                }
                sequence_start(*at, e.start);
            }
            begin(*at, t, e);
            if (!e.instant) at->open.push_back(e.end);
        }
        for (lane& l : lanes)
            for (; !l.open.empty(); l.open.pop_back()) slice_end(l, l.open.back());
        // Its events are written: their memory goes back now, before the next track's are sorted.
        std::vector<event>().swap(t.events);
        std::vector<std::uint8_t>().swap(t.arena);
    }

    bool finish(std::string& err) {
        if (file == nullptr) {
            err = path.empty() ? "perfetto trace: not open" : path + ": not open";
            return false;
        }
        for (const track_data& t : tracks) descriptor(t, t.uuid, t.parent_uuid, t.name);
        stamp.assign(strings.size(), 0);
        roles.assign(strings.size(), 0);
        uses.assign(strings.size(), 0);
        // Tracks with flows' `out` ends (threads) before those with their `in` ends (GPU queues):
        // an `in` end is written only where its `out` end was.
        std::uint32_t n = 0;
        for (const bool in : {false, true})
            for (track_data& t : tracks)
                if (t.has_in == in) write_track(t, ++n);
        flush();
        if (std::fclose(file) != 0 && !failed) {
            error = errno;
            failed = true;
        }
        file = nullptr;
        if (failed) err = path + ": " + std::strerror(error);
        return !failed;
    }
};

// ---- the public face -----------------------------------------------------------------------------

trace::trace() : s_(std::make_unique<state>()) {}

trace::~trace() {
    if (s_->file != nullptr) std::fclose(s_->file);
}

bool trace::open(const std::string& path, std::string& error) {
    if (s_->file != nullptr) std::fclose(s_->file);
    s_->path = path;
    s_->file = std::fopen(path.c_str(), "wb");
    if (s_->file == nullptr) {
        error = path + ": " + std::strerror(errno);
        return false;
    }
    s_->failed = false;
    return true;
}

string_id trace::intern(std::string_view s) { return s.empty() ? 0 : s_->find_or_add(s, false); }

track_id trace::process(std::int64_t pid, std::string_view name, const std::vector<std::string>& cmdline) {
    track_data t;
    t.kind = track_kind::process;
    t.pid = pid;
    utf8_into(t.name, name);
    for (const auto& a : cmdline) utf8_into(t.cmdline.emplace_back(), a);
    return s_->add_track(std::move(t));
}

track_id trace::thread(track_id process, std::int64_t pid, std::int64_t tid, std::string_view name) {
    track_data t;
    t.kind = track_kind::thread;
    t.pid = pid;
    t.tid = tid;
    if (const track_data* p = s_->find(process)) t.parent_uuid = p->uuid;
    utf8_into(t.name, name);
    return s_->add_track(std::move(t));
}

track_id trace::track(track_id parent, std::string_view name, layout how) {
    track_data t;
    t.how = how;
    if (const track_data* p = s_->find(parent)) t.parent_uuid = p->uuid;
    utf8_into(t.name, name);
    return s_->add_track(std::move(t));
}

void trace::slice(track_id t, std::uint64_t start, std::uint64_t end, string_id name, string_id category, const args& a,
                  link l) {
    s_->add_event(t, start, end, name, category, a, l, false);
}

void trace::instant(track_id t, std::uint64_t ts, string_id name, string_id category, const args& a, link l) {
    s_->add_event(t, ts, ts, name, category, a, l, true);
}

bool trace::finish(std::string& error) { return s_->finish(error); }

std::uint64_t trace::left_out() const { return s_->left_out; }

}  // namespace encore::trace::perfetto
