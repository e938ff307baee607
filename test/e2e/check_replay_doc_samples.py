#!/usr/bin/env python3
"""Every sample session in docs/replay.md is what encore-replay prints now, numbers aside.

usage: check_replay_doc_samples.py DOC BUILD_ROOT

A sample is a fenced block whose first line is `$ build/examples/encore-replay ...`; each `$ `
line in it is run with bash in a scratch folder where `build` is BUILD_ROOT, and what follows it
up to the next `$ ` line is what it must print: the program's stdout, then stderr (the report,
written at exit: on a terminal it comes after the program's own lines). Numbers are masked (times
differ per run and per machine) and runs of spaces are one (the columns' widths follow the
numbers), so a header, a column, a line or a word that changed fails the check, a time does not."""
import os
import re
import subprocess
import sys
import tempfile

NUMBER = re.compile(r"\b\d+(\.\d+)?\b")


def norm(line):
    return " ".join(NUMBER.sub("#", line).split())


def samples(doc):
    """[(command, [expected lines])] of every sample block, in the doc's order."""
    out, block, fence = [], None, False
    for line in open(doc, encoding="utf-8").read().splitlines():
        if line.startswith("```"):
            if fence and isinstance(block, list):
                out.extend(block)
            fence, block = not fence, None
            continue
        if not fence:
            continue
        if block is None:
            if not line.startswith("$ build/examples/encore-replay"):
                block = False  # a block of another kind: skipped
                continue
            block = []
        if block is False:
            continue
        if line.startswith("$ "):
            block.append((line[2:], []))
        elif block:
            block[-1][1].append(line)
    return out


def main():
    doc, build_root = sys.argv[1:3]
    cases = samples(doc)
    failures = 0
    if len(cases) < 3:
        print(f"FAIL: only {len(cases)} sample commands found in {doc}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(os.path.abspath(build_root), os.path.join(tmp, "build"))
        for command, expected in cases:
            p = subprocess.run(["bash", "-c", command], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, timeout=120)
            got = [norm(line) for line in (p.stdout + p.stderr).splitlines()]
            want = [norm(line) for line in expected]
            if p.returncode != 0 or got != want:
                failures += 1
                print(f"FAIL: {command}\n  exit status {p.returncode}")
                for i in range(max(len(got), len(want))):
                    g = got[i] if i < len(got) else "<none>"
                    w = want[i] if i < len(want) else "<none>"
                    if g != w:
                        print(f"  line {i + 1}: the doc has\n    {w}\n  encore-replay prints\n    {g}")
            else:
                print(f"ok: {command}")
    if failures:
        print(f"{failures} sample(s) in {doc} differ from what encore-replay prints")
        return 1
    print("check_replay_doc_samples: all samples match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
