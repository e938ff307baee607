#!/usr/bin/env bash
# What the grower (src/trace/record_file.cpp: a thread that populates each recording thread's
# next chunk) saves a traced call, on the software HSA runtime (no GPU):
#   benchmarks/grower_cost.sh [BUILD_DIR] [THOUSANDS_OF_CALLS] [ROUNDS]    (default build 2000 7)
# test/dying_program's `bench` (calls back to back) and `bench-paced` (about 80 ns of the
# program's own work between calls), each run bare, under `encore-trace --quiet --hsa-trace -f
# rocpd` with the grower, and with ENCORE_TRACE_GROW_AHEAD=0, taking turns (the traced two swap
# order each round). Prints each round's ns per call over bare and the medians.
set -euo pipefail
B=${1:-build}
n=${2:-2000}
rounds=${3:-7}
P=$B/test/dying_program
CO=$B/examples/hsa/hsa_vector_add_kernels.so
T=$B/examples/encore-trace
[[ -x $P ]] || ninja -C "$B" test/dying_program > /dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ns() { grep -o '[0-9.]* ns per call' | cut -d' ' -f1; }
for mode in bench bench-paced; do
    for r in $(seq "$rounds"); do
        bare=$(LD_LIBRARY_PATH=$B/src/sim "$P" "$CO" "$mode" "$n" | ns)
        order="1 0"
        ((r % 2 == 0)) && order="0 1"
        for g in $order; do
            v=$(ENCORE_TRACE_GROW_AHEAD=$g "$T" --quiet --hsa-trace -d "$work/out" -f rocpd "$P" "$CO" "$mode" "$n" 2> /dev/null | ns)
            rm -rf "$work/out"
            echo "$mode $r $g $bare $v"
        done
    done
done > "$work/all"
python3 - "$work/all" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for mode in ("bench", "bench-paced"):
    bare = statistics.median(float(r[3]) for r in rows if r[0] == mode)
    print(f"{mode}: bare {bare:.1f} ns per call")
    for g, name in (("1", "grower"), ("0", "no grower (ENCORE_TRACE_GROW_AHEAD=0)")):
        over = [float(r[4]) - float(r[3]) for r in rows if r[0] == mode and r[2] == g]
        print(f"  {name:40s} over bare: median {statistics.median(over):+.1f}  ({', '.join(f'{v:.1f}' for v in over)})")
PY
