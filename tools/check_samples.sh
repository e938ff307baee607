#!/usr/bin/env bash
# tools/check_samples.sh — do rocprofiler-sdk's sample tools compile and link unchanged against
# encore? Each sample's client.cpp is built as a tool library would be: C++17, -shared -fPIC,
# -Wl,--no-undefined, with nothing but the flags of encore's pkg-config file.
#
#   tools/check_samples.sh SAMPLES_DIR [BUILD_DIR]
#
# SAMPLES_DIR holds unpacked copies of the reference's samples (they are not in this repository,
# so CI does not run this): every <...>/samples/<name>/client.cpp for the names below, and every
# *client*.cpp under SAMPLES_DIR/kernel_replay/ (basic_client.cpp, counters_client.cpp, ...).
# A sample includes "common/..." from its samples folder: the nearest folder above the sample
# that has common/ is put on the include path. BUILD_DIR (default: build) is a configured and
# built encore build folder; its meson-uninstalled/ pkg-config files are used. CXX picks the
# compiler (default g++), CXXFLAGS adds flags (e.g. -I of headers not merged yet), SHOWN_ERRORS
# how many error lines to show (6). Prints OK or the first
# errors per sample; exits 1 if any failed.
set -u

samples=${1:?usage: tools/check_samples.sh SAMPLES_DIR [BUILD_DIR]}
build=${2:-build}
cxx=${CXX:-g++}
names=(api_callback_tracing code_object_tracing external_correlation_id_request api_buffered_tracing)
shown_errors=${SHOWN_ERRORS:-6}

[ -d "$samples" ] || { echo "no such folder: $samples" >&2; exit 2; }
[ -d "$build/meson-uninstalled" ] || { echo "$build is not a configured encore build folder" >&2; exit 2; }
flags=$(PKG_CONFIG_PATH="$(cd "$build" && pwd)/meson-uninstalled" pkg-config --cflags --libs encore) ||
    { echo "pkg-config found no encore in $build/meson-uninstalled" >&2; exit 2; }

clients=()
for name in "${names[@]}"; do
    while IFS= read -r f; do clients+=("$f"); done < <(find "$samples" -path "*/samples/$name/client.cpp" | sort)
done
if [ -d "$samples/kernel_replay" ]; then
    while IFS= read -r f; do clients+=("$f"); done < <(find "$samples/kernel_replay" -name '*client*.cpp' | sort)
fi
[ ${#clients[@]} -gt 0 ] || { echo "no sample clients under $samples" >&2; exit 2; }

# The folder with common/ at or above a sample's folder (the samples' include root).
include_root() {
    local d
    d=$(dirname "$1")
    while [ "$d" != / ] && [ "$d" != . ]; do
        [ -d "$d/common" ] && { echo "$d"; return; }
        d=$(dirname "$d")
    done
    dirname "$(dirname "$1")"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for src in "${clients[@]}"; do
    label=${src#"$samples"/}
    out="$work/$(echo "$label" | tr '/' '_').so"
    # shellcheck disable=SC2086 # $flags is a list of words
    # shellcheck disable=SC2086 # CXXFLAGS too
    if "$cxx" -std=c++17 -shared -fPIC ${CXXFLAGS:-} -o "$out" -I"$(include_root "$src")" "$src" $flags -Wl,--no-undefined \
        >"$work/log" 2>&1; then
        printf 'OK    %s\n' "$label"
    else
        failed=1
        printf 'FAIL  %s\n' "$label"
        grep -E 'error|undefined reference' "$work/log" | head -n "$shown_errors" | sed 's/^/      /'
    fi
done
exit $failed
