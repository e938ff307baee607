# benchmarks/cuda/common.sh — sourced by the GPU scripts (run_gpu.sh, run_two_gpu.sh,
# trace_frameworks.sh, replay_frameworks.sh): where things are, building encore's libcuda.so.1
# (or a CUDA-only build with the front ends) and a tool against it, running a program under it,
# and the scripts' pass/fail checks.
# Expects `root` (the repository) and `B` (the build folder) set, and the current folder = root.
CUDA=${CUDA_HOME:-/usr/local/cuda}
# Headers Debian would provide (HSA, Boost, range-v3, fmt) come from .device-deps/include when
# present (../shared/device/stage-deps.sh).
inc=(-I include -I "$B/include" -I "$CUDA/include")
[[ -d .device-deps/include ]] && inc+=(-I .device-deps/include)
# Shared libraries a prebuilt folder needs that the GPU machine lacks (libfmt.so.9 where Debian's
# libfmt-dev was installed here): prebuild_gpu.sh copies them into $B/runtime-libs.
[[ -d $B/runtime-libs ]] && export LD_LIBRARY_PATH="$root/$B/runtime-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# ENCORE_GPU_PREBUILT=1: the build folders came built (benchmarks/cuda/prebuild_gpu.sh, off the GPU
# machine, carried): what exists is not rebuilt, which saves the ~2 minutes of device time a
# build costs per folder. Libraries built on Debian run on the GPU machine's host unchanged.
prebuilt() {  # FILE...: whether every FILE exists in prebuilt mode
    [[ -n ${ENCORE_GPU_PREBUILT:-} ]] || return 1
    local f
    for f in "$@"; do [[ -e $f ]] || return 1; done
}

build_encore_cuda() {  # libencore and libencore-cuda (libcuda.so.1) with Meson
    prebuilt "$B/src/cuda/libcuda.so.1" && return 0
    local extra=()
    [[ -d .device-deps/include ]] && extra=(-Dcpp_args="-I$root/.device-deps/include" -Dc_args="-I$root/.device-deps/include")
    [[ -f $B/build.ninja ]] || meson setup "$B" --wrap-mode=nodownload "${extra[@]}" -Dtests=disabled \
        -Dbenchmarks=disabled -Dexamples=false -Dsim=false -Dhip=disabled -Dcuda=enabled \
        -Dnvidia_cuda_include="$CUDA/include" >/dev/null
    ninja -C "$B" src/cuda/libcuda.so.1 >/dev/null
}

build_cuda_only() {  # TARGET...: a CUDA-only build with the examples (-Dhsa=disabled: what an
    # NVIDIA user with cuda.h alone builds; encore-trace, encore-replay) in $B, then the targets
    prebuilt "${@/#/$B/}" "$B/examples/encore-replay" && return 0
    local extra=()
    [[ -d .device-deps/include ]] && extra=(-Dcpp_args="-I$root/.device-deps/include" -Dc_args="-I$root/.device-deps/include")
    [[ -f $B/build.ninja ]] || meson setup "$B" --wrap-mode=nodownload "${extra[@]}" -Dtests=disabled \
        -Dbenchmarks=disabled -Dexamples=true -Dhsa=disabled -Dhip=disabled -Dcuda=enabled \
        -Dnvidia_cuda_include="$CUDA/include" >/dev/null || { echo "FAIL: meson setup"; return 1; }
    ninja -C "$B" "$@" >/dev/null || { echo "FAIL: build"; return 1; }
}

build_trace_front_end() {  # encore-trace's record path in $B (CUDA-only), for the trace_*.sh scripts
    build_cuda_only src/cuda/libcuda.so.1 src/trace/libencore_trace_tool.so src/trace/encore-trace-convert src/trace/encore-trace-run \
        src/nvtx/libencore-nvtx.so.0.1.0 src/marker/libencore-roctx.so.0.1.0 examples/libencore_api_trace.so
}

build_cupti_subscriber() {  # $B/libcupti_subscriber.so: a bare CUPTI kernel subscriber to preload
    prebuilt "$B/libcupti_subscriber.so" && return 0
    # CUPTI's headers and library: the toolkit's extras/CUPTI (runfile installs) or beside the rest.
    g++ -O2 -shared -fPIC -I "$CUDA/extras/CUPTI/include" -I "$CUDA/include" benchmarks/cuda/cupti_subscriber.cpp \
        -o "$B/libcupti_subscriber.so" -L "$CUDA/extras/CUPTI/lib64" -L "$CUDA/lib64" -lcupti \
        -Wl,-rpath,"$CUDA/extras/CUPTI/lib64:$CUDA/lib64" || { echo "FAIL: build the CUPTI subscriber"; return 1; }
}

build_tool() {  # SOURCE OUTPUT: a tool library linked against libencore (a C++ runtime the
    # compiler links statically kept inside, as for encore's own libraries: docs/cuda.md)
    prebuilt "$2" && return 0
    g++ -std=c++20 -O2 -shared -fPIC "${inc[@]}" -DAMD_INTERNAL_BUILD "$1" \
        -L "$B/src/core" -lencore -Wl,-rpath,"$root/$B/src/core" -Wl,--exclude-libs,ALL -o "$2"
}

program() {  # OUTPUT COMMAND...: builds a test program with COMMAND, unless prebuilt
    local out=$1
    shift
    prebuilt "$out" || "$@"
}

under_encore() {  # TOOL COMMAND...: COMMAND with encore's libcuda.so.1 as the driver and TOOL loaded
    local tool=$1
    shift
    LD_LIBRARY_PATH="$root/$B/src/cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ROCP_TOOL_LIBRARIES="$tool" "$@"
}

# Wall-clock helpers of the framework scripts: now (seconds, ns resolution); secs START END (the
# difference, with $secs_digits decimals, default 1); result FILE (a program's last result line).
now() { date +%s.%N; }
secs() { awk "BEGIN{printf \"%.${secs_digits:-1}f\", $2 - $1}"; }
result() { grep -E '^(final_loss|sum|digest)=' "$1" | tail -1; }

fails=0
check() {  # DESCRIPTION CONDITION: PASS or FAIL (counted in $fails)
    if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
