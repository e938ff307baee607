#!/usr/bin/env python3
"""Generate encore's HSA / HIP domain declarations from the installed ROCm headers.

Run from anywhere:  python3 tools/gen_domains.py [--check]

The headers are run through the C preprocessor of the installed C++ compiler
(``$CXX -E``, default ``g++``) so that ``#if`` blocks, ``extern "C"`` guards and
macros such as ``HSA_API`` / ``DEPRECATED(...)`` / ``__dparm(x)`` are resolved
exactly as a C++ translation unit of this SDK sees them.  The preprocessed text
is then tokenized and split into top-level declarations by tools/cdecl.py (no
third-party parser; Python standard library only).  Line markers attribute
every declaration to the header it was written in.

Outputs (paths relative to --out, the repository root by default):
  include/encore/domains/hsa_core.hpp          HSA CoreApiTable ops
  include/encore/domains/hsa_amd_ext.hpp       HSA AmdExtTable ops
  include/encore/domains/hsa_image_ext.hpp     HSA ImageExtTable ops
  include/encore/domains/hsa_finalize_ext.hpp  HSA FinalizerExtTable ops
  include/encore/domains/hip_runtime_ops.inc   HIP runtime op list
  include/encore/domains/hsa_enums.hpp         enum_names<> for HSA enums
  include/encore/domains/hip_enums.hpp         enum_names<> for HIP enums
  include/rocprofiler-sdk/hsa/api_id.h         C op-id enums (HSA)
  include/rocprofiler-sdk/hip/runtime_api_id.h C op-id enum (HIP runtime)
  src/sim/exports.cpp                          the software HSA runtime's exported functions
  src/sim/slots.inc                            X-macro list of the HsaApiTable slots (src/sim)
  include/rocprofiler-sdk/{hsa,hip,marker}/api_args.h   per-call argument unions (tools/api_args.py)
  src/core/api_args_check.cpp                  their layout check against encore's captured copies

Op ids are positions and are ABI: see tools/README.md for the ordering rules.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# The C parser and the helpers every generator shares (tools/cdecl.py, next to this file).
from cdecl import (EnumDef, Proto, Slot, banner, c_banner, c_enum, collect_enums,
                   collect_prototypes, die, exported_symbols, info, names_for, parse_table,
                   preprocess, previous_op_order, rel_header, spell, split_declarations, tokenize, warn,
                   write)
import api_args

GENERATOR = "tools/gen_domains.py"
# The reference's HIP runtime op order, and encore's declarations of what ROCm 5.2's HIP lacks.
HIP_ORDER_FILE = "tools/hip_runtime_api_order.txt"
HIP_NEWER_HEADER = "encore/domains/detail/hip_newer_api.h"

HSA_TABLES = [
    # struct, output stem, kind, C-name, enum prefix, description, HsaApiTable member
    ("CoreApiTable", "hsa_core", "hsa_core_api", "HSA_CORE_API", "hsa_core_api",
     "HSA core API: every slot of ROCr's CoreApiTable", "core_"),
    ("AmdExtTable", "hsa_amd_ext", "hsa_amd_ext_api", "HSA_AMD_EXT_API", "hsa_amd_ext_api",
     "HSA AMD extension API: every slot of ROCr's AmdExtTable", "amd_ext_"),
    ("ImageExtTable", "hsa_image_ext", "hsa_image_ext_api", "HSA_IMAGE_EXT_API",
     "hsa_image_ext_api", "HSA image extension API: every slot of ROCr's ImageExtTable", "image_ext_"),
    ("FinalizerExtTable", "hsa_finalize_ext", "hsa_finalize_ext_api", "HSA_FINALIZE_EXT_API",
     "hsa_finalize_ext_api", "HSA finalizer extension API: every slot of ROCr's FinalizerExtTable",
     "finalizer_ext_"),
]

HSA_PROTO_HEADERS = ["hsa.h", "hsa_ext_amd.h", "hsa_ext_image.h", "hsa_ext_finalize.h",
                     "hsa_api_trace.h"]
HSA_ENUM_HEADERS = ["hsa.h", "hsa_ext_amd.h", "hsa_ext_image.h", "hsa_ext_finalize.h"]


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------


def enum_header(enums: list[EnumDef], out_rel: str, sources: list[str], include: str,
                what: str, roots: list[Path]) -> str:
    s = banner(GENERATOR, out_rel, sources, [
        f"enum_names<> for every named {what} enum type (typedef name or enum tag), in header order.",
        "Aliased enumerators are kept; when printing a value the first match wins."])
    s += "#pragma once\n#include <encore/api/enum_names.hpp>\n"
    s += f"#include <{include}>\n\n#include <utility>\n"
    for e in enums:
        q = f"{e.type_name}::" if e.scoped else ""
        s += f"\n// {rel_header(e.file, roots)}:{e.line}\n"
        s += f"template <> struct encore::api::enum_names<{e.type_name}> {{\n"
        s += f"    static constexpr std::pair<{e.type_name}, const char*> values[] = {{\n"
        for n in e.enumerators:
            s += f'        {{{q}{n}, "{n}"}},\n'
        s += "    };\n};\n"
    return s


# --------------------------------------------------------------------------
# the software HSA runtime's exports (src/sim)
# --------------------------------------------------------------------------

# hsa.h still declares the pre-1.1 names of the memory-ordered signal and queue functions
# (hsa_signal_load_acquire, ...). They have no slot: ROCr exports them as the renamed
# function's slot, and so does the software runtime. HSA_DEPRECATED, which marks them in the
# header, expands to nothing, so they are found by name: a declared function that is not a
# slot while its renamed twin is.
_OLD_ORDER_SUFFIXES = [("_acq_rel", "_scacq_screl"), ("_acquire", "_scacquire"),
                       ("_release", "_screlease")]


def _renamed_slot(name: str, slots: set[str]) -> str | None:
    for old, new in _OLD_ORDER_SUFFIXES:
        if name.endswith(old) and name[: -len(old)] + new in slots:
            return name[: -len(old)] + new
    return None


def sim_files(hsa_slots: dict[str, list[Slot]], protos: dict[str, Proto],
              slot_names: dict[str, list[str]], hsa_root: Path) -> dict[str, str]:
    """src/sim/exports.cpp and src/sim/slots.inc: one exported function per table slot (and
    per pre-1.1 alias) that calls through the runtime's HsaApiTable at every call, so a tool
    that replaced the slot in OnLoad sees the program's calls; and the X-macro list of the
    slots, with which the runtime fills and names them."""
    member_of = {struct: member for struct, *_, member in HSA_TABLES}
    slot_of: dict[str, tuple[str, str]] = {}  # function -> (HsaApiTable member, slot function)
    for struct, slots in hsa_slots.items():
        for s in slots:
            slot_of[s.function] = (member_of[struct], s.function)
    slot_functions = set(slot_of)
    aliases = []
    for name in protos:  # header order
        target = None if name in slot_functions else _renamed_slot(name, slot_functions)
        if target is not None:
            slot_of[name] = slot_of[target]
            aliases.append(name)

    sources = ["hsa/hsa_api_trace.h"]
    c_defs: list[str] = []
    cxx_defs: list[str] = []
    for name in [*(s.function for slots in hsa_slots.values() for s in slots), *aliases]:
        p = protos[name]
        if p.variadic:
            die(f"src/sim: {name} is variadic: it cannot forward its arguments")
        src = rel_header(p.file, [hsa_root])
        if src not in sources:
            sources.append(src)
        # a slot's parameters have the names its op has (names_for warned about unnamed ones)
        names = slot_names[name] if name in slot_names else names_for(p, "src/sim")
        params = ", ".join(q.declaration(n) for q, n in zip(p.params, names)) or "void"
        member, target = slot_of[name]
        call = f"encore::sim::api_table().{member}->{target}_fn({', '.join(names)});"
        body = f"  {'return ' if p.ret != 'void' else ''}{call}\n}}\n"
        if p.c_linkage:
            c_defs.append(f"ENCORE_SIM_EXPORT {p.ret} {name}({params}) {{\n{body}")
            continue
        # A C++-linkage declaration (hsa_api_trace.h's queue-intercept functions): defined
        # to match it (the mangled symbol, for C++ programs including that header), plus a
        # C-linkage twin under the plain name for programs that declare it themselves in C.
        twin = f"ENCORE_SIM_EXPORT {p.ret} {name}_c_linkage({params})"
        c_defs.append(f'{twin} __asm__("{name}");\n{twin} {{\n{body}')
        cxx_defs.append(f"ENCORE_SIM_EXPORT {p.ret} {name}({params}) {{\n{body}")

    exports = banner(GENERATOR, "src/sim/exports.cpp", sources, [
        "The software HSA runtime's exported functions: one per HsaApiTable slot, and the pre-1.1",
        "names of the memory-ordered functions (forwarding to the renamed function's slot).",
        "Every exported entry point reads its table slot at each call (tools may replace slots)."])
    exports += '#include "sim_internal.hpp"\n\nextern "C" {\n'
    exports += "\n".join(c_defs)
    exports += '\n}  // extern "C"\n\n'
    exports += "// <hsa/hsa_api_trace.h> declares these with C++ linkage; define them to match.\n"
    exports += "\n".join(cxx_defs)

    slots_inc = banner(GENERATOR, "src/sim/slots.inc", ["hsa/hsa_api_trace.h"], [
        "X(table_member, TableType, function_name) for every HsaApiTable slot."])
    slots_inc += "#define ENCORE_SIM_API_SLOTS(X) \\\n"
    for struct, slots in hsa_slots.items():
        slots_inc += "".join(f"  X({member_of[struct]}, {struct}, {s.function}) \\\n" for s in slots)
    slots_inc += "\n"
    info(f"src/sim: {len(slot_of) - len(aliases)} slot exports, {len(aliases)} pre-1.1 aliases")
    return {"src/sim/exports.cpp": exports, "src/sim/slots.inc": slots_inc}


def _hsa_trace_typedefs(decls, in_trace_header, members) -> list[str]:
    """The typedefs of hsa_api_trace.h (a C++-only header) that parameter types use, and those
    they use, in header order: the C args header declares them itself (a repeated identical
    typedef is valid C11 and C++)."""
    found = []  # (name, words, text)
    for d in decls:
        words = [t.text for t in d.toks]
        if not words or words[0] != "typedef" or not in_trace_header(d.file):
            continue
        # the declared name: in 'typedef R (*name)(...)' the identifier after '(' '*'
        name = next((words[i + 2] for i in range(len(words) - 2)
                     if words[i] == "(" and words[i + 1] == "*"), words[-2])
        found.append((name, set(words), spell(d.toks).replace("(* ", "(*").replace(" ;", ";")))
    used = {w for m in members for d in m.decls for w in re.findall(r"\w+", d)}
    grew = True
    while grew:
        grew = False
        for name, words, _ in found:
            if name in used and not (words - {name}) <= used:
                used |= words - {name}
                grew = True
    return [text for name, _, text in found if name in used]


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def main() -> int:
    repo = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hsa-include", default="/usr/include/hsa", type=Path,
                    help="directory holding hsa.h, hsa_api_trace.h, ... (default %(default)s)")
    ap.add_argument("--hip-include", default="/usr/include", type=Path,
                    help="directory holding hip/hip_runtime_api.h (default %(default)s)")
    ap.add_argument("--hip-lib", default="/usr/lib/x86_64-linux-gnu/libamdhip64.so.5", type=Path,
                    help="HIP runtime library whose exports are intersected (default %(default)s)")
    ap.add_argument("--out", default=repo, type=Path, help="repository root to write into")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"),
                    help="C++ compiler used as preprocessor (default $CXX or g++)")
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"), help="C compiler for --check")
    ap.add_argument("--nm", default="nm", help="nm used to list the library's exports")
    ap.add_argument("--fresh-hip-order", action="store_true",
                    help="ignore the existing hip_runtime_ops.inc and order HIP ops by header "
                         "declaration order (CHANGES OP IDS; only for a new baseline)")
    ap.add_argument("--check", action="store_true",
                    help="compile-check the generated files afterwards")
    args = ap.parse_args()
    cxx = args.cxx.split()
    out_root: Path = args.out
    written: list[str] = []

    # ---------------------------------------------------------------- HSA
    hsa_dir: Path = args.hsa_include
    hsa_root = hsa_dir.parent
    if not (hsa_dir / "hsa_api_trace.h").exists():
        die(f"{hsa_dir}/hsa_api_trace.h not found (set --hsa-include)")
    hsa_src = "#define AMD_INTERNAL_BUILD\n#include <hsa/hsa_api_trace.h>\n"
    hsa_flags = [f"-I{hsa_root}", f"-I{hsa_dir}"]
    hsa_decls = split_declarations(tokenize(preprocess(cxx, hsa_src, hsa_flags)))

    def hsa_file(name: str):
        target = (hsa_dir / name).resolve()
        return lambda f: Path(f).resolve() == target

    proto_by_name: dict[str, Proto] = {}
    for hdr in HSA_PROTO_HEADERS:
        for p in collect_prototypes(hsa_decls, hsa_file(hdr)):
            prev = proto_by_name.get(p.name)
            if prev is None:
                proto_by_name[p.name] = p
            elif [x.name for x in prev.params] != [x.name for x in p.params] and \
                    all(x.name for x in p.params) and not all(x.name for x in prev.params):
                proto_by_name[p.name] = p  # a later redeclaration names the parameters

    hsa_ids: dict[str, list[str]] = {}
    hsa_counts: dict[str, int] = {}
    hsa_slots: dict[str, list[Slot]] = {}
    slot_names: dict[str, list[str]] = {}  # function -> parameter names (the op's)
    hsa_members: list[api_args.Member] = []
    for struct, stem, kind, cname, _, desc, _ in HSA_TABLES:
        slots = parse_table(hsa_decls, struct)
        hsa_slots[struct] = slots
        hsa_counts[struct] = len(slots)
        lines = []
        sources = ["hsa/hsa_api_trace.h"]
        for s in slots:
            p = proto_by_name.get(s.function)
            if p is None:
                die(f"{struct}: no prototype found for {s.function}")
            src = rel_header(p.file, [hsa_root])
            if src not in sources:
                sources.append(src)
            if p.variadic:
                warn(f"{struct}: {s.function} is variadic")
            names = api_args.reference_names(s.function, names_for(p, struct))
            slot_names[s.function] = names
            hsa_members.append(api_args.member_of(s.function, p.params, names, struct,
                                                  [(stem, len(lines))]))  # op id: slot position
            pn = "".join(f', "{n}"' for n in names)
            lines.append(f'    api::op<"{s.function}", &::{struct}::{s.member}{pn}>')
        out_rel = f"include/encore/domains/{stem}.hpp"
        text = banner(GENERATOR, out_rel, sources, [
            "Op ids are table positions (ABI, append-only): they follow the runtime's table order;",
            "a newer ROCr with more slots appends ops at the end."])
        text += "#pragma once\n#include <encore/api/domain.hpp>\n"
        text += "#include <encore/domains/detail/hsa_table.hpp>\n\n"
        text += "namespace encore::domains {\n"
        text += f"/// {desc}, in table order (op id = position).\n"
        text += f'struct {stem} : api::domain<"{cname}", kind::{kind}, ::{struct},\n'
        text += ",\n".join(lines) + "> {};\n"
        text += "}  // namespace encore::domains\n"
        write(out_root, out_rel, text, written)
        hsa_ids[struct] = [s.function for s in slots]
    info("HSA slots: " + ", ".join(f"{k} {v}" for k, v in hsa_counts.items()))

    # HSA C ids
    rel = "include/rocprofiler-sdk/hsa/api_id.h"
    text = c_banner(GENERATOR, rel, ["hsa/hsa_api_trace.h"], [
        "Op ids of the HSA API tracing domains: position of the slot in ROCr's API table",
        "(CoreApiTable, AmdExtTable, ImageExtTable, FinalizerExtTable). Append-only."])
    text += "#pragma once\n"
    for struct, stem, _, cname, tag, _, _ in HSA_TABLES:
        text += "\n" + c_enum(f"rocprofiler_{tag}_id_t", f"ROCPROFILER_{cname}_ID", hsa_ids[struct])
    write(out_root, rel, text, written)

    # HSA enums
    hsa_enum_files = {(hsa_dir / h).resolve() for h in HSA_ENUM_HEADERS}
    hsa_enums = collect_enums(hsa_decls, lambda f: Path(f).resolve() in hsa_enum_files)
    rel = "include/encore/domains/hsa_enums.hpp"
    write(out_root, rel, enum_header(hsa_enums, rel, [f"hsa/{h}" for h in HSA_ENUM_HEADERS],
                                     "encore/domains/detail/hsa_table.hpp", "HSA", [hsa_root]),
          written)
    info(f"HSA enum types: {len(hsa_enums)}")

    # The software HSA runtime's exports, from the same slots and prototypes
    for rel, text in sim_files(hsa_slots, proto_by_name, slot_names, hsa_root).items():
        write(out_root, rel, text, written)

    # ---------------------------------------------------------------- HIP
    hip_root: Path = args.hip_include
    hip_dir = hip_root / "hip"
    if not (hip_dir / "hip_runtime_api.h").exists():
        die(f"{hip_dir}/hip_runtime_api.h not found (set --hip-include)")
    # hip_ext.h declares the hipExt*/hipHcc* launches the reference lists; the newer-API header
    # declares what the reference lists and this HIP lacks (see the header).
    # (hip_ext.h last: it pulls in hip_runtime.h, whose C++ the declaration splitter reads less
    # well than the C headers before it.)
    hip_src = ("#include <hip/hip_runtime_api.h>\n"
               f"#include <{HIP_NEWER_HEADER}>\n#include <hip/hip_ext.h>\n")
    hip_flags = ["-D__HIP_PLATFORM_AMD__", f"-I{hip_root}", f"-I{repo / 'include'}"]
    hip_decls = split_declarations(tokenize(preprocess(cxx, hip_src, hip_flags)))
    hip_dir_res = hip_dir.resolve()
    newer_res = (repo / "include" / HIP_NEWER_HEADER).resolve()

    def in_hip(f: str) -> bool:
        if Path(f).resolve() == newer_res:
            return True
        try:
            Path(f).resolve().relative_to(hip_dir_res)
            return True
        except ValueError:
            return False

    reference_order = [ln.strip() for ln in (repo / HIP_ORDER_FILE).read_text().splitlines()
                       if ln.strip() and not ln.startswith("#")]
    in_reference = set(reference_order)

    hip_protos = collect_prototypes(hip_decls, in_hip)
    exports = exported_symbols(args.hip_lib, args.nm)

    header_fns: dict[str, Proto] = {}
    skipped: list[tuple[str, str]] = []
    cxx_linkage: list[Proto] = []
    for p in hip_protos:
        # C++ linkage is skipped, except where the reference lists the function: ROCm 5.2's
        # hip_ext.h declares hipExtModuleLaunchKernel / hipHccModuleLaunchKernel as C++
        # functions (mangled symbols, which libencore-hip's C exports do not interpose).
        if not p.global_scope or (not p.c_linkage and p.name not in in_reference):
            cxx_linkage.append(p)
            continue
        if p.name in header_fns:
            if header_fns[p.name].signature != p.signature:
                warn(f"{p.name}: conflicting C declarations ({header_fns[p.name].signature} vs {p.signature})")
            continue
        header_fns[p.name] = p
    for p in cxx_linkage:
        if p.name not in header_fns and p.name not in {n for n, _ in skipped}:
            why = "C++ linkage" if p.global_scope else "declared in a namespace"
            skipped.append((p.name, f"{why} ({rel_header(p.file, [hip_root])}:{p.line})"))
    # The reference's operations come first, in its order (its ids are ABI for tools): every one
    # must be declared, by this HIP or by the newer-API header, exported by the library or not.
    # After them, encore's own: functions this HIP declares and its library exports that the
    # reference does not list, in their previous order (new ones appended).
    hip_ops: list[Proto] = []
    for name, p in header_fns.items():
        if p.variadic:
            skipped.append((name, "variadic"))
        elif name not in in_reference and not name.startswith(("hip", "__hip")):
            skipped.append((name, "not a HIP function (declared by a header hip_ext.h pulls in)"))
        elif name not in exports and name not in in_reference:
            skipped.append((name, "declared but not exported by " + args.hip_lib.name
                            + (" (deprecated)" if p.deprecated else "")))
        else:
            hip_ops.append(p)

    inc_rel = "include/encore/domains/hip_runtime_ops.inc"
    prev_order = [] if args.fresh_hip_order else previous_op_order(out_root / inc_rel)
    by_name = {p.name: p for p in hip_ops}
    ordered: list[Proto] = []
    for n in reference_order:
        if n not in by_name:
            die(f"{HIP_ORDER_FILE}: {n} is declared neither by {hip_dir} nor by {HIP_NEWER_HEADER}")
        ordered.append(by_name.pop(n))
    n_reference = len(ordered)
    for n in prev_order:
        if n in by_name:
            ordered.append(by_name.pop(n))
        elif n not in in_reference:
            warn(f"HIP op {n} (id {prev_order.index(n)}) is gone from the headers/library: "
                 "later op ids shift")
    appended = [p for p in hip_ops if p.name in by_name]
    if prev_order and appended:
        info("HIP ops appended: " + ", ".join(p.name for p in appended))
    ordered.extend(appended)

    hip_sources = sorted({rel_header(p.file, [hip_root, repo / "include"]) for p in ordered},
                         key=lambda s: (s != "hip/hip_runtime_api.h", s))
    lines = []
    hip_names: dict[str, list[str]] = {}
    for p in ordered:
        names = api_args.reference_names(p.name, names_for(p, "HIP"))
        hip_names[p.name] = names
        pn = "".join(f', "{n}"' for n in names)
        lines.append(f'    api::fn<"{p.name}", {p.signature}{pn}>')
    text = banner(GENERATOR, inc_rel, hip_sources, [
        "HIP runtime op list. Op ids are positions and ABI. Ids 0.." + str(n_reference - 1) + " are the",
        f"reference's, in its order ({HIP_ORDER_FILE}), whether or not {args.hip_lib.name}",
        f"exports them (those ROCm 5.2 lacks are declared by {HIP_NEWER_HEADER}).",
        "After them, functions hip/hip_runtime_api.h and hip/hip_ext.h declare (C linkage, compiled",
        f"as C++ with -D__HIP_PLATFORM_AMD__) and {args.hip_lib.name} exports that the reference does",
        "not list; new ones are appended.",
        "Included by include/encore/domains/hip_runtime.hpp inside the api::domain<...> argument list."])
    text += ",\n".join(lines) + "\n"
    write(out_root, inc_rel, text, written)

    rel = "include/rocprofiler-sdk/hip/runtime_api_id.h"
    text = c_banner(GENERATOR, rel, hip_sources, [
        "Op ids of the HIP runtime API tracing domain (same order as",
        "include/encore/domains/hip_runtime_ops.inc). Ids 0.." + str(n_reference - 1) + " have the reference's",
        "names and values (all of its table steps declared); encore's own ids follow."])
    text += "#pragma once\n\n" + c_enum("rocprofiler_hip_runtime_api_id_t",
                                       "ROCPROFILER_HIP_RUNTIME_API_ID",
                                       [p.name for p in ordered])
    write(out_root, rel, text, written)

    # Enum names from what the domain's own include (encore/domains/detail/hip_api.hpp) reads:
    # not the headers only hip_ext.h pulls in.
    hip_api_decls = split_declarations(tokenize(preprocess(
        cxx, f"#include <hip/hip_runtime_api.h>\n#include <{HIP_NEWER_HEADER}>\n", hip_flags)))
    hip_enums = collect_enums(hip_api_decls, in_hip)
    rel = "include/encore/domains/hip_enums.hpp"
    enum_sources = sorted({rel_header(e.file, [hip_root]) for e in hip_enums},
                          key=lambda s: (s != "hip/hip_runtime_api.h", s))
    write(out_root, rel, enum_header(hip_enums, rel, enum_sources,
                                     "encore/domains/detail/hip_api.hpp", "HIP", [hip_root]),
          written)

    # ---------------------------------------------------------------- payload unions
    # (tools/api_args.py) from the same prototypes and names as the domains above; the HIP
    # compiler and marker domains are hand-written, so their own spelled signatures are read.
    dom_dir = out_root / "include/encore/domains"
    hsa_typedefs = _hsa_trace_typedefs(hsa_decls, hsa_file("hsa_api_trace.h"), hsa_members)
    hip_members = api_args.symbol_domain_members(dom_dir / "hip_compiler.hpp")
    by_member = {m.name: m for m in hip_members}
    for i, p in enumerate(ordered):
        m = api_args.member_of(p.name, p.params, hip_names[p.name], "HIP_RUNTIME_API",
                               [("hip_runtime", i)])
        prev = by_member.get(p.name)
        if prev is None:
            hip_members.append(m)
        elif prev.decls != m.decls or prev.fields != m.fields:
            die(f"{p.name}: the HIP compiler and runtime domains declare different parameters")
        else:
            prev.checks.append(("hip_runtime", i))  # one member, both domains checked
    # Declared by the headers but not traced (not exported by the library, or C++ linkage): no
    # record carries them, but a tool that names them (a switch over every op) still compiles.
    untraced = [p for p in [*header_fns.values(), *cxx_linkage]
                if p.name not in by_member and p.name not in hip_names and p.global_scope
                and not p.variadic and p.name.startswith("hip")]
    for p in sorted({p.name: p for p in untraced}.values(), key=lambda p: p.name):
        hip_members.append(api_args.member_of(
            p.name, p.params, api_args.reference_names(p.name, names_for(p, "HIP")),
            "declared by the HIP headers, not traced (no record fills these)", []))
    marker_members = api_args.symbol_domain_members(dom_dir / "marker.hpp")
    note = ["HSA functions the reference declares that this build's headers do not have no member",
            "(docs/arguments.md lists them). Every HIP function of the reference's list has one:",
            "those ROCm 5.2 lacks are declared by encore/domains/detail/hip_newer_api.h."]
    areas = [("hsa", hsa_members, ["hsa/hsa.h", "hsa/hsa_ext_amd.h", "hsa/hsa_ext_image.h",
                                   "hsa/hsa_ext_finalize.h", "hsa/hsa_api_trace.h"], hsa_typedefs),
             ("hip", hip_members, [*hip_sources, "include/encore/domains/hip_compiler.hpp"], []),
             ("marker", marker_members, ["include/encore/domains/marker.hpp"], [])]
    for area, members, sources, typedefs in areas:
        write(out_root, f"include/rocprofiler-sdk/{area}/api_args.h",
              api_args.header(area, members, sources, typedefs, note), written)
    text, n_ops, n_args = api_args.check_tu(
        [(a, m) for a, m, *_ in areas],
        ["encore/domains/hsa.hpp", "encore/domains/hip.hpp", "encore/domains/marker.hpp"])
    write(out_root, "src/core/api_args_check.cpp", text, written)
    info(f"api_args: {sum(len(m) for _, m, *_ in areas)} members, {n_ops} ops and {n_args} "
         "parameters checked")

    c_exported = sum(1 for n in header_fns if n in exports)
    info(f"HIP: {len(header_fns)} C-linkage functions declared, "
         f"{sum(1 for e in exports if e.startswith(('hip', '__hip')))} hip* symbols exported "
         f"({len(exports)} T symbols), intersection {c_exported}, ops {len(ordered)}")
    info(f"HIP enum types: {len(hip_enums)}")
    for name, why in skipped:
        info(f"HIP skipped {name}: {why}")
    op_names = {p.name for p in ordered}
    undeclared = sorted(e for e in exports if e not in op_names)
    if undeclared:
        info("exported by " + args.hip_lib.name + " but not a C function of hip_runtime_api.h: "
             + ", ".join(undeclared))
    deprecated_ops = [p.name for p in ordered if p.deprecated]
    if deprecated_ops:
        info("HIP ops that are deprecated (taking their address warns): " + ", ".join(deprecated_ops))

    if args.check:
        ok = run_checks(out_root, cxx, args.cc.split(), hsa_root, hip_root, hsa_counts, ordered)
        return 0 if ok else 1
    return 0


# --------------------------------------------------------------------------
# --check
# --------------------------------------------------------------------------

_STANDINS = {
    "encore/api/enum_names.hpp":
        "#pragma once\n#include <utility>\nnamespace encore::api { template <class E> struct enum_names; }\n",
    "encore/domains/detail/hsa_table.hpp":
        "#pragma once\n#define AMD_INTERNAL_BUILD\n#include <hsa/hsa_api_trace.h>\n#include <hsa/hsa_ven_amd_loader.h>\n",
    "encore/domains/detail/hip_api.hpp":
        "#pragma once\n#ifndef __HIP_PLATFORM_AMD__\n#define __HIP_PLATFORM_AMD__\n#endif\n#include <hip/hip_runtime_api.h>\n"
        f"#include <{HIP_NEWER_HEADER}>\n",
}


def _compile(cmd: list[str], src: str, suffix: str, what: str) -> bool:
    with tempfile.TemporaryDirectory(prefix="gen_domains_check_") as tmp:
        f = Path(tmp) / f"check{suffix}"
        f.write_text(src)
        res = subprocess.run([*cmd, str(f)], capture_output=True, text=True)
        errors = res.stderr.count("error:")
        warns = res.stderr.count("warning:")
        status = "OK" if res.returncode == 0 else "FAILED"
        info(f"check {what}: {status} ({errors} errors, {warns} warnings)")
        if res.returncode != 0:
            print(res.stderr[:20000], file=sys.stderr)
        return res.returncode == 0


def run_checks(out_root: Path, cxx: list[str], cc: list[str], hsa_root: Path, hip_root: Path,
               hsa_counts: dict[str, int], hip_ops: list[Proto]) -> bool:
    inc = out_root / "include"
    ok = True
    with tempfile.TemporaryDirectory(prefix="gen_domains_standins_") as tmp:
        for rel, text in _STANDINS.items():
            if not (inc / rel).exists():
                p = Path(tmp) / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
        incs = [f"-I{inc}", f"-I{tmp}", f"-I{hsa_root}", f"-I{hip_root}"]
        cxx_cmd = [*cxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra",
                   "-DAMD_INTERNAL_BUILD", "-D__HIP_PLATFORM_AMD__", *incs]

        # 1. every HIP signature names a declared overload
        src = ("#include <hip/hip_runtime_api.h>\n"
               f"#include <{HIP_NEWER_HEADER}>\n#include <hip/hip_ext.h>\n#include <type_traits>\n")
        src += "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n"
        for p in hip_ops:
            src += (f"[[maybe_unused]] static auto* const p_{p.name} = "
                    f"static_cast<std::type_identity_t<{p.signature}>*>(&::{p.name});\n")
        ok &= _compile(cxx_cmd, src, ".cpp", f"HIP signatures ({len(hip_ops)})")

        # 2. C op-id and args headers are C11
        for rel in ("rocprofiler-sdk/hsa/api_id.h", "rocprofiler-sdk/hip/runtime_api_id.h",
                    "rocprofiler-sdk/hsa/api_args.h", "rocprofiler-sdk/hip/api_args.h",
                    "rocprofiler-sdk/marker/api_args.h"):
            src = f"#include <{rel}>\n#include <{rel}>\nint main(void) {{ return 0; }}\n"
            ok &= _compile([*cc, "-std=c11", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic",
                            "-Werror", f"-I{inc}", f"-I{hsa_root}", f"-I{hip_root}"], src, ".c", rel)

        # 3. enum name tables
        src = "#include <encore/api/enum_names.hpp>\n"
        src += "#include <encore/domains/hsa_enums.hpp>\n#include <encore/domains/hip_enums.hpp>\n"
        src += "static_assert(sizeof(encore::api::enum_names<hsa_status_t>::values) > 0);\n"
        src += "static_assert(sizeof(encore::api::enum_names<hipError_t>::values) > 0);\n"
        ok &= _compile([*cxx_cmd, "-Werror"], src, ".cpp", "enum name tables")

        # 4. domain headers, once the API machinery exists
        if (inc / "encore/api/domain.hpp").exists():
            src = ""
            for struct, stem, *_ in HSA_TABLES:
                src += f"#include <encore/domains/{stem}.hpp>\n"
            hip_name = "hip_runtime"
            if (inc / "encore/domains/hip_runtime.hpp").exists():
                src += "#include <encore/domains/hip_runtime.hpp>\n"
            else:  # the lead's wrapper is not there yet: use the same shape
                hip_name = "hip_runtime_check"
                src += ("#include <encore/domains/detail/hip_api.hpp>\n"
                        "namespace encore::domains {\n"
                        "struct hip_runtime_check : api::domain<\"HIP_RUNTIME_API\", "
                        "kind::hip_runtime_api, api::no_table,\n"
                        "#include <encore/domains/hip_runtime_ops.inc>\n"
                        "> {};\n}\n")
            for struct, stem, *_ in HSA_TABLES:
                src += f"static_assert(encore::domains::{stem}::size == {hsa_counts[struct]});\n"
            src += f"static_assert(encore::domains::{hip_name}::size == {len(hip_ops)});\n"
            ok &= _compile(cxx_cmd, src, ".cpp", "domain headers")
        else:
            info("check domain headers: skipped (include/encore/api/domain.hpp not present yet)")
    return ok


if __name__ == "__main__":
    sys.exit(main())
