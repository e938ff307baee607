#!/usr/bin/env python3
"""Reads encore-replay --metrics' CSV (-o FILE) and Nsight Compute's (--csv) for metrics_vs_ncu.sh.

  metrics_compare.py pick CSV [PREFER]    the base name (no namespace, template or parameters) of
                                          the kernel counted most often (among those whose name
                                          contains PREFER, when any does): a -k / ncu regex for both
  metrics_compare.py compare NAME ENC_CSV NCU_OUT [--bytes B]
                                          per metric, encore's value against ncu's for the same
                                          launches in the same order, and PASS:/FAIL: lines:
                                          instruction counts equal; dram bytes within 1 % of the
                                          launch's DRAM traffic by ncu (reads + writes) or 8 KiB,
                                          whichever is larger (and, with --bytes,
                                          dram__bytes_read.sum within 2 % of B);
                                          gpu__time_duration.sum's median within 15 % or 0.5 us,
                                          whichever is larger. Exit status:
                                          the number of failed checks.
"""
import csv
import statistics
import sys

from replay_csv import base  # a kernel's name without namespaces, templates and parameters

EXACT = ("sm__inst_executed.sum", "smsp__inst_executed.sum", "sm__warps_launched.sum")
# DRAM bytes: what a kernel moves is deterministic, but how much of its writes the L2 holds back,
# and a few sectors of parameters and code, depend on the cache's state, which the two tools leave
# differently (ncu invalidates the L2; encore evicts it with a write and a read sweep): a short
# kernel's written bytes are a residue of eviction (an H200 run: 0.06-0.63 MB under encore, 0.74 MB
# under ncu, for a Triton add moving 50 MB). So the tolerance is a share of the launch's whole
# DRAM traffic, and at least 8 KiB (256 sectors) for kernels that move a few KiB: PyTorch's fill
# kernel, which reads no data, read 0 to 4.9 KB (its code and parameters, or none when the L2 still
# held them) under both tools in one H200 run, launch by launch in a different order.
BYTES_TOLERANCE = 0.01
BYTES_FLOOR = 8192
# Time: 15 % of ncu's median, and at least 0.5 us: for the same 1.6 us fill kernel ncu's own median
# was 1632 ns in one run and 1888 ns in the next (H200, 2026-12-02), a 16 % spread between two runs
# of one tool.
TIME_TOLERANCE = 0.15
TIME_FLOOR_NS = 500
UNITS = {"": 1, "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9,
         "nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9,
         "inst": 1, "Kinst": 1e3, "Minst": 1e6, "Ginst": 1e9, "warp": 1, "cycle": 1, "Kcycle": 1e3, "Mcycle": 1e6,
         "sector": 1, "request": 1, "%": 1}


def encore(path):
    """[(dispatch_id, kernel, {metric: value or None})] in dispatch order."""
    by = {}
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            d = by.setdefault(int(r["dispatch_id"]), (r["kernel"], {}))
            d[1][r["metric"]] = float(r["value"]) if r["value"] != "" else None
    return [(k, v[0], v[1]) for k, v in sorted(by.items())]


def ncu(path):
    """[(id, kernel, {metric: value in base units})] in ncu's order."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]
    by = {}
    for r in csv.DictReader(lines):
        if "Metric Name" not in r or "ID" not in r:
            continue
        value = r["Metric Value"].replace(",", "")
        try:
            v = float(value) * UNITS.get(r.get("Metric Unit", ""), 1)
        except ValueError:
            continue
        by.setdefault(int(r["ID"]), (r["Kernel Name"], {}))[1][r["Metric Name"]] = v
    return [(k, v[0], v[1]) for k, v in sorted(by.items())]


def compare(name, enc_path, ncu_path, known_bytes):
    enc, nc = encore(enc_path), ncu(ncu_path)
    fails = 0

    def check(ok, what):
        nonlocal fails
        print(("PASS: " if ok else "FAIL: ") + f"{name}: {what}")
        fails += 0 if ok else 1

    check(len(enc) > 0 and len(nc) > 0, f"launches counted: encore {len(enc)}, ncu {len(nc)}")
    n = min(len(enc), len(nc))
    if n == 0:
        return fails + 1
    check(all(base(enc[i][1]) == base(nc[i][1]) for i in range(n)),
          f"the same kernels in the same order ({base(enc[0][1])} / {base(nc[0][1])})")
    metrics = sorted(set(enc[0][2]) & set(nc[0][2]))
    missing = sorted(set(enc[0][2]) - set(nc[0][2]))
    if missing:
        print(f"  (ncu has no values for {', '.join(missing)})")
    print(f"  {'metric':44} {'encore (first)':>16} {'ncu (first)':>16} {'max rel diff':>12}")
    for m in metrics:
        e = [enc[i][2].get(m) for i in range(n)]
        v = [nc[i][2].get(m) for i in range(n)]
        pairs = [(a, b) for a, b in zip(e, v) if a is not None and b is not None]
        check(len(pairs) == n, f"{m}: a value for each of the {n} launches from both ({len(pairs)})")
        if not pairs:
            continue
        rel = max(abs(a - b) / max(abs(b), 1e-30) for a, b in pairs)
        print(f"  {m:44} {pairs[0][0]:16.6g} {pairs[0][1]:16.6g} {rel:12.2e}")
        if m in EXACT:
            check(all(a == b for a, b in pairs), f"{m} equal to ncu's for every launch")
        elif m.startswith("dram__bytes"):
            def traffic(i):
                parts = [nc[i][2].get(x) for x in ("dram__bytes_read.sum", "dram__bytes_write.sum")]
                return sum(p for p in parts if p is not None) or abs(v[i] or 0)
            worst = max((abs(e[i] - v[i]) / max(BYTES_TOLERANCE * traffic(i), BYTES_FLOOR)
                         for i in range(n) if e[i] is not None and v[i] is not None), default=0)
            check(worst <= 1, f"{m} within {BYTES_TOLERANCE:.0%} of the launch's DRAM traffic (or {BYTES_FLOOR} bytes) "
                  f"of ncu's for every launch (worst: {worst:.2f} of the tolerance)")
        elif m == "gpu__time_duration.sum":
            me, mn = statistics.median(a for a, _ in pairs), statistics.median(b for _, b in pairs)
            r = abs(me - mn) / mn if mn else 1
            check(abs(me - mn) <= max(TIME_TOLERANCE * mn, TIME_FLOOR_NS),
                  f"{m}: median {me:.0f} ns vs ncu's {mn:.0f} ns, within {TIME_TOLERANCE:.0%} or {TIME_FLOOR_NS} ns ({r:.1%})")
    if known_bytes:
        reads = [enc[i][2].get("dram__bytes_read.sum") for i in range(len(enc))]
        reads = [r for r in reads if r is not None]
        ok = bool(reads) and all(abs(r - known_bytes) / known_bytes <= 0.02 for r in reads)
        check(ok, f"dram__bytes_read.sum within 2% of the {known_bytes:.0f} bytes the kernel streams "
              f"({', '.join(f'{r:.0f}' for r in reads[:4])}{' ...' if len(reads) > 4 else ''})")
    return fails


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "pick":
        count = {}
        for _, k, _ in encore(sys.argv[2]):
            count[base(k)] = count.get(base(k), 0) + 1
        prefer = sys.argv[3] if len(sys.argv) > 3 else ""
        pool = {k: c for k, c in count.items() if prefer and prefer in k} or count
        print(max(pool, key=pool.get) if pool else "")
    elif len(sys.argv) >= 5 and sys.argv[1] == "compare":
        known = float(sys.argv[sys.argv.index("--bytes") + 1]) if "--bytes" in sys.argv else 0
        sys.exit(min(compare(sys.argv[2], sys.argv[3], sys.argv[4], known), 100))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
