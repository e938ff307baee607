"""check_record_path.py — encore-trace's record path end to end on the software HSA runtime:
the outputs (rocpd read through the views AMD's tools read, JSON, CSV), what is kept when the
program dies (SIGKILL after 100,000 calls, _exit, abort, a crash), forks and a second program
started through system(), arguments formatted at the call (--args-depth) for a call that frees
what it is passed.

    check_record_path.py ENCORE_TRACE VECTOR_ADD VECTOR_ADD_KERNELS DYING_PROGRAM [sanitized|plain]
"""
import csv
import glob
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

failed = 0


def expect(ok, what):
    global failed
    if not ok:
        failed += 1
        print("FAILED:", what)
    else:
        print("ok:", what)


trace, vector_add, kernels, dying = sys.argv[1:5]
# Under a sanitizer a SIGSEGV is the sanitizer's report and its exit status (ASan with
# abort_on_error: 134; TSan: 66): any failure status is the program dying there.
sanitized = len(sys.argv) > 5 and sys.argv[5] == "sanitized"


def run(options, program, *args, expect_status=0):
    out = tempfile.mkdtemp(prefix="encore-record-path-")
    r = subprocess.run([trace, *options, "-d", out, "--", program, *args], capture_output=True, text=True,
                       timeout=300)
    print(r.stderr[-1500:])
    ok = r.returncode != 0 if expect_status is None else r.returncode == expect_status
    expect(ok, f"{' '.join(options)} {os.path.basename(program)} {' '.join(args)}: "
           f"exit {r.returncode}, expected {'non-zero' if expect_status is None else expect_status}")
    return out, r


def databases(out):
    return sorted(glob.glob(os.path.join(out, "*_results.db")))


def query(db, sql):
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


# ---- the outputs of one run ------------------------------------------------------------------
out, r = run(["--runtime-trace", "-f", "rocpd,json,csv"], vector_add, kernels)
dbs = databases(out)
expect(len(dbs) == 1, f"one database per process ({dbs})")
if dbs:
    db = dbs[0]
    rows = query(db, "SELECT name, grid_x, workgroup_x, duration FROM kernels")
    expect(len(rows) == 1 and rows[0][0] == "vector_add" and rows[0][1] == 1048576 and rows[0][2] == 256
           and rows[0][3] > 0, f"kernels: vector_add, grid 1048576, workgroup 256, timed ({rows})")
    cats = dict((c, n) for n, c in query(db, "SELECT count(*), category FROM regions GROUP BY category"))
    expect(cats.get("HSA_CORE_API", 0) > 10 and cats.get("HSA_AMD_EXT_API", 0) > 0,
           f"regions: HSA core and AMD calls ({cats})")
    args = query(db, "SELECT type, name, value FROM region_args WHERE "
                     "id IN (SELECT id FROM regions WHERE name = 'hsa_queue_create')")
    names = [a[1] for a in args]
    expect(names[:3] == ["agent", "size", "type"] and len(names) == 8 and args[0][0] == "hsa_agent_t"
           and args[0][2].startswith("handle=0x") and args[1][2] == "256" and args[6][2] == "4294967295",
           f"region_args: hsa_queue_create's 8 arguments, typed ({args})")
    symbol = query(db, "SELECT value FROM region_args WHERE name = 'symbol_name'")
    expect(symbol == [('"vector_add.kd"',)], f"a string argument copied at the call ({symbol})")
    top = query(db, "SELECT name, total_calls FROM top_kernels")
    expect(top == [("vector_add", 1)], f"top_kernels ({top})")
    allocs = query(db, "SELECT type, count(*) FROM memory_allocations GROUP BY type ORDER BY type")
    expect(allocs == [("ALLOC", 4), ("FREE", 4)], f"memory_allocations: 4 ALLOC, 4 FREE ({allocs})")
    procs = query(db, "SELECT pid, command FROM processes")
    expect(len(procs) == 1 and "hsa_vector_add" in procs[0][1], f"processes ({procs})")
    threads = query(db, "SELECT count(*) FROM threads")
    expect(threads[0][0] >= 1, f"threads ({threads})")
    version = query(db, "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'")
    expect(version and version[0][0].startswith("3."), f"schema version 3.x ({version})")
jsons = glob.glob(os.path.join(out, "*_trace.json"))
expect(len(jsons) == 1, "one trace.json")
if jsons:
    events = json.load(open(jsons[0]))
    names = {(e.get("cat"), e.get("name")) for e in events if e.get("ph") == "X"}
    expect(("KERNEL_DISPATCH", "vector_add") in names and ("HSA_CORE_API", "hsa_queue_create") in names,
           "trace.json: the dispatch and the calls")
kernel_csv = glob.glob(os.path.join(out, "*_kernel_trace.csv"))
if kernel_csv:
    rows = list(csv.DictReader(open(kernel_csv[0])))
    expect(len(rows) == 1 and rows[0]["Kernel_Name"] == "vector_add", f"kernel_trace.csv ({rows})")
else:
    expect(False, "kernel_trace.csv written")
api_csv = glob.glob(os.path.join(out, "*_hsa_api_trace.csv"))
expect(len(api_csv) == 1 and sum(1 for _ in open(api_csv[0])) > 10 if api_csv else False, "hsa_api_trace.csv")
expect("hsa_queue_create(agent=handle=0x" in r.stderr, "every call printed after the run, with its arguments")

# ---- what a dying program leaves ---------------------------------------------------------------
out, r = run(["--hsa-trace", "--kernel-trace", "--quiet"], dying, kernels, "calls-sigkill", "100",
             expect_status=137)
dbs = databases(out)
calls = query(dbs[0], "SELECT count(*) FROM regions WHERE name = 'hsa_system_get_info'")[0][0] if dbs else 0
expect(calls == 100000, f"SIGKILL after 100,000 calls: all 100,000 in the database ({calls})")
kernels_n = query(dbs[0], "SELECT count(*) FROM kernels")[0][0] if dbs else 0
expect(kernels_n == 100, f"SIGKILL: the 100 dispatches before it ({kernels_n})")

for how, status in (("_exit", 3), ("abort", 134), ("segv", None if sanitized else 139)):
    out, r = run(["--hsa-trace", "--kernel-trace", "--quiet"], dying, kernels, how, "3", expect_status=status)
    dbs = databases(out)
    n = query(dbs[0], "SELECT count(*) FROM kernels")[0][0] if dbs else 0
    created = query(dbs[0], "SELECT count(*) FROM regions WHERE name = 'hsa_queue_create'")[0][0] if dbs else 0
    expect(n == 3 and created == 1, f"{how}: the 3 dispatches and the calls before it ({n}, {created})")

# ---- more than one process -----------------------------------------------------------------------
out, r = run(["--hsa-trace", "--quiet"], dying, kernels, "fork", "2")
dbs = databases(out)
expect(len(dbs) == 2, f"fork: a database for the parent and one for the child ({dbs})")
counts = sorted(query(d, "SELECT count(*) FROM regions WHERE name = 'hsa_system_get_info'")[0][0] for d in dbs)
expect(counts and counts[-1] == 1000, f"fork: the child's 1000 calls in its own database ({counts})")
pids = sorted(query(d, "SELECT pid, ppid FROM processes")[0] for d in dbs)
expect(len(pids) == 2 and pids[0][0] != pids[1][0], f"fork: two processes ({pids})")

out, r = run(["--hsa-trace", "--kernel-trace", "--quiet"], dying, kernels, "system", "2")
dbs = databases(out)
kernel_counts = sorted(query(d, "SELECT count(*) FROM kernels")[0][0] for d in dbs)
expect(kernel_counts == [1, 2], f"system(): the program and the one it started, each whole ({kernel_counts})")

# ---- --args-depth: a call that frees its argument is formatted before it does ------------------
out, r = run(["--hsa-trace", "--args-depth", "2", "-f", "rocpd"], vector_add, kernels)
dbs = databases(out)
queue = query(dbs[0], "SELECT value FROM region_args WHERE name = 'queue' AND "
                      "id IN (SELECT id FROM regions WHERE name = 'hsa_queue_destroy')") if dbs else []
# At EXIT the queue is freed: what it pointed at is gone (the old tool printed garbage there).
expect(len(queue) == 1 and queue[0][0].startswith("{type=1, features=1, base_address=0x") and "size=256" in queue[0][0],
       f"hsa_queue_destroy's queue read at ENTER ({queue})")

# ---- bad input ---------------------------------------------------------------------------------
r = subprocess.run([trace, "-d", tempfile.mkdtemp(), "./no-such-program"], capture_output=True, text=True)
expect(r.returncode == 127 and "encore-trace: ./no-such-program: not found" in r.stderr,
       f"a missing program: said, exit 127 ({r.returncode}: {r.stderr.strip()})")
with tempfile.NamedTemporaryFile() as f:
    r = subprocess.run([trace, "-d", f.name, vector_add, kernels], capture_output=True, text=True)
    expect(r.returncode == 2 and "is not a directory" in r.stderr, f"-d naming a file ({r.stderr.strip()})")
r = subprocess.run([trace, "-f", "xml", vector_add, kernels], capture_output=True, text=True)
expect(r.returncode == 2 and "unknown output format 'xml'" in r.stderr, f"-f xml ({r.stderr.strip()})")

print(f"{failed} failed")
sys.exit(1 if failed else 0)
