#!/usr/bin/env bash
# All GPU checks and benchmarks of the CUDA backend in one go, on a machine with CUDA and an
# NVIDIA GPU (not CI). Builds libencore and libencore-cuda (libcuda.so.1) with Meson, the test
# programs with nvcc, runs them bare and traced, checks, benchmarks, and prints a table last.
#   benchmarks/cuda/run_gpu.sh [BUILD_DIR]       (ENCORE_GPU_QUICK=1: without the framework scripts)
# Building and running under encore: common.sh.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-gpu}
source benchmarks/cuda/common.sh
set -e
# The committed PTX of the changed_chunks kernels must be what nvcc makes of chunks.cu.
mkdir -p "$B"
tools/gen_cuda_ptx.sh "$B/chunks_ptx.inc"
if ! cmp -s "$B/chunks_ptx.inc" src/cuda/chunks_ptx.inc; then
    echo "FAIL: src/cuda/chunks_ptx.inc is stale (tools/gen_cuda_ptx.sh); the fresh one is used for this run"
    cp "$B/chunks_ptx.inc" src/cuda/chunks_ptx.inc
    [[ -n ${OUT:-} ]] && cp "$B/chunks_ptx.inc" "$OUT/"
    fails=$((fails + 1))
fi
build_encore_cuda
build_tool test/cuda/cuda_trace_tool.cpp "$B/libcuda_trace_tool.so"
program "$B/saxpy_static" nvcc -O2 -o "$B/saxpy_static" test/cuda/saxpy_runtime.cu
program "$B/saxpy_shared" nvcc -O2 -cudart shared -o "$B/saxpy_shared" test/cuda/saxpy_runtime.cu
program "$B/driver_api" g++ -O2 -I "$CUDA/include" test/cuda/driver_api.cpp -L "$CUDA/lib64/stubs" -lcuda -o "$B/driver_api"
program "$B/replay_stateful" nvcc -O2 -o "$B/replay_stateful" test/cuda/replay_stateful.cu
program "$B/replay_streams" nvcc -O2 -o "$B/replay_streams" test/cuda/replay_streams.cu
program "$B/replay_declines" nvcc -O2 -o "$B/replay_declines" test/cuda/replay_declines.cu
program "$B/records_program" nvcc -O2 -o "$B/records_program" test/cuda/records_program.cu
program "$B/bench_launch" nvcc -O2 -o "$B/bench_launch" benchmarks/cuda/bench_launch.cu
program "$B/bench_replay" nvcc -O2 -o "$B/bench_replay" benchmarks/cuda/bench_replay.cu
program "$B/bench_call" g++ -O2 -I "$CUDA/include" benchmarks/cuda/bench_driver_call.cpp -L "$CUDA/lib64/stubs" -lcuda \
    -L "$CUDA/lib64" -lcupti -Wl,-rpath,"$CUDA/lib64" -ldl -o "$B/bench_call"
build_tool examples/tools/replay_bench.cpp "$B/libreplay_bench.so"
set +e
# CUPTI's headers and library: the toolkit's extras/CUPTI (runfile installs) or beside the rest.
program "$B/bench_launch_cupti" nvcc -O2 -DBENCH_WITH_CUPTI -I "$CUDA/extras/CUPTI/include" -o "$B/bench_launch_cupti" \
    benchmarks/cuda/bench_launch.cu -L "$CUDA/extras/CUPTI/lib64" -L "$CUDA/lib64" -lcupti \
    -Xlinker -rpath -Xlinker "$CUDA/extras/CUPTI/lib64:$CUDA/lib64"
program "$B/launch_calls" nvcc -O2 -I "$CUDA/extras/CUPTI/include" -o "$B/launch_calls" benchmarks/cuda/launch_calls.cu \
    -L "$CUDA/extras/CUPTI/lib64" -L "$CUDA/lib64" -lcupti -lcuda -Xlinker -rpath -Xlinker "$CUDA/extras/CUPTI/lib64:$CUDA/lib64"
# prebuild_gpu.sh: the programs are built, nothing is run.
[[ -n ${ENCORE_GPU_BUILD_ONLY:-} ]] && exit 0

encore() { under_encore "$root/$B/libcuda_trace_tool.so" "$@"; }

for prog in saxpy_static saxpy_shared driver_api; do
    bare=$("$B/$prog" 2>&1); traced=$(encore "$B/$prog" 2>&1)
    echo "--- $prog"; echo "$traced"
    check "$prog runs bare" '[[ "$bare" == *" ok"* || "$bare" == *": ok"* ]]'
    check "$prog runs traced, same result" '[[ "$(grep -m1 "^saxpy:\|^driver_api:" <<<"$traced")" == "$(grep -m1 "^saxpy:\|^driver_api:" <<<"$bare")" ]]'
    check "$prog: ENTER/EXIT paired, nothing bad" 'grep -Eq "enter=([0-9]+) exit=\1 bad=0 runtime_init=1" <<<"$traced"'
done
check "static runtime: 11 launches traced" 'grep -q " 11 launches" <<<"$(encore "$B/saxpy_static" 2>&1)"'
check "shared runtime: 11 launches traced" 'grep -q " 11 launches" <<<"$(encore "$B/saxpy_shared" 2>&1)"'
drv=$(encore "$B/driver_api" 2>&1)
check "driver API: cuMemAlloc_v2 traced with arguments" 'grep -q "args cuMemAlloc_v2(dptr=" <<<"$drv"'
# Each call traced exactly once: 14 calls (cuInit ... 5 x cuCtxGetDevice ... release).
check "driver API: every call traced once" 'grep -q "cuda-tool: 14 calls" <<<"$drv" && grep -Eq "^cuda-tool: +5 cuCtxGetDevice$" <<<"$drv"'
# The runtime's first calls resolve lazily too: the counts equal the program's calls.
check "static runtime: cuMemAlloc_v2 twice, cuLaunchKernel 11 times" 'out=$(encore "$B/saxpy_static" 2>&1); grep -Eq "^cuda-tool: +2 cuMemAlloc_v2$" <<<"$out" && grep -Eq "^cuda-tool: +11 cuLaunchKernel$" <<<"$out"'

# Kernel replay: stateful kernels, every policy / snapshot place; the program's own check is
# that memory equals one run of each launch.
check "replay_stateful runs bare" '"$B/replay_stateful" | grep -q " ok$"'
for variant in "full_copy device" "full_copy host" "changed_chunks device" "changed_chunks host"; do
    out=$(
        export ENCORE_CUDA_TOOL_MODE=replay ENCORE_CUDA_REPLAY_VERIFY=1 ENCORE_CUDA_REPLAY_RECORDS=1
        export ENCORE_REPLAY_POLICY=${variant% *} ENCORE_CUDA_REPLAY_SHADOW=${variant#* }
        encore "$B/replay_stateful" 2>&1
    )
    echo "--- replay_stateful ($variant)"; echo "$out"
    check "replay ($variant): final memory as without replay" 'grep -q "^replay_stateful: .* ok$" <<<"$out"'
    check "replay ($variant): 11 launches (incl. Ex, cooperative) x 3 passes, identical inputs" 'grep -q "11 dispatches replayed, 33 passes, inputs identical, 0 declined" <<<"$out"'
    check "replay ($variant): each pass's dispatch records, one id per launch" 'grep -q "dispatch records: 11 ids with 3 COMPLETE;$" <<<"$out"'
    check "replay ($variant): no warning" '! grep -q "\[encore\]" <<<"$out"'
done
out=$(ENCORE_CUDA_TOOL_MODE=replay ENCORE_CUDA_REPLAY_KERNEL=acc encore "$B/replay_streams" 2>&1)
echo "--- replay_streams"; echo "$out"
check "replay on one stream while another runs: results exact" 'grep -q "^replay_streams: counter=400 ok$" <<<"$out"'
check "replay on one stream: 5 launches x 3 passes, 400 others once" 'grep -q "5 dispatches replayed, 15 passes" <<<"$out" && grep -q "400 launches not selected" <<<"$out"'
out=$(ENCORE_CUDA_TOOL_MODE=replay encore "$B/replay_declines" 2>&1)
echo "--- replay_declines"; echo "$out"
check "declines: every launch ran once in effect" 'grep -q "^replay_declines: value=4 ok$" <<<"$out"'
# 3 replayed: the launches before and after, and the graph's kernel node (graph launches go node
# by node while replay is active, docs/cuda.md "Kernels inside CUDA graphs").
check "declines: 3 replayed (a graph's kernel node among them), managed memory and graph capture declined" 'grep -q "3 dispatches replayed, 9 passes, inputs not checked, 2 declined" <<<"$out" && grep -q "declined: the context has managed memory" <<<"$out" && grep -q "declined: the stream is capturing a graph" <<<"$out"'
check "declines: each reason warned once" '[[ $(grep -c "\[encore\] kernel replay: the context has managed memory" <<<"$out") == 1 && $(grep -c "\[encore\] kernel replay: the stream is capturing a graph" <<<"$out") == 1 ]]'

# Dispatch, copy and allocation records (GPU times, pairing, correlation).
bare=$("$B/records_program" 2>&1)
out=$(ENCORE_CUDA_TOOL_MODE=records encore "$B/records_program" 2>&1)
echo "--- records_program"; echo "$out"
check "records_program runs bare and traced" 'grep -q " ok$" <<<"$bare" && grep -q "^records_program: .* ok$" <<<"$out"'
want() { grep -o "$1=[0-9]*" <<<"$bare" | cut -d= -f2; }
check "records: one ENQUEUE and one COMPLETE per launch, paired, in order, correlated" \
    'grep -q "dispatches enqueue=$(want launches) complete=$(want launches) unpaired=0 duplicate=0 order_bad=0 corr_bad=0 timed=$(want launches) untimed=0 time_bad=0" <<<"$out"'
check "records: GPU times inside the host window (within 50 us)" \
    'awk "/GPU start before/ {exit !(\$10 <= 50000 && \$19 <= 50000)}" <<<"$out"'
check "records: copies by direction, each timed" \
    'grep -q "copies h2h=0 h2d=$(want h2d) d2h=$(want d2h) d2d=$(want d2d) enter=[0-9]* exit=[0-9]* time_bad=0" <<<"$out" && awk "/copies h2h/ {split(\$7,a,\"=\"); split(\$8,b,\"=\"); exit !(a[2]==b[2])}" <<<"$out"'
check "records: copy bytes by direction (2-D: width x height, 3-D: x depth)" \
    'grep -q "copy bytes h2d=$(want bytes_h2d) d2h=$(want bytes_d2h) d2d=$(want bytes_d2d)$" <<<"$out"'
check "records: allocations and frees with addresses and sizes" \
    'grep -q "allocations allocate=$(want allocs) free=$(want frees) bad=0" <<<"$out"'

# Replay cost: 8 GiB tracked, a kernel writing 64 MiB, 10 passes.
declare -A rep
for variant in "full_copy device" "full_copy host" "changed_chunks device" "changed_chunks host"; do
    rep[$variant]=$(ENCORE_CUDA_TOOL_MODE=replay ENCORE_CUDA_REPLAY_PASSES=10 ENCORE_REPLAY_POLICY=${variant% *} \
        ENCORE_CUDA_REPLAY_SHADOW=${variant#* } encore "$B/bench_replay" 2>&1)
    echo "--- bench_replay $variant"; echo "${rep[$variant]}"
    check "bench_replay correct under replay ($variant)" 'grep -q "value=3 ok" <<<"${rep[$variant]}"'
done
# --verify on the device (issue 20 item 6): encore-replay's tool, 1 GiB + 64 MiB tracked, a kernel
# writing 64 MiB, 3 passes, changed_chunks with a device shadow: the checksum per pass (the
# hashing kernel, hashes read back) against the restore per pass of the same footprint. 3 passes:
# both restores then hash every chunk, as the checksum reads it (from 4 passes the middle ones copy
# the write set back without reading the rest: 58 us against a 454 us checksum on an H100).
verify_out=$(ENCORE_REPLAY_PASSES=3 ENCORE_REPLAY_VERIFY=1 ENCORE_REPLAY_POLICY=changed_chunks \
    ENCORE_CUDA_REPLAY_SHADOW=device ENCORE_REPLAY_REPORT="$B/verify.csv" \
    under_encore "$root/$B/libreplay_bench.so" "$B/bench_replay" 1024 2>&1)
echo "--- bench_replay 1024 MiB, --verify"; echo "$verify_out" | tail -6
check "verify: correct under replay, every pass from identical inputs" \
    'grep -q "value=3 ok" <<<"$verify_out" && [[ $(grep -c ",identical,[0-9]*$" "$B/verify.csv") == 3 ]]'
check "verify: the checksum ran on the device (no host read-back warning)" \
    '! grep -q "read back and hashed on the host" <<<"$verify_out"'
verify_ratio=$(python3 - "$B/verify.csv" <<'PY'
import csv, statistics, sys
r = list(csv.DictReader(open(sys.argv[1])))
c, x = statistics.median(float(v["checksum_us"]) for v in r), statistics.median(float(v["restore_us"]) for v in r)
print(f"checksum {c:.1f} us per pass, changed_chunks restore {x:.1f} us per pass, ratio {c / x:.2f}")
PY
)
echo "verify: $verify_ratio"
check "verify: checksum per pass <= 2x a changed_chunks restore of the same footprint" \
    '[[ "$verify_ratio" =~ ratio\ ([0-9.]+) ]] && awk "BEGIN{exit !(${BASH_REMATCH[1]} <= 2)}"'
t0=$(date +%s.%N); "$B/bench_replay" >/dev/null; t1=$(date +%s.%N)
ncu_out=$(timeout 300 ncu --replay-mode kernel --set full -k write64 -c 1 "$B/bench_replay" 2>&1); t2=$(date +%s.%N)
ncu_passes=$(grep -o '[0-9]* passes' <<<"$ncu_out" | head -1 | cut -d' ' -f1)
echo "--- ncu"; grep -E "PROF|passes|bench_replay:" <<<"$ncu_out" | head -5
echo "ncu: program alone $(awk "BEGIN{print $t1 - $t0}") s, under ncu $(awk "BEGIN{print $t2 - $t1}") s, passes ${ncu_passes:-?}"

median() { grep -o 'median=[0-9.]*' | head -1 | cut -d= -f2; }
launch_bare=$("$B/bench_launch" | median)
launch_events=$(BENCH_EVENTS=1 "$B/bench_launch" | median)
launch_events_cap=$(BENCH_EVENTS=2 "$B/bench_launch" | median)
launch_none=$(ENCORE_CUDA_TOOL_MODE=none encore "$B/bench_launch" | median)
launch_rec=$(ENCORE_CUDA_TOOL_MODE=dispatch_noop encore "$B/bench_launch" 2>&1 | median)
bare=$("$B/bench_call" | median)
none=$(ENCORE_CUDA_TOOL_MODE=none encore "$B/bench_call" | median)
noop=$(ENCORE_CUDA_TOOL_MODE=noop encore "$B/bench_call" | median)
noop_ptr=$(ENCORE_CUDA_TOOL_MODE=noop_ptr encore "$B/bench_call" | median)
cupti=$(BENCH_CUPTI=1 "$B/bench_call" | median)
side=$(BENCH_SWITCH=1 ENCORE_CUDA_TOOL_MODE=switch encore "$B/bench_call")
sv() { grep -o "$1=[0-9.]*" <<<"$side" | cut -d= -f2; }
# LABEL VALUE BASE DECIMALS: a table row, the value and what it adds to BASE ("-" without one).
row() {
    if [[ -z $3 ]]; then printf "%-44s %8.${4}f %8s\n" "$1" "$2" "-"
    else printf "%-44s %8.${4}f %+8.${4}f\n" "$1" "$2" "$(awk "BEGIN{print $2 - $3}")"; fi
}
echo
echo "cuCtxGetDevice, ns per call (median of 7 x 2M calls)"
printf "%-44s %8s %8s\n" "case" "ns" "added"
row "bare (real driver)" "$bare" "" 2
row "encore, no active context" "$none" "$bare" 2
row "encore, no-op ENTER/EXIT callback" "$noop" "$bare" 2
row "encore, same, by-address callback form" "$noop_ptr" "$bare" 2
row "CUPTI, no-op callback on the driver domain" "$cupti" "$bare" 2
echo
echo "the same in one process, cases taking turns (median of 7 rounds x 2M calls each)"
echo "$side"
row "bare (the real driver's function)" "$(sv bare)" "" 2
for c in none noop noop_ptr; do row "encore, $c" "$(sv $c)" "$(sv bare)" 2; done
echo
echo "empty-kernel launch, us per launch (submission; median of 7 x 20000)"
row "bare" "$launch_bare" "" 3
row "bare + 2 cuEventRecord per launch" "$launch_events" "$launch_bare" 3
row "bare + 2 events + cudaStreamIsCapturing" "$launch_events_cap" "$launch_bare" 3
row "encore, no active context" "$launch_none" "$launch_bare" 3
row "encore, KERNEL_DISPATCH, no-op cb (auto timing)" "$launch_rec" "$launch_bare" 3
echo
echo "replay of a kernel writing 64 MiB, 8 GiB tracked, 10 passes: restore per pass"
for variant in "full_copy device" "full_copy host" "changed_chunks device" "changed_chunks host"; do
    printf "%-44s %s\n" "$variant" "$(grep -o 'restore [0-9.]* ms each' <<<"${rep[$variant]}") ($(grep -o 'median [0-9.]* us' <<<"${rep[$variant]}" | head -1) fixed)"
done
# ---- Dispatch records' timing sources side by side (issue 20 item 4) ---------------------------
# CUPTI as encore's timing source (ENCORE_CUDA_DISPATCH_TIMING=cupti) against CUDA events and
# against a CUPTI activity user (the benchmark itself subscribing CONCURRENT_KERNEL), the cases
# taking turns for 3 rounds (median of the rounds); then the same on a PyTorch loop of tiny
# in-place adds, with torch.profiler as the CUPTI user. Each failure prints FAIL and goes on.
# CUPTI pairs in stream order (ENCORE_CUPTI_PAIRING=stream, the default); the external-id method
# runs once per program for comparison ("info:" lines, not checks). The section ends with the
# decision it makes: whether ENCORE_CUDA_DISPATCH_TIMING=auto can become the default.
echo; echo "--- dispatch timing sources (issue 20 item 4)"
fails_before_timing=$fails
# "paired=T of N" from a records tool's dispatch line: how many launches CUPTI (or events) timed.
timed_of() { grep -o "dispatches enqueue=[0-9]* .* timed=[0-9]*" <<<"$1" | head -1 |
    sed -E 's/dispatches enqueue=([0-9]+) .* timed=([0-9]+)/timed=\2 of \1/'; }
timing_fallback="dispatch times come from CUDA events"
have_cupti_bench=0
if [[ -x $B/bench_launch_cupti ]]; then
    have_cupti_bench=1
else
    echo "FAIL: bench_launch with CUPTI (-DBENCH_WITH_CUPTI -lcupti) does not build"; fails=$((fails + 1))
fi
# The records checks above ran with the default (events); here each source.
bare=$("$B/records_program" 2>&1)
for src in cupti events; do
    out=$(ENCORE_CUDA_DISPATCH_TIMING=$src ENCORE_CUDA_TOOL_MODE=records encore "$B/records_program" 2>&1)
    echo "--- records_program ($src timing)"; echo "$out"
    check "records ($src timing): no fallback, no warning" '! grep -q "\[encore\]" <<<"$out"'
    check "records ($src timing): one ENQUEUE and one COMPLETE per launch, paired, in order, correlated, timed" \
        'grep -q "dispatches enqueue=$(want launches) complete=$(want launches) unpaired=0 duplicate=0 order_bad=0 corr_bad=0 timed=$(want launches) untimed=0 time_bad=0" <<<"$out"'
    check "records ($src timing): GPU times inside the host window (within 50 us)" \
        'awk "/GPU start before/ {exit !(\$10 <= 50000 && \$19 <= 50000)}" <<<"$out"'
    echo "info: records_program ($src timing): $(timed_of "$out")"
done
out=$(ENCORE_CUPTI_PAIRING=external ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=records encore "$B/records_program" 2>&1)
echo "info: records_program (CUPTI, external ids): $(timed_of "$out")"
out=$(ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=records encore "$B/bench_launch" 2>&1)
echo "--- bench_launch under the records tool (CUPTI timing)"; grep -E "cuda-records: (dispatches|GPU start)|\[encore\]" <<<"$out"
check "140001 back-to-back launches (CUPTI timing): every one paired and timed" \
    'grep -q "dispatches enqueue=140001 complete=140001 unpaired=0 duplicate=0 order_bad=0 corr_bad=0 timed=140001 untimed=0 time_bad=0" <<<"$out"'
check "140001 launches (CUPTI timing): GPU start never before ENQUEUE ENTER by more than 2 us" \
    'awk "/GPU start before/ {exit !(\$10 <= 2000)}" <<<"$out"'
echo "info: 140001 launches (CUPTI, stream order): $(timed_of "$out")"
# The external-id method: which API records CUPTI needs for its EXTERNAL_CORRELATION records
# (ENCORE_CUPTI_API_RECORDS, default driver,runtime): pairing and cost, for information.
for api in driver,runtime driver runtime none; do
    o=$(ENCORE_CUPTI_PAIRING=external ENCORE_CUPTI_API_RECORDS=$api ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=records encore "$B/bench_launch" 2>&1)
    echo "info: external ids, ENCORE_CUPTI_API_RECORDS=$api: 140001 launches $(timed_of "$o")"
    o=$(ENCORE_CUPTI_PAIRING=external ENCORE_CUPTI_API_RECORDS=$api ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=dispatch_noop encore "$B/bench_launch" 2>&1)
    echo "info: external ids, ENCORE_CUPTI_API_RECORDS=$api: dispatch_noop $(grep -o "submit median=[0-9.]* us" <<<"$o")"
done
declare -A tcase
for round in 1 2 3; do
    tcase[bare]+=" $("$B/bench_launch" | median)"
    if [[ $have_cupti_bench == 1 ]]; then
        o=$(BENCH_CUPTI_ACTIVITY=1 "$B/bench_launch_cupti" 2>&1); echo "$o" | grep "cupti kernel records"
        tcase[cupti_user]+=" $(median <<<"$o")"
    fi
    tcase[events]+=" $(ENCORE_CUDA_DISPATCH_TIMING=events ENCORE_CUDA_TOOL_MODE=dispatch_noop encore "$B/bench_launch" 2>&1 | median)"
    o=$(ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=dispatch_noop encore "$B/bench_launch" 2>&1)
    grep -q "$timing_fallback" <<<"$o" && echo "FAIL: encore fell back to events: $(grep "\[encore\]" <<<"$o")"
    tcase[cupti]+=" $(median <<<"$o")"
done
mid() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'; }
# LABEL VALUE BASE: a row in us, or FAIL when the case gave no figure.
trow() {
    if [[ -z $2 ]]; then echo "FAIL: $1: no figure"; fails=$((fails + 1)); return; fi
    if [[ -z $3 ]]; then printf "%-52s %8.3f %8s\n" "$1" "$2" "-"
    else printf "%-52s %8.3f %+8.3f\n" "$1" "$2" "$(awk "BEGIN{print $2 - $3}")"; fi
}
t_bare=$(mid <<<"${tcase[bare]}"); t_user=$(mid <<<"${tcase[cupti_user]:-}")
t_events=$(mid <<<"${tcase[events]}"); t_cupti=$(mid <<<"${tcase[cupti]}")
echo
echo "empty-kernel launch, us per launch (submission; median of 3 rounds, each the median of 7 x 20000)"
echo "rounds: bare${tcase[bare]} | CUPTI user${tcase[cupti_user]:-} | events${tcase[events]} | cupti${tcase[cupti]}"
printf "%-52s %8s %8s\n" "case" "us" "added"
trow "bare" "$t_bare" ""
trow "CUPTI activity subscriber (CONCURRENT_KERNEL)" "$t_user" "$t_bare"
trow "encore KERNEL_DISPATCH, no-op callback, events" "$t_events" "$t_bare"
trow "encore KERNEL_DISPATCH, no-op callback, CUPTI" "$t_cupti" "$t_bare"
if [[ -n $t_bare && -n $t_user && -n $t_cupti ]]; then
    check "dispatch records (CUPTI timing) add <= 2 us per launch" 'awk "BEGIN{exit !($t_cupti - $t_bare <= 2)}"'
    check "dispatch records (CUPTI timing) cost less than a CUPTI activity subscriber" 'awk "BEGIN{exit !($t_cupti <= $t_user)}"'
fi
# What the calls a CUPTI-timed launch makes cost here (for information: docs/cuda.md, "Cost").
if [[ -x $B/launch_calls ]]; then
    "$B/launch_calls" 2>&1; BENCH_CUPTI_ACTIVITY=1 "$B/launch_calls" 2>&1
else
    echo "info: launch_calls did not build"
fi
# The PyTorch loop (python3 with torch; skipped with a FAIL line when it is missing).
tiny=benchmarks/cuda/programs/torch_tiny_ops.py
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
    declare -A tt
    for round in 1 2 3; do
        tt[bare]+=" $(python3 $tiny 2>&1 | median)"
        tt[profiler]+=" $(python3 $tiny --profile 2>&1 | median)"
        tt[events]+=" $(ENCORE_CUDA_DISPATCH_TIMING=events ENCORE_CUDA_TOOL_MODE=dispatch_noop encore python3 $tiny 2>&1 | median)"
        o=$(ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=dispatch_noop encore python3 $tiny 2>&1)
        grep -q "$timing_fallback" <<<"$o" && echo "FAIL: encore fell back to events under PyTorch: $(grep "\[encore\]" <<<"$o")"
        tt[cupti]+=" $(median <<<"$o")"
    done
    o=$(ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=records encore python3 $tiny 2>&1)
    check "torch_tiny_ops (CUPTI timing): result unchanged" 'grep -q "value=35000.0 expected=35000.0" <<<"$o"'
    check "torch_tiny_ops (CUPTI timing): every launch paired and timed" \
        'grep -Eq "dispatches enqueue=([0-9]+) complete=\1 unpaired=0 duplicate=0 order_bad=0 corr_bad=0 timed=\1 untimed=0 time_bad=0" <<<"$o"'
    check "torch_tiny_ops (CUPTI timing): no fallback, no warning" '! grep -q "\[encore\]" <<<"$o"'
    echo "info: torch_tiny_ops (CUPTI, stream order): $(timed_of "$o")"
    o=$(ENCORE_CUPTI_PAIRING=external ENCORE_CUDA_DISPATCH_TIMING=cupti ENCORE_CUDA_TOOL_MODE=records encore python3 $tiny 2>&1)
    echo "info: torch_tiny_ops (CUPTI, external ids): $(timed_of "$o")"
    p_bare=$(mid <<<"${tt[bare]}"); p_prof=$(mid <<<"${tt[profiler]}")
    p_events=$(mid <<<"${tt[events]}"); p_cupti=$(mid <<<"${tt[cupti]}")
    echo
    echo "PyTorch tiny in-place adds, us per op (median of 3 rounds, each the median of 7 x 5000)"
    echo "rounds: bare${tt[bare]} | torch.profiler${tt[profiler]} | events${tt[events]} | cupti${tt[cupti]}"
    trow "bare" "$p_bare" ""
    trow "torch.profiler (CPU + CUDA activities)" "$p_prof" "$p_bare"
    trow "encore KERNEL_DISPATCH, no-op callback, events" "$p_events" "$p_bare"
    trow "encore KERNEL_DISPATCH, no-op callback, CUPTI" "$p_cupti" "$p_bare"
    [[ -n $p_prof && -n $p_cupti ]] &&
        check "PyTorch loop: dispatch records (CUPTI timing) cost less than torch.profiler" 'awk "BEGIN{exit !($p_cupti <= $p_prof)}"'
else
    echo "FAIL: python3 with CUDA-enabled torch not found: the PyTorch rows are skipped"; fails=$((fails + 1))
fi
if [[ $fails == "$fails_before_timing" ]]; then
    echo "decision: every timing-source check passed: ENCORE_CUDA_DISPATCH_TIMING=auto can become the default"
else
    echo "decision: $((fails - fails_before_timing)) timing-source checks failed: keep events as the default"
fi

echo "verify on the device, 1 GiB + 64 MiB tracked: $verify_ratio"

# The framework and library checks, each its own script with its own build folder (beside $B):
# encore-trace and encore-replay on PyTorch, JAX, cuBLAS and Triton programs, range replay of
# PyTorch steps and CUDA graphs, replay over VMM memory, NCCL through libencore-rccl. ENCORE_GPU_QUICK=1 skips them (this script alone is about
# 7 minutes on an H200; they add about 10).
if [[ -z ${ENCORE_GPU_QUICK:-} ]]; then
    for s in trace_frameworks replay_frameworks range_replay replay_vmm nccl_check; do
        case $s in
            trace_frameworks | replay_frameworks | range_replay) dir=$B-frameworks ;;
            replay_vmm) dir=$B ;;
            nccl_check) dir=$B-nccl ;;
        esac
        echo; echo "=== benchmarks/cuda/$s.sh $dir"
        if bash "benchmarks/cuda/$s.sh" "$dir"; then echo "PASS: $s.sh"; else echo "FAIL: $s.sh"; fails=$((fails + 1)); fi
    done
fi
echo "checks failed: $fails"
exit $(( fails > 0 ))
