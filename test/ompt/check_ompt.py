#!/usr/bin/env python3
"""test/ompt/check_ompt.py — an OpenMP program traced through libencore-ompt.

  check_ompt.py PROGRAM LIBENCORE_OMPT CHECK_TOOL

PROGRAM links count_tool.c (an OMPT tool of its own). It runs twice: bare, then with
libencore-ompt and check_tool.cpp preloaded (encore first in the lookup order, so encore is the
runtime's tool and count_tool is the one it chains to). Checked:
  - the program prints the same results both times;
  - count_tool still counts (the chain works) and, at encore's finalization, has counted exactly
    the records encore delivered: per operation, NONE records = calls, ENTER = begins, EXIT =
    ends (nest_lock: its begins and ends are NONE records, as in the reference);
  - check_tool found no unpaired EXIT, wrong thread id, missing correlation id, or argument
    named otherwise than OpenMP names it;
  - the program did what it exists for: parallel regions, implicit tasks, worksharing, barriers,
    explicit tasks, locks and a critical section were all seen;
  - callbacks the runtime answered ompt_set_never for produced no record.
"""
import os
import subprocess
import sys
import tempfile

# operation id -> (ompt_callbacks_t event, scope?) in rocprofiler-sdk/ompt/api_id.h order
OPS = [(1, False), (2, False), (3, False), (4, False), (5, False), (6, False), (7, True), (12, False),
       (13, False), (14, False), (16, True), (17, False), (18, False), (19, False), (20, True), (21, True),
       (23, True), (24, False), (25, False), (26, False), (27, False), (28, False), (29, False), (30, False),
       (31, True), (32, False), (33, True), (34, True), (35, True), (37, False)]
NAMES = ["thread_begin", "thread_end", "parallel_begin", "parallel_end", "task_create", "task_schedule",
         "implicit_task", "device_initialize", "device_finalize", "device_load", "sync_region_wait",
         "mutex_released", "dependences", "task_dependence", "work", "masked", "sync_region", "lock_init",
         "lock_destroy", "mutex_acquire", "mutex_acquired", "nest_lock", "flush", "cancel", "reduction",
         "dispatch", "target_emi", "target_data_op_emi", "target_submit_emi", "error"]
CALLBACK_FUNCTIONS = 30
MUST_SEE = ["parallel_begin", "parallel_end", "implicit_task", "work", "sync_region", "sync_region_wait",
            "task_create", "task_schedule", "lock_init", "mutex_acquire", "mutex_acquired", "mutex_released"]


def read(path):
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts[0] in ("event", "op"):
                out.setdefault(parts[0], {})[int(parts[1])] = [int(x) for x in parts[2:]]
            elif parts[0] == "problem":
                out.setdefault("problems", []).append(line.strip())
            else:
                out[parts[0]] = int(parts[1])
    return out


def main():
    program, ompt_lib, check_tool = sys.argv[1:4]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, ENCORE_OMPT_COUNT_OUT=os.path.join(tmp, "bare_counts"))
        bare = subprocess.run([program], env=env, capture_output=True, text=True, timeout=120)
        if bare.returncode != 0:
            sys.exit(f"bare run failed ({bare.returncode}): {bare.stderr}")
        preload = ompt_lib + ":" + check_tool
        if os.environ.get("LD_PRELOAD"):  # a sanitizer runtime the test harness preloads goes first
            preload = os.environ["LD_PRELOAD"] + ":" + preload
        env = dict(os.environ, LD_PRELOAD=preload, ENCORE_OMPT_COUNT_OUT=os.path.join(tmp, "final_counts"),
                   ENCORE_OMPT_COUNT_SNAPSHOT=os.path.join(tmp, "snapshot"),
                   ENCORE_OMPT_TRACE_OUT=os.path.join(tmp, "trace"))
        traced = subprocess.run([program], env=env, capture_output=True, text=True, timeout=120)
        if traced.returncode != 0:
            sys.exit(f"traced run failed ({traced.returncode}): {traced.stderr}")
        if traced.stdout != bare.stdout:
            failures.append(f"results changed under tracing:\n{bare.stdout}\nvs\n{traced.stdout}")
        for p in ("snapshot", "trace", "final_counts"):
            if not os.path.exists(os.path.join(tmp, p)):
                sys.exit(f"no {p} file: the tools did not run (stderr: {traced.stderr})")
        bare_counts = read(os.path.join(tmp, "bare_counts"))
        snap = read(os.path.join(tmp, "snapshot"))
        trace = read(os.path.join(tmp, "trace"))
        final = read(os.path.join(tmp, "final_counts"))

    if trace.get("initialized") != 1 or trace.get("finalized") != 1:
        failures.append("rocprofiler_ompt_is_initialized / is_finalized did not report 1 at encore's finalization")
    if final.get("finalized") != 1 or snap.get("finalized") != 1:
        failures.append("the chained tool was not finalized before encore's finalization")
    if snap.get("event") != final.get("event"):
        failures.append("the runtime made callbacks after encore's finalization")
    if trace.get("open", 1) != 0:
        failures.append(f"{trace.get('open')} scopes had an ENTER and no EXIT")
    if trace.get("errors", 1) != 0:
        failures.append("check_tool: " + "; ".join(trace.get("problems", [])))
    # The chained tool hears what the runtime answered, event by event (through encore's
    # ompt_set_callback for the events encore traces, the runtime's own for the others), and its
    # ompt_get_callback gives back what it set.
    bare_results = {e: v[0] for e, v in bare_counts.get("event", {}).items()}
    traced_results = {e: v[0] for e, v in final.get("event", {}).items()}
    if bare_results != traced_results:
        failures.append(f"ompt_set_callback answers differ: bare {bare_results} traced {traced_results}")
    if 15 not in traced_results:
        failures.append("device_unload (an event encore does not trace) did not reach the runtime")
    if bare_counts.get("get_callback_ok") != 1 or final.get("get_callback_ok") != 1:
        failures.append("the chained tool's ompt_get_callback did not give back its callback")
    seen = {}
    for op, (event, scope) in enumerate(OPS):
        name = NAMES[op]
        got = trace["op"][op]  # NONE ENTER EXIT
        if event not in snap.get("event", {}):
            failures.append(f"{name}: count_tool did not register it")
            continue
        set_result, calls, begins, ends, beginends = snap["event"][event]
        if scope:
            want = [0, begins + beginends, ends + beginends]
        else:
            want = [calls + begins + ends, 0, 0]
        if got != want:
            failures.append(f"{name}: encore delivered NONE/ENTER/EXIT {got}, the runtime made {want}")
        if set_result == 1 and any(got):
            failures.append(f"{name}: records for a callback the runtime never makes")
        seen[name] = sum(want)
        print(f"{name:20s} set_result={set_result} records={got}")
    if trace["op"][CALLBACK_FUNCTIONS] != [1, 0, 0]:
        failures.append(f"callback_functions: {trace['op'][CALLBACK_FUNCTIONS]} records, want one")
    for name in MUST_SEE:
        if seen.get(name, 0) == 0:
            failures.append(f"{name}: never seen; the program should make it")
    if seen.get("thread_end", 0) == 0:
        failures.append("thread_end: never seen; the runtime ends its threads before encore finalizes")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print("ok:", bare.stdout.strip())


if __name__ == "__main__":
    main()
