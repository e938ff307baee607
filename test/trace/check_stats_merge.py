"""check_stats_merge.py — encore-trace's statistics, merge and convert on the software HSA runtime:
--stats/-S computed from the rocpd database (each value checked against SQL over the same
database's views), four processes traced one after another merged into one database that reads
through AMD's views as their sum, inputs a merge must refuse, and a merged database converted to
Perfetto (decoded by protoc) and CSV, whole and through a time window; an MPI-style job of 4
ranks that fork 2 workers each (12 databases named by rank and pid) merged into one that reads as
their sum, and converted as 12 inputs into one output; the summaries -D, --summary-groups and
--summary-output-file checked against SQL; convert's marker window (--start-marker/--end-marker); a
kernel filter that leaves dispatches out of the record files.

    check_stats_merge.py ENCORE_TRACE VECTOR_ADD VECTOR_ADD_KERNELS DYING_PROGRAM PERFETTO_PROTO
                         RANK_WORKERS RANGE_PHASES RANGE_KERNELS
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


trace, vector_add, kernels, dying, proto, rank_workers, range_phases, range_kernels = sys.argv[1:9]
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

# ---- -D, --summary-groups, --summary-output-file: rocprofv3's summaries -------------------------
def decode_pftrace(path):
    """protoc's text of a Perfetto trace: (exit status, stderr, text, the pids of its process
    tracks in order); None when protoc is not installed or the trace was not written."""
    protoc = shutil.which("protoc")
    if not protoc or not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        d = subprocess.run([protoc, "-I" + os.path.dirname(proto), "--decode=perfetto.protos.Trace", proto], stdin=f,
                           capture_output=True, timeout=300)
    text = d.stdout.decode("utf-8", "replace")
    pids = [int(line.split(":")[1]) for line in text.splitlines() if line.strip().startswith("pid:")]
    return d.returncode, d.stderr, text, pids


def tables_of(text):
    """The printed summary tables: title -> [(name, domain, calls, total, percent, min, max)] (a
    title printed twice: its last table)."""
    out, title = {}, None
    for line in text.splitlines():
        t = line.strip()
        if t.endswith("):") and "SUMMARY" in t:
            title = t[: t.index(" (")]
            out[title] = []
        elif t.startswith("|") and title is not None and "NAME" not in t and not t.startswith("|-"):
            c = [x.strip() for x in t.strip("|").split("|")]
            out[title].append((c[0], c[1], int(c[2]), int(c[3]), float(c[5]), int(c[6]), int(c[7])))
    return out


DOMAIN_SQL = {"HSA_API": "SELECT name, duration FROM regions WHERE category LIKE 'HSA%'",
              "KERNEL_DISPATCH": "SELECT name, duration FROM kernels"}


def check_table(rows, db, domains, what):
    """A printed table against SQL over the database: its rows are the named domains' operations,
    each with its calls, total, min, max, and percent of the table's own total."""
    want = {}
    for d in domains:
        for name, x in query(db, DOMAIN_SQL[d]):
            want.setdefault((name, d), []).append(x)
    total = sum(sum(v) for v in want.values())
    got = {(r[0], r[1]): r for r in rows}
    ok = sorted(got) == sorted(want) and all(
        got[k][2:4] == (len(v), sum(v)) and got[k][5:7] == (min(v), max(v))
        and abs(got[k][4] - 100.0 * sum(v) / total) < 1e-3 for k, v in want.items())
    if not ok:
        print("  printed:", rows, "\n  SQL:", {k: (len(v), sum(v)) for k, v in want.items()})
    expect(ok and rows, f"{what}: calls, total, min, max, percent of the table equal SQL over {'+'.join(domains)}")


out = os.path.join(root, "summaries")
r = run(["--hsa-trace", "--kernel-trace", "--quiet", "-D", "--summary-groups", "KERNEL.*", "HSA_API|KERNEL_DISPATCH",
         "NO_SUCH_DOMAIN", "-d", out, "--", vector_add, kernels], what="-D --summary-groups (3 expressions)")
dbs = glob.glob(os.path.join(out, "*_results.db"))
tables = tables_of(r.stderr)
titles = [line.strip()[: line.strip().index(" (")] for line in r.stderr.splitlines() if line.strip().endswith("):")]
expect(titles == ["HSA_API SUMMARY", "KERNEL_DISPATCH SUMMARY", "KERNEL_DISPATCH SUMMARY",
                  "HSA_API + KERNEL_DISPATCH SUMMARY"], f"-D's 2 tables, then a table per matching group ({titles})")
expect("summary group 'NO_SUCH_DOMAIN' matched no domain" in r.stderr, "a group that matches nothing: said")
if dbs:
    check_table(tables.get("HSA_API SUMMARY", []), dbs[0], ["HSA_API"], "-D HSA_API")
    check_table(tables.get("KERNEL_DISPATCH SUMMARY", []), dbs[0], ["KERNEL_DISPATCH"], "-D KERNEL_DISPATCH")
    check_table(tables.get("HSA_API + KERNEL_DISPATCH SUMMARY", []), dbs[0], ["HSA_API", "KERNEL_DISPATCH"],
                "--summary-groups 'HSA_API|KERNEL_DISPATCH'")
    # To a file, next to the outputs, not indented; to stdout.
    r = run(["convert", "-D", "-S", "--summary-output-file", "summary", "-d", out, dbs[0]],
            what="convert -D -S --summary-output-file summary")
    txt = os.path.join(out, os.path.basename(dbs[0])[: -len("_results.db")] + "_summary.txt")
    text = open(txt).read() if os.path.exists(txt) else ""
    ft = tables_of(text)
    expect(list(ft) == ["HSA_API SUMMARY", "KERNEL_DISPATCH SUMMARY", "SUMMARY"] and not tables_of(r.stderr)
           and all(line == "" or line[0] in "|H KS" and not line.startswith("    ") for line in text.splitlines()),
           f"--summary-output-file NAME: <stem>_NAME.txt, the per-domain tables then the total, not indented ({list(ft)})")
    check_table(ft.get("SUMMARY", []), dbs[0], ["HSA_API", "KERNEL_DISPATCH"], "the file's SUMMARY")
    r = run(["convert", "--summary-groups", "HSA_API", "--summary-output-file", "STDOUT", "-d", out, dbs[0]],
            what="--summary-output-file STDOUT")
    expect(list(tables_of(r.stdout)) == ["HSA_API SUMMARY"] and not tables_of(r.stderr),
           "--summary-output-file stdout (any case): the table on stdout, none on stderr")
for bad, said in ((["--summary-groups", "KERNEL(", "--", vector_add, kernels], "not a regular expression"),
                  (["--summary-groups", vector_add, kernels], "end its list with --"),
                  (["--summary-output-file", "a/b", vector_add, kernels], "no '/'")):
    r = run(bad, expect_status=2, what=" ".join(os.path.basename(b) for b in bad))
    expect(said in r.stderr and "mismatches" not in r.stdout, f"refused before the program runs: '{said}' ({r.stderr.strip()[:160]})")

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

# ---- 4 ranks x (fork of 2 workers each): 12 databases, merged ------------------------------------
# One encore-trace around a shell that starts 4 ranks with the variables a launcher sets
# (SLURM_PROCID for 0 and 1, Open MPI's for 2 and 3); each rank forks 2 workers (rank_workers.cpp).
# Rank R makes R + 1 dispatches; its worker W makes 10 * (R + 1) + W + 1 hsa_system_get_info calls
# and 1 dispatch, each inside a roctx range of its own ("rank R", "rank R worker W"). Every
# process's database is named by the template: rank, parent pid, pid. Ranks 0-2 run side by side;
# rank 3 starts after they have ended, so that a window on one of its ranges leaves their 12
# dispatches out whatever the machine's load (run side by side, a slow worker's range could span
# every dispatch of the job).
job_dir = os.path.join(root, "job")
ranks = [f"{var}={i} {size}=4 {rank_workers} {kernels} > /dev/null"
         for i, (var, size) in enumerate([("SLURM_PROCID", "SLURM_NTASKS")] * 2 +
                                         [("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE")] * 2)]
job = " & ".join(ranks[:3]) + " & wait; " + ranks[3]
run(["--hsa-trace", "--kernel-trace", "--marker-trace", "--quiet", "-d", os.path.join(job_dir, "%hostname%"),
     "--output-file", "rank%rank%_%ppid%_%pid%", "--", "sh", "-c", job], what="4 ranks x 2 workers")
job_dbs = sorted(glob.glob(os.path.join(job_dir, os.uname().nodename, "rank*_*_*_results.db")))
expect(len(job_dbs) == 12 and len(os.listdir(job_dir)) == 1,
       f"4 ranks x (1 + 2 workers): 12 databases, one host folder ({len(job_dbs)})")
named = {}  # pid -> (rank, ppid) from the file name
for d in job_dbs:
    rank, ppid, pid = os.path.basename(d)[len("rank"):-len("_results.db")].split("_")
    named[int(pid)] = (int(rank), int(ppid))
got = {}  # pid -> (ppid, kernels, hsa_system_get_info calls, hsa_queue_create calls, regions)
for d in job_dbs:
    (pid, ppid), = query(d, "SELECT pid, ppid FROM processes")
    got[pid] = (ppid, query(d, "SELECT count(*) FROM kernels")[0][0],
                query(d, "SELECT count(*) FROM regions WHERE name = 'hsa_system_get_info'")[0][0],
                query(d, "SELECT count(*) FROM regions WHERE name = 'hsa_queue_create'")[0][0],
                query(d, "SELECT count(*) FROM regions")[0][0])
expect(sorted(got) == sorted(named) and all(got[p][0] == named[p][1] for p in got),
       "each database's process is the one its name says (pid, parent pid)")
# Per rank: the rank's own process (its parent is not a rank) and the two whose parent it is.
ranks_ok = len(named) == 12
worker_base = set()
for rank in range(4):
    procs = [p for p in named if named[p][0] == rank]
    parents = [p for p in procs if named[p][1] not in procs]
    workers = sorted((p for p in procs if named[p][1] in procs), key=lambda p: got[p][2])
    ok = len(procs) == 3 and len(parents) == 1 and len(workers) == 2 and all(named[w][1] == parents[0] for w in workers)
    if ok:
        ok = got[parents[0]][1:4] == (rank + 1, 0, 1) and \
            [got[w][1:4] for w in workers] == [(1, 10 * (rank + 1) + 1, 1), (1, 10 * (rank + 1) + 2, 1)]
        worker_base.update(got[w][4] - got[w][2] for w in workers)
    if not ok:
        print("  rank", rank, {p: (named[p], got.get(p)) for p in procs})
    ranks_ok = ranks_ok and ok
expect(ranks_ok, "each rank: R + 1 dispatches; its 2 workers: 1 dispatch and 10(R + 1) + W + 1 calls each; "
       "one queue per process (nothing of the parent in a worker's database)")
expect(len(worker_base) == 1, f"every worker: the same calls besides its own ({worker_base})")
job_kernels = sum(g[1] for g in got.values())
job_regions = sum(g[4] for g in got.values())
expect(job_kernels == sum(r + 1 for r in range(4)) + 8, f"18 dispatches in all ({job_kernels})")
job_merged = os.path.join(root, "job.db")
r = run(["merge", "-o", job_merged, *job_dbs], what="merge the 12 databases")
expect("merged 12 processes from 12 databases" in r.stderr, f"merge: 12 processes ({r.stderr.strip()})")
if os.path.exists(job_merged):
    k = query(job_merged, "SELECT count(*) FROM kernels")[0][0]
    rg = query(job_merged, "SELECT count(*) FROM regions")[0][0]
    expect((k, rg) == (job_kernels, job_regions),
           f"merged: kernels and regions are the sums of the 12 ({k} = {job_kernels}, {rg} = {job_regions})")
    per = dict(query(job_merged, "SELECT pid, count(*) FROM regions GROUP BY pid"))
    expect(per == {p: got[p][4] for p in got}, "merged: each process's calls under its own pid")
    calls = query(job_merged, "SELECT count(*) FROM regions WHERE name = 'hsa_system_get_info'")[0][0]
    expect(calls == sum(10 * (r + 1) + w + 1 for r in range(4) for w in range(2)),
           f"merged: every worker's hsa_system_get_info calls ({calls})")

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
    decoded = decode_pftrace(pftrace)
    if decoded:
        status, err, text, pids = decoded
        expect(status == 0, f"protoc decodes the merged pftrace ({err[-300:]})")
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

# ---- convert's marker window (rocpd convert --start-marker/--end-marker) ---------------------------
# hsa_range_phases: 3 roctx ranges "step" (push/pop) and one "checkpoint" (start/stop) around its
# last dispatch.
out = os.path.join(root, "phases")
run(["--hsa-trace", "--kernel-trace", "--marker-trace", "--quiet", "-d", out, "--", range_phases, range_kernels, "3"],
    what="--marker-trace hsa_range_phases 3")
dbs = glob.glob(os.path.join(out, "*_results.db"))
if dbs:
    db = dbs[0]
    (t0, t1), = query(db, "SELECT start, \"end\" FROM regions WHERE category = 'MARKER_CORE_RANGE_API' "
                          "AND json_extract(extdata, '$.message') = 'checkpoint'")
    win = os.path.join(root, "marker-window")
    run(["convert", "-f", "csv", "--start-marker", "checkpoint", "--end-marker", "checkpoint", "-d", win, db],
        what="convert --start-marker checkpoint --end-marker checkpoint")
    stem = os.path.join(win, os.path.basename(db)[: -len("_results.db")])
    rows = read_csv(stem + "_kernel_trace.csv") if os.path.exists(stem + "_kernel_trace.csv") else []
    want_k = query(db, "SELECT count(*) FROM kernels WHERE start <= ? AND \"end\" >= ?", t1, t0)[0][0]
    all_k = query(db, "SELECT count(*) FROM kernels")[0][0]
    expect(len(rows) == want_k == 1 and all_k == 10 and all(int(r["Start_Timestamp"]) <= t1 and
                                                             int(r["End_Timestamp"]) >= t0 for r in rows),
           f"marker window: the checkpoint range's one kernel of {all_k} ({len(rows)} = {want_k})")
    api = read_csv(stem + "_hsa_api_trace.csv") if os.path.exists(stem + "_hsa_api_trace.csv") else []
    want_r = query(db, "SELECT count(*) FROM regions WHERE category LIKE 'HSA%' AND start <= ? AND \"end\" >= ?",
                   t1, t0)[0][0]
    expect(0 < len(api) == want_r < query(db, "SELECT count(*) FROM regions WHERE category LIKE 'HSA%'")[0][0],
           f"marker window: the calls inside the checkpoint range ({len(api)} = {want_r})")
    # From the end of the first step's range... is ambiguous: 3 ranges "step". Unknown and both-ways.
    for args, status, said in ((["--start-marker", "step"], 1, "3 ranges of that name"),
                               (["--end-marker", "no such range"], 1, "no marker of that name"),
                               (["--start", "1", "--start-marker", "checkpoint"], 2, "not both")):
        r = run(["convert", "-f", "csv", *args, "-d", win, db], expect_status=status, what=" ".join(args))
        expect(said in r.stderr and "Traceback" not in r.stderr, f"{' '.join(args)}: '{said}' ({r.stderr.strip()})")

# ---- kernel filters at record time: a kernel left out is not recorded at all -----------------------
if dbs:
    by_name = dict(query(dbs[0], "SELECT name, count(*) FROM kernels GROUP BY name"))
    kept_records = os.path.join(root, "filtered-records")
    out = os.path.join(root, "filtered")
    r = run(["--hsa-trace", "--kernel-trace", "--quiet", "--kernel-exclude-regex", "double", "--keep-records",
             kept_records, "-d", out, "--", range_phases, range_kernels, "3"], what="--kernel-exclude-regex double")
    fdbs = glob.glob(os.path.join(out, "*_results.db"))
    names = dict(query(fdbs[0], "SELECT name, count(*) FROM kernels GROUP BY name")) if fdbs else {}
    want = {k: v for k, v in by_name.items() if "double" not in k}
    expect(names == want and by_name.get("double_in_place", 0) == 3,
           f"filtered: double_in_place left out, add_into kept ({names}; unfiltered {by_name})")
    expect(f"{by_name.get('double_in_place')} records left out" in r.stderr,
           f"the records the tool left out: counted ({r.stderr.strip()[-200:]})")
    # The kept records converted again without a filter: the dispatches left out were never written.
    again = os.path.join(root, "filtered-again")
    converter = os.path.join(os.path.dirname(os.path.abspath(trace)), "..", "src", "trace", "encore-trace-convert")
    c = subprocess.run([converter, "-f", "rocpd", "-d", again, "--no-summary", kept_records], capture_output=True,
                       text=True, timeout=300)
    adbs = glob.glob(os.path.join(again, "*_results.db"))
    names = dict(query(adbs[0], "SELECT name, count(*) FROM kernels GROUP BY name")) if adbs else {}
    expect(c.returncode == 0 and names == want, f"the record files hold no dispatch of the kernel left out ({names})")

# ---- several databases converted into one output (rocpd convert -i A B ...) --------------------
if len(job_dbs) == 12 and os.path.exists(job_merged):
    conv = os.path.join(root, "job-converted")
    r = run(["convert", "-f", "pftrace,csv", "--stats", "-d", conv, *job_dbs], what="convert the 12 databases as one")
    rows = read_csv(os.path.join(conv, "out_kernel_trace.csv")) if os.path.exists(
        os.path.join(conv, "out_kernel_trace.csv")) else []
    expect(len(rows) == job_kernels and len({r["Thread_Id"] for r in rows}) == 12,
           f"one out_kernel_trace.csv: every process's dispatches ({len(rows)} = {job_kernels})")
    api = read_csv(os.path.join(conv, "out_hsa_api_trace.csv")) if os.path.exists(
        os.path.join(conv, "out_hsa_api_trace.csv")) else []
    want = query(job_merged, "SELECT count(*) FROM regions WHERE category LIKE 'HSA%'")[0][0]
    expect(len(api) == want and {int(r["Process_Id"]) for r in api} == set(got),
           f"one out_hsa_api_trace.csv: every process's calls, under its own pid ({len(api)} = {want})")
    check_stats(os.path.join(conv, "out_kernel_stats.csv"), job_merged, "SELECT name, duration FROM kernels",
                "12 databases' kernel_stats.csv")
    expect(not [f for f in os.listdir(conv) if f.startswith(".")], "no temporary database left")
    pftrace = os.path.join(conv, "out_results.pftrace")
    decoded = decode_pftrace(pftrace)
    if decoded:
        status, _, _, pids = decoded
        pids = set(pids)
        expect(status == 0 and pids == set(got), f"one pftrace: a process track per process ({len(pids)})")
    else:
        expect(os.path.exists(pftrace), "out_results.pftrace written (protoc not installed: not decoded)")
    # A marker window across the inputs: a worker's range, and whatever else ran then (rank 3 ran
    # after ranks 0-2 had ended: at most its own 6 dispatches fall in the window).
    (t0, t1), = query(job_merged, "SELECT start, \"end\" FROM regions WHERE category = 'MARKER_CORE_RANGE_API' "
                                  "AND json_extract(extdata, '$.message') = 'rank 3 worker 1'")
    win = os.path.join(root, "job-window")
    run(["convert", "-f", "csv", "--output-file", "w", "--start-marker", "rank 3 worker 1", "--end-marker",
         "rank 3 worker 1", "-d", win, *job_dbs], what="convert 12 databases --start-marker/--end-marker")
    rows = read_csv(os.path.join(win, "w_kernel_trace.csv")) if os.path.exists(
        os.path.join(win, "w_kernel_trace.csv")) else []
    want_k = query(job_merged, "SELECT count(*) FROM kernels WHERE start <= ? AND \"end\" >= ?", t1, t0)[0][0]
    expect(1 <= len(rows) == want_k <= 6,
           f"12 databases through a marker window: rank 3's dispatches at most ({len(rows)} = {want_k} <= 6)")
    r = run(["convert", "-f", "csv", "-d", win, job_dbs[0], job_dbs[0]], expect_status=1, what="one database twice")
    expect("merged once" in r.stderr, f"convert of one database twice: refused ({r.stderr.strip()[:200]})")

print(f"{failed} failed")
if failed == 0:
    shutil.rmtree(root, ignore_errors=True)
sys.exit(1 if failed else 0)
