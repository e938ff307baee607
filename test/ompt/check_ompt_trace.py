#!/usr/bin/env python3
"""test/ompt/check_ompt_trace.py — encore-trace --ompt-trace on an OpenMP program.

  check_ompt_trace.py ENCORE_TRACE PROGRAM [--own-tool]

The program prints what it printed without encore-trace; the summary on stderr and
api_trace.csv (-o) list the OpenMP callbacks it made (parallel regions, implicit tasks,
worksharing), by the reference's operation names. --own-tool: the program defines its own
ompt_start_tool, which the OpenMP runtime starts instead of encore's: it still runs as alone, and
encore-trace says why nothing was traced, naming the program."""
import csv
import os
import subprocess
import sys
import tempfile


def main():
    encore_trace, program = sys.argv[1:3]
    bare = subprocess.run([program], capture_output=True, text=True, timeout=120)
    if bare.returncode != 0:
        sys.exit(f"bare run failed: {bare.stderr}")
    with tempfile.TemporaryDirectory() as out:
        traced = subprocess.run([encore_trace, "--ompt-trace", "--quiet", "-o", out, "--", program],
                                capture_output=True, text=True, timeout=120)
        if traced.returncode != 0:
            sys.exit(f"traced run failed ({traced.returncode}): {traced.stderr}")
        with open(os.path.join(out, "api_trace.csv")) as f:
            rows = list(csv.reader(f))
    failures = []
    if traced.stdout != bare.stdout:
        failures.append(f"output changed: {bare.stdout!r} vs {traced.stdout!r}")
    if sys.argv[3:] == ["--own-tool"]:
        said = [l for l in traced.stderr.splitlines() if "defines its own ompt_start_tool" in l]
        if not (said and os.path.basename(program) in said[0]):
            failures.append(f"no message naming {os.path.basename(program)} as the tool libomp started: "
                            f"{traced.stderr[-1500:]}")
        if len(rows) > 1:
            failures.append(f"{len(rows) - 1} OMPT rows, though encore was never started")
        if failures:
            print("\n".join(failures), file=sys.stderr)
            sys.exit(1)
        print("ok")
        return
    names = {cell for row in rows for cell in row}
    for op in ("omp_parallel_begin", "omp_parallel_end", "omp_implicit_task", "omp_work", "omp_sync_region"):
        if op not in traced.stderr:
            failures.append(f"{op} not in the summary")
        if op not in names:
            failures.append(f"{op} not in api_trace.csv")
    if not any(" API calls (" in l and "OMPT" in l for l in traced.stderr.splitlines()):
        failures.append("the summary does not name the OMPT kind")
    if failures:
        print(traced.stderr, file=sys.stderr)
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
