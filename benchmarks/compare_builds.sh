#!/usr/bin/env bash
# Compares two build trees (e.g. main and a branch) on the per-call tracing benchmarks, taking
# turns: each round runs A then B, so load from other processes falls on both alike. Prints, per
# benchmark, the minimum and the median over rounds of each run's median.
#   benchmarks/compare_builds.sh BUILD_A BUILD_B [ROUNDS [SUITES]]    (default: 10 rounds, all)
# SUITES: a comma-separated subset of tracing,hip,hsa (fewer suites: more rounds in a quiet spell).
# Benchmarks: bench_tracing (bare / wrapped_off / noop_cb / arg_strings), bench_hip's
# hipGetErrorString cases (if built), and bench_hsa_calls on the software runtime in the modes of
# run_hsa_benchmarks.sh (bare, api-off, api-noop, api-noop-ptr).
set -euo pipefail
a=$1 b=$2 rounds=${3:-10} suites=,${4:-tracing,hip,hsa},
out=$(mktemp)
trap 'rm -f "$out"' EXIT

source "$(dirname "$0")/compare_common.sh"

one() {  # label build
    local label=$1 build=$2
    if [[ $suites == *,tracing,* ]]; then
        medians "$label" tracing "$build/benchmarks/bench_tracing"
    fi
    if [[ $suites == *,hip,* && -x $build/benchmarks/bench_hip ]]; then
        medians "$label" hip "$build/benchmarks/bench_hip" --benchmark_filter='hipGetErrorString_(bare|interposed|noop_cb|noop_cb_ptr)'
    fi
    if [[ $suites == *,hsa,* && -x $build/benchmarks/bench_hsa_calls ]]; then
        local mode
        for mode in bare api-off api-noop api-noop-ptr; do
            # A build whose tool lacks a mode falls back to by-value: skip what it cannot run.
            [[ $mode == api-noop-ptr ]] && ! grep -q api-noop-ptr "$build/benchmarks/libencore_bench_tool.so" && continue
            hsa_medians "$label" "$mode" "$build" "$build/src/hsa/libencore-hsa.so"
        done
    fi
}
for ((r = 0; r < rounds; ++r)); do
    one A "$a" >> "$out"
    one B "$b" >> "$out"
done
echo "A = $a, B = $b, $rounds rounds; ns per call: min and median of the rounds' medians"
python3 - "$out" <<'EOF'
import collections, statistics, sys
runs, order = collections.defaultdict(list), []
for line in open(sys.argv[1]):
    label, name, ns = line.split()
    runs[name, label].append(float(ns))
    if name not in order:
        order.append(name)
print(f"{'benchmark':56} {'A min':>8} {'A median':>9} {'B min':>8} {'B median':>9}")
def cols(v):  # a benchmark only one build has shows '-' for the other
    return f"{min(v):8.2f} {statistics.median(v):9.2f}" if v else f"{'-':>8} {'-':>9}"
for n in order:
    print(f"{n:56} {cols(runs[n, 'A'])} {cols(runs[n, 'B'])}")
EOF
