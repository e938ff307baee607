#!/usr/bin/env python3
"""encore-replay --range on CUDA, on the fake driver (test/cuda/range_program.cpp).

usage: check_range_frontend.py ENCORE_REPLAY PROGRAM

Runs PROGRAM bare and under `encore-replay --backend cuda -n 3 --range step` (ENCORE_CUDA_DRIVER
names the fake driver) and checks what a user reads: the program's output unchanged (each step's
passes started from its inputs and the end state is pass 0's), and the per-range report: three
"step" ranges (NVTX push/pop, through libencore-nvtx) replayed, 9 passes, 4 dispatches per pass
(two kernel launches and a graph of two kernel nodes); "other" is not replayed; the graph launched
outside any range is a range of its own ("(graph launches)": 1 replayed, 3 passes, 2 dispatches);
with --verify every pass started from its range's start and every range ended as its pass 0."""
import sys

from frontend_checks import check, failures, run


def main():
    replay, program = sys.argv[1], sys.argv[2]
    rc, bare, err = run([program])
    check(rc == 0 and "range_program: ok" in bare, "the program runs bare", err)
    rc, out, err = run([replay, "--backend", "cuda", "-n", "3", "--verify", "--range", "step", program])
    check(rc == 0, "encore-replay --range exits 0", err)
    check(out == bare, "the program's output is the same replayed", out + err)
    rows = [l.split() for l in err.splitlines() if l.split()[:1] == ["step"]]
    check(len(rows) == 1, "one report row for range step", err)
    if rows:
        f = rows[0]
        check(f[1] == "3" and f[2] == "9" and f[3] == "4.0",
              "3 ranges replayed, 9 passes, 4 dispatches per pass (2 launches + 2 graph nodes)", err)
    graphs = [l.split() for l in err.splitlines() if l.startswith("(graph launches)")]
    check(len(graphs) == 1 and graphs[0][2:5] == ["1", "3", "2.0"],
          "the graph launch outside the ranges: a range of its own, 3 passes, 2 kernel nodes", err)
    # Graph kernels have no KERNEL_DISPATCH records: no GPU time is made up (the columns are "-");
    # the wall time of its replayed passes is measured.
    check(len(graphs) == 1 and graphs[0][5:8] == ["-", "-", "-"] and float(graphs[0][8]) > 0,
          "the graph range: GPU time columns '-', a wall time per replayed pass", err)
    if rows:
        check(len(rows[0]) == 8 and float(rows[0][4]) > 0 and float(rows[0][7]) > 0,
              "range step: GPU time and wall time per pass", err)
    check("not replayed" not in err, "no range declined", err)
    check("verification: 0 of 8 passes started from memory that differs from their range's start; 0 range(s)" in err,
          "verification: 8 passes (3 ranges x 2 + the graph's 2), none diverged", err)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
