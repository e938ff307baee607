#!/usr/bin/env bash
# encore-trace on framework programs (a machine with an NVIDIA GPU, PyTorch and JAX; not CI):
#   benchmarks/cuda/trace_frameworks.sh [BUILD_DIR]      (default build-trace; exits 1 on any FAIL)
# For a PyTorch training loop (programs/torch_train_nvtx.py) and a JAX jit program
# (programs/jax_matmul.py), both deterministic: the result traced equals the result bare; the
# trace is whole (trace.json loads); every launch call has exactly one dispatch record (same
# correlation id) and every dispatch has a kernel name (not "kernel <id>"); the summary agrees
# with kernel_trace.csv; for PyTorch, the kernels inside the NVTX range "train_loop" equal
# torch.profiler's kernel count for the same loop, and the NVTX range is in the trace; every FREE
# in memory_allocation_trace.csv matches an earlier ALLOCATE of its family (ALLOCATE/FREE,
# VMEM_ALLOCATE/VMEM_FREE) by agent, address and size (counts per operation printed); PyTorch runs
# a second time with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (its allocator on VMM:
# VMEM records). encore is built CUDA only (-Dhsa=disabled: what an NVIDIA user with cuda.h alone
# builds).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-trace}
source benchmarks/cuda/common.sh
build_cuda_only src/cuda/libcuda.so.1 examples/libencore_api_trace.so src/nvtx/libencore-nvtx.so.0.1.0 || exit 1
trace=$B/examples/encore-trace
export XLA_PYTHON_CLIENT_PREALLOCATE=false XLA_FLAGS=--xla_gpu_deterministic_ops=true
export CUBLAS_WORKSPACE_CONFIG=:4096:8
result() { grep -E '^(final_loss|sum)=' "$1" | tail -1; }

# analyze DIR STDERR [RANGE]: checks the trace files; prints "launches=N dispatches=N in_range=N"
# and "allocations: OP=N ... unmatched_frees=N".
analyze() {
    python3 - "$@" <<'PY'
import csv, json, sys
out, err = sys.argv[1], sys.argv[2]
rng = sys.argv[3] if len(sys.argv) > 3 else None
json.load(open(f"{out}/trace.json", encoding="utf-8"))  # whole and valid
api = list(csv.DictReader(open(f"{out}/api_trace.csv", encoding="utf-8")))
ker = list(csv.DictReader(open(f"{out}/kernel_trace.csv", encoding="utf-8")))
launch_ops = {"cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz",
              "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz"}
launches = {r["correlation_id"]: r for r in api if r["operation"] in launch_ops and r["return_value"] == "0"}
corr = [r["correlation_id"] for r in ker]
problems = []
if sorted(corr) != sorted(launches):
    problems.append(f"{len(ker)} dispatches vs {len(launches)} successful launch calls (by correlation id)")
unnamed = [r for r in ker if not r["kernel_name"] or r["kernel_name"].startswith("kernel ")]
if unnamed:
    problems.append(f"{len(unnamed)} dispatches without a kernel name, e.g. {unnamed[0]['kernel_id']}")
summary = [l for l in open(err) if "kernel dispatches," in l]
if not summary or int(summary[-1].split()[1]) != len(ker):
    problems.append(f"summary {summary[-1:] } vs {len(ker)} rows")
in_range = -1
if rng:
    # (string arguments print quoted)
    ranges = [x for x in json.load(open(f"{out}/trace.json", encoding="utf-8")) if x.get("name") == "roctx range"
              and x.get("args", {}).get("message") == f'"{rng}"']
    if len(ranges) != 1:
        problems.append(f"NVTX range {rng!r}: {len(ranges)} in trace.json")
    else:
        lo = float(ranges[0]["ts"]) * 1000; hi = lo + float(ranges[0]["dur"]) * 1000
        inside = {c for c, x in launches.items() if lo <= int(x["start_ns"]) <= hi}
        in_range = sum(1 for c in corr if c in inside)
# Allocation records: each FREE (VMEM_FREE) must match a live ALLOCATE (VMEM_ALLOCATE) with the
# same agent, address and size, in the order the calls ended (rows are written at EXIT).
allocs = list(csv.DictReader(open(f"{out}/memory_allocation_trace.csv", encoding="utf-8")))
allocs.sort(key=lambda r: int(r["end_ns"]))
family = {"MEMORY_ALLOCATION_ALLOCATE": ("mem", True), "MEMORY_ALLOCATION_FREE": ("mem", False),
          "MEMORY_ALLOCATION_VMEM_ALLOCATE": ("vmem", True), "MEMORY_ALLOCATION_VMEM_FREE": ("vmem", False)}
counts, live, unmatched = {}, {}, []
for r in allocs:
    op = r["operation"]
    counts[op] = counts.get(op, 0) + 1
    if op not in family:
        unmatched.append(r); continue
    fam, is_alloc = family[op]
    key = (fam, r["agent_id"], r["address"])
    if is_alloc:
        if int(r["address"], 16) != 0: live[key] = r["bytes"]
    elif live.get(key) == r["bytes"]:
        del live[key]
    else:
        unmatched.append(r)
for r in unmatched[:5]:
    problems.append(f"{r['operation']} {r['address']} {r['bytes']} bytes (agent {r['agent_id']}): no earlier "
                    "allocation with that address and size")
if len(unmatched) > 5: problems.append(f"... {len(unmatched) - 5} more unmatched frees")
print("allocations: " + " ".join(f"{k.replace('MEMORY_ALLOCATION_', '')}={v}" for k, v in sorted(counts.items()))
      + f" unmatched_frees={len(unmatched)} never_freed={len(live)}")
for p in problems: print("PROBLEM:", p)
print(f"launches={len(launches)} dispatches={len(ker)} in_range={in_range} problems={len(problems)}")
PY
}

run_framework() {  # NAME SCRIPT [NVTX RANGE]
    local name=$1 script=$2 rng=${3:-} out dir bare traced stats
    out=$(mktemp) dir=$(mktemp -d)
    python3 "$script" >"$out" 2>/dev/null
    bare=$(result "$out")
    echo "--- $name bare: $bare"
    check "$name runs bare" '[[ -n "$bare" ]]'
    "$trace" --backend cuda --marker-trace --quiet -o "$dir" python3 "$script" >"$out" 2>"$out.err"
    traced=$(result "$out")
    echo "--- $name traced: $traced"
    grep -E 'kernel dispatches|memory copies|memory allocations' "$out.err" | head -3
    check "$name: same result traced" '[[ -n "$traced" && "$traced" == "$bare" ]]'
    stats=$(analyze "$dir" "$out.err" $rng)
    echo "$stats"
    check "$name: one dispatch per launch, every kernel named, summary agrees, every FREE matches an ALLOCATE" \
        '[[ "$stats" == *"problems=0"* ]]'
    if [[ -n "$rng" ]]; then
        local profiled in_range
        profiled=$(python3 "$script" --profile 2>/dev/null | sed -n 's/^profiler_kernels=//p')
        in_range=$(sed -n 's/.*in_range=\([0-9-]*\).*/\1/p' <<<"$stats")
        echo "--- $name: kernels in '$rng': encore $in_range, torch.profiler $profiled"
        check "$name: kernel count equals torch.profiler's for the same loop" \
            '[[ -n "$profiled" && "$in_range" == "$profiled" ]]'
    fi
    # On the device machine the CSVs and the summary come back for a closer look.
    if [[ -n ${OUT:-} ]]; then
        mkdir -p "$OUT/$name" && cp "$dir"/memory_allocation_trace.csv "$out.err" "$OUT/$name/" 2>/dev/null
    fi
    rm -rf "$dir" "$out" "$out.err"
}

run_framework torch benchmarks/cuda/programs/torch_train_nvtx.py train_loop
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True run_framework torch_expandable \
    benchmarks/cuda/programs/torch_train_nvtx.py train_loop
run_framework jax benchmarks/cuda/programs/jax_matmul.py
echo "$fails check(s) failed"
[[ $fails -eq 0 ]]
