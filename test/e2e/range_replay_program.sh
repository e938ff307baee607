#!/usr/bin/env bash
# encore-replay --range on a roctx-annotated HSA program (software runtime): each "step"
# push/pop range is replayed N times as one range, the program's own result check passes (the
# memory after each range is what one run leaves), and the per-range report has the right counts;
# the "checkpoint" start/stop range, which copies to the host inside, is declined with its reason.
#   range_replay_program.sh ENCORE_REPLAY PROGRAM CODE_OBJECT
set -euo pipefail
replay=$1 program=$2 co=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }

for policy in changed_chunks full_copy; do
    "$replay" --sim -n 4 --verify --policy "$policy" --range step "$program" "$co" 3 >"$tmp/out" 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; fail "program failed under range replay ($policy)"; }
    grep -q '^steps=3 ' "$tmp/out" || fail "program output ($policy)"
    # range replayed passes dispatches/pass min median max wall: 3 ranges x 4 passes, 3 dispatches each.
    line=$(grep -E '^step +[0-9]' "$tmp/err") || { cat "$tmp/err" >&2; fail "no report line ($policy)"; }
    read -r name replayed passes per_pass mn med mx wall <<<"$line"
    [[ "$name" == step && "$replayed" == 3 && "$passes" == 12 && "$per_pass" == 3.0 ]] ||
        { cat "$tmp/err" >&2; fail "report '$line' ($policy)"; }
    awk -v a="$mn" -v b="$med" -v c="$mx" 'BEGIN { exit !(a > 0 && a <= b && b <= c) }' ||
        fail "pass times min <= median <= max, not 0 ('$line')"
    awk -v w="$wall" 'BEGIN { exit !(w > 0) }' || fail "a replayed pass's wall time, not 0 ('$line')"
    # No single-dispatch table under --range.
    if grep -q '^saxpy\|passes per dispatch' "$tmp/err"; then fail "kernel replay ran under --range"; fi
done

# A range that is declined: the checkpoint (a copy to the host inside), with the reason.
"$replay" --sim -n 3 --range checkpoint "$program" "$co" 2 >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; fail "program failed (checkpoint)"; }
grep -q 'range(s) not replayed: a range copied device memory to the host' "$tmp/err" ||
    { cat "$tmp/err" >&2; fail "checkpoint not reported as declined"; }
grep -Eq '^checkpoint +0 ' "$tmp/err" || { cat "$tmp/err" >&2; fail "checkpoint replayed"; }

# A name no range has: nothing replayed, the program unchanged.
"$replay" --sim -n 3 --range nothing "$program" "$co" 2 >"$tmp/out" 2>"$tmp/err" || fail "program failed (nothing)"
grep -Eq '^nothing +0 +0 ' "$tmp/err" || { cat "$tmp/err" >&2; fail "report for an unused name"; }

# --range needs a value.
if "$replay" --sim --range >/dev/null 2>"$tmp/err"; then fail "accepted --range without a value"; fi
grep -q "encore-replay: --range needs a value" "$tmp/err" || fail "no message for --range"
echo "range_replay_program: all checks passed"
