#!/usr/bin/env bash
# End to end: an unmodified HSA program runs on the software HSA runtime under encore-trace (the
# record path: binary records on the program's threads, printed after it ended). Checks that the
# calls after hsa_init are traced once each with their arguments and return values, pointers as
# addresses by default and followed with --args-depth 2, and that the program's own output is
# what it prints untraced.
set -euo pipefail
trace=$1; program=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$program" "$@" > "$tmp/plain.out"
"$trace" --sim --args-depth 2 "$program" "$@" > "$tmp/traced.out" 2> "$tmp/traced.err"
"$trace" --sim "$program" "$@" > "$tmp/default.out" 2> "$tmp/default.err"

fail=0
check() { if ! grep -qE -- "$1" "$tmp/traced.err"; then echo "missing in trace: $1"; fail=1; fi; }
cmp -s "$tmp/plain.out" "$tmp/traced.out" || { echo "program output differs when traced"; diff "$tmp/plain.out" "$tmp/traced.out" || true; fail=1; }
cmp -s "$tmp/plain.out" "$tmp/default.out" || { echo "program output differs when traced (default)"; fail=1; }
# By default (depth 0) a pointer prints as its address: nothing is read on the program's threads.
grep -qE '\] tid=[0-9]+ corr=[0-9]+ hsa_queue_create\(agent=handle=0x[0-9a-f]+, size=[0-9]+, type=[0-9]+, .*queue=0x[0-9a-f]+\) -> HSA_STATUS_SUCCESS' "$tmp/default.err" ||
    { echo "default run: hsa_queue_create with its queue pointer as an address missing"; fail=1; }
[[ $(grep -cE '\] tid=[0-9]+ corr=' "$tmp/default.err") == $(grep -cE '\] tid=[0-9]+ corr=' "$tmp/traced.err") ]] ||
    { echo "default run and --args-depth 2 print different numbers of calls"; fail=1; }
# Arguments by name, handles, enums and out-parameters followed at EXIT, return values by name.
check '\] tid=[0-9]+ corr=[0-9]+ hsa_queue_create\(agent=handle=0x[0-9a-f]+, size=[0-9]+, type=[0-9]+, callback=.*, queue=\{type=.*size=.*\}\) -> HSA_STATUS_SUCCESS'
check 'hsa_agent_get_info\(agent=handle=0x[0-9a-f]+, attribute=HSA_AGENT_INFO_DEVICE, value=.*\) -> HSA_STATUS_SUCCESS'
check 'hsa_executable_get_symbol_by_name\(executable=handle=0x[0-9a-f]+, symbol_name="[a-z_]+(\.kd)?", .*\) -> HSA_STATUS_SUCCESS'
check 'hsa_amd_memory_pool_allocate\(.*\) -> HSA_STATUS_SUCCESS'
check 'hsa_shut_down\(\) -> HSA_STATUS_SUCCESS'
# A call that frees its argument is formatted at ENTER: hsa_queue_destroy prints the queue the
# program created (its size), not the freed memory after the call.
check 'hsa_queue_destroy\(queue=\{type=[01], features=[0-9]+, base_address=0x[0-9a-f]+, .*size=[0-9]+, id=[0-9]+\}\) -> HSA_STATUS_SUCCESS'
# The summary counts each traced call once: lines == total.
total=$(sed -nE 's/.*\] pid [0-9]+: ([0-9]+) API calls.*/\1/p' "$tmp/traced.err")
lines=$(grep -cE '\] tid=[0-9]+ corr=' "$tmp/traced.err" || true)
[[ -n "$total" && "$total" -gt 0 && "$total" == "$lines" ]] || { echo "summary says '$total' calls, trace has $lines lines"; fail=1; }
# Correlation ids are unique.
dups=$(grep -oE 'corr=[0-9]+' "$tmp/traced.err" | sort | uniq -d | wc -l)
[[ "$dups" == 0 ]] || { echo "$dups duplicated correlation ids"; fail=1; }
if [[ $fail != 0 ]]; then echo "--- trace:"; head -50 "$tmp/traced.err"; exit 1; fi
echo "traced $total HSA calls; program output unchanged"
echo "1 passed, 0 failed"
