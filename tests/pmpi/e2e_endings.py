#!/usr/bin/env python3
"""End-to-end tests of the endings that are not MPI_Finalize (issue 20; docs/LOGS.md, "How a
rank ended").

tests/pmpi/programs/endings.c makes ENDINGS_N broadcasts on every rank, waits in a barrier so
that every rank has completed all of them, then ends as the case says: exit() without
MPI_Finalize on every rank, MPI_Abort on rank 1 (MPICH's launcher then SIGKILLs the others),
a SIGSEGV on rank 1, or a SIGKILL to rank 1. The same program runs natively first. Checked:
  - the exit status under collsel is the native one;
  - traced in full ([log] traces_per_site = 0), every rank's log holds all ENDINGS_N call records
    (the records reach the page cache as they are made, so even a SIGKILLed rank loses none);
  - with the default [log] settings (the first traces_per_site calls of a call site traced, the
    rest summarised in the summary table, a shared mapping of rank-NNNNN.summary), those first
    calls' records, and every other call in the summary records or the end record's count
    wherever the ending writes one; a clean ending deletes the table's file, a signal or a
    SIGKILL leaves it, and `collsel report` recovers the summaries from it: its calls per rank
    (call records plus summarised calls) and its bcast total are the calls every rank completed,
    or one fewer (a SIGKILL in the middle of counting a call, the bound docs/LOGS.md states);
  - every call site resolves: the module records (written at start) hold its innermost frame;
  - the last record says how the rank ended (none for a SIGKILL), and `collsel report` names
    the ending of every rank;
  - the MPI_Barrier every rank completed is counted on every rank (the `uncovered` records, or
    their counters recovered from the summary table file);
  - a signal handler the program installed before MPI_Init still runs (case handler).

  e2e_endings.py --case abort --program ./endings --ranks 3 --mpiexec mpiexec \\
      --shim libcollsel.so --collsel ./collsel
"""
import json
import os
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check  # noqa: E402
from e2e_levels import write_config  # noqa: E402

CALLS = 6000  # more than the 4096 records the shim used to buffer before writing
TRACES_PER_SITE = 32  # [log] traces_per_site's default: endings.c makes its calls from one site
VICTIM = 1
ABORT_CODE = 3  # what endings.c passes to MPI_Abort
SIGSEGV, SIGKILL, SIGTERM = 11, 9, 15
RACY_STATUS = {"exit": (0, SIGKILL), "handler": (42, SIGKILL)}  # see check_ending


def run(args, work, mode, env_extra, shim):
    """The program under mpiexec (with the shim preloaded when `shim`); (exit status, stdout)."""
    env = dict(os.environ, ENDINGS_MODE=mode, ENDINGS_N=str(CALLS), ENDINGS_VICTIM=str(VICTIM),
               **env_extra)
    cmd = ["timeout", "120", args.mpiexec, "-n", str(args.ranks)]
    if shim:
        cmd += ["-genv", "LD_PRELOAD", args.shim]
    proc = subprocess.run(cmd + [args.program], cwd=work, env=env, capture_output=True, text=True)
    check(proc.returncode != 124, f"{mode}: timed out\n{proc.stdout}\n{proc.stderr}")
    return proc


def completed(proc):
    """{rank: calls} from the program's "ENDINGS rank=R calls=N" lines."""
    done = {int(r): int(n) for r, n in re.findall(r"ENDINGS rank=(\d+) calls=(\d+)", proc.stdout)}
    check("wrong value" not in proc.stdout, f"wrong broadcast values:\n{proc.stdout}")
    return done


def run_dir(logdir):
    runs = [d for d in pathlib.Path(logdir).iterdir() if d.is_dir()]
    check(len(runs) == 1, f"expected one run folder in {logdir}, found {runs}")
    return runs[0]


def rank_logs(logdir, ranks):
    """{rank: (records, nul_padded)}; a cut-short file ends in NUL bytes, which are no record."""
    files = sorted(run_dir(logdir).glob("rank-*.jsonl"))
    check(len(files) == ranks, f"expected {ranks} rank files, found {[f.name for f in files]}")
    out = {}
    for f in files:
        raw = f.read_bytes()
        text = raw.rstrip(b"\0")
        check(b"\0" not in text, f"{f.name}: NUL bytes inside the records")
        records = e2e.records_of(text.decode(), f.name)
        check(records and records[0]["type"] == "run", f"{f.name}: first record is not 'run'")
        out[records[0]["world_rank"]] = (records, len(text) < len(raw))
    return out


def check_rank(rank, records, program, calls_done, traced):
    """The first `traced` calls have their records, whose call sites lie in the module records."""
    calls = [r for r in records if r["type"] == "call"]
    check(len(calls) == traced,
          f"rank {rank}: {len(calls)} call records for the {traced} calls it traced of the "
          f"{calls_done} it completed")
    check([r["seq"] for r in calls] == list(range(traced)),
          f"rank {rank}: the call records are not seq 0..{traced - 1}")
    modules = [r for r in records if r["type"] == "module"]
    check(any(os.path.realpath(m["path"]) == os.path.realpath(program) for m in modules),
          f"rank {rank}: no module record for the program")
    for c in calls[:: max(1, len(calls) // 50)]:
        pc = c["stack"][0] - 1
        check(any(m["start"] <= pc < m["end"] for m in modules),
              f"rank {rank}: call site {c['stack']} lies in no module record")


def expected_ending(mode, rank, records=None):
    """(ending in the end record or None for none, code, words the report must use)."""
    if mode == "exit":
        # MPICH's launcher SIGKILLs the other ranks as soon as one rank exits without
        # MPI_Finalize, so a rank still in its own exit path may be cut short (no end record).
        if records is not None and records[-1]["type"] != "end":
            return None, 0, "cut short"
        return "exit", 0, "exit() without MPI_Finalize"
    if rank != VICTIM:
        return None, 0, "cut short"  # SIGKILLed by the launcher
    return {"abort": ("abort", ABORT_CODE, f"MPI_Abort (code {ABORT_CODE})"),
            "segv": ("signal", SIGSEGV, f"signal {SIGSEGV} (SIGSEGV)"),
            "kill": (None, 0, "cut short"),
            "handler": ("signal", SIGTERM, f"signal {SIGTERM} (SIGTERM)")}[mode]


def check_ending(args, work, mode):
    native = run(args, work, mode, {}, shim=False)
    # Traced in full: every call record survives every ending.
    proc = check_logged(args, work, mode, native, "logs-full", {"traces_per_site": 0}, CALLS)
    # The default settings: the first TRACES_PER_SITE calls traced (one call site and shape), the
    # rest in the summary table, written at every ending but a signal (counted in the end record)
    # and SIGKILL (lost: no end record).
    check_logged(args, work, mode, native, "logs-default", {}, TRACES_PER_SITE)
    return proc


def check_logged(args, work, mode, native, name, log_settings, traced):
    """The run under collsel with these [log] settings: its exit status, logs and report."""
    logdir = work / name
    config = write_config(work, logdir, **log_settings)  # the default [log] settings otherwise
    proc = run(args, work, mode, {"COLLSEL_CONFIG": str(config)}, shim=True)
    if mode in RACY_STATUS:
        # Racy natively too: when a rank exits (0 without MPI_Finalize, 42 from the handler) the
        # launcher SIGKILLs the ranks still running, and reports either the exit or a kill.
        check(native.returncode in RACY_STATUS[mode] and proc.returncode in RACY_STATUS[mode],
              f"{mode}: exit status {proc.returncode} under collsel, {native.returncode} "
              f"natively, expected one of {RACY_STATUS[mode]}")
    else:
        check(proc.returncode == native.returncode,
              f"{mode}: exit status {proc.returncode} under collsel, {native.returncode} "
              f"natively\n{proc.stderr}")
    # A rank that passed the barrier after the calls proves every rank completed them (a killed
    # rank's own line may die in the launcher's stdout forwarding).
    printed = completed(proc)
    check(printed and set(printed.values()) == {CALLS},
          f"{mode}: no rank passed the barrier after its calls: {printed}\n{proc.stdout}")
    logs = rank_logs(logdir, args.ranks)
    expected = {rank: expected_ending(mode, rank, records) for rank, (records, _) in logs.items()}
    # The first rank to exit runs its atexit handler before the launcher learns of the exit.
    check(mode != "exit" or any(e[0] == "exit" for e in expected.values()),
          f"exit: no rank's log says it ended by exit(): {expected}")
    for rank, (records, padded) in logs.items():
        check_rank(rank, records, args.program, CALLS, traced)
        ending, code, _ = expected[rank]
        last = records[-1]
        # The summary table's file: deleted by a clean ending, left by a signal or a SIGKILL;
        # unless the SIGKILL came while the rank was ending cleanly, between writing the table
        # as records (the uncovered ones last) and the end record, when the file is gone and
        # the records are whole (exit: the launcher kills the ranks still ending).
        table = run_dir(logdir) / f"rank-{rank:05d}.summary"
        closed = ending is None and any(r["type"] == "uncovered" for r in records)
        check(table.exists() == (ending in (None, "signal")) or closed,
              f"{mode}: rank {rank} ended by {ending}: its summary table file "
              f"{'is' if table.exists() else 'is not'} there")
        if ending is None:
            check(last["type"] != "end", f"{mode}: rank {rank} was SIGKILLed but wrote {last}")
            check(padded, f"{mode}: rank {rank}'s cut-short file has no NUL tail (not mapped?)")
            continue
        check(last["type"] == "end" and last["ending"] == ending and last["code"] == code,
              f"{mode}: rank {rank}: expected an end record ({ending}, {code}), got {last}")
        check(last["calls"] == traced, f"{mode}: rank {rank}: end counts {last['calls']}")
        # Every call is in a record, or counted in the end record where the summary table could
        # not be written (a signal).
        summarised = sum(r["calls"] for r in records if r["type"] == "summary")
        check(summarised == last["summarised_calls"] == last["sampled_calls"]
              and traced + summarised + last["unwritten_calls"] == CALLS,
              f"{mode}: rank {rank}: {traced} traced, {summarised} summarised and "
              f"{last['unwritten_calls']} unwritten calls of {CALLS}: {last}")
    report = subprocess.run([args.collsel, "report", str(logdir), "--format", "json"],
                            capture_output=True, text=True)
    check(report.returncode == 0, f"collsel report failed:\n{report.stderr}")
    endings = {e["world_rank"]: e for e in json.loads(report.stdout)["endings"]}
    check(sorted(endings) == list(range(args.ranks)), f"report endings: {endings}")
    for rank, e in endings.items():
        ending, code, words = expected[rank]
        check(e["ending"] == (ending or "cut") and e["code"] == code and words in e["how"],
              f"{mode}: the report says rank {rank} ended by {e}, expected {ending} {code}")
        check(e["call_records"] == traced, f"{mode}: report counts {e['call_records']} records")
        # Every call the rank completed is counted (one fewer at most: a SIGKILL in the middle
        # of counting one), in its records or its summaries, recovered from the table's file
        # when the rank could not write them.
        counted = e["call_records"] + e["summarised_calls"]
        check(CALLS - 1 <= counted <= CALLS,
              f"{mode}: the report counts {e['call_records']} traced and "
              f"{e['summarised_calls']} summarised calls of rank {rank}, which completed {CALLS}")
        recovered = ending in (None, "signal") and e["summarised_calls"] > 0
        check(e["summaries_recovered"] == recovered,
              f"{mode}: rank {rank} ended by {ending}: summaries_recovered is "
              f"{e['summaries_recovered']}")
    # The counts of the collectives collsel does not serve: endings.c's MPI_Barrier after its
    # calls, completed once by each rank that printed its line after it (the second never
    # completes; a rank SIGKILLed before it returned from the first has none), written with the
    # end record or, for a rank that could not write them, recovered from its summary table file.
    barrier = [u for u in json.loads(report.stdout)["uncovered"] if u["function"] == "MPI_Barrier"]
    check(len(barrier) == 1 and barrier[0]["calls"] == 1 and barrier[0]["ranks"] >= len(printed),
          f"{mode}: the report's MPI_Barrier counts are {barrier}, expected 1 call on each of "
          f"the {len(printed)} ranks that said they completed it")
    totals = json.loads(report.stdout)["totals"]
    bcast = sum(t["calls"] for t in totals if t["coll"] == "bcast")
    check(CALLS - 1 <= bcast <= CALLS,
          f"{mode}: the report's totals count {bcast} bcast calls of the {CALLS} made: {totals}")
    text = subprocess.run([args.collsel, "report", str(logdir)], capture_output=True, text=True)
    check(all(e[2] in text.stdout for e in expected.values()),
          f"{mode}: the text report does not name every ending:\n{text.stdout[:800]}")
    for rank, e in endings.items():
        if e["summaries_recovered"]:
            check(f"summaries recovered from rank {rank}'s table" in text.stdout,
                  f"{mode}: the text report does not say rank {rank}'s summaries were "
                  f"recovered:\n{text.stdout[:1500]}")
    return proc


def case_exit(args, work):
    check_ending(args, work, "exit")


def case_abort(args, work):
    check_ending(args, work, "abort")


def case_segv(args, work):
    check_ending(args, work, "segv")


def case_kill(args, work):
    check_ending(args, work, "kill")


def case_handler(args, work):
    """The program's own SIGTERM handler, installed before MPI_Init, still runs (after collsel's
    end record): it prints and exits with 42, natively and under collsel alike."""
    proc = check_ending(args, work, "handler")
    check("ENDINGS user handler ran" in proc.stdout,
          f"the program's SIGTERM handler did not run under collsel:\n{proc.stdout}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    e2e.CASES = CASES
    sys.exit(e2e.main())
