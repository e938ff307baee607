// test/support/tool_stub.hpp — the rocprofiler_configure of a test program that is its own tool: it
// names the client (or leaves the name as it was given, for nullptr) and hands back its tool_init and
// tool_fini (nullptr for none).
//
//   ENCORE_TEST_TOOL("test-dispatch", &tool_init, nullptr)
//
// A macro, not an inline function: rocprofiler_configure must be defined, exported and unmangled in
// the program itself, and its result lives in that definition (an inline function's static would be
// one object for every program and tool library of a process). Tests of configure itself, and the C
// programs that check the C ABI, write their rocprofiler_configure out as a tool author would.
#pragma once

#include <rocprofiler-sdk/rocprofiler.h>

#include <cstdint>

#define ENCORE_TEST_TOOL(tool_name, tool_init_fn, tool_fini_fn)                                                   \
    extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure( \
        uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {                                           \
        if (const char* n = (tool_name)) id->name = n;                                                            \
        static rocprofiler_tool_configure_result_t r{sizeof(r), (tool_init_fn), (tool_fini_fn), nullptr};         \
        return &r;                                                                                                \
    }
