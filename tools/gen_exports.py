#!/usr/bin/env python3
"""gen_exports.py — the exported C functions of a symbol domain, generated at build time.

A library that interposes (HIP) or implements (roctx) the functions of an `api::fn<...>` domain
must export each under its C name with its exact C signature. C++ cannot spell a symbol name
from a template argument, so this script reads the domain declarations (the same files the
compiler reads) and writes, per operation,

    extern "C" ENCORE_EXPORT ret_t<D, I> NAME(arg_t<D, I, 0> a0, ...) {
        return encore::exports::forward<D, I>(a0, ...);
    }

The types are not spelled here: ret_t/arg_t read them from the declaration, so the definition
has exactly the declared signature (a mismatch with a header's prototype does not compile).
The prelude header (--prelude) defines forward<D, I> for the library.

An op without a prototype in the build (`api::unavailable<"name">`, or the `#else` side of a
guarded op) is exported as ENCORE_EXPORT_UNAVAILABLE(D, I, NAME) (src/backend/exports.hpp): a jump
through the library's table of real functions, untraced; a guarded op gets both under its #if.

Stages:
  1. parse    find `struct NAME : api::domain<` blocks in each header; inside, each
              `api::fn<"name", Sig, "param"...>` entry (following `#include <...ops.inc>` lines)
              gives a name and an arity (the number of parameter-name strings); an
              `api::unavailable<"name">` entry (no prototype in this build) a name only; ops
              under `#if COND` with their `#else` placeholders keep COND
  2. select   drop the operations listed with --skip DOMAIN:NAME
  3. write    split the operations over --parts files (they compile in parallel)

usage: gen_exports.py --include DIR --prelude HEADER --domain NAME [--domain NAME...]
                      [--skip DOMAIN:OP...] --out FILE [--out FILE...] HEADER...
"""
import argparse
import os
import re
import sys

STRUCT_RE = re.compile(r"struct\s+(\w+)\s*:\s*api::domain<")
INCLUDE_RE = re.compile(r"#\s*include\s*<([^>]+\.inc)>")


def read_entries(text, include_dir):
    """Returns the text of a domain's op list with its #include'd .inc files spliced in."""
    return INCLUDE_RE.sub(lambda m: open(os.path.join(include_dir, m.group(1))).read(), text)


ENTRY_RE = re.compile(r"api::(fn|unavailable)<|^[ \t]*#[ \t]*(if|else|endif)\b(.*)$", re.M)


def entries(body):
    """Yields ("fn" | "unavailable", text inside its <...>) and ("if", condition), ("else", ""),
    ("endif", "") for the op list's preprocessor lines, in order (strings and nesting respected)."""
    at = 0
    while True:
        m = ENTRY_RE.search(body, at)
        if m is None:
            return
        if m.group(2):
            yield m.group(2), m.group(3).strip()
            at = m.end()
            continue
        i = m.end()
        depth, in_str = 1, False
        while i < len(body) and depth > 0:
            c = body[i]
            if in_str:
                if c == "\\":
                    i += 1
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
            i += 1
        yield m.group(1), body[m.end():i - 1]
        at = i


def parse(path, include_dir):
    """{domain struct name: [(op name, arity or None, condition or None), ...]} for one header.
    arity None: an api::unavailable op (no prototype). A guarded op (`#if COND` api::fn ...
    `#else` api::unavailable ... `#endif`, as tools/gen_cuda_domain.py writes) is one op whose
    condition is COND; the `#else` branch must name the same ops in the same order."""
    text = open(path).read()
    out = {}
    matches = list(STRUCT_RE.finditer(text))
    for n, m in enumerate(matches):
        end = matches[n + 1].start() if n + 1 < len(matches) else len(text)
        block = text[m.end():end]
        close = block.find("> {};")
        if close >= 0:
            block = block[:close]
        ops, cond, alt = [], None, None
        for what, entry in entries(read_entries(block, include_dir)):
            if what == "if":
                if cond is not None:
                    sys.exit(f"gen_exports: {path}: nested #if in an op list")
                cond, alt, first = entry, None, len(ops)
                continue
            if what == "else":
                alt = []
                continue
            if what == "endif":
                if alt is None or [o[0] for o in ops[first:]] != alt:
                    sys.exit(f"gen_exports: {path}: #if {cond}: the #else branch must list the same ops "
                             "as api::unavailable<\"name\">, in the same order")
                cond, alt = None, None
                continue
            strings = re.findall(r'"((?:[^"\\]|\\.)*)"', entry)
            if not strings:
                sys.exit(f"gen_exports: {path}: an api::{what} entry without a name: {entry[:60]}")
            if alt is not None:
                if what != "unavailable":
                    sys.exit(f"gen_exports: {path}: #else {strings[0]}: only api::unavailable ops in an #else branch")
                alt.append(strings[0])
            elif what == "unavailable":
                ops.append((strings[0], None, None))
            else:
                ops.append((strings[0], len(strings) - 1, cond))
        if cond is not None:
            sys.exit(f"gen_exports: {path}: #if {cond} without #endif")
        out[m.group(1)] = ops
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include", required=True, help="include directory (for #include <...inc>)")
    ap.add_argument("--prelude", required=True, help="header that defines encore::exports::forward")
    ap.add_argument("--domain", action="append", required=True, help="domain struct to export")
    ap.add_argument("--skip", action="append", default=[], help="DOMAIN:OP not to export")
    ap.add_argument("--out", action="append", required=True, help="output .cpp (one per part)")
    ap.add_argument("headers", nargs="+")
    a = ap.parse_args()

    # 1. parse
    domains = {}
    for h in a.headers:
        domains.update(parse(h, a.include))
    # 2. select
    skip = {tuple(s.split(":", 1)) for s in a.skip}
    ops = []
    for d in a.domain:
        if d not in domains:
            sys.exit(f"gen_exports: no domain {d} in {' '.join(a.headers)}")
        for i, (name, arity, cond) in enumerate(domains[d]):
            if (d, name) not in skip:
                ops.append((d, i, name, arity, cond))
    # 3. write
    parts = len(a.out)
    per = (len(ops) + parts - 1) // parts
    for p, path in enumerate(a.out):
        chunk = ops[p * per:(p + 1) * per]
        lines = [
            f"// generated by tools/gen_exports.py (part {p + 1} of {parts}); do not edit",
            f'#include "{os.path.abspath(a.prelude)}"',
            "",
            "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"",
            "",
        ]
        for d, i, name, arity, cond in chunk:
            D = f"encore::domains::{d}"
            lines.append(f'static_assert({D}::names[{i}] == "{name}", "gen_exports: stale op list");')
            if cond is not None:
                lines.append(f"#if {cond}")
            if arity is not None:
                params = ", ".join(f"encore::exports::arg_t<{D}, {i}, {j}> a{j}" for j in range(arity))
                args = ", ".join(f"a{j}" for j in range(arity))
                lines.append(f"extern \"C\" ENCORE_EXPORT encore::exports::ret_t<{D}, {i}> {name}({params}) {{")
                lines.append(f"    return encore::exports::forward<{D}, {i}>({args});")
                lines.append("}")
            if cond is not None:
                lines.append("#else")
            if arity is None or cond is not None:
                lines.append(f"ENCORE_EXPORT_UNAVAILABLE({D}, {i}, {name});")
            if cond is not None:
                lines.append("#endif")
        text = "\n".join(lines) + "\n"
        if not os.path.exists(path) or open(path).read() != text:
            with open(path, "w") as f:
                f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
