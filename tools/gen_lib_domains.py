#!/usr/bin/env python3
"""gen_lib_domains.py — the C headers of the library API kinds (RCCL_API, ROCDECODE_API,
ROCJPEG_API, ROCSHMEM_API, HIPFILE_API), generated from encore's hand-written domain
declarations (include/encore/domains/<lib>.hpp), which are the one place each API is spelled.

Stages:
  1. members  each domain's `api::fn<"name", R(A...), "param"...>` entries, parsed by
              tools/api_args.py (symbol_domain_members): names, parameter names, C types
  2. ids      include/rocprofiler-sdk/<lib>/api_id.h: the reference's op-id enum, in domain order
  3. args     include/rocprofiler-sdk/<lib>/api_args.h: the payload's args and retval unions with
              the reference's names (tools/api_args.py's header stage)
  4. check    src/core/api_args_check_libs.cpp: per operation and parameter, static_asserts that
              the union member aliases encore's captured copy (compiled into libencore), and one
              that LIBS below is encore/domains/libs.hpp's `libraries`, in order: a library added
              there and not here (or here and not there) does not compile

The output is committed; run it after editing a library domain:

    python3 tools/gen_lib_domains.py            # regenerate into this checkout
    python3 tools/gen_lib_domains.py --out DIR  # elsewhere (nothing is rewritten when unchanged)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import api_args  # noqa: E402
from cdecl import c_banner, c_enum, write  # noqa: E402

GENERATOR = "tools/gen_lib_domains.py"
CHECK_REL = "src/core/api_args_check_libs.cpp"


def system_header_prelude(macro: str, system: list[str], own: list[str]) -> str:
    """The reference's rule: the library's own installed header where there is one, else the SDK's."""
    probe = system[0]
    text = "#include <rocprofiler-sdk/defines.h>\n\n"
    text += f"#if !defined({macro})\n#    if defined __has_include\n#        if __has_include(<{probe}>)\n"
    text += f"#            define {macro} 1\n#        else\n#            define {macro} 0\n#        endif\n"
    text += f"#    else\n#        define {macro} 0\n#    endif\n#endif\n\n"
    text += f"#if {macro} > 0\n" + "".join(f"#    include <{h}>\n" for h in system)
    text += "#else\n" + "".join(f"#    include <{h}>\n" for h in own) + "#endif\n\n"
    text += "#include <stddef.h>\n#include <stdint.h>\n"
    return text


def own_header_prelude(header: str) -> str:
    return f"#include <rocprofiler-sdk/defines.h>\n\n#include <{header}>\n\n#include <stddef.h>\n#include <stdint.h>\n"


# Per library (the domain include/encore/domains/<lib>.hpp, in encore/domains/libs.hpp's order):
# the reference's retval union, an example member, the header
# prelude (where the argument types come from) and whether a function without parameters is the
# bare no-args struct.
LIBS = {
    "rccl": dict(
        example="ncclAllReduce.count",
        retvals=["int32_t ncclResult_t_retval", "const char* const_charp_retval"],
        prelude=system_header_prelude("ROCPROFILER_SDK_USE_SYSTEM_RCCL", ["rccl/rccl.h"],
                                      ["rocprofiler-sdk/rccl/details/rccl.h"])),
    # The reference always reads its own copies of these libraries' headers; encore reads its own
    # declarations (rocprofiler-sdk/<lib>/details/).
    "rocdecode": dict(
        example="rocDecDecodeFrame.pic_params",
        retvals=["uint64_t uint64_t_retval", "int32_t rocDecStatus_retval", "const char* const_charp_retval"],
        prelude=own_header_prelude("rocprofiler-sdk/rocdecode/details/rocdecode.h")),
    "rocjpeg": dict(
        example="rocJpegDecode.destination",
        retvals=["int32_t rocJpegStatus_retval", "const char* const_charp_retval"],
        prelude=own_header_prelude("rocprofiler-sdk/rocjpeg/details/rocjpeg.h")),
    "rocshmem": dict(
        example="putmem_on_stream.nelems",
        # every traced function returns void: the union only keeps the record's layout uniform
        retvals=["rocprofiler_rocshmem_api_no_args no_retval"],
        prelude=own_header_prelude("rocprofiler-sdk/rocshmem/details/api_trace.h")),
    "hipfile": dict(
        example="hipFileRead.size", bare_no_args=True,
        retvals=["const char* const_charp_retval", "hipFileError_t hipFileError_t_retval",
                 "ssize_t ssize_t_retval", "int64_t int64_t_retval"],
        prelude=own_header_prelude("rocprofiler-sdk/hipfile/details/hipfile.h")),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent)
    a = ap.parse_args()
    root = Path(__file__).resolve().parent.parent
    written: list[str] = []
    areas = []
    for area, cfg in LIBS.items():
        src = f"include/encore/domains/{area}.hpp"
        # 1. members
        members = api_args.symbol_domain_members(root / src)
        # 2. ids
        tag = f"rocprofiler_{area}_api_id_t"
        ids = c_banner(GENERATOR, f"include/rocprofiler-sdk/{area}/api_id.h", [src], [
            f"The {area.upper()}_API operations, numbered as the reference SDK numbers them (an op's id",
            "is its position in the domain declaration; tests check each against the domain)."])
        ids += "#pragma once\n\n" + c_enum(tag, f"ROCPROFILER_{area.upper()}_API_ID", [m.name for m in members])
        write(a.out, f"include/rocprofiler-sdk/{area}/api_id.h", ids, written)
        # 3. args
        api_args._RETVALS[area] = cfg["retvals"]
        api_args._EXAMPLE[area] = cfg["example"]
        api_args._PRELUDE[area] = cfg["prelude"]
        if cfg.get("bare_no_args"):
            api_args._BARE_NO_ARGS.add(area)
        text = api_args.header(area, members, [src], [], [], generator=GENERATOR, check_rel=CHECK_REL)
        write(a.out, f"include/rocprofiler-sdk/{area}/api_args.h", text, written)
        areas.append((area, members))
    # 4. check
    text, n_ops, n_args = api_args.check_tu(areas, ["encore/domains/libs.hpp"], rel=CHECK_REL, generator=GENERATOR)
    text = text.replace("#include <rocprofiler-sdk/callback_tracing.h>\n",
                        "".join(f"#include <rocprofiler-sdk/{x}/api_args.h>\n" for x in LIBS))
    same = (f"static_assert(std::is_same_v<libraries, api::type_list<{', '.join(LIBS)}>>,\n"
            f"              \"{GENERATOR}: its LIBS must be encore/domains/libs.hpp's libraries, in order: add the \"\n"
            f"              \"library's line there and run it again\");\n")
    text = text.replace("using namespace encore::domains;\n", "using namespace encore::domains;\n\n" + same, 1)
    write(a.out, CHECK_REL, text, written)
    print(f"gen_lib_domains: {len(LIBS)} libraries, {n_ops} ops, {n_args} arguments checked", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
