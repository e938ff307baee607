// src/trace/records.hpp — the bodies of encore-trace's binary records: what the tool
// (src/trace/tool.cpp) writes on the program's threads into the per-thread record files
// (record_file.hpp), and what the converter (convert.cpp) reads after the program ended.
//
// Every body is a fixed struct, trivially copyable and 8-byte aligned, sometimes followed by
// bytes whose lengths the struct gives. Nothing in them points into the traced process: a call's
// arguments are its captured bytes (formatted later at dereference depth 0, so a pointer prints
// as its address), strings the call passed are copied at the call, bounded; names (operations,
// kernels) are written once (`names`, `kernel_symbol`) and referred to by id.
//
// The layout is private to one build of encore: the converter that reads a folder is the one
// installed beside the tool that wrote it (the `hello` record names the version).
#pragma once

#include <cstdint>
#include <type_traits>

namespace encore::trace::rec {

enum type : std::uint16_t {
    hello = 1,          // the first record of a process: version, pid, clock, options
    names = 2,          // a kind's name and its operations' names, once per traced kind
    api_call = 3,       // one traced call (ENTER..EXIT), or an OMPT callback (an instant)
    dispatch = 4,       // one kernel dispatch, with its GPU times
    memory_copy = 5,    // one copy, with its GPU times
    allocation = 6,     // one allocation or free
    kernel_symbol = 7,  // a kernel's id and name (CODE_OBJECT kernel-symbol registration)
    agent = 8,          // an agent of the process (rocprofiler_query_available_agents)
    goodbye = 9,        // the tool's finalization ran (the process ended through exit)
    clock_sync = 10,    // the tick counter and CLOCK_BOOTTIME read together (tick_clock.hpp)
};

/// The version of this layout; the converter refuses a folder of another.
/// 2: api_call times are ticks of hello_body::clock (tick_clock.hpp); clock_sync records.
inline constexpr std::uint32_t layout_version = 2;

struct hello_body {
    std::uint32_t layout = layout_version;
    std::uint32_t args_depth = 0;  // > 0: api_call records carry formatted text (--args-depth)
    std::uint64_t pid = 0, ppid = 0;
    std::uint64_t start_ns = 0;     // rocprofiler_get_timestamp at the tool's start
    std::uint64_t start_ticks = 0;  // the tick counter read with start_ns (a clock_sync pair)
    std::uint32_t clock = 0;        // clock_boottime or clock_tsc: what api_call times are
    std::uint32_t start_width = 0;  // of the pair, as clock_sync_body::width
};

/// A pair: the tick counter (the midpoint of two reads around the clock's) and CLOCK_BOOTTIME.
struct clock_sync_body {
    std::uint64_t ticks = 0, ns = 0;
    std::uint32_t width = 0;  // ticks between the two counter reads: the pair's uncertainty, twice over
    std::uint32_t pad = 0;
};

/// Followed by the kind's name and then each operation's name, each NUL-terminated.
struct names_body {
    std::uint32_t kind = 0;
    std::uint32_t op_count = 0;
    std::int64_t first_op = 0;
    std::uint32_t bytes = 0;  // of the names that follow
    std::uint32_t pad = 0;
};

/// Followed by `args_size` bytes (the payload's captured arguments, rounded up to 8), then
/// `text_size` bytes of text: for each captured string argument `<index byte><bytes>\0`, or with
/// --args-depth the arguments formatted at the call, `name=value` lines each ending in '\n'.
struct api_call_body {
    std::uint64_t correlation_id = 0;
    std::uint64_t start_ns = 0, end_ns = 0;  // ticks of the hello's clock (the converter maps them)
    std::uint64_t retval = 0;                // the first 8 bytes of the return value (0 for void)
    std::uint32_t kind = 0;
    std::int32_t operation = 0;
    std::uint16_t args_size = 0;  // bytes of arguments that follow (a multiple of 8)
    std::uint16_t text_size = 0;  // bytes of text after them
    std::uint8_t phase = 0;       // rocprofiler_callback_phase_t of the record that ended it
    std::uint8_t text_kind = 0;   // text_strings or text_formatted
    std::uint8_t truncated = 0;   // a string or the formatted text was cut at its bound
    std::uint8_t pad = 0;
};
inline constexpr std::uint8_t text_strings = 0;
inline constexpr std::uint8_t text_formatted = 1;

struct dispatch_body {
    std::uint64_t correlation_id = 0, thread_id = 0;  // the launching call and its thread
    std::uint64_t start_ns = 0, end_ns = 0;
    std::uint64_t agent = 0, queue = 0, kernel_id = 0, dispatch_id = 0;
    std::uint32_t private_segment_size = 0, group_segment_size = 0;
    std::uint32_t workgroup[3] = {}, grid[3] = {};
};

struct memory_copy_body {
    std::uint64_t correlation_id = 0, thread_id = 0;
    std::uint64_t start_ns = 0, end_ns = 0;
    std::uint64_t src_agent = 0, dst_agent = 0, src_address = 0, dst_address = 0, bytes = 0;
    std::int32_t operation = 0;
    std::uint32_t pad = 0;
};

struct allocation_body {
    std::uint64_t correlation_id = 0, thread_id = 0;
    std::uint64_t start_ns = 0, end_ns = 0;
    std::uint64_t agent = 0, address = 0, bytes = 0;
    std::int32_t operation = 0;
    std::uint32_t pad = 0;
};

/// Followed by the kernel's name as loaded (mangled), NUL-terminated, `name_size` bytes with it.
struct kernel_symbol_body {
    std::uint64_t kernel_id = 0, code_object_id = 0;
    std::uint32_t private_segment_size = 0, group_segment_size = 0;
    std::uint32_t name_size = 0;
    std::uint32_t pad = 0;
};

/// Followed by the agent's name, NUL-terminated (`name_size` bytes with it).
struct agent_body {
    std::uint64_t handle = 0;
    std::int32_t type = 0;  // rocprofiler_agent_type_t
    std::int32_t logical_index = 0;
    std::int32_t type_index = 0;
    std::uint32_t name_size = 0;
};

struct goodbye_body {
    std::uint64_t end_ns = 0;
    std::uint64_t filtered = 0;  // dispatches the kernel filters left out at record time (tool.cpp)
};

template <class T>
inline constexpr bool body_ok = std::is_trivially_copyable_v<T> && sizeof(T) % 8 == 0 && alignof(T) <= 8;
static_assert(body_ok<hello_body> && body_ok<names_body> && body_ok<api_call_body> && body_ok<dispatch_body> &&
              body_ok<memory_copy_body> && body_ok<allocation_body> && body_ok<kernel_symbol_body> &&
              body_ok<agent_body> && body_ok<goodbye_body> && body_ok<clock_sync_body>);

constexpr std::uint32_t round8(std::uint32_t n) { return (n + 7u) & ~7u; }

}  // namespace encore::trace::rec
