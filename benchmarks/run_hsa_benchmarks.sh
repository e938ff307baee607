#!/usr/bin/env bash
# Runs the HSA benchmarks on the software HSA runtime without encore and with encore in each
# mode, one after another in one run, and prints the medians side by side.
#   benchmarks/run_hsa_benchmarks.sh [BUILD_DIR]     (default: build)
# With ENCORE_BENCH_BASELINE=DIR (a folder holding another build's libhsa-runtime64.so.1 and
# libencore-hsa.so, e.g. copied from a build of main), the dispatch benchmark also runs, in the
# same run: base-bare (that runtime alone), base-dispatch (that runtime and that encore) and
# dispatch-on-base (that runtime and this encore), so encore's and the runtime's changes show apart.
set -euo pipefail
build=${1:-build}
calls=$build/benchmarks/bench_hsa_calls
dispatch=$build/benchmarks/sim/bench_sim_dispatch
hsa_tool=$build/src/hsa/libencore-hsa.so
tool=$build/benchmarks/libencore_bench_tool.so
export LD_LIBRARY_PATH=$build/src/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
reps=${ENCORE_BENCH_REPS:-7}
median() {  # prints "name median_ns" for each benchmark of a run
    "$@" --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null |
        awk -F, '/_median"?,/ {gsub(/"/, "", $1); sub(/_median$/, "", $1); print $1, $3}'
}
run() {  # mode label command...
    local mode=$1; shift
    if [[ $mode == bare ]]; then
        median "$@" | sed "s/^/bare /"
    else
        HSA_TOOLS_LIB=$hsa_tool ROCP_TOOL_LIBRARIES=$tool ENCORE_BENCH_TOOL_MODE=$mode median "$@" | sed "s/^/$mode /"
    fi
}
base=${ENCORE_BENCH_BASELINE:-}
run_base() {  # label hsa_tool(or "") command...: the dispatch benchmark on the baseline runtime
    local label=$1 lib=$2; shift 2
    if [[ -z $lib ]]; then
        LD_LIBRARY_PATH=$base:$build/src/core median "$@" | sed "s/^/$label /"
    else
        LD_LIBRARY_PATH=$base:$build/src/core HSA_TOOLS_LIB=$lib ROCP_TOOL_LIBRARIES=$tool ENCORE_BENCH_TOOL_MODE=dispatch \
            median "$@" | sed "s/^/$label /"
    fi
}
{
    for mode in bare api-off api-noop api-noop-ptr api-args; do run "$mode" "$calls"; done
    for mode in bare dispatch; do run "$mode" "$dispatch" --benchmark_filter='/1/'; done
    if [[ -n $base ]]; then
        run_base base-bare "" "$dispatch" --benchmark_filter='/1/'
        run_base base-dispatch "$base/libencore-hsa.so" "$dispatch" --benchmark_filter='/1/'
        run_base dispatch-on-base "$hsa_tool" "$dispatch" --benchmark_filter='/1/'
    fi
} > /tmp/encore_hsa_bench.$$
echo "mode             benchmark                                median_ns"
awk '{printf "%-16s %-40s %10.1f\n", $1, $2, $3}' /tmp/encore_hsa_bench.$$
rm -f /tmp/encore_hsa_bench.$$
