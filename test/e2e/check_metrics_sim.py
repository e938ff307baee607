#!/usr/bin/env python3
"""encore-replay --metrics on the software HSA runtime (the replay-pair example: `bump`, 67
work-items per workgroup, and `nudge`, 64, one dispatch each of WORKGROUPS workgroups).

usage: check_metrics_sim.py ENCORE_REPLAY PROGRAM CODE_OBJECT

The software runtime's counters by name, in one pass (they always fit one), one CSV row per
metric per dispatch with the values docs/counters.md gives (SQ_WAVES: 2 waves per 67-item
workgroup, 1 per 64-item one; SPI_CSN_NUM_THREADGROUPS: the workgroups), -k selection, and
unknown names refused by name with the agent's metrics listed, exit 2, without numbers."""
import csv
import os
import subprocess
import sys
import tempfile

WORKGROUPS = 10
# The software runtime's counters (docs/counters.md)
SIM_COUNTERS = ["SQ_WAVES", "SPI_CSN_NUM_THREADGROUPS", "GRBM_COUNT", "GRBM_GUI_ACTIVE", "ENCORE_KERNEL_BUSY_NS"]
failures = []


def check(cond, what, detail=""):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
        print(detail[-3000:])


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    replay, program, co = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "m.csv")
        rc, out, err = run([replay, "--sim", "--metrics", "SQ_WAVES,SPI_CSN_NUM_THREADGROUPS,GRBM_COUNT", "-o", report,
                            program, co, str(WORKGROUPS)])
        check(rc == 0 and f"replayed_bump={WORKGROUPS} opted_nudge={WORKGROUPS}" in out, f"the program's result (rc={rc})",
              out + err)
        check("3 metrics in 1 pass" in err, "the schedule: one pass", err)
        with open(report, newline="", encoding="utf-8") as f:
            rows = {(r["kernel"], r["metric"]): r for r in csv.DictReader(f)}
        want = {("bump", "SQ_WAVES"): 2 * WORKGROUPS, ("bump", "SPI_CSN_NUM_THREADGROUPS"): WORKGROUPS,
                ("nudge", "SQ_WAVES"): WORKGROUPS, ("nudge", "SPI_CSN_NUM_THREADGROUPS"): WORKGROUPS}
        for key, value in want.items():
            check(key in rows and rows[key]["value"] != "" and float(rows[key]["value"]) == value,
                  f"{key}: {value}", str(rows.get(key)))
        check(("bump", "GRBM_COUNT") in rows and float(rows[("bump", "GRBM_COUNT")]["value"]) > 0, "GRBM_COUNT > 0",
              str(rows))
        rc, out, err = run([replay, "--sim", "--metrics", "SQ_WAVES", "-k", "bump", "-o", report, program, co,
                            str(WORKGROUPS)])
        with open(report, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        check(rc == 0 and [r["kernel"] for r in rows] == ["bump"], "-k bump: one row", str(rows))
        # Unknown names (a typo beside a valid one): each named, the agent's metrics listed, exit 2 at
        # the first selected dispatch, before it runs (no row, the program stopped there).
        rc, out, err = run([replay, "--sim", "--metrics", "SQ_WAVES,SQ_WAVEZ,NO_SUCH_COUNTER", "-o", report, program,
                            co, str(WORKGROUPS)])
        with open(report, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        check(rc == 2, f"unknown metrics: exit 2 (rc={rc})", err)
        check("has no metric SQ_WAVEZ, NO_SUCH_COUNTER" in err and rows == [], "the unknown metrics are named", err)
        listed = err[err.find("its metrics:"):] if "its metrics:" in err else ""
        for name in SIM_COUNTERS:
            check(name in listed, f"the agent's metric {name} is listed", err)
        check("replayed_bump" not in out, "the program stops at its first selected dispatch", out)
        rc, out, err = run([replay, "--sim", "--metrics", "SQ_WAVES", "--range", "x", program, co])
        check(rc == 2 and "--range and --metrics" in err, "--range with --metrics: exit 2", err)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("check_metrics_sim: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
