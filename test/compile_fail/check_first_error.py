#!/usr/bin/env python3
"""A misspelt operation name's first compile error names it and its domain.

usage: check_first_error.py [--max-offset BYTES] OPERATION DOMAIN -- COMPILER ARGS...

Runs the compiler (it must fail) and checks the first line of its output that says `error`: it
contains OPERATION and DOMAIN, and is at most 1000 characters long (a line that spells the
domain's whole op list, ~30 KB for HSA's core table, also contains both names, but is not what a
reader can use). With --max-offset, that line must also start within the first BYTES of the
output: the instantiation context before it is short too. GCC only: with clang this is skipped
(exit 77), as clang prints the names as character codes."""
import re
import subprocess
import sys

MAX_LINE = 1000


def main():
    args = sys.argv[1:]
    max_offset = None
    if args[:1] == ["--max-offset"]:
        max_offset, args = int(args[1]), args[2:]
    sep = args.index("--")
    operation, domain = args[:sep]
    command = args[sep + 1:]
    version = subprocess.run([command[0], "--version"], stdout=subprocess.PIPE, text=True, errors="replace").stdout
    if "clang" in version:
        # clang (14 here) prints a fixed_string template argument as its character codes,
        # {{104, 115, 97, ...}}: the names cannot be read in any of its diagnostics.
        print("SKIP: clang prints fixed_string template arguments as character codes")
        return 77
    p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                       timeout=300)
    out = p.stdout
    if p.returncode == 0:
        print("FAIL: the misspelt operation compiled")
        return 1
    offset = 0
    for line in out.splitlines(keepends=True):
        if re.search(r"\berror\b", line):
            break
        offset += len(line)
    else:
        print("FAIL: no line says error:\n" + out[:3000])
        return 1
    problems = []
    if operation not in line or domain not in line:
        problems.append(f"it does not name both {operation!r} and {domain!r}")
    if len(line) > MAX_LINE:
        problems.append(f"it is {len(line)} characters long (at most {MAX_LINE})")
    if max_offset is not None and offset > max_offset:
        problems.append(f"it starts after {offset} bytes of diagnostics (at most {max_offset})")
    print(f"the first error line (after {offset} bytes of {len(out)}):\n{line[:2000]}")
    if problems:
        print("FAIL: " + "; ".join(problems))
        return 1
    print("check_first_error: the first error names the operation and the domain")
    return 0


if __name__ == "__main__":
    sys.exit(main())
