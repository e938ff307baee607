#!/usr/bin/env bash
# test/fuzz/run.sh BUILD_DIR [SECONDS] — runs the C API fuzz target (BUILD_DIR configured with
# -Dfuzz=enabled, test/fuzz/README.md) for SECONDS (default 120) from the committed seeds, prints
# libFuzzer's figures (executions, executions per second, coverage), and fails on a finding: the
# input that caused it is written to BUILD_DIR/fuzz-artifacts/ for test/fuzz/README.md's steps.
set -euo pipefail
build=${1:?usage: test/fuzz/run.sh BUILD_DIR [SECONDS]}
seconds=${2:-120}
here=$(cd "$(dirname "$0")" && pwd)
fuzzer=$build/test/fuzz/fuzz_c_api
[[ -x $fuzzer ]] || { echo "run.sh: $fuzzer not built (ninja -C $build test/fuzz/fuzz_c_api)" >&2; exit 2; }

# New inputs go to a scratch directory (libFuzzer writes into its first corpus directory); the
# committed seeds are only read.
grown=$(mktemp -d)
trap 'rm -rf "$grown"' EXIT
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"
log=$build/fuzz-c-api.log

# -timeout: an input running 10 s is a hang (a finding). -rss_limit_mb: a leak or runaway growth
# is one too. Leak checking is libFuzzer's own (-detect_leaks, on by default with ASan).
status=0
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:suppressions=$here/ubsan.supp} \
    "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$grown" "$here/corpus" > "$log" 2>&1 || status=$?

# The figures: the last coverage line ("#N DONE cov: ... ft: ... corp: ...") and the final stats.
grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" || true
# Out-of-range enum loads are reported without stopping the run (meson.build): a finding too.
if [[ $status -eq 0 ]] && grep -q 'runtime error:' "$log"; then
    echo "fuzz_c_api: UBSan reports (each place once):" >&2
    grep -E 'runtime error:' "$log" | sort -u >&2
    exit 1
fi
if [[ $status -ne 0 ]]; then
    echo "fuzz_c_api: finding (exit $status); the input is in $artifacts/ — the report:" >&2
    grep -E -A40 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|invariant failed' "$log" | head -80 >&2 || tail -60 "$log" >&2
    exit "$status"
fi
echo "fuzz_c_api: no finding in ${seconds} s (log: $log)"
