#!/usr/bin/env bash
# Kernel replay over VMM-mapped memory on real frameworks (a machine with an NVIDIA GPU, PyTorch
# and JAX; not CI; a few minutes with encore already built):
#   benchmarks/cuda/replay_vmm.sh [BUILD_DIR]      (default build-gpu; exits 1 on any FAIL)
# JAX (XLA allocates through cuMemCreate/cuMemMap) and PyTorch with
# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (its caching allocator on VMM) run bare, then
# under test/cuda/cuda_trace_tool.cpp: `count` mode shows the program really maps memory
# (cuMemMap, cuMemSetAccess calls), `replay` mode replays every launch (3 passes for JAX, 2 for
# PyTorch, whose footprint makes the host-side checksum slow) with a checksum of the covered memory
# at every pass. Checks: the result and a digest of the final arrays / parameters are bit-identical
# to the bare run's, launches were replayed, none declined for a memory reason (the only decline
# accepted: launches into a stream capturing a CUDA graph, which XLA uses), inputs identical in
# every pass.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-gpu}
source benchmarks/cuda/common.sh
build_encore_cuda || { echo "FAIL: build"; exit 1; }
tool=$B/libcuda_trace_tool.so
build_tool test/cuda/cuda_trace_tool.cpp "$tool" || { echo "FAIL: tool build"; exit 1; }
export XLA_PYTHON_CLIENT_PREALLOCATE=false XLA_FLAGS=--xla_gpu_deterministic_ops=true
export CUBLAS_WORKSPACE_CONFIG=:4096:8

# The programs, unchanged, made deterministic and followed by a digest of their final state.
jax_prog='import hashlib, numpy as np
exec(open("benchmarks/cuda/programs/jax_matmul.py").read())
print("digest=" + hashlib.sha256(np.asarray(a).tobytes()).hexdigest())'
torch_prog='import hashlib, torch
torch.use_deterministic_algorithms(True)
exec(open("benchmarks/cuda/programs/torch_mlp.py").read())
print("digest=" + hashlib.sha256(b"".join(p.detach().cpu().numpy().tobytes() for p in model.parameters())).hexdigest())'

result() { grep -E '^(final_loss|sum|digest)=' "$1" | tr '\n' ' '; }

run_replay() {  # NAME PASSES PROGRAM
    local name=$1 passes=$2 prog=$3 out bare got maps
    out=$(mktemp)
    python3 -c "$prog" >"$out" 2>/dev/null
    bare=$(result "$out")
    echo "--- $name bare: $bare"
    check "$name runs bare" '[[ "$bare" == *digest=* ]]'
    ENCORE_CUDA_TOOL_MODE=count under_encore "$root/$tool" python3 -c "$prog" >"$out.count" 2>&1
    maps=$(grep -E 'cuda-tool: +[0-9]+ cuMem(Map|SetAccess|Create)$' "$out.count")
    [[ -n "$maps" ]] || tail -5 "$out.count"
    echo "$maps"
    # (count mode lists the functions called at least twice)
    check "$name maps memory through VMM (cuMemCreate/cuMemMap/cuMemSetAccess called)" '[[ -n "$maps" ]]'
    ENCORE_CUDA_TOOL_MODE=replay ENCORE_CUDA_REPLAY_PASSES=$passes ENCORE_CUDA_REPLAY_VERIFY=1 \
        under_encore "$root/$tool" python3 -c "$prog" >"$out" 2>"$out.err"
    got=$(result "$out")
    echo "--- $name replayed: $got"
    grep -E '^cuda-replay: [0-9]+ dispatches|^cuda-replay: per dispatch' "$out"
    grep -E '^cuda-replay: declined' "$out" | sort | uniq -c | head -5
    grep -E '\[encore\]' "$out.err" | sort | uniq -c | head -5
    check "$name replayed: result and digest bit-identical to the bare run" '[[ -n "$got" && "$got" == "$bare" ]]'
    check "$name: launches replayed, inputs identical in every pass" \
        'grep -Eq "^cuda-replay: [1-9][0-9]* dispatches replayed, [0-9]+ passes, inputs identical" "$out"'
    check "$name: no launch declined for memory (managed, imported, VMM, freed/unmapped)" \
        '! grep "^cuda-replay: declined" "$out" | grep -vq "capturing a graph"'
    if [[ -n ${OUT:-} ]]; then mkdir -p "$OUT/$name" && cp "$out" "$out.err" "$out.count" "$OUT/$name/"; fi
    rm -f "$out" "$out.err" "$out.count"
}

run_replay jax 3 "$jax_prog"
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True run_replay torch_expandable 2 "$torch_prog"
echo "$fails check(s) failed"
[[ $fails -eq 0 ]]
