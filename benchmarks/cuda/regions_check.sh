#!/usr/bin/env bash
# encore-trace --selected-regions on a real driver (a machine with an NVIDIA GPU and PyTorch; not
# CI): benchmarks/cuda/regions_check.sh [BUILD_DIR]   (default build-gpu-trace; exits 1 on any FAIL)
# programs/torch_regions.py marks a region with torch.cuda.profiler.start()/stop() (the CUDA
# runtime's cudaProfilerStart/Stop, the driver's cuProfilerStart/Stop). Under each dispatch timing
# (CUPTI's records, CUDA events), the rocpd database must hold exactly the region's kernels, each
# named for the add it ran, and the program's output must equal the bare run's.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-gpu-trace}
source benchmarks/cuda/common.sh
build_trace_front_end || exit 1
trace=$B/examples/encore-trace
prog=benchmarks/cuda/programs/torch_regions.py
work=$(mktemp -d)
fails=0
python3 "$prog" > "$work/bare.txt" || { echo "FAIL: the bare run"; exit 1; }
cat "$work/bare.txt"
for timing in auto events; do
    ENCORE_CUDA_DISPATCH_TIMING=$timing "$trace" --kernel-trace --selected-regions -d "$work/$timing" -f rocpd -- \
        python3 "$prog" > "$work/$timing.txt" 2> "$work/$timing.err"
    rc=$?
    tail -4 "$work/$timing.err"
    python3 - "$work" "$timing" "$rc" <<'PY' || fails=$((fails + 1))
import glob, sqlite3, sys
work, timing, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
bare, traced = open(f"{work}/bare.txt").read(), open(f"{work}/{timing}.txt").read()
inside = int(bare.split()[0].split("=")[1])
names = []
for db in glob.glob(f"{work}/{timing}/*_results.db"):
    with sqlite3.connect(db) as d:
        names += [n for (n,) in d.execute("SELECT name FROM kernels")]
adds = sum(1 for n in names if "add" in n.lower())
checks = [(f"exit status {rc}", rc == 0), (f"output equals the bare run's", traced == bare),
          (f"{len(names)} kernels recorded, {inside} launched in the region", len(names) == inside),
          (f"{adds} of them named for the add", adds == len(names))]
for what, ok in checks:
    print(("PASS: " if ok else "FAIL: ") + f"{timing}: {what}")
if names:
    print(f"{timing}: first kernel: {names[0][:150]}")
sys.exit(0 if all(ok for _, ok in checks) else 1)
PY
done
rm -rf "$work"
exit $((fails > 0))
