#!/usr/bin/env bash
# Real framework programs under encore's CUDA driver (a machine with an NVIDIA GPU, PyTorch and
# JAX; not CI): each runs bare, then with the cuda_trace_tool in `count` (every driver call),
# `records` (dispatch, copy and allocation records) and, for PyTorch, `replay` (3 passes per
# launch) mode. Each run must print what the bare run printed.
#   benchmarks/cuda/real_programs.sh [BUILD_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-gpu}
source benchmarks/cuda/common.sh
build_encore_cuda
tool=$B/libcuda_trace_tool.so
build_tool test/cuda/cuda_trace_tool.cpp "$tool"
export XLA_PYTHON_CLIENT_PREALLOCATE=false

# The program's own result line (the tool prints its summary to stdout too, at exit).
result() { grep -E '^(final_loss|sum)=' "$1" | tail -1; }

run_program() {  # NAME SCRIPT MODES...
    local name=$1 script=$2 out
    shift 2
    out=$(mktemp)
    python3 "$script" >"$out" 2>/dev/null
    local bare
    bare=$(result "$out")
    echo "--- $name bare: $bare"
    check "$name runs bare" '[[ -n "$bare" ]]'
    for mode in "$@"; do
        ENCORE_CUDA_TOOL_MODE=$mode under_encore "$root/$tool" python3 "$script" >"$out" 2>"$out.err"
        local got
        got=$(result "$out")
        echo "--- $name $mode: $got"
        grep -E '^cuda-' "$out" | head -6
        grep -E '^cuda-tool|\[encore\]' "$out.err" | sort | uniq -c | head -5
        check "$name $mode prints what the bare run printed" '[[ -n "$got" && "$got" == "$bare" ]]'
    done
    rm -f "$out" "$out.err"
}

run_program torch_mlp benchmarks/cuda/programs/torch_mlp.py count records replay
run_program jax_matmul benchmarks/cuda/programs/jax_matmul.py count records
echo "checks failed: $fails"
