#!/usr/bin/env bash
# examples/consumers/run.sh [BUILDDIR] — what a tool writer does with an installed encore, as a test:
#
#  1. `meson install --destdir` the build into a temporary directory (the pkg-config and CMake
#     files are relocatable, so the staged tree is consumed where it lies);
#  2. build the Meson consumer with pkg-config and the CMake consumer with find_package, each
#     with a C++ tool (compile-time domain selection) and a C tool (rocprofiler-sdk C API);
#  3. run each tool on the installed example HSA program on the installed software HSA runtime
#     (HSA_TOOLS_LIB = the installed libencore-hsa) and check what it printed; run the installed
#     encore-trace too;
#  4. ask for encore 99 through pkg-config, Meson and CMake: each must fail at configure time,
#     naming the version it found;
#  5. remove every file meson-logs/install-log.txt lists: nothing may be left in the stage.
# Needs the build configured with -Dexamples=true -Dsim=true (the defaults), cmake, pkg-config.
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
build=$(cd -- "${1:-$here/../../build}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/encore-consumers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
fail=0
bad() { echo "FAIL: $*"; fail=1; }
step() { echo "--- $*"; }

option() { meson introspect --buildoptions "$build" | python3 -c \
    "import json,sys; print(next(o['value'] for o in json.load(sys.stdin) if o['name']=='$1'))"; }
version=$(meson introspect --projectinfo "$build" | python3 -c "import json,sys; print(json.load(sys.stdin)['version'])")
# The rocprofiler-sdk API level encore reports (meson.build's rocprofiler_sdk_api_version).
api_version=$(sed -n "s/^rocprofiler_sdk_api_version *= *'\([0-9.]*\)'.*/\1/p" "$here/../../meson.build")
[[ -n $api_version ]] || bad "no rocprofiler_sdk_api_version in meson.build"
prefix=$(option prefix); libdir=$(option libdir); libexecdir=$(option libexecdir); bindir=$(option bindir)
abs() { case "$1" in /*) echo "$stage$1" ;; *) echo "$stage$prefix/$1" ;; esac; }
P=$stage$prefix; L=$(abs "$libdir"); X=$(abs "$libexecdir")/encore/examples; B=$(abs "$bindir")

step "install encore $version into $stage (prefix $prefix)"
meson install -C "$build" --destdir "$stage" --quiet
export PKG_CONFIG_PATH=$L/pkgconfig
export CMAKE_PREFIX_PATH=$P

step "pkg-config"
[[ "$(pkg-config --modversion encore)" == "$version" ]] || bad "encore.pc says $(pkg-config --modversion encore), meson.build $version"
for pc in encore encore-hsa encore-sim; do pkg-config --exists "$pc" || bad "$pc.pc not installed"; done
tools_lib=$(pkg-config --variable=tools_lib encore-hsa)
sim_dir=$(pkg-config --variable=sim_dir encore-sim)
[[ -f "$tools_lib" ]] || bad "encore-hsa.pc tools_lib=$tools_lib does not exist"
[[ -f "$sim_dir/libhsa-runtime64.so.1" ]] || bad "encore-sim.pc sim_dir=$sim_dir has no libhsa-runtime64.so.1"
# The software runtime must not be where the loader looks by default.
[[ ! -e "$L/libhsa-runtime64.so.1" ]] || bad "libhsa-runtime64.so.1 installed into libdir: it would shadow a real ROCr"

# Every installed public header compiles from the stage alone (encore/domains/marker.hpp needs
# roctracer/roctx.h, installed beside it).
for h in encore/encore.hpp encore/domains/marker.hpp roctracer/roctx.h rocprofiler-sdk/rocprofiler.h; do
    echo "#include <$h>" | ${CXX:-c++} -std=c++20 -fsyntax-only $(pkg-config --cflags encore) -x c++ - \
        > "$tmp/header.log" 2>&1 || { cat "$tmp/header.log"; bad "installed header $h does not compile"; }
done

step "Meson consumer (pkg-config)"
meson setup "$tmp/meson" "$here/meson" > "$tmp/meson-setup.log" 2>&1 || { cat "$tmp/meson-setup.log"; bad "meson consumer: setup"; }
ninja -C "$tmp/meson" > "$tmp/meson-build.log" 2>&1 || { cat "$tmp/meson-build.log"; bad "meson consumer: build"; }

step "CMake consumer (find_package)"
cmake -S "$here/cmake" -B "$tmp/cmake" -G Ninja > "$tmp/cmake-setup.log" 2>&1 || { cat "$tmp/cmake-setup.log"; bad "cmake consumer: configure"; }
cmake --build "$tmp/cmake" > "$tmp/cmake-build.log" 2>&1 || { cat "$tmp/cmake-build.log"; bad "cmake consumer: build"; }

step "run the tools on the installed software HSA runtime"
program=$X/hsa_vector_add; co=$X/hsa_vector_add_kernels.so
run_tool() {  # $1 = tool library; prints the program's stdout (the tool prints there too)
    HSA_TOOLS_LIB=$tools_lib ROCP_TOOL_LIBRARIES=$1 LD_LIBRARY_PATH=$sim_dir "$program" "$co"
}
for consumer in meson cmake; do
    out=$(run_tool "$tmp/$consumer/libhsa_core_tool.so") || bad "$consumer hsa_core_tool: program failed"
    line=$(grep '^hsa_core_tool:' <<< "$out" || true)
    echo "$consumer: $line"
    if [[ "$line" =~ ^hsa_core_tool:\ ([0-9]+)\ calls,\ ([0-9]+)\ enter,\ ([0-9]+)\ exit,\ hsa_queue_create=([0-9]+)\ \(size=([0-9]+)\),\ other\ kinds=0,\ bad=0$ ]]; then
        [[ ${BASH_REMATCH[1]} -gt 0 && ${BASH_REMATCH[2]} == "${BASH_REMATCH[3]}" && ${BASH_REMATCH[4]} -ge 1 && ${BASH_REMATCH[5]} -gt 0 ]] ||
            bad "$consumer hsa_core_tool: unexpected counts"
    else
        bad "$consumer hsa_core_tool: no or wrong summary line"; echo "$out"
    fi
    tools=("$tmp/$consumer/libc_api_tool.so")
    [[ $consumer == cmake ]] && tools+=("$tmp/cmake/libc_api_tool_sdk.so")  # rocprofiler-sdk's package
    for tool in "${tools[@]}"; do
    out=$(run_tool "$tool") || bad "$consumer c_api_tool: program failed"
    line=$(grep '^c_api_tool: encore' <<< "$out" || true)
    echo "$consumer: $line"
    if [[ "$line" =~ ^c_api_tool:\ encore\ ([0-9.]+)\ \(headers\ ([0-9.]+)\),\ rocprofiler-sdk\ API\ ([0-9.]+)\ \(headers\ ([0-9.]+)\),\ ([0-9]+)\ HSA\ core\ calls,\ ([0-9]+)\ dispatches,\ ([0-9]+)\ completed,\ bad=0$ ]]; then
        [[ ${BASH_REMATCH[1]} == "$version" && ${BASH_REMATCH[2]} == "$version" ]] || bad "$consumer c_api_tool: version ${BASH_REMATCH[1]}/${BASH_REMATCH[2]}, expected $version"
        [[ ${BASH_REMATCH[3]} == "$api_version" && ${BASH_REMATCH[4]} == "$api_version" ]] || bad "$consumer c_api_tool: API level ${BASH_REMATCH[3]}/${BASH_REMATCH[4]}, expected $api_version"
        [[ ${BASH_REMATCH[5]} -gt 0 && ${BASH_REMATCH[6]} -ge 1 && ${BASH_REMATCH[6]} == "${BASH_REMATCH[7]}" ]] ||
            bad "$consumer c_api_tool: unexpected counts"
        grep -qE '^c_api_tool: kernel [0-9]+ dispatch [0-9]+ took [0-9]+ ns$' <<< "$out" || bad "$consumer c_api_tool: no dispatch line"
    else
        bad "$consumer c_api_tool: no or wrong summary line"; echo "$out"
    fi
    done
done

step "rocprofiler-sdk's library names"
for name in librocprofiler-sdk.so.1 librocprofiler-sdk.so librocprofiler-sdk-roctx.so.1 librocprofiler-sdk-roctx.so; do
    [[ -e "$L/$name" ]] || bad "$L/$name is not installed (or dangles)"
done

step "installed encore-trace"
"$B/encore-trace" --sim --quiet "$program" "$co" > /dev/null 2> "$tmp/trace.err" || bad "installed encore-trace failed"
grep -E '\] pid [0-9]+: [0-9]+ API calls \(HSA_' "$tmp/trace.err" || { cat "$tmp/trace.err"; bad "installed encore-trace printed no summary"; }
grep -qE '\] pid [0-9]+: 1 kernel dispatches' "$tmp/trace.err" || bad "installed encore-trace: no kernel in the summary"

step "a consumer asking for encore 99 fails at configure time"
expect_fail() {  # $1 = what; $2 = regex the error must match; rest = command
    local what=$1 re=$2; shift 2
    if "$@" > "$tmp/fail.log" 2>&1; then bad "$what: accepted encore $version for >= 99"; return; fi
    # CMake wraps its messages: match on the text with line breaks and indentation folded.
    tr -s ' \n' '  ' < "$tmp/fail.log" | grep -oE "$re" || { cat "$tmp/fail.log"; bad "$what: failed without saying why"; }
}
expect_fail "pkg-config" "Package 'encore' has version '$version', required version is '>= 99'" \
    pkg-config --print-errors 'encore >= 99'
expect_fail "Meson consumer" "found:? '?${version//./\\.}'?,? but need:? '>= ?99'" \
    meson setup "$tmp/meson99" "$here/meson" -Dencore_min_version=99
expect_fail "CMake consumer" "compatible with requested version \"99\"" \
    cmake -S "$here/cmake" -B "$tmp/cmake99" -G Ninja -DENCORE_MIN_VERSION=99
grep -F "encoreConfig.cmake, version: $version" "$tmp/fail.log" || bad "CMake's message does not name the installed version"
# Before 1.0 a newer minor is another ABI (see packaging/encoreConfigVersion.cmake.in).
IFS=. read -r major minor _ <<< "$version"
if [[ $major == 0 ]]; then
    expect_fail "CMake consumer, next minor" "compatible with requested version \"0.$((minor + 1))\"" \
        cmake -S "$here/cmake" -B "$tmp/cmake-next" -G Ninja -DENCORE_MIN_VERSION=0.$((minor + 1))
fi

step "uninstall: remove what install-log.txt lists"
# The log lists the files, then the directories Meson created (deepest first), each with the
# destdir: what `ninja uninstall` removes.
log=$build/meson-logs/install-log.txt
files=0; dirs=0
while IFS= read -r f; do
    [[ "$f" == \#* || -z "$f" ]] && continue
    [[ "$f" == "$stage"/* ]] || f=$stage$f   # a log without the destdir
    if [[ -d "$f" && ! -L "$f" ]]; then
        rmdir -- "$f" 2> /dev/null || bad "$f: not empty after removing the logged files"; dirs=$((dirs + 1))
    else
        rm -f -- "$f"; files=$((files + 1))
    fi
done < "$log"
# At most the prefix and its ancestors may remain, had Meson not logged creating them.
allowed=(); d=$P; while [[ "$d" == "$stage" || "$d" == "$stage"/* ]]; do allowed+=(-e "$d"); d=$(dirname "$d"); done
left=$( { [[ ! -e "$stage" ]] || find "$stage"; } | grep -vxF "${allowed[@]}" || true)
if [[ -n "$left" ]]; then bad "left after removing $files files and $dirs directories:"; echo "$left"
else echo "removed $files files and $dirs directories; nothing left"; fi

if [[ $fail != 0 ]]; then echo "consumers: FAILED"; exit 1; fi
echo "consumers: all checks passed"
