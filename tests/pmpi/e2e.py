#!/usr/bin/env python3
"""End-to-end tests of libcollsel.so under LD_PRELOAD (STYLE.md 8.9 #34).

Each case runs a real, unmodified MPI program (C, C++, Fortran) with the shim preloaded, then
checks the program's own verdict and the parsed JSON Lines logs, never golden text. Messages on
stderr are counted by their "collsel:" prefix.

  e2e.py --case intercept --program ./e2e_c --ranks 4 --mpiexec mpiexec --shim libcollsel.so
  e2e.py --mpi openmpi --mpiexec mpiexec.openmpi --shim libcollsel-openmpi.so ...
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

CALL_FIELDS = {
    "v": int, "type": str, "run": str, "world_rank": int, "comm": str, "comm_rank": int,
    "comm_size": int, "seq": int, "coll": str, "bytes": int, "root": int, "algorithm": str,
    "segment_bytes": int, "rung": str, "actual_s": float, "start_s": float,
}
RUNGS = {"override", "model", "default_model", "native", "measured", "explore"}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


# Open MPI on the 2-core test machine, as root: more ranks than cores, no binding (a bound,
# oversubscribed rank waits for scheduler ticks), shared memory only, ranks yielding when idle.
OPENMPI_FLAGS = ["--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
                 "--mca", "btl", "self,vader", "--mca", "mpi_yield_when_idle", "1"]


def run(args, env_extra, workdir):
    env = dict(os.environ)
    env.update(env_extra)
    if args.mpi == "openmpi":
        # Open MPI passes on only the variables named with -x (and the shim to the ranks alone,
        # not to mpiexec itself).
        exported = [f for name in env_extra for f in ("-x", name)]
        cmd = ["timeout", "240", args.mpiexec, *OPENMPI_FLAGS, "-n", str(args.ranks),
               "-x", f"LD_PRELOAD={args.shim}", *exported, args.program]
    else:
        cmd = ["timeout", "240", args.mpiexec, "-n", str(args.ranks),
               "-genv", "LD_PRELOAD", args.shim, args.program]
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True)
    return proc


def collsel_messages(stderr):
    return [line for line in stderr.splitlines() if line.startswith("collsel:")]


def program_verdict(proc):
    match = re.search(r"E2E calls=(\d+) errors=(\d+)", proc.stdout)
    check(match, f"program printed no verdict; exit {proc.returncode}\n"
                 f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    check(proc.returncode == 0, f"program failed with exit {proc.returncode}:\n{proc.stderr}")
    check(int(match.group(2)) == 0, f"program saw {match.group(2)} wrong values")
    return int(match.group(1))


def first_calls(proc):
    """Of the program's calls, those that were the first on a communicator other than
    MPI_COMM_WORLD ("E2E first_calls=F"; 0 if unsaid): under the default [runtime]
    serve_from_call = 2 they run native and are counted in `uncovered` records, not traced."""
    match = re.search(r"E2E first_calls=(\d+)", proc.stdout)
    return int(match.group(1)) if match else 0


def uncovered_before_serving(logdir):
    """{world_rank: calls} of the `uncovered` records with reason "before_serving"."""
    out = {}
    for f in pathlib.Path(logdir).glob("*/rank-*.jsonl"):
        for r in records_of(f.read_text(), f.name):
            if r["type"] == "uncovered" and r.get("reason") == "before_serving":
                out[r["world_rank"]] = out.get(r["world_rank"], 0) + r["calls"]
    return out


def program_collectives(proc):
    """The collectives the program says it called ("colls=a,b"); Bcast and Scatter if unsaid."""
    match = re.search(r"E2E calls=\d+ errors=\d+ colls=([a-z,]+)", proc.stdout)
    return set(match.group(1).split(",")) if match else {"bcast", "scatter"}


# Format version 2 (docs/LOGS.md) leaves out of a record what its file's run record says (run id,
# world rank) and every optional field at its default, and names call sites by the id of a `stack`
# record. records_of() gives the records back whole, as the tests read them; it checks on the way
# what version 2 promises: no record names its run, and a call site's `stack` record comes before
# the first record that names its id, once.
DEFAULTS = {
    "run": {"stack_depth": 0, "max_records": 0, "traces_per_site": 0, "max_bytes": 0},
    "call": {"root": 0, "segment_bytes": 0, "window": 0, "predicted_s": None, "simulated": False,
             "setup_s": 0},
    "summary": {"overflow": False, "predicted_min_s": None, "predicted_max_s": None},
    "module": {"build_id": ""},
    "end": {"summarised_calls": 0, "overflow_calls": 0, "uncovered_counted": False, "code": 0,
            "unwritten_calls": 0, "sampled_calls": 0},
}


def records_of(text, name):
    """The records of one rank file's text (version 1 or 2), each whole."""
    records, stacks, origin = [], {}, {}
    for line in text.splitlines():
        if not line:
            continue
        r = json.loads(line)
        if r.get("v") == 1:
            records.append(r)
            continue
        if r["type"] == "run":
            origin = {"run": r["run"], "world_rank": r["world_rank"]}
        elif r["type"] == "stack":
            check(r["id"] not in stacks, f"{name}: a second stack record of id {r['id']}")
            stacks[r["id"]] = r["pcs"]
        else:
            check("run" not in r and "world_rank" not in r,
                  f"{name}: a version 2 record names its run: {r}")
            r = {**origin, **r}
        for field, default in DEFAULTS.get(r["type"], {}).items():
            r.setdefault(field, default)
        if r["type"] in ("call", "summary"):
            check(r.get("stack", 0) == 0 or r["stack"] in stacks,
                  f"{name}: call site id {r.get('stack')} used before its stack record: {r}")
            r["stack"] = stacks[r["stack"]] if "stack" in r else []
        records.append(r)
    return records


def read_logs(logdir, ranks):
    runs = [d for d in pathlib.Path(logdir).iterdir() if d.is_dir()]
    check(len(runs) == 1, f"expected one run folder in {logdir}, found {[r.name for r in runs]}")
    files = sorted(runs[0].glob("rank-*.jsonl"))
    check(len(files) == ranks, f"expected {ranks} rank files, found {[f.name for f in files]}")
    calls = []
    for f in files:
        records = records_of(f.read_text(), f.name)
        check(records and records[0]["type"] == "run", f"{f.name}: first record is not 'run'")
        check(records[-1]["type"] == "end", f"{f.name}: last record is not 'end'")
        body = [r for r in records if r["type"] == "call"]
        check(records[-1]["calls"] == len(body),
              f"{f.name}: end says {records[-1]['calls']} calls, file has {len(body)}")
        header = records[0]
        check(header["run"] == runs[0].name, f"{f.name}: run id differs from its folder")
        for r in body:
            for field, kind in CALL_FIELDS.items():
                check(field in r, f"{f.name}: call record lacks '{field}': {r}")
                value = r[field]
                ok = isinstance(value, (int, float)) if kind is float else isinstance(value, kind)
                check(ok, f"{f.name}: '{field}' has type {type(value).__name__}: {r}")
            check(r["v"] == 2, f"{f.name}: format version {r['v']}")
            check(r["rung"] in RUNGS, f"{f.name}: unknown rung {r['rung']}")
            check(r["predicted_s"] is None or isinstance(r["predicted_s"], (int, float)),
                  f"{f.name}: predicted_s is neither a number nor null")
            check(r["actual_s"] >= 0, f"{f.name}: negative actual time")
        calls.extend(body)
    return calls


def check_consistent_decisions(calls):
    """The same call (comm, seq) ran the same algorithm on every rank."""
    by_call = {}
    for r in calls:
        key = (r["comm"], r["seq"])
        by_call.setdefault(key, set()).add((r["coll"], r["algorithm"], r["bytes"], r["root"]))
    for key, variants in by_call.items():
        check(len(variants) == 1, f"ranks disagree on call {key}: {variants}")


def base_env(logdir):
    # The runs must not pick up an installed or user config: every case states what it uses.
    return {"COLLSEL_CONFIG": "/dev/null", "COLLSEL_LOG_DIR": str(logdir)}


def case_intercept(args, work):
    """The program is intercepted: one record per call and rank, every collective served."""
    logdir = work / "logs"
    proc = run(args, base_env(logdir), work)
    first = first_calls(proc)
    calls_per_rank = program_verdict(proc) - first
    check(not collsel_messages(proc.stderr), f"unexpected messages:\n{proc.stderr}")
    calls = read_logs(logdir, args.ranks)
    check(len(calls) == calls_per_rank * args.ranks,
          f"{len(calls)} call records for {calls_per_rank} traced calls x {args.ranks} ranks")
    # The first calls on new communicators: counted on every rank, not traced.
    if first:
        counted = uncovered_before_serving(logdir)
        check(counted == {r: first for r in range(args.ranks)},
              f"before-serving counts {counted}, the program made {first} such calls per rank")
    # The run record names the MPI the shim was built for: the report prices that library's
    # default collectives as the native baseline.
    for f in logdir.glob("*/rank-*.jsonl"):
        header = json.loads(f.read_text().splitlines()[0])
        check(header.get("mpi") == args.mpi, f"{f.name}: run record says mpi {header.get('mpi')}, "
              f"the shim is {args.mpi}'s")
    expected = program_collectives(proc)
    check({r["coll"] for r in calls} == expected,
          f"logged collectives {sorted({r['coll'] for r in calls})}, program called {sorted(expected)}")
    served = [r for r in calls if r["algorithm"] != "native"]
    check(served, "no call was served by a collsel algorithm")
    for r in served:
        check(r["rung"] == "default_model", f"rung {r['rung']} without a calibrated model")
        check(r["algorithm"].startswith(r["coll"] + "."), f"algorithm {r['algorithm']} for {r['coll']}")
        check(isinstance(r["predicted_s"], (int, float)) and r["predicted_s"] >= 0,
              f"no prediction for {r}")
        check(r.get("simulated") is False, f"simulated without a [contention] section: {r}")
    check_consistent_decisions(calls)
    seqs = {}
    for r in calls:
        seqs.setdefault((r["comm"], r["world_rank"]), []).append(r["seq"])
    for key, s in seqs.items():
        check(s == list(range(len(s))), f"sequence numbers of {key} are not 0..n-1: {s}")
    check_setup_apart(calls)


def check_setup_apart(calls):
    """A call's set-up (a new communicator's context, a new shape's decision) is logged apart
    from its time: the first served call on each communicator and rank has setup_s > 0, and a
    shape seen before on that rank has none."""
    seen = set()
    first = set()
    for r in sorted(calls, key=lambda r: (r["world_rank"], r["comm"], r["seq"])):
        if r["algorithm"] == "native":
            continue
        check("setup_s" in r and r["setup_s"] >= 0, f"no setup_s: {r}")
        shape = (r["world_rank"], r["comm"], r["coll"], r["bytes"], r["root"])
        if (r["world_rank"], r["comm"]) not in first:
            first.add((r["world_rank"], r["comm"]))
            check(r["setup_s"] > 0, f"the communicator's first call has no set-up time: {r}")
        elif shape in seen:
            check(r["setup_s"] == 0, f"a repeated shape has a set-up time: {r}")
        seen.add(shape)


def case_forced(args, work):
    """COLLSEL_FORCE_BCAST forces the algorithm on every Bcast."""
    logdir = work / "logs"
    env = base_env(logdir)
    env["COLLSEL_FORCE_BCAST"] = "bcast.chain"
    proc = run(args, env, work)
    program_verdict(proc)
    check(not collsel_messages(proc.stderr), f"unexpected messages:\n{proc.stderr}")
    calls = read_logs(logdir, args.ranks)
    for r in calls:
        if r["coll"] == "bcast":
            check(r["algorithm"] == "bcast.chain" and r["rung"] == "override", f"not forced: {r}")
        else:
            check(r["rung"] != "override", f"scatter was not forced: {r}")


def case_local_failure(args, work):
    """A failure on one rank alone (issue 17, item 5; the COLLSEL_TEST_FAIL hook throws
    std::bad_alloc on the last rank). Before the schedule (deciding a new shape, preparing a
    communicator's binding, allocating its context) the ranks agree: every rank runs that call or
    communicator natively, results stay right, one message from the failing rank.
    Inside the schedule (the forced algorithm's run) its peers are already waiting on it: the job
    must end (no deadlock, no verdict printed from wrong data) with collsel's message."""
    failing = args.ranks - 1
    env = base_env(work / "logs")
    env["COLLSEL_FORCE_BCAST"] = "bcast.binomial"
    env["COLLSEL_FORCE_SCATTER"] = "scatter.binomial"
    env["COLLSEL_FORCE_ALLTOALL"] = "alltoall.pairwise"

    def all_native_when(stage, *message):
        """The run with `stage` failing on the last rank: right results, one message from that
        rank, every logged call native. Returns the logged calls."""
        env["COLLSEL_TEST_FAIL"] = f"{stage}@{failing}"
        env["COLLSEL_LOG_DIR"] = str(work / f"logs-{stage}")
        proc = run(args, env, work)
        program_verdict(proc)
        expect_one_message(proc, f"rank {failing}", *message, "natively")
        calls = read_logs(work / f"logs-{stage}", args.ranks)
        for r in calls:
            check(r["algorithm"] == "native" and r["rung"] == "native",
                  f"a rank ran collsel's schedule although {stage} failed on rank {failing}: {r}")
        return calls

    # Deciding a new shape: agreed (in the binding's allreduce for a communicator's first call,
    # by its own allreduce for later shapes), every rank runs that call natively.
    calls = all_native_when("decide", "deciding")
    check(len({r["world_rank"] for r in calls}) == args.ranks, "a rank has no records")
    # Preparing the communicator's binding: agreed in the binding's allreduce, every rank runs
    # the communicator natively.
    calls = all_native_when("bind", "preparing a new communicator failed")
    check(len({r["world_rank"] for r in calls}) == args.ranks, "a rank has no records")
    # Allocating the communicator's context (before the binding's allreduce, issue 17 item 5):
    # the same, and the failing rank, keeping no context, logs none of its calls on the
    # communicators it could not bind.
    calls = all_native_when("context", "preparing a new communicator failed")
    check(calls, "no records")
    check(all(r["world_rank"] != failing for r in calls),
          f"rank {failing} logged a call on a communicator it has no context for")

    # Without the hook the same run is served by the forced algorithms: the case above can fail.
    del env["COLLSEL_TEST_FAIL"]
    env["COLLSEL_LOG_DIR"] = str(work / "logs-clean")
    proc = run(args, env, work)
    program_verdict(proc)
    check(all(r["algorithm"] != "native" for r in read_logs(work / "logs-clean", args.ranks)),
          "forced algorithms did not run without the injected failure")

    # The launcher, killing the job at the abort, may drop the failing rank's last line on stderr
    # (seen once in CI: an empty stderr, the rest as below); the log keeps the cause whatever the
    # launcher does. So every run must end as below with the cause in the log and the report, and
    # the message must reach stderr in at least one of up to three runs.
    env["COLLSEL_TEST_FAIL"] = f"schedule@{failing}"
    stderrs = []
    for attempt in range(3):
        logdir = work / f"logs-abort-{attempt}"
        env["COLLSEL_LOG_DIR"] = str(logdir)
        proc = run(args, env, work)
        check(proc.returncode not in (0, 124),
              f"the job neither failed nor was it stopped cleanly (exit {proc.returncode}; 124 is "
              f"the timeout: a deadlock)\n{proc.stderr}")
        check("E2E calls=" not in proc.stdout, f"a verdict was printed:\n{proc.stdout}")
        endings = {e["world_rank"]: e for e in collsel_report(args, logdir)["endings"]}
        how = endings.get(failing, {}).get("how", "")
        check(endings.get(failing, {}).get("ending") == "abort"
              and "by collsel: " in how and "failed inside its schedule" in how,
              f"the report does not say collsel aborted on rank {failing}, and why: {endings}")
        stderrs.append(proc.stderr)
        if any(f"rank {failing}" in m and "failed inside its schedule" in m
               for m in collsel_messages(proc.stderr)):
            return
    check(False, "no message from the failing rank on stderr in 3 runs:\n" + "\n--\n".join(stderrs))


def case_disabled(args, work):
    """COLLSEL_DISABLE=all: every call runs the native routine, and is still logged."""
    logdir = work / "logs"
    env = base_env(logdir)
    env["COLLSEL_DISABLE"] = "all"
    proc = run(args, env, work)
    program_verdict(proc)
    calls = read_logs(logdir, args.ranks)
    check(calls, "no records")
    for r in calls:
        check(r["algorithm"] == "native" and r["rung"] == "native", f"not native: {r}")


def expect_one_message(proc, *needles):
    messages = collsel_messages(proc.stderr)
    check(len(messages) == 1, f"expected exactly one collsel message, got {len(messages)}:\n"
                              + "\n".join(messages))
    for needle in needles:
        check(needle in messages[0], f"message lacks '{needle}': {messages[0]}")
    return messages[0]


def case_bad_config(args, work):
    """A config naming an unknown algorithm: one message (file, line, valid names), the model
    decides instead, and the program's results are right."""
    logdir = work / "logs"
    config = work / "bad.toml"
    config.write_text(f'[log]\ndir = "{logdir}"\n[override]\nbcast = "bcast.binomal"\n')
    env = {"COLLSEL_CONFIG": str(config)}
    proc = run(args, env, work)
    program_verdict(proc)
    expect_one_message(proc, f"{config}:4:", "'bcast.binomal'", "valid: bcast.flat",
                       "using the model's choice instead")
    calls = read_logs(logdir, args.ranks)
    check(all(r["rung"] == "default_model" for r in calls if r["algorithm"] != "native"),
          "the bad override must fall to the model")


def case_malformed_config(args, work):
    """A config that is not TOML: one message with the line, built-in defaults apply."""
    logdir = work / "logs"
    config = work / "broken.toml"
    config.write_text('[log]\nlevel = "trace"\nthis is not toml\n')
    env = {"COLLSEL_CONFIG": str(config), "COLLSEL_LOG_DIR": str(logdir)}
    proc = run(args, env, work)
    program_verdict(proc)
    expect_one_message(proc, f"{config}:3:", "not valid TOML")
    read_logs(logdir, args.ranks)


def case_missing_model(args, work):
    """A model file that does not exist: one message, the embedded default model serves."""
    logdir = work / "logs"
    env = base_env(logdir)
    env["COLLSEL_MODEL"] = str(work / "no-such-model.toml")
    proc = run(args, env, work)
    program_verdict(proc)
    expect_one_message(proc, "no-such-model.toml", "cannot read the model file",
                       "using the embedded default model instead")
    calls = read_logs(logdir, args.ranks)
    check(all(r["rung"] == "default_model" for r in calls if r["algorithm"] != "native"),
          "the embedded default model must decide")


def case_malformed_model(args, work):
    """A model file with an error: one message naming file and line; default model serves."""
    logdir = work / "logs"
    model = work / "model.toml"
    model.write_text('format_version = 1\nname = "x"\n[plogp]\nlatency_s = "fast"\n'
                     'sizes_bytes = [0]\ngap_s = [1e-6]\nsend_overhead_s = [1e-7]\n'
                     'recv_overhead_s = [1e-7]\n')
    env = base_env(logdir)
    env["COLLSEL_MODEL"] = str(model)
    proc = run(args, env, work)
    program_verdict(proc)
    expect_one_message(proc, f"{model}:4:", "latency_s", "using the embedded default model instead")
    read_logs(logdir, args.ranks)


def write_model(work, name, extra=""):
    """A valid model file (a two-point pLogP table) plus `extra` TOML; returns its path."""
    model = work / "model.toml"
    model.write_text(f'format_version = 1\nname = "{name}"\n[plogp]\nlatency_s = 1e-4\n'
                     'sizes_bytes = [0, 1048576]\ngap_s = [1e-6, 1e-2]\n'
                     'send_overhead_s = [1e-7, 1e-3]\nrecv_overhead_s = [1e-7, 1e-3]\n' + extra)
    return model


def case_calibrated_model(args, work):
    """A valid model file given by COLLSEL_MODEL decides (rung 'model')."""
    logdir = work / "logs"
    model = write_model(work, "test cluster")
    env = base_env(logdir)
    env["COLLSEL_MODEL"] = str(model)
    proc = run(args, env, work)
    program_verdict(proc)
    check(not collsel_messages(proc.stderr), f"unexpected messages:\n{proc.stderr}")
    calls = read_logs(logdir, args.ranks)
    check(all(r["rung"] == "model" for r in calls if r["algorithm"] != "native"),
          "the calibrated model must decide")
    headers = [json.loads(f.read_text().splitlines()[0])
               for f in next(pathlib.Path(logdir).iterdir()).glob("rank-*.jsonl")]
    check(all(h["model"] == str(model) for h in headers), "run records name the model file")


def case_contention_model(args, work):
    """A model whose [contention] section says `use = "always"`: the shim gathers the processor
    names (all ranks on this one host), simulates every schedule on that placement, and logs
    the simulated prediction, the one `collsel explain --ranks-per-node P` gives; results stay
    correct and every rank decides alike."""
    check(args.collsel, "--collsel is required for this case")
    logdir = work / "logs"
    model = write_model(work, "contention test",
                        '[contention]\nrule = "fair"\nuse = "always"\n'
                        'alpha_s_per_byte = 9e-9\nintra_alpha_s_per_byte = 1e-10\n')
    env = base_env(logdir)
    env["COLLSEL_MODEL"] = str(model)
    proc = run(args, env, work)
    program_verdict(proc)
    check(not collsel_messages(proc.stderr), f"unexpected messages:\n{proc.stderr}")
    calls = read_logs(logdir, args.ranks)
    check_consistent_decisions(calls)
    served = [r for r in calls if r["algorithm"] != "native" and r["comm_size"] > 1
              and r["bytes"] > 0]
    check(served, "no call was served by a collsel algorithm")
    differs = 0
    for shape in sorted({(r["coll"], r["comm_size"], r["bytes"], r["root"]) for r in served}):
        coll, size, nbytes, root = shape
        def explain(*extra):
            out = subprocess.run([args.collsel, "explain", "--model", str(model), "--coll", coll,
                                  "-P", str(size), "-m", str(nbytes), "--root", str(root),
                                  "--format", "json", *extra],
                                 capture_output=True, text=True, check=True).stdout
            return json.loads(out)
        simulated = explain("--ranks-per-node", str(size))
        closed = explain()
        logged = [r for r in served if (r["coll"], r["comm_size"], r["bytes"], r["root"]) == shape]
        for r in logged:
            check(r["algorithm"] == simulated["winner"],
                  f"{shape}: the shim ran {r['algorithm']}, the simulation picks "
                  f"{simulated['winner']}")
            check(r.get("simulated") is True, f"{shape}: the record does not say 'simulated': {r}")
            check(abs(r["predicted_s"] - simulated["predicted_s"]) <= 1e-9 * simulated["predicted_s"],
                  f"{shape}: logged prediction {r['predicted_s']}, simulated "
                  f"{simulated['predicted_s']}")
        differs += abs(simulated["predicted_s"] - closed["predicted_s"]) > 1e-6 * closed["predicted_s"]
    check(differs > 0, "no simulated prediction differs from its closed form: was it simulated?")


def case_unwritable_log(args, work):
    """A log folder that cannot be created: one message, the job runs, nothing is logged."""
    env = {"COLLSEL_CONFIG": "/dev/null", "COLLSEL_LOG_DIR": "/proc/collsel-cannot-write-here"}
    proc = run(args, env, work)
    program_verdict(proc)
    expect_one_message(proc, "/proc/collsel-cannot-write-here", "cannot write the log folder",
                       "COLLSEL_LOG_DIR")


def case_foreign_mpi(args, work):
    """The shim of another MPI than the program's: one message naming the library to preload,
    correct results from the program's own collectives, and no log (collsel stays off)."""
    logdir = work / "logs"
    proc = run(args, base_env(logdir), work)
    program_verdict(proc)
    expect_one_message(proc, "preload " + args.expect_shim, "collsel is off")
    check(not logdir.exists() or not any(logdir.iterdir()), "collsel wrote logs while off")


def collsel_report(args, logdir, *options):
    """`collsel report LOGDIR --format json OPTIONS`, parsed."""
    report = subprocess.run([args.collsel, "report", str(logdir), "--format", "json", *options],
                            capture_output=True, text=True)
    check(report.returncode == 0, f"collsel report failed ({report.returncode}):\n{report.stderr}")
    return json.loads(report.stdout)


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_report_sections(doc, calls_per_rank, ranks, collectives):
    """The run-level sections of a report add up: every call in the totals once, every traced call
    in one error row, every served call in one savings row."""
    totals = doc["totals"]
    check(sum(t["calls"] for t in totals) == calls_per_rank,
          f"totals count {sum(t['calls'] for t in totals)} calls, the program made "
          f"{calls_per_rank} per rank: {totals}")
    check({t["coll"] for t in totals} == collectives, f"totals' collectives: {totals}")
    check(close(sum(t["time_s"] for t in totals), doc["total_time_s"]), "total_time_s")
    check(close(sum(t["share"] for t in totals), 1.0) or doc["total_time_s"] == 0, "shares")
    check(all(a["time_s"] >= b["time_s"] for a, b in zip(totals, totals[1:])),
          "totals are not sorted by time")
    traced = [e for e in doc["errors"] if e["source"] == "trace"]
    check(sum(e["calls"] for e in traced) == doc["calls"],
          f"trace error rows count {sum(e['calls'] for e in traced)} of {doc['calls']} calls")
    served = sum(t["calls"] for t in totals if t["algorithm"] != "native")
    check(sum(s["calls"] for s in doc["savings"]) == served,
          f"savings cover {sum(s['calls'] for s in doc['savings'])} of {served} served calls")
    measured = 0.0
    for s in doc["savings"]:
        check(s["native_basis"] in (None, "measured"), f"basis of {s}")
        if s["saved_s"] is not None:
            check(s["native_basis"] == "measured", f"a saving that was not measured: {s}")
            check(close(s["saved_s"], s["native_s"] - s["actual_s"]), f"saved_s of {s}")
            measured += s["saved_s"]
        else:
            check(s["native_note"].startswith("not measured"), f"no measurement, no reason: {s}")
    measured_rows = sum(1 for s in doc["savings"] if s["native_basis"] == "measured")
    check(doc["measured_saving_rows"] == measured_rows, "measured_saving_rows")
    if measured_rows == 0:
        check(doc["saved_measured_s"] is None, "a saving headline without a measurement")
    else:
        check(close(measured, doc["saved_measured_s"]), "saved_measured_s is not the rows' sum")
    unmeasured = {(s["coll"], s["comm_size"], s["bytes_lo"]) for s in doc["savings"]
                  if s["native_basis"] is None}
    check({(e["coll"], e["comm_size"], e["bytes_lo"]) for e in doc["estimates"]} <= unmeasured,
          "a model estimate for a measured shape")
    for e in doc["estimates"]:
        check(e["how"], f"an estimate without its arithmetic: {e}")
        if e["estimated_native_s"] is not None:
            check(e["native_algorithm"].startswith(e["coll"] + "."), f"stand-in of {e}")
            check(close(e["estimated_native_s"], e["actual_s"] * e["ratio"]), f"ratio of {e}")
    sites = doc["call_sites"]
    check(len(sites) <= 10 and doc["call_sites_total"] >= len(sites), "call sites beyond --top")
    for site in sites:
        check(1 <= site["ranks"] <= ranks and site["calls"] >= site["ranks"], f"site {site}")
        check(site["min_s"] <= site["mean_s"] <= site["max_s"], f"site times {site}")
        check(all({"pc", "function", "file", "line", "object", "offset"} <= set(f)
                  for f in site["frames"]), f"site frames {site}")
    if doc["call_sites_total"] == len(sites):
        check(sum(s["calls"] for s in sites) == calls_per_rank * ranks,
              "call sites do not hold every rank's calls")


def case_report(args, work):
    """`collsel report --format json` on a real run: every call counted once, after merging the
    ranks, with no disagreement and no missing rank; the run-level sections add up; a baseline
    run with the native collectives measures every savings row; a trace-capped run still counts
    every call once."""
    check(args.collsel, "--collsel is required for this case")
    logdir = work / "logs"
    proc = run(args, base_env(logdir), work)
    first = first_calls(proc)  # counted, not traced (serve_from_call): in the coverage only
    calls_per_rank = program_verdict(proc) - first
    collectives = program_collectives(proc)
    doc = collsel_report(args, logdir)
    check((doc["coverage"]["before_serving_s"] > 0) == (first > 0),
          f"before_serving_s {doc['coverage']['before_serving_s']} for {first} first calls")
    check(doc["world_size"] == args.ranks, f"world_size {doc['world_size']}")
    check(doc["calls"] == calls_per_rank, f"report counts {doc['calls']} calls, program made "
                                          f"{calls_per_rank} per rank")
    check(sum(row["calls"] for row in doc["rows"]) == calls_per_rank, "rows do not add up")
    check(doc["disagreeing_calls"] == 0, "ranks disagreed on an algorithm")
    check(doc["incomplete_calls"] == 0, "some calls lack a rank's record")
    check({row["coll"] for row in doc["rows"]} == collectives,
          "every collective the program called is in the report")
    check_report_sections(doc, calls_per_rank, args.ranks, collectives)

    baseline = work / "baseline"
    env = base_env(baseline)
    env["COLLSEL_DISABLE"] = "all"
    program_verdict(run(args, env, work))
    with_baseline = collsel_report(args, logdir, "--baseline", str(baseline))
    check_report_sections(with_baseline, calls_per_rank, args.ranks, collectives)
    unmeasured = [s for s in with_baseline["savings"] if s["native_basis"] != "measured"]
    check(not unmeasured, f"the baseline run measures every shape, yet: {unmeasured}")
    check(with_baseline["saved_measured_s"] is not None and not with_baseline["estimates"],
          "with a baseline of every shape the saving is measured and nothing is estimated")

    capped = work / "capped"
    config = work / "capped.toml"
    config.write_text(f'[log]\ndir = "{capped}"\nmax_records = {calls_per_rank // 3}\n')
    env = base_env(capped)
    env["COLLSEL_CONFIG"] = str(config)
    program_verdict(run(args, env, work))
    capped_doc = collsel_report(args, capped)
    check(capped_doc["calls"] == calls_per_rank // 3, f"traced calls {capped_doc['calls']}")
    check(capped_doc["summarised_calls"] == (calls_per_rank - calls_per_rank // 3) * args.ranks,
          f"summarised calls {capped_doc['summarised_calls']}")
    check_report_sections(capped_doc, calls_per_rank, args.ranks, collectives)
    check(any("trace cap" in w for w in capped_doc["warnings"]), "the trace cap is not warned")


# [adapt] first_checkpoint's default (selector/adapt.hpp): a shape's first agreement.
FIRST_CHECKPOINT = 8


def explore_config(work, agree_lag_s=1e-9, **extra):
    """A config that explores on every shape (threshold 0): every applicable runner-up
    (factor 1e6), two trial calls each, four for a runner-up whose gain is unclear. A
    checkpoint's agreement is deferred by one call (agree_lag_s below any call's prediction), so
    that the next shape's checkpoint often settles it early."""
    lines = ['[adapt]', 'mode = "explore"', 'threshold = 0', 'candidate_factor = 1e6',
             'max_candidates = 16', 'trial_calls = 2', 'max_trial_calls = 4',
             f'agree_lag_s = {agree_lag_s}']
    lines += [f'{k} = "{v}"' for k, v in extra.items()]
    path = work / "adapt.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def explore_run(args, work, logdir, config, **extra_env):
    """Runs the program with `config`: no collsel message, every rank the same algorithm on every
    call. Returns the call records."""
    env = base_env(logdir)
    env["COLLSEL_CONFIG"] = str(config)
    env.update(extra_env)
    proc = run(args, env, work)
    program_verdict(proc)
    check(not collsel_messages(proc.stderr), f"unexpected messages:\n{proc.stderr}")
    calls = read_logs(logdir, args.ranks)
    check_consistent_decisions(calls)
    return calls


def shapes_of(calls):
    """Per (comm, coll, bytes, root): the calls of rank 0 in call order."""
    shapes = {}
    for r in sorted(calls, key=lambda r: r["seq"]):
        if r["comm_rank"] == 0:
            shapes.setdefault((r["comm"], r["coll"], r["bytes"], r["root"]), []).append(r)
    return shapes


def case_adapt_skew(args, work):
    """Explore mode with one rank's timing skewed: every rank runs the same algorithm on every
    call (the decisions come from reduced values only), nothing deadlocks (the run's timeout),
    exploration stays within its bound, and the learned table is written; a second run started
    from it explores nothing."""
    logdir = work / "logs"
    # Every call traced: a Scatter root's calls share their trace key with the other roots', and
    # past traces_per_site a shape's first calls could be summarised while its trials are traced.
    calls = explore_run(args, work, logdir, explore_config(work),
                        COLLSEL_LOG_TRACES_PER_SITE="0")
    shapes = shapes_of(calls)
    explored = 0
    for key, seq in shapes.items():
        trials = [r for r in seq if r["rung"] == "explore"]
        # at most max_trial_calls (4) trial calls for each of at most 16 runners-up, once per shape
        check(len(trials) <= 4 * 16, f"{key}: {len(trials)} exploratory calls")
        explored += bool(trials)
        if trials:
            last_trial = max(i for i, r in enumerate(seq) if r["rung"] == "explore")
            settled = {r["algorithm"] for r in seq[last_trial + 1:]}
            check(len(settled) <= 1, f"{key}: still switching after exploring: {settled}")
    # The first agreement is at a shape's 8th call: past 15 ranks the Scatter roots, which rotate,
    # get fewer calls each.
    checked = sum(len(seq) >= FIRST_CHECKPOINT for seq in shapes.values())
    check(checked > 0 and explored == checked,
          f"threshold 0 explored {explored} of the {checked} shapes called {FIRST_CHECKPOINT} "
          "times or more")
    print(f"{explored} of {len(shapes)} shapes explored; chosen: "
          + ", ".join(sorted({seq[-1]['algorithm'] for seq in shapes.values()})))
    learned = list(logdir.glob("*/learned.toml"))
    check(len(learned) == 1, f"expected one learned.toml, found {learned}")
    text = learned[0].read_text()
    check(text.count("[[shape]]") == checked,
          f"learned.toml has not every shape called {FIRST_CHECKPOINT} times or more:\n{text}")

    calls2 = explore_run(args, work, work / "logs2", explore_config(work, learned=learned[0]))
    # Started from what was measured, the shapes hold their learned times unless the machine's
    # load changed by more than the threshold; on 2 shared cores some may: count, do not demand.
    for key, seq in shapes_of(calls2).items():
        first = seq[0]
        check(first["rung"] in ("measured", "model", "default_model"),
              f"{key}: first call of the second run has rung {first['rung']}")


def case_adapt_exhaustive(args, work):
    """Exhaustive mode (the runtime tuners' way) with one rank's timing skewed: from the first
    checkpoint every other algorithm runs exactly trial_calls consecutive calls, each once, more
    of them than explore's max_candidates would try; then one algorithm to the end. Every rank
    runs the same algorithm on every call, nothing deadlocks, the learned table is written."""
    logdir = work / "logs"
    config = work / "exhaustive.toml"
    config.write_text('[adapt]\nmode = "exhaustive"\ntrial_calls = 2\nagree_lag_s = 1e-9\n')
    calls = explore_run(args, work, logdir, config, COLLSEL_LOG_TRACES_PER_SITE="0")
    most_tried = 0
    for key, seq in shapes_of(calls).items():
        if len(seq) < FIRST_CHECKPOINT + 1:
            continue
        trials = [i for i, r in enumerate(seq) if r["rung"] == "explore"]
        if not trials:
            continue  # the model could predict no other algorithm for this shape
        check(trials == list(range(FIRST_CHECKPOINT, FIRST_CHECKPOINT + len(trials))),
              f"{key}: trial calls at {trials}, expected consecutive from the "
              f"{FIRST_CHECKPOINT + 1}th")
        tried = [seq[i]["algorithm"] for i in trials]
        pairs = [tried[i:i + 2] for i in range(0, len(tried), 2)]
        check(all(len(p) == 2 and p[0] == p[1] for p in pairs),
              f"{key}: trials not 2 calls each: {tried}")
        names = [p[0] for p in pairs]
        check(len(set(names)) == len(names) and seq[0]["algorithm"] not in names,
              f"{key}: an algorithm tried twice, or the model's choice tried: {names}")
        after = {r["algorithm"] for r in seq[trials[-1] + 1:]}
        check(len(after) <= 1, f"{key}: still switching after the trials: {after}")
        most_tried = max(most_tried, len(names))
    check(most_tried > 3, f"at most {most_tried} algorithms tried on a shape: explore's "
                          "max_candidates (3), not every algorithm")
    check(len(list(logdir.glob("*/learned.toml"))) == 1, "expected one learned.toml")
    print(f"up to {most_tried} other algorithms tried on a shape")


def case_adapt_lag(args, work):
    """The default lag: calls of microseconds defer the 64th call's agreement to after the 128th
    (the cap, 64 calls). With 100 calls per shape it is still in flight when the program frees
    the sub-communicator and when it calls MPI_Finalize, for world's Bcast and Alltoall, and
    both settle it. The first checkpoint's agreement (the 8th call) is immediate, so every shape
    called 8 times or more explores from its 9th call. Every rank runs the same algorithm on every call; nothing
    deadlocks or reports an error."""
    logdir = work / "logs"
    calls = explore_run(args, work, logdir, explore_config(work, agree_lag_s=0.25),
                        ADAPT_CALLS="100",
                        COLLSEL_LOG_TRACES_PER_SITE="0")  # every call traced: indices count
    shapes = shapes_of(calls)
    check(len({key[0] for key in shapes}) == 2, "expected two communicators in the log")
    long_shapes = 0
    for key, seq in shapes.items():
        trials = [i for i, r in enumerate(seq) if r["rung"] == "explore"]
        if len(seq) >= FIRST_CHECKPOINT:
            check(trials and trials[0] == FIRST_CHECKPOINT,
                  f"{key}: first trial call {trials[:1]}, expected the {FIRST_CHECKPOINT + 1}th")
        if len(seq) >= 99:  # a communicator other than world is served from its 2nd call
            long_shapes += 1
            last_trial = trials[-1] if trials else 0
            check(last_trial < 63, f"{key}: still exploring at call {last_trial + 1}: the 64th "
                                   "call's agreement would not be deferred")
    check(long_shapes == 3, f"expected three shapes of 99-100 calls, found {long_shapes}")
    learned = list(logdir.glob("*/learned.toml"))
    check(len(learned) == 1, f"expected one learned.toml, found {learned}")
    print(f"{long_shapes} shapes with their 64th call's agreement in flight at the free or at "
          "MPI_Finalize")


def case_adapt_skew_tree(args, work):
    """The same past 16 ranks, where the agreement is a binomial reduce and broadcast instead of
    every rank sending to every other (pmpi/comm_context.cpp, kAllExchangeRanks)."""
    check(args.ranks > 16, f"run at more than 16 ranks, not {args.ranks}")
    case_adapt_skew(args, work)


def case_adapt_bad_learned(args, work):
    """A corrupt learned table: one message naming the file, and the job runs on the model."""
    logdir = work / "logs"
    env = base_env(logdir)
    bad = work / "nightly.toml"
    bad.write_text("format_version = 1\nmodel = \"x\"\n[[shape]]\ncoll = \"bcast\"\n")
    env["COLLSEL_LEARNED"] = str(bad)
    env["COLLSEL_ADAPT"] = "explore"
    proc = run(args, env, work)
    program_verdict(proc)
    expect_one_message(proc, str(bad), "the learned table is ignored")
    calls = read_logs(logdir, args.ranks)
    check_consistent_decisions(calls)
    # The run may learn for itself (explore mode), but no shape starts from the ignored table.
    for key, seq in shapes_of(calls).items():
        check(seq[0]["rung"] in ("model", "default_model"),
              f"{key}: the first call has rung {seq[0]['rung']}, not the model's")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", required=True, choices=sorted(CASES))
    parser.add_argument("--program", required=True)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--mpiexec", default="mpiexec")
    parser.add_argument("--shim", required=True)
    parser.add_argument("--collsel", help="the collsel tool, for the report case")
    parser.add_argument("--mpi", choices=["mpich", "openmpi"], default="mpich",
                        help="the MPI of --mpiexec and --program (how to launch)")
    parser.add_argument("--expect-shim", help="foreign_mpi: the library the message must name")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="collsel-e2e-") as tmp:
        try:
            CASES[args.case](args, pathlib.Path(tmp))
        except Failure as e:
            print(f"FAIL {args.case} ({pathlib.Path(args.program).name}): {e}")
            return 1
    print(f"ok {args.case} ({pathlib.Path(args.program).name}, {args.ranks} ranks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
