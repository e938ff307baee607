#!/usr/bin/env bash
# encore-trace on PyTorch jobs of several processes (a machine with an NVIDIA GPU and PyTorch; not
# CI), issue 37's GPU checks:
#   benchmarks/cuda/trace_multiproc.sh [BUILD_DIR]     (default build-gpu-trace; exits 1 on a FAIL)
# 1. programs/dataloader_train.py (DataLoader with 2 fork workers) under encore-trace --kernel-trace
#    -d OUT/%hostname% --output-file p%pid%: a database per process, the workers' too (they make
#    no CUDA calls); the main process's kernels as many as torch.profiler counts in the same loop
#    (its own run), the loss as the bare run's.
# 2. the same program as torchrun's only worker (torchrun --standalone --nproc_per_node=1) under one
#    encore-trace with --output-file rank%rank%_p%pid%: the worker's database named by its rank
#    (torchrun sets RANK) holds the kernels.
# 3. a GPT-2 training loop (programs/gpt2_train.py, 5 steps) under --runtime-trace -f rocpd,pftrace,
#    --stats: the Perfetto trace written, its size against the database's, the statistics files.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-gpu-trace}
source benchmarks/cuda/common.sh
build_trace_front_end || exit 1
trace=$B/examples/encore-trace
prog=benchmarks/cuda/programs/dataloader_train.py
work=$(mktemp -d)
export CUBLAS_WORKSPACE_CONFIG=:4096:8
field() { grep -E "^$1=" "$2" | tail -1 | cut -d= -f2; }
check() { if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }
# count DB: kernels in a rocpd database (python's sqlite3: the GPU machine has no sqlite3 CLI)
# count DB [OUT]: kernels whose GPU start lies in OUT's window_ns (the program's loop), and on stderr
# the names of those outside it
count() {
    python3 - "$@" <<'PY' || echo -1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
lo, hi = 0, 2**63
if len(sys.argv) > 2:
    for line in open(sys.argv[2]):
        if line.startswith("window_ns="):
            lo, hi = map(int, line.strip().split("=")[1].split(","))
rows = db.execute("SELECT name, start FROM kernels").fetchall()
outside = [n for n, s in rows if not lo <= s <= hi]
if outside:
    print(f"{len(outside)} kernels outside the loop: {sorted(set(outside))[:4]}", file=sys.stderr)
print(sum(1 for n, s in rows if lo <= s <= hi))
PY
}

python3 "$prog" > "$work/bare.txt" 2>&1
python3 "$prog" --profile > "$work/prof.txt" 2>&1
"$trace" --kernel-trace --quiet -d "$work/dl/%hostname%" --output-file 'p%pid%' -- python3 "$prog" \
    > "$work/dl.txt" 2> "$work/dl.err"
main_pid=$(sed -nE 's/^pid=([0-9]+).*/\1/p' "$work/dl.txt")
dbs=$(ls "$work"/dl/*/p*_results.db 2>/dev/null | wc -l)
main_db=$(ls "$work"/dl/*/p"${main_pid}"_results.db 2>/dev/null)
kernels=$([[ -n $main_db ]] && count "$main_db" "$work/dl.txt" 2> "$work/dl.outside" || echo -1)
cat "$work/dl.outside"
echo "dataloader: $dbs databases; main pid $main_pid: $kernels kernels; torch.profiler $(field profiler_kernels "$work/prof.txt")"
tail -4 "$work/dl.err"
check "dataloader: a database per process, the 2 workers' too (3 or more: $dbs)" '[[ $dbs -ge 3 ]]'
check "dataloader: the main process's kernels as many as torch.profiler's ($kernels)" \
    '[[ $kernels == "$(field profiler_kernels "$work/prof.txt")" ]]'
check "dataloader: loss as bare" '[[ "$(field final_loss "$work/dl.txt")" == "$(field final_loss "$work/bare.txt")" ]]'

"$trace" --kernel-trace --quiet -d "$work/tr" --output-file 'rank%rank%_p%pid%' -- \
    torchrun --standalone --nproc_per_node=1 "$prog" > "$work/tr.txt" 2> "$work/tr.err"
worker_pid=$(sed -nE 's/^pid=([0-9]+).*/\1/p' "$work/tr.txt")
worker_db=$(ls "$work"/tr/rank0_p"${worker_pid}"_results.db 2>/dev/null)
wk=$([[ -n $worker_db ]] && count "$worker_db" "$work/tr.txt" 2> "$work/tr.outside" || echo -1)
cat "$work/tr.outside"
echo "torchrun: $(ls "$work"/tr | tr '\n' ' '); worker pid $worker_pid: $wk kernels"
tail -3 "$work/tr.err"
check "torchrun: the worker's database named by its rank, with the kernels ($wk)" \
    '[[ $wk == "$(field profiler_kernels "$work/prof.txt")" ]]'

"$trace" --runtime-trace --quiet --stats -d "$work/g2" -f rocpd,pftrace -- \
    python3 benchmarks/cuda/programs/gpt2_train.py --steps 5 > "$work/g2.txt" 2> "$work/g2.err"
ls -la "$work/g2" | tail -n +2
tail -3 "$work/g2.err"
pf=$(ls "$work"/g2/*_results.pftrace 2>/dev/null | head -1)
check "gpt2 --runtime-trace: a Perfetto trace written (${pf:-none})" '[[ -s $pf ]]'
check "gpt2 --runtime-trace --stats: kernel statistics" '[[ -s $(ls "$work"/g2/*_kernel_stats.csv | head -1) ]]'
head -4 "$(ls "$work"/g2/*_kernel_stats.csv | head -1)" 2>/dev/null
rm -rf "$work"
echo "$fails failed"
exit $((fails != 0))
