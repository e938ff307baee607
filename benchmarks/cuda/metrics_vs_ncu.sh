#!/usr/bin/env bash
# Hardware counters through encore's replay passes against Nsight Compute (a machine with an
# NVIDIA GPU, PyTorch with Triton and ncu; not CI):
#   benchmarks/cuda/metrics_vs_ncu.sh [BUILD_DIR]    (default build-trace; exits 1 on any FAIL)
# encore is built CUDA only (common.sh's build_cuda_only), as the other framework scripts.
#
# For a PyTorch training loop (programs/torch_train_nvtx.py), a cuBLAS GEMM (programs/torch_gemm.py),
# a Triton kernel (programs/triton_add.py) and a Triton kernel streaming a known buffer in a
# program holding 8 GiB of device memory (programs/torch_stream_big.py), on the same kernel and
# the same first COUNT launches of it:
#   ncu --replay-mode kernel --clock-control none --cache-control all --print-units base
#       --metrics M -k regex:K -c COUNT --csv
#   encore-replay --metrics M --cache-control all -k K -c COUNT -o CSV
# (the kernels by a name both tools match: no discovery run) and per metric (metrics_compare.py): instructions executed (sm__inst_executed.sum,
# smsp__inst_executed.sum) equal for every launch; dram bytes within 1 % of the launch's DRAM
# traffic (or 8 KiB), and for the streaming kernel dram__bytes_read.sum within 2 % of the bytes it
# reads; gpu__time_duration.sum's median within 15 % or 0.5 us (clocks: ncu's --clock-control none,
# as encore, which never touches them). Each program's result must be the same bare, under ncu and
# under encore-replay. The speed comparison: on the 8 GiB program (10 launches) and on
# bench_replay.cu (8 GiB, no framework, 3 launches), with a 5-metric list of one CUPTI pass (M) and
# a 10-metric list of two (M2): three rounds of the program alone, under ncu and under encore-replay
# in turn, the medians of their wall times; the goal is ncu's profiling time (its wall time minus
# the program's) at least 10 x encore's. Where encore's time went is printed after each (per
# dispatch: snapshot, passes, restores; CUPTI's calls by function), and M2 on the 8 GiB program
# once more with --pass-schedule groups; then, figures only, bench_replay with M2 holding 8, 32 and
# 64 GiB (how the ratio grows with what ncu saves). METRICS_VS_NCU_PARTS=agreement,speed,scaling
# (the default) picks the parts. What both tools said goes to $OUT/metrics/ when OUT is
# set; encore runs with ENCORE_CUPTI_PROFILER_DEBUG=1 and its CUPTI calls that failed are printed
# when a check fails. 55 program runs, each bounded (timeout); about 5 minutes on an H200.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-trace}
source benchmarks/cuda/common.sh
build_cuda_only src/cuda/libcuda.so.1 examples/libencore_replay_metrics.so || exit 1
replay=$B/examples/encore-replay
[[ -x $replay ]] || { echo "FAIL: $replay was not configured"; exit 1; }
export CUBLAS_WORKSPACE_CONFIG=:4096:8
cmp=benchmarks/cuda/metrics_compare.py
limit=150  # seconds per command
count=3
M=sm__inst_executed.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
# Two passes for CUPTI on GH100 (checked with its host API offline); no SASS-patched metric
# (`*__sass_*`: the range profiler gives them no value, docs/counters.md).
M2=$M,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__cycles_active.avg,sm__pipe_fma_cycles_active.avg
secs_digits=2  # common.sh's secs
keep() { [[ -n ${OUT:-} ]] && mkdir -p "$OUT/metrics/$1" && cp "${@:2}" "$OUT/metrics/$1/" 2>/dev/null; true; }
started=$(now)
# METRICS_VS_NCU_PARTS: which parts run (default agreement,speed,scaling)
parts=${METRICS_VS_NCU_PARTS:-agreement,speed,scaling}
part() { [[ ,$parts, == *,$1,* ]]; }

# ---- what the machine is (printed first: one run must be enough to diagnose) ---------------------
echo "=== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | head -2
grep -H . /proc/driver/nvidia/params 2>/dev/null | grep -i -E 'RmProfilingAdminOnly|RestrictProfiling' | head -2
command -v ncu >/dev/null && ncu --version 2>&1 | tail -1 || echo "ncu: not found"
python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' 2>&1 | tail -1
# The CUPTI encore loads: ENCORE_CUPTI_LIBRARY if set, else one already in the process (PyTorch's
# libtorch_cuda may link its own: a second CUPTI in one process would fight it), else the
# toolkit's. The run's debug output names the one used ("cupti-profiler: using ...").
echo "CUPTI: ENCORE_CUPTI_LIBRARY=${ENCORE_CUPTI_LIBRARY:-(unset)}; the toolkit's: $(ls "$CUDA"/extras/CUPTI/lib64/libcupti.so.* "$CUDA"/lib64/libcupti.so.* 2>/dev/null | tr '\n' ' ')"
python3 - <<'PY' 2>/dev/null || true
import glob, os, torch
lib = os.path.join(os.path.dirname(torch.__file__), "lib")
print("PyTorch's CUPTI:", " ".join(sorted(glob.glob(os.path.join(lib, "..", "..", "nvidia", "*", "lib", "libcupti.so*")) +
                                        glob.glob(os.path.join(lib, "libcupti.so*")))) or "(none beside it)")
PY
command -v ncu >/dev/null || { echo "FAIL: ncu (Nsight Compute) not found: nothing to compare with"; exit 1; }

# encore_run TAG METRICS K COMMAND...: encore-replay --metrics on COMMAND; $wall, $tmp/TAG.{csv,out,err}
encore_run() {
    local tag=$1 metrics=$2 k=$3 t0
    t0=$(now)
    local select=()
    [[ -n $k ]] && select=(-k "$k")
    ENCORE_CUPTI_PROFILER_DEBUG=1 timeout "$limit" "$replay" --backend cuda --metrics "$metrics" --cache-control all \
        "${select[@]}" -c "$count" -o "$tmp/$tag.csv" "${@:4}" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
    echo "encore rc=$?" >>"$tmp/$tag.err"
    wall=$(secs "$t0" "$(now)")
}
# ncu_run TAG METRICS K COMMAND...: ncu on COMMAND; $wall, $tmp/TAG.{out,err}
ncu_run() {
    local tag=$1 metrics=$2 k=$3 t0
    t0=$(now)
    timeout "$limit" ncu --replay-mode kernel --clock-control none --cache-control all --print-units base \
        --metrics "$metrics" -k "regex:$k" -c "$count" --csv "${@:4}" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
    echo "ncu rc=$?" >>"$tmp/$tag.err"
    wall=$(secs "$t0" "$(now)")
}
# diagnose TAG: what encore and CUPTI said, when a check failed
diagnose() {
    echo "--- diagnosis ($1): encore's messages, CUPTI profiling calls that failed, the tail"
    grep -E '^\[encore' "$tmp/$1.err" | grep -v 'cupti-profiler: .* -> 0 ' | head -20
    grep -m1 'cupti-profiler: using' "$tmp/$1.err"
    tail -8 "$tmp/$1.err"
}

# program NAME SCRIPT K [KNOWN_BYTES]: the agreement checks on kernel K's first $count launches
program() {
    local name=$1 script=$2 k=$3 known=${4:-} bare f0=$fails
    tmp=$(mktemp -d)
    timeout "$limit" python3 "$script" >"$tmp/bare.out" 2>"$tmp/bare.err"
    bare=$(result "$tmp/bare.out")
    echo "=== $name: bare $bare; kernel $k, the first $count launches"
    check "$name runs bare" '[[ -n "$bare" ]]'
    [[ -n "$bare" ]] || { tail -5 "$tmp/bare.err"; rm -rf "$tmp"; return; }
    ncu_run ncu "$M" "$k" python3 "$script"
    local ncu_wall=$wall
    encore_run enc "$M" "$k" python3 "$script"
    local enc_wall=$wall
    check "$name under ncu: result unchanged" '[[ "$(result "$tmp/ncu.out")" == "$bare" ]]'
    check "$name under encore-replay --metrics: result unchanged" '[[ "$(result "$tmp/enc.out")" == "$bare" ]]'
    grep -E '^\[encore-replay\] agent|cupti-profiler: using' "$tmp/enc.err" | head -3
    python3 "$cmp" compare "$name" "$tmp/enc.csv" "$tmp/ncu.out" ${known:+--bytes "$known"}
    fails=$((fails + $?))
    echo "--- $name: wall ncu $ncu_wall s, encore-replay $enc_wall s"
    if [[ $fails -ne $f0 ]]; then
        diagnose enc
        grep -E '^==(ERROR|WARNING|PROF)==' "$tmp/ncu.err" "$tmp/ncu.out" | head -5
    fi
    keep "$name" "$tmp"/*.csv "$tmp"/*.err "$tmp"/ncu.out
    rm -rf "$tmp"
}

# Kernels by a name both tools match (encore's -k: a substring of the demangled name; ncu's
# regex: a search in the function's name): PyTorch's elementwise kernels, cuBLAS's GEMM, Triton's.
if part agreement; then
    program torch_train benchmarks/cuda/programs/torch_train_nvtx.py elementwise
    program torch_gemm benchmarks/cuda/programs/torch_gemm.py gemm
    program triton_add benchmarks/cuda/programs/triton_add.py add_kernel
fi

# median X...: the middle value (of an odd count; the lower middle of an even one)
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# rounds TAG METRICS K COMMAND...: $rounds rounds, each the program alone, under ncu and under
# encore-replay in turn (a framework's start-up varies by a second or more from run to run: one
# run of each would measure that, not the tools); $bare_wall, $ncu_wall, $enc_wall: the medians.
# The first round's files ($tmp/TAG.*, $tmp/TAG-ncu.*, $tmp/TAG-bare.out) are the ones checked.
rounds=3
rounds() {
    local tag=$1 metrics=$2 k=$3 r t0 b=() n=() e=()
    for ((r = 1; r <= rounds; r++)); do
        local sfx=; ((r > 1)) && sfx=-r$r
        t0=$(now)
        timeout "$limit" "${@:4}" >"$tmp/$tag-bare$sfx.out" 2>"$tmp/$tag-bare$sfx.err"
        b+=("$(secs "$t0" "$(now)")")
        ncu_run "$tag-ncu$sfx" "$metrics" "$k" "${@:4}"
        n+=("$wall")
        encore_run "$tag$sfx" "$metrics" "$k" "${@:4}"
        e+=("$wall")
    done
    bare_wall=$(median "${b[@]}") ncu_wall=$(median "${n[@]}") enc_wall=$(median "${e[@]}")
    echo "$tag: wall, s, round by round: program alone ${b[*]}; ncu ${n[*]}; encore-replay ${e[*]}"
}
# speed NAME TAG [report]: the speed check from the medians (with "report", the figures alone); encore's own account beside it (its dispatches'
# time from the per-dispatch breakdown, and CUPTI's initialization), which start-up noise cannot move
speed() {
    local ratio own
    ratio=$(awk "BEGIN{e=$enc_wall-$bare_wall; n=$ncu_wall-$bare_wall; if (e < 0.05) e = 0.05; printf \"%.1f\", n / e}")
    own=$(awk -v c="$count" '/^\[encore-replay\] time per dispatch, ms: +[0-9]/ && !seen++ { d += $6 * c }
          /cupti-profiler: cuptiProfilerInitialize.* us\)$/ { t = $(NF - 1); sub(/\(/, "", t); i += t / 1000 }
          END { printf "%.2f", (d + i) / 1000 }' "$tmp/$2.err")
    echo "wall (medians of $rounds): program alone $bare_wall s, ncu $ncu_wall s, encore-replay $enc_wall s; profiling time (wall minus the program's): ncu $(secs "$bare_wall" "$ncu_wall") s, encore $(secs "$bare_wall" "$enc_wall") s (its own account: $own s in its dispatches and CUPTI's initialization): ncu / encore = $ratio (whole runs: $(awk "BEGIN{printf \"%.1f\", $ncu_wall / $enc_wall}"))"
    [[ ${3:-} == report ]] || check "speed: ncu's profiling time at least 10 x encore's on $1 ($ratio x)" "awk 'BEGIN{exit !($ratio >= 10)}'"
}
# counted NAME LIST TAG: encore's CSV ($tmp/TAG.csv) has a row per launch ($count) and metric of LIST
counted() {
    local n rows
    n=$(tr ',' '\n' <<<"${!2}" | wc -l)
    rows=$(($(wc -l <"$tmp/$3.csv" 2>/dev/null || echo 1) - 1))
    check "$1: encore counted $count launches x $n metrics ($rows rows)" "[[ $rows -eq $((count * n)) ]]"
}
# replay_ok NAME: bench_replay's own result, bare, under ncu and under encore-replay (tag br)
replay_ok() {
    check "$1: correct bare, under ncu and under encore-replay" \
        'grep -q "value=3 ok" "$tmp/br-bare.out" && grep -q "value=3 ok" "$tmp/br-ncu.out" && grep -q "value=3 ok" "$tmp/br.out"'
}
# cost TAG: where encore's time went (its per-dispatch breakdown, and CUPTI's profiling calls: the
# host time of each, from ENCORE_CUPTI_PROFILER_DEBUG's lines, summed by function)
cost() {
    grep -E '^\[encore-replay\] time per dispatch' "$tmp/$1.err"
    echo "--- encore's CUPTI profiling calls ($1): calls, total ms, by function"
    awk '/cupti-profiler: .* us\)$/ { t = $(NF - 1); sub(/\(/, "", t); n[$3]++; ms[$3] += t / 1000 }
         END { for (f in n) printf "  %-48s %6d %10.1f\n", f, n[f], ms[f] }' "$tmp/$1.err" | sort -k3 -n -r | head -8
}

# ---- speed and a known buffer: the 8 GiB program, 10 launches, one pass (M) and two (M2) -------
# ncu needs no save and restore for a one-pass list; for two, it saves and restores what the kernel
# may write (its kernel replay), as encore does: both lists are measured, side by side.
script=benchmarks/cuda/programs/torch_stream_big.py
count=10
part speed && for list in M M2; do
    metrics=${!list}
    echo "=== torch_stream_big.py (8 GiB held), $count launches of stream_kernel, $list: $metrics"
    tmp=$(mktemp -d)
    rounds big "$metrics" stream_kernel python3 "$script"
    grep -E '^\[encore-replay\] agent' "$tmp/big.err" | head -1
    counted "stream_8gib $list" "$list" big
    check "stream_8gib $list: results unchanged under both" \
        '[[ -n "$(result "$tmp/big-bare.out")" && "$(result "$tmp/big-ncu.out")" == "$(result "$tmp/big-bare.out")" && "$(result "$tmp/big.out")" == "$(result "$tmp/big-bare.out")" ]]'
    # Two reads of 256 MiB a launch (src and dst).
    python3 "$cmp" compare "stream_8gib $list" "$tmp/big.csv" "$tmp/big-ncu.out" --bytes $((2 * 256 * 1024 * 1024))
    fails=$((fails + $?))
    speed "torch_stream_big, $list" big
    cost big
    if [[ $list == M2 ]]; then
        # encore's one-pass groups (--pass-schedule groups: a config per pass, so CUDA's profiler
        # object changes set every dispatch), once: what the library's schedule saves.
        lib_wall=$enc_wall
        ENCORE_METRICS_SCHEDULE=groups encore_run bigg "$metrics" stream_kernel python3 "$script"
        echo "stream_8gib M2: wall with --pass-schedule groups $wall s; with the library's schedule $lib_wall s (median); bare $bare_wall s (median)"
        cost bigg
    fi
    [[ $fails -eq 0 ]] || diagnose big
    keep "speed-$list" "$tmp"/*.csv "$tmp"/*.err "$tmp"/*.out
    rm -rf "$tmp"
done

# ---- speed on a CUDA program without a framework: bench_replay (8 GiB, 3 launches of write64) ---
# The program of the issue's "~151 ms per ncu pass" (bench_replay.cu); both lists.
prebuilt "$B/bench_replay" || nvcc -O2 -o "$B/bench_replay" benchmarks/cuda/bench_replay.cu  # (program() is this script's)
count=3
part speed && for list in M M2; do
    echo "=== bench_replay (8 GiB allocated), $count launches of write64, $list"
    tmp=$(mktemp -d)
    rounds br "${!list}" write64 "$B/bench_replay"
    replay_ok "bench_replay $list"
    counted "bench_replay $list" "$list" br
    speed "bench_replay, $list" br
    cost br
    keep "bench_replay-$list" "$tmp"/*.csv "$tmp"/*.err "$tmp"/*.out
    rm -rf "$tmp"
done
# ---- how the ratio grows with the memory a program holds: bench_replay at 8, 32 and 64 GiB, M2 ---
# Whether ncu's save and restore grows with what the program holds, against encore's snapshot and
# changed-chunk restore (both still proportional to the footprint: a full copy, and a hash of every
# chunk) and CUPTI's costs, which do not move; on the H200 ncu's time barely grew from 8 to 64 GiB
# (docs/counters.md). One round each (bench_replay alone varies by 0.03 s); the figures only: the
# checks are the 8 GiB ones above.
if part scaling; then
    rounds=1
    count=3
    for gib in 8 32 64; do
        echo "=== scaling: bench_replay holding $gib GiB, $count launches of write64, M2"
        tmp=$(mktemp -d)
        rounds br "$M2" write64 "$B/bench_replay" $((gib * 1024))
        replay_ok "scaling $gib GiB"
        speed "bench_replay at $gib GiB, M2" br report
        grep -E '^\[encore-replay\] time per dispatch' "$tmp/br.err"
        keep "scaling-$gib" "$tmp"/*.csv "$tmp"/*.err "$tmp"/*.out
        rm -rf "$tmp"
    done
fi
echo "metrics_vs_ncu: $(secs "$started" "$(now)") s in all"
echo "$fails check(s) failed"
[[ $fails -eq 0 ]]
