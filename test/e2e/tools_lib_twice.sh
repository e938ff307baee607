#!/usr/bin/env bash
# libencore-hsa listed twice in HSA_TOOLS_LIB (issue 17, item 1): the same file twice, the same
# file under two names (the .so link and the versioned file: one library to the dynamic
# loader, whose OnLoad the runtime then calls twice), and two copies of it. Each run must
# finish, trace every call exactly once (as many lines as with one listing) and say once that
# the extra listing stays idle. Before the fix a second OnLoad wrapped encore's own wrappers:
# endless recursion, SIGSEGV.
set -euo pipefail
hsa_tool=$1; api_tool=$2; sim_dir=$3; shift 3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
real=$(readlink -f -- "$hsa_tool")
link="$(dirname -- "$real")/libencore-hsa.so"
cp -- "$real" "$tmp/libencore-hsa-copy.so"

run() {  # run NAME HSA_TOOLS_LIB-value PROGRAM [ARGS...]
    local name=$1 value=$2 rc=0
    shift 2
    HSA_TOOLS_LIB="$value" ROCP_TOOL_LIBRARIES="$api_tool" \
        LD_LIBRARY_PATH="$sim_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        timeout 60 "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" || rc=$?
    echo "$rc"
}
lines() { grep -cE '\] tid=[0-9]+ corr=' "$tmp/$1.err" || true; }

fail=0
rc=$(run once "$real" "$@")
[[ $rc == 0 ]] || { echo "listed once: exit status $rc"; cat "$tmp/once.err" | tail -5; exit 1; }
want=$(lines once)
[[ $want -gt 0 ]] || { echo "listed once: nothing traced"; exit 1; }
for case in same:"$real $real" two_names:"$link $real" two_copies:"$real $tmp/libencore-hsa-copy.so"; do
    name=${case%%:*}; value=${case#*:}
    rc=$(run "$name" "$value" "$@")
    got=$(lines "$name")
    if [[ $rc != 0 ]]; then
        echo "$name ($value): exit status $rc"; tail -5 "$tmp/$name.err"; fail=1; continue
    fi
    [[ $got == "$want" ]] || { echo "$name: $got traced lines, $want when listed once"; fail=1; }
    warned=$(grep -c 'loaded more than once' "$tmp/$name.err" || true)
    [[ $warned == 1 ]] || { echo "$name: the duplicate listing was reported $warned times, not once"; fail=1; }
    cmp -s "$tmp/once.out" "$tmp/$name.out" || { echo "$name: program output differs"; fail=1; }
done
[[ $fail == 0 ]] || exit 1
echo "listed twice (same path, two names, two copies): $want calls traced once each"
