#!/usr/bin/env bash
# Builds encore's CUDA-only libraries and front ends here (no GPU needed) and stages stripped copies
# in build-dev/ for the GPU machine, where a fresh machine would otherwise spend ~2 minutes of
# device time compiling them (its compiler, /opt/gcc, also links the C++ runtime statically: see
# docs/cuda.md, "PyTorch at import"). Libraries built on Debian ran on the H200 host unchanged
# (2026-12-02: import torch and a GPU op under them). Then, on the GPU machine:
#   device run, carry ["build-dev"]:  bash benchmarks/cuda/quick_gpu_check.sh
#   benchmarks/cuda/stage_prebuilt.sh [CUDA_HOME]   (cuda.h in CUDA_HOME/include; default $CUDA_HOME or /usr/local/cuda)
# The front ends name their libraries by absolute path in build-carry/ (the build folder used
# here); quick_gpu_check.sh links build-carry to build-dev on the GPU machine. The repository must
# be at the same path on both machines.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export CUDA_HOME=${1:-${CUDA_HOME:-/usr/local/cuda}}
[[ -f $CUDA_HOME/include/cuda.h ]] || { echo "no cuda.h in $CUDA_HOME/include" >&2; exit 1; }
# The GPU scripts' own CUDA-only build (common.sh), in build-carry.
B=build-carry
source benchmarks/cuda/common.sh
build_cuda_only src/cuda/libcuda.so.1 examples/libencore_api_trace.so examples/libencore_replay_bench.so \
    src/nvtx/libencore-nvtx.so.0.1.0 src/marker/libencore-roctx.so.0.1.0 || exit 1
R=$root/$B D=$root/build-dev
rm -rf "$D"
mkdir -p "$D"/src/{cuda,core,marker,nvtx} "$D"/examples "$D"/lib
for f in src/cuda/libcuda.so.1 src/core/libencore.so.0.1.0 src/marker/libencore-roctx.so.0.1.0 \
    src/nvtx/libencore-nvtx.so.0.1.0 examples/libencore_api_trace.so examples/libencore_replay_bench.so; do
    strip --strip-debug -o "$D/$f" "$R/$f"
done
ln -s libencore.so.0.1.0 "$D/src/core/libencore.so.0.1"
ln -s libencore.so.0.1 "$D/src/core/libencore.so"
ln -s libencore-roctx.so.0.1.0 "$D/src/marker/libencore-roctx.so.0.1"
ln -s libencore-nvtx.so.0.1.0 "$D/src/nvtx/libencore-nvtx.so.0.1"
cp "$R/examples/encore-trace" "$R/examples/encore-replay" "$D/examples/"
# Shared libraries the build linked that the GPU machine lacks (Debian's libfmt when found).
for l in $(ldd "$R/src/core/libencore.so.0.1.0" | awk '/libfmt/ {print $3}'); do cp -L "$l" "$D/lib/"; done
build_tool test/cuda/cuda_trace_tool.cpp "$D/libcuda_trace_tool.so"
du -sh "$D"
