#!/usr/bin/env python3
"""A build folder whose path has a space (issue 17, item 19).

The build tree is reached through a link named "build dir" in a temporary folder, and
encore-trace and encore-replay are made from their templates with every path through that link
(as meson makes the build tree's copies). Then, on encore's software HSA runtime:
  - encore-trace traces an HSA program (HSA_TOOLS_LIB and ROCP_TOOL_LIBRARIES hold the space);
  - encore-replay replays one (the same, and the report goes to a folder with a space);
  - encore-trace --marker-trace preloads libencore-roctx from there (LD_PRELOAD);
  - a program finds a tool listed in ROCP_TOOL_LIBRARIES by a path with a space;
  - the installed tree, staged in a folder with a space, traces and replays.

  space_paths.py BUILD_ROOT TRACE_TEMPLATE REPLAY_TEMPLATE key=path...
keys: hsa api replay sim roctx hip trace_tool trace_convert trace_run trace_prog trace_co replay_prog replay_co driver
c_tool, and
meson (then also: the tree installed with DESTDIR in a folder with a space, its launchers run)
"""
import os
import subprocess
import sys
import tempfile

build, trace_in, replay_in = sys.argv[1:4]
paths = dict(a.split("=", 1) for a in sys.argv[4:])
failures = []


def check(ok, what, detail=""):
    if not ok:
        failures.append(what)
        print("FAILED:", what, file=sys.stderr)
        if detail:
            print(detail[-3000:], file=sys.stderr)


def run(args, env=None, **kw):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(args, env=e, capture_output=True, text=True, timeout=120, **kw)


with tempfile.TemporaryDirectory() as tmp:
    spaced = os.path.join(tmp, "build dir")
    os.symlink(os.path.realpath(build), spaced)

    def through(p):
        """`p` (inside the build tree) reached through the spaced link."""
        if not p:
            return p
        rel = os.path.relpath(os.path.realpath(p), os.path.realpath(build))
        return os.path.join(spaced, rel)

    bindir = os.path.join(tmp, "bin dir")
    os.mkdir(bindir)
    subst = {
        "HSA_TOOL": through(paths["hsa"]),
        "API_TOOL": through(paths["api"]),
        "REPLAY_TOOL": through(paths["replay"]),
        "SIM_DIR": through(paths["sim"]),
        "HIP_TOOL": through(paths.get("hip", "")),
        "ROCTX_LIB": through(paths["roctx"]),
        "TRACE_TOOL": through(paths["trace_tool"]),
        "TRACE_CONVERT": through(paths["trace_convert"]),
        "TRACE_RUN": through(paths["trace_run"]),
        "DEFAULT_FORMATS": "json,csv",
    }
    launchers = {}
    for name, template in (("encore-trace", trace_in), ("encore-replay", replay_in)):
        text = open(template).read()
        for k, v in subst.items():
            text = text.replace("@" + k + "@", v)
        out = os.path.join(bindir, name)
        with open(out, "w") as f:
            f.write(text)
        os.chmod(out, 0o755)
        launchers[name] = out
    for k, p in subst.items():
        check(k == "DEFAULT_FORMATS" or not p or " " in p, "every path holds the space: " + p)

    # encore-trace: the program's output as untraced, its HSA calls traced.
    prog, co = through(paths["trace_prog"]), through(paths["trace_co"])
    plain = run([prog, co])
    check(plain.returncode == 0, "the program runs from the spaced folder", plain.stderr)
    traced = run([launchers["encore-trace"], "--sim", prog, co])
    check(traced.returncode == 0, "encore-trace runs it", traced.stderr)
    check(traced.stdout == plain.stdout, "its output unchanged when traced")
    check("hsa_shut_down() -> HSA_STATUS_SUCCESS" in traced.stderr and " API calls (HSA_" in traced.stderr,
          "encore-trace traced the program (libencore-hsa and the record tool loaded, records converted)",
          traced.stderr)

    # encore-replay: replayed, inputs identical, report written into a folder with a space.
    prog, co = through(paths["replay_prog"]), through(paths["replay_co"])
    plain = run([prog, co, "2"])
    report = os.path.join(tmp, "report dir", "replay.csv")
    os.mkdir(os.path.dirname(report))
    replayed = run([launchers["encore-replay"], "--sim", "-n", "3", "--verify", "-k", "saxpy", "-o", report,
                    prog, co, "2"])
    check(replayed.returncode == 0, "encore-replay runs it", replayed.stderr)
    check(replayed.stdout == plain.stdout, "its output unchanged when replayed")
    rows = open(report).read().splitlines() if os.path.exists(report) else []
    # One row per replayed dispatch: dispatch_id,kernel,passes,...,inputs,process_id.
    saxpy = [r.split(",") for r in rows if ",saxpy_accumulate," in r]
    check(len(saxpy) == 2 and all(f[2] == "3" and f[-2] == "identical" for f in saxpy),
          "2 dispatches x 3 passes replayed from identical inputs", "\n".join(rows) + replayed.stderr)

    # LD_PRELOAD from the spaced folder (glibc splits LD_PRELOAD on spaces).
    maps = run([launchers["encore-trace"], "--marker-trace", "--sim", "cat", "/proc/self/maps"],
               env={"ASAN_OPTIONS": "verify_asan_link_order=0:detect_leaks=0"})
    check(maps.returncode == 0 and "cannot be preloaded" not in maps.stderr, "the preload is accepted", maps.stderr)
    check(os.path.basename(os.path.realpath(paths["roctx"])) in maps.stdout, "libencore-roctx is preloaded",
          maps.stdout + maps.stderr)

    # An installed tree with a space (DESTDIR): its launchers' paths are relative to themselves.
    if "meson" in paths:
        inst = os.path.join(tmp, "inst dir")
        r = run([paths["meson"], "install", "-C", build, "--destdir", inst, "--no-rebuild", "--quiet"])
        check(r.returncode == 0, "meson install into a folder with a space", r.stdout + r.stderr)
        found = {}
        for root, _, files in os.walk(inst):
            for f in files:
                found.setdefault(f, os.path.join(root, f))
        need = ("encore-trace", "encore-replay", "hsa_vector_add", "hsa_vector_add_kernels.so")
        if all(n in found for n in need):
            prog, co = found["hsa_vector_add"], found["hsa_vector_add_kernels.so"]
            traced = run([found["encore-trace"], "--sim", "--quiet", prog, co])
            check(traced.returncode == 0 and "1 kernel dispatches" in traced.stderr,
                  "the installed encore-trace traces", traced.stdout + traced.stderr)
            replayed = run([found["encore-replay"], "--sim", "-n", "3", "--verify", prog, co])
            check(replayed.returncode == 0 and "mismatches=0" in replayed.stdout and
                  any(line.split()[:2] == ["1", "3"] and line.split()[-1] == "vector_add"
                      for line in replayed.stderr.splitlines()),
                  "the installed encore-replay replays", replayed.stdout + replayed.stderr)
        else:
            check(False, "the installed tree has " + ", ".join(need), "\n".join(sorted(found)))

    # ROCP_TOOL_LIBRARIES with a space in a path: split on ':' only, as the reference does.
    driver = run([paths["driver"]], env={"ROCP_TOOL_LIBRARIES": through(paths["c_tool"]) + ":"})
    check(driver.returncode == 0, "the tool from a ROCP_TOOL_LIBRARIES path with a space is loaded",
          driver.stdout + driver.stderr)

if failures:
    print(f"space_paths: {len(failures)} check(s) failed")
    sys.exit(1)
print("space_paths: all checks passed")
