#!/usr/bin/env python3
"""End-to-end tests of the log levels ([log] level = trace | summary | off, docs/LOGS.md).

Same driver and checks as e2e.py (whose helpers this imports): a real program under
LD_PRELOAD=libcollsel.so, its own verdict, the parsed JSON Lines logs, the "collsel:" messages.
The program is tests/pmpi/programs/many_calls.c; its mode and call count travel in the
environment (MANY_CALLS_MODE, MANY_CALLS_N).

  e2e_levels.py --case summary_bounded --program ./many_calls --ranks 2 --mpiexec mpiexec \\
      --shim libcollsel.so
"""
import json
import os
import pathlib
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import Failure, check  # noqa: E402

# VmHWM may grow by this much over a million summarised calls: page-ins of the preallocated table's
# touched entries and of MPI/libc paths first used late. Without the bound the trace level's 1M
# records alone would need ~200 MB of buffer.
HWM_GROWTH_LIMIT_KB = 4 * 1024


def write_config(work, logdir, **log):
    """A config file whose [log] section holds `dir` and the given keys; returns its path."""
    lines = [f'dir = "{logdir}"'] + [f"{k} = {json.dumps(v)}" for k, v in log.items()]
    config = work / "collsel.toml"
    config.write_text("[log]\n" + "\n".join(lines) + "\n")
    return config


def run_many(args, work, config, mode, calls=None):
    env = {"COLLSEL_CONFIG": str(config), "MANY_CALLS_MODE": mode}
    if calls is not None:
        env["MANY_CALLS_N"] = str(calls)
    return e2e.run(args, env, work)


def rank_records(logdir, ranks):
    """{world_rank: [records]} of the one run in `logdir`, with e2e.py's call-record checks."""
    e2e.read_logs(logdir, ranks)
    run_dir = next(d for d in pathlib.Path(logdir).iterdir() if d.is_dir())
    out = {}
    for f in sorted(run_dir.glob("rank-*.jsonl")):
        records = e2e.records_of(f.read_text(), f.name)
        out[records[0]["world_rank"]] = records
    return out


def of_type(records, kind):
    return [r for r in records if r["type"] == kind]


def check_summary_records(rank, records):
    """Every `summary` record's statistics hang together; returns their calls' total."""
    for s in of_type(records, "summary"):
        check(s["calls"] > 0, f"rank {rank}: empty summary record {s}")
        check(s["bytes_lo"] <= s["bytes_hi"], f"rank {rank}: bucket {s}")
        check(s["calls"] * s["bytes_lo"] <= s["bytes_sum"] <= s["calls"] * s["bytes_hi"],
              f"rank {rank}: bytes_sum outside its bucket: {s}")
        check(0 <= s["actual_min_s"] <= s["actual_max_s"], f"rank {rank}: actual min/max {s}")
        check(s["actual_sum_s"] >= s["actual_min_s"] * s["calls"] * (1 - 1e-9),
              f"rank {rank}: actual_sum_s below calls x min: {s}")
        if s["predicted_calls"] == 0:
            check(s["predicted_min_s"] is None and s["predicted_max_s"] is None,
                  f"rank {rank}: min/max without a prediction: {s}")
        else:
            check(s["predicted_min_s"] <= s["predicted_max_s"], f"rank {rank}: predicted {s}")
    return sum(s["calls"] for s in of_type(records, "summary"))


def executable_span(records, program):
    """[start, end) of the program's own module record: where its call sites must lie."""
    path = os.path.realpath(program)
    spans = [(m["start"], m["end"]) for m in of_type(records, "module")
             if os.path.realpath(m["path"]) == path]
    check(spans, f"no module record for {path}")
    return spans[0]


def check_sites_in_program(rank, stacks, span):
    """The innermost frame of every call site is in the program, never in collsel or MPI."""
    for stack in stacks:
        check(stack, f"rank {rank}: empty call site")
        check(span[0] <= stack[0] < span[1],
              f"rank {rank}: call site {stack} starts outside the program {span}")


def case_summary_bounded(args, work):
    """A million Bcasts at level summary: memory stays flat (VmHWM), every call is counted once in
    one of the 64 keys (8 call sites x 8 size buckets), no call record is written."""
    logdir = work / "logs"
    config = write_config(work, logdir, level="summary")
    proc = run_many(args, work, config, "bcast", 1_000_000)
    calls = e2e.program_verdict(proc)
    check(not e2e.collsel_messages(proc.stderr), f"unexpected messages:\n{proc.stderr}")
    hwm = re.findall(r"MANY rank=(\d+) hwm_start_kb=(\d+) hwm_end_kb=(\d+)", proc.stdout)
    check(len(hwm) == args.ranks, f"expected {args.ranks} MANY lines:\n{proc.stdout}")
    for rank, start, end in hwm:
        growth = int(end) - int(start)
        check(growth < HWM_GROWTH_LIMIT_KB,
              f"rank {rank}: VmHWM grew by {growth} KiB over {calls} calls (limit "
              f"{HWM_GROWTH_LIMIT_KB} KiB)")
    for rank, records in rank_records(logdir, args.ranks).items():
        check(records[0]["level"] == "summary", f"rank {rank}: run record {records[0]}")
        check(not of_type(records, "call"), f"rank {rank}: call records at level summary")
        check(check_summary_records(rank, records) == calls,
              f"rank {rank}: summary records do not add up to {calls} calls")
        end = records[-1]
        check(end["calls"] == 0 and end["summarised_calls"] == calls and end["overflow_calls"] == 0,
              f"rank {rank}: end record {end}")
        summaries = of_type(records, "summary")
        check(len({s["stack"][0] for s in summaries}) == 8,
              f"rank {rank}: expected 8 call sites, got {len({s['stack'][0] for s in summaries})}")
        check(len({(tuple(s["stack"]), s["bytes_lo"]) for s in summaries}) == 64,
              f"rank {rank}: expected 64 site x bucket keys")
        check_sites_in_program(rank, [s["stack"] for s in summaries],
                               executable_span(records, args.program))


def case_trace_cap(args, work):
    """max_records = 100 of 300 calls: 100 call records per rank, summary records for the other
    200, and the cap noted once (rank 0's message only)."""
    logdir = work / "logs"
    config = write_config(work, logdir, level="trace", max_records=100)
    proc = run_many(args, work, config, "bcast", 300 - 64)  # the warm-up adds 64
    calls = e2e.program_verdict(proc)
    check(calls == 300, f"the program made {calls} calls, not 300")
    e2e.expect_one_message(proc, "reached [log] max_records = 100", "summarised per call site",
                           'level = "summary"')
    for rank, records in rank_records(logdir, args.ranks).items():
        header = records[0]
        check(header["level"] == "trace" and header["max_records"] == 100
              and header["stack_depth"] == 4, f"rank {rank}: run record {header}")
        traced = of_type(records, "call")
        check([r["seq"] for r in traced] == list(range(100)),
              f"rank {rank}: the call records are not the first 100 calls")
        check(check_summary_records(rank, records) == 200,
              f"rank {rank}: summary records do not cover the 200 later calls")
        end = records[-1]
        check(end["calls"] == 100 and end["summarised_calls"] == 200, f"rank {rank}: end {end}")
        span = executable_span(records, args.program)
        check_sites_in_program(rank, [r["stack"] for r in traced], span)
        check_sites_in_program(rank, [s["stack"] for s in of_type(records, "summary")], span)


def case_traces_per_site(args, work):
    """[log] traces_per_site = 3 over the 64 keys of 9 calls each: the first 3 calls of every
    key are call records, the other 6 are in the summary records, silently (sampling is the
    default, no cap was reached), and the report counts every call once: its totals are the 576
    calls made, its header says the traces were sampled."""
    logdir = work / "logs"
    config = write_config(work, logdir, level="trace", traces_per_site=3)
    proc = run_many(args, work, config, "bcast", 9 * 64 - 64)  # the warm-up adds 64
    calls = e2e.program_verdict(proc)
    check(calls == 576, f"the program made {calls} calls, not 576")
    check(not e2e.collsel_messages(proc.stderr), f"unexpected messages:\n{proc.stderr}")
    for rank, records in rank_records(logdir, args.ranks).items():
        check(records[0]["traces_per_site"] == 3, f"rank {rank}: run record {records[0]}")
        traced = of_type(records, "call")
        # Key k (site k % 8, bucket k / 8) is called at seq k, k + 64, k + 128, ...
        check(sorted(r["seq"] for r in traced) == list(range(3 * 64)),
              f"rank {rank}: the call records are not the first 3 calls of each key")
        per_key = {}
        for r in traced:
            per_key.setdefault((tuple(r["stack"]), r["bytes"]), []).append(r["seq"])
        check(len(per_key) == 64 and all(len(s) == 3 for s in per_key.values()),
              f"rank {rank}: call records per key {sorted(len(s) for s in per_key.values())}")
        check(len(of_type(records, "stack")) == 8, f"rank {rank}: not one stack record per site")
        check(check_summary_records(rank, records) == 576 - 192,
              f"rank {rank}: summary records do not hold the 384 later calls")
        end = records[-1]
        check(end["calls"] == 192 and end["summarised_calls"] == 384
              and end["sampled_calls"] == 384, f"rank {rank}: end {end}")
        span = executable_span(records, args.program)
        check_sites_in_program(rank, [r["stack"] for r in traced], span)
        check_sites_in_program(rank, [s["stack"] for s in of_type(records, "summary")], span)
    check(args.collsel, "--collsel is required for this case")
    doc = e2e.collsel_report(args, logdir)
    total = sum(t["calls"] for t in doc["totals"])
    check(total == 576, f"the report's totals count {total} calls, the program made 576")
    rows = sum(r["calls"] for r in doc["rows"])
    check(rows == 192, f"the per-size rows hold {rows} calls, not the 192 traced")
    check(doc["sampled_calls"] == 384 * args.ranks and doc["traces_per_site"] == ["3"],
          f"the report does not say the traces were sampled: {doc['sampled_calls']}, "
          f"{doc['traces_per_site']}")
    check(not any("trace cap" in w for w in doc["warnings"]), f"warnings: {doc['warnings']}")


def case_overflow(args, work):
    """A summary table smaller than the program's 64 keys: the rest is counted in the overflow
    entry, noted once, and the totals stay complete."""
    logdir = work / "logs"
    config = write_config(work, logdir, level="summary", summary_entries=16)
    proc = run_many(args, work, config, "bcast", 1000)
    calls = e2e.program_verdict(proc)
    e2e.expect_one_message(proc, "summary table is full", "summary_entries = 16",
                           "raise summary_entries")
    for rank, records in rank_records(logdir, args.ranks).items():
        check(check_summary_records(rank, records) == calls, f"rank {rank}: totals incomplete")
        overflow = [s for s in of_type(records, "summary") if s["overflow"]]
        check(len(overflow) == 1 and overflow[0]["algorithm"] == "*"
              and overflow[0]["comm_size"] == 0 and overflow[0]["stack"] == [],
              f"rank {rank}: overflow records {overflow}")
        check(records[-1]["overflow_calls"] == overflow[0]["calls"] > 0,
              f"rank {rank}: end record {records[-1]}")
        check(len(of_type(records, "summary")) == 17, f"rank {rank}: 16 keys and the overflow")


def case_off(args, work):
    """level = off: the job runs and no log folder or file is written."""
    logdir = work / "logs"
    config = write_config(work, logdir, level="off")
    proc = run_many(args, work, config, "bcast", 1000)
    e2e.program_verdict(proc)
    check(not e2e.collsel_messages(proc.stderr), f"unexpected messages:\n{proc.stderr}")
    check(not logdir.exists(), f"level off wrote {sorted(str(p) for p in logdir.rglob('*'))}")


def decisions(proc):
    return re.findall(r"^DECISION (\d+) (\w+) (\d+) (\S+)$", proc.stdout, re.M)


def case_same_decisions(args, work):
    """Logging never changes a decision: the sweep's per-call algorithms are identical at trace
    (with and without call sites), summary and off, and equal the trace log's records."""
    seen = {}
    trace_logs = None
    for name, log in [("trace", {"level": "trace"}),
                      ("trace_no_sites", {"level": "trace", "stack_depth": 0}),
                      ("summary", {"level": "summary"}),
                      ("off", {"level": "off"})]:
        logdir = work / f"logs-{name}"
        proc = run_many(args, work, write_config(work, logdir, **log), "sweep")
        calls = e2e.program_verdict(proc)
        check(not e2e.collsel_messages(proc.stderr), f"{name}: unexpected messages:\n{proc.stderr}")
        seen[name] = decisions(proc)
        check(len(seen[name]) == calls, f"{name}: {len(seen[name])} DECISION lines for {calls}")
        check(all(d[3] != "none" for d in seen[name]), f"{name}: the shim was not found")
        if name == "trace":
            trace_logs = rank_records(logdir, args.ranks)
    for name, got in seen.items():
        for a, b in zip(seen["trace"], got):
            check(a == b, f"call {a[0]}: {a[3]} at trace, {b[3]} at {name}")
    rank0 = [r for r in of_type(trace_logs[0], "call") if r["comm"] == "0.0"]
    check([(r["coll"], r["bytes"], r["algorithm"]) for r in rank0]
          == [(d[1], int(d[2]), d[3]) for d in seen["trace"]],
          "the trace log's algorithms differ from what the calls ran")
    served = {d[3] for d in seen["trace"] if d[3] != "native"}
    check(len(served) >= 2, f"the sweep exercised too few algorithms: {served}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    # e2e.py's command line and runner, over this file's cases (its main() reads e2e.CASES).
    e2e.CASES = CASES
    sys.exit(e2e.main())
