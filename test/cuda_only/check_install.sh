#!/usr/bin/env bash
# test/cuda_only/check_install.sh BUILD_DIR — a CUDA-only build (-Dhsa=disabled -Dhip=disabled
# -Dcuda=enabled, built, its tests run) is what an NVIDIA user with cuda.h alone gets (.ci/run):
#   1. no object of the build included an HSA or HIP runtime header (ninja's dependency log);
#   2. `meson install` into a DESTDIR; cuda_tool.cpp compiles against the installed headers with
#      the installed encore.pc's flags, with /usr/include replaced by a copy of it (links) that
#      lacks hsa/ and hip/: no HSA or HIP header is reachable;
#   3. that tool, and the installed encore-trace, run the front-end program on the fake driver
#      with the installed libencore and libcuda.so.1; the installed encore-replay replays the
#      replay program there (results unchanged, every pass from identical inputs, the L2 flush).
# Prints PASS/FAIL per check and 'N passed, M failed'; exits 1 on any failure.
set -uo pipefail
B=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
passed=0 failed=0
check() {  # DESCRIPTION CONDITION
    if eval "$2"; then echo "PASS: $1"; passed=$((passed + 1)); else echo "FAIL: $1"; failed=$((failed + 1)); fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. The dependency log lists every header each object included.
leaked=$(ninja -C "$B" -t deps | grep -E '(^|/)(hsa|hip)/[^ ]*\.h' | grep -v 'include/rocprofiler-sdk/\(hsa\|hip\)/' | sort -u)
check "no object of the build includes an HSA or HIP header" '[[ -z "$leaked" ]]'
[[ -z "$leaked" ]] || echo "$leaked" | head -5
objects=$(ninja -C "$B" -t deps | grep -c '^[^ ].*\.o:')
check "the dependency log covers the build's objects ($objects)" '[[ $objects -gt 10 ]]'

# 2. Install; compile a CUDA tool with no HSA/HIP header reachable.
dest=$tmp/dest
meson install -C "$B" --destdir "$dest" --no-rebuild >"$tmp/install.log" 2>&1
check "meson install into a DESTDIR" '[[ $? -eq 0 ]]'
pc=$(find "$dest" -name encore.pc | head -1)
check "encore.pc installed" '[[ -n "$pc" ]]'
check "encore.pc names no HSA/HIP flags" '! grep -q "AMD_INTERNAL_BUILD\|__HIP_PLATFORM" "$pc"'
check "encore/config.h says: no HSA, no HIP headers" \
    'grep -q "ENCORE_HSA_HEADERS 0" "$dest"/*/*/include/encore/config.h && grep -q "ENCORE_HIP_HEADERS 0" "$dest"/*/*/include/encore/config.h'
cxx=${CXX:-c++}
cxx=${cxx##* }  # "ccache g++" -> g++
# The compiler's own search list, with /usr/include swapped for links to all of it but hsa/, hip/.
mkdir -p "$tmp/usr-include"
for e in /usr/include/*; do
    case "${e##*/}" in hsa|hip) ;; *) ln -s "$e" "$tmp/usr-include/${e##*/}" ;; esac
done
search=()
while read -r dir; do
    [[ "$dir" == /usr/include ]] && dir=$tmp/usr-include
    search+=(-isystem "$dir")
done < <(echo | "$cxx" -xc++ -E -v - 2>&1 | sed -n '/^#include <...> search starts here:/,/^End of search list./p' | sed '1d;$d;s/^ *//')
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs encore 2>"$tmp/pc.err")
check "pkg-config --cflags --libs encore" '[[ -n "$flags" ]]'
libdir=$(dirname "$(dirname "$pc")")
# shellcheck disable=SC2086  # pkg-config's flags are words
"$cxx" -std=c++20 -shared -fPIC -nostdinc "${search[@]}" $flags -Wl,-rpath,"$libdir" \
    "$root/test/cuda_only/cuda_tool.cpp" -o "$tmp/libcuda_tool.so" 2>"$tmp/cc.err"
check "a CUDA tool compiles and links against the install, no HSA/HIP header reachable" '[[ $? -eq 0 ]]'
[[ -s "$tmp/cc.err" ]] && head -20 "$tmp/cc.err"
echo '#include <hsa/hsa.h>' | "$cxx" -xc++ -fsyntax-only -nostdinc "${search[@]}" - 2>/dev/null
check "control: hsa/hsa.h is indeed unreachable there" '[[ $? -ne 0 ]]'

# 3. Run it, and the installed encore-trace, on the fake driver.
program=$B/test/cuda/frontend_program
export ENCORE_CUDA_DRIVER=$B/test/cuda/libencore_test_fake_cuda.so
out=$(LD_LIBRARY_PATH="$libdir/encore/cuda" ROCP_TOOL_LIBRARIES="$tmp/libcuda_tool.so" "$program" 2>&1)
echo "$out" | grep cuda_tool:
check "the installed tool traces the program (calls, 5 launches, 5 dispatches, 2 kernel names)" \
    '[[ "$out" == *"frontend_program: ok"* && "$out" =~ launches=5\ dispatches=5\ symbols=2 ]]'
trace=$(find "$dest" -path '*/bin/encore-trace' | head -1)
out=$("$trace" --quiet "$program" 2>&1)
check "the installed encore-trace detects CUDA and names the kernels" \
    '[[ "$out" == *"5 kernel dispatches, 2 distinct kernels"* && "$out" == *"vector_add(float*"* ]]'
out=$("$trace" --backend hsa "$program" 2>&1)
check "the installed encore-trace says it has no HSA backend" '[[ "$out" == *"no HSA backend"* ]]'
replay=$(find "$dest" -path '*/bin/encore-replay' | head -1)
check "encore-replay is installed" '[[ -n "$replay" && -x "$replay" ]]'
rprog=$B/test/cuda/replay_program
bare=$("$rprog" 2>/dev/null)
out=$(FAKE_CUDA_REPORT=1 "$replay" -n 3 --verify --cache-control all -o "$tmp/replay.csv" "$rprog" 2>"$tmp/replay.err")
check "the installed encore-replay detects CUDA, the program's output unchanged" \
    '[[ "$bare" == *"replay_program: ok"* && "$out" == "$bare" ]]'
check "the installed encore-replay: 5 launches x 3 passes, identical inputs, names demangled" \
    '[[ $(grep -c ",3,.*,identical,[0-9]*$" "$tmp/replay.csv") == 5 ]] && grep -q "identical  saxpy(float\*, float" "$tmp/replay.err"'
check "the installed encore-replay flushes the L2 before each of the 15 passes" 'grep -q "l2_flushes=15$" "$tmp/replay.err"'
[[ $failed -eq 0 ]] || tail -20 "$tmp/replay.err"
out=$("$replay" --backend hsa "$rprog" 2>&1)
check "the installed encore-replay says it has no HSA backend" '[[ "$out" == *"no HSA backend"* ]]'
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
