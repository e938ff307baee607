#!/usr/bin/env bash
# All GPU checks and benchmarks of the CUDA backend in one go, on a machine with CUDA and an
# NVIDIA GPU (not CI). Builds libencore and libencore-cuda (libcuda.so.1) with Meson, the test
# programs with nvcc, runs them bare and traced, checks, benchmarks, and prints a table last.
#   benchmarks/cuda/run_gpu.sh [BUILD_DIR]
# Headers Debian would provide (HSA, Boost, range-v3, fmt) come from .device-deps/include when
# present (../shared/device/stage-deps.sh).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-gpu}
CUDA=${CUDA_HOME:-/usr/local/cuda}
fails=0
check() { if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }
extra=()
[[ -d .device-deps/include ]] && extra=(-Dcpp_args="-I$root/.device-deps/include" -Dc_args="-I$root/.device-deps/include")
set -e
[[ -f $B/build.ninja ]] || meson setup "$B" --wrap-mode=nodownload "${extra[@]}" -Dtests=disabled -Dbenchmarks=disabled \
    -Dexamples=false -Dsim=false -Dhip=disabled -Dcuda=enabled -Dnvidia_cuda_include="$CUDA/include" >/dev/null
ninja -C "$B" src/cuda/libcuda.so.1 >/dev/null
inc=(-I include -I "$B/include" -I "$CUDA/include")
[[ -d .device-deps/include ]] && inc+=(-I .device-deps/include)
g++ -std=c++20 -O2 -shared -fPIC "${inc[@]}" -DAMD_INTERNAL_BUILD test/cuda/cuda_trace_tool.cpp \
    -L "$B/src/core" -lencore -Wl,-rpath,"$root/$B/src/core" -o "$B/libcuda_trace_tool.so"
nvcc -O2 -o "$B/saxpy_static" test/cuda/saxpy_runtime.cu
nvcc -O2 -cudart shared -o "$B/saxpy_shared" test/cuda/saxpy_runtime.cu
g++ -O2 -I "$CUDA/include" test/cuda/driver_api.cpp -L "$CUDA/lib64/stubs" -lcuda -o "$B/driver_api"
nvcc -O2 -o "$B/replay_stateful" test/cuda/replay_stateful.cu
nvcc -O2 -o "$B/bench_replay" benchmarks/cuda/bench_replay.cu
g++ -O2 -I "$CUDA/include" benchmarks/cuda/bench_driver_call.cpp -L "$CUDA/lib64/stubs" -lcuda \
    -L "$CUDA/lib64" -lcupti -Wl,-rpath,"$CUDA/lib64" -o "$B/bench_call"
set +e

encore() { LD_LIBRARY_PATH="$root/$B/src/cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ROCP_TOOL_LIBRARIES="$root/$B/libcuda_trace_tool.so" "$@"; }

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
for variant in "device" "host" "changed_chunks"; do
    out=$(
        export ENCORE_CUDA_TOOL_MODE=replay ENCORE_CUDA_REPLAY_VERIFY=1
        case $variant in
            host) export ENCORE_CUDA_REPLAY_SHADOW=host ;;
            device) export ENCORE_CUDA_REPLAY_SHADOW=device ;;
            changed_chunks) export ENCORE_REPLAY_POLICY=changed_chunks ;;
        esac
        encore "$B/replay_stateful" 2>&1
    )
    echo "--- replay_stateful ($variant)"; echo "$out"
    check "replay ($variant): final memory as without replay" 'grep -q "^replay_stateful: .* ok$" <<<"$out"'
    check "replay ($variant): 9 launches x 3 passes, identical inputs" 'grep -q "9 dispatches replayed, 27 passes, inputs identical, 0 declined" <<<"$out"'
done

# Replay cost: 8 GiB tracked, a kernel writing 64 MiB, 10 passes.
rep_dev=$(ENCORE_CUDA_TOOL_MODE=replay ENCORE_CUDA_REPLAY_PASSES=10 ENCORE_CUDA_REPLAY_SHADOW=device encore "$B/bench_replay" 2>&1)
rep_host=$(ENCORE_CUDA_TOOL_MODE=replay ENCORE_CUDA_REPLAY_PASSES=10 ENCORE_CUDA_REPLAY_SHADOW=host encore "$B/bench_replay" 2>&1)
echo "--- bench_replay device shadow"; echo "$rep_dev"; echo "--- bench_replay host"; echo "$rep_host"
check "bench_replay correct under replay" 'grep -q "value=3 ok" <<<"$rep_dev" && grep -q "value=3 ok" <<<"$rep_host"'
t0=$(date +%s.%N); "$B/bench_replay" >/dev/null; t1=$(date +%s.%N)
ncu_out=$(timeout 300 ncu --replay-mode kernel --set full -k write64 -c 1 "$B/bench_replay" 2>&1); t2=$(date +%s.%N)
ncu_passes=$(grep -o '[0-9]* passes' <<<"$ncu_out" | head -1 | cut -d' ' -f1)
echo "--- ncu"; grep -E "PROF|passes|bench_replay:" <<<"$ncu_out" | head -5
echo "ncu: program alone $(awk "BEGIN{print $t1 - $t0}") s, under ncu $(awk "BEGIN{print $t2 - $t1}") s, passes ${ncu_passes:-?}"

median() { grep -o 'median=[0-9.]*' | cut -d= -f2; }
bare=$("$B/bench_call" | median)
none=$(ENCORE_CUDA_TOOL_MODE=none encore "$B/bench_call" | median)
noop=$(ENCORE_CUDA_TOOL_MODE=noop encore "$B/bench_call" | median)
cupti=$(BENCH_CUPTI=1 "$B/bench_call" | median)
echo
echo "cuCtxGetDevice, ns per call (median of 7 x 2M calls)"
printf "%-44s %8s %8s\n" "case" "ns" "added"
printf "%-44s %8.2f %8s\n" "bare (real driver)" "$bare" "-"
printf "%-44s %8.2f %+8.2f\n" "encore, no active context" "$none" "$(awk "BEGIN{print $none - $bare}")"
printf "%-44s %8.2f %+8.2f\n" "encore, no-op ENTER/EXIT callback" "$noop" "$(awk "BEGIN{print $noop - $bare}")"
printf "%-44s %8.2f %+8.2f\n" "CUPTI, no-op callback on the driver domain" "$cupti" "$(awk "BEGIN{print $cupti - $bare}")"
echo "checks failed: $fails"
exit $(( fails > 0 ))
