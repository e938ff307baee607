#!/usr/bin/env bash
# Range replay on CUDA on a GPU (a machine with an NVIDIA GPU and PyTorch; not CI; run on an H200
# 2026-12-02, last_range_replay.log):
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
#   - the wall time of each run against the bare run's;
#   - Nsight Compute's range replay of the same NVTX ranges (ncu --replay-mode range --nvtx
#     --nvtx-include step/ --metrics gpu__time_duration.sum: one pass per range, its save and
#     restore included) against encore-replay -n 2 --range step (one pass after the program's run):
#     wall times and each tool's GPU time per range, side by side ("info:" lines; a check that the
#     program's result under ncu is unchanged).
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

# Against Nsight Compute's range replay, the same 3 ranges, one replayed pass each.
step=benchmarks/cuda/programs/torch_range_step.py
if command -v ncu >/dev/null; then
    t0=$(now)
    timeout "$limit" ncu --replay-mode range --nvtx --nvtx-include "step/" --metrics gpu__time_duration.sum \
        --clock-control none --csv python3 "$step" >"$tmp/ncu.out" 2>"$tmp/ncu.err"
    rc=$? ncu_wall=$(secs "$t0" "$(now)")
    t0=$(now)
    timeout "$limit" "$replay" --backend cuda -n 2 --range step python3 "$step" >"$tmp/enc2.out" 2>"$tmp/enc2.err"
    enc_wall=$(secs "$t0" "$(now)")
    check "ncu range replay: result unchanged" '[[ $rc == 0 && "$(digest "$tmp/ncu.out")" == "$(digest "$tmp/torch_step.bare.out")" ]]'
    # ncu's CSV: one row per range and metric; the value is the last field (ns, or usecond/msecond).
    ncu_rows=$(grep -c '"gpu__time_duration.sum"' "$tmp/ncu.out")
    echo "info: ncu --replay-mode range: $ncu_rows range results, wall $ncu_wall s; encore-replay -n 2 --range step: wall $enc_wall s"
    grep '"gpu__time_duration.sum"' "$tmp/ncu.out" | awk -F'","' '{print "info: ncu range", NR, $(NF-1), $NF}' | tr -d '"' | head -5
    sed -n '/passes per range/,/^step /p' "$tmp/enc2.err" | sed 's/^/info: encore: /'
    [[ $ncu_rows -gt 0 ]] || { echo "info: ncu gave no range result:"; grep -E "==PROF==|==ERROR==|==WARNING==" "$tmp/ncu.out" "$tmp/ncu.err" | head -8; }
else
    echo "SKIP: ncu not found (Nsight Compute range replay comparison)"
fi
rm -rf "$tmp"
echo "range_replay.sh: $fails failure(s)"
[[ $fails -eq 0 ]]
