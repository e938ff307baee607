#!/usr/bin/env python3
"""Compile-time selection: what a tool or backend does not select is not in its object code.

  a HIP-only tool object      no symbol of an HSA domain (hsa_core, CoreApiTable, ...)
  an HSA-only tool object     no symbol of the HIP domains
  libencore-hip               HIP wrappers, no HSA wrapper
  libencore-hsa               HSA wrappers, no HIP wrapper

usage: check_selection.py NM HIP_TOOL_ARCHIVE HSA_TOOL_ARCHIVE LIBENCORE_HIP LIBENCORE_HSA"""
import re
import subprocess
import sys

nm, hip_tool, hsa_tool, lib_hip, lib_hsa = sys.argv[1:6]
HSA = re.compile(r"encore::domains::hsa_(core|amd_ext|image_ext|finalize_ext)\b|CoreApiTable|AmdExtTable")
HIP = re.compile(r"encore::domains::hip_(runtime|compiler)\b")
failed = 0


def symbols(path, dynamic=False):
    args = [nm, "-C"] + (["-D"] if dynamic else []) + [path]
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()


def expect(ok, what):
    global failed
    print(("ok: " if ok else "FAILED: ") + what)
    failed += 0 if ok else 1


def count(lines, rx):
    return sum(1 for l in lines if rx.search(l))


s = symbols(hip_tool)
expect(count(s, HIP) > 0, "the HIP-only tool instantiates HIP code (%d symbols)" % count(s, HIP))
expect(count(s, HSA) == 0, "the HIP-only tool has no HSA domain symbol (%d)" % count(s, HSA))
s = symbols(hsa_tool)
expect(count(s, HSA) > 0, "the HSA-only tool instantiates HSA code (%d symbols)" % count(s, HSA))
expect(count(s, HIP) == 0, "the HSA-only tool has no HIP domain symbol (%d)" % count(s, HIP))
wrap_hip = re.compile(r"encore::tracing::wrapper<encore::domains::hip_")
wrap_hsa = re.compile(r"encore::tracing::wrapper<encore::domains::hsa_")
s = symbols(lib_hip)
expect(count(s, wrap_hip) > 0 and count(s, wrap_hsa) == 0,
       "libencore-hip: %d HIP wrapper symbols, %d HSA" % (count(s, wrap_hip), count(s, wrap_hsa)))
s = symbols(lib_hsa)
expect(count(s, wrap_hip) == 0, "libencore-hsa: %d HIP wrapper symbols" % count(s, wrap_hip))
sys.exit(1 if failed else 0)
