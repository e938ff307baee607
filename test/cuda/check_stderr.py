#!/usr/bin/env python3
"""check_stderr.py — runs a test program and checks its one-time messages on stderr.

usage: check_stderr.py [--once TEXT]... [--absent TEXT]... -- PROGRAM [ARG...]

Passes the program's exit status through (77: skipped) after checking that each --once TEXT
occurs in its stderr exactly once and no --absent TEXT occurs at all; prints stderr either way.
"""
import subprocess
import sys


def main() -> int:
    args = sys.argv[1:]
    once, absent = [], []
    while args and args[0] != "--":
        flag, text, args = args[0], args[1], args[2:]
        (once if flag == "--once" else absent).append(text)
    cmd = args[1:]
    res = subprocess.run(cmd, stdout=None, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(res.stderr)
    if res.returncode == 77:
        return 77
    ok = res.returncode == 0
    for t in once:
        n = res.stderr.count(t)
        if n != 1:
            print(f"FAILED: stderr has {t!r} {n} times, expected once")
            ok = False
    for t in absent:
        if t in res.stderr:
            print(f"FAILED: stderr has {t!r}")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
