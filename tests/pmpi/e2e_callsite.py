#!/usr/bin/env python3
"""End-to-end tests of call sites ([log] stack_depth, the `stack` and `module` records of
docs/LOGS.md, and the report's "call_sites").

A real program under LD_PRELOAD=libcollsel.so calls collectives on source lines marked with a
comment (CALLSITE-BCAST, CALLSITE-LIB); the test finds the marked line numbers by reading the
sources and checks that `collsel report --format json` resolves the logged stacks to them: the
first frame of a site is the user's line, not the shim's or the MPI library's (libmpifort's
bindings for Fortran), and one line is one site over all ranks although ASLR loads the program
and its libraries at other addresses in every rank.

  e2e_callsite.py --case callsite_c --program ./callsite_c --ranks 3 --mpiexec mpiexec \\
      --shim libcollsel.so --collsel ./collsel
"""
import json
import os
import pathlib
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check  # noqa: E402
from e2e_levels import of_type, rank_records, write_config  # noqa: E402

SOURCES = pathlib.Path(__file__).resolve().parent / "programs"
STACK_DEPTH = 3
ROUNDS = 4  # each program calls every marked line this many times per rank


def marker_line(source, marker):
    """The 1-based number of the one line of `source` that holds `marker`."""
    lines = [i for i, text in enumerate(source.read_text().splitlines(), 1) if marker in text]
    check(len(lines) == 1, f"{source.name}: expected one {marker} line, found {lines}")
    return lines[0]


def run_with_call_sites(args, work):
    """Runs the program with stack_depth = STACK_DEPTH; checks the raw logs; returns the log dir."""
    logdir = work / "logs"
    proc = e2e.run(args, {"COLLSEL_CONFIG": str(write_config(work, logdir,
                                                                stack_depth=STACK_DEPTH))}, work)
    e2e.program_verdict(proc)
    check(not e2e.collsel_messages(proc.stderr), f"unexpected messages:\n{proc.stderr}")
    program = os.path.realpath(args.program)
    for rank, records in rank_records(logdir, args.ranks).items():
        check(records[0].get("stack_depth") == STACK_DEPTH,
              f"rank {rank}: run record says stack_depth {records[0].get('stack_depth')}")
        for r in of_type(records, "call"):
            stack = r.get("stack")
            check(isinstance(stack, list) and 0 < len(stack) <= STACK_DEPTH
                  and all(isinstance(pc, int) and pc > 0 for pc in stack),
                  f"rank {rank}: call record without a call site of 1..{STACK_DEPTH} frames: {r}")
        paths = [os.path.realpath(m["path"]) for m in of_type(records, "module")]
        check(program in paths, f"rank {rank}: no module record for {program}: {paths}")
    return logdir


def report_call_sites(args, logdir):
    check(args.collsel, "--collsel is required for this case")
    report = subprocess.run([args.collsel, "report", str(logdir), "--format", "json"],
                            capture_output=True, text=True)
    check(report.returncode == 0, f"collsel report failed ({report.returncode}):\n{report.stderr}")
    doc = json.loads(report.stdout)
    check("call_sites" in doc,
          "`collsel report --format json` has no \"call_sites\" array (the report does not "
          f"output call sites yet); its keys: {sorted(doc)}")
    for w in doc.get("warnings", []) + doc.get("problems", []):
        check("build id" not in w and "not on this machine" not in w, f"report warns: {w}")
    sites = doc["call_sites"]
    for s in sites:
        check("site" in s and isinstance(s.get("frames"), list), f"call site without site/frames: {s}")
        for f in s["frames"]:
            check({"function", "file", "line", "object", "offset"} <= set(f), f"frame fields: {f}")
    return sites


def expect_site(args, sites, coll, source, line, function=None):
    """One site of `coll` whose first frame is `source`:`line`, called by every rank ROUNDS times."""
    found = [s for s in sites if s.get("coll") == coll and s["frames"]
             and pathlib.Path(s["frames"][0]["file"]).name == source.name
             and s["frames"][0]["line"] == line]
    shown = [(s.get("coll"), s["site"]) for s in sites]
    check(len(found) == 1, f"expected one {coll} site at {source.name}:{line}; sites: {shown}")
    site = found[0]
    first = site["frames"][0]
    if function is not None:
        check(first["function"] == function, f"{source.name}:{line} is in {first['function']!r}, "
                                             f"not {function!r}")
    else:
        check(first["function"], f"{source.name}:{line} has no function name")
    check(f"{source.name}:{line}" in site["site"], f"site text {site['site']!r}")
    # Every rank's calls grouped into this one site, whatever address ASLR gave the line.
    check(site.get("calls") == ROUNDS * args.ranks,
          f"{source.name}:{line}: {site.get('calls')} calls, expected {ROUNDS} x {args.ranks} ranks")
    check(site.get("ranks") == args.ranks, f"{source.name}:{line}: ranks {site.get('ranks')}")
    return site


def case_callsite_c(args, work):
    """C: MPI_Bcast in main, MPI_Scatter in a shared library of the program's."""
    sites = report_call_sites(args, run_with_call_sites(args, work))
    main_c = SOURCES / "callsite_c.c"
    lib_c = SOURCES / "callsite_lib.c"
    expect_site(args, sites, "bcast", main_c, marker_line(main_c, "CALLSITE-BCAST"), "main")
    lib = expect_site(args, sites, "scatter", lib_c, marker_line(lib_c, "CALLSITE-LIB"),
                      "callsite_lib_scatter")
    check(pathlib.Path(lib["frames"][0]["object"]).name == "libcallsite_lib.so",
          f"library frame's object: {lib['frames'][0]['object']}")
    # Its caller, one frame up, is main's call of the library.
    check(len(lib["frames"]) >= 2 and lib["frames"][1]["function"] == "main"
          and pathlib.Path(lib["frames"][1]["file"]).name == main_c.name,
          f"the library call's caller is not main: {lib['frames'][1:]}")


def case_callsite_fortran(args, work):
    """Fortran (use mpi): MPI_BCAST through libmpifort's mpi_bcast_, whose frame is skipped."""
    sites = report_call_sites(args, run_with_call_sites(args, work))
    source = SOURCES / "callsite_f.f90"
    expect_site(args, sites, "bcast", source, marker_line(source, "CALLSITE-BCAST"))


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    # e2e.py's command line and runner, over this file's cases (its main() reads e2e.CASES).
    e2e.CASES = CASES
    sys.exit(e2e.main())
