#!/usr/bin/env bash
# The two-GPU run (needs two NVIDIA GPUs; not CI): replay on GPU 0 must not stall launches or
# kernels on GPU 1, and replays on both GPUs at once must each work.
#   benchmarks/cuda/run_two_gpu.sh [BUILD_DIR]
# 1. two_gpu rate: GPU 1 launches short kernels back to back (dispatch records on) for ~3 s while
#    GPU 0 replays one kernel 10 times over 6 GiB of tracked memory, full_copy through host
#    memory (the seed's design: the slowest restore, so the replay window is long). The tool
#    prints GPU 1's launch intervals and kernel durations inside GPU 0's replay window and
#    outside it, from the same run; the program prints the launch intervals too (host clock).
#    Control: two_gpu copies, without encore: GPU 0 moves what such a replay moves (one pinned
#    allocation, 11 copies of the footprint), to tell the driver's and the hardware's share.
# 2. two_gpu both: each GPU replays a kernel 10 times over 1 GiB at the same moment; the tool
#    checks that the windows overlap and that every pass of each started from the same memory.
# Prints a short table last. No NCCL, no NVLink multicast.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-gpu}
source benchmarks/cuda/common.sh
set -e
mkdir -p "$B"
build_encore_cuda
build_tool benchmarks/cuda/two_gpu_tool.cpp "$B/libtwo_gpu_tool.so"
nvcc -O2 -std=c++20 -o "$B/two_gpu" benchmarks/cuda/two_gpu.cu
set +e
nvidia-smi -L
export ENCORE_REPLAY_POLICY=full_copy ENCORE_CUDA_REPLAY_SHADOW=host

bare=$("$B/two_gpu" rate 2>&1)
echo "--- rate, bare"; echo "$bare"
check "rate program runs bare" 'grep -q "two_gpu: rate ok" <<<"$bare"'
control=$("$B/two_gpu" copies 2>&1)
echo "--- copies (control, no encore)"; echo "$control"
check "copies program runs" 'grep -q "two_gpu: copies ok" <<<"$control"'
rate=$(under_encore "$root/$B/libtwo_gpu_tool.so" "$B/two_gpu" rate 2>&1)
echo "--- rate, under encore"; echo "$rate"
check "rate: results as without encore" 'grep -q "two_gpu: rate ok" <<<"$rate"'
check "rate: GPU 0 replayed 10 passes" 'grep -q "replay device=0 .* passes=10 " <<<"$rate"'
check "rate: GPU 1 launched inside the replay window" 'awk "/device1 inside/ {split(\$4,a,\"=\"); exit !(a[2] > 100)}" <<<"$rate"'
check "rate: every GPU 1 launch got a timed COMPLETE" 'grep -q "without a timed COMPLETE=0" <<<"$rate"'
# A stall of GPU 1's launch stream during GPU 0's replay: no gap of 100 ms or more.
check "rate: GPU 1 never waited 100 ms for a launch during the replay" \
    'awk "/GPU 1 intervals inside/ {sub(\"max=\", \"\", \$10); exit !(\$10 + 0 < 100000)}" <<<"$rate"'

# Diagnostic: the same without dispatch records (replay only).
norec=$(ENCORE_TWO_GPU_RECORDS=0 under_encore "$root/$B/libtwo_gpu_tool.so" "$B/two_gpu" rate 2>&1)
echo "--- rate, under encore, replay only (no dispatch records)"; echo "$norec"
check "rate without records: results as without encore" 'grep -q "two_gpu: rate ok" <<<"$norec"'

both=$(ENCORE_TWO_GPU_VERIFY=1 under_encore "$root/$B/libtwo_gpu_tool.so" "$B/two_gpu" both 2>&1)
echo "--- both, under encore"; echo "$both"
check "both: results as without replay" 'grep -q "two_gpu: both ok" <<<"$both"'
check "both: each GPU replayed 10 passes, each pass from the same memory" \
    'grep -q "replay device=0 .* passes=10 checksums=10 differ=0" <<<"$both" && grep -q "replay device=1 .* passes=10 checksums=10 differ=0" <<<"$both"'
check "both: the two replay windows overlap in time" 'grep -q "windows=2 overlapping_pairs=1 differing_passes=0" <<<"$both"'

echo
echo "GPU 1 short kernels during GPU 0's busy window vs outside it (us):"
echo "control, no encore (GPU 0: pinned allocation + 11 copies of the footprint):"
grep -E "GPU 1 intervals|busy window" <<<"$control"
echo "under encore (GPU 0: replay, 10 passes, full_copy via host; GPU 1: dispatch records):"
grep -E "GPU 1 intervals|busy window|replay device=|device1 (inside|outside)" <<<"$rate"
echo "under encore, replay only (no dispatch records):"
grep -E "GPU 1 intervals|busy window" <<<"$norec"
echo "checks failed: $fails"
exit $(( fails > 0 ))
