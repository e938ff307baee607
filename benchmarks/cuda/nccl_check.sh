#!/usr/bin/env bash
# RCCL_API live on an NVIDIA GPU machine with PyTorch (not CI): builds libencore and
# libencore-rccl with Meson and the check's tool (nccl_tool.cpp) with g++, then runs
# nccl_check.py's single-GPU PyTorch NCCL workload under LD_PRELOAD=libencore-rccl.so.
#   benchmarks/cuda/nccl_check.sh [BUILD_DIR]          (default build-nccl; exits 1 on a failure)
# PyTorch's wheels load libnccl.so.2 from the nvidia-nccl-cu* package folder (RTLD_LOCAL from
# Python, or RTLD_GLOBAL where torch preloads its CUDA libraries): the preloaded libencore-rccl's
# exports come first in symbol lookup either way, and it finds that libnccl.so.2 through
# RTLD_NEXT or, when it is not in the global scope, by its soname (backend/forwarding.hpp). The
# check prints which libnccl.so.2 the process mapped and compares the library's own version with
# the RUNTIME_INITIALIZATION record's.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
B=${1:-build-nccl}
python3 -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
extra=()
[[ -d .device-deps/include ]] && extra=(-Dcpp_args="-I$root/.device-deps/include" -Dc_args="-I$root/.device-deps/include")
[[ -f $B/build.ninja ]] || meson setup "$B" --wrap-mode=nodownload "${extra[@]}" -Dtests=disabled \
    -Dbenchmarks=disabled -Dexamples=false -Dsim=false -Dcuda=disabled >/dev/null
version=$(meson introspect --projectinfo "$B" | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
rccl="$root/$B/src/libs/libencore-rccl.so.$version"
ninja -C "$B" "src/libs/libencore-rccl.so.$version" >/dev/null
inc=(-I include -I "$B/include")
[[ -d .device-deps/include ]] && inc+=(-I .device-deps/include)
g++ -std=c++20 -O2 -shared -fPIC "${inc[@]}" -DAMD_INTERNAL_BUILD -D__HIP_PLATFORM_AMD__ benchmarks/cuda/nccl_tool.cpp \
    -L "$B/src/core" -lencore -Wl,-rpath,"$root/$B/src/core" -Wl,--exclude-libs,ALL -o "$B/libnccl_check_tool.so"
python3 benchmarks/cuda/nccl_check.py --encore-rccl "$rccl" --tool "$root/$B/libnccl_check_tool.so" torch
