#!/usr/bin/env python3
"""encore-trace --rccl-trace -o DIR on a program that calls NCCL (test/libs/nccl_program.c on the
fake libnccl.so.2): the RCCL calls land in trace.json and api_trace.csv with their arguments,
and nothing else is traced.

usage: check_rccl_trace.py ENCORE_TRACE PROGRAM"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from trace_run import expect, finish, traced_run  # noqa: E402

with traced_run(sys.argv[1], ["--rccl-trace"], sys.argv[2]) as t:
    reduces = [e for e in t.calls if e["cat"] == "RCCL_API" and e["name"] == "ncclAllReduce"]
    expect(sorted(e["args"]["count"] for e in reduces) == ["1000", "1001", "1002", "3001", "3002"],
           "five ncclAllReduce calls with their counts: %r" % [e["args"].get("count") for e in reduces])
    expect(all(e["args"]["datatype"] == "ncclFloat32" and e["args"]["op"] == "ncclSum" for e in reduces),
           "datatype and op by name")
    for fn in ("ncclGetVersion", "ncclCommInitRank", "ncclBroadcast", "ncclGroupStart", "ncclGroupEnd",
               "ncclCommDestroy"):
        expect(("RCCL_API", fn) in t.names, fn + " in trace.json")
    expect(sum(1 for r in t.rows if r["kind"] == "RCCL_API" and r["operation"] == "ncclAllReduce") == 5,
           "five ncclAllReduce rows in api_trace.csv")
    expect(all(r["kind"] == "RCCL_API" for r in t.rows), "only RCCL_API rows: only --rccl-trace selected")
    expect("ncclBroadcast(sendbuff=" in t.stderr, "each call printed with its arguments")

sys.exit(finish())
