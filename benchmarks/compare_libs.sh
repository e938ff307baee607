#!/usr/bin/env bash
# Compares variants of encore's libraries under the same benchmark executables, taking turns:
# each round runs every variant once, so load from other processes falls on all alike, and the
# benchmark programs themselves (their code layout moves `bare` by a few tenths of a ns between
# builds) are identical for every variant. Prints, per variant, the median over rounds of each
# run's median and what each case adds to its bare call.
#   benchmarks/compare_libs.sh BUILD ROUNDS SAVE_DIR...
#   benchmarks/compare_libs.sh --save BUILD SAVE_DIR     (copy BUILD's libraries into SAVE_DIR)
# BUILD: a build tree (its bench_tracing, bench_hip, bench_hsa_calls, the bench tool and the
# software runtime are used for every variant). A variant is a directory of libencore,
# libencore-hip, libencore-roctx and libencore-hsa saved with --save from a build of that tree;
# LD_LIBRARY_PATH puts it first (the programs' RUNPATH comes after it).
# Example (a change to the traced path):
#   benchmarks/compare_libs.sh --save build-sim /tmp/before
#   ...edit, ninja -C build-sim...
#   benchmarks/compare_libs.sh --save build-sim /tmp/after
#   benchmarks/compare_libs.sh build-sim 20 /tmp/before /tmp/after
set -euo pipefail
if [[ ${1:-} == --save ]]; then
    mkdir -p "$3"
    for l in core/libencore hip/libencore-hip marker/libencore-roctx hsa/libencore-hsa; do
        # By soname, the name the programs (and libencore-hsa) load them by.
        [[ -e $2/src/$l.so.0.1 ]] && cp -L "$2/src/$l.so.0.1" "$3/"
    done
    exit 0
fi
b=$1 rounds=$2
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
source "$(dirname "$0")/compare_common.sh"
for _ in $(seq "$rounds"); do
    for d in "$@"; do
        LD_LIBRARY_PATH=$d medians "$d" tracing "$b/benchmarks/bench_tracing" --benchmark_filter='bare|noop|wrapped|floor' >>"$out"
        if [[ -x $b/benchmarks/bench_hip ]]; then
            LD_LIBRARY_PATH=$d medians "$d" hip "$b/benchmarks/bench_hip" \
                --benchmark_filter='hipGetErrorString_(bare|interposed|noop_cb|noop_cb_ptr)$' >>"$out"
        fi
        if [[ -x $b/benchmarks/bench_hsa_calls && -e $d/libencore-hsa.so.0.1 ]]; then
            for mode in bare api-off api-noop api-noop-ptr; do
                hsa_medians "$d" "$mode" "$b" "$d/libencore-hsa.so.0.1" "$d" >>"$out"
            done
        fi
    done
done
python3 - "$out" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, name, ns = line.split()
    runs[(label, name)].append(float(ns))
def med(label, name):
    v = runs.get((label, name))
    return statistics.median(v) if v else None
for label in dict.fromkeys(k[0] for k in runs):
    print(label)
    groups = [("tracing/bare", ["tracing/wrapped_off", "tracing/noop_cb", "tracing/noop_cb_ptr", "tracing/floor_cb", "tracing/floor_cb_ptr"]),
              ("hip/hipGetErrorString_bare", ["hip/hipGetErrorString_interposed", "hip/hipGetErrorString_noop_cb", "hip/hipGetErrorString_noop_cb_ptr"])]
    for n in sorted({k[1].split("/", 1)[1] for k in runs if k[0] == label and k[1].startswith("hsa-bare/")}):
        groups.append(("hsa-bare/" + n, ["hsa-api-off/" + n, "hsa-api-noop/" + n, "hsa-api-noop-ptr/" + n]))
    for base, cases in groups:
        b = med(label, base)
        if b is None:
            continue
        print(f"  {base:44s} {b:7.2f} ns")
        for c in cases:
            v = med(label, c)
            if v is not None:
                print(f"  {c:44s} {v:7.2f} ns  {v - b:+6.2f}")
PY
