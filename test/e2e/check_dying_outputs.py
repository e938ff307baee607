#!/usr/bin/env python3
"""What encore-trace -o DIR and encore-replay -o FILE keep when the program dies, and an output
that cannot be written, refused at start with the reason.

usage: check_dying_outputs.py trace|replay LAUNCHER DYING_PROGRAM CODE_OBJECT plain|sanitized [CONVERTER]

DYING_PROGRAM (test/e2e/dying_program.cpp) makes HSA calls and kernel dispatches, then dies as
told: by SIGSEGV, abort(), _exit(), SIGINT/SIGTERM/SIGHUP/SIGQUIT (raised, or sent from here
while it runs), SIGKILL, or with its own handlers. For each way:
  trace   on the record path (the default): the exit status is the program's own; the record
          folder is converted after the death (removed then), trace.json parses whole and ends with
          one "end of trace (WHY)" event, the CSV rows and JSON events agree exactly; SIGKILL sent to
          encore-trace itself kills the program, and its record folder converts by hand;
  --live  (the first tool, writing on the program's threads): the exit status is the program's
          own (the signal it died of); api_trace.csv and
          kernel_trace.csv parse and hold every call and dispatch before the death; trace.json
          parses as it is (ended by the tool, with an "end of trace (WHY)" event) or, after
          _exit / SIGKILL, once "]" is appended (as trace-event readers close a cut array);
          the JSON and CSV records agree.
  replay  the exit status is the program's own; FILE parses and holds one row per replayed
          dispatch before the death; on a signal stderr says "interrupted by SIG...: N
          dispatches replayed so far".
Unwritable outputs (a path under a regular file, paths in /proc, a report that is a folder: all
fail for root too): the
launcher exits 2 with "cannot write PATH: REASON" before the program starts; set through the
environment without the launcher's check, the tool says the same at start and the program runs
untraced (not replayed).
Under ASan or TSan (plain|sanitized), the sanitizer's own SIGSEGV handling reports the fault and
ends the program (ASan: exit 1 or SIGABRT; TSan: exit 66): that is accepted for segv, and the trace
must still be ended.
"""
import csv
import io
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

mode, launcher, program, code_object, build = sys.argv[1:6]
converter = sys.argv[6] if len(sys.argv) > 6 else None  # encore-trace-convert (trace)
sanitized = build == "sanitized"
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


def status_name(rc):
    return f"signal {signal.Signals(-rc).name}" if rc < 0 else f"exit {rc}"


# how -> (expected returncode, the reason the trace's end names, or None where nothing can end it)
DEATHS = {
    "exit": (0, "exit"),
    "_exit": (3, None),
    "abort": (-signal.SIGABRT, "SIGABRT"),
    "segv": (-signal.SIGSEGV, "SIGSEGV"),
    "segv-handled": (42, "SIGSEGV"),  # ended before the program's handler _exit()s
    "segv-recover": (0, "exit"),  # the program's handler repaired the fault: the trace went on
    "sigint": (-signal.SIGINT, "SIGINT"),
    "sigterm": (-signal.SIGTERM, "SIGTERM"),
    "sighup": (-signal.SIGHUP, "SIGHUP"),
    "sigquit": (-signal.SIGQUIT, "SIGQUIT"),
    "sigkill": (-signal.SIGKILL, None),
    "sigint-handled": (0, "exit"),  # the program's SIGINT handler is left alone
    "wait+SIGINT": (-signal.SIGINT, "SIGINT"),
    "wait+SIGTERM": (-signal.SIGTERM, "SIGTERM"),
    "wait+SIGKILL": (-signal.SIGKILL, None),
}


def run(args, how, env=None):
    """Runs LAUNCHER ARGS PROGRAM CODE_OBJECT HOW; for wait+SIG, sends SIG once it is running."""
    cmd = [launcher, "--sim", *args, program, code_object]
    env = dict(os.environ, **(env or {}))
    # Core dumps of the deaths by SIGSEGV/SIGABRT/SIGQUIT are not wanted here. The signals the
    # cases send start at their default action, as in a program started from a terminal: this
    # test may itself run with one ignored (under nohup, SIGHUP is), which the program inherits.
    def pre():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
            signal.signal(s, signal.SIG_DFL)
    if not how.startswith("wait+"):
        p = subprocess.run(cmd + [how], capture_output=True, text=True, timeout=120, env=env, preexec_fn=pre)
        return p.returncode, p.stdout, p.stderr
    sig = getattr(signal, how.split("+")[1])
    p = subprocess.Popen(cmd + ["wait"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=pre)
    out = ""
    while "looping" not in out:  # the first dispatch and call made
        line = p.stdout.readline()
        if not line:
            break
        out += line
    time.sleep(0.3)  # calls and dispatches go on meanwhile, on several threads
    p.send_signal(sig)
    rest, err = p.communicate(timeout=60)
    return p.returncode, out + rest, err


def expected_status(how, rc, err):
    want = DEATHS[how][0]
    if rc == want:
        return True
    # ASan's SIGSEGV handler (the previous handler the tool chains to) reports and ends the run;
    # ThreadSanitizer's ends it with its exit code, 66, after the tool has ended the trace.
    if not (sanitized and how.startswith("segv")):
        return False
    return (rc in (1, -signal.SIGABRT) and "AddressSanitizer" in err) or (rc == 66 and "ThreadSanitizer" in err)


def dispatched(out):
    for line in out.splitlines():
        if line.startswith("dispatched "):
            return int(line.split()[1])
    return -1


def read_outputs(out_dir, tag, before):
    """-o DIR's trace.json, api_trace.csv and kernel_trace.csv after a death: checks they are there,
    their rows whole and the calls and dispatches made before it present; returns (files, API rows,
    kernel rows, operations) or None when a file is missing."""
    files = {n: os.path.join(out_dir, n) for n in ("trace.json", "api_trace.csv", "kernel_trace.csv")}
    if not all(check(os.path.isfile(f), f"{tag} {n} is there") for n, f in files.items()):
        return None
    with open(files["api_trace.csv"], newline="") as f:
        api = list(csv.reader(f))
    with open(files["kernel_trace.csv"], newline="") as f:
        kernels = list(csv.reader(f))
    check(api and api[0][:4] == ["correlation_id", "thread_id", "kind", "operation"], f"{tag} api_trace.csv header")
    check(all(len(r) == len(api[0]) for r in api), f"{tag} every api_trace.csv row is whole")
    check(all(len(r) == len(kernels[0]) for r in kernels), f"{tag} every kernel_trace.csv row is whole")
    ops = [r[3] for r in api[1:]]
    check("hsa_queue_create" in ops and "hsa_signal_create" in ops, f"{tag} the calls before the death are there")
    check(len(kernels) - 1 >= before, f"{tag} {len(kernels) - 1} dispatch rows >= {before} made before dying")
    return files, api, kernels, ops


# How the record path's trace.json names each end: the tool's finalization ran ("exit"), else how
# the launcher saw its child end.
RECORD_ENDS = {"exit": "exit", "_exit": "_exit(3)", "abort": "SIGABRT", "segv": "SIGSEGV", "segv-handled": "_exit(42)",
               "segv-recover": "exit", "sigint": "SIGINT", "sigterm": "SIGTERM", "sighup": "SIGHUP",
               "sigquit": "SIGQUIT", "sigkill": "SIGKILL", "sigint-handled": "exit", "wait+SIGINT": "SIGINT",
               "wait+SIGTERM": "SIGTERM", "wait+SIGKILL": None}


def check_record_path(tmp):
    """encore-trace -o DIR on the record path: the program's threads copy binary records into mapped
    files; the outputs are written after it ended, however it ended, whole."""
    records = os.path.join(tmp, "records")
    os.mkdir(records)
    for how, (_, why) in DEATHS.items():
        out_dir = os.path.join(tmp, "rec-" + how.replace("+", "-"))
        rc, out, err = run(["--quiet", "-o", out_dir], how, env={"ENCORE_TRACE_RECORDS_TMPDIR": records})
        tag = f"[record path, {how}]"
        if not check(expected_status(how, rc, err), f"{tag} exit status {status_name(rc)}: the program's own"):
            print(err[-3000:])
            continue
        before = dispatched(out)
        check(before > 0, f"{tag} the program made its dispatches before dying")
        end = RECORD_ENDS[how]
        if end is None:
            # SIGKILL to encore-trace itself: the program dies with it; its records stay in the
            # record folder, and encore-trace-convert converts them.
            left = [os.path.join(records, d) for d in os.listdir(records)]
            if not check(len(left) == 1, f"{tag} the record folder stays ({left})"):
                continue
            r = subprocess.run([converter, "--no-summary", "--combined-dir", out_dir, left[0]],
                               capture_output=True, text=True, timeout=120)
            check(r.returncode == 0, f"{tag} encore-trace-convert converts it: {r.stderr[-500:]}")
            subprocess.run(["rm", "-rf", left[0]])
            end = "no exit"
        else:
            check(not os.listdir(records), f"{tag} the record folder is removed after the conversion")
        outputs = read_outputs(out_dir, tag, before)
        if outputs is None:
            continue
        files, api, kernels, ops = outputs
        try:
            with open(files["trace.json"], encoding="utf-8") as f:
                events = json.load(f)
        except ValueError as e:
            check(False, f"{tag} trace.json parses, whole: {e}")
            continue
        ends = [e for e in events if str(e.get("name", "")).startswith("end of trace")]
        if not (sanitized and how.startswith("segv")):  # the sanitizer's handler ends the program its way
            check(len(ends) == 1 and ends[0]["name"] == f"end of trace ({end})" and events[-1] is ends[0],
                  f"{tag} one end-of-trace event, last, naming {end}: {[e['name'] for e in ends]}")
        xs = [e for e in events if e.get("ph") == "X"]
        api_events = [e for e in xs if e["cat"] in ("HSA_CORE_API", "HSA_AMD_EXT_API")]
        kernel_events = [e for e in xs if e["cat"] == "KERNEL_DISPATCH"]
        check(len(api_events) == len(api) - 1, f"{tag} API events ({len(api_events)}) = api_trace.csv rows ({len(api) - 1})")
        check(len(kernel_events) == len(kernels) - 1,
              f"{tag} kernel events ({len(kernel_events)}) = kernel_trace.csv rows ({len(kernels) - 1})")
        if how == "segv-recover":
            check(len(kernel_events) == before + 1 and "recovered" in out,
                  f"{tag} the trace went on after the repaired fault ({len(kernel_events)} dispatches)")
        if how == "sigint-handled":
            check("sigint handled 1 times" in out, f"{tag} the program's own SIGINT handler ran once")
        if how.startswith("wait+") and how != "wait+SIGKILL":
            check("hsa_system_get_info" in ops, f"{tag} calls of the running loop are there")


def check_trace(tmp):
    """encore-trace --live -o DIR: the first tool, writing on the program's threads."""
    for how, (_, why) in DEATHS.items():
        out_dir = os.path.join(tmp, how.replace("+", "-"))
        rc, out, err = run(["--live", "--quiet", "-o", out_dir], how)
        tag = f"[--live, {how}]"
        if not check(expected_status(how, rc, err), f"{tag} exit status {status_name(rc)}"):
            print(err[-3000:])
            continue
        before = dispatched(out)
        check(before > 0, f"{tag} the program made its dispatches before dying")
        outputs = read_outputs(out_dir, tag, before)
        if outputs is None:
            continue
        files, api, kernels, ops = outputs
        if how.startswith("wait"):
            check("hsa_system_get_info" in ops, f"{tag} calls of the running loop are there")
        with open(files["trace.json"], encoding="utf-8") as f:
            text = f.read()
        try:
            events = json.loads(text)
            ended = True
        except ValueError:
            ended = False
        if why is not None:
            if not check(ended, f"{tag} trace.json is ended and parses"):
                print(text[-500:])
                continue
        else:
            check(not ended, f"{tag} trace.json has no end (nothing runs at {how})")
            try:
                events = json.loads(text + "]")  # what a trace-event reader does with a cut array
            except ValueError as e:
                check(False, f"{tag} trace.json parses once ']' is appended: {e}")
                print(text[-500:])
                continue
            check(True, f"{tag} trace.json parses once ']' is appended")
        if not check(isinstance(events, list) and events and events[0].get("name") == "process_name",
                     f"{tag} trace.json is a trace-event array starting with the host process's name"):
            continue
        ends = [e for e in events if str(e.get("name", "")).startswith("end of trace")]
        if why is not None:
            check(len(ends) == 1 and ends[0]["name"] == f"end of trace ({why})" and events[-1] is ends[0],
                  f"{tag} one end-of-trace event, last, naming {why}: {[e['name'] for e in ends]}")
        else:
            check(not ends, f"{tag} no end-of-trace event")
        xs = [e for e in events if e.get("ph") == "X"]
        api_events = [e for e in xs if e["cat"] not in ("KERNEL_DISPATCH", "MEMORY_COPY", "MEMORY_ALLOCATION")]
        kernel_events = [e for e in xs if e["cat"] == "KERNEL_DISPATCH"]
        # A record is two writes (JSON, then CSV): a SIGKILL between them leaves one more in the JSON.
        slack = 2 if why is None else (1 if how.startswith("wait") else 0)
        check(0 <= len(api_events) - (len(api) - 1) <= slack,
              f"{tag} API events ({len(api_events)}) match api_trace.csv rows ({len(api) - 1})")
        check(0 <= len(kernel_events) - (len(kernels) - 1) <= slack,
              f"{tag} kernel events ({len(kernel_events)}) match kernel_trace.csv rows ({len(kernels) - 1})")
        if why not in (None, "exit") and how != "segv-handled":  # that one's handler _exit()s: no death to tell
            check(f"[api-trace] {why}: the program dies" in err or (sanitized and how.startswith("segv")),
                  f"{tag} stderr says the program dies of {why}")
        if how == "segv-recover":
            check(len(kernel_events) == before + 1 and "recovered" in out,
                  f"{tag} the trace went on after the repaired fault ({len(kernel_events)} dispatches)")
        if how == "sigint-handled":
            check("sigint handled 1 times" in out, f"{tag} the program's own SIGINT handler ran")


def check_replay(tmp):
    for how in ("exit", "_exit", "abort", "segv", "sigint", "sigterm", "sigkill", "wait+SIGINT", "wait+SIGKILL"):
        report = os.path.join(tmp, how.replace("+", "-") + ".csv")
        rc, out, err = run(["-n", "2", "-o", report], how)
        tag = f"[{how}]"
        if not check(expected_status(how, rc, err), f"{tag} exit status {status_name(rc)}"):
            print(err[-3000:])
            continue
        before = dispatched(out)
        if not check(os.path.isfile(report), f"{tag} the report is there"):
            continue
        with open(report, newline="") as f:
            rows = list(csv.DictReader(f))
        check(len(rows) >= before > 0, f"{tag} {len(rows)} rows >= {before} dispatches made before dying")
        columns = ["dispatch_id", "kernel", "passes", "min_us", "median_us", "max_us", "snapshot_us", "restore_us",
                   "checksum_us", "snapshot_bytes", "inputs", "process_id"]
        if not check(rows and list(rows[0]) == columns, f"{tag} the report's columns: {list(rows[0]) if rows else None}"):
            continue
        check(all(r["kernel"] == "vector_add" and r["passes"] == "2" and r["inputs"] == "not checked" for r in rows),
              f"{tag} each row: vector_add, 2 passes: {rows[:2]}")
        check(len({r["dispatch_id"] for r in rows}) == len(rows), f"{tag} one row per dispatch")
        check(all(float(r["min_us"]) <= float(r["median_us"]) <= float(r["max_us"]) for r in rows),
              f"{tag} min <= median <= max")
        why = DEATHS[how][1]
        if why not in (None, "exit") and not (sanitized and how == "segv"):
            check(f"[encore-replay] interrupted by {why}: {len(rows)} dispatches replayed so far" in err,
                  f"{tag} stderr says it was interrupted, with the count")
            check("vector_add" in err.split("interrupted by")[-1], f"{tag} the interrupted report has the kernel")
        if how == "exit":
            check("median_us" in err, f"{tag} the full table at exit")


def check_replay_processes(tmp):
    """encore-replay -o FILE over several processes: every process's rows in FILE under one header
    (issue 40 item 6: each process truncated it); a fork child that exits reports its own
    dispatches, under its pid, not the parent's (item 13)."""
    report = os.path.join(tmp, "system.csv")
    rc, out, err = run(["-n", "2", "-o", report], "system")
    rows = list(csv.reader(open(report, newline=""))) if os.path.isfile(report) else []
    check(rc == 0 and len(rows) == 5 and rows[0][0] == "dispatch_id" and
          sum(r[0] == "dispatch_id" for r in rows) == 1,
          f"[replay, system()] the program's 3 dispatches and its child's 1 ({len(rows) - 1} rows), one header: "
          f"{rows[:2]}")
    # Dispatch ids are per process: the last column says whose row it is.
    pids = sorted(sum(r[-1] == pid for r in rows[1:]) for pid in {r[-1] for r in rows[1:]})
    check(rows[:1] and rows[0][-1] == "process_id" and pids == [1, 3],
          f"[replay, system()] the rows name their process: 3 of one pid, 1 of another ({rows})")
    report = os.path.join(tmp, "fork.csv")
    # No leak check in the fork child: LeakSanitizer's stop-the-world in a fork of a threaded
    # process can hang there (seen under ASan: the child spun in AsanDie), and its threads'
    # thread_local registrations read as leaks.
    asan = os.environ.get("ASAN_OPTIONS", "")
    rc, out, err = run(["-n", "2", "-o", report], "fork-exit",
                       env={"ASAN_OPTIONS": (asan + ":" if asan else "") + "detect_leaks=0"})
    rows = list(csv.reader(open(report, newline=""))) if os.path.isfile(report) else []
    check(rc == 0 and len(rows) == 5, f"[replay, fork-exit] the parent's 4 dispatches in the report ({len(rows) - 1} rows)")
    child = err.split("(forked from")[1] if "(forked from" in err else ""
    check(child != "" and "vector_add" not in child.split("[encore-replay] 2 passes per dispatch")[1].split("\n\n")[0]
          if "[encore-replay] 2 passes per dispatch" in child else False,
          f"[replay, fork-exit] the child's report is its own, under its pid: {err[-1500:]!r}")


def check_unwritable(tmp):
    regular = os.path.join(tmp, "a-file")
    with open(regular, "w") as f:
        f.write("not a folder\n")
    name = "encore-trace" if mode == "trace" else "encore-replay"
    # Paths that cannot be written, also by root: under a regular file; in /proc.
    if mode == "trace":
        cases = [(os.path.join(regular, "out"), "Not a directory"), ("/proc/encore-test-out", None),
                 ("/proc/self", None)]
    else:
        cases = [(os.path.join(regular, "report.csv"), "Not a directory"), ("/proc/encore-test-report.csv", None),
                 (tmp, "Is a directory")]
    for path, reason in cases:
        tag = f"[unwritable {path}]"
        rc, out, err = run(["-o", path], "exit")
        check(rc == 2, f"{tag} the launcher exits 2 (got {status_name(rc)})")
        check(out == "", f"{tag} the program did not start")
        line = next((l for l in err.splitlines() if l.startswith(f"{name}: cannot write {path}: ")), None)
        check(line is not None and len(line) > len(f"{name}: cannot write {path}: "),
              f"{tag} says why: {err.strip()[-300:]!r}")
        if reason is not None:
            check(line is not None and line.endswith(reason), f"{tag} the reason is {reason}: {line!r}")
    # The tool's own check, through the environment (no launcher check), at start.
    var = "ENCORE_TRACE_OUTPUT" if mode == "trace" else "ENCORE_REPLAY_REPORT"
    path = os.path.join(regular, "out")
    rc, out, err = run(["--live"] if mode == "trace" else [], "exit", env={var: path})
    tag = f"[{var}={path}]"
    check(rc == 0 and dispatched(out) > 0, f"{tag} the program runs (untraced), exit {rc}")
    check(f"{name}: cannot write {path}: Not a directory" in err, f"{tag} the tool says why at start: {err[-500:]!r}")
    if mode == "trace":
        check("api-trace] tid=" not in err, f"{tag} nothing traced")
        # A folder that exists and can be written, where trace.json cannot be (a folder: EISDIR for root too).
        out_dir = os.path.join(tmp, "blocked")
        os.makedirs(os.path.join(out_dir, "trace.json"))
        rc, out, err = run(["--live", "--quiet", "-o", out_dir], "exit")
        check(f"encore-trace: cannot write {out_dir}/trace.json: Is a directory" in err,
              f"[trace.json is a folder] the tool says why at start: {err[-500:]!r}")
        check(rc == 0 and dispatched(out) > 0, "[trace.json is a folder] the program runs untraced")
    else:
        check("[encore-replay] 2 passes" not in err and "passes per dispatch" not in err,
              f"{tag} no replay report: {err[-300:]!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        if mode == "trace":
            check_record_path(tmp)
            check_trace(tmp)
        else:
            check_replay(tmp)
            check_replay_processes(tmp)
        check_unwritable(tmp)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
