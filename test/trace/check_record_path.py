"""check_record_path.py — encore-trace's record path end to end on the software HSA runtime:
the outputs (rocpd read through the views AMD's tools read, JSON, CSV, the Perfetto trace decoded
by protoc and compared with the rocpd database of the same run), what is kept when the
program dies (SIGKILL after 100,000 calls, _exit, abort, a crash), forks and a second program
started through system(), arguments formatted at the call (--args-depth) for a call that frees
what it is passed.

    check_record_path.py ENCORE_TRACE VECTOR_ADD VECTOR_ADD_KERNELS DYING_PROGRAM [sanitized|plain]
"""
import codecs
import csv
import glob
import json
import os
import re
import shutil
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
    # Types as rocprofv3 writes them: the C API's typeid(T).name(), demangled (a struct by its tag).
    expect(names[:3] == ["agent", "size", "type"] and len(names) == 8 and args[0][0] == "hsa_agent_s"
           and args[1][0] == "unsigned int" and args[7][0] == "hsa_queue_s**"
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

# ---- the Perfetto trace ------------------------------------------------------------------------
def protoc_text(text):
    """protoc's text format as nested lists of (field, value) pairs; a message's value is a list."""
    root = []
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if line == "}":
            stack.pop()
        elif line.endswith(" {"):
            stack[-1].append((line[:-2], []))
            stack.append(stack[-1][-1][1])
        elif line:
            key, _, value = line.partition(": ")
            if value.startswith('"'):
                value = codecs.escape_decode(value[1:-1])[0].decode("utf-8", "replace")
            stack[-1].append((key, value))
    return root


def get(message, key, default=None):
    return next((v for k, v in message if k == key), default)


def replay(packets):
    """The slices and instants of a trace as Perfetto's importer reads them: per sequence, the
    interned names, the default track and the incremental clock its first packet set; per track,
    each TYPE_SLICE_END closing the innermost open slice. Returns (events, tracks, problems)."""
    sequences, stacks, tracks, events, problems = {}, {}, {}, [], []
    for n, (_, p) in enumerate(packets):
        seq = get(p, "trusted_packet_sequence_id")
        flags = int(get(p, "sequence_flags", "0"))
        if flags & 1:
            sequences[seq] = {"names": {}, "categories": {}, "track": None, "clock": None, "last": 0}
        s = sequences.get(seq)
        if flags & 2 and s is None:
            problems.append(f"packet {n}: needs incremental state, none valid")
            continue
        defaults = get(p, "trace_packet_defaults")
        if defaults:
            s["clock"] = get(defaults, "timestamp_clock_id")
            s["track"] = get(get(defaults, "track_event_defaults", []), "track_uuid")
        for k, entry in get(p, "interned_data", []):
            if k in ("event_names", "event_categories"):
                s["names" if k == "event_names" else "categories"][get(entry, "iid")] = get(entry, "name")
        for _, clock in get(p, "clock_snapshot", []):
            if s is not None and get(clock, "clock_id") == s["clock"]:
                s["last"] = int(get(clock, "timestamp"))
        descriptor = get(p, "track_descriptor")
        if descriptor:
            tracks[get(descriptor, "uuid")] = descriptor
        event = get(p, "track_event")
        if event is None:
            continue
        if s is None or get(p, "timestamp") is None:
            problems.append(f"packet {n}: an event without its sequence's state or a timestamp")
            continue
        s["last"] += int(get(p, "timestamp"))
        track = get(event, "track_uuid", s["track"])
        stack = stacks.setdefault(track, [])
        if track not in tracks:
            problems.append(f"packet {n}: an event on undescribed track {track}")
        if get(event, "type") == "TYPE_SLICE_END":
            if not stack:
                problems.append(f"packet {n}: an end with no slice open on track {track}")
            else:
                stack.pop()["end"] = s["last"]
            continue
        e = {"track": track, "ts": s["last"], "type": get(event, "type"),
             "name": s["names"].get(get(event, "name_iid"), "?"),
             "category": s["categories"].get(get(event, "category_iids"), "?"),
             "correlation": int(get(event, "correlation_id", "0")),
             "flows": [v for k, v in event if k == "flow_ids"],
             "terminating": [v for k, v in event if k == "terminating_flow_ids"]}
        events.append(e)
        if e["type"] == "TYPE_SLICE_BEGIN":
            stack.append(e)
    problems += [f"track {t}: {len(s)} slices never ended" for t, s in stacks.items() if s]
    return events, tracks, problems


out, r = run(["--runtime-trace", "-f", "rocpd,pftrace", "--quiet"], vector_add, kernels)
traces = glob.glob(os.path.join(out, "*_results.pftrace"))
dbs = databases(out)
expect(len(traces) == 1 and len(dbs) == 1, f"-f rocpd,pftrace: one trace and one database ({traces}, {dbs})")
protoc = shutil.which("protoc")
if not protoc:
    print("SKIPPED: the Perfetto trace's contents (no protoc here: apt-get install protobuf-compiler)")
elif traces and dbs:
    proto = os.path.join(os.path.dirname(os.path.abspath(__file__)), "perfetto_trace.proto")
    with open(traces[0], "rb") as f:
        d = subprocess.run([protoc, "--decode=perfetto.protos.Trace", "-I", os.path.dirname(proto), proto],
                           stdin=f, capture_output=True, text=True)
    expect(d.returncode == 0, f"protoc decodes the trace as Perfetto's messages ({d.stderr.strip()[:500]})")
    events, tracks, problems = replay(protoc_text(d.stdout))
    expect(not problems, f"pftrace: every event on a described track, every begin ended ({problems[:5]})")
    db = dbs[0]
    gpu = ("KERNEL_DISPATCH", "MEMORY_COPY", "MEMORY_ALLOCATION")
    calls = {}
    for e in events:
        if e["category"] not in gpu:
            calls[e["category"]] = calls.get(e["category"], 0) + 1
    regions = dict(query(db, "SELECT category, count(*) FROM regions_and_samples GROUP BY category"))
    expect(calls == regions and sum(calls.values()) > 10,
           f"pftrace: the database's regions, per category ({calls} == {regions})")
    names = sorted(e["name"] for e in events if e["category"] == "KERNEL_DISPATCH")
    expect(names == sorted(n for (n,) in query(db, "SELECT name FROM kernels")) and names == ["vector_add"],
           f"pftrace: the database's kernels ({names})")
    allocations = [e for e in events if e["category"] == "MEMORY_ALLOCATION"]
    expect(len(allocations) == query(db, "SELECT count(*) FROM memory_allocations")[0][0] and
           all(e["type"] == "TYPE_INSTANT" for e in allocations), f"pftrace: allocations as instants ({len(allocations)})")
    # Flows: from the call of each kernel's correlation id (the doorbell's signal store) to it.
    launched = {c for (c,) in query(db, "SELECT stack_id FROM regions")}
    flows_out = {f for e in events for f in e["flows"]}
    linked = [e for e in events if e["category"] == "KERNEL_DISPATCH" and e["correlation"] in launched]
    expect(linked and all(e["terminating"] and set(e["terminating"]) <= flows_out for e in linked),
           f"pftrace: a flow from its launching call to each kernel ({[(e['correlation'], e['terminating']) for e in linked]})")
    threads = [t for t in tracks.values() if get(t, "thread")]
    processes = [t for t in tracks.values() if get(t, "process")]
    expect(len(processes) == 1 and "hsa_vector_add" in get(get(processes[0], "process"), "process_name", "")
           and len(threads) == query(db, "SELECT count(*) FROM threads")[0][0],
           f"pftrace: the process and its threads ({len(processes)}, {len(threads)})")

# ---- what a dying program leaves ---------------------------------------------------------------
# encore-trace ends as the program did (encore-trace-run): by the same signal.
out, r = run(["--hsa-trace", "--kernel-trace", "--quiet"], dying, kernels, "calls-sigkill", "100",
             expect_status=-9)
dbs = databases(out)
calls = query(dbs[0], "SELECT count(*) FROM regions WHERE name = 'hsa_system_get_info'")[0][0] if dbs else 0
expect(calls == 100000, f"SIGKILL after 100,000 calls: all 100,000 in the database ({calls})")
kernels_n = query(dbs[0], "SELECT count(*) FROM kernels")[0][0] if dbs else 0
expect(kernels_n == 100, f"SIGKILL: the 100 dispatches before it ({kernels_n})")

for how, status in (("_exit", 3), ("abort", -6), ("segv", None if sanitized else -11)):
    out, r = run(["--hsa-trace", "--kernel-trace", "--quiet"], dying, kernels, how, "3", expect_status=status)
    dbs = databases(out)
    n = query(dbs[0], "SELECT count(*) FROM kernels")[0][0] if dbs else 0
    created = query(dbs[0], "SELECT count(*) FROM regions WHERE name = 'hsa_queue_create'")[0][0] if dbs else 0
    expect(n == 3 and created == 1, f"{how}: the 3 dispatches and the calls before it ({n}, {created})")

# ---- the calls' clock (tick_clock.hpp): each call inside the program's own clock reads ----------
# Two threads, 300 calls each between two CLOCK_BOOTTIME reads, pauses that cross the tool's clock
# pairs, then SIGKILL (the last calls past the last pair). Where the kernel keeps time with the
# TSC the tool stamps calls with it and the converter maps them; either way each call must lie in
# its window, give or take what a pair's midpoint can be off (the slack below, ample for it).
# With ENCORE_TRACE_CLOCK=boottime (clock_gettime itself) the same must hold.
for clock in ("auto", "boottime"):
    os.environ["ENCORE_TRACE_CLOCK"] = clock
    out, r = run(["--hsa-trace", "--quiet"], dying, kernels, "clock", "1", expect_status=-9)
    del os.environ["ENCORE_TRACE_CLOCK"]
    windows = {}
    for line in r.stdout.splitlines():
        if line.startswith("clock "):
            _, tid, before, after = line.split()
            windows.setdefault(int(tid), []).append((int(before), int(after)))
    dbs = databases(out)
    got = {}
    for tid, start, end in (query(dbs[0], "SELECT tid, start, end FROM regions WHERE name = 'hsa_system_get_info' "
                                          "ORDER BY tid, start") if dbs else []):
        got.setdefault(tid, []).append((start, end))
    slack = 2000  # ns
    outside = [(tid, w, c) for tid in windows for w, c in zip(windows[tid], got.get(tid, []))
               if not (w[0] - slack <= c[0] < c[1] <= w[1] + slack)]
    expect(sorted(len(v) for v in windows.values()) == [300, 300] and
           {t: len(v) for t, v in got.items()} == {t: len(v) for t, v in windows.items()},
           f"clock={clock}: 2 x 300 calls, each recorded on its thread "
           f"({ {t: len(v) for t, v in got.items()} })")
    expect(not outside, f"clock={clock}: every call inside the program's clock reads around it, "
                        f"{slack} ns slack ({len(outside)} outside; first {outside[:2]})")

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

# ---- -o DIR: one set of files for every process of the run (issue 40 items 6, 7) ------------------
def legacy(args, env=None):
    out = tempfile.mkdtemp(prefix="encore-record-path-o-")
    r = subprocess.run([trace, "--quiet", "-o", out, "--", *args], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, **(env or {})))
    events, rows = [], []
    try:
        events = json.load(open(os.path.join(out, "trace.json")))
        rows = list(csv.DictReader(open(os.path.join(out, "kernel_trace.csv"), newline="")))
    except (OSError, ValueError) as e:
        expect(False, f"-o {' '.join(args)[:80]}: trace.json and kernel_trace.csv read ({e}; {r.stderr[-500:]})")
    return r, events, rows


# A shell script of traced programs: two at once, then one more; nothing truncated, one valid trace.
r, events, rows = legacy(["sh", "-c", f"'{dying}' '{kernels}' exit 1 > /dev/null & '{dying}' '{kernels}' exit 2 "
                                      f"> /dev/null & wait; '{dying}' '{kernels}' exit 1 > /dev/null"])
ends = [e for e in events if str(e.get("name", "")).startswith("end of trace")]
by_pid = {}
for row in rows:
    by_pid[row["process_id"]] = by_pid.get(row["process_id"], 0) + 1
expect(r.returncode == 0 and sorted(by_pid.values()) == [1, 1, 2] and len(ends) == 3 and
       all(e["name"] == "end of trace (exit)" for e in ends),
       f"-o over a shell script of 3 traced programs: their 4 dispatches, 3 processes ended ({by_pid}, "
       f"{[e['name'] for e in ends]})")
gpu_tracks = {e["pid"] for e in events if e.get("cat") == "KERNEL_DISPATCH"}
expect(len(gpu_tracks) == 3, f"-o: each process's GPU track apart ({gpu_tracks})")
r, events, rows = legacy([dying, kernels, "system", "2"])
expect(r.returncode == 0 and len(rows) == 3 and len({row["process_id"] for row in rows}) == 2,
       f"-o with system(): the program's 2 dispatches and its child's 1 ({len(rows)} rows)")
own = os.path.join(tempfile.mkdtemp(prefix="encore-record-path-own-"), "own.txt")
r, events, rows = legacy([dying, kernels, "closefds", "1"], env={"DYING_OWN_FILE": own})
lines = open(own).read().splitlines() if os.path.exists(own) else []
expect(r.returncode == 0 and "closefds: wrote 13 lines" in r.stdout and
       lines == [f"line {i} of the program's own file" for i in range(13)],
       f"-o on a program that closes every fd and opens its own file: the file holds its 13 lines only "
       f"({len(lines)} lines: {lines[:3]}...)")
expect(len(rows) == 14, f"-o: the dispatches after the fds were closed are traced ({len(rows)} of 14)")

# ---- a full disk while converting (issue 40 item 14): no cut file left, the reason said -----------
# A file size limit stands in for a full disk (RLIMIT_FSIZE: writes past it fail with EFBIG once
# SIGXFSZ is ignored); the records of 20,000 calls make outputs far larger than 64 KiB.
keep = tempfile.mkdtemp(prefix="encore-record-path-keep-")
r = subprocess.run([trace, "--quiet", "--hsa-trace", "--keep-records", keep, "-d", keep + "-out", "-f", "json", "--",
                    dying, kernels, "bench", "20"], capture_output=True, text=True, timeout=300)
expect(r.returncode == 0, f"--keep-records run ({r.stderr[-300:]})")
converter = os.path.join(os.path.dirname(os.path.abspath(trace)), "..", "src", "trace", "encore-trace-convert")
full = tempfile.mkdtemp(prefix="encore-record-path-full-")


def small_files():
    import resource
    import signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))


r = subprocess.run([converter, "--no-summary", "-f", "json,csv,rocpd", "-d", full, "--combined-dir", full, keep],
                   capture_output=True, text=True, timeout=300, preexec_fn=small_files)
left = sorted(os.listdir(full))
expect(r.returncode == 1 and "File too large (not written)" in r.stderr,
       f"a full disk: the converter fails and says why ({r.returncode}: {r.stderr.strip()[-400:]})")
expect(not any(f.endswith(".partial") for f in left), f"a full disk: no partial file left ({left})")
# The database is written in one transaction: on a full disk it is refused whole, and removed.
expect("_results.db: rocpd: " in r.stderr and not any(f.endswith(".db") for f in left),
       f"a full disk: the rocpd database is reported and not left cut ({left}: {r.stderr.strip()[-400:]})")
claimed = re.findall(r"\[encore-trace\] wrote (\S+)", r.stderr)
expect(all(os.path.exists(f) for f in claimed),
       f"a full disk: every file said written is there ({[f for f in claimed if not os.path.exists(f)]} are not)")
for f in left:
    if f.endswith(".json"):
        try:
            json.load(open(os.path.join(full, f)))
            expect(True, f"a full disk: {f} left whole")
        except ValueError as e:
            expect(False, f"a full disk: {f} is cut ({e})")

# ---- a conversion that fails keeps the records (the only copy of the run) and says where -----
runner = os.path.join(os.path.dirname(converter), "encore-trace-run")
for conv, kept in (("false", True), ("true", False)):
    recs = tempfile.mkdtemp(prefix="encore-record-path-runner-")
    r = subprocess.run([runner, "--remove", recs, "--convert", "1", shutil.which(conv), "true"],
                       capture_output=True, text=True, timeout=60)
    if kept:
        expect(r.returncode == 1 and os.path.isdir(recs) and f"the records are kept in {recs}" in r.stderr,
               f"a failed conversion keeps the record folder and names it ({r.returncode}: {r.stderr.strip()[-300:]})")
    else:
        expect(r.returncode == 0 and not os.path.exists(recs),
               f"a conversion that succeeded removes the record folder ({r.returncode}: {r.stderr.strip()[-300:]})")

# ---- output templates: an MPI-style job of 4 ranks under one encore-trace -----------------------
# A shell starts the 4 "ranks" with the variables a launcher sets (SLURM_PROCID for 0 and 1, Open
# MPI's for 2 and 3); each process's files go where -d and --output-file say for it.
top = tempfile.mkdtemp(prefix="encore-record-path-ranks-")
job = " ".join(f"{var}={i} {size}=4 SLURM_JOB_ID=77 {vector_add} {kernels} > /dev/null &"
                for i, (var, size) in enumerate([("SLURM_PROCID", "SLURM_NTASKS")] * 2 +
                                                [("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE")] * 2)) + " wait"
r = subprocess.run([trace, "--hsa-trace", "--quiet", "-d", os.path.join(top, "%hostname%", "job%job%"),
                    "--output-file", "rank%rank%of%size%_%env{SLURM_JOB_ID}%", "--", "sh", "-c", job],
                   capture_output=True, text=True, timeout=300)
host = os.uname().nodename
found = sorted(os.path.relpath(p, top) for p in glob.glob(os.path.join(top, "*", "*", "*_results.db")))
want = sorted(os.path.join(host, "job77", f"rank{i}of4_77_results.db") for i in range(4))
expect(r.returncode == 0 and found == want, f"4 ranks: one database each, named by rank ({found}; {r.stderr[-400:]})")
if found == want:
    envs = [json.loads(query(os.path.join(top, f), "SELECT environment FROM rocpd_info_process")[0][0]) for f in want]
    expect([e.get("SLURM_JOB_ID") for e in envs] == ["77"] * 4,
           "each process's environment in its database (rocpd_info_process.environment)")
r = subprocess.run([trace, "--hsa-trace", "--quiet", "-d", top, "--output-file", "x%bogus%y", "--", vector_add,
                    kernels], capture_output=True, text=True, timeout=300)
expect(r.returncode == 0 and "unknown placeholder %bogus%" in r.stderr and
       os.path.exists(glob.glob(os.path.join(top, "x%bogus%y_results.db"))[0] if glob.glob(os.path.join(top, "x%bogus%y_results.db")) else ""),
       f"an unknown placeholder: said, kept as written ({r.stderr[-300:]})")
shutil.rmtree(top, ignore_errors=True)

# ---- kernel filters and collection periods -----------------------------------------------------
def counts(options):
    out, r = run(["--hsa-trace", "--kernel-trace", "--quiet", *options], vector_add, kernels)
    dbs = databases(out)
    if not dbs:
        return None, None, r
    return (query(dbs[0], "SELECT count(*) FROM kernels")[0][0],
            query(dbs[0], "SELECT count(*) FROM regions")[0][0], r)


all_kernels, all_regions, _ = counts([])
expect(all_kernels == 1 and all_regions > 10, f"unfiltered: the kernel and the calls ({all_kernels}, {all_regions})")
k, n, _ = counts(["--kernel-include-regex", "vector_a+dd"])
expect((k, n) == (1, all_regions), f"--kernel-include-regex matching: the kernel kept ({k}, {n})")
k, n, r = counts(["--kernel-include-regex", "vector", "--kernel-exclude-regex", "^vec"])
expect(k == 0 and n == all_regions and "1 records left out" in r.stderr,
       f"--kernel-exclude-regex after the include: the kernel left out, calls kept ({k}, {n})")
k, n, _ = counts(["-P", "0:1:0", "--collection-period-unit", "hour"])
expect((k, n) == (all_kernels, all_regions), f"-P 0:1:0 hour: everything in the first hour kept ({k}, {n})")
k, n, _ = counts(["-P", "1:1:1", "--collection-period-unit", "hour"])
expect((k, n) == (0, 0), f"-P 1:1:1 hour: the first hour left out, nothing after it ({k}, {n})")
# The tool records only around the periods: converted again without -P, the records kept of a run
# whose one period lies an hour ahead hold nothing; of a run that calls every millisecond for
# 5.5 s, with a period from 3 s to 4 s, only what started from 1 s before the period to its end
# (the margin, for a kernel enqueued before the period and run in it), kernel names included.
def recorded(keep):
    again = tempfile.mkdtemp(prefix="encore-record-path-again-")
    r = subprocess.run([converter, "-f", "rocpd", "-d", again, keep], capture_output=True, text=True)
    dbs = databases(again)
    return (r.returncode, query(dbs[0], "SELECT count(*), min(start), max(start) FROM regions")[0] if dbs else None,
            query(dbs[0], "SELECT DISTINCT name FROM kernels") if dbs else None)


keep = tempfile.mkdtemp(prefix="encore-record-path-keep-")
k, n, _ = counts(["-P", "1:1:1", "--collection-period-unit", "hour", "--keep-records", keep])
rc, regions, names = recorded(keep)
expect(rc == 0 and regions is not None and regions[0] == 0 and names == [],
       f"-P 1:1:1 hour: nothing recorded in the first hour ({rc}, {regions}, {names})")
keep = tempfile.mkdtemp(prefix="encore-record-path-keep-")
out = tempfile.mkdtemp(prefix="encore-record-path-")
p = subprocess.Popen([trace, "--hsa-trace", "--kernel-trace", "--quiet", "-P", "3:1:1", "--keep-records", keep,
                      "-d", out, "--", dying, kernels, "wait"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
try:
    p.communicate(timeout=5.5)
except subprocess.TimeoutExpired:
    p.terminate()  # encore-trace forwards it; the program dies of it, its records converted
    p.communicate(timeout=300)
dbs = databases(out)
kept = query(dbs[0], "SELECT count(*), min(start), max(start) FROM regions")[0] if dbs else None
rc, regions, names = recorded(keep)
ok = kept is not None and regions is not None and kept[0] > 0
expect(ok and regions[1] >= kept[1] - 1_050_000_000 and regions[2] - kept[2] < 50_000_000
       and regions[2] - regions[1] < 2_100_000_000 and names == [("vector_add",)],
       f"-P 3:1:1: recorded from 1 s before the period to its end, kernels named "
       f"(kept {kept}, recorded {regions}, {names})")
# A fork child (no exec) records from the fork on: the period's thread stayed in the parent. The
# child's 1000 calls come before the period (recorded, left out of the outputs); the parent's
# calls before the period are not recorded.
keep = tempfile.mkdtemp(prefix="encore-record-path-keep-")
out, r = run(["--hsa-trace", "--quiet", "-P", "2:1:1", "--keep-records", keep], dying, kernels, "fork")
again = tempfile.mkdtemp(prefix="encore-record-path-again-")
subprocess.run([converter, "-f", "rocpd", "-d", again, keep], capture_output=True, text=True)
calls = sorted(query(db, "SELECT count(*) FROM regions WHERE name = 'hsa_system_get_info'")[0][0]
               for db in databases(again))
expect(calls == [0, 1000], f"-P 2:1:1 and a fork: the child records from the fork on, the parent not ({calls})")
for bad in (["-P", "1:2"], ["--kernel-include-regex", "("], ["--collection-period-unit", "week"]):
    r = subprocess.run([trace, *bad, vector_add, kernels], capture_output=True, text=True)
    expect(r.returncode == 2, f"{' '.join(bad)}: refused, exit 2 ({r.returncode}: {r.stderr.strip()[:120]})")

# ---- --selected-regions: traced between roctxProfilerResume and roctxProfilerPause --------------
# dying_program's "regions": 335 hsa_system_get_info calls and 5 dispatches, of which 35 calls and
# 1 dispatch are inside regions (two regions; a Pause while paused, a Resume from another thread,
# a Resume while running).
def region_counts(options):
    out, r = run([*options, "--quiet"], dying, kernels, "regions")
    dbs = databases(out)
    if not dbs:
        return None
    return {"calls": query(dbs[0], "SELECT count(*) FROM regions WHERE name = 'hsa_system_get_info'")[0][0],
            "kernels": query(dbs[0], "SELECT name, count(*) FROM kernels GROUP BY name"),
            "control": query(dbs[0], "SELECT name, count(*) FROM regions WHERE category = 'MARKER_CONTROL_API' "
                                     "GROUP BY name ORDER BY name")}


c = region_counts(["--hsa-trace", "--kernel-trace", "--selected-regions"])
expect(c and c["calls"] == 35 and c["kernels"] == [("vector_add", 1)] and c["control"] == [],
       f"--selected-regions: the 35 calls and the named dispatch inside regions, nothing else ({c})")
# With markers traced: the Pause that ends a region is the region's last call; a Resume only when
# tracing was on already (the third).
c = region_counts(["--runtime-trace", "--selected-regions"])
expect(c and c["calls"] == 35 and c["kernels"] == [("vector_add", 1)]
       and c["control"] == [("roctxProfilerPause", 2), ("roctxProfilerResume", 1)],
       f"--runtime-trace --selected-regions: markers' Pause ending each region, the Resume inside one ({c})")
c = region_counts(["--runtime-trace"])
expect(c and c["calls"] == 335 and c["kernels"] == [("vector_add", 5)]
       and c["control"] == [("roctxProfilerPause", 3), ("roctxProfilerResume", 3)],
       f"without --selected-regions: every call and dispatch ({c})")
# The default run and -o DIR trace kernels, copies and allocations whatever is asked: in regions too.
combined = tempfile.mkdtemp(prefix="encore-record-path-o-")
r = subprocess.run([trace, "--selected-regions", "--quiet", "-o", combined, dying, kernels, "regions"],
                   capture_output=True, text=True, timeout=300)
api = list(csv.DictReader(open(os.path.join(combined, "api_trace.csv")))) if r.returncode == 0 else []
ks = list(csv.DictReader(open(os.path.join(combined, "kernel_trace.csv")))) if r.returncode == 0 else []
expect(sum(a["operation"] == "hsa_system_get_info" for a in api) == 35 and [k["kernel_name"] for k in ks] == ["vector_add"],
       f"--selected-regions -o: the region's 35 calls and its dispatch ({len(api)} calls, {len(ks)} dispatches)")
r = subprocess.run([trace, "--selected-regions", "--live", dying, kernels, "regions"], capture_output=True, text=True)
expect(r.returncode == 2 and "--selected-regions" in r.stderr, f"--selected-regions --live: refused ({r.stderr.strip()[:80]})")

# ---- return values by name (encore_format_callback_tracing_retval) -------------------------------
out, r = run(["--hsa-trace", "-f", "json"], vector_add, kernels)
expect("hsa_shut_down() -> HSA_STATUS_SUCCESS" in r.stderr, "a printed call's return value by name")
traces = glob.glob(os.path.join(out, "*_trace.json"))
events = json.load(open(traces[0])) if traces else []
inits = [e for e in events if e.get("name") == "hsa_queue_create"]
expect(len(inits) == 1 and inits[0]["args"].get("return") == "HSA_STATUS_SUCCESS",
       f"trace.json: hsa_queue_create's return value by name ({inits})")

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
