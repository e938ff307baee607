// src/cuda/range_replay.hpp — RANGE_REPLAY on CUDA (range_replay.cpp): what the per-op layers
// (ops.hpp) and kernel replay (replay.cpp) tell the range of the calling thread, and graph
// launches, which are recorded in an open range or replayed as a range of their own.
#pragma once

#include "calls.hpp"

#include <cuda.h>

#include <functional>

namespace encore::cuda::range {

/// Whether a RANGE_REPLAY service is configured (fixed once tools are initialized).
bool configured() noexcept;
/// A kernel launch while some range is open: recorded (and run) when the calling thread's range
/// is open, `r` its result, true; false when the launch is not the range's (another thread's: that
/// declines ranges on its device) and goes the ordinary way.
bool launch(const launch_call& c, CUresult& r) noexcept;
/// cuGraphLaunch(exec, stream) (`call` forwards it) as a whole: an entry of the thread's open range;
/// outside one, with the service configured, a range of its own (range_id = the exec's handle).
/// (While kernel replay is active, ops.cpp launches a graph node by node instead when it can.)
CUresult graph_launch(CUgraphExec exec, CUstream stream, bool per_thread, thunk call) noexcept;
/// A graph was instantiated: its plan is made (graph_nodes.hpp; its kernel nodes are a graph
/// entry's dispatch_count).
void on_instantiate(CUgraphExec exec, CUgraph graph) noexcept;
/// A copy (`c`) or another copy (`c` null: arrays, 3-D peer, batched) on the current context.
void on_copy(const copy_call* c) noexcept;
/// Whether any thread has a range open (one relaxed load).
bool any_open() noexcept;
/// A memset (cuMemset*) while some range is open: issued (`redo` with the program's arguments)
/// and, on the range's thread, recorded to be issued again in each pass; its result.
CUresult memset_call(CUstream stream, std::function<CUresult()> redo) noexcept;
/// What a 1-D copy `c` writes and reads, for range replay: device memory from device memory or
/// from host memory can be re-issued in a range's passes; any other copy declines the range.
enum class copy_kind : unsigned char { device_from_device, device_from_host, other };
copy_kind classify(const copy_call& c) noexcept;
/// A copy into device memory (`classify` says which) while some range is open: `own` is the
/// program's copy, issued now (with its records); on the range's thread `redo` is recorded to
/// be issued again in each pass (a host source: `redo` reads the bytes the source held at the
/// call, copied by the caller). Its result.
CUresult copy_call_in_range(CUstream stream, std::function<CUresult()> redo, thunk own) noexcept;
/// Device memory allocated, freed, mapped, unmapped or given other access on the current context.
void on_memory_change() noexcept;

}  // namespace encore::cuda::range
