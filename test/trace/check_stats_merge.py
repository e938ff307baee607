"""check_stats_merge.py — encore-trace's statistics, merge and convert on the software HSA runtime:
--stats/-S computed from the rocpd database (each value checked against SQL over the same
database's views), four processes traced one after another merged into one database that reads
through AMD's views as their sum, inputs a merge must refuse, and a merged database converted to
Perfetto (decoded by protoc) and CSV, whole and through a time window.

    check_stats_merge.py ENCORE_TRACE VECTOR_ADD VECTOR_ADD_KERNELS DYING_PROGRAM PERFETTO_PROTO
"""
import csv
import glob
import math
import os
import shutil
import sqlite3
import statistics
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


trace, vector_add, kernels, dying, proto = sys.argv[1:6]
root = tempfile.mkdtemp(prefix="encore-stats-merge-")


def run(args, expect_status=0, what=None):
    r = subprocess.run([trace, *args], capture_output=True, text=True, timeout=300)
    if r.returncode != expect_status:
        print(r.stderr[-3000:])
    expect(r.returncode == expect_status, f"{what or ' '.join(args)}: exit {r.returncode}, expected {expect_status}")
    return r


def query(db, sql, *params):
    with sqlite3.connect(db) as c:
        return c.execute(sql, params).fetchall()


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


STATS_COLUMNS = ["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage", "MinNs", "MaxNs", "StdDev"]


def check_stats(path, db, rows_sql, what):
    """A stats CSV against SQL over the database: calls, total, min, max, average, stddev, percentage."""
    if not os.path.exists(path):
        expect(False, f"{what}: {os.path.basename(path)} written")
        return
    header = open(path).readline().strip()
    expect(header == ",".join(f'"{c}"' for c in STATS_COLUMNS), f"{what}: rocprofv3's columns ({header})")
    rows = read_csv(path)
    durations = {}
    for name, d in query(db, rows_sql):
        durations.setdefault(name, []).append(d)
    expect(sorted(r["Name"] for r in rows) == sorted(durations), f"{what}: one row per name ({len(rows)} rows)")
    total = sum(sum(v) for v in durations.values())
    good = True
    for r in rows:
        d = durations.get(r["Name"], [])
        sd = statistics.stdev(d) if len(d) > 1 else 0.0
        ok = (int(r["Calls"]) == len(d) and int(r["TotalDurationNs"]) == sum(d) and int(r["MinNs"]) == min(d, default=0)
              and int(r["MaxNs"]) == max(d, default=0) and math.isclose(float(r["AverageNs"]), sum(d) / len(d), rel_tol=1e-6)
              and math.isclose(float(r["StdDev"]), sd, rel_tol=1e-6, abs_tol=1e-6)
              and math.isclose(float(r["Percentage"]), 100.0 * sum(d) / total, rel_tol=1e-2, abs_tol=1e-2))
        if not ok:
            print("  mismatch:", r, "SQL:", len(d), sum(d), min(d, default=0), max(d, default=0), sd)
        good = good and ok
    expect(good and rows, f"{what}: calls, total, min, max, average, stddev, percentage equal SQL over the views")
    totals = [int(r["TotalDurationNs"]) for r in rows]
    expect(totals == sorted(totals, reverse=True), f"{what}: largest total first")


# ---- --stats and -S on one run ---------------------------------------------------------------------
out = os.path.join(root, "one")
r = run(["--runtime-trace", "--quiet", "--stats", "-S", "-u", "usec", "-d", out, vector_add, kernels],
        what="--runtime-trace --stats -S -u usec hsa_vector_add")
dbs = glob.glob(os.path.join(out, "*_results.db"))
expect(len(dbs) == 1, f"one database ({dbs})")
if dbs:
    db = dbs[0]
    stem = db[: -len("_results.db")]
    check_stats(stem + "_kernel_stats.csv", db, "SELECT name, duration FROM kernels", "kernel_stats.csv")
    check_stats(stem + "_hsa_api_stats.csv", db, "SELECT name, duration FROM regions WHERE category LIKE 'HSA%'",
                "hsa_api_stats.csv")
    check_stats(stem + "_memory_allocation_stats.csv", db,
                "SELECT CASE type WHEN 'ALLOC' THEN 'MEMORY_ALLOCATION_ALLOCATE' ELSE 'MEMORY_ALLOCATION_FREE' END, "
                "duration FROM memory_allocations", "memory_allocation_stats.csv")
    domains = {row["Name"]: int(row["Calls"]) for row in read_csv(stem + "_domain_stats.csv")} \
        if os.path.exists(stem + "_domain_stats.csv") else {}
    n_kernels = query(db, "SELECT count(*) FROM kernels")[0][0]
    n_hsa = query(db, "SELECT count(*) FROM regions WHERE category LIKE 'HSA%'")[0][0]
    expect(domains.get("KERNEL_DISPATCH") == n_kernels and domains.get("HSA_API") == n_hsa,
           f"domain_stats.csv: a row per domain ({domains})")
    table = [line for line in r.stderr.splitlines() if line.strip().startswith("|")]
    expect(any("NAME" in t and "DURATION (usec)" in t and "STDDEV" in t for t in table)
           and any("vector_add" in t and "KERNEL_DISPATCH" in t for t in table)
           and any("hsa_queue_create" in t and "HSA_API" in t for t in table),
           f"-S: the summary table, in usec ({len(table)} lines)")

# -S without -d/-f and without rocpd among the formats: the database is written for the
# statistics and removed after.
out = os.path.join(root, "json-only")
r = run(["--hsa-trace", "--kernel-trace", "--quiet", "--stats", "-f", "json", "-d", out, vector_add, kernels],
        what="--stats -f json")
expect(not glob.glob(os.path.join(out, "*.db")) and glob.glob(os.path.join(out, "*_kernel_stats.csv"))
       and glob.glob(os.path.join(out, "*_trace.json")), f"--stats -f json: stats and json, no database ({os.listdir(out)})")
r = run(["-u", "weeks", vector_add, kernels], expect_status=2, what="-u weeks")
expect("sec, msec, usec or nsec" in r.stderr, f"-u weeks: said ({r.stderr.strip()})")

# ---- four processes, one after another, merged ---------------------------------------------------
multi = os.path.join(root, "ranks")
for rank in range(4):
    run(["--hsa-trace", "--kernel-trace", "--quiet", "-d", multi, "--", dying, kernels, "exit", str(rank + 1)],
        what=f"rank {rank}: dying_program exit {rank + 1}")
dbs = sorted(glob.glob(os.path.join(multi, "*_results.db")))
expect(len(dbs) == 4, f"4 processes: 4 databases ({len(dbs)})")
kernel_counts = [query(d, "SELECT count(*) FROM kernels")[0][0] for d in dbs]
region_counts = [query(d, "SELECT count(*) FROM regions")[0][0] for d in dbs]
expect(sorted(kernel_counts) == [1, 2, 3, 4], f"each process's kernels ({kernel_counts})")
merged = os.path.join(root, "merged.db")
run(["merge", "-o", merged, *dbs], what="merge -o merged.db (4 databases)")
if os.path.exists(merged):
    k = query(merged, "SELECT count(*) FROM kernels")[0][0]
    rg = query(merged, "SELECT count(*) FROM regions")[0][0]
    expect(k == sum(kernel_counts) and rg == sum(region_counts),
           f"merged: kernels and regions through the views are the sums ({k} = {sum(kernel_counts)}, "
           f"{rg} = {sum(region_counts)})")
    procs = query(merged, "SELECT count(DISTINCT guid), count(*) FROM processes")[0]
    expect(procs == (4, 4), f"merged: 4 processes ({procs})")
    tables = query(merged, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_region_%'")[0][0]
    expect(tables == 4, f"merged: each process's tables side by side ({tables} rocpd_region tables)")
    top = query(merged, "SELECT name, total_calls FROM top_kernels")
    expect(top == [("vector_add", 10)], f"merged: top_kernels over all processes ({top})")
    versions = {v for (v,) in query(merged, "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'")}
    expect(len(versions) == 1, f"merged: one schema version ({versions})")
    # Statistics of the merged database are those of all processes.
    r = run(["convert", "--stats", "-S", "-d", os.path.join(root, "merged-stats"), merged], what="convert --stats -S merged.db")
    check_stats(os.path.join(root, "merged-stats", "merged_kernel_stats.csv"), merged,
                "SELECT name, duration FROM kernels", "merged kernel_stats.csv")
    check_stats(os.path.join(root, "merged-stats", "merged_hsa_api_stats.csv"), merged,
                "SELECT name, duration FROM regions WHERE category LIKE 'HSA%'", "merged hsa_api_stats.csv")
    # A merged database merges again, with another.
    again = os.path.join(root, "again.db")
    run(["merge", "-o", again, merged, glob.glob(os.path.join(root, "one", "*_results.db"))[0]], what="merge of a merged db")
    if os.path.exists(again):
        k2 = query(again, "SELECT count(*) FROM kernels")[0][0]
        expect(k2 == sum(kernel_counts) + 1, f"merged again: {k2} kernels")

# ---- what a merge refuses ------------------------------------------------------------------------
if dbs:
    r = run(["merge", "-o", merged, dbs[0]], expect_status=1, what="merge onto an existing file")
    expect("--force" in r.stderr, f"an existing output: refused, --force named ({r.stderr.strip()})")
    run(["merge", "--force", "-o", merged, *dbs], what="merge --force")
    r = run(["merge", "-o", os.path.join(root, "twice.db"), dbs[0], dbs[0]], expect_status=1, what="one database twice")
    expect("merged once" in r.stderr and not os.path.exists(os.path.join(root, "twice.db")),
           f"a process twice: refused, nothing written ({r.stderr.strip()})")
    other = os.path.join(root, "other-version.db")
    shutil.copy(dbs[1], other)
    meta = query(other, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_metadata_%'")[0][0]
    with sqlite3.connect(other) as c:
        c.execute(f'UPDATE "{meta}" SET value = \'3.0.5\' WHERE tag = \'schema_version\'')
    mixed = os.path.join(root, "mixed.db")
    r = run(["merge", "-o", mixed, dbs[0], other], expect_status=1, what="a database of schema 3.0.5")
    expect("schema version 3.0.5" in r.stderr and not os.path.exists(mixed),
           f"another schema version: refused, nothing written ({r.stderr.strip()})")
bad = os.path.join(root, "not-a-db.db")
with open(bad, "w") as f:
    f.write("this is text\n" * 100)
empty = os.path.join(root, "empty.db")
open(empty, "w").close()
plain = os.path.join(root, "plain.db")
with sqlite3.connect(plain) as c:
    c.execute("CREATE TABLE t (x)")
for path, said in [(bad, "not a SQLite database"), (empty, "empty file"), (plain, "not a rocpd database"),
                   (os.path.join(root, "missing.db"), "No such file")]:
    r = run(["merge", "-o", os.path.join(root, "x.db"), path], expect_status=1, what=f"merge {os.path.basename(path)}")
    expect(said in r.stderr, f"merge {os.path.basename(path)}: '{said}' ({r.stderr.strip()})")
    r = run(["convert", "-f", "csv", "-d", root, path], expect_status=1, what=f"convert {os.path.basename(path)}")
    expect(said in r.stderr, f"convert {os.path.basename(path)}: '{said}' ({r.stderr.strip()})")

# ---- convert a merged database ---------------------------------------------------------------------
if os.path.exists(merged):
    conv = os.path.join(root, "converted")
    run(["convert", "-f", "pftrace,csv,json", "-d", conv, merged], what="convert -f pftrace,csv,json merged.db")
    pftrace = os.path.join(conv, "merged_results.pftrace")
    protoc = shutil.which("protoc")
    if protoc and os.path.exists(pftrace):
        with open(pftrace, "rb") as f:
            d = subprocess.run([protoc, "-I" + os.path.dirname(proto), "--decode=perfetto.protos.Trace", proto], stdin=f,
                               capture_output=True, timeout=300)
        text = d.stdout.decode("utf-8", "replace")
        expect(d.returncode == 0, f"protoc decodes the merged pftrace ({d.stderr[-300:]})")
        pids = sorted(int(line.split(":")[1]) for line in text.splitlines() if line.strip().startswith("pid:"))
        want = sorted(p for (p,) in query(merged, "SELECT pid FROM processes"))
        expect(sorted(set(pids)) == want, f"pftrace: a process track per process ({sorted(set(pids))} = {want})")
        begins = text.count("type: TYPE_SLICE_BEGIN")
        expect(begins >= sum(kernel_counts) + sum(region_counts),
               f"pftrace: a slice per kernel and region ({begins} >= {sum(kernel_counts) + sum(region_counts)})")
    else:
        expect(os.path.exists(pftrace), "pftrace written (protoc not installed: not decoded)")
    rows = read_csv(os.path.join(conv, "merged_kernel_trace.csv")) if os.path.exists(
        os.path.join(conv, "merged_kernel_trace.csv")) else []
    expect(len(rows) == sum(kernel_counts) and all(r["Kernel_Name"] == "vector_add" for r in rows),
           f"kernel_trace.csv: every process's kernels ({len(rows)})")
    api = read_csv(os.path.join(conv, "merged_hsa_api_trace.csv")) if os.path.exists(
        os.path.join(conv, "merged_hsa_api_trace.csv")) else []
    expect(len(api) == sum(region_counts) and len({r["Process_Id"] for r in api}) == 4,
           f"hsa_api_trace.csv: every process's calls ({len(api)})")
    # A time window: the start of the second process's first kernel keeps what overlaps it only.
    t = query(merged, "SELECT start FROM kernels ORDER BY start LIMIT 1 OFFSET 1")[0][0]
    win = os.path.join(root, "window")
    run(["convert", "-f", "csv", "--start", str(t), "--end", str(t + 1000), "-d", win, merged], what="convert --start/--end")
    rows = read_csv(os.path.join(win, "merged_kernel_trace.csv")) if os.path.exists(
        os.path.join(win, "merged_kernel_trace.csv")) else []
    want_k = query(merged, "SELECT count(*) FROM kernels WHERE start <= ? AND \"end\" >= ?", t + 1000, t)[0][0]
    expect(len(rows) == want_k and rows and all(int(r["Start_Timestamp"]) <= t + 1000 and int(r["End_Timestamp"]) >= t
                                                for r in rows), f"window: the kernels that overlap it ({len(rows)} = {want_k})")
    api = read_csv(os.path.join(win, "merged_hsa_api_trace.csv")) if os.path.exists(
        os.path.join(win, "merged_hsa_api_trace.csv")) else []
    want_r = query(merged, "SELECT count(*) FROM regions WHERE start <= ? AND \"end\" >= ?", t + 1000, t)[0][0]
    expect(len(api) == want_r and len(api) < sum(region_counts),
           f"window: the calls that overlap it ({len(api)} = {want_r} of {sum(region_counts)})")
    r = run(["convert", "-f", "csv", "--start", "2", "--end", "1", "-d", win, merged], expect_status=2, what="--end before --start")

print(f"{failed} failed")
if failed == 0:
    shutil.rmtree(root, ignore_errors=True)
sys.exit(1 if failed else 0)
