// src/trace/perfetto.hpp — a Perfetto trace (the protobuf format ui.perfetto.dev and Perfetto's
// trace_processor read), written by encore's own small encoder: encore-trace's `-f pftrace`.
//
//   namespace pf = encore::trace::perfetto;
//   pf::trace t;
//   std::string err;
//   if (!t.open("out/42_results.pftrace", err)) { /* err says why */ }
//   const pf::track_id main = t.thread(t.process(42, "./app"), 42, 42, "");
//   const pf::track_id gpu = t.track(pf::no_track, "GPU agent 0", pf::layout::flat);
//   const pf::track_id q = t.track(gpu, "queue 1", pf::layout::flat);
//   pf::args a;
//   a.add_text(t.intern("size"), "256");                  // an integer in the trace
//   t.slice(main, 100, 180, t.intern("hipLaunchKernel"), t.intern("HIP_RUNTIME_API"), a,
//           {7, pf::flow::out});                        // correlation id 7, a flow from here
//   a.clear();
//   t.slice(q, 150, 900, t.intern("vector_add"), t.intern("KERNEL_DISPATCH"), a, {7, pf::flow::in});
//   if (!t.finish(err)) { /* ... */ }
//
// Layers: the converter's pftrace_writer (convert.cpp) -> trace (events kept per track, laid out
// and written at finish) -> encoder (the protobuf wire format) -> the file, in 4 MiB writes.
//
// What is written (Perfetto's messages and field numbers; test/trace/perfetto_trace.proto is the
// subset, so `protoc --decode=perfetto.protos.Trace` checks a file):
// - a TrackDescriptor per track: processes (pid, name), threads (pid, tid), named tracks under a
//   parent (a GPU agent, its queues);
// - per track, its events sorted and laid out so that every TYPE_SLICE_BEGIN has its
//   TYPE_SLICE_END and slices nest: an event that would break nesting goes to an extra track
//   beside it ("<name> #2"; `layout`);
// - one packet sequence per track (and per extra track): its first packet clears the sequence's
//   incremental state and carries the defaults (the track, an incremental clock), every name the
//   track's events use (InternedData: event names, categories, argument names, repeated argument
//   strings) and a clock snapshot; each event after it is a timestamp delta, ids and arguments.
//
// Memory: events are kept until finish (a track's events must be sorted before they are written,
// and a call arrives when it ended, after the calls it contains): about 48 bytes per event plus
// its arguments' encoded bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace encore::trace::perfetto {

// ---- the wire format -------------------------------------------------------------------------------

enum class wire : std::uint8_t { varint = 0, fixed64 = 1, bytes = 2, fixed32 = 5 };

/// Bytes of `v` as a varint (1..10).
constexpr std::size_t varint_size(std::uint64_t v) {
    std::size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

/// Protobuf fields into a growable buffer. A nested message (`open`..`close`) reserves one byte for
/// its length and moves its bytes up when the length needs more: most messages here (a packet,
/// an event, an argument) are under 128 bytes, so they cost no padding and no second pass.
class encoder {
public:
    encoder() = default;
    encoder(const encoder&) = delete;
    encoder& operator=(const encoder&) = delete;

    void varint(std::uint64_t v) {
        reserve(10);
        std::uint8_t* p = data_.get() + size_;
        while (v >= 0x80) {
            *p++ = static_cast<std::uint8_t>(v | 0x80);
            v >>= 7;
        }
        *p++ = static_cast<std::uint8_t>(v);
        size_ = static_cast<std::size_t>(p - data_.get());
    }
    void tag(std::uint32_t field, wire w) {
        varint((static_cast<std::uint64_t>(field) << 3) | static_cast<unsigned>(w));
    }
    void uint_field(std::uint32_t field, std::uint64_t v) {
        tag(field, wire::varint);
        varint(v);
    }
    /// int32/int64 fields: a negative value is its two's complement, 10 bytes (not zigzag: that is sint).
    void int_field(std::uint32_t field, std::int64_t v) { uint_field(field, static_cast<std::uint64_t>(v)); }
    void bool_field(std::uint32_t field, bool v) { uint_field(field, v ? 1 : 0); }
    void fixed64_field(std::uint32_t field, std::uint64_t v) {
        tag(field, wire::fixed64);
        reserve(8);
        for (int i = 0; i < 8; ++i) data_[size_++] = static_cast<std::uint8_t>(v >> (8 * i));
    }
    void bytes_field(std::uint32_t field, std::string_view s) {
        tag(field, wire::bytes);
        varint(s.size());
        raw(s.data(), s.size());
    }
    void raw(const void* p, std::size_t n) {
        reserve(n);
        if (n != 0) std::memcpy(data_.get() + size_, p, n);
        size_ += n;
    }

    /// Starts a nested message; `close` with what it returned ends it (innermost first).
    std::size_t open(std::uint32_t field) {
        tag(field, wire::bytes);
        reserve(1);
        data_[size_] = 0;
        return size_++;
    }
    void close(std::size_t at) {
        const std::size_t body = at + 1;
        const std::size_t len = size_ - body;
        const std::size_t n = varint_size(len);
        if (n > 1) {
            reserve(n - 1);
            std::memmove(data_.get() + body + n - 1, data_.get() + body, len);
            size_ += n - 1;
        }
        std::uint64_t v = len;
        std::uint8_t* p = data_.get() + at;
        while (v >= 0x80) {
            *p++ = static_cast<std::uint8_t>(v | 0x80);
            v >>= 7;
        }
        *p = static_cast<std::uint8_t>(v);
    }

    const std::uint8_t* data() const { return data_.get(); }
    std::size_t size() const { return size_; }
    void clear() { size_ = 0; }
    std::string_view view() const { return {reinterpret_cast<const char*>(data_.get()), size_}; }

private:
    void reserve(std::size_t n) {
        if (cap_ - size_ < n) grow(n);
    }
    void grow(std::size_t n);

    std::unique_ptr<std::uint8_t[]> data_;
    std::size_t size_ = 0, cap_ = 0;
};

// ---- the trace -----------------------------------------------------------------------------------

using track_id = std::uint32_t;
using string_id = std::uint32_t;  // 0: none
inline constexpr track_id no_track = ~0u;

/// How a track's events share it (each a TrackEvent track, where slices must nest).
enum class layout : std::uint8_t {
    /// Slices nest like calls on a thread; one that starts inside another and ends after it goes to
    /// an extra track.
    nested,
    /// Nothing on the track overlaps, as kernels on one queue run one after the other: an event that
    /// starts before the one before it ended goes to an extra track, never drawn inside it.
    flat,
};

/// Flows link events of one correlation id: the event marked `out` (the API call that launched
/// the work) to each event marked `in` (its kernels, its copies), where both ends are in the trace.
enum class flow : std::uint8_t { none, out, in };

/// An event's correlation id (TrackEvent.correlation_id; 0: none) and its end of a flow. An `out`
/// event (a call) has its id written only where another event shares it (its kernel, its copy, its
/// allocation, a marker range it opened): an id that correlates nothing would be most of a call's
/// bytes after its name and arguments.
struct link {
    std::uint64_t correlation = 0;
    flow direction = flow::none;
};

/// One event's arguments (debug annotations). Views: valid until the call that takes them returns.
class args {
public:
    void clear() { items_.clear(); }
    void add_int(string_id name, std::int64_t v) {
        items_.push_back({name, kind_int, static_cast<std::uint64_t>(v), {}});
    }
    void add_uint(string_id name, std::uint64_t v) { items_.push_back({name, kind_uint, v, {}}); }
    void add_pointer(string_id name, std::uint64_t v) { items_.push_back({name, kind_pointer, v, {}}); }
    void add_string(string_id name, std::string_view v) { items_.push_back({name, kind_string, 0, v}); }
    /// A value formatted as text: a decimal integer becomes an integer, anything else a string
    /// (interned by the trace where the track repeats it).
    void add_text(string_id name, std::string_view v);
    bool empty() const { return items_.empty(); }

private:
    friend class trace;
    enum kind : std::uint8_t { kind_int, kind_uint, kind_pointer, kind_string };
    struct item {
        string_id name;
        kind k;
        std::uint64_t number;
        std::string_view text;
    };
    std::vector<item> items_;
};

/// A Perfetto trace file, written at finish. Every function takes any input: strings of any bytes
/// (what is not UTF-8 is written as Latin-1), events that overlap, end before they start or
/// never happen on a track; a track id not returned by this trace is ignored.
class trace {
public:
    trace();
    ~trace();
    trace(const trace&) = delete;
    trace& operator=(const trace&) = delete;

    /// Creates the file (truncating it).
    bool open(const std::string& path, std::string& error);

    /// A string's id, for event, category and argument names (and values, which `args` interns).
    string_id intern(std::string_view s);

    /// A process (its pid, name and command line); its threads and tracks are drawn inside it.
    track_id process(std::int64_t pid, std::string_view name, const std::vector<std::string>& cmdline = {});
    /// A thread of a process; `name` may be empty.
    track_id thread(track_id process, std::int64_t pid, std::int64_t tid, std::string_view name);
    /// A named track under `parent` (no_track: a top-level one), holding slices and instants.
    track_id track(track_id parent, std::string_view name, layout how);

    /// A slice [start, end] (end < start is read as end == start).
    void slice(track_id t, std::uint64_t start, std::uint64_t end, string_id name, string_id category, const args& a,
               link l = {});
    /// An instant at `ts`.
    void instant(track_id t, std::uint64_t ts, string_id name, string_id category, const args& a, link l = {});

    /// Lays out and writes every track's events and closes the file.
    bool finish(std::string& error);

    /// Events left out by finish: more than 256 tracks' worth overlapping on one track.
    std::uint64_t left_out() const;

private:
    struct state;
    std::unique_ptr<state> s_;
};

}  // namespace encore::trace::perfetto
