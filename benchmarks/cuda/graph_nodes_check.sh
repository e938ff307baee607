#!/usr/bin/env bash
# Kernel replay of CUDA graph nodes on a real driver (a machine with a Hopper GPU and PyTorch; not
# CI): benchmarks/cuda/graph_nodes_check.sh [BUILD_DIR]   (default build-gpu-trace, from
# prebuild_gpu.sh trace; exits 1 on any FAIL). Each program runs bare, then under
# `encore-replay --backend cuda -n 3 --verify`, and its output must be the same:
#   programs/graph_nodes_check.cu: a node with run-time cluster dimensions, an exec changed through
#     cuGraphExecUpdate's v1 ABI (also prints what a plain node's launch attributes read);
#   programs/torch_graph_step.py: a PyTorch training step captured into a CUDA graph.
# Prints the replay's exit table for each.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-gpu-trace}
source benchmarks/cuda/common.sh
R=$B/examples/encore-replay
work=$(mktemp -d)
fails=0
check() {  # NAME COMMAND...
    local name=$1
    shift
    "$@" > "$work/$name.bare" 2> "$work/$name.bare.err"
    local rc_bare=$?
    "$R" --backend cuda -n 3 --verify "$@" > "$work/$name.replayed" 2> "$work/$name.err"
    local rc=$?
    cat "$work/$name.bare"
    # The exit table whole: its header, then rows (a count first) until the first other line.
    awk '/^ *dispatches +passes/ {t = 1; print; next} t && $1 ~ /^[0-9]+$/ {print; next} {t = 0}' "$work/$name.err"
    grep -E "runs whole|warn" "$work/$name.err" | sort | uniq -c | head -5
    if [[ $rc_bare == 0 && $rc == 0 ]] && cmp -s "$work/$name.bare" "$work/$name.replayed"; then
        echo "PASS: $name: replayed output identical to the bare run's"
    else
        echo "FAIL: $name: bare rc=$rc_bare, replayed rc=$rc"
        diff "$work/$name.bare" "$work/$name.replayed" | head -10
        tail -5 "$work/$name.bare.err" "$work/$name.err"
        fails=$((fails + 1))
    fi
}
check graph_nodes_check "$B/graph_nodes_check"
check torch_graph_step python3 benchmarks/cuda/programs/torch_graph_step.py
exit $((fails != 0))
