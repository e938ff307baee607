#!/usr/bin/env python3
"""End to end: encore-trace -o DIR writes a Chrome trace-event JSON file and CSV files that agree.

usage: check_trace_outputs.py ENCORE_TRACE PROGRAM [ARGS...]

Runs `ENCORE_TRACE --sim --quiet -o TMPDIR PROGRAM ARGS` (the caller sets ENCORE_SIM_GPU_AGENTS)
and checks:
  - trace.json parses: a trace-event array (the array format, written record by record) ending
    with one "end of trace (exit)" event;
  - complete ("X") events for API calls and for kernel dispatches; as many kernel events as
    the program made dispatches (it prints "N GPU agent(s), D dispatches per queue" for two
    queues); every X event has numeric ts >= 0 and dur >= 0, a name, pid, tid and args;
  - kernel events and rows, and the summary, name the kernel by its symbol (vector_add);
  - kernel events sit on GPU tracks named by metadata events, apart from the host process;
  - api_trace.csv and kernel_trace.csv parse with the csv module, have their columns and
    start <= end; kernel rows match the JSON kernel events (dispatch ids, times, grid);
    API rows match the JSON API events (correlation ids);
  - memory_copy_trace.csv and memory_allocation_trace.csv: as many rows as copy and allocation
    events in trace.json, the program's allocations there (the software runtime's copies are
    its own), every free with the address and size of an allocation.
Prints each failure and 'N passed, M failed'; exits 1 on any failure.
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAILED: {what}")
    return ok


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    trace, program, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")  # encore-trace creates it
        proc = subprocess.run([trace, "--sim", "--quiet", "-o", out, program, *args],
                              capture_output=True, text=True, timeout=300)
        if not check(proc.returncode == 0, f"traced program exits 0 (got {proc.returncode})"):
            print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n")
            return finish()
        m = re.search(r"(\d+) GPU agent\(s\), (\d+) dispatches per queue", proc.stdout)
        if not check(m is not None, "the program prints its dispatch count"):
            print(proc.stdout)
            return finish()
        expected_dispatches = 2 * int(m.group(2))  # two queues

        paths = {n: os.path.join(out, n) for n in ("trace.json", "api_trace.csv", "kernel_trace.csv",
                                                   "memory_copy_trace.csv", "memory_allocation_trace.csv")}
        for name, path in paths.items():
            check(os.path.isfile(path), f"{name} written")
        if failed:
            print(proc.stderr[-4000:])
            return finish()

        # ---- JSON --------------------------------------------------------------------------
        try:
            with open(paths["trace.json"], encoding="utf-8") as f:
                doc = json.load(f)
        except ValueError as e:
            check(False, f"trace.json parses as JSON: {e}")
            return finish()
        check(True, "trace.json parses as JSON")
        events = doc
        if not check(isinstance(events, list) and events, "trace.json is a non-empty trace-event array"):
            return finish()
        ends = [e for e in events if str(e.get("name", "")).startswith("end of trace")]
        check(len(ends) == 1 and ends[0]["name"] == "end of trace (exit)" and ends[0] is events[-1],
              "one end-of-trace event, the last, for a normal exit")
        xs = [e for e in events if e.get("ph") == "X"]
        meta = [e for e in events if e.get("ph") == "M"]
        kernels = [e for e in xs if e.get("cat") == "KERNEL_DISPATCH"]
        memory = {c: [e for e in xs if e.get("cat") == c] for c in ("MEMORY_COPY", "MEMORY_ALLOCATION")}
        apis = [e for e in xs if e.get("cat") not in ("KERNEL_DISPATCH", "MEMORY_COPY", "MEMORY_ALLOCATION")]
        check(len(apis) > 0, f"X events for API calls ({len(apis)})")
        check(len(kernels) == expected_dispatches,
              f"one X event per kernel dispatch: {len(kernels)} events, {expected_dispatches} dispatches")
        bad = [e for e in xs
               if not (isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0 and isinstance(e.get("dur"), (int, float))
                       and e["dur"] >= 0 and isinstance(e.get("name"), str) and e["name"]
                       and "pid" in e and "tid" in e and isinstance(e.get("args"), dict))]
        check(not bad, f"every X event has ts >= 0, dur >= 0, name, pid, tid, args ({len(bad)} bad: {bad[:2]})")
        check(all(e["args"] for e in apis), "every API event carries its arguments or return value")
        check(any(e["name"] == "hsa_queue_create" and "queue" in e["args"] for e in apis),
              "hsa_queue_create with its named arguments")
        check(all(k in e["args"] for e in kernels for k in ("dispatch_id", "grid", "workgroup", "kernel_id")),
              "kernel events carry dispatch_id, grid, workgroup, kernel_id")
        check(kernels and all(e["name"] == "vector_add" for e in kernels),
              f"kernel events are named by the kernel's symbol ({sorted({e['name'] for e in kernels})})")
        host_pids = {e["pid"] for e in apis}
        gpu_pids = {e["pid"] for e in kernels}
        check(gpu_pids and not (gpu_pids & host_pids), "kernel dispatches on their own (GPU) tracks")
        named = {e["pid"] for e in meta if e.get("name") == "process_name"
                 and str(e.get("args", {}).get("name", "")).startswith("GPU agent")}
        check(gpu_pids <= named, "each GPU track is named 'GPU agent <n>' by a metadata event")
        check(len({(e["pid"], e["tid"]) for e in kernels}) == 2, "one track per queue (two queues)")
        check(len(gpu_pids) == 2, "two GPU agents (ENCORE_SIM_GPU_AGENTS=2)")

        # ---- CSV ---------------------------------------------------------------------------
        with open(paths["api_trace.csv"], newline="", encoding="utf-8") as f:
            api_rows = list(csv.DictReader(f))
        with open(paths["kernel_trace.csv"], newline="", encoding="utf-8") as f:
            kernel_rows = list(csv.DictReader(f))
        api_cols = {"correlation_id", "thread_id", "kind", "operation", "start_ns", "end_ns", "return_value"}
        kernel_cols = {"dispatch_id", "agent_id", "queue_id", "kernel_id", "grid_x", "grid_y", "grid_z",
                       "workgroup_x", "workgroup_y", "workgroup_z", "start_ns", "end_ns", "duration_ns",
                       "correlation_id"}
        check(api_rows and api_cols <= set(api_rows[0]), "api_trace.csv has its columns")
        check(kernel_rows and kernel_cols <= set(kernel_rows[0]), "kernel_trace.csv has its columns")
        if failed:
            return finish()
        check(all(int(r["start_ns"]) <= int(r["end_ns"]) for r in api_rows), "API rows: start <= end")
        check(all(int(r["start_ns"]) <= int(r["end_ns"]) and
                  int(r["duration_ns"]) == int(r["end_ns"]) - int(r["start_ns"]) for r in kernel_rows),
              "kernel rows: start <= end, duration = end - start")
        check(len(api_rows) == len(apis), f"API rows ({len(api_rows)}) = API events ({len(apis)})")
        check(sorted(int(r["correlation_id"]) for r in api_rows) ==
              sorted(e["args"]["correlation_id"] for e in apis), "API rows and events have the same correlation ids")
        check(len({r["correlation_id"] for r in api_rows}) == len(api_rows), "API correlation ids are unique")
        check(any(r["operation"] == "hsa_queue_create" and r["return_value"] == "HSA_STATUS_SUCCESS" for r in api_rows),
              "hsa_queue_create -> HSA_STATUS_SUCCESS in api_trace.csv")
        for name, cat in (("memory_copy_trace.csv", "MEMORY_COPY"), ("memory_allocation_trace.csv", "MEMORY_ALLOCATION")):
            with open(paths[name], newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            check(len(rows) == len(memory[cat]), f"{name}: {len(rows)} rows = {len(memory[cat])} {cat} events")
        allocs = memory["MEMORY_ALLOCATION"]
        made = {(e["args"]["address"], e["args"]["bytes"]) for e in allocs if e["name"] == "MEMORY_ALLOCATION_ALLOCATE"}
        frees = [(e["args"]["address"], e["args"]["bytes"]) for e in allocs if e["name"] == "MEMORY_ALLOCATION_FREE"]
        check(made and all(f in made for f in frees), f"allocations traced, every free matches one ({len(made)}, {len(frees)})")
        by_id = {e["args"]["dispatch_id"]: e for e in kernels}
        check(len(kernel_rows) == expected_dispatches and len(by_id) == len(kernel_rows),
              f"kernel rows ({len(kernel_rows)}) = dispatches, unique dispatch ids")
        mismatched = []
        for r in kernel_rows:
            e = by_id.get(int(r["dispatch_id"]))
            grid = f'{r["grid_x"]}x{r["grid_y"]}x{r["grid_z"]}'
            wg = f'{r["workgroup_x"]}x{r["workgroup_y"]}x{r["workgroup_z"]}'
            if (e is None or e["args"]["grid"] != grid or e["args"]["workgroup"] != wg
                    or e["args"]["kernel_id"] != r["kernel_id"]
                    or abs(e["ts"] * 1000 - int(r["start_ns"])) > 1
                    or abs(e["dur"] * 1000 - int(r["duration_ns"])) > 1):
                mismatched.append(r["dispatch_id"])
        check(not mismatched, f"kernel rows match the JSON kernel events ({len(mismatched)} differ)")
        check(all(r["grid_x"] == "16384" and r["workgroup_x"] == "256" for r in kernel_rows),
              "kernel rows carry the program's grid (16384) and workgroup (256)")
        check(all(r["kernel_name"] == "vector_add" for r in kernel_rows), "kernel rows name the kernel (vector_add)")
        check(re.search(r"\d+\s+vector_add\s+total", proc.stderr) is not None, "the summary names the kernel")
        check("kernel dispatches" in proc.stderr and f"{expected_dispatches} kernel dispatches" in proc.stderr,
              "the summary counts the kernel dispatches")
    return finish()


def finish():
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
