#!/usr/bin/env bash
# Runs the OMPT benchmark bare (OMP_TOOL=disabled) and with libencore-ompt as the OpenMP
# runtime's tool, one after the other in one run, and prints the medians side by side.
#   benchmarks/run_ompt_benchmarks.sh [BUILD_DIR]     (default: build; ENCORE_BENCH_REPS, default 7)
set -euo pipefail
build=${1:-build}
bench=$build/benchmarks/bench_ompt
ompt=$build/src/ompt/libencore-ompt.so
reps=${ENCORE_BENCH_REPS:-7}
median() {  # prints "name median_ns" for each benchmark of a run
    "$@" --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null |
        awk -F, '/_median"?,/ {gsub(/"/, "", $1); sub(/_median$/, "", $1); sub(/\/real_time$/, "", $1); print $1, $3}'
}
{
    OMP_TOOL=disabled median "$bench" --benchmark_filter=BM_bare
    LD_PRELOAD=$ompt median "$bench" --benchmark_filter='BM_no_context|BM_noop_callback'
} | awk '{ t[$1] = $2 } END {
    base = t["BM_bare"]
    printf "%-18s %12s %12s\n", "case", "ns/region", "added"
    split("BM_bare BM_no_context BM_noop_callback", order, " ")
    for (i = 1; i <= 3; ++i) {
        n = order[i]
        if (!(n in t)) continue
        printf "%-18s %12.0f %12s\n", n, t[n], n == "BM_bare" ? "-" : sprintf("%+.0f", t[n] - base)
    }
}'
