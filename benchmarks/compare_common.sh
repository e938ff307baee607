# benchmarks/compare_common.sh — sourced by compare_builds.sh and compare_libs.sh: the medians of
# one benchmark program's run, and bench_hsa_calls on a build's software runtime in one tool mode.

medians() {  # label prefix command...: "label prefix/name median_ns" per benchmark
    local label=$1 prefix=$2; shift 2
    "$@" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_format=csv \
        --benchmark_min_time=0.05 2>/dev/null |
        awk -F, -v l="$label" -v p="$prefix" '/_median"?,/ {gsub(/"/, "", $1); sub(/_median$/, "", $1); print l, p "/" $1, $3}'
}

# label mode build tools_lib [libs_first]: mode bare (no tools library) or a bench tool mode
# (api-off, api-noop, ...) with HSA_TOOLS_LIB=tools_lib; libs_first goes ahead of the runtime
# on LD_LIBRARY_PATH (a saved variant of encore's libraries).
hsa_medians() {
    local label=$1 mode=$2 build=$3 tools=$4 first=${5:-}
    local path=${first:+$first:}$build/src/sim
    if [[ $mode == bare ]]; then
        LD_LIBRARY_PATH=$path medians "$label" "hsa-$mode" "$build/benchmarks/bench_hsa_calls"
    else
        LD_LIBRARY_PATH=$path HSA_TOOLS_LIB=$tools ROCP_TOOL_LIBRARIES=$build/benchmarks/libencore_bench_tool.so \
            ENCORE_BENCH_TOOL_MODE=$mode medians "$label" "hsa-$mode" "$build/benchmarks/bench_hsa_calls"
    fi
}
