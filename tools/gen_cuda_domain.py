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
new to the header are appended. cuda.h is not on Debian (CI): run this where CUDA is installed
(the GPU machine) and commit the output; the CUDA backend builds only where cuda.h exists.

usage: gen_cuda_domain.py [--cuda-include DIR] (--lib PATH | --exports FILE) [--out ROOT]
"""
import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_domains as g  # noqa: E402  (the HSA/HIP generator's C parser)

_banner, _c_banner = g.banner, g.c_banner
g.banner = lambda *a, **k: _banner(*a, **k).replace("tools/gen_domains.py", "tools/gen_cuda_domain.py", 1)
g.c_banner = lambda *a, **k: _c_banner(*a, **k).replace("tools/gen_domains.py", "tools/gen_cuda_domain.py", 1)

# Handled by hand in src/cuda (they hand out the driver's other functions), or not functions a
# program calls for work.
SPECIAL = {"cuGetProcAddress", "cuGetProcAddress_v2", "cuGetExportTable"}


def main() -> int:
    repo = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cuda-include", default="/usr/local/cuda/include", type=Path)
    ap.add_argument("--lib", type=Path, help="the driver library (libcuda.so.1) to list exports of")
    ap.add_argument("--exports", type=Path, help="a file with one exported symbol name per line")
    ap.add_argument("--out", default=repo, type=Path)
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--nm", default="nm")
    a = ap.parse_args()
    cxx = a.cxx.split()
    header = a.cuda_include / "cuda.h"
    if not header.exists():
        g.die(f"{header} not found (set --cuda-include)")
    if a.exports is not None:
        exports = {line.strip().split("@")[0] for line in a.exports.read_text().splitlines() if line.strip()}
    elif a.lib is not None:
        exports = g.exported_symbols(a.lib, a.nm)
    else:
        g.die("give --lib or --exports")
    hdr = header.resolve()

    def in_cuda_h(f: str) -> bool:
        try:
            return Path(f).resolve() == hdr
        except OSError:
            return False

    protos: dict[str, g.Proto] = {}
    for flags in ([], ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"]):
        decls = g.split_declarations(g.tokenize(g.preprocess(cxx, "#include <cuda.h>\n", [f"-I{a.cuda_include}", *flags])))
        for p in g.collect_prototypes(decls, in_cuda_h):
            if not p.c_linkage or not p.global_scope or p.variadic or p.name in SPECIAL:
                continue
            if p.name in protos:
                if protos[p.name].signature != p.signature:
                    g.warn(f"{p.name}: two declarations differ ({protos[p.name].signature} vs {p.signature})")
                continue
            protos[p.name] = p
    ops = [p for n, p in protos.items() if n in exports]
    missing = sorted(n for n in protos if n not in exports)
    if missing:
        g.info(f"declared but not exported (skipped): {len(missing)}: " + ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else ""))

    inc_rel = "include/encore/domains/cuda_driver_ops.inc"
    prev = g.previous_hip_order(a.out / inc_rel)
    by_name = {p.name: p for p in ops}
    ordered = []
    for n in prev:
        if n in by_name:
            ordered.append(by_name.pop(n))
        else:
            g.warn(f"CUDA op {n} (id {prev.index(n)}) is gone: later op ids shift")
    ordered += [p for p in ops if p.name in by_name]

    written: list[str] = []
    lines = []
    for p in ordered:
        names = g.names_for(p, "CUDA")
        pn = "".join(f', "{n}"' for n in names)
        lines.append(f'    api::fn<"{p.name}", {p.signature}{pn}>')
    text = g.banner(inc_rel, ["cuda.h"], [
        "CUDA driver op list: every C function cuda.h declares (default and per-thread-default-stream",
        "macros) that the driver library exports, under its exported name.",
        "Op ids are positions (ABI, append-only); new functions are appended on regeneration.",
        "Included by include/encore/domains/cuda_driver.hpp inside the api::domain<...> argument list."])
    text += ",\n".join(lines) + "\n"
    g.write(a.out, inc_rel, text, written)

    rel = "include/rocprofiler-sdk/cuda/driver_api_id.h"
    text = g.c_banner(rel, ["cuda.h"], [
        "Op ids of the CUDA_DRIVER_API tracing domain (encore's kind; same order as",
        "include/encore/domains/cuda_driver_ops.inc)."])
    text += "#pragma once\n\n" + g.c_enum("rocprofiler_cuda_driver_api_id_t", "ROCPROFILER_CUDA_DRIVER_API_ID",
                                         [p.name for p in ordered])
    g.write(a.out, rel, text, written)
    # Everything else the driver exports (older ABIs of versioned functions, cuGetExportTable,
    # ...) is forwarded untouched: a jump through a pointer filled when the real driver loads, so
    # a program linked against any of the driver's symbols still resolves against encore's.
    op_names = {p.name for p in ordered}
    forwards = sorted(n for n in exports if n.startswith("cu") and n not in op_names
                      and n not in ("cuGetProcAddress", "cuGetProcAddress_v2"))
    rel = "src/cuda/forward_exports.inc"
    text = g.banner(rel, ["cuda.h", "the driver's export list"], [
        "Driver exports encore forwards without tracing (no prototype in cuda.h's default and",
        "per-thread-default-stream views): ENCORE_CUDA_FORWARD(index, name) per line."])
    text += "".join(f"ENCORE_CUDA_FORWARD({i}, {n})\n" for i, n in enumerate(forwards))
    g.write(a.out, rel, text, written)
    g.info(f"{len(ordered)} CUDA driver ops; wrote {', '.join(written) or 'nothing (unchanged)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
