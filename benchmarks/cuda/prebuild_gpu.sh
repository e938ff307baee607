#!/usr/bin/env bash
# Builds what run_gpu.sh and its framework scripts compile, here, off the GPU machine (CUDA 13's
# nvcc and cuda.h in CUDA_HOME, default /usr/local/cuda: the same path as on the GPU machine, so
# the rpaths the programs carry hold there), then drops the object files and debug sections so
# the two folders travel with the working tree (carry limit 64 MiB). On the GPU machine:
#   device run, carry ["build-gpu", "build-gpu-frameworks"]:
#       ENCORE_GPU_PREBUILT=1 benchmarks/cuda/run_gpu.sh
# which then compiles nothing that exists (common.sh's prebuilt()): about 4 minutes of device
# time saved per machine start. NCCL's check (nccl_check.sh: HIP headers from .device-deps) still
# builds there. The repository must be at the same path on both machines.
#   prebuild_gpu.sh trace: only build-gpu-trace, what trace_gpt2.sh and trace_multiproc.sh run
#   (encore-trace's CUDA-only record path and the bare CUPTI subscriber), and encore-replay's tool
#   with programs/graph_nodes_check.cu (graph node replay on a real driver), carry ["build-gpu-trace"].
# Libraries the builds link that a GPU machine lacks (libfmt) travel in each folder's runtime-libs/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
unset ENCORE_GPU_PREBUILT
# FOLDER...: object files and debug sections dropped; the shared libraries its ELF files link from
# outside the build and CUDA that a GPU machine may lack (today libfmt) copied into runtime-libs/.
prune() {
    local d lib
    for d in "$@"; do
        find "$d" -name '*.p' -type d -prune -exec rm -rf {} +
        while read -r lib; do
            mkdir -p "$d/runtime-libs"
            # On a rebuild, common.sh has put runtime-libs/ on LD_LIBRARY_PATH, so ldd finds the
            # copy made last time: it is already in place.
            [[ $lib -ef $d/runtime-libs/${lib##*/} ]] && continue
            cp -L "$lib" "$d/runtime-libs/"
        done < <(find "$d" -type f \( -name '*.so*' -o -perm -u+x \) -not -path "$d/runtime-libs/*" -exec sh -c \
            'file -b "$1" | grep -q "^ELF" && { strip --strip-debug "$1"; ldd "$1" 2>/dev/null; }' _ {} \; |
            awk '$1 ~ /^libfmt\.so/ && $3 ~ /^\// {print $3}' | sort -u)
    done
    du -sh "$@"
}
if [[ ${1:-all} == trace ]]; then
    B=build-gpu-trace
    source benchmarks/cuda/common.sh
    build_trace_front_end
    build_cupti_subscriber
    build_cuda_only examples/libencore_replay_bench.so
    "$CUDA_HOME/bin/nvcc" -arch=sm_90 -o "$B/graph_nodes_check" benchmarks/cuda/programs/graph_nodes_check.cu -lcuda
    prune "$B"
    exit 0
fi
ENCORE_GPU_BUILD_ONLY=1 bash benchmarks/cuda/run_gpu.sh build-gpu
# The framework scripts' CUDA-only build (run_gpu.sh gives them build-gpu-frameworks): the union
# of their targets.
B=build-gpu-frameworks
source benchmarks/cuda/common.sh
build_cuda_only src/cuda/libcuda.so.1 examples/libencore_api_trace.so examples/libencore_replay_bench.so examples/libencore_replay_metrics.so \
    src/nvtx/libencore-nvtx.so.0.1.0 src/marker/libencore-roctx.so.0.1.0
# metrics_vs_ncu.sh's program without a framework
"$CUDA_HOME/bin/nvcc" -O2 -o "$B/bench_replay" benchmarks/cuda/bench_replay.cu
prune build-gpu build-gpu-frameworks
