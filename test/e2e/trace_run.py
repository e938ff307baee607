"""trace_run.py — what the encore-trace -o checks share (check_hip_trace.py,
test/libs/check_rccl_trace.py): run a program bare and under encore-trace with some options,
then read the trace.json events and api_trace.csv rows it wrote; count failed checks.

    from trace_run import expect, traced_run, finish
    with traced_run(encore_trace, ["--hip-trace"], program) as t:
        expect(("HIP_RUNTIME_API", "hipMalloc") in t.names, "hipMalloc in trace.json")
    sys.exit(finish())
"""
import contextlib
import csv
import json
import os
import subprocess
import tempfile
import types

failed = 0


def expect(ok, what):
    global failed
    if not ok:
        failed += 1
        print("FAILED:", what)


@contextlib.contextmanager
def traced_run(trace, options, program):
    """Runs `program` bare and under `trace OPTIONS -o DIR`; checks the traced run exits 0 and
    prints what the bare one does. Yields its stderr, the trace.json events of complete calls
    (`calls`, `names` as (kind, name)) and the api_trace.csv rows."""
    with tempfile.TemporaryDirectory() as out:
        bare = subprocess.run([program], capture_output=True, text=True)
        r = subprocess.run([trace, *options, "-o", out, program], capture_output=True, text=True)
        print(r.stderr[-3000:])
        expect(r.returncode == 0, "traced run exits 0")
        expect(r.stdout == bare.stdout, "the program prints the same with and without tracing")
        events = json.load(open(os.path.join(out, "trace.json")))  # the trace-event array format
        calls = [e for e in events if e.get("ph") == "X"]
        yield types.SimpleNamespace(stderr=r.stderr, calls=calls, names=[(e["cat"], e["name"]) for e in calls],
                                    rows=list(csv.DictReader(open(os.path.join(out, "api_trace.csv")))))


def finish():
    print("ok" if failed == 0 else "%d failed" % failed)
    return 1 if failed else 0
