#!/usr/bin/env python3
"""encore-trace --hip-trace --marker-trace -o DIR on a HIP program: the HIP runtime API calls
and the roctx ranges land in the same trace.json / api_trace.csv as HSA calls would.

usage: check_hip_trace.py ENCORE_TRACE PROGRAM"""
import csv
import json
import os
import subprocess
import sys
import tempfile

trace, program = sys.argv[1], sys.argv[2]
failed = 0


def expect(ok, what):
    global failed
    if not ok:
        failed += 1
        print("FAILED:", what)


with tempfile.TemporaryDirectory() as out:
    untraced = subprocess.run([program], capture_output=True, text=True)
    r = subprocess.run([trace, "--hip-trace", "--marker-trace", "-o", out, program], capture_output=True, text=True)
    print(r.stderr[-3000:])
    expect(r.returncode == 0, "traced run exits 0")
    expect(r.stdout == untraced.stdout, "the program prints the same with and without tracing")
    events = json.load(open(os.path.join(out, "trace.json")))  # the trace-event array format
    calls = [e for e in events if e.get("ph") == "X"]
    names = [(e["cat"], e["name"]) for e in calls]
    expect(("HIP_RUNTIME_API", "hipGetDeviceCount") in names, "hipGetDeviceCount in trace.json")
    expect(("HIP_RUNTIME_API", "hipMalloc") in names, "hipMalloc in trace.json")
    expect(("MARKER_CORE_API", "roctxRangePushA") in names, "roctxRangePushA in trace.json")
    ranges = [e for e in calls if e["name"] == "roctx range"]
    expect(sorted(e["args"]["message"] for e in ranges) == ['"allocate"', '"setup"'], "two roctx ranges: %r" % ranges)
    if len(ranges) == 2:
        outer = [e for e in ranges if e["args"]["message"] == '"setup"'][0]
        inner = [e for e in ranges if e["args"]["message"] == '"allocate"'][0]
        expect(float(outer["ts"]) <= float(inner["ts"]) and
               float(inner["ts"]) + float(inner["dur"]) <= float(outer["ts"]) + float(outer["dur"]),
               "the ranges nest")
    count = [e for e in calls if e["name"] == "hipGetDeviceCount"]
    expect(len(count) == 1 and count[0]["args"].get("return") == "hipErrorNoDevice", "return value by name")
    rows = list(csv.DictReader(open(os.path.join(out, "api_trace.csv"))))
    expect(any(r["kind"] == "HIP_RUNTIME_API" and r["operation"] == "hipMalloc" for r in rows), "hipMalloc in api_trace.csv")
    expect(not any(r["kind"].startswith("HSA") for r in rows), "no HSA rows: only --hip-trace/--marker-trace selected")

print("%s" % ("ok" if failed == 0 else "%d failed" % failed))
sys.exit(1 if failed else 0)
