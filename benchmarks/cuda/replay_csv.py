#!/usr/bin/env python3
"""Reads encore-replay's CSV (-o FILE) and Nsight Compute's (--csv) for replay_frameworks.sh.

  replay_csv.py stats CSV          rows, identical, differing, rows without a GPU time, kernels
  replay_csv.py pick CSV           the base name (no namespace, template or parameters) of the
                                   kernel replayed most often: a -k / ncu regex for both tools
  replay_csv.py side A B [LA LB]   per kernel: median GPU time per pass in A and B side by side
  replay_csv.py ncu CSV NCU_OUT    per kernel (by base name): encore's median GPU time per pass
                                   and ncu's gpu__time_duration.sum, side by side
"""
import csv
import re
import statistics
import sys


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def base(name):
    """vectorized_elementwise_kernel for 'void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)'."""
    n = re.sub(r"^void ", "", name.strip())
    depth, out = 0, ""
    for c in n:  # drop template arguments and parameters, which hold '::' of their own
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth -= 1
        elif depth == 0:
            out += c
    return out.split("::")[-1].strip() or name


def medians(path):
    by = {}
    for r in rows(path):
        by.setdefault(r["kernel"], []).append(float(r["median_us"]))
    return {k: statistics.median(v) for k, v in by.items()}


def main():
    cmd = sys.argv[1]
    if cmd == "stats":
        r = rows(sys.argv[2])
        ident = sum(x["inputs"] == "identical" for x in r)
        differ = sum(x["inputs"] == "differ" for x in r)
        untimed = sum(float(x["median_us"]) <= 0 for x in r)
        print(f"rows={len(r)} identical={ident} differ={differ} untimed={untimed} kernels={len({x['kernel'] for x in r})}")
    elif cmd == "pick":
        r = rows(sys.argv[2])
        count = {}
        for x in r:
            count[base(x["kernel"])] = count.get(base(x["kernel"]), 0) + 1
        print(max(count, key=count.get) if count else "")
    elif cmd == "side":
        a, b = medians(sys.argv[2]), medians(sys.argv[3])
        la, lb = (sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else ("A", "B")
        print(f"{la + '_us':>12} {lb + '_us':>12} {lb + '/' + la:>9}  kernel")
        for k in sorted(set(a) | set(b), key=lambda k: -a.get(k, 0)):
            va, vb = a.get(k), b.get(k)
            ratio = f"{vb / va:9.2f}" if va and vb else "        -"
            print(f"{va if va is not None else float('nan'):12.2f} {vb if vb is not None else float('nan'):12.2f} "
                  f"{ratio}  {k[:100]}")
    elif cmd == "ncu":
        enc = {}
        for r in rows(sys.argv[2]):
            enc.setdefault(base(r["kernel"]), []).append(float(r["median_us"]))
        ncu = {}
        unit = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6}
        with open(sys.argv[3], encoding="utf-8", errors="replace") as f:
            lines = [l for l in f if l.startswith('"')]  # ncu's CSV among the program's own output
        for r in csv.DictReader(lines):
            if r.get("Metric Name") != "gpu__time_duration.sum":
                continue
            v = float(r["Metric Value"].replace(",", "")) * unit.get(r.get("Metric Unit", "nsecond"), 1e-3)
            ncu.setdefault(base(r["Kernel Name"]), []).append(v)
        print(f"ncu_kernels={sum(len(v) for v in ncu.values())} encore_rows={sum(len(v) for v in enc.values())}")
        print(f"{'encore_us':>12} {'ncu_us':>12} {'ratio':>7} {'n_enc':>5} {'n_ncu':>5}  kernel")
        for k in sorted(set(enc) | set(ncu)):
            e = statistics.median(enc[k]) if k in enc else None
            n = statistics.median(ncu[k]) if k in ncu else None
            ratio = f"{e / n:7.2f}" if e and n else "      -"
            print(f"{e if e is not None else float('nan'):12.2f} {n if n is not None else float('nan'):12.2f} {ratio} "
                  f"{len(enc.get(k, [])):5d} {len(ncu.get(k, [])):5d}  {k[:90]}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
