#!/usr/bin/env python3
"""encore-trace's CUDA front end on the fake driver (test/cuda/frontend_program.cpp).

usage: check_frontend.py ENCORE_TRACE PROGRAM

Runs PROGRAM under encore-trace (ENCORE_CUDA_DRIVER names the fake driver) and checks what a
user reads: the summary, trace.json (loads as JSON; the calls, dispatches, copies, allocations
and NVTX ranges in it), the four CSV files, and that the program's result is unchanged. Then the
backend choice: detected from the program, --backend cuda with --hsa-trace refused, no NVTX
records without --marker-trace."""
import csv
import json
import os
import sys
import tempfile

from frontend_checks import check, failures, run

ADD = "vector_add(float*, float const*, float const*, int)"


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main():
    trace, program = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as out:
        rc, stdout, stderr = run([trace, "--backend", "cuda", "--marker-trace", "--quiet", "-o", out, program])
        sys.stderr.write(stderr)
        check(rc == 0 and "frontend_program: ok" in stdout, f"the traced program's result (rc={rc}): {stdout!r}", stderr)
        # The summary: calls, kernels by their demangled names, copies, allocations.
        check("5 kernel dispatches, 2 distinct kernels" in stderr, "summary: 5 dispatches of 2 kernels")
        check(any(ADD in l and l.split()[1] == "3" for l in stderr.splitlines()), "summary: vector_add x3, demangled")
        check(any(l.split()[1:3] == ["2", "scale"] for l in stderr.splitlines() if len(l.split()) > 2), "summary: scale x2")
        check("kernel 0x" not in stderr and "  kernel " not in stderr, "summary: no kernel without a name")
        check("3 memory copies" in stderr, "summary: 3 memory copies")
        check("6 memory allocations and frees" in stderr, "summary: 3 allocations + 3 frees")
        check(any("cuLaunchKernel" in l and l.split()[1] == "5" for l in stderr.splitlines()), "summary: cuLaunchKernel x5")

        with open(os.path.join(out, "trace.json"), encoding="utf-8") as f:
            events = json.load(f)  # the file is whole JSON after exit
        by_cat = {}
        for e in events:
            by_cat.setdefault(e.get("cat"), []).append(e)
        calls = by_cat.get("CUDA_DRIVER_API", [])
        launches = [e for e in calls if e["name"] == "cuLaunchKernel"]
        check(len(launches) == 5 and all(e["args"].get("return") == "0" for e in launches),
              "trace.json: 5 cuLaunchKernel calls, each returning 0")
        check(all("f" in e["args"] and "gridDimX" in e["args"] for e in launches), "trace.json: launch arguments by name")
        dispatches = by_cat.get("KERNEL_DISPATCH", [])
        check(sorted(e["name"] for e in dispatches) == sorted([ADD] * 3 + ["scale"] * 2),
              f"trace.json: dispatches named {sorted(e['name'] for e in dispatches)}")
        launch_corr = sorted(e["args"]["correlation_id"] for e in launches)
        check(sorted(e["args"]["correlation_id"] for e in dispatches) == launch_corr,
              "trace.json: each dispatch correlates with its cuLaunchKernel")
        check(all(e["dur"] is not None and float(e["ts"]) > 0 for e in dispatches), "trace.json: dispatches timed")
        gpu_names = [e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"]
        check("CUDA device 0" in gpu_names, f"trace.json: the GPU track is named for its device ({gpu_names})")
        copies = by_cat.get("MEMORY_COPY", [])
        check(sorted((e["name"], e["args"]["bytes"]) for e in copies) ==
              sorted([("MEMORY_COPY_HOST_TO_DEVICE", 4096)] * 2 + [("MEMORY_COPY_DEVICE_TO_HOST", 4096)]),
              f"trace.json: copies {[(e['name'], e['args']['bytes']) for e in copies]}")
        allocs = by_cat.get("MEMORY_ALLOCATION", [])
        made = {e["args"]["address"]: e["args"]["bytes"] for e in allocs if e["name"] == "MEMORY_ALLOCATION_ALLOCATE"}
        freed = {e["args"]["address"]: e["args"]["bytes"] for e in allocs if e["name"] == "MEMORY_ALLOCATION_FREE"}
        check(len(made) == 3 and made == freed, f"trace.json: every free matches its allocation ({made} / {freed})")
        # (String arguments print quoted, as on HSA.)
        # A range is a slice named by its message, with the call that opened it.
        ranges = sorted(e["name"] for e in by_cat.get("MARKER_CORE_API", [])
                        if e["args"].get("range") in ("roctxRangePushA", "roctxRangeStartA"))
        want = ["setup", "epoch", "step", "step", "step", "registered range", "wide \u00fc"]
        check(ranges == sorted(want), f"trace.json: NVTX ranges {ranges}")
        marks = sorted(e["args"].get("message") for e in by_cat.get("MARKER_CORE_API", []) if e["name"] == "roctxMarkA")
        check(marks == sorted(['"launched"'] * 3 + ['"copied back"'] * 2), f"trace.json: NVTX marks {marks}")

        api = rows(os.path.join(out, "api_trace.csv"))
        check(sum(r["operation"] == "cuLaunchKernel" for r in api) == 5, "api_trace.csv: 5 cuLaunchKernel rows")
        kernels = rows(os.path.join(out, "kernel_trace.csv"))
        check(sorted(r["kernel_name"] for r in kernels) == sorted([ADD] * 3 + ["scale"] * 2),
              "kernel_trace.csv: 5 rows, named")
        check(all(int(r["end_ns"]) >= int(r["start_ns"]) > 0 for r in kernels), "kernel_trace.csv: GPU times")
        copy_rows = rows(os.path.join(out, "memory_copy_trace.csv"))
        check(sum(int(r["bytes"]) for r in copy_rows) == 3 * 4096, "memory_copy_trace.csv: bytes")
        alloc_rows = rows(os.path.join(out, "memory_allocation_trace.csv"))
        check(len(alloc_rows) == 6, "memory_allocation_trace.csv: 6 rows")

    # The record path (docs/trace.md): the same program, --runtime-trace, a rocpd database read
    # through AMD's views, and the JSON trace.
    with tempfile.TemporaryDirectory() as out:
        rc, stdout, stderr = run([trace, "--backend", "cuda", "--runtime-trace", "--quiet", "-d", out,
                                  "-f", "rocpd,json", program])
        sys.stderr.write(stderr[-2000:])
        check(rc == 0 and "frontend_program: ok" in stdout, f"record path: the program's result (rc={rc})", stderr)
        dbs = [os.path.join(out, f) for f in os.listdir(out) if f.endswith("_results.db")]
        check(len(dbs) == 1, f"record path: one database ({os.listdir(out)})")
        if dbs:
            import sqlite3
            with sqlite3.connect(dbs[0]) as db:
                q = lambda sql: db.execute(sql).fetchall()
                names = sorted(n for (n,) in q("SELECT name FROM kernels"))
                check(names == sorted([ADD] * 3 + ["scale"] * 2), f"record path: kernels named ({names})")
                check(q("SELECT count(*) FROM kernels WHERE duration > 0 AND agent_type = 'GPU'") == [(5,)],
                      "record path: kernels timed, on a GPU agent")
                launches = q("SELECT count(*) FROM regions WHERE category = 'CUDA_DRIVER_API' AND name = 'cuLaunchKernel'")
                check(launches == [(5,)], f"record path: 5 cuLaunchKernel regions ({launches})")
                # Arguments by name (the converter loads libencore-cuda's declarations).
                args = q("SELECT name, value FROM region_args WHERE id IN (SELECT id FROM regions "
                         "WHERE name = 'cuMemAlloc_v2') ORDER BY id")
                check(("bytesize", "4096") in args and any(n == "dptr" for n, _ in args),
                      f"record path: cuMemAlloc_v2's arguments by name ({args[:4]})")
                corr = q("SELECT count(*) FROM kernels k JOIN regions r ON r.stack_id = k.stack_id "
                         "WHERE r.name = 'cuLaunchKernel'")
                check(corr == [(5,)], f"record path: each kernel correlates with its launch ({corr})")
                copies = sorted(q("SELECT name, size FROM memory_copies"))
                check(copies == sorted([("MEMORY_COPY_HOST_TO_DEVICE", 4096)] * 2 + [("MEMORY_COPY_DEVICE_TO_HOST", 4096)]),
                      f"record path: memory copies ({copies})")
                allocs = q("SELECT type, count(*) FROM memory_allocations GROUP BY type ORDER BY type")
                check(allocs == [("ALLOC", 3), ("FREE", 3)], f"record path: allocations ({allocs})")
                ranges = sorted(m for (m,) in q("SELECT json_extract(extdata, '$.message') FROM regions "
                                                "WHERE category = 'MARKER_CORE_RANGE_API'"))
                want = ["setup", "epoch", "step", "step", "step", "registered range", "wide \u00fc"]
                check(ranges == sorted(want), f"record path: NVTX ranges with their messages ({ranges})")
        jsons = [f for f in os.listdir(out) if f.endswith("_trace.json")]
        check(len(jsons) == 1, "record path: trace.json")
        if jsons:
            with open(os.path.join(out, jsons[0]), encoding="utf-8") as f:
                events = json.load(f)
            dispatches = [e for e in events if e.get("cat") == "KERNEL_DISPATCH"]
            check(len(dispatches) == 5, f"record path: 5 dispatches in trace.json ({len(dispatches)})")
            # UTF-8 text stays UTF-8 (not each byte as a Latin-1 character).
            ranges = sorted(e["name"] for e in events if e.get("cat") == "MARKER_CORE_API" and e.get("ph") == "X"
                            and not e["name"].startswith("roctx"))
            check("wide \u00fc" in ranges, f"record path: NVTX ranges in trace.json, UTF-8 kept ({ranges})")

    # --selected-regions: only what the program ran between cuProfilerStart and cuProfilerStop
    # (the two scale launches), the kernels named all the same; the profiler calls still reach
    # the driver (the program checks). With the CUDA driver API traced, the Stop is the region's
    # last call, seen as roctx's Pause when markers are traced.
    with tempfile.TemporaryDirectory() as out:
        rc, stdout, stderr = run([trace, "--backend", "cuda", "--cuda-trace", "--kernel-trace", "--marker-trace",
                                  "--selected-regions", "--quiet", "-d", out, "-f", "json", program])
        check(rc == 0 and "frontend_program: ok" in stdout, f"--selected-regions: the program's result (rc={rc})",
              stdout + stderr)
        # (The converter loads libencore-cuda for its declarations: no warning about roctx there.)
        check("no roctx in the process" not in stderr, "--selected-regions: no warning about roctx", stderr)
        jsons = [f for f in os.listdir(out) if f.endswith("_trace.json")]
        events = json.load(open(os.path.join(out, jsons[0]), encoding="utf-8")) if len(jsons) == 1 else []
        dispatches = sorted(e["name"] for e in events if e.get("cat") == "KERNEL_DISPATCH")
        check(dispatches == ["scale", "scale"], f"--selected-regions: the two dispatches in the region ({dispatches})")
        calls = sorted(e["name"] for e in events if e.get("cat") == "CUDA_DRIVER_API" and e.get("ph") == "X")
        check(calls == ["cuLaunchKernel", "cuLaunchKernel"], f"--selected-regions: the region's driver calls ({calls})")
        control = sorted(e["name"] for e in events if e.get("cat") == "MARKER_CONTROL_API" and e.get("ph") == "X")
        check(control == ["roctxProfilerPause"], f"--selected-regions: cuProfilerStop as the Pause ending it ({control})")
    # Asked for without encore-trace, with no roctx in the process: said once, calls forwarded.
    rc, stdout, stderr = run([program], {"ENCORE_CUDA_PROFILER_CONTROL": "roctx"})
    check(rc == 0 and "frontend_program: ok" in stdout and stderr.count("no roctx in the process") == 1,
          f"ENCORE_CUDA_PROFILER_CONTROL=roctx without roctx: warned once, the program unchanged (rc={rc})", stderr)
    rc, stdout, stderr = run([program], {"ENCORE_CUDA_PROFILER_CONTROL": "nsys"})
    check(rc == 0 and "frontend_program: ok" in stdout and "ENCORE_CUDA_PROFILER_CONTROL=nsys: unknown" in stderr,
          f"ENCORE_CUDA_PROFILER_CONTROL=nsys: warned, the program unchanged (rc={rc})", stderr)

    # The backend from the program (it links libcuda.so.1); no NVTX library without --marker-trace.
    rc, stdout, stderr = run([trace, "--quiet", program])
    check(rc == 0 and "frontend_program: ok" in stdout, f"detected backend: the program runs (rc={rc})", stderr)
    check(any("cuLaunchKernel" in l and l.split()[1] == "5" for l in stderr.splitlines()),
          "detected backend: the CUDA driver API is traced")
    check("roctx" not in stderr, "no --marker-trace: no marker records")
    rc, _, stderr = run([trace, "--backend", "cuda", "--hsa-trace", program])
    check(rc == 2 and "need --backend hsa" in stderr, "--hsa-trace with --backend cuda is refused")
    rc, _, stderr = run([trace, "--backend", "rocm", program])
    check(rc == 2 and "--backend takes hsa or cuda" in stderr, "an unknown backend is refused")
    # Traced printing: one line per call with arguments and return value.
    rc, _, stderr = run([trace, "--cuda-trace", program])
    check(any("cuMemAlloc_v2(dptr=" in l and "bytesize=4096" in l and l.endswith("-> 0") for l in stderr.splitlines()),
          "--cuda-trace prints each call with its arguments and result")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all front-end checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
