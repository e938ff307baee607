#!/usr/bin/env bash
# Dispatch-record cost per launch of two or more builds of libencore-cuda side by side (a machine
# with an NVIDIA GPU; not CI): run_gpu.sh's empty-kernel launch benchmark, rounds taking turns —
#   bare | CUPTI activity subscriber (CONCURRENT_KERNEL) | encore events | encore CUPTI, each build
#   benchmarks/cuda/launch_ab.sh OLD_BUILD [ROUNDS [MORE_BUILD...]]
#       (NEW: build-gpu, or ENCORE_AB_BUILD; every build with libcuda.so.1 built)
# OLD_BUILD (and each MORE_BUILD) holds an earlier libcuda.so.1 (src/cuda/) with its libencore
# (src/core/); the tool and the benchmark programs are build-gpu's (benchmarks/cuda/prebuild_gpu.sh
# builds them). Prints each case's rounds, their median and what it adds over bare; a change's
# effect is the difference between builds within one run (the machine's noise between runs is
# larger than the change). The builds' order turns each round (a position in the round would
# otherwise favour one). ENCORE_AB_TIMING: the builds' dispatch timing (default cupti; auto, the
# default of encore-trace, picks CUPTI where it loads).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
old=${1:?OLD_BUILD}
rounds=${2:-5}
B=${ENCORE_AB_BUILD:-build-gpu}
builds=("$old" "${@:3}" "$B")
source benchmarks/cuda/common.sh
for f in "$B/bench_launch" "$B/bench_launch_cupti" "$B/libcuda_trace_tool.so" "${builds[@]/%//src/cuda/libcuda.so.1}"; do
    [[ -e $f ]] || { echo "FAIL: $f is missing"; exit 1; }
done
median() { grep -o 'median=[0-9.]*' | head -1 | cut -d= -f2; }
mid() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'; }
# CUPTI-timed records of build DIR: the tool with that build's libcuda.so.1 (and its libencore)
cupti_of() {
    LD_LIBRARY_PATH="$root/$1/src/cuda:$root/$1/src/core${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        ROCP_TOOL_LIBRARIES="$root/$B/libcuda_trace_tool.so" ENCORE_CUDA_DISPATCH_TIMING=${ENCORE_AB_TIMING:-cupti} \
        ENCORE_CUDA_TOOL_MODE=dispatch_noop "$B/bench_launch" 2>&1 | median
}
declare -A t
for ((r = 1; r <= rounds; ++r)); do
    t[bare]+=" $("$B/bench_launch" | median)"
    t[subscriber]+=" $(BENCH_CUPTI_ACTIVITY=1 "$B/bench_launch_cupti" 2>&1 | median)"
    t[events]+=" $(ENCORE_CUDA_DISPATCH_TIMING=events ENCORE_CUDA_TOOL_MODE=dispatch_noop \
        under_encore "$root/$B/libcuda_trace_tool.so" "$B/bench_launch" 2>&1 | median)"
    n=${#builds[@]}
    for ((i = 0; i < n; ++i)); do
        b=${builds[$(((i + r) % n))]}
        t[$b]+=" $(cupti_of "$b")"
    done
done
bare=$(mid <<<"${t[bare]}")
echo "empty-kernel launch, us per launch (submission; each round the median of 7 x 20000), $rounds rounds, builds timed by ${ENCORE_AB_TIMING:-cupti}"
printf "%-44s %8s %8s  %s\n" "case (a build: encore CUPTI)" median added rounds
for c in bare subscriber events "${builds[@]}"; do
    m=$(mid <<<"${t[$c]}")
    printf "%-44s %8.3f %+8.3f  %s\n" "$c" "$m" "$(awk "BEGIN{print $m - $bare}")" "${t[$c]}"
done
