#!/usr/bin/env bash
# Runs the OMPT benchmark bare (OMP_TOOL=disabled), under a minimal OMPT tool of its own
# (test/ompt/count_tool.c: what the runtime's own OMPT path costs, with ~1 ns callbacks) and with
# libencore-ompt as the OpenMP runtime's tool, one after the other in one run, and prints the
# medians side by side.
#   benchmarks/run_ompt_benchmarks.sh [BUILD_DIR]     (default: build; ENCORE_BENCH_REPS, default 7)
set -euo pipefail
build=${1:-build}
bench=$build/benchmarks/bench_ompt
ompt=$build/src/ompt/libencore-ompt.so
count_tool=$build/test/ompt/libompt_count_tool.so
reps=${ENCORE_BENCH_REPS:-7}
median() {  # prints "name median_ns" for each benchmark of a run
    "$@" --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null |
        awk -F, '/_median"?,/ {gsub(/"/, "", $1); sub(/_median$/, "", $1); sub(/\/real_time$/, "", $1); print $1, $3}'
}
{
    OMP_TOOL=disabled median "$bench" --benchmark_filter=BM_bare
    if [[ -e $count_tool ]]; then
        LD_PRELOAD=$count_tool median "$bench" --benchmark_filter=BM_bare | sed 's/^BM_bare/BM_other_tool/'
    fi
    LD_PRELOAD=$ompt median "$bench" --benchmark_filter='BM_no_context|BM_noop_callback'
} | awk '{ t[$1] = $2 } END {
    printf "%-22s %12s %12s\n", "case", "ns/region", "added"
    split("1 2", threads, " ")
    split("BM_bare BM_other_tool BM_no_context BM_noop_callback", order, " ")
    for (j = 1; j <= 2; ++j) {
        base = t["BM_bare/" threads[j]]
        for (i = 1; i <= 4; ++i) {
            n = order[i] "/" threads[j]
            if (!(n in t)) continue
            printf "%-22s %12.0f %12s\n", n, t[n], order[i] == "BM_bare" ? "-" : sprintf("%+.0f", t[n] - base)
        }
    }
}'
