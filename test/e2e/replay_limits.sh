#!/usr/bin/env bash
# Pass counts at their limits (issue 17, item 9): encore-replay parses -n as strict decimal text
# (no bash arithmetic: no wrap-around, no octal, no bash error text), the replay_bench tool
# ignores a bad ENCORE_REPLAY_PASSES with one message, and libencore's pass cap ends a count too
# large to finish. Every run is bounded by `timeout`: before the fix several replayed forever.
#   replay_limits.sh ENCORE_REPLAY PROGRAM CODE_OBJECT HSA_TOOL REPLAY_TOOL
set -euo pipefail
replay=$1 program=$2 co=$3 hsa_tool=$4 replay_tool=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAILED: $*" >&2; failed=1; }
bound=${REPLAY_LIMITS_BOUND:-120}  # seconds a run may take (each ended at once when right)

"$program" "$co" 2 >"$tmp/plain.out"

# Runs encore-replay on saxpy only (2 dispatches); $1: label; the rest: options.
run() {
    local label=$1
    shift
    rm -f "$tmp/report.csv"
    timeout "$bound" "$replay" --sim -k saxpy -o "$tmp/report.csv" "$@" "$program" "$co" 2 >"$tmp/out" 2>"$tmp/err"
}
passes_were() {  # $1: label, $2: expected passes of the 2 saxpy dispatches together
    # One report row per replayed dispatch: dispatch_id,kernel,passes,...
    local rows total
    rows=$(grep -c ',saxpy_accumulate,' "$tmp/report.csv" 2>/dev/null || true)
    total=$(awk -F, '$2 == "saxpy_accumulate" { n += $3 } END { print n + 0 }' "$tmp/report.csv" 2>/dev/null || echo 0)
    if [[ $rows != 2 || $total != "$2" ]]; then
        cat "$tmp/report.csv" "$tmp/err" >&2 2>/dev/null || true
        fail "$1: $2 passes in all"
    fi
    cmp -s "$tmp/plain.out" "$tmp/out" || fail "$1: the program's output changed"
    if grep -qE "value too great|syntax error|integer expression" "$tmp/err"; then fail "$1: bash error text"; fi
}

# Leading zeros are decimal: 08 is 8 (was a bash error), 010 is 10 (was checked as 8).
if run "-n 08" -n 08; then passes_were "-n 08" 16; else fail "-n 08 refused or failed"; cat "$tmp/err" >&2 || true; fi
if run "-n 010" -n 010; then passes_were "-n 010" 20; else fail "-n 010 refused or failed"; fi

# Refused with a message, exit 2, at once: overflow (bash wrapped it to a valid count, the tool
# then read 2^64-1 and replayed forever), signs, too small, not a number.
for bad in 99999999999999999999 18446744073709551616 -1 +5 0 1 00 01 2x " 5" 0x10 ""; do
    set +e
    timeout "$bound" "$replay" --sim -n "$bad" "$program" "$co" 2 >/dev/null 2>"$tmp/err"
    rc=$?
    set -e
    [[ $rc == 2 ]] || fail "-n '$bad': exit $rc, not 2"
    grep -q "^encore-replay: -n" "$tmp/err" || { cat "$tmp/err" >&2 || true; fail "-n '$bad': no message"; }
    if grep -qE "value too great|syntax error|integer expression" "$tmp/err"; then fail "-n '$bad': bash error text"; fi
done
# The same check for the variable, when -n is not given.
set +e
ENCORE_REPLAY_PASSES=-1 timeout "$bound" "$replay" --sim "$program" "$co" 2 >/dev/null 2>"$tmp/err"
rc=$?
set -e
[[ $rc == 2 ]] && grep -q "ENCORE_REPLAY_PASSES" "$tmp/err" || fail "ENCORE_REPLAY_PASSES=-1 through encore-replay: exit $rc"

# The largest count is accepted and stopped by the cap (here 3; the default is 10000), warned once.
if ENCORE_REPLAY_MAX_PASSES=3 run "-n 2^64-1" -n 18446744073709551615; then
    passes_were "-n 2^64-1" 6
    [[ $(grep -c "more than the cap: at most 3 are run" "$tmp/err") == 1 ]] || { cat "$tmp/err" >&2 || true; fail "the cap is warned once"; }
else
    fail "-n 18446744073709551615 failed"
fi

# The tool itself (without the launcher's check): a bad ENCORE_REPLAY_PASSES is ignored with a
# message and the default, 5 passes, is used ("-1" and an overflow were 2^64-1 passes: endless).
for bad in -1 99999999999999999999 abc 5x 1 " 7"; do
    rm -f "$tmp/report.csv"
    if ENCORE_REPLAY_PASSES="$bad" ENCORE_REPLAY_KERNEL=saxpy ENCORE_REPLAY_REPORT="$tmp/report.csv" \
        HSA_TOOLS_LIB="$hsa_tool" ROCP_TOOL_LIBRARIES="$replay_tool" \
        timeout "$bound" "$program" "$co" 2 >"$tmp/out" 2>"$tmp/err"; then
        passes_were "ENCORE_REPLAY_PASSES='$bad'" 10
        grep -qF "[encore-replay] ignoring ENCORE_REPLAY_PASSES=$bad " "$tmp/err" || { cat "$tmp/err" >&2 || true; fail "ENCORE_REPLAY_PASSES='$bad': no message"; }
    else
        fail "ENCORE_REPLAY_PASSES='$bad': the program failed or did not end"
    fi
done

[[ $failed == 0 ]] || exit 1
echo "replay_limits: all checks passed"
