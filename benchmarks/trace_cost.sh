#!/usr/bin/env bash
# What encore-trace costs a program per traced call, and what converting the records costs after
# it, on the software HSA runtime (no GPU; CI runs it):
#   benchmarks/trace_cost.sh [BUILD_DIR] [THOUSANDS_OF_CALLS] [ROUNDS]    (default build 200 5)
# test/dying_program's `bench` mode times THOUSANDS x 1000 hsa_system_get_info calls in the
# program itself; each round runs, taking turns: bare; encore-trace --quiet (the record path, a
# summary); encore-trace --quiet -o DIR (the record path, trace.json and CSV files after the run);
# encore-trace --quiet --hsa-trace -d DIR -f rocpd (the record path, rocpd); the same with
# --selected-regions and no region in the program (what a call costs outside the regions: the
# tracing context stopped, libencore-roctx preloaded); and the first tool:
# --live --quiet (no files) and --live --quiet -o DIR (its files written on the program's
# thread). Prints each round's ns per
# call, the medians, each one's cost over bare, and the wall time of the record path's conversion
# (timed alone on the records of one more run, kept). The record path's records go where
# encore-trace puts them by default (/dev/shm where it has room).
set -euo pipefail
B=${1:-build}
n=${2:-200}
rounds=${3:-5}
P=$B/test/dying_program
CO=$B/examples/hsa/hsa_vector_add_kernels.so
T=$B/examples/encore-trace
[[ -x $P ]] || ninja -C "$B" test/dying_program > /dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ns() { grep -o '[0-9.]* ns per call' | cut -d' ' -f1; }
declare -A all
for r in $(seq "$rounds"); do
    bare=$(LD_LIBRARY_PATH=$B/src/sim "$P" "$CO" bench "$n" | ns)
    quiet=$("$T" --quiet "$P" "$CO" bench "$n" 2> /dev/null | ns)
    rm -rf "$work/o"
    files=$("$T" --quiet -o "$work/o" "$P" "$CO" bench "$n" 2> /dev/null | ns)
    rm -rf "$work/d"
    record=$("$T" --quiet --hsa-trace -d "$work/d" -f rocpd "$P" "$CO" bench "$n" 2> /dev/null | ns)
    rm -rf "$work/p"
    paused=$("$T" --quiet --hsa-trace -d "$work/p" -f rocpd --selected-regions "$P" "$CO" bench "$n" 2> /dev/null | ns)
    live=$("$T" --live --quiet "$P" "$CO" bench "$n" 2> /dev/null | ns)
    rm -rf "$work/l"
    live_files=$("$T" --live --quiet -o "$work/l" "$P" "$CO" bench "$n" 2> /dev/null | ns)
    echo "round $r: bare $bare | default $quiet | -o $files | -f rocpd $record | outside --selected-regions $paused | --live $live | --live -o $live_files (ns per call)"
    all[bare]+="$bare " all[quiet]+="$quiet " all[files]+="$files " all[record]+="$record " all[paused]+="$paused "
    all[live]+="$live " all[live_files]+="$live_files "
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
b=$(median <<< "${all[bare]}")
for k in bare quiet files record paused live live_files; do
    m=$(median <<< "${all[$k]}")
    printf '%-10s median %8.1f ns per call, +%.1f ns over bare\n' "$k" "$m" "$(awk -v m="$m" -v b="$b" 'BEGIN { print m - b }')"
done
# The converter alone: the records of one more run (kept), n x 1000 calls each with its arguments
# and the program's other records, into one rocpd database.
"$T" --quiet --hsa-trace -d "$work/d2" -f json --keep-records "$work/keep" "$P" "$CO" bench "$n" > /dev/null 2>&1
rm -rf "$work/c"
start=$(date +%s.%N)
"$B/src/trace/encore-trace-convert" -f rocpd -d "$work/c" --no-summary "$work/keep" 2> /dev/null
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n="$n" 'BEGIN { printf "convert: %d000 calls to rocpd in %.2f s (%.2f us per call)\n", n, e - s, (e - s) * 1e3 / n }'
