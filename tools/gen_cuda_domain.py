#!/usr/bin/env python3
"""gen_cuda_domain.py — the CUDA driver API domain (CUDA_DRIVER_API) from cuda.h.

Reads the driver's header the way a compiler does (preprocessed twice: default and with
CUDA_API_PER_THREAD_DEFAULT_STREAM, whose macros map the stream-ordered functions to their
_ptds/_ptsz exports), keeps every C function cuda.h declares that the driver library exports
(under its exported, post-macro name: cuMemAlloc is declared as cuMemAlloc_v2), and writes

  include/encore/domains/cuda_driver_ops.inc      the op list (api::fn<name, signature, params...>)
  include/rocprofiler-sdk/cuda/driver_api_id.h    the op ids for C tools
  src/cuda/forward_exports.inc                    the driver's other exports (forwarded as is)

Op ids are positions and append-only: on regeneration the existing order is kept and functions
new to the header are appended. Run this where the newest cuda.h is (the GPU machine) and commit
the output.

Older headers (--compat-include DIR, repeatable; CI builds against CUDA 11.8's from Debian): an op
whose exported name an older header does not declare with the identical signature is guarded in
the .inc, `#if CUDA_VERSION >= V` (V: the oldest given header, newest included, from which on every
header declares it identically), with `api::unavailable<"name">` in the `#else` branch: the same
id and name without a prototype, so a build against the older header keeps every op id and
forwards that export untraced. Consecutive ops with the same V share one guard.

--check-compat DIR checks the committed op list against one older header without the newest
(CI has CUDA 11.8's from Debian, not 13.0's): every op outside a guard, or under a guard its
version satisfies, is declared identically there, and every op under a guard it does not
satisfy is not (so the guard is needed). It writes nothing.

usage: gen_cuda_domain.py [--cuda-include DIR] [--compat-include DIR...] (--lib PATH | --exports FILE)
                          [--out ROOT]
       gen_cuda_domain.py --check-compat DIR [--out ROOT]
"""
import argparse
import itertools
import os
import re
import sys
from pathlib import Path

import cdecl  # the C parser and generator helpers every generator shares (tools/cdecl.py)

GENERATOR = "tools/gen_cuda_domain.py"

# Handled by hand in src/cuda (they hand out the driver's other functions), or not functions a
# program calls for work.
SPECIAL = {"cuGetProcAddress", "cuGetProcAddress_v2", "cuGetExportTable"}


def cuda_version(include: Path) -> int:
    m = re.search(r"^\s*#\s*define\s+CUDA_VERSION\s+(\d+)", (include / "cuda.h").read_text(), re.M)
    if m is None:
        cdecl.die(f"{include / 'cuda.h'}: no CUDA_VERSION")
    return int(m.group(1))


def header_prototypes(cxx: list[str], include: Path) -> dict:
    """{exported name: Proto} of the C functions cuda.h in `include` declares, in both views."""
    header = include / "cuda.h"
    if not header.exists():
        cdecl.die(f"{header} not found")
    hdr = header.resolve()

    def in_cuda_h(f: str) -> bool:
        try:
            return Path(f).resolve() == hdr
        except OSError:
            return False

    protos: dict[str, cdecl.Proto] = {}
    for flags in ([], ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"]):
        text = cdecl.preprocess(cxx, "#include <cuda.h>\n", [f"-I{include}", *flags])
        decls = cdecl.split_declarations(cdecl.tokenize(text))
        for p in cdecl.collect_prototypes(decls, in_cuda_h):
            if not p.c_linkage or not p.global_scope or p.variadic or p.name in SPECIAL:
                continue
            if p.name in protos:
                if protos[p.name].signature != p.signature:
                    cdecl.warn(f"{p.name}: two declarations differ ({protos[p.name].signature} vs {p.signature})")
                continue
            protos[p.name] = p
    return protos


_GUARD = re.compile(r"^#if CUDA_VERSION >= (\d+)$")
_FN = re.compile(r'^\s*api::fn<"(\w+)", ')


def committed_ops(inc: Path) -> list[tuple[str, str, int]]:
    """(name, signature, guard version or 0) of each op of the committed .inc (its #if branches)."""
    ops, guard, in_else = [], 0, False
    for line in inc.read_text().splitlines():
        m = _GUARD.match(line)
        if m:
            guard, in_else = int(m.group(1)), False
        elif line == "#else":
            in_else = True
        elif line == "#endif":
            guard, in_else = 0, False
        elif not in_else and (m := _FN.match(line)):
            rest, depth, i = line[m.end():], 0, 0
            while i < len(rest) and not (depth == 0 and (rest.startswith(', "', i) or rest[i] == ">")):
                depth += {"(": 1, ")": -1}.get(rest[i], 0)
                i += 1
            ops.append((m.group(1), rest[:i], guard))
    return ops


def check_compat(cxx: list[str], include: Path, inc: Path) -> int:
    v = cuda_version(include)
    sigs = {n: p.signature for n, p in header_prototypes(cxx, include).items()}
    bad = 0
    ops = committed_ops(inc)
    for name, sig, guard in ops:
        identical = sigs.get(name) == sig
        if guard <= v and not identical:
            cdecl.warn(f"{name}: {sig} is not declared so by CUDA {v}'s cuda.h ({sigs.get(name, 'absent')}): guard it")
            bad += 1
        elif guard > v and identical:
            cdecl.warn(f"{name}: guarded (CUDA_VERSION >= {guard}) but CUDA {v}'s cuda.h declares it identically")
            bad += 1
    cdecl.info(f"--check-compat: {len(ops)} ops against CUDA {v}: "
           f"{sum(1 for o in ops if o[2] > v)} unavailable there, {bad} wrong")
    return 1 if bad else 0


def main() -> int:
    repo = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cuda-include", default="/usr/local/cuda/include", type=Path)
    ap.add_argument("--compat-include", action="append", default=[], type=Path,
                    help="an older cuda.h's directory the op list must also compile against (repeatable)")
    ap.add_argument("--lib", type=Path, help="the driver library (libcuda.so.1) to list exports of")
    ap.add_argument("--exports", type=Path,
                    help="the driver's exported functions: one name per line, or `nm -D --defined-only` lines "
                         "(only T symbols are kept)")
    ap.add_argument("--out", default=repo, type=Path)
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--check-compat", type=Path, metavar="DIR",
                    help="only check the committed op list's guards against an older cuda.h in DIR")
    a = ap.parse_args()
    cxx = a.cxx.split()
    if a.check_compat is not None:
        return check_compat(cxx, a.check_compat, a.out / "include/encore/domains/cuda_driver_ops.inc")
    if not (a.cuda_include / "cuda.h").exists():
        cdecl.die(f"{a.cuda_include / 'cuda.h'} not found (set --cuda-include)")
    if a.exports is not None:
        # The driver also exports variables (the debugger's cudbg* flags and error slots): forwarded
        # as functions they would put a jump where a debugger or the driver reads the variable. nm's
        # lines say which symbols are functions; a bare name is taken to be one.
        exports = set()
        for line in a.exports.read_text().splitlines():
            f = line.split()
            if len(f) == 1 or (len(f) >= 3 and f[1] == "T"):
                exports.add(f[-1].split("@")[0])
    elif a.lib is not None:
        exports = cdecl.exported_symbols(a.lib, a.nm)
    else:
        cdecl.die("give --lib or --exports")
    protos = header_prototypes(cxx, a.cuda_include)
    newest = cuda_version(a.cuda_include)
    # Older headers, newest first: (version, {name: signature}).
    compat = sorted(((cuda_version(d), {n: p.signature for n, p in header_prototypes(cxx, d).items()})
                     for d in a.compat_include), key=lambda c: -c[0])
    for v, _ in compat:
        if v >= newest:
            cdecl.die(f"--compat-include headers must be older than --cuda-include's (CUDA_VERSION {v} >= {newest})")
    ops = [p for n, p in protos.items() if n in exports]
    missing = sorted(n for n in protos if n not in exports)
    if missing:
        cdecl.info(f"declared but not exported (skipped): {len(missing)}: " + ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else ""))

    inc_rel = "include/encore/domains/cuda_driver_ops.inc"
    prev = cdecl.previous_op_order(a.out / inc_rel)
    by_name = {p.name: p for p in ops}
    ordered = []
    for n in prev:
        if n in by_name:
            ordered.append(by_name.pop(n))
        else:
            cdecl.warn(f"CUDA op {n} (id {prev.index(n)}) is gone: later op ids shift")
    ordered += [p for p in ops if p.name in by_name]

    # The CUDA_VERSION from which on op p is declared identically by every given header; 0 when
    # the oldest given header (or only the newest) declares it so: no guard.
    def since(p: cdecl.Proto) -> int:
        v = newest
        for cv, sigs in compat:
            if sigs.get(p.name) != p.signature:
                return v
            v = cv
        return 0

    written: list[str] = []
    entries = []  # (guard version or 0, the op, its placeholder)
    for p in ordered:
        pn = "".join(f', "{n}"' for n in cdecl.names_for(p, "CUDA"))
        entries.append((since(p), f'    api::fn<"{p.name}", {p.signature}{pn}>', f'    api::unavailable<"{p.name}">'))
    guarded = sum(1 for e in entries if e[0])
    # Consecutive ops with the same guard share it: #if <api::fn...> #else <api::unavailable...> #endif
    lines, done = [], 0
    for v, run in itertools.groupby(entries, key=lambda e: e[0]):
        run = list(run)
        done += len(run)
        sep = ["," if j + 1 < len(run) or done < len(entries) else "" for j in range(len(run))]
        if v == 0:
            lines += [e[1] + c for e, c in zip(run, sep)]
        else:
            lines += [f"#if CUDA_VERSION >= {v}", *(e[1] + c for e, c in zip(run, sep)),
                      "#else", *(e[2] + c for e, c in zip(run, sep)), "#endif"]
    text = cdecl.banner(GENERATOR, inc_rel, ["cuda.h"], [
        "CUDA driver op list: every C function cuda.h declares (default and per-thread-default-stream",
        "macros) that the driver library exports, under its exported name.",
        "Op ids are positions (ABI, append-only); new functions are appended on regeneration.",
        "Included by include/encore/domains/cuda_driver.hpp inside the api::domain<...> argument list."]
        + ([f"Ops under `#if CUDA_VERSION >= V` are declared differently or not at all by an older header"
            f" ({', '.join(str(v) for v, _ in compat)}):",
            "there they are api::unavailable (same id and name, no prototype: forwarded untraced)."]
           if compat else []))
    text += "\n".join(lines) + "\n"
    cdecl.write(a.out, inc_rel, text, written)

    rel = "include/rocprofiler-sdk/cuda/driver_api_id.h"
    text = cdecl.c_banner(GENERATOR, rel, ["cuda.h"], [
        "Op ids of the CUDA_DRIVER_API tracing domain (encore's kind; same order as",
        "include/encore/domains/cuda_driver_ops.inc)."])
    text += "#pragma once\n\n" + cdecl.c_enum("rocprofiler_cuda_driver_api_id_t", "ROCPROFILER_CUDA_DRIVER_API_ID",
                                         [p.name for p in ordered])
    cdecl.write(a.out, rel, text, written)
    # Everything else the driver exports (older ABIs of versioned functions, cuGetExportTable,
    # ...) is forwarded untouched: a jump through a pointer filled when the real driver loads, so
    # a program linked against any of the driver's symbols still resolves against encore's.
    op_names = {p.name for p in ordered}
    forwards = sorted(n for n in exports if n.startswith("cu") and n not in op_names
                      and n not in ("cuGetProcAddress", "cuGetProcAddress_v2"))
    rel = "src/cuda/forward_exports.inc"
    text = cdecl.banner(GENERATOR, rel, ["cuda.h", "the driver's export list"], [
        "Driver exports encore forwards without tracing (no prototype in cuda.h's default and",
        "per-thread-default-stream views): ENCORE_CUDA_FORWARD(index, name) per line."])
    text += "".join(f"ENCORE_CUDA_FORWARD({i}, {n})\n" for i, n in enumerate(forwards))
    cdecl.write(a.out, rel, text, written)
    if compat:
        cdecl.info(f"{guarded} of the ops are unavailable (forwarded untraced) in a build against CUDA "
               + ", ".join(str(v) for v, _ in compat))
    cdecl.info(f"{len(ordered)} CUDA driver ops; wrote {', '.join(written) or 'nothing (unchanged)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
