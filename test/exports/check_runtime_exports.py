#!/usr/bin/env python3
"""Fails when one of encore's libraries exports a copy of the C++ runtime.

encore's libraries are loaded into processes encore does not control (PyTorch, JAX, any CUDA or
HIP program), often into the global scope. A toolchain that links libstdc++ and libgcc statically
(the GPU machine's GCC in /opt/gcc does) puts a copy of the runtime into each library; exported,
that copy takes the place of the system's for every library the process loads later (PyTorch
crashed at import: docs/cuda.md). A strong definition (T, D, B, R) of a symbol the system's
libstdc++.so.6 or libgcc_s.so.1 also defines strongly is such a copy; weak definitions (W, V, u)
are the library's own template instantiations and are allowed.

Usage: check_runtime_exports.py NM LIBRARY...
"""
import subprocess
import sys

STRONG = set("TDBR")


def defined(nm, path):
    out = subprocess.run([nm, "-D", "--defined-only", path], check=True, capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            syms[parts[2].split("@")[0]] = parts[1]
    return syms


def runtime_library(name):
    """The file the compiler's driver links for `name` (libstdc++.so.6, libgcc_s.so.1), or None."""
    for cc in ("c++", "g++", "clang++"):
        try:
            p = subprocess.run([cc, f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
        except OSError:
            continue
        if p and p != name:
            return p
    return None


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    nm, libraries = sys.argv[1], sys.argv[2:]
    runtime = {}
    for name in ("libstdc++.so.6", "libgcc_s.so.1"):
        path = runtime_library(name)
        if path is None:
            print(f"cannot find {name} through the compiler driver", file=sys.stderr)
            return 2
        runtime.update({s: t for s, t in defined(nm, path).items() if t in STRONG})
    if len(runtime) < 1000:  # libstdc++ alone defines several thousand: the lookup went wrong
        print(f"only {len(runtime)} runtime symbols found: not a libstdc++", file=sys.stderr)
        return 2
    failed = 0
    for lib in libraries:
        copies = sorted(s for s, t in defined(nm, lib).items() if t in STRONG and s in runtime)
        if copies:
            failed += 1
            print(f"FAIL {lib}: exports {len(copies)} symbols of the C++ runtime, e.g. {', '.join(copies[:5])}"
                  " (a statically linked libstdc++/libgcc not kept inside: link with -Wl,--exclude-libs,ALL)")
        else:
            print(f"ok   {lib}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
