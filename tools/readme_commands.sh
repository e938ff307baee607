#!/usr/bin/env bash
# tools/readme_commands.sh — prints the commands of README.md's "Set-up and main job" block (the
# first ```sh block after that heading), comments and blank lines left out, one per line, as a
# user would copy them. CI runs what this prints, so the README's commands are what CI checks.
set -euo pipefail
readme=${1:-$(dirname "$0")/../README.md}
commands=$(awk '/^## Set-up and main job/ { section = 1 }
                section && /^```sh/ { block = 1; next }
                block && /^```/ { exit }
                block && !/^[[:space:]]*(#|$)/ { print }' "$readme")
if [[ -z "$commands" ]]; then
    echo "readme_commands.sh: no commands in the \"Set-up and main job\" block of $readme" >&2
    exit 1
fi
printf '%s\n' "$commands"
