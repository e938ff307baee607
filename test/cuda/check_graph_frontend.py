#!/usr/bin/env python3
"""Kernel replay of CUDA graph kernel nodes, through encore-replay on the fake driver
(test/cuda/graph_program.cpp).

usage: check_graph_frontend.py ENCORE_REPLAY PROGRAM

Runs PROGRAM bare and under encore-replay and checks: the program's output bit-identical to the
bare run; every kernel node of the "main" graph (two captured kernels, a memset, a memcpy and a
child graph nested two deep) replayed on its own, N passes each with identical inputs (--verify),
once per graph launch; -k selecting a node by its kernel name (one in the child graph too) and -c
counting selected dispatches; --metrics counting the nodes of a selected kernel (with and without
replay passes); the graph with a host node and the execs changed after instantiation
(cuGraphNodeSetEnabled; the v1 and v2 ABIs of cuGraphExecKernelNodeSetParams, linked, and of
cuGraphExecUpdate, from cuGetProcAddress) and the graph with a device-updatable node launched
whole, each reason warned once; kernel nodes with launch attributes (cluster dimensions and a
priority, cooperative) replayed with them, which the program's output shows."""
import csv
import os
import sys
import tempfile

from frontend_checks import check, failures, run

HOST_WARNING = "the graph has a host node"
UPDATED_WARNING = "the exec was changed after instantiation"
UPDATABLE_WARNING = "kernel node is device-updatable"
FOUR = "sm__inst_executed.sum,sm__warps_launched.sum,sm__cycles_elapsed.max,dram__bytes_read.sum"


def table(stderr):
    """The exit table's rows of replayed kernels by name: {dispatches, passes, inputs}."""
    rows = {}
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if line.split()[:2] == ["dispatches", "passes"]:
            for row in lines[i + 1:]:
                f = row.split()
                if len(f) < 10 or not f[0].isdigit():
                    break
                inputs_words = 2 if f[8] in ("not",) or (len(f) > 9 and f[9] == "differ") else 1
                name = " ".join(f[8 + inputs_words:])
                if int(f[0]) != 0:  # a kernel whose launches were all declined (captured) has a row of zeros
                    rows[name] = {"dispatches": int(f[0]), "passes": int(f[1]),
                                  "inputs": " ".join(f[8:8 + inputs_words])}
    return rows


def main():
    replay, program = sys.argv[1], sys.argv[2]
    rc, bare, err = run([program])
    check(rc == 0 and "graph_program: ok" in bare, f"the program runs bare (rc={rc})", bare + err)

    rc, out, err = run([replay, "--backend", "cuda", "-n", "3", "--verify", program])
    check(rc == 0 and out == bare, f"replayed: the program's output is bit-identical to the bare run (rc={rc})",
          out + err)
    t = table(err)
    want = {"triple": 3, "bump": 6, "add_to": 6, "seen": 4}
    check({k: r["dispatches"] for k, r in t.items()} == want,
          f"every kernel node of the main and attributes graphs replayed, once per graph launch ({t})", err)
    check(all(r["passes"] == 3 * r["dispatches"] and r["inputs"] == "identical" for r in t.values()),
          "3 passes per node dispatch, inputs identical", err)
    check("twice" not in t, "the updated and changed execs' kernel is not replayed", err)
    check(err.count(HOST_WARNING) == 1, "the graph with a host node runs whole, said once", err)
    check(err.count(UPDATED_WARNING) == 1, "the updated and changed execs run whole, said once", err)
    check(err.count(UPDATABLE_WARNING) == 1, "the device-updatable node's graph runs whole, said once", err)
    check("are not kernel-replayed: they run once" not in err, "no blanket graph warning", err)

    # -k selects nodes by kernel name, in the graph and in its child graphs; the rest run once.
    for pattern, want in (("triple", {"triple": 3}), ("add_to", {"add_to": 6})):
        rc, out, err = run([replay, "-n", "2", "--verify", "-k", pattern, program])
        t = table(err)
        check(rc == 0 and out == bare and {k: r["dispatches"] for k, r in t.items()} == want and
              all(r["passes"] == 2 * r["dispatches"] and r["inputs"] == "identical" for r in t.values()),
              f"-k {pattern}: only its nodes replayed ({t})", out + err)

    # -c: the first N selected dispatches only. The launch of triple captured into the graph is
    # the first (declined: the stream was capturing), then the node's, one per graph launch.
    rc, out, err = run([replay, "-n", "2", "-k", "triple", "-c", "3", program])
    t = table(err)
    check(rc == 0 and out == bare and {k: r["dispatches"] for k, r in t.items()} == {"triple": 2},
          f"-k triple -c 3: the captured launch and 2 node dispatches ({t})", out + err)

    # --metrics (the fake CUPTI profiler, ENCORE_CUPTI_LIBRARY): graph kernel nodes are counted like
    # launches, with 4 metrics in 2 replayed passes and with 1 metric counted without replay.
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "m.csv")
        for metrics, n in ((FOUR, 4), ("sm__inst_executed.sum", 1)):
            rc, out, err = run([replay, "--backend", "cuda", "--metrics", metrics, "-k", "triple", "-o", report,
                                program])
            with open(report, newline="", encoding="utf-8") as f:
                rows = [r for r in csv.DictReader(f) if r["kernel"] == "triple" and r["value"] != ""]
            check(rc == 0 and out == bare and len(rows) == 3 * n and len({r["dispatch_id"] for r in rows}) == 3,
                  f"--metrics {metrics} -k triple: each of the 3 node dispatches counted ({len(rows)} rows)",
                  out + err)

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all CUDA graph node replay checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
