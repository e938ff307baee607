#!/usr/bin/env bash
# Run on an H200 on 2026-12-02 (its figures are in docs/cuda.md and benchmarks/RESULTS.md); prints results, checks nothing itself.
# A quick GPU check (~2 minutes, no build on the device) with the libraries stage_prebuilt.sh built
# off the device (build-dev, linked as build-carry, the paths its front ends name): CUDA graph range replay, NVTX-range replay, CUPTI
# stream-order pairing and cost per op on PyTorch.
set -u
root=$(pwd)
ln -sfn build-dev build-carry
D=$root/build-carry
exec > >(tee "${OUT:-/tmp}/quick_gpu_check.log") 2>&1
export LD_LIBRARY_PATH=$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUBLAS_WORKSPACE_CONFIG=:4096:8
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s]"; }
rr() {  # NAME SCRIPT: bare digest, then encore-replay -n 4 --verify --range step
    echo "=== $1 bare: $(timeout 40 python3 $2 2>&1 | grep -E '^digest=' | tail -1) $(el)"
    timeout 60 env ENCORE_RANGE_REPLAY_THREADS=context $D/examples/encore-replay --backend cuda -n 4 --verify --range step python3 $2 > /tmp/$1.out 2> /tmp/$1.err
    echo "--- $1 replayed rc=$?: $(grep -E '^digest=' /tmp/$1.out | tail -1) $(el)"
    sed -n '/passes per range/,$p' /tmp/$1.err | cut -c1-200 | head -12; grep "\[encore\]" /tmp/$1.err | sort | uniq -c | head -5
}
rr graph benchmarks/cuda/programs/torch_graph_step.py
enc() { LD_LIBRARY_PATH=$D/src/cuda:$LD_LIBRARY_PATH ROCP_TOOL_LIBRARIES=$D/libcuda_trace_tool.so timeout 40 "$@"; }
tiny=benchmarks/cuda/programs/torch_tiny_ops.py
echo "== cupti records, tiny ops $(el)"; ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=records enc python3 $tiny 2>&1 | grep -E "cuda-records|value=|encore" | head -6
echo "bare: $(timeout 40 python3 $tiny 2>&1 | tail -1)"
echo "events: $(ENCORE_CUDA_DISPATCH_TIMING=events ENCORE_CUDA_TOOL_MODE=dispatch_noop enc python3 $tiny 2>&1 | grep -E 'median|encore' | tr '\n' ' ')"
echo "cupti: $(ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=dispatch_noop enc python3 $tiny 2>&1 | grep -E 'median|encore' | tr '\n' ' ')"
echo "profiler: $(timeout 40 python3 $tiny --profile 2>&1 | tail -1) $(el)"
rr step benchmarks/cuda/programs/torch_range_step.py
echo "== cupti records, training loop $(el)"; ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=records enc python3 benchmarks/cuda/programs/torch_train_nvtx.py 2>&1 | grep -E "cuda-records|final_loss|encore" | head -6
echo "total $(el)"
