#!/usr/bin/env bash
# encore-trace's record path on a GPT-2 training loop (a machine with an NVIDIA GPU, PyTorch and
# transformers; not CI):
#   benchmarks/cuda/trace_gpt2.sh [BUILD_DIR]     (default build-gpu-trace; exits 1 on any FAIL)
# programs/gpt2_train.py (random weights, 4 layers, deterministic), run these ways ("cases"):
# bare; "bare2", a second bare process (an A/A pair: what the method resolves); torch.profiler
# (CPU and CUDA activities, "prof"); encore-trace --kernel-trace -f rocpd with
# ENCORE_CUDA_DISPATCH_TIMING=events (kernel times from CUDA events, "kernel"); the same with
# encore-trace's default (auto: times from CUPTI's records, "cupti");
# encore-trace --runtime-trace -f rocpd (the driver API, markers, kernels, copies, allocations);
# encore-trace -o DIR (the driver API, kernels, copies, allocations into trace.json and the CSVs:
# "legacy", the first tool's format, on the record path since 0f41146); "sub": a bare CUPTI kernel
# subscriber preloaded into the program, no encore (cupti_subscriber.cpp: what CUPTI's records
# alone cost the loop, beside "cupti", whose launches CUPTI times the same way); "paused": "cupti"
# with --selected-regions and no region in the program (nothing recorded: CUPTI's records and
# encore's stream placeholders alone, what a run pays outside its regions).
# CASES (default "bare2 prof kernel cupti runtime legacy sub paused") picks the cases; bare always runs.
# MODE=interleaved (the default): one process per case, started and warmed up once, side by side;
# then BLOCKS (default 12) blocks in which each case runs STEPS (default 5) steps in turn while the
# others wait idle, the order turning by one each block (interleave.py). Each case's ratio to
# bare is taken block by block ("PAIRED"), so the host's drift, which moved a bare run's median
# step 13-27 ms between runs minutes apart, falls on both sides of every ratio.
# MODE=rounds: a fresh process per case and round, ROUNDS (default 3) rounds of STEPS (default 20)
# steps, the order turning by one each round; ratios of the medians of the rounds' medians.
# "cupti" runs with ENCORE_CUPTI_STATS=1: its log says how many launches CUPTI's records timed.
# Prints each case's median step time, the ratios to bare, and checks: the final loss
# equals the bare run's; every kernel torch.profiler counts in the timed steps is in the rocpd
# database (the kernels whose GPU start lies in the steps' window), each with a name.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-gpu-trace}
source benchmarks/cuda/common.sh
build_trace_front_end || exit 1
known="bare2 prof kernel cupti runtime legacy sub paused"
cases=(bare)
for c in ${CASES:-$known}; do
    [[ $c == bare ]] && continue
    [[ " $known " == *" $c "* ]] || { echo "FAIL: unknown case $c (CASES takes bare $known)"; exit 1; }
    cases+=("$c")
done
if [[ " ${cases[*]} " == *" sub "* ]]; then build_cupti_subscriber || exit 1; fi
trace=$B/examples/encore-trace
prog=benchmarks/cuda/programs/gpt2_train.py
work=$(mktemp -d)
export CUBLAS_WORKSPACE_CONFIG=:4096:8
field() { grep -E "^$1=" "$2" | tail -1 | cut -d= -f2; }

mode=${MODE:-interleaved}
command_of() {  # CASE OUT [ARGS...]: the shell command that runs the program as CASE, records in OUT
    local c=$1 o t p
    o=$(printf %q "$2") t=$(printf %q "$trace")
    shift 2
    p="python3 $(printf '%q ' "$prog" "$@")"
    case $c in
        bare | bare2) echo "$p" ;;
        prof) echo "$p --profile" ;;
        kernel) echo "ENCORE_CUDA_DISPATCH_TIMING=events $t --kernel-trace --quiet -d $o -f rocpd -- $p" ;;
        cupti) echo "ENCORE_CUPTI_STATS=1 $t --kernel-trace --quiet -d $o -f rocpd -- $p" ;;
        runtime) echo "$t --runtime-trace --quiet -d $o -f rocpd -- $p" ;;
        paused) echo "$t --kernel-trace --selected-regions --quiet -d $o -f rocpd -- $p" ;;
        legacy) echo "$t --quiet -o $o -- $p" ;;
        sub) echo "LD_PRELOAD=$(printf %q "$root/$B/libcupti_subscriber.so") $p" ;;
    esac
}
if [[ $mode == interleaved ]]; then
    rounds=1
    specs=()
    for c in "${cases[@]}"; do
        cmd=$(command_of "$c" "$work/${c}_1" --serve)
        # CPUS: every case's process tree on these CPUs (taskset -c), so that no case keeps the
        # cores the scheduler happened to give it at start-up.
        [[ -n ${CPUS:-} ]] && cmd="exec taskset -c $(printf %q "$CPUS") bash -c $(printf %q "$cmd")"
        specs+=("$c=$cmd")
    done
    python3 benchmarks/cuda/interleave.py --work "$work" --blocks "${BLOCKS:-12}" --steps "${STEPS:-5}" \
        --seed "${SEED:-1}" "${specs[@]}"
    interleave_status=$?
elif [[ $mode == rounds ]]; then
    # ROUNDS (default 3) and STEPS (timed steps per run, default 20): the machine's noise between
    # runs (a bare step's median moved 16-22 ms in one call) asks for more of both.
    rounds=${ROUNDS:-3}
    n=${#cases[@]}
    for round in $(seq "$rounds"); do
        for i in $(seq 0 $((n - 1))); do
            c=${cases[$(((i + round - 1) % n))]}
            bash -c "$(command_of "$c" "$work/${c}_$round" --steps "${STEPS:-20}")" \
                > "$work/${c}_$round.txt" 2> "$work/${c}_$round.err"
        done
        for c in "${cases[@]}"; do
            echo "round $round $c: median_step_ms=$(field median_step_ms "$work/${c}_$round.txt") final_loss=$(field final_loss "$work/${c}_$round.txt")"
        done
    done
    interleave_status=0
else
    echo "FAIL: unknown MODE $mode (interleaved or rounds)"
    exit 1
fi
for c in kernel cupti runtime legacy sub; do [[ -f $work/${c}_1.err ]] && tail -3 "$work/${c}_1.err"; done

python3 - "$work" "$rounds" "${cases[@]}" <<'PY'
import csv, glob, os, re, sqlite3, statistics, sys
work, rounds, cases = sys.argv[1], range(1, int(sys.argv[2]) + 1), sys.argv[3:]
def field(path, name):
    for line in open(path):
        if line.startswith(name + "="):
            return line.strip().split("=", 1)[1]
    return None
med = {}
for c in cases:
    vals = [float(field(f"{work}/{c}_{r}.txt", "median_step_ms") or "nan") for r in rounds]
    med[c] = statistics.median(vals)
    print(f"{c:8s} median of rounds' median step: {med[c]:.3f} ms  ({', '.join(f'{v:.3f}' for v in vals)})")
for c in cases[1:]:  # interleaved: one "round", the median of all its steps (PAIRED above is the figure)
    print(f"RATIO {c}/bare = {med[c] / med['bare']:.3f}")
bare_loss = field(f"{work}/bare_1.txt", "final_loss")
fails = 0
def check(what, ok):
    global fails
    print(("PASS: " if ok else "FAIL: ") + what)
    fails += 0 if ok else 1
for c in cases[1:]:
    if c == "prof":
        continue
    losses = {field(f"{work}/{c}_{r}.txt", "final_loss") for r in rounds}
    check(f"{c}: final loss equals bare's ({losses} vs {bare_loss})", losses == {bare_loss})
if "prof" not in cases:
    print("(no torch.profiler case: the kernels recorded are not counted against it)")
    sys.exit(1 if fails else 0)
prof_kernels = int(field(f"{work}/prof_1.txt", "profiler_kernels") or -1)
for c in ("kernel", "cupti", "runtime"):
    if c not in cases:
        continue
    dbs = glob.glob(f"{work}/{c}_1/*_results.db")
    lo, hi = map(int, (field(f"{work}/{c}_1.txt", "window_ns") or "0,-1").split(","))  # none: the run failed
    n = named = 0
    for db in dbs:
        with sqlite3.connect(db) as d:
            rows = d.execute("SELECT name FROM kernels WHERE start >= ? AND start <= ?", (lo, hi)).fetchall()
            n += len(rows)
            named += sum(1 for (name,) in rows if name and not name.startswith("kernel "))
    check(f"{c}: kernels in the timed steps' window: {n}, torch.profiler's {prof_kernels}", n == prof_kernels)
    check(f"{c}: every kernel named ({named} of {n})", named == n and n > 0)
if "legacy" in cases:
    lo, hi = map(int, (field(f"{work}/legacy_1.txt", "window_ns") or "0,-1").split(","))
    rows = []
    if os.path.exists(f"{work}/legacy_1/kernel_trace.csv"):
        with open(f"{work}/legacy_1/kernel_trace.csv", newline="") as f:
            rows = [r for r in csv.DictReader(f) if lo <= int(r["start_ns"]) <= hi]
    check(f"legacy: kernels in the timed steps' window (kernel_trace.csv): {len(rows)}, torch.profiler's {prof_kernels}",
          len(rows) == prof_kernels)
    check("legacy: every kernel named", rows and all(r["kernel_name"] and not r["kernel_name"].startswith("kernel ")
                                                     for r in rows))
if "sub" in cases:
    # The subscriber counts every kernel of the run (warm-up included): at least the timed steps'.
    m = re.search(r"cupti_subscriber: (\d+) kernel records", open(f"{work}/sub_1.err").read())
    got = int(m.group(1)) if m else -1
    check(f"sub: CUPTI delivered a record per kernel ({got} records, torch.profiler's {prof_kernels} in the timed steps)",
          got >= prof_kernels > 0)
sys.exit(1 if fails else 0)
PY
status=$?
rm -rf "$work"
[[ $interleave_status == 0 ]] || status=1
exit $status
