#!/usr/bin/env python3
"""encore-replay --metrics on the fake driver and the fake CUPTI profiler (test/cuda/metrics_program.cpp,
fake_cupti_profiler.cpp).

usage: check_metrics_frontend.py ENCORE_REPLAY PROGRAM

Checks what a user reads: the program's output unchanged; the schedule (four metrics, two passes
under the fake's rule of two base metrics per pass), as ENCORE_METRICS_SCHEDULE in the test's
environment picks it: library (the default: one multi-pass config, the same profiler object for
every dispatch) or groups (one-pass groups in turn); one CSV row per metric per selected dispatch
with the fake's values for the launch's geometry (32 blocks of 256 threads: 256 warps, 2560
instructions); dram__bytes_read.sum, which the kernel reports as n x 4 x (1 + its launch count so
far), equal to what the dispatch's own inputs give although it is collected in the second pass (so
that pass started from the restored memory); -k and -c selection; a one-group list counted without
replay; the failure paths (no CUPTI, no permission, an unknown metric, a metric that needs two
passes alone: collected by the library's schedule, refused by name by the groups') reported
without made-up numbers; bad option combinations refused with exit 2."""
import csv
import os
import sys
import tempfile

from frontend_checks import check, failures, run

N = 8192
WARPS = 32 * 256 // 32
FOUR = "sm__inst_executed.sum,sm__warps_launched.sum,sm__cycles_elapsed.max,dram__bytes_read.sum"


def num(text):
    """A CSV value: NaN for an empty field (a metric that got no value), so checks fail, not raise."""
    try:
        return float(text)
    except ValueError:
        return float("nan")


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main():
    replay, program = sys.argv[1], sys.argv[2]
    rc, bare, err = run([program])
    check(rc == 0 and "metrics_program: count=3" in bare and " ok" in bare, f"the program runs bare (rc={rc})",
          bare + err)

    groups = os.environ.get("ENCORE_METRICS_SCHEDULE", "library") == "groups"
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "m.csv")
        rc, out, err = run([replay, "--backend", "cuda", "--metrics", FOUR, "-k", "stream", "-o", report, program],
                           {"FAKE_CUDA_REPORT": "1"})
        check(rc == 0 and out == bare, f"counted: the program's output is unchanged (rc={rc})", out + err)
        if groups:
            check("4 metrics in 2 passes (the counter library's own multi-pass config: 2); pass 0: sm__inst_executed.sum "
                  "sm__warps_launched.sum, pass 1: sm__cycles_elapsed.max dram__bytes_read.sum" in err,
                  "the schedule: two one-pass groups, said on stderr", err)
        else:
            check("4 metrics in 2 passes (the counter library's own multi-pass schedule: one config in every pass, "
                  "the values with the last)" in err, "the schedule: one multi-pass config, said on stderr", err)
            # One profiler object and one SetConfig per dispatch (3 of them, 2 passes each), where
            # the groups take a new object at each change of metric set.
            check("fake_cupti_profiler: enables=1 set_configs=3 ranges=3 " in err,
                  "the library's schedule: one profiler object, one SetConfig and one decoded range per dispatch", err)
        r = rows(report)
        check(len(r) == 12, f"CSV: 3 dispatches x 4 metrics ({len(r)} rows)", str(r))
        by = {}
        for row in r:
            by.setdefault(int(row["dispatch_id"]), {})[row["metric"]] = row
        check(all(row["kernel"] == "stream" and row["passes"] == "2" for row in r), "CSV: kernel stream, 2 passes",
              str(r))
        for k, dispatch in enumerate(sorted(by)):
            m = by[dispatch]
            # Every other dispatch runs the groups in reverse order (one metric-set change a dispatch);
            # the library's schedule does not say which pass counted what (the fake counts
            # dram__bytes_read in the second: the identical-inputs check below holds all the same).
            first, second = (("0", "1") if k % 2 == 0 else ("1", "0")) if groups else ("", "")
            check(num(m["sm__inst_executed.sum"]["value"]) == 10 * WARPS and m["sm__inst_executed.sum"]["pass"] == first,
                  f"dispatch {dispatch}: sm__inst_executed.sum = 10 x warps, in pass {first}", str(m))
            check(num(m["sm__warps_launched.sum"]["value"]) == WARPS, f"dispatch {dispatch}: warps", str(m))
            check(num(m["sm__cycles_elapsed.max"]["value"]) > 0 and m["sm__cycles_elapsed.max"]["pass"] == second,
                  f"dispatch {dispatch}: cycles measured, in pass {second}", str(m))
            check(num(m["dram__bytes_read.sum"]["value"]) == 4 * N * (1 + k) and m["dram__bytes_read.sum"]["pass"] == second,
                  f"dispatch {dispatch}: pass {second} read the bytes the dispatch's own inputs give (identical inputs)",
                  str(m))
        check("stream" in err and "dram__bytes_read.sum" in err, "the exit table names kernel and metric", err)

        # -c 1 and a one-group list: run once (no replay), counted all the same.
        rc, out, err = run([replay, "--backend", "cuda", "--metrics", "sm__inst_executed.sum,dram__bytes_write.sum",
                            "-k", "stream", "-c", "1", "-o", report, program])
        r = rows(report)
        check(rc == 0 and out == bare and len(r) == 2 and all(x["passes"] == "1" for x in r),
              f"-c 1, one group: one dispatch counted in one pass ({len(r)} rows)", err + str(r))
        check(any(x["metric"] == "dram__bytes_write.sum" and num(x["value"]) == 4 * 32 * 256 for x in r),
              "dram__bytes_write.sum = 4 bytes a thread", str(r))

        # --cache-control all: the L2 written over before every counted pass (the fake counts the
        # memsets of twice its L2): 3 dispatches x 2 passes replayed; 1 counted outside replay.
        rc, out, err = run([replay, "--backend", "cuda", "--metrics", FOUR, "--cache-control", "all", "-k", "stream",
                            "-o", report, program], {"FAKE_CUDA_REPORT": "1"})
        check(rc == 0 and out == bare and "l2_flushes=6\n" in err, "--cache-control all: an L2 flush before each of 6 passes",
              err)
        rc, out, err = run([replay, "--backend", "cuda", "--metrics", "sm__inst_executed.sum", "--cache-control", "all",
                            "-k", "stream", "-c", "1", "-o", report, program], {"FAKE_CUDA_REPORT": "1"})
        check(rc == 0 and out == bare and "l2_flushes=1\n" in err and len(rows(report)) == 1,
              "--cache-control all, one group (no replay): the counted launch is flushed before too", err)
        rc, out, err = run([replay, "--backend", "cuda", "--metrics", FOUR, "-k", "stream", "-o", report, program],
                           {"FAKE_CUDA_REPORT": "1"})
        check(rc == 0 and "l2_flushes=0\n" in err, "--cache-control none (the default): no flush", err)

        # Failure paths: stated once, no numbers.
        for env, words in (({"ENCORE_CUPTI_LIBRARY": "/nonexistent/libcupti.so"}, "CUDA devices have no hardware counters"),
                           ({"FAKE_CUPTI_PROFILER_FAIL": "initialize"}, "NVreg_RestrictProfilingToAdminUsers"),
                           ({"FAKE_CUPTI_PROFILER_FAIL": "unsupported"}, "CUPTI cannot profile device 0"),
                           ({"FAKE_CUPTI_PROFILER_FAIL": "enable"}, "cuptiRangeProfilerEnable returned 35")):
            rc, out, err = run([replay, "--backend", "cuda", "--metrics", FOUR, "-o", report, program], env)
            r = rows(report)
            check(rc == 0 and out == bare and words in err and all(x["value"] == "" for x in r),
                  f"{env}: the program runs, '{words}' said, no values ({len(r)} rows)", err + str(r))
        # An unknown metric: named, with the device's metrics of its unit, exit 2 at the first selected launch.
        rc, out, err = run([replay, "--backend", "cuda", "--metrics", "sm__bogus.sum", program])
        check(rc == 2 and "has no metric sm__bogus.sum" in err and "sm__inst_executed.sum" in err,
              f"an unknown metric is named, the device's listed, exit 2 (rc={rc})", err)
        rc, out, err = run([replay, "--backend", "cuda", "--metrics", "lts__t_sectors.sum", "-k", "stream", "-o", report,
                            program])
        if groups:
            check(rc == 0 and "lts__t_sectors.sum alone needs more than one pass" in err,
                  "a metric that needs two passes alone is refused by name", err)
        else:
            r = rows(report)
            check(rc == 0 and out == bare and len(r) == 3 and
                  all(x["passes"] == "2" and x["value"] != "" and num(x["value"]) == 32 * 256 // 8 for x in r),
                  "a metric that needs two passes alone: collected over two passes (threads / 8)", err + str(r))
        rc, out, err = run([replay, "--backend", "cuda", "--pass-schedule", "sometimes", "--metrics", "x", program])
        check(rc == 2 and "--pass-schedule takes library or groups" in err, "--pass-schedule with a bad value: exit 2", err)
        rc, out, err = run([replay, "--backend", "cuda", "--pass-schedule", "groups", program])
        check(rc == 2 and "--pass-schedule goes with --metrics" in err, "--pass-schedule without --metrics: exit 2", err)
        rc, out, err = run([replay, "--backend", "cuda", "--metrics", "x", "-n", "3", program])
        check(rc == 2 and "-n and --metrics" in err, "-n with --metrics: exit 2", err)
        rc, out, err = run([replay, "--backend", "cuda", "--metrics", "x", "--verify", program])
        check(rc == 2 and "--verify and --metrics" in err, "--verify with --metrics: exit 2", err)
        rc, out, err = run([replay, "--backend", "cuda", "--metrics", program])
        check(rc == 2, "--metrics without a value: exit 2", err)

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("check_metrics_frontend: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
