#!/usr/bin/env python3
"""encore-trace --hip-trace --marker-trace -o DIR on a HIP program: the HIP runtime API calls
and the roctx ranges land in the same trace.json / api_trace.csv as HSA calls would.

usage: check_hip_trace.py ENCORE_TRACE PROGRAM"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_run import expect, finish, traced_run  # noqa: E402

trace, program = sys.argv[1], sys.argv[2]

with traced_run(trace, ["--hip-trace", "--marker-trace"], program) as t:
    calls, names = t.calls, t.names
    expect(("HIP_RUNTIME_API", "hipGetDeviceCount") in names, "hipGetDeviceCount in trace.json")
    expect(("HIP_RUNTIME_API", "hipMalloc") in names, "hipMalloc in trace.json")
    expect(("MARKER_CORE_API", "roctxRangePushA") in names, "roctxRangePushA in trace.json")
    # A range is a slice named by its message, with the call that opened it.
    ranges = [e for e in calls if e["cat"] == "MARKER_CORE_API" and e["args"].get("range") == "roctxRangePushA"]
    expect(sorted(e["name"] for e in ranges) == ["allocate", "setup"], "two roctx ranges: %r" % ranges)
    if len(ranges) == 2:
        outer = [e for e in ranges if e["name"] == "setup"][0]
        inner = [e for e in ranges if e["name"] == "allocate"][0]
        expect(float(outer["ts"]) <= float(inner["ts"]) and
               float(inner["ts"]) + float(inner["dur"]) <= float(outer["ts"]) + float(outer["dur"]),
               "the ranges nest")
    count = [e for e in calls if e["name"] == "hipGetDeviceCount"]
    expect(len(count) == 1 and count[0]["args"].get("return") == "hipErrorNoDevice", "return value by name")
    rows = t.rows
    expect(any(r["kind"] == "HIP_RUNTIME_API" and r["operation"] == "hipMalloc" for r in rows), "hipMalloc in api_trace.csv")
    expect(not any(r["kind"].startswith("HSA") for r in rows), "no HSA rows: only --hip-trace/--marker-trace selected")

sys.exit(finish())
