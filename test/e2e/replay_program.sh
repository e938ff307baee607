#!/usr/bin/env bash
# encore-replay on an unmodified stateful HSA program (software runtime): the program's own
# result check passes (replay leaves the memory one run leaves), every replayed dispatch saw
# identical inputs on every pass, the kernel filter holds, and bad options are refused.
#   replay_program.sh ENCORE_REPLAY PROGRAM CODE_OBJECT
set -euo pipefail
replay=$1 program=$2 co=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }

for policy in changed_chunks full_copy; do
    "$replay" --sim -n 3 --verify --policy "$policy" -k saxpy -o "$tmp/$policy.csv" "$program" "$co" 4 \
        >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "program failed under replay ($policy)"; }
    grep -q '^saxpy_checksum=20476.000$' "$tmp/out" || fail "saxpy result changed ($policy)"
    grep -q '^counter=8192$' "$tmp/out" || fail "counter changed ($policy)"
    # Only saxpy_accumulate was replayed: 4 dispatches (a row each) x 3 passes, identical inputs.
    [[ $(wc -l <"$tmp/$policy.csv") -eq 5 ]] || { cat "$tmp/$policy.csv" >&2; fail "report rows ($policy)"; }
    [[ $(grep -c '^[0-9]*,saxpy_accumulate,3,.*,identical,[0-9]*$' "$tmp/$policy.csv") -eq 4 ]] ||
        { cat "$tmp/$policy.csv" >&2; fail "report ($policy)"; }
done

# All kernels, default policy.
"$replay" --sim -n 2 --verify -o "$tmp/all.csv" "$program" "$co" 2 >"$tmp/out" 2>"$tmp/err" || fail "all kernels"
for k in saxpy_accumulate counter_increment atomic_append; do
    [[ $(grep -c "^[0-9]*,$k,2,.*,identical,[0-9]*\$" "$tmp/all.csv") -eq 2 ]] ||
        { cat "$tmp/all.csv" >&2; fail "$k replayed twice per dispatch"; }
done

# A -k that matches no kernel: said on stderr with the kernels that ran and their dispatch counts
# (as Nsight Compute does), not an empty table; the exit status stays the program's (0).
"$replay" --sim -k nosuchkernel "$program" "$co" 2 >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; fail "-k nosuchkernel: the program's exit status"; }
grep -q "^\[encore-replay\] no dispatch matched -k 'nosuchkernel'" "$tmp/err" ||
    { cat "$tmp/err" >&2; fail "-k nosuchkernel: not said"; }
for k in saxpy_accumulate counter_increment atomic_append; do
    grep -Eq "^ +2  $k\$" "$tmp/err" || { cat "$tmp/err" >&2; fail "-k nosuchkernel: $k and its 2 dispatches not listed"; }
done
if grep -q "median_us" "$tmp/err"; then cat "$tmp/err" >&2; fail "-k nosuchkernel: an empty table"; fi

# Bad options: a clear message, exit 2, the program does not run.
for bad in "-n 1" "-n x" "--policy fast" "--frobnicate"; do
    # shellcheck disable=SC2086
    if "$replay" --sim $bad "$program" "$co" >/dev/null 2>"$tmp/err"; then fail "accepted $bad"; fi
    grep -q "encore-replay:" "$tmp/err" || fail "no message for $bad"
done
if "$replay" --sim -k >/dev/null 2>"$tmp/err"; then fail "accepted -k without a value"; fi
grep -q "encore-replay: -k needs a value" "$tmp/err" || fail "no message for -k"
echo "replay_program: all checks passed"
