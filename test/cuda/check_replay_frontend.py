#!/usr/bin/env python3
"""encore-replay's CUDA front end on the fake driver (test/cuda/replay_program.cpp).

usage: check_replay_frontend.py ENCORE_REPLAY PROGRAM TOOL

Runs PROGRAM bare and under encore-replay (ENCORE_CUDA_DRIVER names the fake driver) and checks
what a user reads: the program's output unchanged, the per-kernel table (launches, passes,
demangled names, GPU times, snapshot/restore/checksum costs, identical inputs), the CSV, -k
selection by demangled name and by symbol, --cache-control (the fake counts the L2-sized writes
before each pass), the backend detected from the program, and bad options refused with exit 2. TOOL (the
replay_bench library) runs the program without the front end, for libencore-cuda's own reading of
ENCORE_CUDA_REPLAY_CACHE_CONTROL."""
import csv
import os
import sys
import tempfile

from frontend_checks import check, failures, run

SAXPY = "saxpy(float*, float, float const*, int)"
COLUMNS = ["dispatch_id", "kernel", "passes", "min_us", "median_us", "max_us", "snapshot_us", "restore_us",
           "checksum_us", "snapshot_bytes", "inputs", "process_id"]


def table(stderr):
    """The exit table's rows by kernel name: dispatches, passes, min, median, max, snapshot, restore,
    checksum (numbers), inputs (text)."""
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
                rows[name] = {"dispatches": int(f[0]), "passes": int(f[1]), "times": [float(v) for v in f[2:8]],
                              "inputs": " ".join(f[8:8 + inputs_words])}
    return rows


def csv_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def main():
    replay, program, tool = sys.argv[1], sys.argv[2], sys.argv[3]
    rc, bare, err = run([program])
    check(rc == 0 and "replay_program: ok" in bare, f"the program runs bare (rc={rc})", bare + err)

    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "replay.csv")
        rc, out, err = run([replay, "--backend", "cuda", "-n", "3", "--verify", "-o", report, program],
                           {"FAKE_CUDA_REPORT": "1"})
        check(rc == 0 and out == bare, f"replayed: the program's output is bit-identical to the bare run (rc={rc})",
              out + err)
        t = table(err)
        check(set(t) == {SAXPY, "count"}, f"table: the two kernels, demangled ({sorted(t)})", err)
        if SAXPY in t and "count" in t:
            check(t[SAXPY]["dispatches"] == 3 and t[SAXPY]["passes"] == 9, "table: saxpy 3 launches x 3 passes", err)
            check(t["count"]["dispatches"] == 2 and t["count"]["passes"] == 6, "table: count 2 launches x 3 passes", err)
            for k, r in t.items():
                mn, med, mx, snap, restore, checksum = r["times"]
                check(0 <= mn <= med <= mx, f"table: {k}: min <= median <= max", err)
                check(snap > 0 and restore > 0 and checksum > 0, f"table: {k}: snapshot, restore, checksum timed", err)
                check(r["inputs"] == "identical", f"table: {k}: inputs identical", err)
        check("3 passes per dispatch, inputs verified" in err, "table: its heading", err)
        check("fake-cuda: memsets=0 l2_flushes=0" in err, "no --cache-control: the L2 is not flushed", err)
        rows = csv_rows(report)
        check(rows and rows[0] == COLUMNS, f"CSV columns {rows[0] if rows else None}")
        body = [dict(zip(rows[0], r)) for r in rows[1:]]
        check(len(body) == 5 and all(len(r) == len(COLUMNS) for r in rows[1:]), "CSV: one whole row per launch",
              str(rows))
        check(sorted(r["kernel"] for r in body) == sorted([SAXPY] * 3 + ["count"] * 2),
              "CSV: kernels named (the demangled name quoted)", str(rows))
        check(all(r["passes"] == "3" and r["inputs"] == "identical" for r in body), "CSV: 3 passes, identical inputs",
              str(rows))
        check(len({r["process_id"] for r in body}) == 1 and all(r["process_id"].isdigit() for r in body),
              "CSV: every row names the one process's pid", str(rows))
        # Footprint: x and y (16 KiB each) and the counter's 256 bytes, each 256-byte aligned.
        check(all(int(r["snapshot_bytes"]) == 2 * 16384 + 256 for r in body), "CSV: the snapshot's bytes", str(rows))
        check(all(float(r["min_us"]) <= float(r["median_us"]) <= float(r["max_us"]) for r in body),
              "CSV: min <= median <= max")
        check(len({r["dispatch_id"] for r in body}) == 5, "CSV: one row per dispatch id")

        # Without --verify: no checksums, inputs not checked.
        rc, out, err = run([replay, "-n", "2", "-o", report, program])
        body = [dict(zip(COLUMNS, r)) for r in csv_rows(report)[1:]]
        check(rc == 0 and out == bare, "detected backend (the program links libcuda.so.1): runs, output unchanged",
              out + err)
        check(len(body) == 5 and all(r["inputs"] == "not checked" and float(r["checksum_us"]) == 0 for r in body),
              "no --verify: inputs not checked, no checksum cost", str(body))

    # -k: by the demangled name, by the symbol; unselected kernels run once.
    for pattern, want in (("count", {"count"}), ("saxpy(float*", {SAXPY}), ("_Z5saxpy", {SAXPY})):
        rc, out, err = run([replay, "-n", "2", "-k", pattern, program])
        t = table(err)
        check(rc == 0 and out == bare and set(t) == want, f"-k {pattern}: only {sorted(want)} replayed ({sorted(t)})",
              out + err)

    # -c: the first N selected dispatches only (here: the first 2 saxpy launches of 3).
    rc, out, err = run([replay, "-n", "2", "-k", "saxpy", "-c", "2", program])
    t = table(err)
    check(rc == 0 and out == bare and t.get(SAXPY, {}).get("dispatches") == 2 and "count" not in t,
          "-k saxpy -c 2: 2 saxpy launches replayed", out + err)

    # The tool's own check of ENCORE_REPLAY_COUNT (set without -c): a bad value is ignored, said once.
    for bad in ("0", "2x", "-1"):
        rc, out, err = run([replay, "-n", "2", program], {"ENCORE_REPLAY_COUNT": bad})
        t = table(err)
        check(rc == 0 and out == bare and err.count(f"ignoring ENCORE_REPLAY_COUNT={bad} ") == 1 and
              t.get(SAXPY, {}).get("dispatches") == 3, f"ENCORE_REPLAY_COUNT={bad}: ignored with a message", err)

    # --cache-control: all flushes before every pass (15 = 5 launches x 3 passes), none does not.
    for mode, flushes in (("all", 15), ("none", 0)):
        rc, out, err = run([replay, "-n", "3", "--cache-control", mode, program], {"FAKE_CUDA_REPORT": "1"})
        check(rc == 0 and out == bare, f"--cache-control {mode}: output unchanged", out + err)
        check(f"l2_flushes={flushes}\n" in err, f"--cache-control {mode}: {flushes} L2 flushes", err)
    # The flush writes twice the L2: with a larger L2 it is still one write per pass.
    rc, out, err = run([replay, "-n", "2", "--cache-control", "all", program],
                       {"FAKE_CUDA_REPORT": "1", "FAKE_CUDA_L2_BYTES": str(8 << 20)})
    check(rc == 0 and "l2_flushes=10\n" in err, "--cache-control all with an 8 MiB L2: 10 flushes", err)
    # A device that reports no L2 size: warned once, the passes run (warm).
    rc, out, err = run([replay, "-n", "2", "--cache-control", "all", program],
                       {"FAKE_CUDA_REPORT": "1", "FAKE_CUDA_L2_BYTES": "0"})
    check(rc == 0 and out == bare and err.count("the L2 cannot be flushed") == 1 and "l2_flushes=0\n" in err,
          "no L2 size: warned once, not flushed, output unchanged", err)

    # libencore-cuda's own reading of ENCORE_CUDA_REPLAY_CACHE_CONTROL (the tool without the front end).
    direct = {"ROCP_TOOL_LIBRARIES": tool, "ENCORE_REPLAY_PASSES": "2", "FAKE_CUDA_REPORT": "1"}
    for value, flushes, warned in (("all", 10, 0), ("none", 0, 0), ("", 0, 0), ("sometimes", 0, 1)):
        rc, out, err = run([program], dict(direct, ENCORE_CUDA_REPLAY_CACHE_CONTROL=value))
        check(rc == 0 and out == bare and f"l2_flushes={flushes}\n" in err and
              err.count("ENCORE_CUDA_REPLAY_CACHE_CONTROL is neither all nor none") == warned,
              f"ENCORE_CUDA_REPLAY_CACHE_CONTROL={value!r}: {flushes} flushes, warned {warned} times", err)

    # Bad options: exit 2 with a message, the program does not run.
    bad = [
        (["--cache-control", "some"], "--cache-control takes all or none"),
        (["--backend", "rocm"], "--backend takes hsa or cuda"),
        (["--backend", "cuda", "--sim"], "--sim and --real are for the HSA backend"),
        (["-n", "1"], "encore-replay: -n"),
        (["-c", "0"], "-c needs a decimal count"),
        (["-c", "2x"], "-c needs a decimal count"),
        (["--policy", "fast"], "--policy full_copy or changed_chunks"),
        (["--frobnicate"], "unknown option --frobnicate"),
    ]
    for args, message in bad:
        rc, out, err = run([replay] + args + [program])
        check(rc == 2 and message in err and "replay_program" not in out, f"{' '.join(args)} refused: {message!r}",
              f"rc={rc}\n{out}{err}")
    rc, out, err = run([replay, "--cache-control"])
    check(rc == 2 and "--cache-control needs a value" in err, "--cache-control without a value refused", err)
    # On HSA --cache-control all is not supported (or, in a CUDA-only build, HSA itself is not).
    rc, out, err = run([replay, "--backend", "hsa", "--cache-control", "all", program])
    check(rc == 2 and ("not supported on the HSA backend" in err or "no HSA backend" in err),
          "--backend hsa --cache-control all refused", err)

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all encore-replay CUDA front-end checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
