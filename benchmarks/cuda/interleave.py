#!/usr/bin/env python3
# Takes turns between long-lived processes of one program run different ways (bare, traced, under
# another profiler), a few steps each, so that the host's drift falls on every case alike.
#   interleave.py --work DIR [--blocks N] [--steps K] [--base NAME] NAME=COMMAND...
# Why: on the shared GPU hosts, the median step of the same bare run moved 13-27 ms between runs
# minutes apart, so ratios of whole runs taken in turn could not decide a 5 % target
# (benchmarks/RESULTS.md, 2026-12-06/07). Here every case's process starts and warms up once;
# then, block by block, each case runs K steps while the others wait idle on stdin, in an order
# drawn at random each block, and each case's ratio to the base case is taken block by block
# (steps seconds apart). A second bare process (an A/A pair) shows what the method resolves.
# The order of each block is a random permutation (--seed): with an order that only turns, each
# case always ran right after the same other case, and on an H100 host the A/A pair read 0.904
# with every one of 12 blocks below 1 (2026-12-07), a bias a fixed neighbour can cause.
#
# COMMAND is a shell command whose program speaks programs/gpt2_train.py's --serve protocol:
# it prints "ready" once warmed up; to "steps K" it runs K steps and prints "times T1,...,TK" (ms);
# to "end" it prints its last lines and exits. Other lines are kept but not read (a tracer's own
# output). Each case's stdout goes to DIR/NAME_1.txt, its stderr to DIR/NAME_1.err (the file
# names trace_gpt2.sh's checks read). A case whose process fails or falls silent (START_S to get
# ready and to end, BLOCK_S per block) is reported FAIL and dropped; the others go on. Exit status 1 if any
# case failed.
import argparse
import os
import random
import selectors
import statistics
import subprocess
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--work", required=True)
p.add_argument("--blocks", type=int, default=12)
p.add_argument("--steps", type=int, default=5)
p.add_argument("--base", default="bare")
p.add_argument("--seed", type=int, default=1)
p.add_argument("--start-s", type=float, default=float(os.environ.get("START_S", 300)))
p.add_argument("--block-s", type=float, default=float(os.environ.get("BLOCK_S", 120)))
p.add_argument("cases", nargs="+", metavar="NAME=COMMAND")
a = p.parse_args()
if a.blocks < 1 or a.steps < 1:
    sys.exit("interleave: --blocks and --steps must be at least 1")


class Case:
    def __init__(self, name, command):
        self.name, self.failed, self.blocks = name, None, []
        self.out = open(os.path.join(a.work, f"{name}_1.txt"), "w")
        err = open(os.path.join(a.work, f"{name}_1.err"), "w")
        self.proc = subprocess.Popen(["bash", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=err, text=True, bufsize=1)
        err.close()
        self.pending = ""

    def line(self, deadline):
        """The program's next line (kept in its .txt), or None: it ended or fell silent."""
        fd = self.proc.stdout.fileno()
        while "\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            with selectors.DefaultSelector() as sel:
                sel.register(fd, selectors.EVENT_READ)
                if not sel.select(left):
                    return None
            chunk = os.read(fd, 65536).decode(errors="replace")
            if not chunk:
                return None
            self.pending += chunk
        text, self.pending = self.pending.split("\n", 1)
        self.out.write(text + "\n")
        self.out.flush()
        return text

    def expect(self, prefix, seconds):
        """The next line starting with prefix, skipping others; None (and the case failed) if none came."""
        deadline = time.monotonic() + seconds
        while (text := self.line(deadline)) is not None:
            if text.startswith(prefix):
                return text
        self.fail(f"no '{prefix.strip()}' line within {seconds:.0f} s (exit status {self.proc.poll()})")
        return None

    def send(self, text):
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError) as e:
            self.fail(f"cannot write to it: {e}")
            return False

    def fail(self, why):
        if self.failed is None:
            self.failed = why
            print(f"FAIL: {self.name}: {why}; see {self.name}_1.err", flush=True)
            if self.proc.poll() is None:
                self.proc.kill()


cases = []
for spec in a.cases:
    name, sep, command = spec.partition("=")
    if not sep or not name or not command or "/" in name:
        sys.exit(f"interleave: bad case {spec!r} (NAME=COMMAND)")
    cases.append(Case(name, command))
names = [c.name for c in cases]
if a.base not in names or len(set(names)) != len(names):
    sys.exit(f"interleave: the cases must have distinct names and include the base {a.base!r}")

for c in cases:  # they warm up side by side; timing starts once every one is ready
    c.expect("ready", a.start_s)
rng = random.Random(a.seed)
for b in range(a.blocks):
    live = [c for c in cases if c.failed is None]
    rng.shuffle(live)
    for c in live:
        if not c.send(f"steps {a.steps}"):
            continue
        text = c.expect("times ", a.block_s)
        if text is None:
            continue
        try:
            times = [float(t) for t in text.split(None, 1)[1].split(",")]
        except (IndexError, ValueError):
            times = []
        if len(times) != a.steps:
            c.fail(f"a malformed times line: {text!r}")
            continue
        c.blocks.append((b, times))
for c in cases:
    if c.failed is None and c.send("end"):
        c.expect("final_loss=", a.start_s)  # torch.profiler digests every step first
for c in cases:
    try:
        c.proc.wait(timeout=a.start_s)  # a tracer converts its records after the program ends
    except subprocess.TimeoutExpired:
        c.fail(f"did not end within {a.start_s:.0f} s of 'end'")
        c.proc.wait()
    if c.failed is None and c.proc.returncode != 0:
        c.fail(f"exit status {c.proc.returncode}")
    c.out.close()


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


base = next(c for c in cases if c.name == a.base)
base_med = {b: statistics.median(t) for b, t in base.blocks}
print(f"{a.blocks} blocks of {a.steps} steps per case, in turns; ms per step")
for c in cases:
    steps = [t for _, block in c.blocks for t in block]
    if not steps:
        print(f"{c.name:8s} no step timed")
        continue
    line = (f"{c.name:8s} median {statistics.median(steps):8.3f}  min {min(steps):8.3f}  "
            f"block medians {pct([statistics.median(t) for _, t in c.blocks], 0.1):.3f}"
            f"-{pct([statistics.median(t) for _, t in c.blocks], 0.9):.3f} (10th-90th)")
    print(line)
for c in cases:
    if c is base:
        continue
    ratios = [statistics.median(t) / base_med[b] for b, t in c.blocks if b in base_med]
    if not ratios:
        print(f"PAIRED {c.name}/{a.base}: no block of both")
        continue
    print(f"PAIRED {c.name}/{a.base} = {statistics.median(ratios):.3f}  (blocks: {len(ratios)}, "
          f"10th-90th {pct(ratios, 0.1):.3f}-{pct(ratios, 0.9):.3f})")
sys.exit(1 if any(c.failed for c in cases) else 0)
