// src/trace/record_file.hpp — per-thread, per-process record files mapped MAP_SHARED: the
// durable half of encore-trace's record path (DESIGN.md, "The record path").
//
// The writer runs inside the traced program. Each thread appends binary records to its own file,
// written through a MAP_SHARED mapping of a preallocated chunk: a record costs a thread-local
// pointer bump and a few stores, no system call, lock or allocation. The page cache owns what was
// stored, so every committed record survives the program's death however it dies (SIGKILL
// included); a torn record (reserved, never committed) is told from a complete one because the
// size word is stored last. The reader runs in the launcher after the program ended.
//
//   // writer, once at tool start (not on the hot path):
//   encore::trace::open_process("/tmp/encore-run");        // makes /tmp/encore-run/<pid>-<ns>/
//   // writer, on any application thread, from a tracing callback or a signal handler:
//   if (void* p = encore::trace::reserve(sizeof(my_event))) {
//       std::memcpy(p, &ev, sizeof ev);                     // the body first ...
//       encore::trace::commit(p, my_event_type);            // ... then the size word, released
//   }
//   // reader, after the program ended:
//   for (const auto& proc : encore::trace::list_processes("/tmp/encore-run"))
//       for (const auto& th : proc.threads)
//           encore::trace::read_thread(th.path, [](std::uint16_t type, const void* body,
//                                                  std::uint32_t n) { /* convert */ });
//
// Layers:   reserve/commit/append (hot, per thread)  ->  chunk growth (open, fallocate, mmap,
//           close: amortized, async-signal-safe)      ->  files on disk (format below)
//           ->  list_processes/read_thread (the launcher; std containers, validates everything)
//
// On disk (all integers little-endian, the host's layout; version 1):
//   <root>/<pid>-<ns>/              one folder per process image; <ns> = CLOCK_MONOTONIC at
//                                   open_process (or at the first record of a fork child), so an
//                                   exec under the same pid gets a new folder
//   <root>/<pid>-<ns>/process.meta  process_header (16 KiB, updated in place: drops, clean end)
//   <root>/<pid>-<ns>/thread-<tid>.rec   (thread-<tid>-<k>.rec when a tid is reused)
//       [0, 4096)                   thread_header (drop counts updated in place)
//       [4096 + i*chunk_bytes, ...) chunk i: records back to back, 8-aligned; a chunk's tail that
//                                   the next record did not fit is one PAD record; unwritten space
//                                   is zero (fallocate), so a zero size word ends the data
//   record: record_header {u32 size (whole record, 8-aligned, stored last with release),
//                          u16 type, u16 flags (bits 0-2: padding)} then the body and padding
//
// Behaviour worth knowing:
// - Cost: the hot path is a few ns above the machine's cost of storing 64 bytes to fresh memory.
//   Chunk growth pays the kernel for each page-cache page (allocate, zero, map: about one 4 KiB
//   page per 64 records of 64 bytes). A thread of the library's own, the grower (started by
//   open_process unless writer_options::grow_ahead is false), populates each thread's next chunk
//   (mapped by the thread itself: the grower holds no descriptor) while the thread fills its
//   current one, so that cost falls on the recording thread only when the grower has not started
//   on the chunk (the thread then does it) or is still at it (the thread waits for what is left),
//   and in a fork child (no grower there).
//   bench_record_file measures growth and the hot path.
// - A full disk (ENOSPC, EDQUOT, EFBIG) or another I/O failure stops the thread's recording until
//   the next open_process; every record after it is counted as dropped. With RLIMIT_FSIZE set
//   and SIGXFSZ not ignored, the kernel's SIGXFSZ ends the program as its own write would.
// - fork: the child's first record makes <root>/<childpid>-<ns>/; the parent's files are never
//   written by the child. exec: the new image calls open_process again (a new folder).
// - Thread exit: the thread's mappings are released when a pthread key could be had without
//   allocation (see record_file.cpp); otherwise they stay mapped until the process ends.
// - The hot thread-locals are initial-exec (no malloc on first access in a dlopen'ed library;
//   they take about 80 bytes of the static TLS surplus).
// - The slow path uses about 3 KiB of stack (paths): mind small sigaltstacks.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace encore::trace {

// ---------------------------------------------------------------------------------------------
// Format constants and layouts (shared by writer and reader; standard-layout, fixed offsets).

inline constexpr std::uint32_t format_version = 2;  // 2: process.meta keeps the environment
inline constexpr std::uint32_t thread_header_bytes = 4096;
inline constexpr std::uint32_t process_meta_bytes = 16384 + 65536;  // strings; the environment from 16 KiB
// The largest record, header included: bounds what the reader accepts and what one reservation
// can take from a chunk (so a chunk's PAD wastes at most this much).
inline constexpr std::uint32_t max_record_bytes = 64 * 1024;
inline constexpr std::uint32_t max_body_bytes = max_record_bytes - 8;
// Types at and above this are the library's own; user types must stay below.
inline constexpr std::uint16_t first_reserved_type = 0xFF00;
inline constexpr std::uint16_t pad_type = 0xFFFF;

// "ENCTHR1\0" and "ENCPRC1\0" read as little-endian 64-bit words.
inline constexpr std::uint64_t thread_magic = 0x0031524854434e45ull;
inline constexpr std::uint64_t process_magic = 0x0031435250434e45ull;

struct record_header {
    std::uint32_t size;  // of the whole record; 0 = nothing committed here (yet)
    std::uint16_t type;
    std::uint16_t flags;  // bits 0-2: bytes of padding at the body's end; the rest 0
};
static_assert(sizeof(record_header) == 8);

// Why a record was not recorded. The counts live in the thread file's header and, summed over
// the process, in process.meta.
enum class drop_reason : std::uint32_t {
    reentry = 0,  // reserve() while this thread was between reserve and commit (a signal handler)
    disk_full,    // fallocate said ENOSPC/EDQUOT/EFBIG: this thread stopped recording
    io_error,     // open/mmap/fallocate failed otherwise: this thread stopped recording
    too_large,    // the body exceeded max_body_bytes
    no_process,   // open_process was not called or failed, or the fork child's folder failed
    after_exit,   // the thread's files were released at thread exit
};
inline constexpr std::size_t drop_reason_count = 6;
using drop_counts = std::array<std::uint64_t, drop_reason_count>;
const char* drop_reason_name(drop_reason r) noexcept;

struct thread_header {
    std::uint64_t magic;         // thread_magic, stored last with release: without it, no header
    std::uint32_t version;       // format_version
    std::uint32_t header_bytes;  // thread_header_bytes: where chunk 0 starts
    std::uint32_t chunk_bytes;
    std::uint32_t max_record;  // max_record_bytes
    std::int32_t pid;
    std::int32_t tid;
    std::uint64_t created_monotonic_ns;
    std::uint64_t chunks;    // chunks allocated so far (relaxed: advisory, the file size says too)
    std::uint64_t drops[8];  // by drop_reason; atomic_ref fetch_add(relaxed), read after death
    char path[2048];         // the path the writer reopens for each chunk (diagnostic for readers)
};
static_assert(sizeof(thread_header) <= thread_header_bytes);

// process.meta. Strings live after the fixed part at [off, off + len) in the same file.
struct process_header {
    std::uint64_t magic;  // process_magic, stored last with release
    std::uint32_t version;
    std::uint32_t meta_bytes;  // process_meta_bytes
    std::int32_t pid;
    std::int32_t ppid;
    // CLOCK_MONOTONIC when this folder was made (open_process, or a fork child's first record).
    std::uint64_t open_monotonic_ns;
    // CLOCK_REALTIME at the same moment (to relate the two clocks).
    std::uint64_t open_realtime_ns;
    // The kernel's start time of the process (/proc/self/stat field 22): ns since boot, on the
    // CLOCK_BOOTTIME base, 1/CLK_TCK resolution; unchanged by exec.
    std::uint64_t start_boottime_ns;
    std::uint64_t end_monotonic_ns;  // set by close_process
    std::uint32_t clean_end;         // 1 after close_process (release store; read after death)
    std::uint32_t chunk_bytes;
    std::uint64_t drops[8];  // process totals by drop_reason (atomic_ref fetch_add, relaxed)
    std::uint32_t hostname_off, hostname_len;
    std::uint32_t exe_off, exe_len;
    std::uint32_t cmdline_off, cmdline_len;  // NUL-separated arguments, as /proc/self/cmdline
    std::uint32_t cmdline_truncated;
    std::uint32_t environ_truncated;
    // The environment when the folder was made (/proc/self/environ: NUL-separated NAME=value):
    // what output templates (%rank%, %env{NAME}%) and rocpd's process row read after the run.
    std::uint32_t environ_off, environ_len;
};
static_assert(sizeof(process_header) <= 512);

// ---------------------------------------------------------------------------------------------
// Writer.

// A named option with its default: bytes of file mapped at a time per thread (a multiple of
// 4096, at least 2 * max_record_bytes). Larger chunks amortize growth's system calls over more
// records; each live thread keeps one chunk mapped (and the page cache keeps the data anyway).
struct writer_options {
    std::uint32_t chunk_bytes = 2u << 20;
    // Map each thread's next chunk ahead on a thread of the library's own (the grower), so that
    // the kernel's work for a chunk is not done on the recording thread; false: each thread maps
    // its chunks itself (as a fork child's threads always do).
    bool grow_ahead = true;
    std::uint32_t grower_delay_us = 0;  // tests: the grower sleeps this long before each chunk
};

// Remembers root_dir (made absolute; created with its parents), creates
// <root_dir>/<pid>-<ns>/process.meta and registers the fork handler. Call once at tool start,
// before any record; a second call starts a new folder (as after exec). False: last_error() says
// why. Not async-signal-safe.
bool open_process(const char* root_dir) noexcept;
bool open_process(const char* root_dir, const writer_options& options) noexcept;

// "what failed: strerror(errno)" for the last open_process failure (static storage).
const char* last_error() noexcept;

// Marks the end as clean (process.meta: clean_end, end_monotonic_ns). Records after it are
// still kept. Optional; async-signal-safe.
void close_process() noexcept;

// Hot path, on the calling thread; async-signal-safe; no lock, allocation or system call except
// the amortized chunk growth. reserve returns where to write `bytes` of body (8-aligned), or
// nullptr when the record is dropped (counted): re-entry from a signal handler between this
// thread's reserve and commit, the disk full, too large, no process open. One reservation per
// thread at a time: commit (or cancel) it before the next. commit(nullptr, ...) does nothing.
void* reserve(std::uint32_t bytes) noexcept;
void commit(void* body, std::uint16_t type) noexcept;
// Gives a reservation up: it becomes padding the reader skips.
void cancel(void* body) noexcept;
// reserve + memcpy + commit. False when dropped.
bool append(std::uint16_t type, const void* body, std::uint32_t n) noexcept;

// When this process started, on CLOCK_BOOTTIME (ns; /proc/self/stat's start time, as the
// converter takes the collection periods' origin); 0 before open_process or when unknown.
std::uint64_t process_start_boottime_ns() noexcept;

// This process's folder ("" before open_process or before a fork child's first record).
// Not async-signal-safe (returns a pointer into static storage that a fork child rewrites).
const char* process_dir_path() noexcept;

// ---------------------------------------------------------------------------------------------
// Reader. Validates everything it reads: a corrupt or truncated file gives an error or a short
// read, never a crash.

struct thread_file {
    std::string path;
    std::int32_t tid = 0;  // from the file name
};

struct process_dir {
    std::string path;
    bool meta_valid = false;  // false: process.meta missing or unreadable (error says why)
    std::string error;
    std::int32_t pid = 0, ppid = 0;
    std::uint64_t open_monotonic_ns = 0, open_realtime_ns = 0, start_boottime_ns = 0;
    std::uint64_t end_monotonic_ns = 0;
    bool clean_end = false;
    std::uint32_t chunk_bytes = 0;
    std::string hostname, exe;
    std::vector<std::string> cmdline;
    bool cmdline_truncated = false;
    std::vector<std::string> environ;  // NAME=value, as the process had them when its folder was made
    bool environ_truncated = false;
    /// The value of environment variable `name` (valid while this object lives), or null.
    const char* env(std::string_view name) const;
    drop_counts drops{};               // process totals
    std::vector<thread_file> threads;  // sorted by path
};

// Every <pid>-<ns> folder under root, sorted by (open_monotonic_ns, pid).
std::vector<process_dir> list_processes(const std::string& root);

struct read_result {
    bool ok = false;    // the header was valid and the records read cleanly up to the end marker
    std::string error;  // why not ok (corrupt header, invalid record at offset N, I/O error)
    std::int32_t pid = 0, tid = 0;
    std::uint64_t records = 0;  // complete user records delivered
    std::uint64_t pads = 0;
    std::uint64_t bytes_used = 0;  // record bytes up to the end marker, pads included
    bool torn = false;             // bytes were written past the last complete record (a record reserved
                                   // and never committed: the thread died or was killed mid-record)
    bool corrupt = false;          // an invalid header stopped the read (error says where)
    drop_counts drops{};           // this thread's drops
};

using record_callback = std::function<void(std::uint16_t type, const void* body, std::uint32_t n)>;
// Calls cb for every complete user record in order (PADs skipped); n is the body size the writer
// reserved (its padding to 8 bytes excluded).
read_result read_thread(const std::string& path, const record_callback& cb);

}  // namespace encore::trace
