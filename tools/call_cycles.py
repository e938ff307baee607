#!/usr/bin/env python3
"""Call cycles between the source files of a library, read from its built objects.

The include graph cannot show who calls whom: a .cpp may call a function another .cpp defines
through a header that includes nothing of it. This reads the symbols of each object file of a
shared library (binutils `nm`) and draws an edge A -> B when A's object needs (undefined
symbol) a function or variable that B's object alone defines; a strongly connected component
of more than one file is a cycle. Exit status 1 when there is one (that no --allow line
accepts), 0 otherwise, 2 on a usage error.

    python3 tools/call_cycles.py build                       # libencore, -hsa, -cuda, the software runtime
    python3 tools/call_cycles.py build encore-hsa            # a Meson target name ...
    python3 tools/call_cycles.py build src/sim/libhsa-runtime64.so.1.5.0  # ... or the library's path

What counts as a definition: a global symbol of type T, D, B or R (text, data, bss, read-only
data) defined by exactly one object of the library. Weak and unique symbols (W, V, u: inline
functions, template instantiations, COMDAT groups) are defined in every object that uses them,
so they say nothing about which file a call goes to; a symbol no object defines comes from
another library. Standard library only.
"""

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

# The libraries whose files must not call each other in a cycle (docs/architecture.md), by Meson
# target name: libencore, libencore-hsa, libencore-cuda (libcuda.so.1), the software HSA runtime.
DEFAULT_TARGETS = ["encore", "encore-hsa", "cuda", "hsa-runtime64"]
STRONG = set("TDBR")  # global definitions; lowercase types are file-local, W/V/u are weak/COMDAT
SYMBOLS_PER_EDGE = 4  # shown per edge of a cycle; the rest are counted


def die(message):
    print(f"call_cycles.py: {message}", file=sys.stderr)
    sys.exit(2)


def meson_targets(build):
    """{target name: [library path]} of the build's shared libraries (Meson's introspection)."""
    info = build / "meson-info" / "intro-targets.json"
    if not info.is_file():
        return {}
    found = defaultdict(list)
    for t in json.loads(info.read_text()):
        if t["type"] == "shared library":
            found[t["name"]].extend(t["filename"])
    return found


def library_path(build, target, targets):
    """The library file a target argument names: a Meson target name or a path."""
    if target in targets:
        if len(targets[target]) != 1:
            die(f"target {target!r} names {len(targets[target])} libraries; give the library's path")
        return Path(targets[target][0])
    path = Path(target)
    return path if path.is_absolute() else build / path


def sources_of(build):
    """{object path (absolute): source path} from Meson's compile_commands.json."""
    db = build / "compile_commands.json"
    if not db.is_file():
        return {}
    out = {}
    for c in json.loads(db.read_text()):
        directory = Path(c["directory"])
        out[os.path.normpath(directory / c["output"])] = os.path.normpath(directory / c["file"])
    return out


def nm_symbols(nm, objects):
    """{object: (defined strong symbols, undefined symbols)}; one nm run for all objects."""
    result = {o: (set(), set()) for o in objects}
    run = subprocess.run([nm, "-P", "-A", *objects], capture_output=True, text=True)
    if run.returncode != 0:
        die(f"{nm} failed:\n{run.stderr}")
    for line in run.stdout.splitlines():
        # POSIX format with -A: "object.o: symbol type [value size]"
        head, _, rest = line.partition(": ")
        fields = rest.split()
        if len(fields) < 2 or head not in result:
            continue
        symbol, kind = fields[0], fields[1]
        if kind == "U":
            result[head][1].add(symbol)
        elif kind in STRONG:
            result[head][0].add(symbol)
    return result


def demangle(symbols):
    """{mangled: readable} through c++filt when there is one (else the names as they are)."""
    symbols = sorted(symbols)
    try:
        run = subprocess.run(["c++filt"], input="\n".join(symbols), capture_output=True, text=True)
        lines = run.stdout.splitlines()
        if run.returncode == 0 and len(lines) == len(symbols):
            return dict(zip(symbols, lines))
    except OSError:
        pass
    return {s: s for s in symbols}


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iterative; the components of more than one node, each sorted."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(edges[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def read_allowed(path):
    """Accepted cycles: one per line, its files (as reported) separated by spaces; # comments."""
    allowed = []
    for line in Path(path).read_text().splitlines():
        files = line.split("#", 1)[0].split()
        if files:
            allowed.append(frozenset(files))
    return allowed


def check_library(build, library, nm, sources, root, allowed):
    """Prints the library's cycles; returns how many no --allow line accepts."""
    objdir = Path(str(library) + ".p")
    # The objects Meson compiles for the library (so a missing one is noticed), else what is there.
    objects = sorted(o for o in sources if o.startswith(str(objdir) + os.sep))
    if not objects:
        objects = sorted(str(p) for p in objdir.rglob("*.o")) if objdir.is_dir() else []
    missing = [o for o in objects if not os.path.isfile(o)]
    if not objects or missing:
        die(f"{library.name} is not built ({missing[0] if missing else 'no objects under ' + str(objdir)})")
    symbols = nm_symbols(nm, objects)

    def name(obj):
        src = sources.get(os.path.normpath(obj))
        if src is None:
            return os.path.relpath(obj, build)
        return os.path.relpath(src, root) if src.startswith(str(root) + os.sep) else src

    names = {o: name(o) for o in objects}
    definers = defaultdict(list)
    for obj, (defined, _) in symbols.items():
        for s in defined:
            definers[s].append(obj)
    edges = {o: defaultdict(set) for o in objects}  # caller -> callee -> symbols
    for obj, (_, undefined) in symbols.items():
        for s in undefined:
            where = definers.get(s)
            if where and len(where) == 1 and where[0] != obj:
                edges[obj][where[0]].add(s)

    cycles = strongly_connected(objects, {o: set(e) for o, e in edges.items()})
    failing = 0
    label = os.path.relpath(library, build)
    if not cycles:
        print(f"{label}: {len(objects)} files, no call cycle")
        return 0
    readable = demangle({s for o in objects for e in edges[o].values() for s in e})
    for component in cycles:
        files = [names[o] for o in component]
        accepted = frozenset(files) in allowed
        failing += not accepted
        print(f"{label}: call cycle of {len(files)} files{' (allowed)' if accepted else ''}: {' '.join(files)}")
        members = set(component)
        for caller in component:
            for callee in sorted(c for c in edges[caller] if c in members):
                syms = sorted(readable[s] for s in edges[caller][callee])
                shown = "; ".join(syms[:SYMBOLS_PER_EDGE])
                more = f" (+{len(syms) - SYMBOLS_PER_EDGE} more)" if len(syms) > SYMBOLS_PER_EDGE else ""
                print(f"  {names[caller]} -> {names[callee]}: {shown}{more}")
    return failing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build", help="a configured and built Meson build directory")
    parser.add_argument(
        "targets",
        nargs="*",
        help="shared libraries, by Meson target name or path (default: "
        + ", ".join(DEFAULT_TARGETS)
        + ", those the build has)",
    )
    parser.add_argument("--allow", metavar="FILE", help="accepted cycles, one per line: their files")
    parser.add_argument("--nm", default=os.environ.get("NM", "nm"), help="binutils nm (default: $NM or nm)")
    args = parser.parse_args()

    build = Path(args.build).resolve()
    if not (build / "meson-info").is_dir():
        die(f"{args.build} is not a Meson build directory")
    targets = meson_targets(build)
    root = Path(__file__).resolve().parent.parent
    wanted = args.targets or [t for t in DEFAULT_TARGETS if t in targets]
    allowed = read_allowed(args.allow) if args.allow else []
    sources = sources_of(build)
    failing = 0
    for target in wanted:
        failing += check_library(build, library_path(build, target, targets), args.nm, sources, root, allowed)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
