#!/usr/bin/env bash
# Configuring against a cuda.h encore cannot use (older than CUDA 11.8: a stand-in header here) is
# said at configure time, with the header's CUDA_VERSION and the options to set: a warning and a
# build without the CUDA backend with -Dcuda=auto, an error with -Dcuda=enabled; never a compile
# error deep in the build.
#   check_cuda_probe.sh SOURCE_DIR
set -euo pipefail
src=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/old"
printf '#pragma once\n#define CUDA_VERSION 10020\ntypedef int CUresult;\n' > "$tmp/old/cuda.h"
opts=(-Dtests=disabled -Dbenchmarks=disabled -Dexamples=false -Dnvidia_cuda_include="$tmp/old")
fail=0
if ! meson setup "$tmp/auto" "$src" "${opts[@]}" > "$tmp/auto.log" 2>&1; then
    echo "FAILED: -Dcuda=auto with an old cuda.h did not configure"; tail -20 "$tmp/auto.log"; fail=1
fi
grep -q "WARNING: cuda.h in $tmp/old (CUDA_VERSION 10020) cannot be used: encore's CUDA backend needs CUDA 11.8 to 13.x. Set -Dnvidia_cuda_include=DIR" "$tmp/auto.log" ||
    { echo "FAILED: no warning naming the header, its version and the option"; grep -i cuda "$tmp/auto.log"; fail=1; }
if meson setup "$tmp/enabled" "$src" "${opts[@]}" -Dcuda=enabled > "$tmp/enabled.log" 2>&1; then
    echo "FAILED: -Dcuda=enabled with an old cuda.h configured"; fail=1
fi
grep -q "ERROR: Problem encountered: cuda.h in $tmp/old (CUDA_VERSION 10020) cannot be used" "$tmp/enabled.log" ||
    { echo "FAILED: -Dcuda=enabled did not say why"; tail -5 "$tmp/enabled.log"; fail=1; }
if [[ $fail == 0 ]]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; exit 1; fi
