#!/usr/bin/env python3
"""cdecl.py — the C-declaration parser every code generator of tools/ uses.

It reads C/C++ headers the way a translation unit of this SDK does: the compiler's own
preprocessor resolves ``#if`` blocks, ``extern "C"`` guards and macros, then this module
tokenizes the result, splits it into top-level declarations (with the header each was
written in, its linkage and scope) and parses function prototypes, named enums and the
``decltype(f)* f_fn;`` members of ROCr's API table structs. Python standard library only.

It also holds what the generators share around the parse: diagnostics, the banner of a
generated file (naming the generator that wrote it), writing a file only when its text
changes, the C op-id enum, a library's exports (``nm``) and the op order of an existing
``.inc`` op list.

Example:

    import cdecl
    decls = cdecl.split_declarations(cdecl.tokenize(cdecl.preprocess(
        ["g++"], "#include <hsa/hsa.h>\\n", ["-I/usr/include"])))
    for p in cdecl.collect_prototypes(decls, lambda f: f.endswith("/hsa.h")):
        print(p.name, p.signature, [q.name for q in p.params])

Used by gen_domains.py (HSA, HIP, the software HSA runtime's exports) and
gen_cuda_domain.py (CUDA driver); see tools/README.md.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

# --------------------------------------------------------------------------
# diagnostics
# --------------------------------------------------------------------------

# Messages carry the name of the generator that is running (gen_domains, gen_cuda_domain),
# not this module's: that is the command the user typed.
_PROGRAM = Path(sys.argv[0]).stem if sys.argv and sys.argv[0].endswith(".py") else "cdecl"


def warn(msg: str) -> None:
    print(f"{_PROGRAM}: warning: {msg}", file=sys.stderr)


def info(msg: str) -> None:
    print(f"{_PROGRAM}: {msg}", file=sys.stderr)


def die(msg: str) -> NoReturn:
    print(f"{_PROGRAM}: error: {msg}", file=sys.stderr)
    sys.exit(1)


# --------------------------------------------------------------------------
# preprocessing + tokenizing
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Tok:
    text: str
    file: str  # the header the token was written in (from line markers)
    line: int


_LINEMARKER = re.compile(r'#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')
_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<str>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*")
  | (?P<chr>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*')
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.]|'(?=[A-Za-z0-9_]))*)
  | (?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<punct>\.\.\.|::|->\*?|<<=|>>=|<=>|&&|\|\||\+\+|--|[-+*/%^&|!=<>]=|\#\#|.)
    """,
    re.VERBOSE,
)


def preprocess(cxx: list[str], source: str, flags: list[str]) -> str:
    """`source` run through `cxx -E` as C++20 (line markers kept: they name each header)."""
    with tempfile.TemporaryDirectory(prefix="cdecl_") as tmp:
        src = Path(tmp) / "tu.cpp"
        src.write_text(source)
        cmd = [*cxx, "-E", "-x", "c++", "-std=c++20", *flags, str(src)]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        except FileNotFoundError:
            die(f"cannot run the preprocessor {cxx[0]!r} (set --cxx or $CXX)")
        if res.returncode != 0:
            die(f"preprocessing failed ({' '.join(cmd)}):\n{res.stderr}")
        return res.stdout


def tokenize(text: str) -> list[Tok]:
    """Preprocessed text as tokens, each with the header and line it was written at."""
    toks: list[Tok] = []
    cur_file = "<unknown>"
    line_no = 1
    for raw in text.split("\n"):
        stripped = raw.lstrip()
        if stripped.startswith("#"):
            m = _LINEMARKER.match(stripped)
            if m:
                line_no = int(m.group(1))
                cur_file = m.group(2)
                continue
            # '#pragma ...' and friends survive preprocessing: not declarations
            line_no += 1
            continue
        pos = 0
        while pos < len(raw):
            m = _TOKEN.match(raw, pos)
            assert m is not None
            pos = m.end()
            if m.lastgroup == "ws":
                continue
            toks.append(Tok(m.group(0), cur_file, line_no))
        line_no += 1
    return toks


# --------------------------------------------------------------------------
# top-level declaration splitting
# --------------------------------------------------------------------------

_OPEN = {"(": ")", "[": "]", "{": "}"}


def match_close(toks: list, i: int) -> int:
    """toks[i] is an opening bracket; return the index of its partner."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j].text if isinstance(toks[j], Tok) else toks[j]
        if t in _OPEN:
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced brackets")


def strip_attributes(toks: list[Tok]) -> tuple[list[Tok], bool]:
    """Remove GNU/C++11 attributes, __extension__ and asm labels.

    Returns the remaining tokens and whether a 'deprecated' attribute was seen."""
    out: list[Tok] = []
    deprecated = False
    i = 0
    n = len(toks)
    while i < n:
        t = toks[i].text
        if t in ("__attribute__", "__attribute", "__declspec", "__asm__", "__asm", "asm",
                 "alignas", "_Alignas", "__decltype") and i + 1 < n and toks[i + 1].text == "(":
            j = match_close(toks, i + 1)
            if any(x.text in ("deprecated", "__deprecated__") for x in toks[i:j]):
                deprecated = True
            i = j + 1
            continue
        if t == "[" and i + 1 < n and toks[i + 1].text == "[":
            j = match_close(toks, i)
            if any(x.text in ("deprecated", "__deprecated__") for x in toks[i:j]):
                deprecated = True
            i = j + 1
            continue
        if t == "__extension__":
            i += 1
            continue
        out.append(toks[i])
        i += 1
    return out, deprecated


@dataclass
class Decl:
    toks: list[Tok]          # attributes already stripped
    file: str                # header of the first token
    line: int
    c_linkage: bool          # inside extern "C" (or prefixed with it)
    global_scope: bool       # not inside a namespace
    deprecated: bool


_RECORD_KW = {"struct", "class", "union", "enum"}


def split_declarations(toks: list[Tok]) -> list[Decl]:
    """The top-level declarations, in order. extern "C" { } and namespace { } are scopes
    (recorded in each Decl), not declarations; function and record bodies stay inside the
    declaration they belong to."""
    decls: list[Decl] = []
    # scope stack entries: ("linkage", "C"|"C++") or ("namespace", name)
    scopes: list[tuple[str, str]] = []
    cur: list[Tok] = []

    def linkage() -> str:
        for kind, val in reversed(scopes):
            if kind == "linkage":
                return val
        return "C++"

    def in_namespace() -> bool:
        return any(kind == "namespace" for kind, _ in scopes)

    def flush() -> None:
        nonlocal cur
        if cur:
            body, dep = strip_attributes(cur)
            if body:
                c_link = linkage() == "C"
                if len(body) >= 2 and body[0].text == "extern" and body[1].text.startswith('"'):
                    c_link = body[1].text == '"C"'
                    body = body[2:]
                if body:
                    decls.append(Decl(body, body[0].file, body[0].line, c_link,
                                      not in_namespace(), dep))
        cur = []

    i = 0
    n = len(toks)
    while i < n:
        t = toks[i]
        if t.text == ";":
            cur.append(t)
            flush()
            i += 1
            continue
        if t.text == "}":
            # closes an extern "C" / namespace scope
            flush()
            if scopes:
                scopes.pop()
            i += 1
            continue
        if t.text == "{":
            head, _ = strip_attributes(cur)
            words = [x.text for x in head]
            if len(words) == 2 and words[0] == "extern" and words[1].startswith('"'):
                scopes.append(("linkage", "C" if words[1] == '"C"' else "C++"))
                cur = []
                i += 1
                continue
            if words and (words[0] == "namespace" or words[:2] == ["inline", "namespace"]):
                name = words[-1] if len(words) > 1 and words[-1] != "namespace" else ""
                scopes.append(("namespace", name))
                cur = []
                i += 1
                continue
            j = match_close(toks, i)
            cur.extend(toks[i:j + 1])
            i = j + 1
            # A brace block ends the declaration unless the declaration is a
            # record/enum/typedef declaration or an initializer (needs ';').
            first = words[0] if words else ""
            k = 0
            while first in ("static", "const", "volatile", "constexpr", "inline", "extern") and k + 1 < len(words):
                k += 1
                first = words[k]
            has_eq = _has_top_level(head, "=")
            is_function = _has_top_level(head, "(") and not has_eq and "typedef" not in words
            if not is_function and (first in _RECORD_KW or first == "typedef" or has_eq):
                continue
            flush()
            continue
        cur.append(t)
        i += 1
    flush()
    return decls


def _has_top_level(toks: list[Tok], text: str) -> bool:
    depth = 0
    for t in toks:
        if depth == 0 and t.text == text:
            return True
        if t.text in _OPEN:
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
    return False


def _top_level_index(toks: list[Tok], text: str) -> int | None:
    depth = 0
    for i, t in enumerate(toks):
        if depth == 0 and t.text == text:
            return i
        if t.text in _OPEN:
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
    return None


def split_top(toks: list[Tok], sep: str = ",") -> list[list[Tok]]:
    """`toks` split at every `sep` outside brackets; [] for no tokens."""
    parts: list[list[Tok]] = [[]]
    depth = 0
    for t in toks:
        if t.text in _OPEN:
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        if depth == 0 and t.text == sep:
            parts.append([])
            continue
        parts[-1].append(t)
    if parts == [[]]:
        return []
    return parts


# --------------------------------------------------------------------------
# function prototypes
# --------------------------------------------------------------------------

_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__"}
_TYPE_KW = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
            "bool", "_Bool", "wchar_t", "char8_t", "char16_t", "char32_t", "__int128",
            "_Float16", "__fp16", "auto"}
_TAG_KW = {"struct", "enum", "union", "class", "typename"}
_KEYWORDS = _QUALIFIERS | _TYPE_KW | _TAG_KW
_SKIP_SPECIFIERS = {"static", "inline", "__inline", "__inline__", "constexpr", "consteval",
                    "template", "typedef", "friend", "virtual", "using", "operator",
                    "static_assert", "_Static_assert"}


def is_ident(s: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", s))


def spell(toks) -> str:
    """Spell a token sequence as a C++ type with normalized whitespace."""
    out = ""
    prev = ""
    for t in toks:
        s = t.text if isinstance(t, Tok) else t
        if not out:
            out = s
        elif s in ("*", "&", "&&", ")", "]", ",", "::", ">") or prev in ("(", "[", "::", "<"):
            out += s if s != "," else ", "
        elif s == "(":
            out += s if prev in ("*", ")") or not is_ident(prev) else " " + s
        elif s == "<":
            out += s
        else:
            out += " " + s
        prev = s
    return out.replace(",  ", ", ")


@dataclass
class Param:
    name: str | None   # None: unnamed in the prototype
    type: str          # C++ type spelling with the name removed
    # The parameter as a declaration is before + name + after ("void* " "data" "",
    # "void (*" "cb" ")(int status)"): a generator that defines the function needs the
    # declarator, not just the type (arrays and function pointers put the name inside it).
    before: str = ""
    after: str = ""

    def declaration(self, name: str | None = None) -> str:
        """The parameter declared with `name` (default: its own; none if both are None).
        Function-pointer parameters keep the names of their own parameters."""
        name = name or self.name
        if not name:
            return self.before.rstrip() + self.after
        return self.before + name + self.after


@dataclass
class Proto:
    name: str
    ret: str
    params: list[Param]
    variadic: bool
    file: str
    line: int
    c_linkage: bool
    global_scope: bool
    deprecated: bool

    @property
    def signature(self) -> str:
        return f"{self.ret}({', '.join(p.type for p in self.params)})"


def _param_name_index(toks: list[Tok]) -> int | None:
    """Index of the declarator name in a simple (non function-pointer) parameter."""
    if not toks:
        return None
    last = len(toks) - 1
    t = toks[last].text
    if not is_ident(t) or t in _KEYWORDS:
        return None
    before = toks[:last]
    if not before:
        return None  # just a type name: unnamed
    if before[-1].text in _TAG_KW or before[-1].text == "::":
        return None
    typeish = [b for b in before if b.text not in _QUALIFIERS]
    if not typeish:
        return None  # 'const T': unnamed
    return last


def parse_param(toks: list[Tok]) -> Param:
    """Parse one parameter declaration (default argument already removed)."""
    # function pointer / reference-to-array style:  R (*name)(args)  /  R (*)(args)
    for i, t in enumerate(toks):
        if t.text == "(":
            j = match_close(toks, i)
            inner = toks[i + 1:j]
            rest = toks[j + 1:]
            ret = toks[:i]
            if inner and inner[0].text in ("*", "&", "^"):
                names = [x for x in inner if is_ident(x.text) and x.text not in _QUALIFIERS]
                name = names[-1].text if names else None
                ptr = [x for x in inner if not (name and x.text == name)]
                # the declarator around the name: '(* const' NAME ')'
                k = max((n for n, x in enumerate(inner) if name and x.text == name), default=len(inner))
                before = f"{spell(ret)} ({spell(inner[:k])}"
                if is_ident(before[-1]):
                    before += " "  # '(* const name'
                around = spell(inner[k + 1:])
                if rest and rest[0].text == "(":
                    k = match_close(rest, 0)
                    args, var = parse_params(rest[1:k])
                    arg_s = ", ".join(a.type for a in args)
                    decl_s = ", ".join(a.declaration() for a in args)
                    if var:
                        arg_s = (arg_s + ", ..." if arg_s else "...")
                        decl_s = (decl_s + ", ..." if decl_s else "...")
                    typ = f"{spell(ret)} ({spell(ptr)})({arg_s})"
                    return Param(name, typ, before, f"{around})({decl_s})")
                if rest and rest[0].text == "[":
                    typ = f"{spell(ret)} ({spell(ptr)}){spell(rest)}"
                    return Param(name, typ, before, f"{around}){spell(rest)}")
            raise ValueError(f"unsupported parameter declarator: {spell(toks)}")
    # arrays: T name[N][M] -> T (*)[M]; T name[N] -> T*
    arr_start = None
    for i, t in enumerate(toks):
        if t.text == "[":
            arr_start = i
            break
    dims: list[list[Tok]] = []
    core = toks
    if arr_start is not None:
        core = toks[:arr_start]
        i = arr_start
        while i < len(toks):
            j = match_close(toks, i)
            dims.append(toks[i:j + 1])
            i = j + 1
    idx = _param_name_index(core)
    name = core[idx].text if idx is not None else None
    base = core[:idx] if idx is not None else core
    if not dims:
        typ = spell(base)
    elif len(dims) == 1:
        typ = spell(base) + "*"
    else:
        typ = f"{spell(base)} (*){''.join(spell(d) for d in dims[1:])}"
    return Param(name, typ, spell(base) + " ", "".join(spell(d) for d in dims))


def parse_params(toks: list[Tok]) -> tuple[list[Param], bool] | None:
    parts = split_top(toks, ",")
    params: list[Param] = []
    variadic = False
    if len(parts) == 1 and [t.text for t in parts[0]] == ["void"]:
        return [], False
    for p in parts:
        p, _ = strip_attributes(p)
        # drop a default argument
        k = _top_level_index(p, "=")
        if k is not None:
            p = p[:k]
        if [t.text for t in p] == ["..."]:
            variadic = True
            continue
        if not p:
            raise ValueError("empty parameter")
        params.append(parse_param(p))
    return params, variadic


def parse_prototype(d: Decl) -> Proto | None:
    """The function `d` declares, or None when it is no plain prototype (a definition,
    template, typedef, variable, qualified member, ...)."""
    toks = d.toks
    if not toks or toks[-1].text != ";":
        return None  # definitions (bodies) and junk
    toks = toks[:-1]
    words = [t.text for t in toks]
    if any(w in _SKIP_SPECIFIERS for w in words):
        return None
    if "{" in words or _has_top_level(toks, "="):
        return None
    # find the first top-level '(' preceded by an identifier
    for i, t in enumerate(toks):
        if t.text == "(":
            if i == 0 or not is_ident(toks[i - 1].text) or toks[i - 1].text in _KEYWORDS:
                return None  # function pointer object, cast, ...
            if i >= 2 and toks[i - 2].text == "::":
                return None  # qualified name: C++ member definition
            name = toks[i - 1].text
            j = match_close(toks, i)
            trailing = [x.text for x in toks[j + 1:]]
            # allow 'noexcept', 'throw()', 'noexcept(true)'
            trailing_ok = all(x in ("noexcept", "throw", "(", ")", "true", "const") for x in trailing)
            if not trailing_ok:
                return None
            ret_toks = [x for x in toks[:i - 1] if x.text not in ("extern",)]
            if not ret_toks:
                return None
            parsed = parse_params(toks[i + 1:j])
            if parsed is None:
                return None
            params, variadic = parsed
            return Proto(name, spell(ret_toks), params, variadic, d.file, d.line,
                         d.c_linkage, d.global_scope, d.deprecated)
        if t.text in ("[", "{"):
            return None
    return None


def collect_prototypes(decls: list[Decl], accept_file) -> list[Proto]:
    """The prototypes among `decls` written in a header `accept_file(path)` accepts; one
    that cannot be parsed is skipped with a warning."""
    protos = []
    for d in decls:
        if not accept_file(d.file):
            continue
        try:
            p = parse_prototype(d)
        except ValueError as e:
            warn(f"{d.file}:{d.line}: cannot parse declaration ({e}): {spell(d.toks)[:120]}")
            continue
        if p is not None:
            protos.append(p)
    return protos


# --------------------------------------------------------------------------
# enums
# --------------------------------------------------------------------------


@dataclass
class EnumDef:
    type_name: str             # name usable as a C++ type
    scoped: bool
    enumerators: list[str]
    file: str
    line: int
    skipped: list[str] = field(default_factory=list)


def parse_enum(d: Decl) -> EnumDef | None:
    """The enum type `d` defines (keyed on its typedef name, else its tag), or None."""
    toks = d.toks
    words = [t.text for t in toks]
    is_typedef = False
    k = 0
    if words[:1] == ["typedef"]:
        is_typedef = True
        k = 1
    if k >= len(words) or words[k] != "enum":
        return None
    k += 1
    scoped = False
    if k < len(words) and words[k] in ("class", "struct"):
        scoped = True
        k += 1
    tag = None
    if k < len(words) and is_ident(words[k]):
        tag = words[k]
        k += 1
    if k < len(words) and words[k] == ":":
        while k < len(words) and words[k] != "{":
            k += 1
    if k >= len(words) or words[k] != "{":
        return None  # forward declaration / 'typedef enum x y;'
    close = match_close(toks, k)
    body = toks[k + 1:close]
    after = toks[close + 1:]
    type_name = None
    if is_typedef:
        for decl in split_top([t for t in after if t.text != ";"], ","):
            if len(decl) == 1 and is_ident(decl[0].text):
                type_name = decl[0].text
                break
    if type_name is None:
        type_name = tag
    if type_name is None:
        return None  # anonymous enum without a typedef name: not a type
    e = EnumDef(type_name, scoped, [], d.file, d.line)
    for part in split_top(body, ","):
        part_s, dep = strip_attributes(part)
        if not part_s:
            continue
        name = part_s[0].text
        if not is_ident(name):
            warn(f"{d.file}:{d.line}: odd enumerator in {type_name}: {spell(part)}")
            continue
        if dep:
            e.skipped.append(name)
            continue
        e.enumerators.append(name)
    return e


def collect_enums(decls: list[Decl], accept_file) -> list[EnumDef]:
    """One EnumDef per named global-scope enum type with enumerators, in header order."""
    out: list[EnumDef] = []
    seen: set[str] = set()
    for d in decls:
        if not accept_file(d.file) or not d.global_scope:
            continue
        e = parse_enum(d)
        if e is None:
            continue
        if e.type_name in seen:
            continue
        seen.add(e.type_name)
        if e.skipped:
            warn(f"{e.type_name}: skipped deprecated enumerator(s) {', '.join(e.skipped)}")
        if not e.enumerators:
            continue
        out.append(e)
    return out


# --------------------------------------------------------------------------
# API table structs (ROCr's hsa_api_trace.h)
# --------------------------------------------------------------------------


@dataclass
class Slot:
    function: str  # the function whose type the slot has: decltype(function)*
    member: str    # the member's name (function + "_fn")


def parse_table(decls: list[Decl], struct: str) -> list[Slot]:
    """The slots of `struct NAME { ApiTableVersion version; decltype(f)* f_fn; ... };`, in order.

    Anything else in the struct is an error: a slot the generators did not see would shift
    every later op id."""
    for d in decls:
        w = [t.text for t in d.toks]
        if w[:3] == ["struct", struct, "{"]:
            close = match_close(d.toks, 2)
            members = split_top(d.toks[3:close], ";")
            slots: list[Slot] = []
            for idx, m in enumerate(members):
                mw = [t.text for t in m]
                if not mw:
                    continue
                if idx == 0:
                    if mw != ["ApiTableVersion", "version"]:
                        die(f"{struct}: first member is not 'ApiTableVersion version'")
                    continue
                if len(mw) == 6 and mw[0] == "decltype" and mw[1] == "(" and mw[3] == ")" \
                        and mw[4] == "*" and is_ident(mw[5]):
                    slots.append(Slot(mw[2], mw[5]))
                else:
                    die(f"{struct}: unexpected member {' '.join(mw)}")
            return slots
    die(f"struct {struct} not found")


# --------------------------------------------------------------------------
# helpers around the parse
# --------------------------------------------------------------------------


def rel_header(path: str, roots: list[Path]) -> str:
    """`path` relative to the first include root that holds it (as an #include spells it)."""
    p = Path(path)
    for r in roots:
        try:
            return p.resolve().relative_to(r.resolve()).as_posix()
        except ValueError:
            pass
    return p.name


def names_for(proto: Proto, what: str) -> list[str]:
    """The parameter names of `proto`; an unnamed parameter gets 'argN' (N: its position)."""
    names = []
    for i, p in enumerate(proto.params):
        if p.name is None:
            names.append(f"arg{i}")
            warn(f"{what}: parameter {i} of {proto.name} is unnamed in the prototype; using 'arg{i}'")
        else:
            names.append(p.name)
    return names


def exported_symbols(lib: Path, nm: str) -> set[str]:
    """The functions (`T` symbols, version suffix dropped) a shared library exports."""
    try:
        res = subprocess.run([nm, "-D", "--defined-only", str(lib)], capture_output=True,
                             text=True, check=True)
    except (FileNotFoundError, subprocess.CalledProcessError) as e:
        die(f"cannot list the exports of {lib}: {e}")
    out = set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "T":
            out.add(parts[2].split("@")[0])
    return out


_INC_LINE = re.compile(r'^\s*api::fn<"([A-Za-z_0-9]+)",')


def previous_op_order(path: Path) -> list[str]:
    """The op names of an existing generated `api::fn<...>` list, in order (op ids are
    positions and append-only, so a regeneration keeps this order); [] if there is none."""
    if not path.exists():
        return []
    order = []
    for line in path.read_text().splitlines():
        m = _INC_LINE.match(line)
        if m:
            order.append(m.group(1))
    return order


# --------------------------------------------------------------------------
# generated files
# --------------------------------------------------------------------------


def banner(generator: str, out_rel: str, sources: list[str], extra: list[str] | None = None,
           style: str = "//") -> str:
    """The first lines of a generated file: what it is, which generator (`tools/NAME.py`)
    wrote it from which headers, then `extra` lines; each line starts with `style`."""
    lines = [f"{style} {out_rel} — generated by {generator} from {', '.join(sources)}; do not edit"]
    for e in extra or []:
        lines.append(f"{style} {e}" if e else style)
    return "\n".join(lines) + "\n"


def c_banner(generator: str, out_rel: str, sources: list[str], extra: list[str]) -> str:
    """banner() as a C block comment (for headers C tools compile with -Wpedantic)."""
    lines = [f"/* {out_rel} — generated by {generator} from {', '.join(sources)}; do not edit"]
    for e in extra:
        lines.append(f" * {e}" if e else " *")
    lines.append(" */")
    return "\n".join(lines) + "\n"


def write(out_root: Path, rel: str, text: str, written: list[str]) -> None:
    """Write `text` to out_root/rel unless it already holds it (so an unchanged input rewrites
    nothing and build systems see no new timestamp); report 'wrote' or 'unchanged'."""
    path = out_root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
        info(f"wrote {rel}")
    else:
        info(f"unchanged {rel}")
    written.append(rel)


def c_enum(tag: str, prefix: str, names: list[str]) -> str:
    """A C op-id enum: PREFIX_NONE = -1, PREFIX_<name> = position, PREFIX_LAST."""
    s = f"typedef enum {tag} {{\n    {prefix}_NONE = -1,\n"
    for i, n in enumerate(names):
        s += f"    {prefix}_{n} = {i},\n"
    s += f"    {prefix}_LAST,\n}} {tag};\n"
    return s
