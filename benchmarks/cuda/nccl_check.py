#!/usr/bin/env python3
"""nccl_check.py — RCCL_API live: a program's NCCL calls under libencore-rccl, each traced exactly
once with its arguments, checked from the log of nccl_tool.cpp.

  nccl_check.py --encore-rccl LIB --tool TOOL [--any-result] torch
      the GPU check: a single-GPU PyTorch NCCL communicator (torch.distributed, world_size=1):
      all_reduce of 1000, 1001 and 1002 floats, broadcast of 2000, and two group calls
      (torch.cuda.nccl.all_reduce: ncclGroupStart, ncclAllReduce of 3001 / 3002, ncclGroupEnd)
  nccl_check.py --encore-rccl LIB --tool TOOL [--any-result] program CMD [ARGS...]
      the same checks on CMD, which makes the same calls (the suite runs test/libs/nccl_program.c
      on the fake NCCL)

The program must print "nccl version N" (what its NCCL says, NCCL_VERSION_CODE) and may print
"nccl library PATH". Checks: each expected (function, count) traced exactly once, with its
arguments by name (count, datatype, op, root); every ENTER has its EXIT (same id, operation);
a call traced inside another (NCCL calling its own exports) lies inside it, and is listed; one
RUNTIME_INITIALIZATION (RCCL) record whose version is the program's; the program's
own result checks pass; unless --any-result, the expected calls returned ncclSuccess. Exits 1 on
any failure. Every other NCCL call the program made is listed with its count (PyTorch makes its
own: ncclCommInitRankConfig, ncclCommGetAsyncError from its watchdog, ...).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

TORCH_WORKLOAD = r'''
import os, sys
import torch
import torch.distributed as dist
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29533")
torch.cuda.set_device(0)
v = torch.cuda.nccl.version()
print("nccl version %d" % (v[0] * 10000 + v[1] * 100 + v[2]) if isinstance(v, tuple) else "nccl version %d" % v)
dist.init_process_group("nccl", rank=0, world_size=1)
ok = True
for n in (1000, 1001, 1002):
    t = torch.arange(n, dtype=torch.float32, device="cuda")
    ref = t.clone()
    dist.all_reduce(t)
    torch.cuda.synchronize()
    ok = ok and torch.equal(t, ref)        # the sum over one rank is the tensor itself
b = torch.arange(2000, dtype=torch.float32, device="cuda")
ref = b.clone()
dist.broadcast(b, src=0)
torch.cuda.synchronize()
ok = ok and torch.equal(b, ref)
for n in (3001, 3002):                     # each: ncclGroupStart, ncclAllReduce, ncclGroupEnd
    x = torch.full((n,), 2.0, device="cuda")
    torch.cuda.nccl.all_reduce([x])
    torch.cuda.synchronize()
    ok = ok and bool((x == 2.0).all())
dist.destroy_process_group()
for line in open("/proc/self/maps"):
    if "libnccl" in line or "librccl" in line:
        print("nccl library " + line.split()[-1])
        break
print("results ok" if ok else "results WRONG")
sys.exit(0 if ok else 1)
'''

# (function, count argument, other arguments) that must each be traced exactly once.
EXPECTED = [
    ("ncclAllReduce", "1000", {"datatype": "ncclFloat32", "op": "ncclSum"}),
    ("ncclAllReduce", "1001", {"datatype": "ncclFloat32", "op": "ncclSum"}),
    ("ncclAllReduce", "1002", {"datatype": "ncclFloat32", "op": "ncclSum"}),
    ("ncclBroadcast", "2000", {"datatype": "ncclFloat32", "root": "0"}),
    ("ncclAllReduce", "3001", {"datatype": "ncclFloat32", "op": "ncclSum"}),
    ("ncclAllReduce", "3002", {"datatype": "ncclFloat32", "op": "ncclSum"}),
]

failed = 0


def expect(ok, what):
    global failed
    print(("PASS: " if ok else "FAIL: ") + what)
    if not ok:
        failed += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--encore-rccl", required=True, help="libencore-rccl.so (preloaded)")
    ap.add_argument("--tool", required=True, help="nccl_tool.cpp built as a shared library")
    ap.add_argument("--any-result", action="store_true", help="do not require ncclSuccess (a fake library)")
    ap.add_argument("mode", choices=["torch", "program"])
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = [sys.executable, "-c", TORCH_WORKLOAD] if a.mode == "torch" else a.command
    if not cmd:
        sys.exit("nccl_check: program mode needs a command")

    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "nccl.jsonl")
        env = dict(os.environ)
        env["LD_PRELOAD"] = a.encore_rccl + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
        env["ROCP_TOOL_LIBRARIES"] = a.tool
        env["ENCORE_NCCL_LOG"] = log
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        sys.stdout.write(r.stderr[-4000:])
        expect(r.returncode == 0, "the program runs under libencore-rccl (exit %d)" % r.returncode)
        records = [json.loads(line) for line in open(log)] if os.path.exists(log) else []

    out = r.stdout.splitlines()
    version = next((int(l.split()[-1]) for l in out if l.startswith("nccl version ")), None)
    library = next((l.split(None, 2)[-1] for l in out if l.startswith("nccl library ")), None)
    if library:
        print("the program's NCCL: " + library)
    elif a.mode == "torch":
        # Some PyTorch builds link NCCL into libtorch_cuda.so: no exported symbol to interpose.
        print("note: no libnccl.so.2 / librccl.so.1 was mapped: this PyTorch links NCCL statically, "
              "and an interposer sees only calls into a shared NCCL")
    inits = [x for x in records if x["phase"] == "init"]
    expect(len(inits) == 1, "one RUNTIME_INITIALIZATION (RCCL) record (%d)" % len(inits))
    expect(version is not None and len(inits) == 1 and inits[0]["version"] == version,
           "its version is the program's NCCL's: %s vs %s" % (inits[0]["version"] if inits else None, version))

    enters = {x["corr"]: x for x in records if x["phase"] == "enter"}
    exits = {x["corr"]: x for x in records if x["phase"] == "exit"}
    expect(len(enters) == len([x for x in records if x["phase"] == "enter"]), "one ENTER per correlation id")
    expect(enters.keys() == exits.keys() and all(enters[c]["op"] == exits[c]["op"] for c in enters),
           "every ENTER has its EXIT (%d calls)" % len(exits))
    # A call NCCL makes to its own exports through the PLT (ncclCommInitAll calls ncclGetUniqueId,
    # ncclGroupStart and ncclGroupEnd) reaches the interposer too: it is traced once, inside the
    # call that made it (its ancestor), which must have been running then (log order).
    at = {(x["phase"], x["corr"]): i for i, x in enumerate(records) if x["phase"] in ("enter", "exit")}
    nested = [x for x in exits.values() if x["ancestor"] in exits]
    never = len(records)  # a missing ENTER or EXIT (already a failure above) never nests
    expect(all(at.get(("enter", x["ancestor"]), never) < at.get(("enter", x["corr"]), -1) and
               at.get(("exit", x["corr"]), never) < at.get(("exit", x["ancestor"]), -1) for x in nested),
           "each call traced inside another lies inside it (%d such calls)" % len(nested))
    for x in nested[:10]:
        print("  inside %s: %s" % (exits[x["ancestor"]]["op"], x["op"]))

    calls = list(exits.values())
    for fn, count, args in EXPECTED:
        mine = [x for x in calls if x["op"] == fn and x["args"].get("count") == count]
        expect(len(mine) == 1, "%s(count=%s) traced exactly once (%d)" % (fn, count, len(mine)))
        if len(mine) == 1:
            got = {k: mine[0]["args"].get(k) for k in args}
            expect(got == args, "%s(count=%s) arguments %s" % (fn, count, got))
            names = list(mine[0]["args"].keys())
            expect(names[:3] == ["sendbuff", "recvbuff", "count"] and names[-2:] == ["comm", "stream"],
                   "%s: every parameter by name %s" % (fn, names))
            if not a.any_result:
                expect(mine[0]["ret"] == 0, "%s(count=%s) returned ncclSuccess (%d)" % (fn, count, mine[0]["ret"]))
    per_op = collections.Counter(x["op"] for x in calls)
    expect(per_op["ncclGroupStart"] >= 2 and per_op["ncclGroupStart"] == per_op["ncclGroupEnd"],
           "group calls: %d ncclGroupStart, %d ncclGroupEnd" % (per_op["ncclGroupStart"], per_op["ncclGroupEnd"]))
    expect(any(per_op[f] for f in ("ncclCommInitRank", "ncclCommInitRankConfig", "ncclCommInitAll")),
           "a communicator was created through a traced call")
    expect(any(l == "results ok" for l in out), "the program's own result checks")
    print("NCCL calls traced, per function:")
    for op, n in sorted(per_op.items()):
        print("  %6d %s" % (n, op))
    print("nccl_check: %s" % ("ok" if failed == 0 else "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
