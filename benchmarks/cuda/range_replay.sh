#!/usr/bin/env bash
# Range replay on CUDA on a GPU (a machine with an NVIDIA GPU and PyTorch; not CI, not run yet):
#   benchmarks/cuda/range_replay.sh [BUILD_DIR]    (default build-trace; exits 1 on any FAIL)
# encore is built CUDA only (-Dhsa=disabled, as trace_frameworks.sh, whose build folder it shares).
#   - programs/torch_range_step.py: a training step (SGD with momentum) inside an NVTX range
#     "step", 3 times (backward's kernels come from PyTorch's autograd thread: they join the range
#     with ENCORE_RANGE_REPLAY_THREADS=context, set here; without it the ranges decline,
#     CONCURRENT_DISPATCH): encore-replay --backend cuda -n 4 --verify --range step replays each step 3
#     more times from the memory it started from; checks: the digest (parameters, momentum, loss)
#     bit-identical to the bare run's, 3 ranges replayed with 12 passes and the same dispatch count
#     each, no range declined, every pass started from the range's start (divergence 0 at every
#     PASS ENTER) and every range's last pass ended as its pass 0 (divergence 0 at CLOSE);
#   - programs/torch_graph_step.py: the step captured by PyTorch into a CUDA graph
#     (torch.cuda.CUDAGraph), replayed 4 times: each cuGraphLaunch is a range of its own (the
#     service is configured by --range; no NVTX range there); the same checks, on the
#     "(graph launches)" row, whose dispatches per pass are the graph's kernel nodes;
#   - the wall time of each run against the bare run's.
# Every command is bounded (timeout).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-trace}
source benchmarks/cuda/common.sh
build_cuda_only src/cuda/libcuda.so.1 examples/libencore_replay_bench.so src/nvtx/libencore-nvtx.so.0.1.0 \
    src/marker/libencore-roctx.so.0.1.0 || exit 1
replay=$B/examples/encore-replay
[[ -x $replay ]] || { echo "FAIL: $replay was not configured"; exit 1; }
export CUBLAS_WORKSPACE_CONFIG=:4096:8 ENCORE_RANGE_REPLAY_THREADS=context
limit=300
now() { date +%s.%N; }
secs() { awk "BEGIN{printf \"%.1f\", $2 - $1}"; }
digest() { grep -E '^digest=' "$1" | tail -1; }
tmp=$(mktemp -d)

# range_run NAME SCRIPT ROW DISPATCHES_MIN: the script bare and replayed; ROW is the report row
# checked (step, or "(graph launches)"), with at least DISPATCHES_MIN dispatches per pass.
range_run() {
    local name=$1 script=$2 row=$3 min=$4 bare t0 bare_wall wall got line
    t0=$(now)
    timeout "$limit" python3 "$script" >"$tmp/$name.bare.out" 2>"$tmp/$name.bare.err"
    bare_wall=$(secs "$t0" "$(now)")
    bare=$(digest "$tmp/$name.bare.out")
    echo "=== $name bare: $bare ($bare_wall s)"
    check "$name runs bare" '[[ -n "$bare" ]]'
    [[ -n "$bare" ]] || { tail -5 "$tmp/$name.bare.err"; return; }
    t0=$(now)
    timeout "$limit" "$replay" --backend cuda -n 4 --verify --range step python3 "$script" \
        >"$tmp/$name.out" 2>"$tmp/$name.err"
    wall=$(secs "$t0" "$(now)")
    got=$(digest "$tmp/$name.out")
    echo "--- $name replayed: $got ($wall s)"
    sed -n '/passes per range/,$p' "$tmp/$name.err" | cut -c1-200
    check "$name: digest bit-identical to the bare run" '[[ -n "$got" && "$got" == "$bare" ]]'
    line=$(grep -F -- "$row " "$tmp/$name.err" | grep -v 'passes per range' | tail -1)
    check "$name: ranges replayed with 4 passes each, >= $min dispatches per pass" \
        '[[ "$line" =~ ([0-9]+)\ +([0-9]+)\ +([0-9.]+)\ + && ${BASH_REMATCH[1]} -ge 1 &&
           ${BASH_REMATCH[2]} == $((4 * BASH_REMATCH[1])) && ${BASH_REMATCH[3]%.*} -ge $min ]]'
    check "$name: no range declined" '! grep -q "range(s) not replayed" "$tmp/$name.err"'
    check "$name: every pass from the range's start, every range ended as its pass 0" \
        'grep -qE "verification: 0 of [1-9][0-9]* passes .*; 0 range\(s\)" "$tmp/$name.err"'
    [[ -n ${OUT:-} ]] && mkdir -p "$OUT/range_replay" && cp "$tmp/$name".* "$OUT/range_replay/" 2>/dev/null
}

range_run torch_step benchmarks/cuda/programs/torch_range_step.py step 10
range_run torch_graph benchmarks/cuda/programs/torch_graph_step.py "(graph launches)" 10
rm -rf "$tmp"
echo "range_replay.sh: $fails failure(s)"
[[ $fails -eq 0 ]]
