"""api_args.py — the C payload unions of the API kinds, and the C++ check that they alias
encore's captured arguments.

A module of tools/gen_domains.py (Python standard library only). Tools written for
rocprofiler-sdk read a call's arguments by member: `data->args.hipMalloc.size`. The C++ side
stores each call's arguments as `encore::api::captured_args<Op>` (include/encore/api/op.hpp): a
C struct of the parameters, in order. The headers written here declare, per operation, a struct
member named like the function whose fields are its parameters, so the two are one layout.

Stages (each labelled where it happens below):
  1. members   one Member per function: the field declarations (from the same parsed
               prototypes and parameter names the domains are generated from; for the
               hand-written symbol domains, from their spelled signatures) and the
               (domain, op id) pairs whose captured_args it must equal
  2. headers   rocprofiler-sdk/{hsa,hip,marker}/api_args.h: the no-args struct, the retval
               union, the args union (every Member, then `encore_raw`), C11 and C++
  3. check     src/core/api_args_check.cpp: per operation and parameter, static_asserts that
               the union member's field has the captured field's offset and type, and the
               struct the captured copy's size; a drift fails the build of libencore
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from cdecl import Param, banner, c_banner, die, match_close, parse_params, tokenize

GENERATOR = "tools/gen_domains.py"

# Where the reference SDK names a parameter differently from the ROCm 5.2 header, the
# reference's name is the interface (tools read `args.<function>.<parameter>`), so the domain
# declaration takes it too and argument iteration reports it.
REFERENCE_PARAM_NAMES: dict[str, dict[str, str]] = {
    "hipLaunchCooperativeKernel": {"f": "func"},
    "hipLaunchCooperativeKernel_spt": {"f": "func", "hStream": "stream"},
    "hipModuleLaunchKernel": {"f": "func"},
    "hipModuleOccupancyMaxPotentialBlockSize": {"f": "func"},
    "hipModuleOccupancyMaxPotentialBlockSizeWithFlags": {"f": "func"},
    "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor": {"f": "func"},
    "hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags": {"f": "func"},
    "hipOccupancyMaxActiveBlocksPerMultiprocessor": {"f": "func"},
    "hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags": {"f": "func"},
    "hipOccupancyMaxPotentialBlockSize": {"f": "func"},
    "hipKernelNameRef": {"f": "func"},
    "hipExtModuleLaunchKernel": {"f": "func", "hStream": "stream"},
    "hipHccModuleLaunchKernel": {"f": "func", "hStream": "stream"},
}


def reference_names(function: str, names: list[str]) -> list[str]:
    renames = REFERENCE_PARAM_NAMES.get(function, {})
    for old in renames:
        if old not in names:
            die(f"REFERENCE_PARAM_NAMES: {function} has no parameter '{old}' any more")
    return [renames.get(n, n) for n in names]


# ---- 1. members ----------------------------------------------------------------------------


@dataclass
class Member:
    name: str                      # the function's name: the union member
    fields: list[str]              # parameter names, in order
    decls: list[str]               # each field as a C declaration (without ';')
    checks: list[tuple[str, int]] = field(default_factory=list)  # (domain struct, op id)
    block: str = ""                # the domain it is listed under (a comment in the header)


# The reference replaces a by-value dim3 (a C++ class with constructors in HIP's headers, which
# would delete the union's default constructor) by its plain C twin; the layout is the same and
# the check asserts it.
_C_TYPE = {"dim3": "rocprofiler_dim3_t"}


def _strip_top_const(t: str) -> str:
    # A top-level const is not part of the function type (captured_args stores the adjusted
    # type), and a const field would delete the union's copy assignment in C++.
    if not any(c in t for c in "*[(") and t.startswith("const "):
        return t[len("const "):]
    return t[: -len(" const")] if t.endswith(" const") else t


def member_of(function: str, params: list[Param], names: list[str], block: str,
              checks: list[tuple[str, int]]) -> Member:
    decls = []
    for p, n in zip(params, names):
        t = _strip_top_const(p.type)
        if t in _C_TYPE:
            decls.append(f"{_C_TYPE[t]} {n}")
        elif t != p.type:
            decls.append(f"{t} {n}")
        else:
            decls.append(p.declaration(n))
    return Member(function, list(names), decls, list(checks), block)


_FN_START = re.compile(r'api::fn<"(\w+)",\s*')
_STRUCT_RE = re.compile(r"struct\s+(\w+)\s*:\s*api::domain<")


def symbol_domain_members(path: Path) -> list[Member]:
    """Members of a hand-written symbol domain (`api::fn<"name", R(A...), "p"...>` entries):
    the spelled signature is parsed as a C parameter list, so the C field types are the
    declaration's own."""
    text = path.read_text()
    structs = list(_STRUCT_RE.finditer(text))
    out: dict[str, Member] = {}
    for k, s in enumerate(structs):
        end = structs[k + 1].start() if k + 1 < len(structs) else len(text)
        body = text[s.end():end]
        block = re.search(r'"(\w+)"', body).group(1)  # the domain's kind name
        op_id = 0
        for m in _FN_START.finditer(body):
            name = m.group(1)
            # the signature runs to the first parameter-name string (or the entry's end)
            rest = body[m.end():]
            toks = tokenize(rest)
            depth, i = 0, 0
            while i < len(toks):
                t = toks[i].text
                if t in "(<":
                    depth += 1
                elif t in ")>":
                    if depth == 0:
                        break
                    depth -= 1
                elif t == "," and depth == 0:
                    break
                i += 1
            sig = toks[:i]
            open_at = next(j for j, t in enumerate(sig) if t.text == "(")
            close = match_close(sig, open_at)
            params, variadic = parse_params(sig[open_at + 1:close]) or ([], False)
            if variadic:
                die(f"{path}: {name} is variadic")
            names = re.findall(r'"(\w+)"', rest[: _entry_length(rest)])
            if len(names) != len(params):
                die(f"{path}: {name}: {len(names)} names for {len(params)} parameters")
            if name in out:
                prev = out[name]
                new = member_of(name, params, names, block, [])
                if prev.decls != new.decls or prev.fields != new.fields:
                    die(f"{path}: {name} is declared twice with different parameters")
                prev.checks.append((s.group(1), op_id))
            else:
                out[name] = member_of(name, params, names, block, [(s.group(1), op_id)])
            op_id += 1
    return list(out.values())


def _entry_length(rest: str) -> int:
    """Length of one `api::fn<...>` entry's text after its name: up to its closing '>'."""
    depth, in_str = 1, False
    for i, c in enumerate(rest):
        if in_str:
            in_str = c != '"'
        elif c == '"':
            in_str = True
        elif c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return i
    return len(rest)


# ---- 2. headers ----------------------------------------------------------------------------

# The retval unions are the reference's (names and types); encore writes the return value's
# bytes at offset 0, so any member of the return type's size reads it.
_RETVALS = {
    "hsa": ["uint64_t uint64_t_retval", "uint32_t uint32_t_retval",
            "hsa_signal_value_t hsa_signal_value_t_retval", "hsa_status_t hsa_status_t_retval"],
    "hip": ["uint64_t uint64_t_retval", "int int_retval", "const char* const_charp_retval",
            "hipError_t hipError_t_retval", "hipChannelFormatDesc hipChannelFormatDesc_retval",
            "void** voidpp_retval"],
    "marker": ["int32_t int32_t_retval", "int64_t int64_t_retval",
               "roctx_range_id_t roctx_range_id_t_retval"],
}

_EXAMPLE = {"hsa": "hsa_queue_create.size", "hip": "hipMalloc.size", "marker": "roctxMarkA.message"}

# encore's own name for the raw words: the union is at least this large whatever the members
# (tools that copied the bytes keep working; every operation's arguments fit, checked). An area
# without an entry has none: its union is exactly the reference's size (the library payloads,
# whose retval offset tools reading by layout depend on).
_RAW_WORDS = {"hsa": 32, "hip": 32, "marker": 4}
# Areas whose reference declares a function without parameters as the no-args struct itself
# (`rocprofiler_hipfile_api_no_args hipFileDriverOpen;`) rather than a struct holding it.
_BARE_NO_ARGS: set[str] = set()

_PRELUDE = {
    "hsa": """#include <rocprofiler-sdk/defines.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
""",
    "hip": """#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

/* encore traces the AMD HIP runtime; HIP's headers refuse to be read without a platform. */
#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_HCC__) && !defined(__HIP_PLATFORM_NVIDIA__)
#    define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
/* what the reference's operation list needs and ROCm 5.2's HIP lacks */
#include <encore/domains/detail/hip_newer_api.h>

#include <stddef.h>
#include <stdint.h>
""",
    "marker": """#include <rocprofiler-sdk/defines.h>

#include <roctracer/roctx.h>

#include <stdint.h>
""",
}


# Callback types the reference names in its HSA header that ROCm 5.2 spells inline in the
# prototype: declared so a tool that names them compiles (the check asserts each is the type the
# parameter has).
REFERENCE_TYPEDEFS = {
    "hsa": [("hsa_ext_program_iterate_modules_cb_t", "hsa_finalize_ext", "hsa_ext_program_iterate_modules", 1,
             "typedef hsa_status_t (*hsa_ext_program_iterate_modules_cb_t)(hsa_ext_program_t program, "
             "hsa_ext_module_t module, void* data);")],
}


def header(area: str, members: list[Member], sources: list[str], typedefs: list[str],
           missing_note: list[str], generator: str = GENERATOR,
           check_rel: str = "src/core/api_args_check.cpp") -> str:
    rel = f"include/rocprofiler-sdk/{area}/api_args.h"
    tag = f"rocprofiler_{area}_api"
    text = c_banner(generator, rel, sources, [
        f"Per-call arguments of the {area.upper()} API kinds as the reference SDK declares them:",
        f"`{tag}_args_t` has one member per function, named like it, whose fields are its",
        f"parameters in order (`args.{_EXAMPLE[area]}`). The bytes are encore's captured copy",
        f"(encore::api::captured_args): {check_rel} asserts, per parameter, that",
        "offset and type agree, so this header cannot drift from the domain declarations.",
        "A function without parameters has the one field `no_args` (C has no empty structs).",
        *missing_note])
    text += "#pragma once\n\n" + _PRELUDE[area] + "\nROCPROFILER_EXTERN_C_INIT\n\n"
    text += f"/** The one field of a function without parameters (1 byte, as in C++). */\n"
    text += f"typedef struct {tag}_no_args {{\n    char empty;\n}} {tag}_no_args;\n\n"
    text += f"/** Return value of a call (valid at EXIT): read the member of the function's return type. */\n"
    text += f"typedef union {tag}_retval_t {{\n"
    text += "".join(f"    {m};\n" for m in _RETVALS[area])
    text += f"}} {tag}_retval_t;\n\n"
    for t in [*typedefs, *(d[-1] for d in REFERENCE_TYPEDEFS.get(area, []))]:
        text += t + "\n"
    if typedefs or area in REFERENCE_TYPEDEFS:
        text += "\n"
    text += f"/** Arguments of a call (valid at ENTER and EXIT; out-parameters are written by EXIT). */\n"
    text += f"typedef union {tag}_args_t {{\n"
    block = None
    for m in members:
        if m.block != block:
            block = m.block
            text += f"    /* {block} */\n"
        if not m.decls and area in _BARE_NO_ARGS:
            text += f"    {tag}_no_args {m.name};\n"
            continue
        text += "    struct {\n"
        if not m.decls:
            text += f"        {tag}_no_args no_args;\n"
        text += "".join(f"        {d};\n" for d in m.decls)
        text += f"    }} {m.name};\n"
    if _RAW_WORDS.get(area):
        text += f"    /* encore: the raw words (the union's minimum size) */\n"
        text += f"    uint64_t encore_raw[{_RAW_WORDS[area]}];\n"
    text += f"}} {tag}_args_t;\n\nROCPROFILER_EXTERN_C_FINI\n"
    return text


# ---- 3. check ------------------------------------------------------------------------------


def check_tu(areas: list[tuple[str, list[Member]]], includes: list[str],
             rel: str = "src/core/api_args_check.cpp", generator: str = GENERATOR) -> tuple[str, int, int]:
    text = banner(generator, rel, [f"include/rocprofiler-sdk/{a}/api_args.h" for a, _ in areas], [
        "For every operation of every API domain: the C union member of its name has a field per",
        "parameter at the captured copy's offset, of its type (dim3 by value as rocprofiler_dim3_t),",
        "and the captured copy's size. Compiles to nothing; a mismatch does not compile, and the",
        "message names the member."])
    text += '#include "api_args_check.hpp"\n\n'
    text += "".join(f"#include <{i}>\n" for i in includes)
    text += "#include <rocprofiler-sdk/callback_tracing.h>\n\n#include <cstddef>\n#include <type_traits>\n\n"
    text += "namespace encore::core::api_args_check {\nnamespace {\nusing namespace encore::domains;\n"
    n_ops = n_args = 0
    for area, members in areas:
        u = f"rocprofiler_{area}_api_args_t"
        text += f"\n// ---- {u}\n"
        for name, dom, fn, j, _ in REFERENCE_TYPEDEFS.get(area, []):
            text += (f"static_assert(std::is_same_v<{name}, {dom}::op_at<{dom}::id_of<\"{fn}\">()>::arg<{j}>>, "
                     f"\"{name}\");\n")
        for m in members:
            for dom, op in m.checks:
                n_ops += 1
                text += (f'static_assert(op_matches<{dom}, {op}>("{m.name}", sizeof({u}::{m.name}), '
                         f'{len(m.fields)}), "{u}::{m.name}");\n')
                for j, f in enumerate(m.fields):
                    n_args += 1
                    text += (f"static_assert(arg_matches<{dom}, {op}, {j}, decltype(std::declval<{u}>()."
                             f"{m.name}.{f})>(offsetof({u}, {m.name}.{f})), \"{u}::{m.name}.{f}\");\n")
    text += "}  // namespace\n}  // namespace encore::core::api_args_check\n"
    return text, n_ops, n_args
